"""`loader.display_path`: how diagnostics and spans show a file. Its fast path (the text after the working folder)
gives what the path arithmetic gives, for paths below the folder, beside it, above it, relative, with `..`."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from cardc.loader import display_path
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st


def _by_paths(path: Path) -> str:
    """The reading before the fast path."""
    cwd = Path.cwd()
    if path.is_relative_to(cwd):
        return Path(os.path.relpath(path, cwd)).as_posix()
    return path.as_posix()


_parts = st.lists(st.sampled_from(["a", "b", "..", ".", "c d", "..x", "x..", "é", "", "content", "h19"]),
                  max_size=5)


@settings(max_examples=300, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(where=st.sampled_from(["", "a", "a/b", "content"]), absolute=st.booleans(), parts=_parts)
def test_display_path_is_the_relative_path(tmp_path: Path, where: str, absolute: bool, parts: list[str]) -> None:
    """(`tmp_path` is shared by the examples: each only makes folders in it.)"""
    cwd = tmp_path / where
    cwd.mkdir(parents=True, exist_ok=True)
    before = os.getcwd()
    os.chdir(cwd)
    try:
        base = tmp_path if absolute else Path()
        path = base.joinpath(*parts) if parts else base
        assert display_path(path) == _by_paths(path)
        assert display_path(cwd / "f.cardc") == "f.cardc"
    finally:
        os.chdir(before)


@pytest.mark.parametrize("rel", ["x.cardc", "a/b.cardc", "../x.cardc", "a/../b.cardc", ".", ""])
def test_display_path_of_fixed_paths(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, rel: str) -> None:
    monkeypatch.chdir(tmp_path)
    for path in (tmp_path / rel, Path(rel), tmp_path.parent / rel):
        assert display_path(path) == _by_paths(path)


@pytest.mark.skipif(os.sep != "/", reason="POSIX paths")
def test_paths_resolved_in_remembered_folders_are_what_resolve_gives(tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """`loader._resolve` (a folder's resolution remembered for one load) against `Path.resolve`: plain files,
    missing ones, symbolic links to files and folders, `..` after a linked folder, relative paths, a loop."""
    from cardc.loader import _resolve

    (tmp_path / "a" / "b").mkdir(parents=True)
    (tmp_path / "c").mkdir()
    (tmp_path / "a" / "b" / "x.cardc").write_text("", encoding="utf-8")
    (tmp_path / "c" / "y.cardc").write_text("", encoding="utf-8")
    (tmp_path / "link-b").symlink_to(tmp_path / "a" / "b")
    (tmp_path / "a" / "link-y.cardc").symlink_to(tmp_path / "c" / "y.cardc")
    (tmp_path / "a" / "rel-y.cardc").symlink_to(Path("..") / "c" / "y.cardc")
    (tmp_path / "loop").symlink_to(tmp_path / "loop")
    monkeypatch.chdir(tmp_path / "a")
    paths = [tmp_path / "a" / "b" / "x.cardc", tmp_path / "a" / "b" / "none.cardc", tmp_path / "link-b" / "x.cardc",
             tmp_path / "link-b" / ".." / "link-y.cardc", tmp_path / "link-b" / ".." / "c" / "y.cardc",
             tmp_path / "a" / "link-y.cardc", tmp_path / "a" / "rel-y.cardc", tmp_path / "a" / "b" / "..",
             tmp_path / "a" / ".", Path("b") / "x.cardc", Path("link-y.cardc"), Path("..") / "link-b" / "x.cardc",
             Path("x.cardc"), tmp_path / "a" / "b" / "x.cardc" / "under-a-file.cardc", Path("/")]
    folders: dict[str, Path] = {}
    for _ in range(2):  # the second time from remembered folders
        for path in paths:
            assert _resolve(path, folders) == path.resolve(), path
    with pytest.raises(RuntimeError):
        (tmp_path / "loop" / "z.cardc").resolve()
    with pytest.raises(RuntimeError):
        _resolve(tmp_path / "loop" / "z.cardc", folders)
