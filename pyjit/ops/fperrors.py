"""numpy's floating-point error reports, silenced around tensor operators.

numpy warns (``RuntimeWarning: divide by zero encountered``) where an operation
produces an infinity or a NaN; torch computes the same values silently.  So
every generic tensor operator runs between :func:`enter` and :func:`leave`,
with numpy's error handling set to ``ignore`` for the current context only
(what ``numpy.errstate(all="ignore")`` does, nothing global changes)::

    token = enter()
    try:
        return ufunc(a, b, out=...)
    finally:
        leave(token)

numpy 2 keeps that setting in a context variable; setting it directly costs
about a tenth of entering ``numpy.errstate``, which matters on small tensors.
Where that variable is not available (numpy 1.x) ``numpy.errstate`` itself is
used.
"""

from __future__ import annotations

import numpy as np

__all__ = ["enter", "leave", "ignoring"]

try:
    from numpy._core.umath import _extobj_contextvar, _make_extobj
except ImportError:  # numpy < 2: no context variable; errstate is the public way
    def enter():
        state = np.errstate(all="ignore")
        state.__enter__()
        return state

    def leave(state) -> None:
        state.__exit__(None, None, None)
else:
    _QUIET = _make_extobj(all="ignore")
    _set = _extobj_contextvar.set
    leave = _extobj_contextvar.reset

    def enter():
        """Ignore floating-point errors until :func:`leave` is given the token."""
        return _set(_QUIET)


class ignoring:
    """``with ignoring():`` -- :func:`enter`/:func:`leave` as a context manager, for
    the heavier operators (a fresh one each time: it holds its token)."""

    __slots__ = ("_token",)

    def __enter__(self) -> None:
        self._token = enter()

    def __exit__(self, *exc_info) -> None:
        leave(self._token)
