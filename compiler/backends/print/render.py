"""Drawing with reportlab: template elements onto a card, cards onto imposed pages, marks, calibration.

Each distinct card face is drawn once as a PDF form (XObject) and placed as often as it is printed,
so copies cost nothing and identical backs are stored once. Sizes are millimetres until the last step.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from cardc.backends.print.fonts import font
from cardc.backends.print.icons import ICON_EM, draw_icon
from cardc.backends.print.imposition import Page, Placement
from cardc.backends.print.settings import PrintSettings
from cardc.backends.print.templates import Element
from cardc.backends.print.textlayout import Box, draw_layout, fit_anchored, fit_text
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
        return (bleed + x) * mm

    def Y(y: float) -> float:
        return (bleed + h - y) * mm

    for el in elements:
        k = el.kind
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
    return report


def _draw_text(c: Canvas, el: Element, X: Callable[[float], float], Y: Callable[[float], float], s: PrintSettings,
               report: DrawReport) -> None:
    """A text box, shrunk to fit down to the larger of the template's `min` and the maker's `min_text`.

    With `r=` (and `cx=`, `cy=`) the lines also stay inside that circle: text on a round token.
    """
    text = el.str("text")
    if not text.strip():
        return
    f = font("bold" if el.str("font") == "bold" else "regular")
    x, y, w, h = el.num("x"), el.num("y"), el.num("w"), el.num("h")
    min_size = max(el.num("min", 0.0), s.min_text)
    size = max(el.num("size", 8), min_size)
    r = el.num("r")
    box = Box(X(x), Y(y), w * mm, h * mm, X(el.num("cx")), Y(el.num("cy")), r * mm)
    valign = el.str("valign", "top")
    if r > 0 and valign in ("middle", "bottom"):
        layout, box = fit_anchored(text, f, box, size, min_size, valign)
    else:
        layout = fit_text(text, f, w * mm, h * mm, size, min_size, box)
    if layout.overflow:
        report.overflow.append((el.name or "text", min_size))
    color = _color(el.str("color", "black")) or colors.black
    c.setFillColor(color)
    c.setStrokeColor(color)
    draw_layout(c, layout, f, box, el.str("align", "left"), valign, report.unknown_icons)


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


def draw_calibration(c: Canvas, s: PrintSettings) -> None:
    """Two pages: a target on the front; on the back, the target mirrored with mm scales around it.

    Print both sides, hold the sheet against the light and read on the back's scales where the front's
    target shows through: the two numbers are the `print.back_offset` to set (right, down on the back).
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
                c.line((tx - 6) * mm, ty * mm, (tx + 6) * mm, ty * mm)
                c.line(tx * mm, (ty - 6) * mm, tx * mm, (ty + 6) * mm)
        orient = "portrait" if W < H else "landscape"
        title = (f"cardc calibration ({orient}): print both sides (duplex {mode} edge), hold to the light"
                 if side == "front" else
                 "read where the front's cross shows through: x (right) and y (down) in mm, "
                 "then build with --back-offset X,Y")
        c.setFont(regular.name, 8)
        c.drawString(15 * mm, (H - 15) * mm, title)
        c.showPage()


def _scales(c: Canvas, tx: float, ty: float) -> None:
    """A ruler in x and one in y through (tx, ty), ticks every 0.5 mm, numbers every 1 mm, zero at the target."""
    regular = font("regular")
    c.setFont(regular.name, 4)
    for i in range(-10, 11):
        d = i * 0.5
        long = i % 2 == 0
        tick = 2.0 if long else 1.0
        # the number under the front's cross is the correction: right (x) and down (y), seen from the back
        c.line((tx + d) * mm, ty * mm, (tx + d) * mm, (ty + tick) * mm)
        c.line(tx * mm, (ty - d) * mm, (tx + tick) * mm, (ty - d) * mm)
        if long and i:
            c.drawCentredString((tx + d) * mm, (ty + 2.6) * mm, f"{int(d):+d}")
            c.drawString((tx + 2.4) * mm, (ty - d) * mm - 1.4, f"{int(d):+d}")
    c.line((tx - 5) * mm, ty * mm, (tx + 5) * mm, ty * mm)
    c.line(tx * mm, (ty - 5) * mm, tx * mm, (ty + 5) * mm)
