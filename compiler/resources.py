"""Where the language's data lives: inside the installed package (`cardc.dsl`), found with importlib.resources.

The grammar, catalogue and schemas ship in the wheel; commands that rewrite them (`cardc schemas`, `cardc docs`)
are for developers and work only in a source checkout, never on an installed copy of the tool.
"""

from __future__ import annotations

from importlib.util import find_spec
from pathlib import Path


def _package_dir(name: str) -> Path:
    """The folder of an installed package, from its import spec: `importlib.resources.files` gives the same
    folder for a package on disk, and costs a tenth of `cardc check`'s start-up to import."""
    spec = find_spec(name)
    if spec is None or not spec.submodule_search_locations:
        raise ImportError(f"{name} is not installed with cardc")
    return Path(next(iter(spec.submodule_search_locations)))


DSL_DIR = _package_dir("cardc.dsl")


def source_checkout() -> Path | None:
    """The root of the source checkout the package runs from, or None for an installed copy."""
    root = DSL_DIR.parent
    markers = (root / "pyproject.toml", root / "compiler" / "cli.py", DSL_DIR / "README.md")
    if all(marker.is_file() for marker in markers):
        return root
    return None
