"""The command-line contract: exit codes, --help, --version, diagnostics on stderr, JSON on stdout."""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest
from cardc import __version__, cli

ROOT = Path(__file__).resolve().parent.parent
SUBCOMMANDS = sorted(cli.make_parser()._subparsers._group_actions[0].choices)  # type: ignore[union-attr]
LOCATION = re.compile(r"^[^\s:][^:\n]*:\d+:\d+: (error|warning)\[[EW]\d{3}\]: ", re.MULTILINE)


def run(argv: list[str], cwd: Path = ROOT) -> tuple[int, str, str]:
    """`cardc ARGV` in-process; argparse's SystemExit becomes the exit code."""
    out, err = io.StringIO(), io.StringIO()
    old = Path.cwd()
    os.chdir(cwd)
    try:
        with redirect_stdout(out), redirect_stderr(err):
            try:
                code = cli.main(argv)
            except SystemExit as exc:
                code = exc.code if isinstance(exc.code, int) else 1
    finally:
        os.chdir(old)
    return code, out.getvalue(), err.getvalue()


@pytest.fixture()
def broken(tmp_path: Path) -> Path:
    (tmp_path / "cardc.toml").write_text("")
    (tmp_path / "g.cardc").write_text('module g\ngame g { languages: [en] }\nkind monster {}\nmonstr bat {}\n')
    return tmp_path


def test_subcommands_are_the_documented_ones() -> None:
    assert {"check", "build", "dump"} <= set(SUBCOMMANDS)


def test_check_bundled_content_exits_0() -> None:
    code, out, err = run(["check", "content"])
    assert code == 0, err
    assert out == ""
    assert "error[" not in err


def test_a_check_called_in_a_process_that_goes_on_leaves_the_collector_as_it_was() -> None:
    import gc

    assert gc.isenabled()
    assert run(["check", "content"])[0] == 0
    assert gc.isenabled()  # only `cli.run`, the command whose process ends with it, turns it off


def test_the_check_command_gives_the_same_report_with_the_collector_off(tmp_path: Path) -> None:
    env = {**os.environ, "CARDC_CACHE_DIR": str(tmp_path / "cache")}
    env.pop("CARDC_CACHE", None)
    command = [sys.executable, "-m", "cardc", "check", "content"]
    first = subprocess.run(command, env=env, cwd=ROOT, capture_output=True, text=True, check=False)  # nothing cached
    again = subprocess.run(command, env=env, cwd=ROOT, capture_output=True, text=True, check=False)
    code, out, err = run(["check", "content"])
    assert (first.returncode, first.stdout, first.stderr) == (again.returncode, again.stdout, again.stderr)
    assert (first.returncode, first.stdout, first.stderr) == (code, out, err)


def test_check_errors_exit_1_on_stderr(broken: Path) -> None:
    code, out, err = run(["check", "."], broken)
    assert code == 1
    assert out == ""
    assert LOCATION.search(err)
    assert "g.cardc:4:1: error[E200]: unknown kind `monstr`" in err


@pytest.mark.parametrize("argv", [[], ["frobnicate"], ["check", "--no-such-flag"], ["build", "a", "b"],
                                  ["dump", "--game"]])
def test_bad_command_line_exits_2(argv: list[str]) -> None:
    code, out, err = run(argv)
    assert code == 2
    assert out == ""
    assert "usage: cardc" in err


def test_version() -> None:
    code, out, _ = run(["--version"])
    assert code == 0
    assert out.strip() == f"cardc {__version__}"


def test_help() -> None:
    code, out, _ = run(["--help"])
    assert code == 0
    for name in SUBCOMMANDS:
        assert name in out


@pytest.mark.parametrize("name", SUBCOMMANDS)
def test_help_for_every_subcommand(name: str) -> None:
    code, out, err = run([name, "--help"])
    assert code == 0
    assert out.startswith(f"usage: cardc {name}")
    assert err == ""


