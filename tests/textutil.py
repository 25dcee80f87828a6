"""Helpers for the text and reference tests: compile a small project written inline."""

from __future__ import annotations

import os
from pathlib import Path

from cardc.frontend import FrontEndResult, compile_paths


def compile_source(tmp: Path, source: str) -> FrontEndResult:
    """Compile one `game.cardc` in a fresh content folder (spans read `game.cardc`)."""
    folder = tmp / "content"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "cardc.toml").write_text("[content]\nname = \"test\"\n", encoding="utf-8")
    (folder / "game.cardc").write_text(source, encoding="utf-8")
    old = Path.cwd()
    os.chdir(folder)
    try:
        return compile_paths([Path("game.cardc")])
    finally:
        os.chdir(old)
