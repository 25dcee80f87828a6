"""Rich text for the rulebooks without platypus paragraphs: runs of text broken into lines once and drawn as
kerned `TJ` arrays (the bundled fonts' `tj_arrays`, as the card faces draw their text), with links and anchors.

A run is a piece of text in one font, size and colour, perhaps a link to an anchor of the document. Runs are
made straight from the reference's rich text (no markup to write and parse again). Words are the text between
spaces (a word may span runs: a link followed by a comma); lines are filled greedily, a word wider than a line
is cut between its characters. A laid-out line is a list of spans: each a run of words in one format at its own
x, so a line of one format is one `TJ` array.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from typing import Any, NamedTuple

from cardc.backends.print.fonts import Font
from reportlab.lib.rl_accel import fp_str
from reportlab.pdfbase import pdfdoc

Color = tuple[float, float, float]
BLACK: Color = (0.0, 0.0, 0.0)


class Run(NamedTuple):
    """A piece of text in one format; `link` is the anchor it links to, if any. (A named tuple: a rulebook makes
    hundreds of thousands, and a frozen dataclass sets each field through `object.__setattr__`.)"""

    text: str
    font: Font
    size: float
    color: Color
    link: str | None = None


@dataclass(frozen=True, slots=True)
class TextStyle:
    """A paragraph's look: its fonts (regular, bold), size, line height, space around it and colour."""

    font: Font
    bold: Font
    size: float
    leading: float
    space_before: float
    space_after: float
    color: Color

    def run(self, text: str, *, bold: bool = False, link: str | None = None, color: Color | None = None,
            size: float | None = None) -> Run:
        return Run(text, self.bold if bold else self.font, self.size if size is None else size,
                   self.color if color is None else color, link)


# x, text, font, size, colour, link, end x: one format's text on a line, drawn as one TJ array from x
Span = tuple[float, str, Font, float, Color, str | None, float]


@dataclass(slots=True)
class Line:
    """One laid-out line: its spans, height (the leading), baseline below its top, and the anchor at its top."""

    spans: list[Span]
    leading: float
    ascent: float
    anchor: str | None = None


_WS = re.compile(r"[ \t\n\r\x0b\x0c]+")  # the spaces between words (a no-break space is not one)
Piece = tuple[str, Run]


def _words(runs: list[Run]) -> list[list[Piece]]:
    words: list[list[Piece]] = []
    cur: list[Piece] = []
    search = _WS.search
    for run in runs:
        text = run.text
        if not text:
            continue
        if search(text) is None:
            cur.append((text, run))
            continue
        for k, part in enumerate(_WS.split(text)):
            if k and cur:
                words.append(cur)
                cur = []
            if part:
                cur.append((part, run))
    if cur:
        words.append(cur)
    return words


def _cut(word: list[Piece], limit: float) -> list[list[Piece]]:
    """A word wider than a line in pieces each at most `limit` wide (at least one character each)."""
    out: list[list[Piece]] = []
    cur: list[Piece] = []
    width = 0.0
    for text, run in word:
        start = 0
        for i, ch in enumerate(text):
            w = run.font.width(ch) * run.size
            if width + w > limit and (cur or i > start):
                if i > start:
                    cur.append((text[start:i], run))
                out.append(cur)
                cur, width, start = [], 0.0, i
            width += w
        if start < len(text):
            cur.append((text[start:], run))
    if cur:
        out.append(cur)
    return out


