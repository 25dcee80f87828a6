"""Print options, read from `BuildOptions.settings` (`print.paper=letter`, ...) with checked values.

A bad value is a diagnostic, never a traceback; the defaults print on any home printer.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from cardc.backends.print.presets import PAPERS, CardSize
from cardc.diagnostics import NO_SPAN, Diagnostic, Severity

DUPLEX_MODES = ("long", "short", "fold", "none")
ORIENTATIONS = ("auto", "portrait", "landscape")


@dataclass(frozen=True)
class PrintSettings:
    paper: str = "a4"
    orientation: str = "auto"
    bleed: float = 3.0  # mm around each card's trim, filled by its background
    margin: float = 3.0  # mm at the paper's edge that printers cannot reach
    mark_length: float = 5.0  # mm
    mark_gap: float = 1.0  # mm between a card's bleed edge and its crop mark
    mark_weight: float = 0.5  # pt: thin enough to be exact, thick enough to print
    cut_lines: bool = False  # full-page cut lines through every trim line
    duplex: str = "long"  # long | short (edge the sheet turns over) | fold | none
    back_offset: tuple[float, float] = (0.0, 0.0)  # mm, applied to every back (right, down as seen on the back)
    png: bool = True
    png_dpi: int = 300
    min_text: float = 5.0  # pt: the smallest size any card text may shrink to (templates may only ask for more)
    allow_overflow: bool = False  # text that does not fit even at min_text: a warning instead of an error
    strict_languages: bool = False  # a text printed in the fallback language: an error instead of a listing
    layout_cols: int = 0  # cards across a page (0: as many as fit)
    layout_rows: int = 0  # cards down a page (0: as many as fit)
    gutter: float | None = None  # mm between neighbouring trim boxes; None: as dense as the bleed allows
    rulebook: bool = True  # also `<game>-<lang>-rules.pdf`, the rules reference with the card faces
    sizes: dict[str, CardSize] = field(default_factory=dict)  # size overrides: print.size.NAME=WxH

    @property
    def paper_size(self) -> tuple[float, float]:
        return PAPERS[self.paper]


_BOOL = {"1": True, "true": True, "yes": True, "on": True, "0": False, "false": False, "no": False, "off": False}


def _with(s: PrintSettings, name: str, value: float | bool) -> PrintSettings:
    """`s` with one setting changed, by its name as written in `cardc.toml` (checked by the caller)."""
    changes: dict[str, Any] = {name: value}
    return replace(s, **changes)


def parse_settings(raw: dict[str, str]) -> tuple[PrintSettings, list[Diagnostic]]:
    """Read every `print.*` setting; unknown keys and bad values become E600 diagnostics."""
    s = PrintSettings()
    diags: list[Diagnostic] = []

    def bad(key: str, value: str, want: str) -> None:
        diags.append(Diagnostic(Severity.ERROR, "E600", f"print setting `{key}`: `{value}` is not {want}", NO_SPAN))

    def number(key: str, value: str, lo: float, hi: float) -> float | None:
        try:
            v = float(value)
        except ValueError:
            v = float("nan")
        if not lo <= v <= hi:
            bad(key, value, f"a number from {lo:g} to {hi:g}")
            return None
        return v

    floats = {"bleed": (0, 10), "margin": (0, 30), "mark_length": (0, 30), "mark_gap": (0, 10),
              "mark_weight": (0.05, 5), "min_text": (2, 30)}
    for key in sorted(raw):
        if not key.startswith("print."):
            continue
        name, value = key[len("print."):], raw[key].strip()
        low = value.lower()
        if name in floats:
            v = number(key, value, *floats[name])
            if v is not None:
                s = _with(s, name, v)
        elif name == "paper":
            if low in PAPERS:
                s = replace(s, paper=low)
            else:
                bad(key, value, "one of " + ", ".join(sorted(PAPERS)))
        elif name == "orientation":
            if low in ORIENTATIONS:
                s = replace(s, orientation=low)
            else:
                bad(key, value, "one of " + ", ".join(ORIENTATIONS))
        elif name == "duplex":
            if low in DUPLEX_MODES:
                s = replace(s, duplex=low)
            else:
                bad(key, value, "one of " + ", ".join(DUPLEX_MODES))
        elif name == "gutter":
            v = number(key, value, 0, 30)
            if v is not None:
                s = replace(s, gutter=v)
        elif name == "layout":
            s = _layout(s, key, value, bad)
        elif name in ("cut_lines", "png", "allow_overflow", "strict_languages", "rulebook"):
            if low in _BOOL:
                s = _with(s, name, _BOOL[low])
            else:
                bad(key, value, "true or false")
        elif name == "png_dpi":
            v = number(key, value, 36, 1200)
            if v is not None:
                s = replace(s, png_dpi=int(v))
        elif name == "back_offset":
            m = re.fullmatch(r"\s*(-?\d+(?:\.\d+)?)\s*,\s*(-?\d+(?:\.\d+)?)\s*", value)
            if m and abs(float(m[1])) <= 20 and abs(float(m[2])) <= 20:
                s = replace(s, back_offset=(float(m[1]), float(m[2])))
            else:
                bad(key, value, "an offset `DX,DY` in mm (each within ±20)")
        elif name.startswith("size."):
            m = re.fullmatch(r"(\d+(?:\.\d+)?)\s*x\s*(\d+(?:\.\d+)?)(\s*round)?", low)
            if m and 5 <= float(m[1]) <= 400 and 5 <= float(m[2]) <= 400:
                size_name = name[len("size."):]
                shape = "round" if m[3] else "rect"
                s.sizes[size_name] = CardSize(size_name, float(m[1]), float(m[2]), shape)
            else:
                bad(key, value, "a card size `WxH` in mm (optionally followed by `round`)")
        else:
            diags.append(Diagnostic(Severity.ERROR, "E600", f"unknown print setting `{key}`", NO_SPAN,
                                    "known: paper, orientation, bleed, margin, mark_length, mark_gap, mark_weight, "
                                    "cut_lines, duplex, back_offset, png, png_dpi, min_text, allow_overflow, "
                                    "strict_languages, layout, gutter, rulebook, size.NAME"))
    return s, diags


def _layout(s: PrintSettings, key: str, value: str, bad: Callable[[str, str, str], None]) -> PrintSettings:
    """`auto`, `COLSxROWS`, `gutter=MM` or both (`3x3,gutter=0`): the n-up grid and the space between cards."""
    cols = rows = 0
    gutter = s.gutter
    for part in (p.strip().lower() for p in value.split(",")):
        m = re.fullmatch(r"(\d+)\s*x\s*(\d+)", part)
        g = re.fullmatch(r"gutter\s*=\s*(\d+(?:\.\d+)?)", part)
        if part == "auto":
            cols = rows = 0
        elif m and 1 <= int(m[1]) <= 20 and 1 <= int(m[2]) <= 20:
            cols, rows = int(m[1]), int(m[2])
        elif g and float(g[1]) <= 30:
            gutter = float(g[1])
        else:
            bad(key, value, "`auto`, an n-up grid `COLSxROWS`, `gutter=MM`, or both (`3x3,gutter=0`)")
            return s
    return replace(s, layout_cols=cols, layout_rows=rows, gutter=gutter)
