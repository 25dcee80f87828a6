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


@pytest.fixture(scope="module")
def site(bundled: FrontEndResult, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("site")
    write_reference(bundled.project, out, BuildOptions())
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
