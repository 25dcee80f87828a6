"""Drawing with reportlab: template elements onto a card, cards onto imposed pages, marks, calibration.

Each distinct card face is drawn once as a PDF form (XObject) and placed as often as it is printed,
so copies cost nothing and identical backs are stored once. Sizes are millimetres until the last step.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from cardc.backends.print.fonts import Font, font
from cardc.backends.print.icons import ICON_ADVANCE, ICON_EM, draw_icon
from cardc.backends.print.imposition import Page, Placement
from cardc.backends.print.settings import PrintSettings
from cardc.backends.print.templates import Element
from cardc.backends.print.textlayout import Box, Layout, draw_layout, fit_anchored, fit_text, placed_lines
from reportlab.lib import colors
from reportlab.lib.units import mm
from reportlab.pdfgen.canvas import Canvas

ImageResolver = Callable[[str], Path | None]
FaceRef = str | Callable[[Canvas], None] | None  # a form's name, or a function drawing a face used only once


@lru_cache(maxsize=256)
def _color(value: str) -> colors.Color | None:
    v = value.strip().lower()
    if v in ("", "none", "transparent"):
        return None
    try:
        return colors.HexColor(v) if v.startswith("#") else colors.toColor(v)
    except (ValueError, AttributeError):
        return colors.black


def swap_red_blue(color: object) -> object:
    """A colour with its red and blue exchanged (reportlab's `enforceColorSpace` hook of a canvas whose pages PDFium
    rasterizes in its own byte order, blue first: the pixels then come out in the PNG's order, red first, and
    PDFium draws a third faster than when asked to reverse its byte order for each pixel it paints). Only plain RGB
    colours and greys, as `swappable` faces use; anything else is a mistake of the caller."""
    if isinstance(color, colors.Color) and not isinstance(color, colors.CMYKColor):  # (a CMYK colour is a Color)
        return colors.Color(color.blue, color.green, color.red, color.alpha)
    if isinstance(color, str):
        return swap_red_blue(colors.toColor(color))
    if isinstance(color, tuple | list) and len(color) == 3:
        return (color[2], color[1], color[0])
    if isinstance(color, int | float):
        return color
    raise TypeError(f"no red and blue to exchange in colour {color!r}")


SWAPPED_KEYS = ("fill", "stroke", "color")  # the element properties `draw_face` reads colours from


def swappable(elements: tuple[Element, ...]) -> bool:
    """Whether `draw_face` of `elements` sets only plain RGB colours (no CMYK), so that a page of them drawn with
    red and blue exchanged (`swap_red_blue`) and rasterized blue first gives the same pixels. Images are the
    caller's to check: their pixels cannot be exchanged."""
    for el in elements:
        for key in SWAPPED_KEYS:
            value = el.props.get(key)
            if isinstance(value, str):
                c = _color(value)
                if isinstance(c, colors.CMYKColor):
                    return False
    return True


@dataclass
class DrawReport:
    """What drawing one face found: text boxes that overflow, icons nobody knows, missing images."""

    overflow: list[tuple[str, float]] = field(default_factory=list)  # (box name, size tried down to)
    unknown_icons: set[str] = field(default_factory=set)
    missing_images: set[str] = field(default_factory=set)


