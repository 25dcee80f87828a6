"""The reference and the gallery in a real browser: headless Chromium driven by Playwright.

Playwright's own browser download does not work on these machines, so the test drives the
distribution's `chromium` (installed by `.ci/run`). Without it the test is skipped, unless
CARDC_REQUIRE_BROWSER=1 (as in CI), when it fails instead. A screenshot goes to test-artifacts/.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from cardc.backends import BuildOptions
from cardc.backends.reference import write_reference
from cardc.frontend import FrontEndResult

ROOT = Path(__file__).resolve().parent.parent
ARTIFACTS = ROOT / "test-artifacts"
REQUIRED = os.environ.get("CARDC_REQUIRE_BROWSER") == "1"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-dev-shm-usage", "--no-first-run", "--disable-extensions"]


def chromium_path() -> str | None:
    for candidate in ("/usr/bin/chromium", shutil.which("chromium"), shutil.which("chromium-browser")):
        if candidate and Path(candidate).is_file():
            return candidate
    return None


def _unavailable(reason: str) -> None:
    if REQUIRED:
        pytest.fail(f"{reason} (CARDC_REQUIRE_BROWSER=1)")
    pytest.skip(reason)


SITE_OPTIONS = BuildOptions(settings={"print.png_dpi": "100", "print.rulebook": "false"})


@pytest.fixture(scope="module")
def site(bundled: FrontEndResult, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The reference as `cardc build` writes it: next to the print backend's PNGs, which the gallery shows."""
    from cardc.backends.print import write_print

    out = tmp_path_factory.mktemp("site")
    write_print(bundled.project, out, SITE_OPTIONS)
    write_reference(bundled.project, out, SITE_OPTIONS)
    return out / "reference"


@pytest.fixture(scope="module")
def browser():  # noqa: ANN201 - a Playwright browser
    executable = chromium_path()
    if executable is None:
        _unavailable("chromium is not installed")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _unavailable("playwright is not installed (pip install -e '.[dev]')")
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=executable, args=ARGS)
        try:
            yield b
        finally:
            b.close()


def _open(browser, url: str):  # noqa: ANN001, ANN202
    page = browser.new_page(viewport={"width": 1280, "height": 1000})
    problems: list[str] = []
    page.on("console", lambda m: problems.append(f"{m.type}: {m.text}") if m.type in ("error", "warning") else None)
    page.on("pageerror", lambda e: problems.append(f"pageerror: {e}"))
    page.on("requestfailed", lambda r: problems.append(f"request failed: {r.url}"))
    page.route("http*://**", lambda route: (problems.append(f"network: {route.request.url}"), route.abort()))
    page.goto(url)
    page.wait_for_load_state("load")
    return page, problems


def test_reference_index_opens_without_errors(browser, site: Path) -> None:  # noqa: ANN001
    page, problems = _open(browser, (site / "karak" / "en" / "index.html").as_uri())
    assert page.title().startswith("Karak")
    page.click("text=Karak: Regent")
    page.wait_for_load_state("load")
    assert page.url.endswith("/karak/en/regent.html")
    assert page.locator("#e-valduk").count() == 1
    assert problems == []
    page.close()


def test_gallery_filters_to_one_kind(browser, site: Path) -> None:  # noqa: ANN001
    page, problems = _open(browser, (site / "karak" / "en" / "gallery.html").as_uri())
    cards = page.locator("article.card")
    total = cards.count()
    assert total > 10
    assert page.locator("#filters").is_visible()  # JavaScript showed the filters
    page.select_option("#filter-kind", "monster")
    visible = page.locator("article.card:visible")
    shown = visible.count()
    assert 0 < shown < total
    kinds = visible.evaluate_all("cards => cards.map(c => c.getAttribute('data-kinds').split(' '))")
    assert all("monster" in k for k in kinds)
    hidden_kinds = page.locator("article.card[hidden]").evaluate_all(
        "cards => cards.map(c => c.getAttribute('data-kinds').split(' '))")
    assert hidden_kinds and all("monster" not in k for k in hidden_kinds)
    assert page.locator("#shown-count").inner_text() == str(shown)
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "gallery-karak-en-monsters.png"), full_page=True)
    assert (ARTIFACTS / "gallery-karak-en-monsters.png").stat().st_size > 1000
    page.select_option("#filter-kind", "")
    assert page.locator("article.card:visible").count() == total
    assert problems == []
    page.close()


