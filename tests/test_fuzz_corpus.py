"""Every bad input of issue 11, replayed: no traceback, no hang, no internal error, the promised exit code.

Each folder of tests/fuzz_corpus/ is one case: `case.json` (the command line, the exit code, a piece of text
stderr must hold, and `setup` steps for what files cannot hold: FIFOs, read-only folders) and a `content/`
overlay on the small game in `_base/`. Run as real processes, with a timeout, so a hang fails the test.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

CORPUS = Path(__file__).resolve().parent / "fuzz_corpus"
CASES = sorted(p.name for p in CORPUS.iterdir() if (p / "case.json").is_file())
IS_ROOT = hasattr(os, "geteuid") and os.geteuid() == 0


def _setup(work: Path, steps: list[str]) -> None:
    for step in steps:
        action, _, rel = step.partition(" ")
        path = work / rel
        if action == "mkdir":
            path.mkdir(parents=True)
        elif action == "write":
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(f"the designer's {rel}\n")
        elif action == "fifo":
            os.mkfifo(path)
        elif action == "readonly":
            path.mkdir(parents=True)
            path.chmod(0o555)
        else:
            raise AssertionError(f"unknown setup step {step!r}")


def test_corpus_is_complete() -> None:
    assert len(CASES) >= 30


@pytest.mark.parametrize("name", CASES)
def test_case(name: str, tmp_path: Path) -> None:
    case = json.loads((CORPUS / name / "case.json").read_text(encoding="utf-8"))
    work = tmp_path / "work"
    shutil.copytree(CORPUS / "_base", work / "content")
    if (CORPUS / name / "content").is_dir():
        shutil.copytree(CORPUS / name / "content", work / "content", dirs_exist_ok=True)
    _setup(work, case.get("setup", []))
    before = {p.relative_to(work).as_posix(): p.read_bytes() for p in sorted(work.rglob("*")) if p.is_file()}
    try:
        done = subprocess.run([sys.executable, "-m", "cardc", *case["args"]], cwd=work, capture_output=True,
                              timeout=300, env={**os.environ, "PYTHONIOENCODING": "utf-8"})
    finally:
        for p in work.rglob("*"):
            if p.is_dir():
                p.chmod(0o755)
    err = done.stderr.decode("utf-8", "replace")
    assert "Traceback" not in err and "internal error" not in err, err
    expected = case["exit"]
    if "readonly ro" in case.get("setup", []) and IS_ROOT:
        expected = 0  # root writes into read-only folders: nothing to refuse, and still no traceback
    assert done.returncode == expected, err
    if expected != 0 or done.returncode != 0:
        assert case["stderr"] in err, err
    if done.returncode == 2:  # refused: nothing was touched
        after = {p.relative_to(work).as_posix(): p.read_bytes() for p in sorted(work.rglob("*")) if p.is_file()}
        assert after == before
    if (work / "gen").is_dir():  # control characters never reach an output
        for p in (work / "gen").rglob("*"):
            if p.is_file() and p.suffix in (".html", ".md", ".json", ".py", ".js"):
                text = p.read_text(encoding="utf-8")
                assert "\x1b" not in text and "\u2028" not in text, p
