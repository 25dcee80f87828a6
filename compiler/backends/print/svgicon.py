"""Designers' own icons: a small SVG reader that turns shapes into reportlab paths, one colour, like a glyph.

Icons are monochrome (they take the colour of the text they stand in), so only geometry is read: `path`
(every command, arcs as Bézier curves), `rect`, `circle`, `ellipse`, `polygon`, `polyline` and `line`,
inside `g` groups with `translate`/`scale`/`matrix` transforms, scaled from the `viewBox` into the icon's
box. Elements with `fill="none"` are stroked. Pure Python: no native SVG library is needed.
"""

from __future__ import annotations

import math
import re
import xml.etree.ElementTree as ET
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from reportlab.pdfgen.canvas import Canvas

Matrix = tuple[float, float, float, float, float, float]
IDENTITY: Matrix = (1.0, 0.0, 0.0, 1.0, 0.0, 0.0)
_NUM = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")
_CMD = re.compile(r"[MmLlHhVvCcSsQqTtAaZz]|[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")


class SvgError(ValueError):
    """An SVG file that cannot be read as an icon; the message says why."""


@dataclass(frozen=True, slots=True)
class Shape:
    """One outline in the unit box (0..1, y up): ("M", x, y), ("L", x, y), ("C", x1, y1, x2, y2, x, y), ("Z",)."""

    ops: tuple[tuple[object, ...], ...]
    stroke: bool  # drawn as a line (fill="none") rather than filled
    width: float  # stroke width in unit-box units


def _mul(a: Matrix, b: Matrix) -> Matrix:
    """a then b."""
    return (a[0] * b[0] + a[1] * b[2], a[0] * b[1] + a[1] * b[3], a[2] * b[0] + a[3] * b[2],
            a[2] * b[1] + a[3] * b[3], a[4] * b[0] + a[5] * b[2] + b[4], a[4] * b[1] + a[5] * b[3] + b[5])


def _transform(text: str) -> Matrix:
    m = IDENTITY
    for name, args in re.findall(r"(\w+)\s*\(([^)]*)\)", text or ""):
        v = [float(x) for x in _NUM.findall(args)]
        if name == "translate" and v:
            t: Matrix = (1, 0, 0, 1, v[0], v[1] if len(v) > 1 else 0.0)
        elif name == "scale" and v:
            t = (v[0], 0, 0, v[1] if len(v) > 1 else v[0], 0, 0)
        elif name == "matrix" and len(v) == 6:
            t = (v[0], v[1], v[2], v[3], v[4], v[5])
        elif name == "rotate" and v:
            a = math.radians(v[0])
            t = (math.cos(a), math.sin(a), -math.sin(a), math.cos(a), 0, 0)
            if len(v) == 3:
                t = _mul(_mul((1, 0, 0, 1, -v[1], -v[2]), t), (1, 0, 0, 1, v[1], v[2]))
        else:
            raise SvgError(f"transform `{name}` is not supported")
        m = _mul(t, m)
    return m


def _arc(x1: float, y1: float, rx: float, ry: float, phi: float, large: bool, sweep: bool, x2: float,
         y2: float) -> list[tuple[float, ...]]:
    """An SVG elliptical arc as cubic Bézier segments (the endpoint parameterization of SVG 1.1, F.6.5)."""
    if rx == 0 or ry == 0:
        return [(x1, y1, x2, y2, x2, y2)]
    rx, ry = abs(rx), abs(ry)
    cp, sp = math.cos(math.radians(phi)), math.sin(math.radians(phi))
    dx, dy = (x1 - x2) / 2, (y1 - y2) / 2
    xp, yp = cp * dx + sp * dy, -sp * dx + cp * dy
    lam = xp * xp / (rx * rx) + yp * yp / (ry * ry)
    if lam > 1:
        rx, ry = rx * math.sqrt(lam), ry * math.sqrt(lam)
    num = rx * rx * ry * ry - rx * rx * yp * yp - ry * ry * xp * xp
    den = rx * rx * yp * yp + ry * ry * xp * xp
    co = math.sqrt(max(0.0, num / den)) if den else 0.0
    if large == sweep:
        co = -co
    cxp, cyp = co * rx * yp / ry, -co * ry * xp / rx
    cx, cy = cp * cxp - sp * cyp + (x1 + x2) / 2, sp * cxp + cp * cyp + (y1 + y2) / 2

    def angle(ux: float, uy: float, vx: float, vy: float) -> float:
        a = math.atan2(ux * vy - uy * vx, ux * vx + uy * vy)
        return a

    t1 = angle(1, 0, (xp - cxp) / rx, (yp - cyp) / ry)
    dt = angle((xp - cxp) / rx, (yp - cyp) / ry, (-xp - cxp) / rx, (-yp - cyp) / ry)
    if not sweep and dt > 0:
        dt -= 2 * math.pi
    elif sweep and dt < 0:
        dt += 2 * math.pi
    n = max(1, math.ceil(abs(dt) / (math.pi / 2)))
    step = dt / n
    k = 4 / 3 * math.tan(step / 4)
    out = []
    t = t1
    for _ in range(n):
        c1, s1, c2, s2 = math.cos(t), math.sin(t), math.cos(t + step), math.sin(t + step)
        pts = [(c1 - k * s1, s1 + k * c1), (c2 + k * s2, s2 - k * c2), (c2, s2)]
        seg = []
        for ux, uy in pts:
            px, py = rx * ux, ry * uy
            seg += [cp * px - sp * py + cx, sp * px + cp * py + cy]
        out.append(tuple(seg))
        t += step
    return out


