"""Imposition: where every card and every back sits on the paper, in millimetres, and where the marks go.

Pure geometry, no drawing: the renderer draws exactly these placements, and the tests read them back
to check that each back lands behind its front after the chosen flip. Coordinates follow PDF: origin
at the bottom-left of the page, y up; a placement's (x, y) is the bottom-left of the card's trim box.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

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
    reach: tuple[float, float, float, float] = (0.0, 0.0, 0.0, 0.0)  # bleed drawn left, bottom, right, top (mm)
    round: bool = False  # cut round: the bleed is a ring, clipped to a circle


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
    gutter: float = 0.0  # mm between neighbouring trim boxes

    @property
    def per_page(self) -> int:
        return self.cols * self.rows


def gutters(s: PrintSettings, round_cut: bool) -> list[float]:
    """The gaps between cards to try, widest first: a full bleed each (separate cuts), then the densest the
    bleed allows (rectangles share their cut lines; round tokens keep one bleed apart so no ring reaches a
    neighbour). `--layout gutter=MM` fixes it."""
    if s.gutter is not None:
        return [s.gutter]
    dense = s.bleed if round_cut else 0.0
    return [2 * s.bleed, dense] if dense < 2 * s.bleed else [dense]


def fit(w: float, h: float, s: PrintSettings, round_cut: bool = False) -> Grid | None:
    """The orientation, grid and gutter that hold the most cards (wider gutter, then portrait, on a tie).

    The grid plus the outer bleed stays inside the printer's margin; crop marks go in what is left around
    it (over the outer bleed where the paper is tight). `--layout CxR` asks for a grid: None if it does not fit.
    """
    pw, ph = s.paper_size
    reserve = s.margin + s.bleed  # each side: the outer bleed, then the printer's margin
    options = []
    if s.orientation in ("auto", "portrait"):
        options.append((pw, ph))
    if s.orientation in ("auto", "landscape"):
        options.append((ph, pw))
    best: Grid | None = None
    for gutter in gutters(s, round_cut):
        for W, H in options:
            usable_w = W - 2 * reserve
            if s.duplex == "fold":
                usable_w = W / 2 - reserve - FOLD_GUTTER
            cols = max(0, int((usable_w + gutter + 1e-9) // (w + gutter)))
            rows = max(0, int((H - 2 * reserve + gutter + 1e-9) // (h + gutter)))
            if s.layout_cols:
                if cols < s.layout_cols or rows < s.layout_rows:
                    continue
                cols, rows = s.layout_cols, s.layout_rows
            grid = Grid(W, H, cols, rows, gutter)
            if grid.per_page and (best is None or grid.per_page > best.per_page):
                best = grid
    return best


def impose(count: int, w: float, h: float, s: PrintSettings, round_cut: bool = False) -> list[Page]:
    """Pages for `count` cards of one size: fronts, each followed by its backs page (or fold pages).

    Never an empty page: no cards, no pages. Raises ValueError if the card does not fit the paper.
    """
    grid = fit(w, h, s, round_cut)
    if grid is None:
        raise ValueError("card does not fit the paper")
    pages: list[Page] = []
    for start in range(0, count, grid.per_page):
        slots = range(start, min(count, start + grid.per_page))
        fronts = _front_positions(slots, w, h, grid, s, round_cut)
        if s.duplex == "fold":
            page = Page(grid.width, grid.height, "fold", fronts + [_mirror_x(p, grid.width) for p in fronts])
            page.fold_line = Segment(grid.width / 2, 0, grid.width / 2, grid.height)
            pages.append(page)
        else:
            pages.append(Page(grid.width, grid.height, "front", fronts))
            if s.duplex != "none":
                pages.append(Page(grid.width, grid.height, "back", [_back(p, grid, s) for p in fronts]))
    for page in pages:
        page.placements = _with_reach(page.placements, s.bleed, grid.gutter)
        page.marks = crop_marks(page, s)
        if s.cut_lines:
            page.cut_lines = full_cut_lines(page)
    return pages


def _with_reach(placements: list[Placement], bleed: float, gutter: float) -> list[Placement]:
    """How far each card's bleed may be drawn on each side: all of it towards the paper's edge, half the
    gutter towards a neighbour (so no card's bleed covers another card)."""
    inner = min(bleed, gutter / 2)
    # one size per page: a neighbour sits exactly one card plus the gutter away (looked up, not searched)
    at = {(round(p.x, 3), round(p.y, 3), p.side) for p in placements}
    aligned = placements_aligned(placements)
    out = []
    for p in placements:
        reach = []
        for dx, dy in ((-1, 0), (0, -1), (1, 0), (0, 1)):
            key = (round(p.x + dx * (p.w + gutter), 3), round(p.y + dy * (p.h + gutter), 3), p.side)
            near = key in at or (not aligned and any(
                q is not p and q.side == p.side and _neighbour(p, q, dx, dy, gutter) for q in placements))
            reach.append(inner if near and not p.round else bleed)
        out.append(replace(p, reach=(reach[0], reach[1], reach[2], reach[3])))
    return out


def placements_aligned(placements: list[Placement]) -> bool:
    """Whether every placement has the same size (then neighbours are found by position)."""
    return len({(p.w, p.h) for p in placements}) <= 1


def _neighbour(p: Placement, q: Placement, dx: int, dy: int, gutter: float) -> bool:
    eps = 1e-6
    if dx:
        gap = q.x - (p.x + p.w) if dx > 0 else p.x - (q.x + q.w)
        overlap = min(p.y + p.h, q.y + q.h) - max(p.y, q.y)
    else:
        gap = q.y - (p.y + p.h) if dy > 0 else p.y - (q.y + q.h)
        overlap = min(p.x + p.w, q.x + q.w) - max(p.x, q.x)
    return -eps <= gap <= gutter + eps and overlap > eps


def _front_positions(slots: range, w: float, h: float, grid: Grid, s: PrintSettings,
                     round_cut: bool) -> list[Placement]:
    g = grid.gutter
    cols = min(grid.cols, len(slots))  # a last, partly filled page is centred on what it holds
    rows = -(-len(slots) // grid.cols)
    block_w, block_h = cols * w + (cols - 1) * g, rows * h + (rows - 1) * g
    if s.duplex == "fold":
        left = (grid.width / 2 - FOLD_GUTTER - s.bleed - block_w) / 2 + s.bleed
    else:
        left = (grid.width - block_w) / 2
    top = grid.height - (grid.height - block_h) / 2
    out = []
    for i, slot in enumerate(slots):
        row, col = divmod(i, grid.cols)
        x = left + col * (w + g)
        y = top - row * (h + g) - h
        out.append(Placement(slot, round(x, 6), round(y, 6), w, h, "front", round=round_cut))
    return out


def _mirror_x(p: Placement, width: float) -> Placement:
    return Placement(p.slot, round(width - p.x - p.w, 6), p.y, p.w, p.h, "back", round=p.round)


def _mirror_y(p: Placement, height: float) -> Placement:
    return Placement(p.slot, p.x, round(height - p.y - p.h, 6), p.w, p.h, "back", rotated=True, round=p.round)


def flips_x(width: float, height: float, duplex: str) -> bool:
    """Whether turning the sheet over mirrors left-right (else top-bottom).

    `long`: the sheet turns over its long edge, so a portrait page mirrors left-right; `short` the other.
    """
    portrait = width <= height
    return (duplex == "long") == portrait


def _back(p: Placement, grid: Grid, s: PrintSettings) -> Placement:
    b = _mirror_x(p, grid.width) if flips_x(grid.width, grid.height, s.duplex) else _mirror_y(p, grid.height)
    dx, dy = s.back_offset  # right and down, as seen on the printed back
    return Placement(b.slot, round(b.x + dx, 6), round(b.y - dy, 6), b.w, b.h, "back", b.rotated, round=b.round)


def unflip(back: Placement, width: float, height: float, s: PrintSettings) -> tuple[float, float]:
    """Where a back's trim box lands on the front side once the sheet is turned over (offset removed)."""
    dx, dy = s.back_offset
    x, y = back.x - dx, back.y + dy
    if s.duplex == "fold" or flips_x(width, height, s.duplex):
        return round(width - x - back.w, 6), y
    return x, round(height - y - back.h, 6)


MIN_MARK = 2.0  # mm: a shorter crop mark is hard to find


def crop_marks(page: Page, s: PrintSettings) -> list[Segment]:
    """Marks on all four sides of the grid, so that any first cut leaves a full set.

    Every trim line gets a mark at both ends, outside the cards' trim, inside the printer's margin. A mark
    starts `mark_gap` beyond the outer bleed; where the paper is too tight for that (poker cards 3x3 on
    US Letter) it starts closer, over the bleed that is cut away anyway (it is drawn with a white edge).
    """
    if s.mark_length <= 0 or not page.placements:
        return []
    ps = page.placements
    tx1, ty1 = min(p.x for p in ps), min(p.y for p in ps)
    tx2, ty2 = max(p.x + p.w for p in ps), max(p.y + p.h for p in ps)

    def span(room: float) -> tuple[float, float] | None:
        """(start, end) of a mark as distances from the trim edge, given the room up to the paper's margin."""
        start = s.bleed + s.mark_gap
        end = min(start + s.mark_length, room)
        if end - start < min(MIN_MARK, s.mark_length):
            start = max(0.5, end - max(MIN_MARK, min(s.mark_length, 3.0)))
        return (start, end) if end - start >= 1.0 - 1e-9 else None

    top, bottom = span(page.height - s.margin - ty2), span(ty1 - s.margin)
    left, right = span(tx1 - s.margin), span(page.width - s.margin - tx2)
    xs = sorted({v for p in ps for v in (p.x, p.x + p.w)})
    ys = sorted({v for p in ps for v in (p.y, p.y + p.h)})
    marks = []
    for x in xs:
        if top:
            marks.append(Segment(x, ty2 + top[0], x, ty2 + top[1]))
        if bottom:
            marks.append(Segment(x, ty1 - bottom[0], x, ty1 - bottom[1]))
    for y in ys:
        if left:
            marks.append(Segment(tx1 - left[0], y, tx1 - left[1], y))
        if right:
            marks.append(Segment(tx2 + right[0], y, tx2 + right[1], y))
    return marks


def full_cut_lines(page: Page) -> list[Segment]:
    xs = sorted({v for p in page.placements for v in (p.x, p.x + p.w)})
    ys = sorted({v for p in page.placements for v in (p.y, p.y + p.h)})
    return [Segment(x, 0, x, page.height) for x in xs] + [Segment(0, y, page.width, y) for y in ys]
