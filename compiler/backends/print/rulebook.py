"""The printable rulebook: `print/<game>-<lang>-rules.pdf`, the rules reference as one PDF per language.

The same pages as the HTML reference (`reference.pages.all_pages`), laid out with reportlab's platypus
(the PDF stack the sheets use; no other native dependency): a title, a table of contents, every page
and section as a bookmarked heading, links between entries, and next to every printed component its
faces, drawn as vectors from the very elements the sheets print (so the rulebook shows the print).

Entries and tables (nearly all of a large game's pages) are flowables of this module (`Entry`, `Grid`) whose
text is laid out once by `richtext` (the bundled fonts' kerned widths and TJ arrays); headings, paragraphs, lists
and the contents are platypus paragraphs (`Paragraph`, with its caches).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any
from xml.sax.saxutils import escape, unescape

from cardc.backends.print.fonts import font
from cardc.backends.print.render import ImageResolver, draw_face
from cardc.backends.print.richtext import Color, Line, Run, TextStyle, draw_lines, lay_out, stack
from cardc.backends.print.rl_memo import memoized_reportlab
from cardc.backends.print.settings import PrintSettings
from cardc.backends.print.templates import Element
from cardc.collector import paused
from reportlab.lib import colors
from reportlab.lib.rl_accel import fp_str
from reportlab.lib.styles import ParagraphStyle
from reportlab.lib.units import mm
from reportlab.pdfbase.pdfmetrics import registerFontFamily, stringWidth
from reportlab.platypus import (
    BaseDocTemplate,
    CondPageBreak,
    Flowable,
    Frame,
    PageBreak,
    PageTemplate,
    Spacer,
    Table,
    TableStyle,
)
from reportlab.platypus import (
    Paragraph as _Paragraph,
)
from reportlab.platypus.paragraph import cleanBlockQuotedText, textTransformFrags
from reportlab.platypus.paraparser import ParaParser
from reportlab.rl_config import _FUZZ

FACE_HEIGHT = 42.0  # mm: faces are shown at most this tall (smaller cards at their real size)
# The accent of links and kind names (#7a2e2e), written as CSS rgb(): reportlab parses that form directly, but
# tries a name look-up and a literal evaluation before it reads a hex string (80 us per paragraph with a link).
ACCENT = "rgb(122,46,46)"

# (front elements, back elements or None, trim w, trim h, round, image resolver) per entity key
Faces = dict[str, tuple[tuple[Element, ...], tuple[Element, ...] | None, float, float, bool, ImageResolver]]


_TOKEN = re.compile(r'<(/?)([A-Za-z]\w*)((?:\s+[\w:-]+="[^"<>]*")*)\s*(/?)>|([^<]+)')
_ATTR = re.compile(r'([\w:-]+)="([^"]*)"')
TupleTree = tuple[str, dict[str, str] | None, list[Any]]


def tuple_tree(markup: str) -> TupleTree | None:
    """The markup this module writes (escaped text, simple tags with quoted attributes) as reportlab's tuple
    tree, or None for anything else. The tree is what reportlab's own markup parser (Python's `html.parser`,
    a third of the cost of a short paragraph) would feed to the same tag handlers; text comes in one piece
    rather than split at each entity, which draws the same."""
    root: TupleTree = ("para", None, [])
    stack = [root]
    pos = 0
    for m in _TOKEN.finditer(markup):
        if m.start() != pos:
            return None
        pos = m.end()
        close, tag, attrs, self_closing, text = m.groups()
        if text is not None:
            stack[-1][2].append(unescape(text))
        elif close:
            if len(stack) == 1 or attrs or self_closing or stack[-1][0] != tag.lower():
                return None
            stack.pop()
        else:
            node: TupleTree = (tag.lower(), {k.lower(): unescape(v) for k, v in _ATTR.findall(attrs)}, [])
            stack[-1][2].append(node)
            if not self_closing:
                stack.append(node)
    return root if pos == len(markup) and len(stack) == 1 else None


# Parsed paragraph markup by (markup, style), in one rulebook: it repeats many cells and labels ("1", a column's
# head, an attribute's name), about half of its paragraphs. The given style is kept in the value, so its id is not
# reused.
_PARSED: dict[tuple[str, int], tuple[ParagraphStyle, ParagraphStyle, tuple[Any, ...]]] = {}
PARSED_KEPT = 20_000  # (past it, the cache starts again)

# A paragraph's line breaking by (markup, style, bullet, width): what reportlab's `Paragraph.wrap` sets on it. The
# lines are only read when drawn; a split, which appends spaces to the words of its lines, breaks its paragraph's
# lines again privately first (`Paragraph.split`). A third of the line breaking of the bundled rulebooks repeats.
_LAID: dict[tuple[str, int, str | None, float], dict[str, Any]] = {}
LAID_KEPT = 20_000
# markup longer than this is not kept: long paragraphs seldom come again, and their lines are most of the memory
LAID_LONGEST = 400
# distinct paragraphs whose operators one document keeps for drawing again (past it, that cache starts again)
DRAWN_KEPT = 20_000
# markup whose drawing acts on the document (anchors, callbacks, images), not only on the page's operators
_ACTS_ON_DOCUMENT = ("name=", "<img", "<onDraw", "<index")
# markup with links: drawn again as its operators plus its link annotations, made again where it is drawn
_LINKS = "href"
_LINK_CALLS = ("linkRect", "linkURL")  # the canvas methods reportlab's paragraphs make their links with
_LAYOUT = ("width", "height", "blPara", "_wrapWidths", "_width_max", "_splitLongWordCount", "_hyphenations")


# Every character Python's str.split() or reportlab's paragraph cleaning (`_wsc`) treats as a space, but the space
_SPACES = ("\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f\x85\xa0\u1680\u180e\u2000\u2001\u2002\u2003\u2004\u2005\u2006"
           "\u2007\u2008\u2009\u200a\u200b\u2028\u2029\u202f\u205f\u3000")
_NOT_CLEAN = re.compile(f"[{_SPACES}]|  |^ | $")


def clean_text(text: str) -> str:
    """reportlab's `cleanBlockQuotedText` (spaces of every kind run together, lines joined, ends stripped), or
    the text itself when its only space is a single space between words, which that leaves as it is."""
    return text if _NOT_CLEAN.search(text) is None else str(cleanBlockQuotedText(text))


class Paragraph(_Paragraph):  # type: ignore[misc]
    """A paragraph that breaks its lines once per width: tables measure a cell's paragraphs several times over
    (for the row heights, again to draw them, again on a split), always at the column's width.

    Its markup goes to reportlab's tag handlers as a tuple tree (`tuple_tree`), without the HTML parser."""

    def __init__(self, text: str | None, style: ParagraphStyle, bulletText: str | None = None,  # noqa: N803
                 frags: list[Any] | None = None, **kwargs: Any) -> None:
        layout_key, kept = None, None
        if frags is None and text is not None:  # (a split passes the frags of its lines)
            text = clean_text(text)  # as reportlab does before it parses
            layout_key = (text, id(style), bulletText)
            kept = style  # (the given style, kept alive by the caches whose keys hold its id)
            known = _PARSED.get((text, id(style)))
            if known is not None:  # the same markup in the same style: its fragments again (read, never changed)
                style, frags = known[1], list(known[2])
            else:
                tree = tuple_tree(text)
                if tree is not None:
                    given = style
                    parser = ParaParser()
                    parser.caseSensitive = 1
                    style, frags, bullet_frags = parser.tt_parse(tree, style)
                    if frags is None or bullet_frags:
                        frags = None  # reportlab's parser reports the error
                    else:
                        textTransformFrags(frags, style)
                        if len(_PARSED) >= PARSED_KEPT:
                            _PARSED.clear()
                        _PARSED[text, id(given)] = (given, style, tuple(frags))
        super().__init__(text, style, bulletText, frags, **kwargs)
        self._layout_key = layout_key
        self._layout_style = kept
        self._shared = False  # its lines are the layout cache's (see split)
        self._wrapped: float | None = None  # the width its lines were broken at
        # whether it draws only into its page's operators and link annotations (see draw)
        self._drawn_alike = text is not None and not any(mark in text for mark in _ACTS_ON_DOCUMENT)
        self._links = text is not None and _LINKS in text

    def wrap(self, avail_w: float, avail_h: float) -> tuple[float, float]:
        if self._wrapped == avail_w and hasattr(self, "blPara"):  # a split drops blPara
            return self.width, self.height
        key = None if self._layout_key is None else (*self._layout_key, avail_w)
        laid = None if key is None else _LAID.get(key)
        if laid is not None and laid["style"] is self._layout_style:
            self.__dict__.update(laid["attrs"])
            self._wrapped, self._shared = avail_w, True
            return self.width, self.height
        size: tuple[float, float] = super().wrap(avail_w, avail_h)
        wrapped: float | None = avail_w if size[0] == avail_w else None  # not when it found no room at all
        self._wrapped = wrapped
        if key is not None and wrapped is not None and len(key[0]) <= LAID_LONGEST:
            if len(_LAID) >= LAID_KEPT:
                _LAID.clear()
            _LAID[key] = {"style": self._layout_style,
                          "attrs": {a: self.__dict__[a] for a in _LAYOUT if a in self.__dict__}}
            self._shared = True
        return size

    def draw(self) -> None:
        """reportlab's drawing, or the operators it appended the first time this paragraph (markup, style, width)
        was drawn into this document: the same bytes (drawn inside its own saved graphics state with text objects
        of its own; its fonts' characters are the document's by then). Links are made again with the arguments
        their first drawing gave (a rectangle relative to the paragraph's origin, turned into page space by the
        canvas where it is drawn now), in the same order, so the annotations come out as reportlab makes them.
        Not for markup that adds anchors or calls back: those act on the document otherwise."""
        if self._layout_key is None or not self._drawn_alike:
            super().draw()
            return
        canv = self.canv
        drawn: dict[tuple[Any, ...], tuple[ParagraphStyle | None, list[str], list[tuple[str, Any, Any]]]] = \
            canv.__dict__.setdefault("cardc_drawn_paragraphs", {})
        key = (*self._layout_key, self.width, self.height)
        known = drawn.get(key)
        if known is not None and known[0] is self._layout_style:
            canv._code.extend(known[1])
            for name, args, kwargs in known[2]:
                getattr(canv, name)(*args, **kwargs)
            return
        code = canv._code
        start = len(code)
        links: list[tuple[str, Any, Any]] = []
        if self._links:
            keep = self._recorded_links(canv, links)
            try:
                super().draw()
            finally:
                for name in _LINK_CALLS:
                    canv.__dict__.pop(name, None)
            if not keep[0]:
                return
        else:
            super().draw()
        assert canv._code is code, "a paragraph is drawn into the page it is on"
        if len(drawn) >= DRAWN_KEPT:
            drawn.clear()
        drawn[key] = (self._layout_style, code[start:], links)

    @staticmethod
    def _recorded_links(canv: Any, links: list[tuple[str, Any, Any]]) -> list[bool]:
        """Note each link the drawing makes (its canvas method and arguments) into `links`; the returned flag turns
        false if one is made in another coordinate system than the paragraph's origin (it would not be made again
        alike) or in absolute page space."""
        origin = canv._currentMatrix
        keep = [True]

        def recorder(name: str) -> Callable[..., Any]:
            method = getattr(type(canv), name)

            def record(*args: Any, **kwargs: Any) -> Any:
                relative = kwargs.get("relative", 1 if name == "linkRect" else 0)
                if canv._currentMatrix != origin or not relative or len(args) > (3 if name == "linkRect" else 2):
                    keep[0] = False
                links.append((name, args, kwargs))
                return method(canv, *args, **kwargs)
            return record

        for name in _LINK_CALLS:
            assert name not in canv.__dict__, "one paragraph is drawn at a time"
            canv.__dict__[name] = recorder(name)
        return keep

    def split(self, avail_w: float, avail_h: float) -> list[Flowable]:
        if (self._shared or not hasattr(self, "blPara")) and self.frags and min(avail_w, avail_h) >= _FUZZ:
            # reportlab's split appends a space to the last word of each line it hands on: it gets lines of this
            # paragraph's own, broken at the width it was laid out at (or the given one, as reportlab does)
            width = self.width if hasattr(self, "blPara") else avail_w
            _Paragraph.wrap(self, width, avail_h)
            self._wrapped, self._shared = width, False
        parts: list[Flowable] = super().split(avail_w, avail_h)
        return parts


