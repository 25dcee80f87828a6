"""Shared fixtures: the repository's folders and the bundled content compiled once per session."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from cardc.frontend import FrontEndResult, compile_paths
from hypothesis import settings

# Property tests check behaviour, not speed: a shared or slow machine must not fail them on Hypothesis's
# default 200 ms deadline per example (speed is measured in bench/).
settings.register_profile("cardc", deadline=None)
settings.load_profile("cardc")

# `cardc simulate` called inside the test process must not import the compiled runtime into it (the other tests
# load the Python runtime's modules, and one process runs one runtime) nor build it; tests of the compiled
# runtime ask for it explicitly.
os.environ["CARDC_RUNTIME"] = "python"

ROOT = Path(__file__).resolve().parent.parent
CONTENT = ROOT / "content"
SEEDS = ROOT.parent / "shared" / "seeds"


@pytest.fixture(scope="session")
def repo_root() -> Path:
    return ROOT


@pytest.fixture(scope="session")
def bundled() -> FrontEndResult:
    """The bundled content, checked (from the repository root, so spans read `content/...`)."""
    old = Path.cwd()
    os.chdir(ROOT)
    try:
        return compile_paths([Path("content")])
    finally:
        os.chdir(old)


@pytest.fixture(autouse=True)
def _build_key_read_afresh() -> Iterator[None]:
    """`accel.key()` is read once per process: a test that patches what it reads (mypy's version, say) must
    not leave its key to the tests after it (the build fixtures would then make builds under a key no other
    process asks for, and `cardc simulate` run by a test would compile its own build again)."""
    yield
    from cardc.backends.python import accel

    accel.key.cache_clear()
