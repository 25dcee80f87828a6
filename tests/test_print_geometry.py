"""Geometry of the print sheets: backs coincide with their fronts after the flip (read back from the
PDF's own drawing operators and from the imposition), marks survive the first cut, grids fit and centre."""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path

import pytest
from cardc.backends import BuildOptions
from cardc.backends.print import run
from cardc.backends.print.imposition import fit, impose, unflip
from cardc.backends.print.settings import PrintSettings
from cardc.frontend import compile_paths
from pypdf import PdfReader
from pypdf.generic import ContentStream

ROOT = Path(__file__).resolve().parent.parent
MM = 72 / 25.4
TOL = 0.1  # mm


def _mul(a: list[float], b: list[float]) -> list[float]:
    """PDF matrix product a x b for [a b c d e f] matrices."""
    return [a[0] * b[0] + a[1] * b[2], a[0] * b[1] + a[1] * b[3], a[2] * b[0] + a[3] * b[2],
            a[2] * b[1] + a[3] * b[3], a[4] * b[0] + a[5] * b[2] + b[4], a[4] * b[1] + a[5] * b[3] + b[5]]


def card_rects(reader: PdfReader, index: int) -> list[tuple[float, float, float, float]]:
    """The bleed boxes (mm, x1 y1 x2 y2) where page `index` draws a card form, from its content stream."""
    page = reader.pages[index]
    xobjects = page["/Resources"].get("/XObject", {})
    ops = ContentStream(page.get_contents(), reader).operations
    ctm = [1.0, 0, 0, 1.0, 0, 0]
    stack: list[list[float]] = []
    rects = []
    for operands, op in ops:
        if op == b"q":
            stack.append(ctm)
        elif op == b"Q":
            ctm = stack.pop()
        elif op == b"cm":
            ctm = _mul([float(v) for v in operands], ctm)
        elif op in (b"Do", b"BDC") and (op == b"Do" or operands[0] == "/CardcFace"):
            if op == b"Do":
                bbox = [float(v) for v in xobjects[operands[0]].get_object()["/BBox"]]
            else:  # a face drawn in place (printed once): its cell size is in the marked content's properties
                bbox = [0.0, 0.0, float(operands[1]["/W"]), float(operands[1]["/H"])]
            xs, ys = [], []
            for x, y in ((bbox[0], bbox[1]), (bbox[2], bbox[3])):
                xs.append(ctm[0] * x + ctm[2] * y + ctm[4])
                ys.append(ctm[1] * x + ctm[3] * y + ctm[5])
            rects.append((min(xs) / MM, min(ys) / MM, max(xs) / MM, max(ys) / MM))
    return rects


def _flip(rect: tuple[float, float, float, float], w: float, h: float, mirror_x: bool, off: tuple[float, float]):
    x1, y1, x2, y2 = rect[0] - off[0], rect[1] + off[1], rect[2] - off[0], rect[3] + off[1]
    return (w - x2, y1, w - x1, y2) if mirror_x else (x1, h - y2, x2, h - y1)


@pytest.mark.parametrize("duplex,offset", [("long", "0,0"), ("short", "0,0"), ("long", "1.5,-0.8")])
def test_backs_coincide_with_fronts_in_the_pdf(tmp_path: Path, duplex: str, offset: str) -> None:
    old = Path.cwd()
    os.chdir(ROOT)
    try:
        project = compile_paths([Path("tests/fixtures/print")]).project
    finally:
        os.chdir(old)
    settings = {"print.duplex": duplex, "print.back_offset": offset, "print.png": "no"}
    _diags, sheets = run(project, tmp_path, BuildOptions(settings=settings))
    off = tuple(float(v) for v in offset.split(","))
    checked = 0
    for sheet in sheets:
        reader = PdfReader(sheet.path)
        assert len(reader.pages) % 2 == 0
        for i in range(0, len(reader.pages), 2):
            w = float(reader.pages[i].mediabox.width) / MM
            h = float(reader.pages[i].mediabox.height) / MM
            fronts = card_rects(reader, i)
            backs = card_rects(reader, i + 1)
            assert fronts and len(fronts) == len(backs)
            portrait = w <= h
            mirror_x = (duplex == "long") == portrait
            flipped = sorted(_flip(r, w, h, mirror_x, off) for r in backs)
            for a, b in zip(sorted(fronts), flipped, strict=True):
                assert max(abs(u - v) for u, v in zip(a, b, strict=True)) < TOL, (sheet.path.name, i, a, b)
                checked += 1
    assert checked > 10


