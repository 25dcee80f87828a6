"""The names of the files the print backend writes, for the backends that read them (export) without importing
the print stack (reportlab, PDFium)."""

from __future__ import annotations


def sheet_name(game: str, lang: str, module: str) -> str:
    """`<game>-<lang>.pdf`, `<game>-<lang>-<expansion>.pdf`: a module's sheet (its PNGs: the folder of its stem)."""
    return f"{game}-{lang}.pdf" if module == "base" else f"{game}-{lang}-{module}.pdf"
