"""Text boxes: break paragraphs into lines, shrink the size until they fit, and draw them kerned.

Icons (`:sword:`) are words of their own width that stand on the baseline, so a line holding only
icons keeps the same baseline grid as a line of text. If the text does not fit even at the smallest
size, the layout says so (`overflow`) and the caller reports it; nothing is clipped silently.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
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


# Words made so far, per font: a word is immutable, so every layout holding it shares one (fitting a text
# again makes no new objects, and a cached layout costs its lines, not its words).
_WORDS: dict[str, dict[str, Word]] = {}
WORDS_KEPT = 200_000  # distinct words per font (past it, that font's start again)


def words_of(paragraph: str, font: Font) -> list[Word]:
    out = []
    known = _WORDS.setdefault(font.name, {})
    for raw in paragraph.split():
        word = known.get(raw)
        if word is None:
            if len(known) >= WORDS_KEPT:
                known.clear()
            word = known[raw] = _word(raw, font)
        out.append(word)
    return out


def _word(raw: str, font: Font) -> Word:
    if ":" not in raw:  # no icon: one text piece (nearly every word)
        return Word((("text", raw),), font.width(raw))
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
    return Word(tuple(pieces), width)


@dataclass(frozen=True, slots=True)
class Box:
    """A text box in points (y up, `top` its upper edge); with `r` > 0 its lines are also kept inside the
    circle of radius `r` around (`cx`, `cy`), so text on a round token follows the token's edge."""

    x: float
    top: float
    width: float
    height: float
    cx: float = 0.0
    cy: float = 0.0
    r: float = 0.0

    def span(self, y_top: float, y_bottom: float) -> tuple[float, float]:
        """The horizontal room (left, right) for a line between two heights."""
        left, right = self.x, self.x + self.width
        if self.r > 0:
            half = self.r
            for y in (y_top, y_bottom):
                dy = abs(y - self.cy)
                half = min(half, (self.r * self.r - dy * dy) ** 0.5 if dy < self.r else 0.0)
            left, right = max(left, self.cx - half), min(right, self.cx + half)
        return left, max(left, right)


def _line_tops(count_lines: int, starts: list[bool], size: float) -> list[float]:
    """Offsets (pt below the box top) of each line's top edge, paragraph gaps included."""
    out, y = [], 0.0
    for i in range(count_lines):
        if starts[i] and i:
            y += PARA_GAP * size
        out.append(y)
        y += LEADING * size
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


def _wrap_shaped(paragraphs: list[list[Word]], box: Box, size: float,
                 space: float) -> tuple[list[tuple[tuple[Word, ...], bool]], bool]:
    """Line breaking where each line has its own width: the chord of the box's circle at that line."""
    lines: list[tuple[tuple[Word, ...], bool]] = []
    too_wide = False
    y = 0.0  # top of the next line, pt below the box top
    line_h = LEADING * size
    for words in paragraphs:
        if lines:
            y += PARA_GAP * size
        i = 0
        first = True
        while i < len(words):
            left, right = box.span(box.top - y, box.top - y - line_h)
            limit = (right - left) / size
            line: list[Word] = []
            width = 0.0
            while i < len(words):
                w = words[i]
                add = (space if line else 0) + w.width
                if width + add > limit + 1e-9:
                    break
                width += add
                line.append(w)
                i += 1
            if not line and i < len(words):
                if y + line_h > box.height + 1e-6:  # no room left at all: the rest overflows
                    too_wide = True
                    line = [words[i]]
                    i += 1
                elif words[i].width > box.width / size:  # wider than the box anywhere: it cannot fit
                    too_wide = True
                    line = [words[i]]
                    i += 1
                else:  # the circle is too narrow here: leave this line empty and go on lower down
                    lines.append(((), first))
                    first = False
                    y += line_h
                    continue
            lines.append((tuple(line), first))
            first = False
            y += line_h
    while lines and not lines[-1][0] and not lines[-1][1]:
        lines.pop()
    return lines, too_wide


def _height(lines: list[tuple[tuple[Word, ...], bool]], size: float) -> float:
    paras = sum(1 for _, first in lines if first)
    return size * (LEADING * len(lines) + PARA_GAP * max(0, paras - 1))