def _path_ops(d: str) -> list[tuple[object, ...]]:
    """The `d` attribute as absolute M/L/C/Z operations (quadratics raised to cubics, arcs approximated)."""
    tokens = _CMD.findall(d)
    ops: list[tuple[object, ...]] = []
    i = 0
    cmd = ""
    x = y = sx = sy = 0.0
    last_c: tuple[float, float] | None = None  # the previous cubic's second control point (for S)
    last_q: tuple[float, float] | None = None  # the previous quadratic's control point (for T)

    def nums(n: int) -> list[float]:
        nonlocal i
        if i + n > len(tokens) or any(t.isalpha() for t in tokens[i:i + n]):
            raise SvgError(f"path data ends early near `{' '.join(tokens[max(0, i - 3):i + 3])}`")
        out = [float(t) for t in tokens[i:i + n]]
        i += n
        return out

    while i < len(tokens):
        if tokens[i].isalpha():
            cmd = tokens[i]
            i += 1
            if cmd in "Zz":
                ops.append(("Z",))
                x, y = sx, sy
                last_c = last_q = None
                continue
        elif not cmd:
            raise SvgError("path data does not start with a command")
        rel = cmd.islower()
        c = cmd.upper()
        ox, oy = (x, y) if rel else (0.0, 0.0)
        if c == "M":
            px, py = nums(2)
            x, y = ox + px, oy + py
            sx, sy = x, y
            ops.append(("M", x, y))
            cmd = "l" if rel else "L"  # further pairs are line-tos
            last_c = last_q = None
        elif c in "LHV":
            if c == "L":
                px, py = nums(2)
                x, y = ox + px, oy + py
            elif c == "H":
                x = ox + nums(1)[0]
            else:
                y = oy + nums(1)[0]
            ops.append(("L", x, y))
            last_c = last_q = None
        elif c in "CS":
            if c == "C":
                x1, y1, x2, y2, px, py = nums(6)
                x1, y1 = ox + x1, oy + y1
            else:
                x2, y2, px, py = nums(4)
                x1, y1 = (2 * x - last_c[0], 2 * y - last_c[1]) if last_c else (x, y)
            x2, y2, px, py = ox + x2, oy + y2, ox + px, oy + py
            ops.append(("C", x1, y1, x2, y2, px, py))
            last_c, last_q = (x2, y2), None
            x, y = px, py
        elif c in "QT":
            if c == "Q":
                qx, qy, px, py = nums(4)
                qx, qy = ox + qx, oy + qy
            else:
                px, py = nums(2)
                qx, qy = (2 * x - last_q[0], 2 * y - last_q[1]) if last_q else (x, y)
            px, py = ox + px, oy + py
            ops.append(("C", x + 2 / 3 * (qx - x), y + 2 / 3 * (qy - y), px + 2 / 3 * (qx - px),
                        py + 2 / 3 * (qy - py), px, py))
            last_q, last_c = (qx, qy), None
            x, y = px, py
        elif c == "A":
            rx, ry, phi, large, sweep, px, py = nums(7)
            px, py = ox + px, oy + py
            for seg in _arc(x, y, rx, ry, phi, bool(large), bool(sweep), px, py):
                ops.append(("C", *seg))
            x, y = px, py
            last_c = last_q = None
        else:
            raise SvgError(f"path command `{cmd}` is not supported")
    return ops


def _ellipse(cx: float, cy: float, rx: float, ry: float) -> list[tuple[object, ...]]:
    k = 0.5522847498
    return [("M", cx + rx, cy), ("C", cx + rx, cy + k * ry, cx + k * rx, cy + ry, cx, cy + ry),
            ("C", cx - k * rx, cy + ry, cx - rx, cy + k * ry, cx - rx, cy),
            ("C", cx - rx, cy - k * ry, cx - k * rx, cy - ry, cx, cy - ry),
            ("C", cx + k * rx, cy - ry, cx + rx, cy - k * ry, cx + rx, cy), ("Z",)]


def _f(el: ET.Element, name: str, default: float = 0.0) -> float:
    m = _NUM.match(el.get(name, "") or "")
    return float(m.group()) if m else default


