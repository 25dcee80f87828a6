"""The calibration page, read back from the PDF with pdfium: on the back, every target has an x and a y ruler
with a tick every 0.5 mm over -5..+5 mm, a number at every mm in line with its tick, and no two printed
marks (numbers, signs, ticks) overlap, so the page reads at a glance."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

import pypdfium2 as pdfium
import pytest
from cardc.backends.print.render import draw_calibration
from cardc.backends.print.settings import PrintSettings
from reportlab.lib.units import mm
from reportlab.pdfgen.canvas import Canvas

Box = tuple[float, float, float, float]  # left, bottom, right, top in mm


@pytest.fixture(scope="module", params=["a4", "letter"])
def calibration(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("cal") / f"calibration-{request.param}.pdf"
    c = Canvas(str(path))
    draw_calibration(c, PrintSettings(paper=request.param))
    c.save()
    return path


def _objects(path: Path, index: int) -> tuple[list[Box], list[Box]]:
    """The bounds (mm) of the page's text objects and of its path objects (lines)."""
    pdf = pdfium.PdfDocument(str(path))
    try:
        texts, paths = [], []
        for obj in pdf[index].get_objects():
            box = tuple(v / mm for v in obj.get_bounds())
            (texts if obj.type == pdfium.raw.FPDF_PAGEOBJ_TEXT else paths).append(box)
        return texts, paths  # type: ignore[return-value]
    finally:
        pdf.close()


def _rulers(paths: list[Box], vertical: bool) -> list[list[Box]]:
    """Ticks (thin lines 1-4 mm long) grouped by the ruler line they stand on."""
    groups: dict[float, list[Box]] = defaultdict(list)
    for b in paths:
        thin, long = (b[2] - b[0], b[3] - b[1]) if vertical else (b[3] - b[1], b[2] - b[0])
        if thin < 0.5 and 1.0 < long < 4.5:
            foot = b[1] if vertical else b[0]  # a thicker line's bounds start a little lower
            key = next((k for k in groups if abs(k - foot) < 0.3), foot)
            groups[key].append(b)
    return [sorted(g, key=lambda b: b[0] if vertical else -b[1]) for g in groups.values() if len(g) > 5]


def _overlap(a: Box, b: Box, clearance: float = 0.15) -> bool:
    return a[0] < b[2] + clearance and b[0] < a[2] + clearance and a[1] < b[3] + clearance and b[1] < a[3] + clearance


@pytest.mark.parametrize("index", [1, 3])  # the backs: portrait, landscape
def test_back_rulers_tick_every_half_millimetre_over_five_each_way(calibration: Path, index: int) -> None:
    _texts, paths = _objects(calibration, index)
    for vertical in (True, False):
        rulers = _rulers(paths, vertical)
        assert len(rulers) == 3, (vertical, len(rulers))  # one per target
        for ticks in rulers:
            at = [(b[0] + b[2]) / 2 if vertical else (b[1] + b[3]) / 2 for b in ticks]
            steps = [abs(b - a) for a, b in zip(at, at[1:], strict=False)]
            assert len(ticks) == 21 and all(abs(s - 0.5) < 0.01 for s in steps), steps
            assert abs(abs(at[-1] - at[0]) - 10.0) < 0.01  # -5 .. +5 mm
            lengths = sorted({round(max(b[2] - b[0], b[3] - b[1]) - min(b[2] - b[0], b[3] - b[1]), 1)
                              for b in ticks})  # less the line's width
            assert len(lengths) == 3  # half, odd and even millimetres differ at a glance


@pytest.mark.parametrize("index", [1, 3])
def test_back_numbers_stand_at_their_millimetre_and_touch_nothing(calibration: Path, index: int) -> None:
    texts, paths = _objects(calibration, index)
    marks = [b for b in texts if b[3] < 250 and b[1] > 20]  # the rulers' numbers and signs, not the heading
    for i, a in enumerate(marks):
        for b in marks[i + 1:]:
            assert not _overlap(a, b), (a, b)
        for p in paths:
            assert not _overlap(a, p, 0.05), (a, p)
    for ticks in _rulers(paths, vertical=True):
        zero = (ticks[10][0] + ticks[10][2]) / 2
        base = min(b[1] for b in ticks)
        numbers = [b for b in marks if base < b[1] < base + 12 and abs((b[0] + b[2]) / 2 - zero) < 5.5]
        centres = sorted(round((b[0] + b[2]) / 2 - zero, 2) for b in numbers)
        assert len(centres) == 11 and all(abs(c - k) < 0.1 for c, k in zip(centres, range(-5, 6), strict=True))


def test_front_cross_reaches_the_rulers(calibration: Path) -> None:
    """Seen through the sheet, each front arm crosses its back ruler even when shifted by the 5 mm it reads."""
    pdf = pdfium.PdfDocument(str(calibration))
    width = pdf[0].get_width() / mm
    pdf.close()
    _texts, front = _objects(calibration, 0)
    _texts, back = _objects(calibration, 1)
    arms = [b for b in front if b[3] - b[1] > 20 and b[2] - b[0] < 0.5]  # the vertical arms
    assert len(arms) == 3
    for ticks in _rulers(back, vertical=True):
        x0 = (ticks[10][0] + ticks[10][2]) / 2
        low, high = min(b[1] for b in ticks), max(b[3] for b in ticks)
        arm = [a for a in arms if abs((a[0] + a[2]) / 2 - (width - x0)) < 0.05]  # long-edge duplex mirrors x
        assert len(arm) == 1 and arm[0][1] <= low - 5 and arm[0][3] >= high + 5, (x0, arm)
