"""The two optimisation levels, for tests that run at both.

:func:`at_level` sets the level Codes are built at when none is given (what
``PYJIT_OPTIMIZE`` sets for a process), for the duration of a ``with`` block; the
``loop`` fixture of ``conftest.py`` runs every test that uses it at both.
"""

from __future__ import annotations

import contextlib
from typing import Iterator

from pyjit import code as _code

__all__ = ["LEVELS", "at_level"]

#: The levels by the names the tests use for them (and their test ids).
LEVELS = {"O0": False, "O1": True}


@contextlib.contextmanager
def at_level(level: str) -> Iterator[None]:
    saved = _code._DEFAULT_OPTIMIZE
    _code._DEFAULT_OPTIMIZE = LEVELS[level]
    try:
        yield
    finally:
        _code._DEFAULT_OPTIMIZE = saved
