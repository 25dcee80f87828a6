"""Wrong flags fail fast (issue 11.5): exit 2 with a clear message and "did you mean", before any work.

"Before any work" is shown by pointing the commands at broken content: a flag error wins (exit 2) over the
content's errors (which would be exit 1), and no output folder appears.
"""

from __future__ import annotations

import io
import os
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest
from cardc import cli

ROOT = Path(__file__).resolve().parent.parent


def run(argv: list[str], cwd: Path = ROOT) -> tuple[int, str]:
    old = Path.cwd()
    os.chdir(cwd)
    err = io.StringIO()
    try:
        with redirect_stdout(io.StringIO()), redirect_stderr(err):
            code = cli.main(argv)
    finally:
        os.chdir(old)
    return code, err.getvalue()


@pytest.fixture()
def broken(tmp_path: Path) -> Path:
    (tmp_path / "content").mkdir()
    (tmp_path / "content" / "cardc.toml").write_text("")
    (tmp_path / "content" / "x.cardc").write_text("this is not cardc at all\n")
    return tmp_path


@pytest.mark.parametrize(("argv", "message"), [
    (["--only", "pdf"], "unknown backend `pdf`; known: ir, print, python, balance, reference, export"),
    (["--only", "referenc"], "unknown backend `referenc`; did you mean `reference`?"),
    (["--only", "ir", "--paper", "letter"], "--paper applies to the print backend, which --only leaves out"),
    (["--only", "ir", "--tts-images", "false"], "--tts-images applies to the export backend"),
    (["--paper", "a5"], "print setting `print.paper`: `a5` is not one of a4, letter"),
    (["--bleed", "lots"], "print setting `print.bleed`: `lots` is not a number"),
    (["--bleed", "inf"], "print setting `print.bleed`: `inf` is not a number"),
    (["--print-set", "nosuch=1"], "unknown print setting `print.nosuch`"),
])
def test_build_flags(broken: Path, argv: list[str], message: str) -> None:
    code, err = run(["build", "content", "--out", "gen", *argv], broken)
    assert code == 2
    assert f"cardc build: error: {message}" in err
    assert not (broken / "gen").exists()


def test_only_lists_the_backends_in_help(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        cli.main(["build", "--help"])
    assert "ir, print, python, balance, reference, export" in " ".join(capsys.readouterr().out.split())


@pytest.mark.parametrize(("argv", "message"), [
    (["--hero", "horan", "--vs-hero", "horan"], "a hero cannot duel itself"),
    (["--hero", "horan", "--vs", "dragon", "--vs-hero", "taia"], "not both"),
    (["--hero", "horan", "--vs", "dragon", "--by", "battle_arena"], "--by applies only to a duel"),
    (["--hero", "horan", "--vs", "dragon", "--vs-lives", "3", "--vs-cursed"],
     "--vs-lives, --vs-cursed apply only to a duel"),
    (["--table", "--hero", "horan"], "--hero does not apply to --table"),
    (["--hero", "horan", "--vs", "dragon", "--lives", "0"], "--lives must be from 1 to 99, not 0"),
    (["--hero", "horan"], "give --hero and --vs OPPONENT (or --vs-hero FIGHTER), or --table"),
    (["--table", "--lives", "0"], "--lives must be from 1 to 99, not 0"),
])
def test_odds_flags(broken: Path, argv: list[str], message: str) -> None:
    code, err = run(["odds", "--game", "karak", *argv], broken)
    assert code == 2
    assert message in err


def test_odds_unknown_duel_source_is_named_with_the_known_ones() -> None:
    code, err = run(["odds", "--game", "karak", "--hero", "horan", "--vs-hero", "taia", "--by", "battle_arna"])
    assert code == 2
    assert "unknown duel source (a variant or a place) `battle_arna`; did you mean `battle_arena`?" in err


def test_dump_unknown_game() -> None:
    code, err = run(["dump", "content", "--game", "karek"])
    assert code == 2
    assert "unknown game `karek`; did you mean `karak`?" in err
