"""What `cardc build` does around its backends, for benches that call a backend directly."""

from __future__ import annotations

import contextlib
from contextlib import AbstractContextManager


def backend_heap() -> AbstractContextManager[None]:
    """`cardc.build.frozen_heap` (the IR out of the cyclic collector's sight) when the measured cardc has it;
    nothing for an older cardc measured side by side (`--before`), so each version runs as its own build does."""
    try:
        from cardc.build import frozen_heap
    except ImportError:
        return contextlib.nullcontext()
    return frozen_heap()