def _shape_ops(el: ET.Element, tag: str) -> list[tuple[object, ...]]:
    if tag == "path":
        return _path_ops(el.get("d", ""))
    if tag == "rect":
        x, y, w, h = _f(el, "x"), _f(el, "y"), _f(el, "width"), _f(el, "height")
        return [("M", x, y), ("L", x + w, y), ("L", x + w, y + h), ("L", x, y + h), ("Z",)]
    if tag == "circle":
        r = _f(el, "r")
        return _ellipse(_f(el, "cx"), _f(el, "cy"), r, r)
    if tag == "ellipse":
        return _ellipse(_f(el, "cx"), _f(el, "cy"), _f(el, "rx"), _f(el, "ry"))
    if tag == "line":
        return [("M", _f(el, "x1"), _f(el, "y1")), ("L", _f(el, "x2"), _f(el, "y2"))]
    if tag in ("polygon", "polyline"):
        v = [float(n) for n in _NUM.findall(el.get("points", ""))]
        pts = list(zip(v[0::2], v[1::2], strict=False))
        if not pts:
            return []
        ops: list[tuple[object, ...]] = [("M", *pts[0]), *(("L", *p) for p in pts[1:])]
        return ops + [("Z",)] if tag == "polygon" else ops
    return []


def read_svg(path: Path) -> list[Shape]:
    """The outlines of an SVG file, scaled from its viewBox into the unit box with y up."""
    try:
        root = ET.parse(path).getroot()
    except (ET.ParseError, OSError) as e:
        raise SvgError(f"cannot read {path.name}: {e}") from e
    vb = [float(v) for v in _NUM.findall(root.get("viewBox", ""))]
    if len(vb) != 4:
        vb = [0.0, 0.0, _f(root, "width", 24), _f(root, "height", 24)]
    vx, vy, vw, vh = vb
    scale = 1 / max(vw, vh) if max(vw, vh) > 0 else 1.0
    # viewBox -> unit box, y flipped, centred on the shorter side
    base: Matrix = (scale, 0, 0, -scale, -vx * scale + (1 - vw * scale) / 2, (vy + vh) * scale + (1 - vh * scale) / 2)
    shapes: list[Shape] = []

    def walk(el: ET.Element, m: Matrix, inherited_fill: str, inherited_width: float) -> None:
        tag = el.tag.rsplit("}", 1)[-1]
        m = _mul(_transform(el.get("transform", "")), m)
        style = dict(p.split(":", 1) for p in (el.get("style") or "").replace(" ", "").split(";") if ":" in p)
        fill = style.get("fill", el.get("fill", inherited_fill))
        sw = _NUM.match(style.get("stroke-width", el.get("stroke-width", "")) or "")
        width = float(sw.group()) if sw else inherited_width
        if tag in ("defs", "title", "desc", "metadata", "style", "clipPath", "mask"):
            return
        ops = _shape_ops(el, tag)
        if ops:
            out: list[tuple[object, ...]] = []
            for op in ops:
                if op[0] == "Z":
                    out.append(op)
                    continue
                coords = [float(v) for v in op[1:]]  # type: ignore[arg-type]
                pts = []
                for px, py in zip(coords[0::2], coords[1::2], strict=True):
                    pts += [m[0] * px + m[2] * py + m[4], m[1] * px + m[3] * py + m[5]]
                out.append((op[0], *pts))
            stroke = fill == "none" or tag in ("line", "polyline")
            shapes.append(Shape(tuple(out), stroke, width * abs(m[0]) if stroke else 0.0))
        for child in el:
            walk(child, m, fill, width)

    walk(root, base, "black", 1.0)
    if not shapes:
        raise SvgError(f"{path.name} draws nothing an icon can use (path, rect, circle, ellipse, polygon, line)")
    return shapes


def painter(shapes: list[Shape]) -> Callable[[Canvas, float, float, float], None]:
    """A function that draws the shapes in a box `s` points wide whose bottom-left is (x, y)."""

    def paint(c: Canvas, x: float, y: float, s: float) -> None:
        for shape in shapes:
            p = c.beginPath()
            for op in shape.ops:
                kind, *v = op
                pts = [x + float(v[i]) * s if i % 2 == 0 else y + float(v[i]) * s for i in range(len(v))]  # type: ignore[arg-type]
                if kind == "M":
                    p.moveTo(*pts)
                elif kind == "L":
                    p.lineTo(*pts)
                elif kind == "C":
                    p.curveTo(*pts)
                else:
                    p.close()
            if shape.stroke:
                c.saveState()
                c.setLineWidth(max(0.2, shape.width * s))
                c.drawPath(p, stroke=1, fill=0)
                c.restoreState()
            else:
                c.drawPath(p, stroke=0, fill=1, fillMode=1)  # nonzero winding, as SVG's default

    return paint
