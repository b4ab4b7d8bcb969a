"""Alarms for the tests that check a run stops on a signal."""

from __future__ import annotations

import contextlib
import signal
from typing import Callable, Iterator

import pytest

__all__ = ["needs_setitimer", "alarm"]

#: Skips a test on platforms without interval timers.
needs_setitimer = pytest.mark.skipif(not hasattr(signal, "setitimer"),
                                     reason="needs signal.setitimer")


@contextlib.contextmanager
def alarm(seconds: float, raise_: Callable[[], BaseException]) -> Iterator[None]:
    """Within the block, SIGALRM comes after ``seconds`` and its handler raises
    ``raise_()``; the timer and the previous handler are restored on the way out."""
    def handler(signum, frame):
        raise raise_()

    old = signal.signal(signal.SIGALRM, handler)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