def test_gallery_shows_the_print_pngs_front_and_back(browser, site: Path) -> None:  # noqa: ANN001
    """The gallery's image of a card is the print backend's PNG, cropped to the trim: compared pixel by pixel."""
    from PIL import Image, ImageChops, ImageStat

    page, problems = _open(browser, (site / "karak" / "en" / "gallery.html").as_uri())
    card = page.locator("#card-e-dragon")
    card.scroll_into_view_if_needed()
    front, back = card.locator(".face.front img"), card.locator(".face.back img")
    page.wait_for_function("img => img.complete && img.naturalWidth > 0", arg=front.element_handle())
    page.wait_for_function("img => img.complete && img.naturalWidth > 0", arg=back.element_handle())
    png = site.parent / "print" / "png" / "karak-en" / "dragon.png"
    assert front.get_attribute("src").endswith("print/png/karak-en/dragon.png")
    assert back.get_attribute("src").endswith("print/png/karak-en/dragon-back.png")
    with Image.open(png) as im:
        printed = im.convert("RGB")
    assert front.evaluate("img => [img.naturalWidth, img.naturalHeight]") == list(printed.size)
    shot = ARTIFACTS / "gallery-dragon-front.png"
    ARTIFACTS.mkdir(exist_ok=True)
    card.locator(".face.front .trim").screenshot(path=str(shot))
    with Image.open(shot) as im:
        shown = im.convert("RGB")
    # the PNG holds trim + 3 mm bleed; the gallery shows the trim: crop the same and compare at the shown size
    w, h = printed.size
    bleed = round(w * 3 / (40 + 6))
    trimmed = printed.crop((bleed, bleed, w - bleed, h - bleed)).resize(shown.size, Image.LANCZOS)
    diff = ImageChops.difference(shown, trimmed).convert("L")
    inner = diff.crop((diff.width // 6, diff.height // 6, diff.width * 5 // 6, diff.height * 5 // 6))
    assert ImageStat.Stat(inner).mean[0] < 12, "the gallery's image differs from the printed PNG"
    assert problems == []
    page.close()


def test_gallery_search_filters_in_the_url_and_empty_message(browser, site: Path) -> None:  # noqa: ANN001
    url = (site / "karak" / "en" / "gallery.html").as_uri()
    page, problems = _open(browser, url)
    total = page.locator("article.card").count()
    page.fill("#filter-q", "skeleton")
    shown = page.locator("article.card:visible")
    assert 0 < shown.count() < total
    assert all("skeleton" in s for s in shown.evaluate_all("cs => cs.map(c => c.getAttribute('data-search'))"))
    page.select_option("#filter-kind", "monster")
    assert "q=skeleton" in page.url and "kind=monster" in page.url  # the view is in the URL
    kept = page.url
    page.fill("#filter-q", "zzqxj no such card")
    assert page.locator("article.card:visible").count() == 0
    assert page.locator("#no-match").is_visible()
    assert page.locator("#shown-count").inner_text() == "0"
    page.close()
    # opening the kept URL restores the same view
    again, more = _open(browser, kept)
    assert again.locator("#filter-q").input_value() == "skeleton"
    assert again.locator("#filter-kind").input_value() == "monster"
    assert 0 < again.locator("article.card:visible").count() < total
    assert not again.locator("#no-match").is_visible()
    assert problems == [] and more == []
    again.close()


def test_gallery_prints_cards_at_their_real_size(browser, site: Path) -> None:  # noqa: ANN001
    page, problems = _open(browser, (site / "karak" / "en" / "gallery.html").as_uri())
    page.emulate_media(media="print")
    assert not page.locator("#filters").is_visible()
    box = page.locator("#card-e-dragon .face.front .trim").bounding_box()
    assert box is not None and abs(box["width"] - 40 * 96 / 25.4) < 1  # 40 mm token at 96 CSS px per inch
    adjust = page.locator("#card-e-dragon .face.front .trim").evaluate("e => getComputedStyle(e).printColorAdjust")
    assert adjust == "exact"
    pdf = page.pdf(format="A4", print_background=True)
    assert pdf[:4] == b"%PDF"
    assert problems == []
    page.close()
