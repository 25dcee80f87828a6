"""Print-and-play sheets: exact-size vector PDFs with bleed, crop marks and duplex backs; per-card PNGs.

reportlab draws the PDFs (pure pip install, vector text, embedded TrueType subsets) and pypdfium2
rasterizes them for the PNGs. Modules: presets (sizes), settings (options), imposition (geometry),
templates and cards (what is drawn), textlayout, fonts and icons (text), render (drawing), sheets
(the backend itself).
"""

from __future__ import annotations

from cardc.backends.print.sheets import run, write_print

__all__ = ["run", "write_print"]
