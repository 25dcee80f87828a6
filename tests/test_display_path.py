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
