"""`cardc new game` and `cardc new expansion`: scaffolds that check, build and are formatted at once."""

from __future__ import annotations

import io
import os
import shutil
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

from cardc import cli

ROOT = Path(__file__).resolve().parent.parent


def run(argv: list[str], cwd: Path) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    old = Path.cwd()
    os.chdir(cwd)
    try:
        with redirect_stdout(out), redirect_stderr(err):
            code = cli.main(argv)
    finally:
        os.chdir(old)
    return code, out.getvalue(), err.getvalue()


def test_new_game_and_expansion_check_build_and_are_formatted(tmp_path: Path) -> None:
    code, _, err = run(["new", "game", "dragons", "--content", "stuff"], tmp_path)
    assert code == 0, err
    assert (tmp_path / "stuff" / "cardc.toml").is_file()
    game = (tmp_path / "stuff" / "dragons" / "game.cardc").read_text()
    assert game.startswith("// Dragons: the game") and "kind monster {" in game
    code, _, err = run(["new", "expansion", "dragons", "winter", "--content", "stuff"], tmp_path)
    assert code == 0, err
    exp = (tmp_path / "stuff" / "dragons" / "winter" / "winter.cardc").read_text()
    assert "module dragons.winter" in exp and "expansion winter extends dragons {" in exp
    assert "hero winter_hero {" in exp and "monster winter_monster {" in exp  # an example of each kind
    assert "  strength: 1" in exp  # required attributes filled in
    code, _, err = run(["check", "--show-provisional", "stuff"], tmp_path)
    assert (code, err) == (0, "ok: 3 files, 4 entities\n")
    assert run(["fmt", "--check", "stuff"], tmp_path)[0] == 0
    code, _, err = run(["build", "stuff", "--out", "out", "--png", "false", "--tts-images", "false"], tmp_path)
    assert code == 0, err
    assert (tmp_path / "out" / "ir" / "dragons.json").is_file()


def test_new_expansion_of_a_bundled_game_checks(tmp_path: Path) -> None:
    shutil.copytree(ROOT / "content", tmp_path / "content")
    code, _, err = run(["new", "expansion", "karak", "winter"], tmp_path)
    assert code == 0, err
    text = (tmp_path / "content" / "karak" / "winter" / "winter.cardc").read_text()
    assert "chest winter_chest {" in text and 'import "../base/items.cardc"' in text  # a ref needs its file
    code, _, err = run(["check", "-q", "content/karak"], tmp_path)
    assert (code, err) == (0, "")


def test_nothing_is_overwritten_and_bad_names_are_refused(tmp_path: Path) -> None:
    assert run(["new", "game", "g", "--content", "c"], tmp_path)[0] == 0
    before = (tmp_path / "c" / "g" / "game.cardc").read_text()
    code, _, err = run(["new", "game", "g", "--content", "c"], tmp_path)
    assert code == 1 and "already exists; nothing was written" in err
    assert (tmp_path / "c" / "g" / "game.cardc").read_text() == before
    code, _, err = run(["new", "game", "Bad-Name", "--content", "c"], tmp_path)
    assert code == 1 and "not a valid id" in err
    code, _, err = run(["new", "expansion", "nogame", "x", "--content", "c"], tmp_path)
    assert code == 1 and "declares `game nogame`" in err