def lay_out(runs: list[Run], style: TextStyle, width: float, bullet: str | None = None,
            anchor: str | None = None) -> list[Line]:
    """The runs broken into lines at most `width` wide; a bullet hangs left of every line. The anchor (if
    any) is on the first line; a paragraph without words has no lines (and one empty line with an anchor).

    Words are measured one by one (kerned, remembered by the font), broken greedily, and each line's text is
    joined run by run: a line of one format is one span."""
    size = style.size
    indent = 0.0
    if bullet is not None:
        indent = (style.font.width(bullet) + style.font.width(" ")) * size
    limit = width - indent + 1e-6
    texts: list[str] = []
    widths: list[float] = []
    gaps: list[float] = []  # the space before each word (its run's), 0 where it is glued to the one before
    owner: list[int] = []  # the run of each word
    glued = False  # whether the next run's first word goes on the last word (no space between them)
    for ri, run in enumerate(runs):
        t = run.text
        if not t:
            continue
        if " " not in t and t.isprintable():  # one word (a label, a number, a name, punctuation)
            face = run.font
            known = face._widths
            w = known.get(t)
            if w is None:
                w = face.width(t)
            gap = 0.0
            if not (glued and texts):
                gap = known.get(" ") or face.width(" ")
            gaps.append(gap * run.size)
            texts.append(t)
            widths.append(w * run.size)
            owner.append(ri)
            glued = True
            continue
        parts = _WS.split(t)
        starts_word = parts[0] != ""
        ends_word = parts[-1] != ""
        if not starts_word:
            del parts[0]
        if parts and not ends_word:
            del parts[-1]
        if not parts:
            glued = False
            continue
        f, sz = run.font.width, run.size
        gap = f(" ") * sz
        count = len(parts)
        first = len(texts)
        texts.extend(parts)
        ws = list(map(run.font._widths.get, parts))
        widths.extend([(f(p) if w is None else w) * sz for p, w in zip(parts, ws, strict=True)])
        gaps.extend([gap] * count)
        owner.extend([ri] * count)
        if glued and starts_word and first:
            gaps[first] = 0.0
        glued = ends_word
    if not texts:
        return [Line([], style.leading, style.size, anchor)] if anchor is not None else []
    if max(widths) > limit:
        return _lay_out_pieces(runs, style, width, bullet, anchor)
    # greedy breaking, never between glued words
    breaks = [0]
    used = 0.0
    group_start, group_w = 0, 0.0  # the glued words the current word belongs to, and their width so far
    for i, w in enumerate(widths):
        g = gaps[i]
        if g == 0.0 and i:
            group_w += w
        else:
            group_start, group_w = i, w
        if i == breaks[-1]:
            used = w
        elif used + g + w > limit:
            if group_start > breaks[-1]:
                breaks.append(group_start)
                used = group_w
            else:  # a glued group wider than a line: broken inside (no better place)
                breaks.append(i)
                used = w
                group_start, group_w = i, w
        else:
            used += g + w
    breaks.append(len(texts))
    lines: list[Line] = []
    leading, ascent = style.leading, style.size
    for n in range(len(breaks) - 1):
        a, b = breaks[n], breaks[n + 1]
        spans: list[Span] = []
        if n == 0 and bullet is not None:
            spans.append((0.0, bullet, style.font, size, style.color, None, style.font.width(bullet) * size))
        own = len(spans)  # the first span of the line's words (not the bullet)
        x = indent
        i = a
        while i < b:  # one stretch of words of one run at a time
            ri = owner[i]
            j = i + 1
            while j < b and owner[j] == ri:
                j += 1
            run = runs[ri]
            if i > a:
                x += gaps[i]
            text = " ".join(texts[i:j])
            end = x + sum(widths[i:j]) + (gaps[i + 1] * (j - i - 1) if j - i > 1 else 0.0)
            if len(spans) > own:
                px, ptext, pfont, psize, pcolor, plink, _pend = spans[-1]
                if pfont is run.font and psize == run.size and pcolor == run.color and plink == run.link:
                    spans[-1] = (px, ptext + (" " if gaps[i] else "") + text, pfont, psize, pcolor, plink, end)
                    x = end
                    i = j
                    continue
            spans.append((x, text, run.font, run.size, run.color, run.link, end))
            x = end
            i = j
        lines.append(Line(spans, leading, ascent, anchor if n == 0 else None))
    return lines


def _lay_out_pieces(runs: list[Run], style: TextStyle, width: float, bullet: str | None = None,
            anchor: str | None = None) -> list[Line]:
    """`lay_out` word by word, cutting words wider than a line between their characters."""
    size = style.size
    space = style.font.width(" ") * size
    indent = 0.0
    if bullet is not None:
        indent = (style.font.width(bullet) + style.font.width(" ")) * size
    limit = width - indent
    measured: list[tuple[list[Piece], float]] = []
    for word in _words(runs):
        ww = 0.0
        for text, run in word:
            ww += run.font.width(text) * run.size
        if ww > limit + 1e-6 and limit > 0:
            for piece in _cut(word, limit):
                measured.append((piece, sum(run.font.width(text) * run.size for text, run in piece)))
        else:
            measured.append((word, ww))
    grouped: list[list[tuple[list[Piece], float]]] = []
    cur: list[tuple[list[Piece], float]] = []
    used = 0.0
    for item in measured:
        ww = item[1]
        if cur and used + space + ww > limit + 1e-6:
            grouped.append(cur)
            cur, used = [item], ww
        else:
            used += (space if cur else 0.0) + ww
            cur.append(item)
    if cur:
        grouped.append(cur)
    leading, ascent = style.leading, style.size
    lines: list[Line] = []
    for n, words in enumerate(grouped):
        spans: list[list[Any]] = []
        if n == 0 and bullet is not None:
            spans.append([0.0, bullet, style.font, size, style.color, None, style.font.width(bullet) * size])
        x = indent
        last: Run | None = None
        for k, (word, _ww) in enumerate(words):
            if k:
                x += space
            for j, (text, run) in enumerate(word):
                if last is not None and (run is last or (run.font is last.font and run.size == last.size
                                                         and run.color == last.color and run.link == last.link)):
                    spans[-1][1] += (" " + text) if k and j == 0 else text
                else:
                    spans.append([x, text, run.font, run.size, run.color, run.link, x])
                x += run.font.width(text) * run.size
                spans[-1][6] = x
                last = run
            # a space between two words of one format stays inside its span; before another format it does not
        lines.append(Line([(s[0], s[1], s[2], s[3], s[4], s[5], s[6]) for s in spans], leading, ascent,
                          anchor if n == 0 else None))
    if not lines and anchor is not None:
        lines.append(Line([], leading, ascent, anchor))
    return lines