def draw_face(c: Canvas, elements: tuple[Element, ...], w: float, h: float, bleed: float, s: PrintSettings,
              images: ImageResolver) -> DrawReport:
    """Draw one card face with the bottom-left of its bleed box at the origin."""
    report = DrawReport()

    def X(x: float) -> float:
        return float((bleed + x) * mm)

    def Y(y: float) -> float:
        return float((bleed + h - y) * mm)

    code = c._code
    for el in elements:
        k = el.kind
        plain = k in _PLAIN or (k == "art" and not el.str("image"))
        if plain:  # its operators are known if drawn before at this size, bleed and colour setting
            key = (id(el), w, h, bleed, c._fillMode, c._enforceColorSpace)
            known = _SHAPES.get(key)
            if known is not None:
                code.extend(known[1])
                continue
            start = len(code)
        c.saveState()
        fill = _color(el.str("fill", "none"))
        stroke = _color(el.str("stroke", "none"))
        if fill is not None:
            c.setFillColor(fill)
        if stroke is not None:
            c.setStrokeColor(stroke)
            c.setLineWidth(el.num("width", 0.5))
        if k == "fill":
            c.setFillColor(_color(el.str("color", "white")) or colors.white)
            c.rect(0, 0, (w + 2 * bleed) * mm, (h + 2 * bleed) * mm, stroke=0, fill=1)
        elif k == "rect":
            x, y, rw, rh = el.num("x"), el.num("y"), el.num("w"), el.num("h")
            r = el.num("radius")
            if r > 0:
                c.roundRect(X(x), Y(y + rh), rw * mm, rh * mm, r * mm, stroke=int(stroke is not None),
                            fill=int(fill is not None))
            else:
                c.rect(X(x), Y(y + rh), rw * mm, rh * mm, stroke=int(stroke is not None), fill=int(fill is not None))
        elif k == "circle":
            c.circle(X(el.num("cx")), Y(el.num("cy")), el.num("r") * mm, stroke=int(stroke is not None),
                     fill=int(fill is not None))
        elif k == "line":
            c.setStrokeColor(stroke or colors.black)
            c.setLineWidth(el.num("width", 0.5))
            c.line(X(el.num("x1")), Y(el.num("y1")), X(el.num("x2")), Y(el.num("y2")))
        elif k == "text":
            _draw_text(c, el, X, Y, s, report)
        elif k == "art":
            _draw_art(c, el, X, Y, images, report)
        elif k == "icon":
            color = _color(el.str("color", "black")) or colors.black
            c.setFillColor(color)
            c.setStrokeColor(color)
            size_pt = el.num("size") * mm / ICON_EM
            if not draw_icon(c, el.str("name"), X(el.num("x")), Y(el.num("y") + el.num("size")), size_pt):
                report.unknown_icons.add(el.str("name"))
        c.restoreState()
        if plain and swappable((el,)):  # (a CMYK colour may be a separation, which the page must list)
            if len(_SHAPES) >= SHAPES_KEPT:
                _SHAPES.clear()
            _SHAPES[key] = (el, code[start:])
    return report


# The operators of shapes drawn so far: a fill, rectangle, circle, line or art placeholder (no image) is drawn
# inside its own saved graphics state with colours and numbers alone, so at one size, bleed, fill rule and colour
# setting (`swap_red_blue`) it is the same text on every page of every document. Faces of one template share their
# frame's elements (`parse_elements` keeps one Element per line), and each face is drawn for its sheet, for the
# rulebook and (its frame once) for the PNGs: 10,000 cards drew the same few frames 60,000 times. Keyed by the
# element's id (the element is kept, so its id stays its own).
_SHAPES: dict[tuple[int, float, float, float, int, object], tuple[Element, list[str]]] = {}
SHAPES_KEPT = 4096  # (past it, the cache starts again)
_PLAIN = frozenset({"fill", "rect", "circle", "line"})


# Text boxes fitted so far (a layout is immutable): a face is drawn for its sheet, its PNG and the rulebook, and
# shared backs and copies again; the same text in the same box and font fits the same way each time. The PNGs
# measure every face's texts before drawing any, so the cache holds a whole build's texts (10,000 cards in two
# languages: about 46,000): with 4,096 kept, every text past the first 4,096 was fitted four times instead of
# once. Words are shared (`words_of`), so a layout costs its lines: about 0.6 KB.
_FITTED: dict[tuple[str, str, Box | tuple[float, float], float, float, str], tuple[Layout, Box]] = {}
FITTED_KEPT = 1 << 16  # (about 40 MB; past it, the cache starts again)


def _fitted(el: Element, X: Callable[[float], float], Y: Callable[[float], float],
            s: PrintSettings) -> tuple[Font, Layout, Box, str] | None:
    """A text element's font, fitted layout, box (points) and vertical alignment; None if it has no text."""
    text = el.str("text")
    if not text.strip():
        return None
    f = font("bold" if el.str("font") == "bold" else "regular")
    x, y, w, h = el.num("x"), el.num("y"), el.num("w"), el.num("h")
    min_size = max(el.num("min", 0.0), s.min_text)
    size = max(el.num("size", 8), min_size)
    r = el.num("r")
    box = Box(X(x), Y(y), w * mm, h * mm, X(el.num("cx")), Y(el.num("cy")), r * mm)
    valign = el.str("valign", "top")
    anchored = r > 0 and valign in ("middle", "bottom")
    # a rectangular box breaks its lines the same wherever it is (the sheets, the PNGs with bleed, the rulebook
    # without): only its size is in the key; a round one's lines follow its circle, so all of it is
    key = (text, f.name, box if r > 0 else (box.width, box.height), size, min_size, valign if anchored else "")
    fitted = _FITTED.get(key)
    if fitted is None:
        if anchored:
            fitted = fit_anchored(text, f, box, size, min_size, valign)
        else:
            fitted = (fit_text(text, f, w * mm, h * mm, size, min_size, box), box)
        if len(_FITTED) >= FITTED_KEPT:
            _FITTED.clear()
        _FITTED[key] = fitted
    return f, fitted[0], fitted[1] if anchored else box, valign