# A face's drawing operators, by the face (its elements' identity, size and images), in one rulebook: a face shown
# again (a deck's shared back next to every card) appends the same operators without drawing it again.
DrawnFaces = dict[tuple[int, float, float, tuple[Path | None, ...]], tuple[tuple[Element, ...], list[str]]]


# (width, height, round cut, scale) -> the operators of a face's clip (inside its saved, scaled state) and of its
# outline (a saved state of its own): the same for every face of that shape, in any document
_FRAMES: dict[tuple[float, float, bool, float], tuple[list[str], list[str]]] = {}


class FaceImage(Flowable):  # type: ignore[misc]
    """One card face, drawn with the print backend's own renderer, scaled to fit `FACE_HEIGHT`."""

    def __init__(self, elements: tuple[Element, ...], w: float, h: float, round_cut: bool, s: PrintSettings,
                 images: ImageResolver, drawn: DrawnFaces | None = None) -> None:
        super().__init__()
        self.elements, self.w, self.h, self.round_cut, self.s, self.images = elements, w, h, round_cut, s, images
        self.scale = min(1.0, FACE_HEIGHT / h)
        self.drawn = drawn

    def wrap(self, avail_w: float, avail_h: float) -> tuple[float, float]:
        return self.w * mm * self.scale, self.h * mm * self.scale

    def draw(self) -> None:
        """The face clipped to its cut and outlined in grey. The clip's and the outline's operators depend only on
        the size and cut: made once (`_FRAMES`), appended again for every face of that shape."""
        c = self.canv
        code = c._code
        key = (self.w, self.h, self.round_cut, self.scale)
        known = _FRAMES.get(key)
        c.saveState()
        c.scale(self.scale, self.scale)
        start = len(code)
        if known is not None:
            code.extend(known[0])
        else:
            p = c.beginPath()
            if self.round_cut:
                p.circle(self.w * mm / 2, self.h * mm / 2, min(self.w, self.h) * mm / 2)
            else:
                p.roundRect(0, 0, self.w * mm, self.h * mm, 2 * mm)
            c.clipPath(p, stroke=0, fill=0)
            clip = code[start:]
        self._draw_face(c)
        c.restoreState()
        if known is not None:
            code.extend(known[1])
            return
        start = len(code)
        c.saveState()
        c.setStrokeColor(colors.Color(0.6, 0.6, 0.6))
        c.setLineWidth(0.3)
        if self.round_cut:
            k = mm * self.scale
            c.circle(self.w * k / 2, self.h * k / 2, min(self.w, self.h) * k / 2)
        else:
            c.roundRect(0, 0, self.w * mm * self.scale, self.h * mm * self.scale, 2 * mm * self.scale)
        c.restoreState()
        _FRAMES[key] = (clip, code[start:])


    def _draw_face(self, c: Any) -> None:
        """`draw_face`, or the operators it appended the first time this face was drawn into this document: the
        same bytes (each element is drawn inside its own saved graphics state, its fonts and images are the
        document's), at a fraction of the cost."""
        if self.drawn is None:
            draw_face(c, self.elements, self.w, self.h, 0.0, self.s, self.images)
            return
        art = tuple(self.images(el.str("image")) for el in self.elements if el.kind == "art" and el.str("image"))
        key = (id(self.elements), self.w, self.h, art)
        known = self.drawn.get(key)
        if known is not None:
            c._code.extend(known[1])
            return
        code = c._code
        start = len(code)
        draw_face(c, self.elements, self.w, self.h, 0.0, self.s, self.images)
        assert c._code is code, "a face is drawn into the page it is on"
        self.drawn[key] = (self.elements, code[start:])  # (the elements kept: their id stays theirs)


