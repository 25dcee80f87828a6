"""Where the language's data lives: inside the installed package (`cardc.dsl`), found with importlib.resources.

The grammar, catalogue and schemas ship in the wheel; commands that rewrite them (`cardc schemas`, `cardc docs`)
are for developers and work only in a source checkout, never on an installed copy of the tool.
"""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path

DSL_DIR = Path(str(files("cardc.dsl")))


def source_checkout() -> Path | None:
    """The root of the source checkout the package runs from, or None for an installed copy."""
    root = DSL_DIR.parent
    markers = (root / "pyproject.toml", root / "compiler" / "cli.py", DSL_DIR / "README.md")
    if all(marker.is_file() for marker in markers):
        return root
    return None
