"""Text boxes: break paragraphs into lines, shrink the size until they fit, and draw them kerned.

Icons (`:sword:`) are words of their own width that stand on the baseline, so a line holding only
icons keeps the same baseline grid as a line of text. If the text does not fit even at the smallest
size, the layout says so (`overflow`) and the caller reports it; nothing is clipped silently.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from cardc.backends.print.fonts import Font
from cardc.backends.print.icons import ICON_ADVANCE, draw_icon
from reportlab.pdfgen.canvas import Canvas

ICON_RE = re.compile(r":([a-z][a-z0-9_]*):")
LEADING = 1.2  # line height as a multiple of the font size
PARA_GAP = 0.35  # extra space between paragraphs, in em
STEP = 0.5  # pt by which the size shrinks


@dataclass(frozen=True, slots=True)
class Word:
    pieces: tuple[tuple[str, str], ...]  # ("text", "abc") or ("icon", "sword")
    width: float  # at 1 pt


@dataclass(frozen=True, slots=True)
class Layout:
    size: float
    lines: tuple[tuple[tuple[Word, ...], bool], ...]  # words of each line; True if it starts a paragraph
    height: float  # pt
    overflow: bool


def words_of(paragraph: str, font: Font) -> list[Word]:
    out = []
    for raw in paragraph.split():
        pieces: list[tuple[str, str]] = []
        pos = 0
        for m in ICON_RE.finditer(raw):
            if m.start() > pos:
                pieces.append(("text", raw[pos:m.start()]))
            pieces.append(("icon", m[1]))
            pos = m.end()
        if pos < len(raw):
            pieces.append(("text", raw[pos:]))
        width = sum(font.width(v) if k == "text" else ICON_ADVANCE for k, v in pieces)
        out.append(Word(tuple(pieces), width))
    return out


def _wrap(paragraphs: list[list[Word]], limit: float, space: float) -> tuple[list[tuple[tuple[Word, ...], bool]], bool]:
    """Greedy line breaking at width `limit` (1-pt units); also whether some word is wider than a line."""
    lines: list[tuple[tuple[Word, ...], bool]] = []
    too_wide = False
    for words in paragraphs:
        line: list[Word] = []
        width = 0.0
        first = True
        for w in words:
            too_wide |= w.width > limit + 1e-9
            if line and width + space + w.width > limit + 1e-9:
                lines.append((tuple(line), first))
                first = False
                line, width = [w], w.width
            else:
                width += (space if line else 0) + w.width
                line.append(w)
        lines.append((tuple(line), first))
    return lines, too_wide


def _height(lines: list[tuple[tuple[Word, ...], bool]], size: float) -> float:
    paras = sum(1 for _, first in lines if first)
    return size * (LEADING * len(lines) + PARA_GAP * max(0, paras - 1))


def fit_text(text: str, font: Font, width_pt: float, height_pt: float, size: float, min_size: float) -> Layout:
    """The largest size from `size` down to `min_size` (in 0.5 pt steps) at which `text` fits the box."""
    paragraphs = [words_of(p, font) for p in text.split("\n") if p.strip()]
    if not paragraphs:
        return Layout(size, (), 0.0, False)
    space = font.width(" ")
    current = size
    while True:
        lines, too_wide = _wrap(paragraphs, width_pt / current, space)
        height = _height(lines, current)
        fits = not too_wide and height <= height_pt + 1e-6
        if fits or current - STEP < min_size - 1e-9:
            return Layout(current, tuple(lines), height, not fits)
        current = round(current - STEP, 3)


def draw_layout(c: Canvas, layout: Layout, font: Font, x: float, top: float, width: float, height: float,
                align: str, valign: str, unknown_icons: set[str]) -> None:
    """Draw a fitted layout into the box whose top-left is (x, top) in points (y up).

    Lines that would fall below an overflowing box are not drawn; the overflow is reported by the caller.
    """
    size = layout.size
    if valign == "middle":
        top -= max(0.0, (height - layout.height) / 2)
    elif valign == "bottom":
        top -= max(0.0, height - layout.height)
    space = font.width(" ") * size
    ascent = font.ascent / 1000 * size
    y = top + (LEADING - 1) / 2 * size  # half the extra leading above the first line
    doc = c._doc
    code = c._code
    for index, (words, first) in enumerate(layout.lines):
        if first and index:
            y -= PARA_GAP * size
        baseline = y - ascent
        y -= LEADING * size
        if layout.overflow and y < top - height - 1e-6:
            break
        line_w = sum(w.width for w in words) * size + space * max(0, len(words) - 1)
        cx = x
        if align == "center":
            cx = x + (width - line_w) / 2
        elif align == "right":
            cx = x + width - line_w
        run = ""
        run_x = cx
        for wi, word in enumerate(words):
            if wi:
                if run:
                    run += " "
                cx += space
            for kind, value in word.pieces:
                if kind == "text":
                    if not run:
                        run_x = cx
                    run += value
                    cx += font.width(value) * size
                else:
                    _emit(code, font, run, run_x, baseline, size, doc)
                    run = ""
                    if not draw_icon(c, value, cx, baseline, size):
                        unknown_icons.add(value)
                    cx += ICON_ADVANCE * size
        _emit(code, font, run, run_x, baseline, size, doc)


def _emit(code: list[str], font: Font, text: str, x: float, y: float, size: float, doc: object) -> None:
    """One kerned text run as raw PDF operators, appended to the current page or form."""
    text = text.rstrip()
    if not text:
        return
    parts = [f"BT 1 0 0 1 {x:.3f} {y:.3f} Tm"]
    for subset_name, items in font.tj_items(text, doc):
        arr = " ".join(f"({_escape(i)})" if isinstance(i, bytes) else str(i) for i in items)
        parts.append(f"{subset_name} {size:.3f} Tf [{arr}] TJ")
    parts.append("ET")
    code.append(" ".join(parts))


def _escape(data: bytes) -> str:
    out = []
    for b in data:
        if b in (0x28, 0x29, 0x5C):  # ( ) backslash
            out.append("\\" + chr(b))
        elif 32 <= b < 127:
            out.append(chr(b))
        else:
            out.append(f"\\{b:03o}")
    return "".join(out)
