"""Leak checks: how much memory a piece of code keeps after it ran."""

from __future__ import annotations

import gc
import tracemalloc
from typing import Callable

__all__ = ["traced_growth"]


def traced_growth(run: Callable[[int], object], times: int, warmup: int = 0) -> int:
    """Bytes still allocated (tracemalloc: objects and raw allocations alike) after
    ``run(times)``, relative to before it; ``run(warmup)`` fills caches first.
    tracemalloc makes every allocation slow, so callers give modest counts."""
    tracemalloc.start()
    try:
        if warmup:
            run(warmup)
        gc.collect()
        before = tracemalloc.get_traced_memory()[0]
        run(times)
        gc.collect()
        return tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
