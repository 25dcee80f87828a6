"""Incremental builds: a rebuild with nothing changed does nothing, changing one card redraws only that card's
faces, and what a rebuild reuses is byte for byte what a fresh build makes."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from cardc.build import MARKER
from cardc.buildcache import CACHE_DIR, TAG

from tests.conftest import ROOT

FIXTURE = ROOT / "tests" / "fixtures" / "export"


def _build(content: Path, out: Path, *extra: str) -> str:
    run = subprocess.run([sys.executable, "-m", "cardc", "build", str(content), "--out", str(out), *extra],
                         capture_output=True, text=True, env={**os.environ, "NO_COLOR": "1"}, timeout=600)
    assert run.returncode == 0, run.stderr
    return run.stderr


def _tree(out: Path) -> dict[str, os.stat_result]:
    return {p.relative_to(out).as_posix(): p.stat() for p in sorted(out.rglob("*"))
            if p.is_file() and CACHE_DIR not in p.relative_to(out).parts}


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    base = tmp_path_factory.mktemp("cache")
    content = base / "content"
    shutil.copytree(FIXTURE, content)
    out = base / "out"
    first = _build(content, out)
    assert "up to date" not in first and "built " in first
    return content, out


def test_cache_is_tagged_and_not_in_the_marker(built: tuple[Path, Path]) -> None:
    _, out = built
    assert (out / CACHE_DIR / TAG).read_text(encoding="utf-8").startswith("Signature: 8a477f597d28d172789f06886806bc55")
    assert CACHE_DIR not in (out / MARKER).read_text(encoding="utf-8")


def test_nothing_changed_writes_nothing(built: tuple[Path, Path]) -> None:
    content, out = built
    before = _tree(out)
    again = _build(content, out)
    assert "is up to date" in again
    assert "W500" in again or "provisional" in again  # the last build's diagnostics are shown again
    after = _tree(out)
    assert after.keys() == before.keys()
    assert all(after[k].st_ino == before[k].st_ino and after[k].st_mtime_ns == before[k].st_mtime_ns for k in after)


def test_one_card_edit_redraws_only_its_faces(built: tuple[Path, Path], tmp_path: Path) -> None:
    content, out = built
    cards = content / "tavern" / "cards.cardc"
    text = cards.read_text(encoding="utf-8")
    assert '"Plum brandy"' in text
    cards.write_text(text.replace('"Plum brandy"', '"Damson spirit"'), encoding="utf-8")
    try:
        before = _tree(out)
        old_bytes = {k: (out / k).read_bytes() for k in before if k.startswith("print/png/")}
        log = _build(content, out)
        after = _tree(out)
    finally:
        cards.write_text(text, encoding="utf-8")
    assert "up to date" not in log
    pngs = [k for k in after if k.startswith("print/png/")]
    changed = {k for k in pngs if k not in before or (out / k).read_bytes() != old_bytes[k]}
    assert changed == {"print/png/tavern-en/slivovice.png"}, changed  # its screen face is inside it
    # every other card image (at print's dpi and on screen) came from the cache, not drawn again
    assert f"{len(pngs)} images ({len(pngs) - 1} reused)" in log, log
    # what was reused is exactly what a fresh build of the edited content makes
    fresh_content = tmp_path / "content"
    shutil.copytree(content, fresh_content)
    (fresh_content / "tavern" / "cards.cardc").write_text(text.replace('"Plum brandy"', '"Damson spirit"'),
                                                          encoding="utf-8")
    fresh = tmp_path / "fresh"
    _build(fresh_content, fresh)
    fresh_tree = _tree(fresh)
    assert fresh_tree.keys() == after.keys()
    differ = [k for k in after if (out / k).read_bytes() != (fresh / k).read_bytes()]
    # the Tabletop Simulator saved objects name their output folder (file:/// URLs), nothing else may differ
    assert all(k.startswith("export/tts/") and k.endswith(".json") for k in differ), differ


def test_a_shared_back_is_one_file_with_the_cache_too(built: tuple[Path, Path]) -> None:
    # With the build's cache, the copies of a face were each copied out of the cache (20,000 files of a shared
    # back at 10,000 cards); they are second names of the one file the build wrote, as without a cache.
    _, out = built
    backs = sorted((out / "print" / "png" / "tavern-cs").glob("*-back.png"))
    by_bytes: dict[bytes, set[int]] = {}
    for back in backs:
        by_bytes.setdefault(back.read_bytes(), set()).add(back.stat().st_ino)
    assert len(backs) > len(by_bytes)  # the fixture has backs shared by several cards
    assert all(len(inodes) == 1 for inodes in by_bytes.values())


def test_a_cache_folder_that_is_not_ours_is_kept_and_not_used(built: tuple[Path, Path], tmp_path: Path) -> None:
    content, _ = built
    out = tmp_path / "out"
    _build(content, out, "--only", "ir")
    shutil.rmtree(out / CACHE_DIR)
    (out / CACHE_DIR).mkdir()
    (out / CACHE_DIR / "notes.txt").write_text("mine", encoding="utf-8")
    log = _build(content, out, "--only", "ir")
    assert "up to date" not in log
    assert (out / CACHE_DIR / "notes.txt").read_text(encoding="utf-8") == "mine"
    assert not (out / CACHE_DIR / TAG).exists()


def test_an_output_image_edited_in_place_is_drawn_again_not_reused(tmp_path: Path) -> None:
    # The cache keeps a second name for each image the build wrote (no copy): an output file changed in place
    # changes the cached object too, which the next build must notice and draw again.
    content = tmp_path / "content"
    shutil.copytree(FIXTURE, content)
    out = tmp_path / "out"
    _build(content, out)
    face = out / "print" / "png" / "tavern-en" / "slivovice.png"
    original = face.read_bytes()
    with face.open("r+b") as f:  # the same file, edited where it is (as an image editor saving in place would)
        f.seek(len(original) // 2)
        f.write(b"\0\0\0\0")
    assert face.read_bytes() != original
    log = _build(content, out)
    assert "up to date" not in log
    assert face.read_bytes() == original  # drawn again, not the edited bytes carried over from the cache
    pngs = [k for k in _tree(out) if k.startswith("print/png/")]
    assert f"{len(pngs)} images ({len(pngs) - 1} reused)" in log, log


def test_the_ir_fingerprint_follows_every_source_text(tmp_path: Path) -> None:
    """The backends' cache key of the IR: the same for the same content compiled twice (or no rebuild would ever
    reuse anything), different after any edit of a source, even one the IR's repr (used before) did not show: a
    comment at the end, a procedure (the repr left the procedures out)."""
    from cardc.buildcache import ir_fingerprint
    from cardc.frontend import compile_paths

    content = tmp_path / "content"
    shutil.copytree(FIXTURE, content)
    first, again = (ir_fingerprint(compile_paths([content]).project) for _ in range(2))
    assert first == again
    cards = content / "tavern" / "cards.cardc"
    cards.write_text(cards.read_text(encoding="utf-8") + "\n// a comment at the end\n", encoding="utf-8")
    assert ir_fingerprint(compile_paths([content]).project) != first
