"""`cardc watch`: a real watcher process, a real browser (Playwright + Debian's Chromium, as in
test_browser.py) on its preview; editing a card's name changes the open page by itself, a broken file shows
its diagnostic in a banner and in the terminal, the fix removes the banner."""

from __future__ import annotations

import os
import queue
import re
import shutil
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import ROOT
from tests.test_browser import ARGS, _unavailable, chromium_path

FIXTURE = ROOT / "tests" / "fixtures" / "export"
STARTUP_S = 180  # the first build, on a loaded machine


class Watcher:
    """`cardc watch` in a subprocess; its terminal output collected line by line."""

    def __init__(self, content: Path, tmp: Path) -> None:
        env = {**os.environ, "TMPDIR": str(tmp), "NO_COLOR": "1"}
        self.proc = subprocess.Popen([sys.executable, "-m", "cardc", "watch", str(content), "--port", "0"],
                                     stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True, env=env)
        self.lines: queue.Queue[str] = queue.Queue()
        self.output: list[str] = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stderr is not None
        for line in self.proc.stderr:
            self.output.append(line)
            self.lines.put(line)

    def wait_for(self, pattern: str, timeout: float = STARTUP_S) -> re.Match[str]:
        while True:
            try:
                line = self.lines.get(timeout=timeout)
            except queue.Empty:
                raise AssertionError(f"no line like {pattern!r}; output:\n{''.join(self.output)}") from None
            found = re.search(pattern, line)
            if found:
                return found

    def stop(self) -> int:
        self.proc.terminate()
        return self.proc.wait(timeout=60)


@pytest.fixture
def browser() -> Iterator[Any]:
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


def test_edit_reloads_the_page_and_problems_show_in_a_banner(browser: Any, tmp_path: Path) -> None:
    content = tmp_path / "content"
    shutil.copytree(FIXTURE, content)
    cards = content / "tavern" / "cards.cardc"
    original = cards.read_text(encoding="utf-8")
    temp = tmp_path / "tmp"
    temp.mkdir()
    watcher = Watcher(content, temp)
    try:
        url = watcher.wait_for(r"serving (http://127\.0\.0\.1:\d+/)").group(1)
        page = browser.new_page()
        page.goto(url + "tavern/en/gallery.html")
        assert "Plum brandy" in page.inner_text("body")

        cards.write_text(original.replace("Plum brandy", "Damson spirit"), encoding="utf-8")
        page.wait_for_function("document.body.innerText.includes('Damson spirit')", timeout=STARTUP_S * 1000)
        assert "Plum brandy" not in page.inner_text("body")
        assert page.query_selector("#cardc-banner") is None

        broken = original.replace("Plum brandy", "Damson spirit").replace("  strength: 3", "  strenght: 3")
        cards.write_text(broken, encoding="utf-8")
        banner = page.wait_for_selector("#cardc-banner", timeout=STARTUP_S * 1000)
        assert banner is not None
        text = banner.inner_text()
        assert "not built: 1 error" in text and "error[E201]" in text and "strenght" in text
        assert "did you mean `strength`?" in text
        assert "Damson spirit" in page.inner_text("body")  # the last good build stays
        watcher.wait_for(r"error\[E201\]")  # the same diagnostic in the terminal, with its place
        assert any(re.search(r"cards\.cardc:\d+:\d+: error\[E201\]", line) for line in watcher.output)

        cards.write_text(original, encoding="utf-8")
        page.wait_for_function("document.body.innerText.includes('Plum brandy')", timeout=STARTUP_S * 1000)
        assert page.query_selector("#cardc-banner") is None
    finally:
        code = watcher.stop()
    assert code == 0
    assert list(temp.iterdir()) == []  # its temporary build folder is gone