_FONT_OPS: dict[tuple[str, float], str] = {}  # (subset, size) -> its Tf operator


@cache
def _color_op(color: Color) -> str:
    return f"{fp_str(*color)} rg"


def _link_rect(x0: float, base: float, start: float, end: float, size: float) -> tuple[float, float, float, float]:
    """A link's clickable rectangle on its line: its text's width, from below the baseline to above the caps."""
    return (x0 + start, base - 0.25 * size, x0 + end, base + 0.95 * size)


def draw_lines(canv: Any, lines: list[Line], tops: list[float], x0: float | list[float], y0: float) -> None:
    """Draw `lines`, the top of each `tops[i]` below `y0` (y up), from `x0` (or each from its own x): text as kerned
    TJ arrays appended to the page in one text object, then each line's links (one rectangle per run of a link) and
    anchors."""
    code = canv._code
    doc = canv._doc
    out: list[str] = ["q BT"]
    color: Color | None = None
    fonts = _FONT_OPS
    links: list[tuple[str, tuple[float, float, float, float]]] = []
    anchors: list[tuple[str, float, float]] = []
    lefts = [x0] * len(lines) if isinstance(x0, float) else x0
    for line, top, left in zip(lines, tops, lefts, strict=True):
        x0 = left
        base = y0 - top - line.ascent
        if line.anchor is not None:
            anchors.append((line.anchor, x0, y0 - top))
        link: str | None = None
        link_start = link_end = link_size = 0.0
        for x, text, font, size, col, href, end in line.spans:
            if col != color:
                out.append(_color_op(col))
                color = col
            out.append(f"1 0 0 1 {x0 + x:.2f} {base:.2f} Tm")
            for subset, arr in font.tj_arrays(text, doc):
                op = fonts.get((subset, size))
                if op is None:
                    op = fonts[subset, size] = f"{subset} {fp_str(size)} Tf"
                out.append(op)
                out.append(arr)
                out.append("TJ")
            if href != link:
                if link is not None:
                    links.append((link, _link_rect(x0, base, link_start, link_end, link_size)))
                link, link_start, link_size = href, x, size
            link_end = end
        if link is not None:
            links.append((link, _link_rect(x0, base, link_start, link_end, link_size)))
    out.append("ET Q")
    code.append(" ".join(out))
    if links:
        _links(canv, links)
    for name, x, top in anchors:
        canv.bookmarkHorizontal(name, x, top)


def _links(canv: Any, links: list[tuple[str, tuple[float, float, float, float]]]) -> None:
    """`canv.linkRect("", name, rect, relative=1)` for each link: the same annotations, made directly while the
    canvas is only scaled and moved (as a flowable's drawing is); reportlab's own call otherwise."""
    a, b, c, d, e, f = canv._currentMatrix
    if b or c:
        for name, rect in links:
            canv.linkRect("", name, rect, relative=1)
        return
    destinations = canv._destinations
    for name, (x1, y1, x2, y2) in links:
        dest = destinations.get(name)
        if dest is None:
            dest = canv._bookmarkReference(name)
        xa, xb, ya, yb = a * x1 + e, a * x2 + e, d * y1 + f, d * y2 + f
        rect = (min(xa, xb), min(ya, yb), max(xa, xb), max(ya, yb))
        canv._addAnnotation(pdfdoc.LinkAnnotation(Rect=rect, Contents="", Destination=dest,
                                                  Border=pdfdoc.PDFArray([0, 0, 0])))


def stack(blocks: list[tuple[list[Line], float, float]]) -> tuple[list[Line], list[float], float]:
    """Blocks of lines (lines, space before, space after) one under another: all lines, each line's top below
    the first block's top, and the total height (no space after the last block, none before the first)."""
    lines: list[Line] = []
    tops: list[float] = []
    y = 0.0
    after = 0.0
    for block, before, space_after in blocks:
        if not block:
            continue
        if lines:
            y += after + before
        for line in block:
            lines.append(line)
            tops.append(y)
            y += line.leading
        after = space_after
    return lines, tops, y