class _Contents(Flowable):  # type: ignore[misc]
    """The table of contents, laid out in the same pass as the pages it lists.

    Its entries (every heading) are known before the layout, so it takes its final size at once; only the page
    numbers are not known yet where it is drawn. So the dot leaders and page numbers of each contents page are
    one PDF form, placed on that page by name and defined once all pages are laid out (`finish`); the dots are
    those reportlab's `TableOfContents` draws. (That class lays the whole document out again until the numbers
    settle: three passes.)"""

    def __init__(self, entries: list[tuple[int, str, str]], styles: list[ParagraphStyle]) -> None:
        super().__init__()
        self.entries, self.styles = entries, styles
        self.placed: dict[int, list[tuple[int, float, float, float]]] = {}  # page -> (entry, x, y, room), absolute
        self._table: Table | None = None
        self._avail = 0.0

    def _style(self, level: int) -> ParagraphStyle:
        return self.styles[min(level, len(self.styles) - 1)]

    def wrap(self, avail_w: float, avail_h: float) -> tuple[float, float]:
        self._avail = avail_w
        self.canv.setNamedCB("cardc_toc_end", self._end)
        if self._table is None:
            rows = []
            for i, (level, text, key) in enumerate(self.entries):
                style = self._style(level)
                if style.spaceBefore:
                    rows.append([Spacer(1, style.spaceBefore)])
                rows.append([Paragraph(f'<a href="#{escape(key)}">{escape(text)}</a>'
                                       f'<onDraw name="cardc_toc_end" label="{i}"/>', style)])
            self._table = Table(rows or [[Spacer(1, 1)]], colWidths=(avail_w,), style=TableStyle([
                ("VALIGN", (0, 0), (-1, -1), "TOP"), ("RIGHTPADDING", (0, 0), (-1, -1), 0),
                ("LEFTPADDING", (0, 0), (-1, -1), 0)]))
        w, h = self._table.wrapOn(self.canv, avail_w, avail_h)
        return w, h

    def split(self, avail_w: float, avail_h: float) -> list[Flowable]:
        self.wrap(avail_w, avail_h)
        assert self._table is not None
        return list(self._table.splitOn(self.canv, avail_w, avail_h))

    def drawOn(self, canvas: Any, x: float, y: float, _sW: float = 0) -> None:
        assert self._table is not None
        self._table.drawOn(canvas, x, y, _sW)

    def _end(self, canvas: Any, kind: str, label: str) -> None:
        """Where an entry's text ends: remember the place for its leader and number, and link the rest of the line."""
        i = int(label)
        x, y = canvas._curr_tx_info["cur_x"], canvas._curr_tx_info["cur_y"]
        ax, ay = canvas.absolutePosition(x, y)
        room = max(0.0, self._avail - x)
        self.placed.setdefault(canvas.getPageNumber(), []).append((i, ax, ay, room))
        canvas.linkRect("", self.entries[i][2], (x, y, self._avail, y + self._style(self.entries[i][0]).leading),
                        relative=1)

    @staticmethod
    def form_name(page: int) -> str:
        return f"cardc_contents{page}"

    def finish(self, canvas: Any, pages: dict[str, int], size: tuple[float, float]) -> None:
        """Define each contents page's form: every entry's dots up to its right-aligned page number."""
        for page, placed in self.placed.items():
            canvas.beginForm(self.form_name(page), 0, 0, *size)
            for i, x, y, room in placed:
                level, _text, key = self.entries[i]
                style = self._style(level)
                number = str(pages.get(key, ""))
                number_w = stringWidth(number, style.fontName, style.fontSize)
                dot_w = stringWidth(" . ", style.fontName, style.fontSize)
                dots = max(0, int((room - number_w) / dot_w))
                tx = canvas.beginText(x + room - dots * dot_w - number_w, y)
                tx.setFont(style.fontName, style.fontSize)
                tx.setFillColor(style.textColor)
                tx.textLine(dots * " . " + number)
                canvas.drawText(tx)
            canvas.endForm()