def _draw_text(c: Canvas, el: Element, X: Callable[[float], float], Y: Callable[[float], float], s: PrintSettings,
               report: DrawReport) -> None:
    """A text box, shrunk to fit down to the larger of the template's `min` and the maker's `min_text`.

    With `r=` (and `cx=`, `cy=`) the lines also stay inside that circle: text on a round token.
    """
    fitted = _fitted(el, X, Y, s)
    if fitted is None:
        return
    f, layout, box, valign = fitted
    if layout.overflow:
        report.overflow.append((el.name or "text", max(el.num("min", 0.0), s.min_text)))
    color = _color(el.str("color", "black")) or colors.black
    c.setFillColor(color)
    c.setStrokeColor(color)
    draw_layout(c, layout, f, box, el.str("align", "left"), valign, report.unknown_icons)


Extent = tuple[float, float, float, float]  # x0, y0, x1, y1 in points, y up
NOWHERE: Extent = (math.inf, math.inf, -math.inf, -math.inf)  # what draws nothing: apart from everything


def apart(a: Extent, b: Extent) -> bool:
    """Whether two extents share no point."""
    return a[2] < b[0] or b[2] < a[0] or a[3] < b[1] or b[3] < a[1]


def footprint(el: Element, w: float, h: float, bleed: float, s: PrintSettings, images: ImageResolver,
              px: float) -> Extent | None:
    """A rectangle outside which drawing `el` (as `draw_face` does, on a face of `w` x `h` mm plus `bleed`) changes
    no pixel when rasterized with pixels `px` points wide; None if unknown. Generous: line widths, joins, the
    font's bounding box (every glyph lies inside it) and two pixels of antialiasing are all added."""
    def X(x: float) -> float:
        return float((bleed + x) * mm)

    def Y(y: float) -> float:
        return float((bleed + h - y) * mm)

    pad = 2 * px
    k = el.kind
    lw = el.num("width", 0.5) if _color(el.str("stroke", "none")) is not None else 0.0
    if k == "fill":
        return (-pad, -pad, (w + 2 * bleed) * mm + pad, (h + 2 * bleed) * mm + pad)
    if k == "rect":
        x, y = X(el.num("x")), Y(el.num("y") + el.num("h"))
        return _grow((x, y, x + el.num("w") * mm, y + el.num("h") * mm), lw + pad)
    if k == "circle":
        cx, cy, r = X(el.num("cx")), Y(el.num("cy")), el.num("r") * mm
        return _grow((cx - r, cy - r, cx + r, cy + r), lw + pad)
    if k == "line":
        x1, y1, x2, y2 = X(el.num("x1")), Y(el.num("y1")), X(el.num("x2")), Y(el.num("y2"))
        return _grow((min(x1, x2), min(y1, y2), max(x1, x2), max(y1, y2)), el.num("width", 0.5) + pad)
    if k == "art":  # the image inside its box, or the placeholder's box and diagonals (0.4 pt)
        x, y = X(el.num("x")), Y(el.num("y") + el.num("h"))
        return _grow((x, y, x + el.num("w") * mm, y + el.num("h") * mm), 0.4 + pad)
    if k == "icon":  # its em box, and half of it again for an SVG's strokes or a placeholder's circle
        size = el.num("size") * mm
        x, y = X(el.num("x")), Y(el.num("y") + el.num("size"))
        return _grow((x, y, x + size * ICON_ADVANCE / ICON_EM, y + size), size / 2 + lw + pad)
    if k == "text":
        fitted = _fitted(el, X, Y, s)
        if fitted is None:
            return NOWHERE
        f, layout, box, valign = fitted
        x0, y0, x1, y1 = f.ttf.face.bbox  # 1/1000 em
        size = layout.size
        out: Extent | None = None
        for words, left, baseline, line_w in placed_lines(layout, f, box, el.str("align", "left"), valign):
            icons = any(kind != "text" for word in words for kind, _v in word.pieces)
            grow = size / 2 + 1.0 if icons else 0.0  # an icon's strokes, an unknown icon's circle
            line = _grow((left + min(0.0, x0) * size / 1000, baseline + y0 * size / 1000,
                          left + line_w + max(0.0, x1) * size / 1000, baseline + y1 * size / 1000), grow + pad)
            out = line if out is None else (min(out[0], line[0]), min(out[1], line[1]),
                                            max(out[2], line[2]), max(out[3], line[3]))
        return out or NOWHERE
    return None


