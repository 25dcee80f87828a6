"""The cyclic garbage collector paused around a backend's phases that make few cycles but keep many objects.

Such a phase (print's faces and rulebooks, the reference's pages, the export) builds plans and layouts that live
until it ends: each collection walked them again (3 s of print's 90 s at 10,000 cards, for 1,300 cyclic objects
found; 0.85 s of the reference's 8 s, for 480). Reference counting still frees everything else at once.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

_frozen = 0  # how many `frozen` blocks are open: `gc.get_freeze_count()` counts the frozen objects one by one


@contextmanager
def frozen() -> Iterator[None]:
    """Every object alive now out of the collector's sight (`gc.freeze`) until the block ends (`gc.unfreeze`)."""
    global _frozen
    gc.freeze()
    _frozen += 1
    try:
        yield
    finally:
        _frozen -= 1
        gc.unfreeze()


@contextmanager
def paused() -> Iterator[None]:
    """No cyclic collections inside; afterwards the collector is as it was (off stays off). Inside a build, whose
    heap is frozen and unfrozen when the backends end (`build.frozen_heap`), what the phase made is frozen too, so
    the next collection does not walk it all at once either (inside `frozen`, which unfreezes it at its end)."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if _frozen:
            gc.freeze()
        if collecting:
            gc.enable()