def test_warnings_alone_exit_0_but_strict_fails(tmp_path: Path) -> None:
    (tmp_path / "cardc.toml").write_text("")
    (tmp_path / "g.cardc").write_text('module g\ngame g { languages: [en] }\nkind monster { physical: true }\n'
                                      'monster bat { name: { en "Bat" } copies: unknown "not known" }\n')
    code, _, err = run(["check", "."], tmp_path)
    assert code == 0 and "g: 1 provisional or unknown value (W500)" in err  # summarized by default
    code, _, err = run(["check", "--show-provisional", "."], tmp_path)
    assert code == 0 and "warning[W500]" in err
    code, _, err = run(["check", "--strict", "."], tmp_path)
    assert code == 1 and "error[W500]" in err


def test_dump_is_json_with_the_entity_contract() -> None:
    code, out, err = run(["dump", "content"])
    assert code == 0, err
    data = json.loads(out)
    assert data["entities"]
    for e in data["entities"]:
        assert {"kind", "id", "game", "name", "copies", "tags", "span"} <= set(e)
        assert isinstance(e["name"], dict) and all(isinstance(v, str) for v in e["name"].values())
        assert e["copies"] is None or isinstance(e["copies"], int)
        assert isinstance(e["tags"], list)
        assert set(e["span"]) == {"file", "line", "col"}
        assert e["span"]["file"].split("/")[0] in ("karak", "prophecy")  # relative to the content folder, not the cwd
        assert e["span"]["file"].endswith(".cardc")
    kinds = {(k["game"], k["id"]): k for k in data["kinds"]}
    physical = [e for e in data["entities"] if kinds.get((e["game"], e["kind"]), {}).get("physical")]
    assert physical and all(isinstance(e["copies"], int) for e in physical)


def test_dump_one_game_only() -> None:
    _, out, _ = run(["dump", "content"])
    games = [g["id"] for g in json.loads(out)["games"]]
    code, out, _ = run(["dump", "content", "--game", games[0]])
    assert code == 0
    data = json.loads(out)
    assert {e["game"] for e in data["entities"]} == {games[0]}


def test_dump_with_errors_prints_no_json(broken: Path) -> None:
    code, out, err = run(["dump", "."], broken)
    assert code == 1
    assert out == ""
    assert LOCATION.search(err)


def test_build_exit_codes(tmp_path: Path, broken: Path) -> None:
    out = tmp_path / "gen"
    assert run(["build", "content", "--only", "ir", "--out", str(out)])[0] == 0
    assert sorted(p.name for p in (out / "ir").iterdir())
    assert run(["build", str(broken), "--out", str(tmp_path.parent / f"{tmp_path.name}-gen2")])[0] == 1


def test_console_script_and_module_agree() -> None:
    """`python -m cardc` is the same program (a real subprocess: the entry point is wired)."""
    proc = subprocess.run([sys.executable, "-m", "cardc", "--version"], cwd=ROOT, capture_output=True,
                          text=True, check=False)
    assert proc.returncode == 0
    assert proc.stdout.strip() == f"cardc {__version__}"
    proc = subprocess.run([sys.executable, "-m", "cardc", "check", "no/such/folder"], cwd=ROOT,
                          capture_output=True, text=True, check=False)
    assert proc.returncode == 1
    assert "Traceback" not in proc.stderr and "error[E110]" in proc.stderr


def test_streamed_dump_is_the_ir_json(bundled) -> None:  # type: ignore[no-untyped-def]
    """`cardc dump` streams the IR entity by entity; the text is exactly `dumps(project_json(...))`."""
    from cardc.irjson import dumps, project_json

    code, out, _ = run(["dump", "content"])
    assert code == 0
    assert out == dumps(project_json(bundled.project))
    game = sorted(bundled.project.games)[0]
    assert run(["dump", "content", "--game", game])[1] == dumps(project_json(bundled.project, game))