class _Doc(BaseDocTemplate):  # type: ignore[misc]
    """Feeds headings to the PDF outline and records the page each one lands on (for the contents)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.heading_pages: dict[str, int] = {}
        self.contents: _Contents | None = None

    def afterFlowable(self, flowable: Flowable) -> None:
        level = getattr(flowable, "toc_level", None)
        if level is None:
            return
        text = flowable.getPlainText()
        key = getattr(flowable, "toc_key", None)
        if key:
            self.heading_pages.setdefault(key, self.page)
            self.canv.bookmarkPage(key)
            self.canv.addOutlineEntry(text, key, level=level, closed=level > 0)

    def afterPage(self) -> None:
        """On a page of the contents: place the page's numbers (a form defined after the layout)."""
        page = self.canv.getPageNumber()
        if self.contents is not None and page in self.contents.placed:
            self.canv.doForm(self.contents.form_name(page))


@cache
def _styles() -> dict[str, ParagraphStyle]:
    """The rulebooks' paragraph styles, made once: every rulebook shares them (read, never changed), so the parse
    and layout caches, keyed on a style's identity, serve the rulebooks of every game and language."""
    regular, bold = font("regular"), font("bold")
    registerFontFamily(regular.name, normal=regular.name, bold=bold.name, italic=regular.name,
                       boldItalic=bold.name)
    base = ParagraphStyle("body", fontName=regular.name, fontSize=9.5, leading=12.5, spaceAfter=4)
    return {
        "body": base,
        "small": ParagraphStyle("small", parent=base, fontSize=8, leading=10, textColor=colors.Color(0.3, 0.3, 0.3)),
        "title": ParagraphStyle("title", parent=base, fontName=bold.name, fontSize=26, leading=32, spaceAfter=10),
        "h1": ParagraphStyle("h1", parent=base, fontName=bold.name, fontSize=18, leading=22, spaceBefore=6,
                             spaceAfter=8, textColor=colors.HexColor("#5a2a1a")),
        "h2": ParagraphStyle("h2", parent=base, fontName=bold.name, fontSize=13, leading=16, spaceBefore=10,
                             spaceAfter=5),
        "h3": ParagraphStyle("h3", parent=base, fontName=bold.name, fontSize=10.5, leading=13, spaceBefore=7,
                             spaceAfter=2),
        "cell": ParagraphStyle("cell", parent=base, fontSize=8, leading=10, spaceAfter=0),
        "toc0": ParagraphStyle("toc0", parent=base, fontName=bold.name, fontSize=10, leading=14, leftIndent=0),
        "toc1": ParagraphStyle("toc1", parent=base, fontSize=9, leading=12, leftIndent=12),
    }


