"""What the process opens while a test watches: an audit hook (added once, for
the whole session) that records the files opened in this thread inside
:func:`watch`."""

from __future__ import annotations

import contextlib
import sys
import threading

_opened: list = []
_watching = threading.local()


def _audit(event: str, args: tuple) -> None:
    if event == "open" and getattr(_watching, "on", False):
        _opened.append(args[0])


sys.addaudithook(_audit)   # for the whole session; it records only inside watch()


@contextlib.contextmanager
def watch():
    """The files opened in this thread inside the block: ``with watch() as opened``."""
    del _opened[:]
    _watching.on = True
    try:
        yield _opened
    finally:
        _watching.on = False
