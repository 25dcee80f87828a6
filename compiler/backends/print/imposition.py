"""Imposition: where every card and every back sits on the paper, in millimetres, and where the marks go.

Pure geometry, no drawing: the renderer draws exactly these placements, and the tests read them back
to check that each back lands behind its front after the chosen flip. Coordinates follow PDF: origin
at the bottom-left of the page, y up; a placement's (x, y) is the bottom-left of the card's trim box.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from cardc.backends.print.settings import PrintSettings

FOLD_GUTTER = 2.0  # mm between the fold line and the nearest bleed edge


@dataclass(frozen=True, slots=True)
class Placement:
    slot: int  # index into the list of items being imposed
    x: float
    y: float
    w: float
    h: float
    side: str  # front | back
    rotated: bool = False  # drawn turned by 180 degrees (backs for a flip over the horizontal axis)


@dataclass(frozen=True, slots=True)
class Segment:
    x1: float
    y1: float
    x2: float
    y2: float


@dataclass
class Page:
    width: float
    height: float
    side: str  # front | back | fold
    placements: list[Placement] = field(default_factory=list)
    marks: list[Segment] = field(default_factory=list)
    cut_lines: list[Segment] = field(default_factory=list)
    fold_line: Segment | None = None

    def box(self, bleed: float) -> tuple[float, float, float, float]:
        """The union of the placements' trim boxes grown by `bleed`, as (x1, y1, x2, y2)."""
        ps = self.placements
        return (min(p.x for p in ps) - bleed, min(p.y for p in ps) - bleed,
                max(p.x + p.w for p in ps) + bleed, max(p.y + p.h for p in ps) + bleed)


@dataclass(frozen=True, slots=True)
class Grid:
    width: float  # paper, in the chosen orientation
    height: float
    cols: int
    rows: int

    @property
    def per_page(self) -> int:
        return self.cols * self.rows