def _grow(e: Extent, by: float) -> Extent:
    return (e[0] - by, e[1] - by, e[2] + by, e[3] + by)


def _draw_art(c: Canvas, el: Element, X: Callable[[float], float], Y: Callable[[float], float],
              images: ImageResolver, report: DrawReport) -> None:
    x, y, w, h = el.num("x"), el.num("y"), el.num("w"), el.num("h")
    rel = el.str("image")
    path = images(rel) if rel else None
    if path is not None:
        c.drawImage(str(path), X(x), Y(y + h), w * mm, h * mm, preserveAspectRatio=True, anchor="c", mask="auto")
        return
    if rel:
        report.missing_images.add(rel)
    c.setFillColor(_color(el.str("fill", "#e8e4dc")) or colors.white)
    c.setStrokeColor(_color(el.str("stroke", "#b5ab98")) or colors.grey)
    c.setLineWidth(0.4)
    c.rect(X(x), Y(y + h), w * mm, h * mm, stroke=1, fill=1)
    c.line(X(x), Y(y + h), X(x + w), Y(y))
    c.line(X(x), Y(y), X(x + w), Y(y + h))


def draw_pages(c: Canvas, pages: list[Page], forms: list[tuple[FaceRef, FaceRef]], s: PrintSettings,
               legends: list[str] | None = None) -> None:
    """Place the forms (front, back) of each slot on the imposed pages, then the marks on top, and each front
    page's legend (what its marks mean) in the margin."""
    b = s.bleed
    for index, page in enumerate(pages):
        c.setPageSize((page.width * mm, page.height * mm))
        x1, y1, x2, y2 = page.box(0)
        c.setTrimBox((x1 * mm, y1 * mm, x2 * mm, y2 * mm))
        c.setBleedBox(((x1 - b) * mm, (y1 - b) * mm, (x2 + b) * mm, (y2 + b) * mm))
        for p in page.placements:
            front, back = forms[p.slot]
            name = front if p.side == "front" else back
            if name is None:
                continue
            c.saveState()
            clipped = _clip(c, p, b)
            c.translate((p.x - b) * mm, (p.y - b) * mm)
            if p.rotated:
                c.translate((p.w + 2 * b) * mm, (p.h + 2 * b) * mm)
                c.rotate(180)
            if isinstance(name, str):
                c.doForm(name)
            else:
                if not clipped:  # a form clips to its box; a face drawn in place gets the same edge
                    path = c.beginPath()
                    path.rect(0, 0, (p.w + 2 * b) * mm, (p.h + 2 * b) * mm)
                    c.clipPath(path, stroke=0, fill=0)
                # marked content: where a face drawn in place begins (its cell is the next rectangle at 0 0)
                c._code.append(f"/CardcFace <</W {(p.w + 2 * b) * mm:.3f} /H {(p.h + 2 * b) * mm:.3f}>> BDC")
                name(c)
                c._code.append("EMC")
            c.restoreState()
        _draw_marks(c, page, s)
        if legends and legends[index] and page.side != "back":
            _draw_legend(c, page, s, legends[index])
        c.showPage()


def _clip(c: Canvas, p: Placement, bleed: float) -> bool:
    """Keep a card's drawing to its own trim plus the bleed it may use: a ring around a round token, half
    the gutter towards a neighbour, so that densely packed cards never cover each other."""
    if p.round:
        path = c.beginPath()
        path.circle((p.x + p.w / 2) * mm, (p.y + p.h / 2) * mm, (min(p.w, p.h) / 2 + bleed) * mm)
        c.clipPath(path, stroke=0, fill=0)
        return True
    left, bottom, right, top = p.reach
    if min(p.reach) >= bleed:
        return False
    path = c.beginPath()
    path.rect((p.x - left) * mm, (p.y - bottom) * mm, (p.w + left + right) * mm, (p.h + bottom + top) * mm)
    c.clipPath(path, stroke=0, fill=0)
    return True