@pytest.mark.parametrize("duplex", ["long", "short", "fold"])
@pytest.mark.parametrize("paper", ["a4", "letter"])
@pytest.mark.parametrize("size", [(63, 88), (44, 68), (70, 120), (30, 30), (105, 148), (70, 70)])
def test_imposition_backs_fit_marks_and_centring(duplex: str, paper: str, size: tuple[int, int]) -> None:
    s = replace(PrintSettings(), duplex=duplex, paper=paper, back_offset=(0.7, -0.4) if duplex != "fold" else (0, 0))
    w, h = size
    grid = fit(w, h, s)
    assert grid is not None
    count = grid.per_page * 2 + 1  # two full pages and one card on a third
    pages = impose(count, w, h, s)
    per_sheet = 1 if duplex == "fold" else 2
    assert len(pages) == 3 * per_sheet
    assert all(p.placements for p in pages)  # never an empty page
    fronts = {p.slot: p for page in pages for p in page.placements if p.side == "front"}
    backs = {p.slot: (p, page) for page in pages for p in page.placements if p.side == "back"}
    assert sorted(fronts) == sorted(backs) == list(range(count))
    for slot, front in fronts.items():
        back, page = backs[slot]
        x, y = unflip(back, page.width, page.height, s)
        assert abs(x - front.x) < TOL and abs(y - front.y) < TOL
    for page in pages:
        x1, y1, x2, y2 = page.box(s.bleed)
        # everything within the paper, marks outside the bleed and inside the printer's margin
        assert 0 <= x1 and x2 <= page.width and 0 <= y1 and y2 <= page.height
        xs = {v for p in page.placements for v in (p.x, p.x + p.w)}
        ys = {v for p in page.placements for v in (p.y, p.y + p.h)}
        tx1, ty1, tx2, ty2 = page.box(0)
        for m in page.marks:
            for mx, my in ((m.x1, m.y1), (m.x2, m.y2)):
                assert s.margin - 1e-6 <= mx <= page.width - s.margin + 1e-6
                assert s.margin - 1e-6 <= my <= page.height - s.margin + 1e-6
                # outside every card's trim (over the outer bleed only where the paper is tight)
                assert not (tx1 < mx < tx2 and ty1 < my < ty2)
            assert abs(m.x2 - m.x1) + abs(m.y2 - m.y1) >= 1.0 - 1e-9
        # every trim line has a mark on both sides: whatever the first cut, a full set remains
        for x in xs:
            ends = [m for m in page.marks if m.x1 == m.x2 == x]
            assert any(m.y1 > ty2 for m in ends) and any(m.y1 < ty1 for m in ends)
        for y in ys:
            ends = [m for m in page.marks if m.y1 == m.y2 == y]
            assert any(m.x1 < tx1 for m in ends) and any(m.x1 > tx2 for m in ends)
    first = pages[0]
    if duplex != "fold":
        x1, y1, x2, y2 = first.box(s.bleed)
        assert x1 == pytest.approx(first.width - x2, abs=1e-6)  # centred
        assert y1 == pytest.approx(first.height - y2, abs=1e-6)


def test_poker_cards_fill_a4_and_letter_nine_up() -> None:
    for paper in ("a4", "letter"):
        grid = fit(63, 88, replace(PrintSettings(), paper=paper))
        assert grid is not None and (grid.cols, grid.rows) == (3, 3), paper
        assert grid.gutter == 0  # neighbours share their cut lines: the only way nine fit with 3 mm bleed
        pages = impose(9, 63, 88, replace(PrintSettings(), paper=paper))
        front = pages[0]
        # every trim line still has a mark at both ends, inside the printer's margin
        for x in {v for p in front.placements for v in (p.x, p.x + p.w)}:
            assert len([m for m in front.marks if m.x1 == m.x2 == x]) == 2, (paper, x)
        # a card's bleed never reaches into its neighbour: towards a neighbour it stops at the shared cut
        xs, ys = sorted({p.x for p in front.placements}), sorted({p.y for p in front.placements})
        [middle] = [p for p in front.placements if p.x == xs[1] and p.y == ys[1]]
        assert middle.reach == (0, 0, 0, 0)
        corner = min(front.placements, key=lambda p: (p.x, p.y))
        assert corner.reach[0] == corner.reach[1] == 3.0


def test_layout_option_sets_grid_and_gutter() -> None:
    from cardc.backends.print.settings import parse_settings

    s, diags = parse_settings({"print.layout": "2x2,gutter=4"})
    assert not diags and (s.layout_cols, s.layout_rows, s.gutter) == (2, 2, 4.0)
    grid = fit(63, 88, s)
    assert grid is not None and (grid.cols, grid.rows, grid.gutter) == (2, 2, 4.0)
    pages = impose(4, 63, 88, s)
    xs = sorted({p.x for p in pages[0].placements})
    assert xs[1] - xs[0] == pytest.approx(63 + 4)
    assert fit(63, 88, parse_settings({"print.layout": "5x5"})[0]) is None  # does not fit: refused, not shrunk
    _s, bad = parse_settings({"print.layout": "three by three"})
    assert bad and bad[0].code == "E600"


def test_round_tokens_keep_a_bleed_apart_and_are_clipped_round() -> None:
    s = PrintSettings()
    grid = fit(30, 30, s, round_cut=True)
    assert grid is not None and grid.gutter >= s.bleed
    pages = impose(grid.per_page, 30, 30, s, round_cut=True)
    assert all(p.round for p in pages[0].placements)