def fit(w: float, h: float, s: PrintSettings) -> Grid | None:
    """The orientation and grid that hold the most cards (portrait on a tie), or None if none fits."""
    pw, ph = s.paper_size
    cell_w, cell_h = w + 2 * s.bleed, h + 2 * s.bleed
    reserve = s.margin + s.mark_gap + s.mark_length  # each side: marks, then the printer's margin
    options = []
    if s.orientation in ("auto", "portrait"):
        options.append((pw, ph))
    if s.orientation in ("auto", "landscape"):
        options.append((ph, pw))
    best: Grid | None = None
    for W, H in options:
        usable_w = W - 2 * reserve
        if s.duplex == "fold":
            usable_w = W / 2 - reserve - FOLD_GUTTER
        cols = max(0, int((usable_w + 1e-9) // cell_w))
        rows = max(0, int((H - 2 * reserve + 1e-9) // cell_h))
        grid = Grid(W, H, cols, rows)
        if grid.per_page and (best is None or grid.per_page > best.per_page):
            best = grid
    return best


def impose(count: int, w: float, h: float, s: PrintSettings) -> list[Page]:
    """Pages for `count` cards of one size: fronts, each followed by its backs page (or fold pages).

    Never an empty page: no cards, no pages. Raises ValueError if the card does not fit the paper.
    """
    grid = fit(w, h, s)
    if grid is None:
        raise ValueError("card does not fit the paper")
    pages: list[Page] = []
    for start in range(0, count, grid.per_page):
        slots = range(start, min(count, start + grid.per_page))
        fronts = _front_positions(slots, w, h, grid, s)
        if s.duplex == "fold":
            page = Page(grid.width, grid.height, "fold", fronts + [_mirror_x(p, grid.width) for p in fronts])
            page.fold_line = Segment(grid.width / 2, 0, grid.width / 2, grid.height)
            pages.append(page)
        else:
            pages.append(Page(grid.width, grid.height, "front", fronts))
            if s.duplex != "none":
                pages.append(Page(grid.width, grid.height, "back", [_back(p, grid, s) for p in fronts]))
    for page in pages:
        page.marks = crop_marks(page, s)
        if s.cut_lines:
            page.cut_lines = full_cut_lines(page)
    return pages


def _front_positions(slots: range, w: float, h: float, grid: Grid, s: PrintSettings) -> list[Placement]:
    cell_w, cell_h = w + 2 * s.bleed, h + 2 * s.bleed
    cols = min(grid.cols, len(slots))  # a last, partly filled page is centred on what it holds
    rows = -(-len(slots) // grid.cols)
    if s.duplex == "fold":
        left = (grid.width / 2 - FOLD_GUTTER - cols * cell_w) / 2
    else:
        left = (grid.width - cols * cell_w) / 2
    top = grid.height - (grid.height - rows * cell_h) / 2
    out = []
    for i, slot in enumerate(slots):
        row, col = divmod(i, grid.cols)
        x = left + col * cell_w + s.bleed
        y = top - (row + 1) * cell_h + s.bleed
        out.append(Placement(slot, round(x, 6), round(y, 6), w, h, "front"))
    return out


def _mirror_x(p: Placement, width: float) -> Placement:
    return Placement(p.slot, round(width - p.x - p.w, 6), p.y, p.w, p.h, "back")


def _mirror_y(p: Placement, height: float) -> Placement:
    return Placement(p.slot, p.x, round(height - p.y - p.h, 6), p.w, p.h, "back", rotated=True)


def flips_x(width: float, height: float, duplex: str) -> bool:
    """Whether turning the sheet over mirrors left-right (else top-bottom).

    `long`: the sheet turns over its long edge, so a portrait page mirrors left-right; `short` the other.
    """
    portrait = width <= height
    return (duplex == "long") == portrait


def _back(p: Placement, grid: Grid, s: PrintSettings) -> Placement:
    b = _mirror_x(p, grid.width) if flips_x(grid.width, grid.height, s.duplex) else _mirror_y(p, grid.height)
    dx, dy = s.back_offset  # right and down, as seen on the printed back
    return Placement(b.slot, round(b.x + dx, 6), round(b.y - dy, 6), b.w, b.h, "back", b.rotated)


def unflip(back: Placement, width: float, height: float, s: PrintSettings) -> tuple[float, float]:
    """Where a back's trim box lands on the front side once the sheet is turned over (offset removed)."""
    dx, dy = s.back_offset
    x, y = back.x - dx, back.y + dy
    if s.duplex == "fold" or flips_x(width, height, s.duplex):
        return round(width - x - back.w, 6), y
    return x, round(height - y - back.h, 6)


def crop_marks(page: Page, s: PrintSettings) -> list[Segment]:
    """Marks on all four sides of the grid, outside the bleed, so that any first cut leaves a full set.

    Every trim line gets a mark at both ends; the first cut can take away one side only.
    """
    if s.mark_length <= 0 or not page.placements:
        return []
    x1, y1, x2, y2 = page.box(s.bleed)
    near, far = s.mark_gap, s.mark_gap + s.mark_length
    xs = sorted({v for p in page.placements for v in (p.x, p.x + p.w)})
    ys = sorted({v for p in page.placements for v in (p.y, p.y + p.h)})
    marks = []
    for x in xs:
        marks.append(Segment(x, y2 + near, x, y2 + far))
        marks.append(Segment(x, y1 - near, x, y1 - far))
    for y in ys:
        marks.append(Segment(x1 - near, y, x1 - far, y))
        marks.append(Segment(x2 + near, y, x2 + far, y))
    return marks


def full_cut_lines(page: Page) -> list[Segment]:
    xs = sorted({v for p in page.placements for v in (p.x, p.x + p.w)})
    ys = sorted({v for p in page.placements for v in (p.y, p.y + p.h)})
    return [Segment(x, 0, x, page.height) for x in xs] + [Segment(0, y, page.width, y) for y in ys]
