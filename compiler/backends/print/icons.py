"""Inline icons (`:sword:` in card text), drawn as small vector shapes standing on the text baseline.

Each icon fills a box `size` wide and tall whose bottom edge is the baseline, so an icon on a line of
its own sits exactly where a letter would.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from reportlab.pdfgen.canvas import Canvas

ICON_EM = 0.8  # icon height in em: a little above the capital letters
ICON_ADVANCE = 0.95  # horizontal room an icon takes in em, side bearings included

Painter = Callable[[Canvas, float, float, float], None]


def _path(c: Canvas, points: list[tuple[float, float]], x: float, y: float, s: float) -> None:
    p = c.beginPath()
    p.moveTo(x + points[0][0] * s, y + points[0][1] * s)
    for px, py in points[1:]:
        p.lineTo(x + px * s, y + py * s)
    p.close()
    c.drawPath(p, stroke=0, fill=1)


def _sword(c: Canvas, x: float, y: float, s: float) -> None:
    _path(c, [(0.12, 0.0), (0.22, 0.0), (0.9, 0.78), (0.95, 0.95), (0.78, 0.9), (0.1, 0.22), (0.0, 0.12)], x, y, s)
    _path(c, [(0.12, 0.42), (0.42, 0.12), (0.48, 0.18), (0.18, 0.48)], x, y, s)


def _shield(c: Canvas, x: float, y: float, s: float) -> None:
    _path(c, [(0.5, 0.0), (0.88, 0.3), (0.9, 0.9), (0.5, 1.0), (0.1, 0.9), (0.12, 0.3)], x, y, s)


def _heart(c: Canvas, x: float, y: float, s: float) -> None:
    c.circle(x + 0.28 * s, y + 0.66 * s, 0.24 * s, stroke=0, fill=1)
    c.circle(x + 0.72 * s, y + 0.66 * s, 0.24 * s, stroke=0, fill=1)
    _path(c, [(0.06, 0.58), (0.5, 0.0), (0.94, 0.58), (0.5, 0.7)], x, y, s)


def _key(c: Canvas, x: float, y: float, s: float) -> None:
    c.circle(x + 0.25 * s, y + 0.6 * s, 0.22 * s, stroke=0, fill=1)
    c.rect(x + 0.4 * s, y + 0.54 * s, 0.58 * s, 0.12 * s, stroke=0, fill=1)
    c.rect(x + 0.78 * s, y + 0.3 * s, 0.1 * s, 0.26 * s, stroke=0, fill=1)


def _die(c: Canvas, x: float, y: float, s: float) -> None:
    c.roundRect(x + 0.05 * s, y + 0.05 * s, 0.9 * s, 0.9 * s, 0.15 * s, stroke=1, fill=0)
    for px, py in ((0.3, 0.7), (0.5, 0.5), (0.7, 0.3)):
        c.circle(x + px * s, y + py * s, 0.08 * s, stroke=0, fill=1)


def _star(c: Canvas, x: float, y: float, s: float) -> None:
    _path(c, [(0.5, 1.0), (0.62, 0.62), (1.0, 0.62), (0.69, 0.38), (0.81, 0.0), (0.5, 0.24), (0.19, 0.0),
              (0.31, 0.38), (0.0, 0.62), (0.38, 0.62)], x, y, s)


def _spark(c: Canvas, x: float, y: float, s: float) -> None:
    _path(c, [(0.5, 1.0), (0.6, 0.6), (1.0, 0.5), (0.6, 0.4), (0.5, 0.0), (0.4, 0.4), (0.0, 0.5), (0.4, 0.6)],
          x, y, s)


def _drop(c: Canvas, x: float, y: float, s: float) -> None:
    c.circle(x + 0.5 * s, y + 0.33 * s, 0.3 * s, stroke=0, fill=1)
    _path(c, [(0.22, 0.42), (0.5, 1.0), (0.78, 0.42)], x, y, s)


def _coin(c: Canvas, x: float, y: float, s: float) -> None:
    c.circle(x + 0.5 * s, y + 0.5 * s, 0.45 * s, stroke=0, fill=1)


def _skull(c: Canvas, x: float, y: float, s: float) -> None:
    c.circle(x + 0.5 * s, y + 0.58 * s, 0.4 * s, stroke=0, fill=1)
    c.rect(x + 0.3 * s, y + 0.0, 0.4 * s, 0.3 * s, stroke=0, fill=1)


def _arrow(c: Canvas, x: float, y: float, s: float) -> None:
    _path(c, [(0.0, 0.4), (0.55, 0.4), (0.55, 0.15), (1.0, 0.5), (0.55, 0.85), (0.55, 0.6), (0.0, 0.6)], x, y, s)


ICONS: dict[str, Painter] = {
    "sword": _sword, "attack": _sword, "weapon": _sword,
    "shield": _shield, "defense": _shield,
    "heart": _heart, "life": _heart, "lives": _heart,
    "key": _key,
    "die": _die, "dice": _die, "roll": _die,
    "star": _star, "experience": _star,
    "spell": _spark, "magic": _spark, "will": _drop, "strength": _sword,
    "coin": _coin, "treasure": _coin, "gold": _coin,
    "skull": _skull, "monster": _skull,
    "arrow": _arrow, "move": _arrow, "step": _arrow, "exits": _arrow,
    "fountain": _drop, "portal": _spark,
}


def draw_icon(c: Canvas, name: str, x: float, baseline: float, size_pt: float) -> bool:
    """Draw icon `name` with its box's bottom-left at (x, baseline); False (and a placeholder) if unknown."""
    s = ICON_EM * size_pt
    x += (ICON_ADVANCE - ICON_EM) * size_pt / 2
    painter = ICONS.get(name)
    if painter is None:
        c.circle(x + s / 2, baseline + s / 2, s / 2, stroke=1, fill=0)
        return False
    painter(c, x, baseline, s)
    return True


SVG_PROBLEMS: dict[str, str] = {}  # icon name -> why its SVG file could not be used


def register_svg(path: Path, root: Path) -> str:
    """Make a designer's SVG file usable as `:name:` (its file name without `.svg`); returns the name.

    Bundled icons keep their names; a content icon of the same name replaces a bundled one for drawing.
    """
    from cardc.backends.print.svgicon import SvgError, painter, read_svg

    name = path.stem.lower().replace("-", "_").replace(" ", "_")
    key = str(path.resolve())
    if _SVG_LOADED.get(name) == key:
        return name
    try:
        ICONS[name] = painter(read_svg(path))
        SVG_PROBLEMS.pop(name, None)
    except SvgError as e:
        SVG_PROBLEMS[name] = str(e)
        ICONS.pop(name, None)
    _SVG_LOADED[name] = key
    return name


_SVG_LOADED: dict[str, str] = {}
