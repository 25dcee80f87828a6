"""Print-and-play sheets: exact-size vector PDFs with bleed, crop marks and duplex backs; per-card PNGs.

reportlab draws the PDFs (pure pip install, vector text, embedded TrueType subsets) and pypdfium2
rasterizes them for the PNGs. Modules: presets (sizes), settings (options), imposition (geometry),
templates and cards (what is drawn), textlayout, fonts and icons (text), render (drawing), sheets
(the backend itself).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from cardc.backends.print.sheets import run, write_print

__all__ = ["run", "write_print"]


def __getattr__(name: str) -> Any:
    """`run` and `write_print` on first use: the backends that only read sizes (`presets`) or file names (`names`)
    do not import reportlab and PDFium (a quarter of a second)."""
    if name in __all__:
        from cardc.backends.print import sheets

        return getattr(sheets, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
