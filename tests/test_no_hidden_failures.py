"""No `except Exception` hides a failure in the package: the only broad handlers are the top-level ones that
report an internal error (the command line's, exit 3; the language server's, per request, each writing a
report; a backend's forked process, which sends the error to the build, which raises it). Everything else
catches the errors it expects by name."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TOP_LEVEL = {"compiler/cli.py", "compiler/editor/server.py", "compiler/build.py"}
BROAD = re.compile(r"^\s*except\s*(\(\s*)?(Exception|BaseException)?\s*(\)|\s+as\s+\w+)?\s*:", re.M)


def test_only_the_top_level_handlers_catch_everything() -> None:
    found: dict[str, list[int]] = {}
    for path in sorted((ROOT / "compiler").rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        for m in BROAD.finditer(text):
            if "BaseException" in m.group(0) and _reraises(text, m.end()):
                continue  # cleanup that lets the exception go on
            found.setdefault(path.relative_to(ROOT).as_posix(), []).append(text[:m.start()].count("\n") + 1)
    assert set(found) == TOP_LEVEL and all(len(lines) == 1 for lines in found.values()), found


def _reraises(text: str, start: int) -> bool:
    """The handler's block ends with a bare `raise` (within its first few lines)."""
    block = text[start:].split("\n")[1:6]
    indent = len(block[0]) - len(block[0].lstrip()) if block else 0
    body = []
    for line in block:
        if line.strip() and len(line) - len(line.lstrip()) < indent:
            break
        body.append(line.strip())
    return "raise" in body