def _rich(parts: list[dict[str, Any]]) -> str:
    """Reference rich text as platypus markup: links to entries stay links inside the PDF."""
    out = []
    for p in parts:
        text = escape(str(p.get("t", "")))
        if p.get("anchor"):
            out.append(f'<link href="#{escape(p["anchor"])}" color="{ACCENT}">{text}</link>')
        elif p.get("badge"):
            out.append(f" <i>({text})</i>")
        else:
            out.append(text)
    return "".join(out)


def _heading(text: str, style: ParagraphStyle, level: int, key: str,
             entries: list[tuple[int, str, str]]) -> Paragraph:
    """A heading that is bookmarked, in the outline and listed in the contents (`entries`)."""
    para = Paragraph(f'<a name="{escape(key)}"/>' + escape(text), style)
    para.toc_level = level
    para.toc_key = key
    entries.append((level, text, key))
    return para


TABLE_CHUNK = 1000  # rows of one laid-out table (see Rulebook.block); the bundled content's longest has 274
CELL_RUNS = 120  # runs of rich text in one laid-out cell (see _row_chunks); the bundled content's longest has 37


def _row_chunks(row: list[list[dict[str, Any]]]) -> list[list[list[dict[str, Any]]]]:
    """A table row whose cells hold at most CELL_RUNS runs each: a longer cell (a glossary entry listing every
    card with a tag) goes on in rows below, its other cells left empty there.

    reportlab splits a row taller than a page by laying out the rest of its cells again, so a cell of n names
    cost O(n^2 / names per page); rows split between them cost nothing. Cuts fall after a ", " run."""
    if all(len(cell) <= CELL_RUNS for cell in row):
        return [row]
    pieces: list[list[list[dict[str, Any]]]] = []
    for cell in row:
        parts, start = [], 0
        while len(cell) - start > CELL_RUNS:
            cut = start + CELL_RUNS
            while cut > start + 1 and cell[cut - 1].get("t") != ", ":
                cut -= 1
            if cut == start + 1:  # no separator: cut where the limit falls
                cut = start + CELL_RUNS
            parts.append(cell[start:cut])
            start = cut
        parts.append(cell[start:])
        pieces.append(parts)
    depth = max(len(parts) for parts in pieces)
    return [[parts[i] if i < len(parts) else [] for parts in pieces] for i in range(depth)]


ACCENT_RGB: Color = (122 / 255, 46 / 255, 46 / 255)
PAD = 3.0  # pt above and below a table cell's text (6 left and right)
ENTRY_PAD = 2.0  # pt above and below an entry's text and faces: six card entries (faces 42 mm tall) to an A4 page
CELL_PAD_X = 6.0
GRID_RGB: Color = (0.75, 0.75, 0.75)
HEAD_RGB: Color = (0.93, 0.91, 0.87)