def _draw_marks(c: Canvas, page: Page, s: PrintSettings) -> None:
    c.saveState()
    if page.cut_lines:
        c.setStrokeColor(colors.Color(0.55, 0.55, 0.55))
        c.setLineWidth(0.3)
        for seg in page.cut_lines:
            c.line(seg.x1 * mm, seg.y1 * mm, seg.x2 * mm, seg.y2 * mm)
    for color, weight in ((colors.white, 3 * s.mark_weight), (colors.black, s.mark_weight)):
        # white under black: a mark that crosses a dark outer bleed still reads
        c.setStrokeColor(color)
        c.setLineWidth(weight)
        for seg in page.marks:
            c.line(seg.x1 * mm, seg.y1 * mm, seg.x2 * mm, seg.y2 * mm)
    if page.fold_line is not None:
        c.setDash(3, 2)
        c.setLineWidth(0.3)
        f = page.fold_line
        c.line(f.x1 * mm, f.y1 * mm, f.x2 * mm, f.y2 * mm)
    c.restoreState()


def _draw_legend(c: Canvas, page: Page, s: PrintSettings, text: str) -> None:
    """The key to the page's marks, in the margin clear of cards, bleed and crop marks: under the grid, over
    it, or up the left side between two trim lines (US Letter poker sheets leave room only there)."""
    regular = font("regular")
    ps = page.placements
    tx1, ty1 = min(p.x for p in ps), min(p.y for p in ps)
    ty2 = max(p.y + p.h for p in ps)
    vertical = [m for m in page.marks if m.x1 == m.x2]
    below = max([s.bleed, *(ty1 - min(m.y1, m.y2) for m in vertical if m.y1 < ty1)]) + 0.5
    above = max([s.bleed, *(max(m.y1, m.y2) - ty2 for m in vertical if m.y1 > ty2)]) + 0.5
    parts = text.split("   ·   ")
    bands = [  # (x centre, y centre, length, height, rotated), all mm
        (page.width / 2, (s.margin + ty1 - below) / 2, page.width - 2 * s.margin, ty1 - below - s.margin, False),
        (page.width / 2, (page.height - s.margin + ty2 + above) / 2, page.width - 2 * s.margin,
         page.height - s.margin - ty2 - above, False),
    ]
    ys = sorted({v for p in ps for v in (p.y, p.y + p.h)})
    if len(ys) > 1:
        gap_lo, gap_hi = max(zip(ys, ys[1:], strict=False), key=lambda g: g[1] - g[0])
        room = tx1 - s.bleed - s.margin - 0.5  # the marks on this side sit only at the trim lines
        bands.append((s.margin + room / 2, (gap_lo + gap_hi) / 2, gap_hi - gap_lo - 4, room, True))
    for cx, cy, length, height, rotated in bands:
        for size in (6.5, 6.0, 5.5, 5.0, 4.5):
            lines = [text] if regular.width(text) * size <= length * mm else parts
            if max(regular.width(line) for line in lines) * size > length * mm:
                continue
            if len(lines) * size * 1.15 > height * mm:
                continue
            c.saveState()
            c.setFillColor(colors.Color(0.25, 0.25, 0.25))
            c.setFont(regular.name, size)
            c.translate(cx * mm, cy * mm)
            if rotated:
                c.rotate(90)
            top = len(lines) * size * 1.15 / 2 - size * 0.8
            for i, line in enumerate(lines):
                c.drawCentredString(0, top - i * size * 1.15, line)
            c.restoreState()
            return


# The calibration page's geometry (mm): a scale reads +-CAL_RANGE in steps of CAL_STEP; it lies CAL_GAP from
# the target, beside the front cross's arm it measures (arms CAL_ARM long, so they still cross it at the
# largest offset the scale reads).
CAL_RANGE, CAL_STEP, CAL_GAP, CAL_ARM = 5.0, 0.5, 8.0, 20.0
CAL_TICKS = (1.2, 2.2, 3.8)  # tick lengths (mm): every 0.5 mm, odd mm, even mm
CAL_LABEL_PT = 6.0  # the numbers: one every mm, odd and even in two rows so that none touches


def draw_calibration(c: Canvas, s: PrintSettings) -> None:
    """Two pages: a target on the front; on the back, the target mirrored with mm scales beside it.

    Print both sides, hold the sheet against the light and read on the back's scales where the front's
    cross shows through: the two numbers are the `print.back_offset` to set (right, down on the back).
    A portrait pair and a landscape pair: measure with the one whose orientation your sheets use.
    """
    pw, ph = s.paper_size
    for W, H in ((pw, ph), (ph, pw)):
        _calibration_pair(c, W, H, s)