def fit_text(text: str, font: Font, width_pt: float, height_pt: float, size: float, min_size: float,
             box: Box | None = None) -> Layout:
    """The largest size from `size` down to `min_size` (in 0.5 pt steps) at which `text` fits the box.

    With a round `box`, lines are laid out top-aligned inside the circle, each as wide as the circle is there.
    """
    paragraphs = [words_of(p, font) for p in text.split("\n") if p.strip()]
    if not paragraphs:
        return Layout(size, (), 0.0, False)
    space = font.width(" ")
    current = size
    while True:
        if box is not None and box.r > 0:
            lines, too_wide = _wrap_shaped(paragraphs, box, current, space)
        else:
            lines, too_wide = _wrap(paragraphs, width_pt / current, space)
        height = _height(lines, current)
        fits = not too_wide and height <= height_pt + 1e-6
        if fits or current - STEP < min_size - 1e-9:
            return Layout(current, tuple(lines), height, not fits)
        current = round(current - STEP, 3)


def fit_anchored(text: str, font: Font, box: Box, size: float, min_size: float,
                 valign: str) -> tuple[Layout, Box]:
    """Like `fit_text` in a round box, but with the lines sitting at the box's bottom (or middle).

    A circle's chords change with the height, so the lines are laid out where they will be drawn: for each
    size and each number of lines n, in the lowest (or central) n lines of the box.
    """
    paragraphs = [words_of(p, font) for p in text.split("\n") if p.strip()]
    if not paragraphs:
        return Layout(size, (), 0.0, False), box
    space = font.width(" ")
    current = size
    while True:
        line_h = LEADING * current
        gap = PARA_GAP * current * (len(paragraphs) - 1)
        n = len(paragraphs)
        while n * line_h + gap <= box.height + 1e-6:
            used = n * line_h + gap
            drop = box.height - used if valign == "bottom" else (box.height - used) / 2
            sub = Box(box.x, box.top - drop, box.width, used, box.cx, box.cy, box.r)
            lines, too_wide = _wrap_shaped(paragraphs, sub, current, space)
            height = _height(lines, current)
            if not too_wide and height <= used + 1e-6:
                return Layout(current, tuple(lines), height, False), sub
            n += 1
        if current - STEP < min_size - 1e-9:
            return fit_text(text, font, box.width, box.height, current, current, box), box
        current = round(current - STEP, 3)


def placed_lines(layout: Layout, font: Font, box: Box, align: str,
                 valign: str) -> Iterator[tuple[tuple[Word, ...], float, float, float]]:
    """Where `draw_layout` puts each line it draws: (words, left x, baseline, width), points, y up."""
    size = layout.size
    top = box.top
    shaped = box.r > 0
    if not shaped:
        if valign == "middle":
            top -= max(0.0, (box.height - layout.height) / 2)
        elif valign == "bottom":
            top -= max(0.0, box.height - layout.height)
    space = font.width(" ") * size
    ascent = font.ascent / 1000 * size
    y = top
    for index, (words, first) in enumerate(layout.lines):
        if first and index:
            y -= PARA_GAP * size
        line_top = y
        baseline = y + (LEADING - 1) / 2 * size - ascent
        y -= LEADING * size
        if layout.overflow and y < box.top - box.height - 1e-6:
            break
        left, right = box.span(line_top, y) if shaped else (box.x, box.x + box.width)
        line_w = sum(w.width for w in words) * size + space * max(0, len(words) - 1)
        cx = left
        if align == "center":
            cx = left + (right - left - line_w) / 2
        elif align == "right":
            cx = right - line_w
        yield words, cx, baseline, line_w


def draw_layout(c: Canvas, layout: Layout, font: Font, box: Box, align: str, valign: str,
                unknown_icons: set[str]) -> None:
    """Draw a fitted layout into `box` (points, y up).

    Lines that would fall below an overflowing box are not drawn; the overflow is reported by the caller.
    A round box is laid out from its top, each line centred (or aligned) within the circle's chord there.
    """
    size = layout.size
    space = font.width(" ") * size
    doc = c._doc
    code = c._code
    for words, cx, baseline, _line_w in placed_lines(layout, font, box, align, valign):
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
    for subset_name, arr in font.tj_arrays(text, doc):
        parts.append(f"{subset_name} {size:.3f} Tf {arr} TJ")
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