@cache
def _text_styles() -> dict[str, TextStyle]:
    """The paragraph styles (`_styles`) for the rulebook's own text layout (`richtext`)."""
    regular, bold = font("regular"), font("bold")
    fonts = {regular.name: regular, bold.name: bold}
    out = {}
    for name, st in _styles().items():
        c = st.textColor
        rgb = (float(c.red), float(c.green), float(c.blue))
        out[name] = TextStyle(fonts[st.fontName], bold, float(st.fontSize), float(st.leading),
                              float(st.spaceBefore), float(st.spaceAfter), rgb)
    return out


def rich_runs(parts: list[dict[str, Any]], style: TextStyle, bold: bool = False) -> list[Run]:
    """Reference rich text as runs (what `_rich` writes as markup): links to entries in the accent colour, badges
    in brackets."""
    f = style.bold if bold else style.font
    out = []
    for p in parts:
        text = str(p.get("t", ""))
        if p.get("anchor"):
            out.append(Run(text, f, style.size, ACCENT_RGB, str(p["anchor"])))
        elif p.get("badge"):
            out.append(Run(f" ({text})", f, style.size, style.color))
        else:
            out.append(Run(text, f, style.size, style.color))
    return out


def plain_text(lines: list[Line]) -> str:
    """The words of laid-out lines (for tests and diagnostics): spans run together where no space parts them."""
    out = []
    for line in lines:
        end = None
        for x, text, *_rest, span_end in line.spans:
            out.append(text if end is not None and x <= end + 0.01 else " " + text)
            end = span_end
    return "".join(out).strip()


class Entry(Flowable):  # type: ignore[misc]
    """An entry: its text (heading, attributes, texts, effects, notes) laid out once, its faces on the right, tops
    aligned. Too tall for the room left on a page, it splits between lines of its text (the faces stay with the
    first part) if the faces and two lines fit; else it goes to the next page whole."""

    def __init__(self, lines: list[Line], tops: list[float], text_h: float, width: float,
                 pics: list[FaceImage], pic_x: list[float]) -> None:
        super().__init__()
        self.lines, self.tops, self.text_h, self.full_w = lines, tops, text_h, width
        self.pics, self.pic_x = pics, pic_x
        self.pics_h = max((p.h * mm * p.scale for p in pics), default=0.0)
        self.width, self.height = width, max(text_h, self.pics_h) + 2 * ENTRY_PAD

    def wrap(self, avail_w: float, avail_h: float) -> tuple[float, float]:
        return self.width, self.height

    def split(self, avail_w: float, avail_h: float) -> list[Flowable]:
        if self.height <= avail_h + _FUZZ:
            return [self]
        room = avail_h - 2 * ENTRY_PAD
        if self.pics_h > room:
            return []
        k = 0
        while k < len(self.lines) and self.tops[k] + self.lines[k].leading <= room + _FUZZ:
            k += 1
        if k < 2 or k == len(self.lines):
            return []
        first = Entry(self.lines[:k], self.tops[:k], self.tops[k - 1] + self.lines[k - 1].leading, self.full_w,
                      self.pics, self.pic_x)
        shift = self.tops[k]
        rest = Entry(self.lines[k:], [t - shift for t in self.tops[k:]], self.text_h - shift, self.full_w, [], [])
        return [first, rest]

    def draw(self) -> None:
        canv = self.canv
        top = self.height - ENTRY_PAD
        draw_lines(canv, self.lines, self.tops, 0.0, top)
        for pic, x in zip(self.pics, self.pic_x, strict=True):
            pic.drawOn(canv, x, top - pic.h * mm * pic.scale)


Cell = list[Line]


class Grid(Flowable):  # type: ignore[misc]
    """A table of rich text, columns of equal width, its head on a tinted row repeated on every page, a thin grid.
    Its cells are laid out once; it splits between rows, and a row taller than the room between lines."""

    def __init__(self, head: list[Cell], rows: list[list[Cell]], width: float) -> None:
        super().__init__()
        self.head, self.rows, self.full_w = head, rows, width
        self.head_h = self._row_h(head)
        self.row_hs = [self._row_h(row) for row in rows]
        self.width, self.height = width, self.head_h + sum(self.row_hs)

    @staticmethod
    def _row_h(row: list[Cell]) -> float:
        return max((len(cell) * cell[0].leading for cell in row if cell), default=0.0) + 2 * PAD  # (one style)

    def wrap(self, avail_w: float, avail_h: float) -> tuple[float, float]:
        return self.width, self.height

    def split(self, avail_w: float, avail_h: float) -> list[Flowable]:
        if self.height <= avail_h + _FUZZ:
            return [self]
        room = avail_h - self.head_h
        k, used = 0, 0.0
        while k < len(self.rows) and used + self.row_hs[k] <= room + _FUZZ:
            used += self.row_hs[k]
            k += 1
        if k:
            return [Grid(self.head, self.rows[:k], self.full_w), Grid(self.head, self.rows[k:], self.full_w)]
        if not self.rows:
            return []
        row, lines_room = self.rows[0], room - 2 * PAD
        cuts = []
        for cell in row:
            n, h = 0, 0.0
            while n < len(cell) and h + cell[n].leading <= lines_room + _FUZZ:
                h += cell[n].leading
                n += 1
            cuts.append(n)
        if not any(cuts):
            return []
        first = [cell[:n] for cell, n in zip(row, cuts, strict=True)]
        rest = [cell[n:] for cell, n in zip(row, cuts, strict=True)]
        return [Grid(self.head, [first], self.full_w), Grid(self.head, [rest, *self.rows[1:]], self.full_w)]

    def draw(self) -> None:
        canv = self.canv
        n = max(len(self.head), 1)
        col_w = self.full_w / n
        top = self.height
        code = canv._code
        code.append(f"q {fp_str(*HEAD_RGB)} rg 0 {fp_str(top - self.head_h)} {fp_str(self.full_w)} "
                    f"{fp_str(self.head_h)} re f Q")
        edges = [top]
        lines: list[Line] = []
        tops: list[float] = []
        lefts: list[float] = []
        for row, h in [(self.head, self.head_h), *zip(self.rows, self.row_hs, strict=True)]:
            for i, cell in enumerate(row):
                y = self.height - top + PAD
                left = i * col_w + CELL_PAD_X
                for line in cell:
                    lines.append(line)
                    tops.append(y)
                    lefts.append(left)
                    y += line.leading
            top -= h
            edges.append(top)
        draw_lines(canv, lines, tops, lefts, self.height)
        ops = [f"q {fp_str(*GRID_RGB)} RG 0.3 w"]
        right = fp_str(self.full_w)
        for y in edges:
            ops.append(f"0 {fp_str(y)} m {right} {fp_str(y)} l")
        high, low = fp_str(edges[0]), fp_str(edges[-1])
        for i in range(n + 1):
            x = fp_str(i * col_w)
            ops.append(f"{x} {high} m {x} {low} l")
        ops.append("S Q")
        code.append(" ".join(ops))


