"""The build keeps freed memory in the process while its backends run (glibc), and gives it back after."""

from __future__ import annotations

from typing import Any

import pytest
from cardc import build as build_module


class FakeLibc:
    """Records the allocator calls the build makes."""

    def __init__(self) -> None:
        self.calls: list[tuple[Any, ...]] = []

    def mallopt(self, param: int, value: int) -> int:
        self.calls.append(("mallopt", param, value))
        return 1

    def malloc_trim(self, pad: int) -> int:
        self.calls.append(("malloc_trim", pad))
        return 1


def test_freed_memory_kept_while_backends_run_then_given_back(monkeypatch: pytest.MonkeyPatch) -> None:
    libc = FakeLibc()
    monkeypatch.setattr(build_module, "_glibc", lambda: libc)
    seen: list[Any] = []
    with build_module.frozen_heap():
        seen.extend(libc.calls)
    kept = [("mallopt", -3, 32 * 1024 * 1024), ("mallopt", -1, 1024 * 1024 * 1024)]
    assert seen == kept  # set before the first backend runs
    assert libc.calls[2:] == [("mallopt", -3, 128 * 1024), ("mallopt", -1, 128 * 1024), ("malloc_trim", 0)]


def test_given_back_when_a_backend_raises(monkeypatch: pytest.MonkeyPatch) -> None:
    libc = FakeLibc()
    monkeypatch.setattr(build_module, "_glibc", lambda: libc)
    with pytest.raises(KeyError), build_module.frozen_heap():
        raise KeyError("a backend failed")
    assert libc.calls[-1] == ("malloc_trim", 0)


def test_without_glibc_nothing_is_called(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(build_module, "_glibc", lambda: None)
    with build_module.frozen_heap():
        pass  # no allocator to tune: the build runs as before


def test_the_real_allocator_is_found_on_glibc() -> None:
    import os

    try:
        glibc = bool(os.confstr("CS_GNU_LIBC_VERSION"))
    except (ValueError, OSError):
        glibc = False
    libc = build_module._glibc()
    assert (libc is not None) == glibc
    with build_module.frozen_heap():  # the real calls: nothing raises
        pass



_KEEPING_BACKEND = """
import gc
from cardc import build
full = []
gc.callbacks.append(lambda phase, info: full.append(1) if phase == "start" and info["generation"] == 2 else None)
before = gc.get_threshold()
with build.frozen_heap():
    kept, page = [], []
    for i in range(400_000):
        kept.append({"card": i})  # what the backend keeps, one per card
        scaffold = []
        scaffold.append(scaffold)  # a cycle only the collector frees, dropped a page at a time
        page.append(scaffold)
        if len(page) == 5_000:
            page = []
gc.callbacks.clear()
print(len(full), gc.get_threshold() == before)
"""


def test_what_a_backend_keeps_is_not_walked_again_and_again_by_full_collections() -> None:
    """A backend that keeps what it makes (a reference's pages) must not pay a full collection every so many
    allocations: each walks everything kept so far, so the cost per card grew with the cards (fresh process: the
    collector's counts are those of a build's)."""
    import subprocess
    import sys

    out = subprocess.run([sys.executable, "-c", _KEEPING_BACKEND], capture_output=True, text=True, check=True)
    full, restored = out.stdout.split()
    assert int(full) <= 1
    assert restored == "True"  # the process's own setting again afterwards (`cardc watch`)
