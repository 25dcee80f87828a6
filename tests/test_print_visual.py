"""Visual check: one page of each kind (and a back page) rendered to PNG and compared with golden images.

Set CARDC_UPDATE_GOLDEN=1 to rewrite the golden images after an intended change; look at them first.
"""

from __future__ import annotations

import os
from pathlib import Path

import pypdfium2 as pdfium
import pytest
from cardc.backends import BuildOptions
from cardc.backends.print import run
from cardc.frontend import compile_paths
from PIL import Image, ImageChops, ImageStat

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = ROOT / "tests" / "golden" / "print"
DPI = 40
KINDS = ["hero", "item", "tile", "event"]


@pytest.fixture(scope="module")
def pages(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Image.Image]:
    old = Path.cwd()
    os.chdir(ROOT)
    try:
        project = compile_paths([Path("tests/fixtures/print")]).project
    finally:
        os.chdir(old)
    out = tmp_path_factory.mktemp("print-visual")
    _diags, sheets = run(project, out, BuildOptions(settings={"print.png": "no"}))
    [sheet] = [s for s in sheets if s.lang == "cs"]
    wanted: dict[str, int] = {}
    for index, page in enumerate(sheet.pages):
        kinds = {sheet.slots[p.slot].kind for p in page.placements}
        for kind in KINDS:
            if kind in kinds and page.side == "front":
                wanted.setdefault(kind, index)
                wanted.setdefault(f"{kind}-back", index + 1)
    pdf = pdfium.PdfDocument(str(sheet.path))
    images = {name: pdf[i].render(scale=DPI / 72).to_pil().convert("RGB") for name, i in wanted.items()
              if name in KINDS or name == "event-back"}
    pdf.close()
    return images


@pytest.mark.parametrize("name", [*KINDS, "event-back"])
def test_page_matches_golden_image(pages: dict[str, Image.Image], name: str) -> None:
    image = pages[name]
    golden = GOLDEN / f"{name}.png"
    if os.environ.get("CARDC_UPDATE_GOLDEN"):
        golden.parent.mkdir(parents=True, exist_ok=True)
        image.save(golden, optimize=True)
    assert golden.is_file(), f"no golden image {golden}; run with CARDC_UPDATE_GOLDEN=1 and inspect it"
    with Image.open(golden) as g:
        expected = g.convert("RGB")
    assert image.size == expected.size
    diff = ImageChops.difference(image, expected).convert("L")
    mean = ImageStat.Stat(diff).mean[0]
    strong = sum(diff.histogram()[64:]) / (diff.width * diff.height)
    assert mean < 1.5 and strong < 0.005, f"{name}: mean difference {mean:.2f}, {strong:.2%} of pixels differ"


def test_a_changed_card_is_caught(pages: dict[str, Image.Image]) -> None:
    """The comparison is sharp enough to see one card's frame change colour."""
    image = pages["event"].copy()
    w, h = image.size
    image.paste((0, 0, 255), (w // 3, h // 3, w // 3 + w // 12, h // 3 + h // 12))
    with Image.open(GOLDEN / "event.png") as g:
        diff = ImageChops.difference(image, g.convert("RGB")).convert("L")
    strong = sum(diff.histogram()[64:]) / (diff.width * diff.height)
    assert strong >= 0.005