class Rulebook:
    """Lays out one game's reference pages in one language."""

    def __init__(self, strings: dict[str, str], faces: Faces, s: PrintSettings) -> None:
        self.st = _styles()
        self.strings = strings
        self.faces = faces
        self.s = s
        self.keys: dict[str, str] = {}  # anchor -> entity key (for the faces)
        self.width = 0.0  # the text frame's width, pt
        self.drawn: DrawnFaces = {}  # the faces drawn into this rulebook's document so far

    def write(self, path: Path, title: str, pages: list[dict[str, Any]], where: dict[str, tuple[str, str]]) -> int:
        """Write the PDF; returns its page count."""
        self.keys = {anchor: key for key, (_page, anchor) in where.items()}
        # parsed fragments are kept for one rulebook: they are most of its caches' memory (+30 MiB at 1,000 cards
        # when kept for all), and few paragraphs come again in another language
        _PARSED.clear()
        pw, ph = self.s.paper_size
        doc = _Doc(str(path), pagesize=(pw * mm, ph * mm), leftMargin=18 * mm, rightMargin=18 * mm,
                   topMargin=16 * mm, bottomMargin=16 * mm, title=title, author="cardc", creator="cardc",
                   invariant=1)
        frame = Frame(doc.leftMargin, doc.bottomMargin, doc.width, doc.height, id="body")
        self.width = doc.width - 12  # the frame's own padding
        regular = font("regular")

        def footer(canvas: Any, d: Any) -> None:
            canvas.saveState()
            canvas.setFont(regular.name, 7.5)
            canvas.setFillColor(colors.Color(0.4, 0.4, 0.4))
            canvas.drawCentredString(pw * mm / 2, 9 * mm, f"{title} · {d.page}")
            canvas.restoreState()

        doc.addPageTemplates([PageTemplate(id="page", frames=[frame], onPage=footer)])
        entries: list[tuple[int, str, str]] = []
        toc = _Contents(entries, [self.st["toc0"], self.st["toc1"]])
        story: list[Flowable] = [Paragraph(escape(title), self.st["title"]),
                                 Paragraph(escape(self.strings.get("contents", "Contents")), self.st["h2"]), toc,
                                 PageBreak()]
        for index, page in enumerate(pages):
            if index:
                story.append(CondPageBreak(80 * mm))
            story.append(_heading(page["title"], self.st["h1"], 0, f"page-{page['stem']}", entries))
            for sec in page["sections"]:
                if sec.get("title"):
                    story.append(_heading(sec["title"], self.st["h2"], 1, f"{page['stem']}-{sec['id']}", entries))
                for block in sec["blocks"]:
                    story.extend(self.block(block))
        for i in range(len(story) - 2, -1, -1):
            # a heading (or an errata side's label) is not left alone at the foot of a page by an entry that does
            # not fit under it (entries split only below their faces; tables and paragraphs split anywhere), nor
            # by a label that keeps with such an entry
            flowable, after = story[i], story[i + 1]
            if (getattr(flowable, "toc_level", None) is not None or getattr(flowable, "cardc_label", False)) \
                    and (isinstance(after, Entry) or getattr(after, "keepWithNext", 0)):
                flowable.keepWithNext = 1
        path.parent.mkdir(parents=True, exist_ok=True)
        doc._doSave = 0  # the contents' page numbers are drawn after the layout, then the file is saved
        doc.contents = toc
        doc.build(story)
        toc.finish(doc.canv, doc.heading_pages, (pw * mm, ph * mm))
        doc.canv.save()
        return int(doc.page)

    def block(self, b: dict[str, Any]) -> list[Flowable]:
        st = self.st
        kind = b.get("type")
        if kind == "p":
            return [Paragraph(_rich(b["rich"]), st["body"])]
        if kind == "list":
            return [Paragraph(_rich(item), st["body"], bulletText="•") for item in b["items"]]
        if kind == "table":
            cell = _text_styles()["cell"]
            ncols = max(len(b["head"]), 1)
            col_w = self.width / ncols
            text_w = col_w - 2 * CELL_PAD_X
            body = [[lay_out(rich_runs(c, cell), cell, text_w) for c in piece]
                    for row in b["rows"] for piece in _row_chunks(row)]
            head = [lay_out([cell.run(str(h), bold=True)], cell, text_w) for h in b["head"]]
            # tables of at most TABLE_CHUNK rows: each split copies the rows after it
            tables: list[Flowable] = [Grid(head, body[start:start + TABLE_CHUNK], self.width)
                                      for start in range(0, max(len(body), 1), TABLE_CHUNK)]
            return [*tables, Spacer(1, 4)]
        if kind == "side":
            out: list[Flowable] = [Paragraph(f"<b>{escape(b['left_title'])}</b>", st["body"])]
            out[0].cardc_label = True
            for x in b["left"]:
                out.extend(self.block(x))
            out.append(Paragraph(f"<b>{escape(b['right_title'])}</b>", st["body"]))
            out[-1].cardc_label = True
            for x in b["right"]:
                out.extend(self.block(x))
            return out
        if kind == "entry":
            return self.entry(b)
        return []

    def entry(self, b: dict[str, Any]) -> list[Flowable]:
        ts = _text_styles()
        face = self.faces.get(self.keys.get(b["id"], ""))
        pics: list[FaceImage] = []
        pic_x: list[float] = []
        text_w = self.width
        if face is not None:
            front, back, w, h, rnd, images = face
            pics.append(FaceImage(front, w, h, rnd, self.s, images, self.drawn))
            if back is not None:
                pics.append(FaceImage(back, w, h, rnd, self.s, images, self.drawn))
            pic_col = w * min(1.0, FACE_HEIGHT / h) * mm + 3 * mm
            text_col = self.width - pic_col * len(pics)
            pic_x = [text_col + i * pic_col for i in range(len(pics))]
            text_w = text_col - 3
        h3, small, body = ts["h3"], ts["small"], ts["body"]
        head = [h3.run(str(b["title"]), bold=True), h3.run(" "),
                Run(str(b["kind"]), h3.bold, 8.0, ACCENT_RGB), *rich_runs(b.get("badges", []), h3, bold=True)]
        blocks = [(lay_out(head, h3, text_w, anchor=str(b["id"])), h3.space_before, h3.space_after)]
        if b["attrs"]:
            runs: list[Run] = []
            for i, (label, value) in enumerate(b["attrs"]):
                if i:
                    runs.append(small.run(" · "))
                runs.append(small.run(str(label), bold=True))
                runs.append(small.run(" "))
                runs.extend(rich_runs(value, small))
            blocks.append((lay_out(runs, small, text_w), small.space_before, small.space_after))
        for hand in b.get("hand", []):
            blocks.append((lay_out(rich_runs(hand, body), body, text_w), body.space_before, body.space_after))
        for fx in b.get("effects", []):
            blocks.append((lay_out(rich_runs(fx, body), body, text_w, bullet="•"), body.space_before,
                           body.space_after))
        for label, value in b.get("meta", []):
            blocks.append((lay_out([small.run(f"{label}: "), *rich_runs(value, small)], small, text_w),
                           small.space_before, small.space_after))
        lines, tops, text_h = stack(blocks)
        out: list[Flowable] = [Entry(lines, tops, text_h, self.width, pics, pic_x)]
        if not pics:  # the space a heading has above it (entries with faces: six to a page)
            out[0].spaceBefore = max(0.0, h3.space_before - 2 * ENTRY_PAD)
        for child in b.get("children", []):
            out.extend(self.entry(child))
        return out