def test_byte_order_mark_and_crlf_are_accepted(tmp_path: Path) -> None:
    """Files saved by editors that write a UTF-8 BOM and CRLF line ends check cleanly, with right positions."""
    (tmp_path / "cardc.toml").write_text("")
    text = 'module g\r\ngame g { languages: [en] }\r\nkind monster {}\r\nmonster bat { name: { en "Bat" } }\r\n'
    (tmp_path / "g.cardc").write_bytes(b"\xef\xbb\xbf" + text.encode())
    assert run(["check", "."], tmp_path)[0] == 0
    (tmp_path / "g.cardc").write_bytes(b"\xef\xbb\xbf" + text.replace("monster bat", "monstr bat").encode())
    code, _, err = run(["check", "."], tmp_path)
    assert code == 1
    assert err.startswith("g.cardc:4:1: error[E200]: unknown kind `monstr`")


def test_the_help_width_is_the_one_shutil_gives(monkeypatch: pytest.MonkeyPatch) -> None:
    """`cli._terminal_columns` stands in for `shutil.get_terminal_size` (not imported by a check): same width."""
    import shutil

    for columns in ("100", "0", "wide", None):
        if columns is None:
            monkeypatch.delenv("COLUMNS", raising=False)
        else:
            monkeypatch.setenv("COLUMNS", columns)
        assert cli._terminal_columns() == shutil.get_terminal_size().columns, columns


def test_the_command_ends_without_teardown_but_runs_exit_handlers_and_flushes(tmp_path: Path) -> None:
    """`cli.run` (the `cardc` script and `python -m cardc`) skips the interpreter's teardown: the exit code is
    main's, exit handlers still run, and buffered output on a pipe still arrives."""
    import subprocess
    import sys

    script = ("import atexit, sys\n"
              "from cardc import cli\n"
              "atexit.register(lambda: print('handler ran'))\n"
              "sys.argv = ['cardc', 'check', sys.argv[1], '-q']\n"
              "cli.main = (lambda real: lambda argv=None: (print('x' * 100000), real(argv))[1])(cli.main)\n"
              "cli.run()\n")
    bad = tmp_path / "bad.cardc"
    bad.write_text("module broken\ngame {\n", encoding="utf-8")
    done = subprocess.run([sys.executable, "-c", script, str(bad)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 1, done.stderr
    assert done.stdout.endswith("x" * 100000 + "\nhandler ran\n")
    ok = subprocess.run([sys.executable, "-m", "cardc", "--version"], capture_output=True, text=True, timeout=120)
    assert ok.returncode == 0 and ok.stdout.strip()


def test_the_command_waits_for_a_thread_still_running(tmp_path: Path) -> None:
    """With a `threading` thread still running, `cli.run` ends as an ordinary exit does: after the thread; and a
    process that never started one does not import `threading` to ask."""
    import subprocess
    import sys

    script = ("import sys, threading, time\n"
              "from cardc import cli\n"
              "threading.Thread(target=lambda: (time.sleep(0.3), print('thread done', flush=True))).start()\n"
              "sys.argv = ['cardc', '--version']\n"
              "cli.run()\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and done.stdout.rstrip().endswith("thread done"), done.stderr
    # (whether `threading` was imported before cardc: a `.pth` file of the interpreter's site-packages may import
    # it at start-up, as one on the project machine does; then there is nothing for cardc to avoid)
    script = ("import atexit, sys\n"
              "before = 'threading' in sys.modules\n"
              "from cardc import cli\n"
              "atexit.register(lambda: print('threading' in sys.modules and not before))\n"
              "sys.argv = ['cardc', 'check', sys.argv[1], '-q']\n"
              "cli.run()\n")
    content = tmp_path / "content"
    content.mkdir()
    (content / "cardc.toml").write_text("", encoding="utf-8")
    done = subprocess.run([sys.executable, "-c", script, str(content)], capture_output=True, text=True,
                          timeout=120, env={**os.environ, "CARDC_CACHE": "off"})
    assert done.stdout.strip().splitlines()[-1] == "False", (done.stdout, done.stderr)