def _calibration_pair(c: Canvas, W: float, H: float, s: PrintSettings) -> None:
    from cardc.backends.print.imposition import flips_x

    regular = font("regular")
    mode = s.duplex if s.duplex in ("long", "short") else "long"
    targets = [(W / 2, H / 2), (W / 4, H / 4), (3 * W / 4, 3 * H / 4)]
    for side in ("front", "back"):
        c.setPageSize((W * mm, H * mm))
        c.setTrimBox((0, 0, W * mm, H * mm))
        c.setBleedBox((0, 0, W * mm, H * mm))
        c.setLineWidth(0.3)
        c.setFillColor(colors.black)
        for tx, ty in targets:
            if side == "back":
                tx, ty = (W - tx, ty) if flips_x(W, H, mode) else (tx, H - ty)
                _scales(c, tx, ty)
            else:
                c.circle(tx * mm, ty * mm, 2 * mm)
                c.line((tx - CAL_ARM) * mm, ty * mm, (tx + CAL_ARM) * mm, ty * mm)
                c.line(tx * mm, (ty - CAL_ARM) * mm, tx * mm, (ty + CAL_ARM) * mm)
        orient = "portrait" if W < H else "landscape"
        lines = ([f"cardc calibration ({orient}): print both sides (duplex {mode} edge), hold the sheet to the light."]
                 if side == "front" else
                 ["Read where the front's cross shows through: the upper scale gives x, the right-hand scale y (mm).",
                  "x: \u2212 left, + right;  y: \u2212 up, + down.  Then build with --back-offset X,Y"])
        c.setFont(regular.name, 9)
        for i, line in enumerate(lines):
            c.drawString(15 * mm, (H - 15) * mm - i * 12, line)
        c.showPage()


def _scales(c: Canvas, tx: float, ty: float) -> None:
    """Two rulers beside the mirrored target (tx, ty): one above it for x, one right of it for y.

    Ticks every 0.5 mm (longer every 1 mm, longer still at even mm), a number at every mm, zero in line with
    the target. The x ruler crosses the front's vertical arm, the y ruler its horizontal arm; where the arm
    shows through is the correction: x to the right, y downwards, seen from the back. The numbers are the
    distance; the sign stands at each end. Odd and even numbers stand in two rows past the ticks, so that
    no two numbers touch and none touches a tick."""
    regular = font("regular")
    n = round(CAL_RANGE / CAL_STEP)
    rx, ry = ty + CAL_GAP, tx + CAL_GAP  # the x ruler's line (a y), the y ruler's line (an x)
    for i in range(-n, n + 1):
        d = i * CAL_STEP
        whole = abs(d - round(d)) < 1e-9
        tick = CAL_TICKS[0] if not whole else CAL_TICKS[2] if round(d) % 2 == 0 else CAL_TICKS[1]
        c.setLineWidth(0.6 if i == 0 else 0.25)
        c.line((tx + d) * mm, rx * mm, (tx + d) * mm, (rx + tick) * mm)  # x: to the right is +
        c.line(ry * mm, (ty - d) * mm, (ry + tick) * mm, (ty - d) * mm)  # y: downwards is +
    c.setLineWidth(0.25)
    c.line((tx - CAL_RANGE) * mm, rx * mm, (tx + CAL_RANGE) * mm, rx * mm)
    c.line(ry * mm, (ty - CAL_RANGE) * mm, ry * mm, (ty + CAL_RANGE) * mm)
    c.setFont(regular.name, CAL_LABEL_PT)
    cap = CAL_LABEL_PT * 0.73 / mm  # the height of a digit, in mm
    for k in range(-round(CAL_RANGE), round(CAL_RANGE) + 1):
        lift = CAL_TICKS[2] + 0.6 + (cap + 0.6 if k % 2 == 0 else 0)  # odd numbers next to the ticks, even beyond
        c.drawCentredString((tx + k) * mm, (rx + lift) * mm, str(abs(k)))
        c.drawString((ry + lift) * mm, (ty - k - cap / 2) * mm, str(abs(k)))
    c.setFont(regular.name, CAL_LABEL_PT + 3)
    end = CAL_RANGE + 1.6
    c.drawCentredString((tx - end) * mm, (rx + 0.6) * mm, "−")
    c.drawCentredString((tx + end) * mm, (rx + 0.6) * mm, "+")
    c.drawCentredString((ry + 1.2) * mm, (ty + end - cap / 2) * mm, "−")  # up
    c.drawCentredString((ry + 1.2) * mm, (ty - end - cap / 2) * mm, "+")  # down