def write_rulebooks(project: Any, folder: Path, s: PrintSettings, faces_of: Callable[[str, str], Faces],
                    notes: list[str]) -> None:
    """`<game>-<lang>-rules.pdf` for every game and published language."""
    with memoized_reportlab(), paused():  # no cyclic collections: see `collector`
        _write_rulebooks(project, folder, s, faces_of, notes)


def _write_rulebooks(project: Any, folder: Path, s: PrintSettings, faces_of: Callable[[str, str], Faces],
                     notes: list[str]) -> None:
    from cardc.backends.reference.context import RefContext, all_strings
    from cardc.backends.reference.pages import all_pages

    strings = all_strings()
    for game_id in sorted(project.games):
        game = project.games[game_id]
        for lang in game.publish or game.languages:
            mine = {**strings["en"], **strings.get(lang, {})}
            ctx = RefContext(project, game, lang, None)
            name = (game.name.get(lang) or game.name.get(game.fallback) or game_id) if game.name else game_id
            title = f"{name} — {mine.get('reference', 'Rules reference')}"
            path = folder / f"{game_id}-{lang}-rules.pdf"
            count = Rulebook(mine, faces_of(game_id, lang), s).write(path, title, all_pages(ctx), ctx.where)
            notes.append(f"print: {path.name}: rulebook, {count} pages")
