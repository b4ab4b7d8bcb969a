"""Pausing Python's cyclic garbage collector while a large structure is built.

Parsing a graph and compiling it create several objects per node (the node, its
values, their lists), all of them tracked by the cyclic collector and none of
them garbage.  The collector does not know that: every few hundred allocations
it scans the young objects, and each time the heap has grown by a quarter it
scans everything, so on a graph of a million nodes it spends seconds -- a third
of the whole build -- finding nothing.  :func:`paused` turns it off for the
duration, as one does around a bulk load, and back on afterwards; the next
collection then scans the new objects once.

The collector's switch is global to the process, so pauses are counted: the
first of several overlapping ones (nested, or in other threads) turns the
collector off if it was on, the last one turns it back on.  A program that
switched the collector off itself keeps it off.

Turning it back on is not the end of it: everything made during the pause is
in the youngest generation, and the collections that follow would scan it all
two or three times on its way to the oldest (on a million-node graph, 5-7% of
the whole compile).  So when a pause made many objects (:data:`BULK`), they
are handed to the oldest generation at once, by freezing and unfreezing the
heap (``gc.freeze()`` then ``gc.unfreeze()``: two list splices, no scan).
Young objects from before the pause go with them, which only delays their
collection to the next full one; a program that froze objects itself (as a
pre-forking server does) is left alone, since unfreezing would thaw its objects.
"""

from __future__ import annotations

import contextlib
import gc
import threading
from typing import Iterator

__all__ = ["paused", "BULK"]

#: A pause that leaves at least this many objects in the youngest generation
#: hands them to the oldest (a graph of ~20,000 nodes; see above).
BULK = 100_000

_lock = threading.Lock()
_depth = 0              # pauses under way
_resume = False         # whether the last one to end turns the collector on


@contextlib.contextmanager
def paused() -> Iterator[None]:
    """``with paused():`` no cyclic garbage collection runs inside the block
    (unless code in it calls ``gc.collect()`` itself)."""
    global _depth, _resume
    with _lock:
        if _depth == 0:
            _resume = gc.isenabled()
            gc.disable()
        _depth += 1
    try:
        yield
    finally:
        with _lock:
            _depth -= 1
            if _depth == 0 and _resume:
                if gc.get_count()[0] >= BULK and gc.get_freeze_count() == 0:
                    gc.freeze()
                    gc.unfreeze()
                gc.enable()
