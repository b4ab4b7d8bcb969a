"""The pointwise family's direct path: a ufunc called straight on its operands.

A binary operator of :mod:`pyjit.ops.pointwise` is a generic Python function:
torch's type promotion, its checks and error texts, numpy's floating-point errors
ignored for the call (:mod:`pyjit.fperrors`).  Its most common case -- two
arrays of one dtype, as in ``x * y`` on float32 tensors -- ends in a plain
``ufunc(a, b, out=...)``.  On 16 elements the ufunc costs about 0.35 µs and the
generic function around it as much again (the errors' setting alone 0.2 µs)::

    generic(a, b)                       direct(ufunc, generic, ...)(a, b)
      set errors ignored                  both arrays, dtype d, d in same?
      both arrays, one dtype?             errors ignored already (by the run)?
      ufunc(a, b, out=...)                  yes: ufunc(a, b)
      reset errors                          no:  generic(a, b)

The in-place forms (``x.add_(y)``) are made the same way, with
``ufunc(a, b, out=a)``.

:func:`direct` makes the callable on the right, with the same results, dtypes
and errors as ``generic`` (anything the ufunc refuses goes to ``generic``, which
raises torch's message).  It runs straight only where a run has set the errors
ignored once for all its operators (:func:`pyjit.fperrors.enter`; the
interpreter does for a Code holding a callable made here), and is ``generic``
elsewhere.  When the library was built, the callable is C
(:mod:`pyjit.ops._ufunc_direct`): no Python frame between the run loop and the
ufunc.  :func:`direct_python` is the reference, and what a build without a
compiler uses.
"""

from __future__ import annotations

from typing import Callable, Optional, Tuple

import numpy as np

from .. import fperrors

__all__ = ["direct", "direct_python", "is_direct", "COMPILED"]

_ndarray = np.ndarray


def direct_python(ufunc: np.ufunc, generic: Callable, same: Optional[Tuple[np.dtype, ...]],
                  with_number: Tuple[np.dtype, ...], var, quiet, into_first: bool) -> Callable:
    """The operator computing ``generic(a, b)`` that calls ``ufunc(a, b)`` itself
    (``ufunc(a, b, out=a)`` if ``into_first``) when numpy's floating-point errors
    are ignored already (``var``, numpy's context variable, holds ``quiet``) and
    the operands are two arrays of one dtype in ``same`` (None: any dtype) or an
    array of a dtype in ``with_number`` and a Python int or float.  A 0-dim
    result comes back as a 0-dim array, as from ``ufunc(a, b, out=...)``;
    anything the ufunc refuses, and every other case, is ``generic``'s.  Dtypes
    are compared by identity: numpy's arrays share one dtype object per builtin
    type, and an equal one that is another object only takes the generic path."""
    get = var.get

    def op(a, b, alpha=None):
        # alpha: the constant 1 of an aten::add/sub node, resolved when the Code
        # was built (the registry chose this callable for that node).
        if type(a) is _ndarray:
            dt = a.dtype
            if type(b) is _ndarray:
                ok = b.dtype is dt and (same is None or any(d is dt for d in same))
            else:
                ok = (type(b) is float or type(b) is int) and any(d is dt for d in with_number)
            if ok and get() is quiet:
                try:
                    if into_first:
                        return ufunc(a, b, out=a)
                    r = ufunc(a, b)
                except Exception:
                    return generic(a, b)  # says it as torch does
                if type(r) is _ndarray:
                    return r
                return ufunc(a, b, out=...)  # 0-dim operands: a numpy scalar came back
        return generic(a, b)
    op.__name__ = op.__qualname__ = generic.__name__
    op.__doc__ = generic.__doc__
    return op


try:
    from ._ufunc_direct import direct as _direct_c
except ImportError:  # built without a compiler (PYJIT_PUREPYTHON=1)
    _direct_c = None

#: Whether :func:`direct` makes C callables.
COMPILED = _direct_c is not None


def direct(ufunc: np.ufunc, generic: Callable, same: Optional[Tuple[np.dtype, ...]] = None,
           with_number: Tuple[np.dtype, ...] = (), into_first: bool = False) -> Callable:
    """``generic`` with ``ufunc`` called straight in the cases :func:`direct_python`
    lists, in C when the library was built; ``generic`` itself where numpy keeps
    no context variable for its errors (numpy < 2).  The callable is declared to
    :func:`~pyjit.fperrors.prefers_quiet_run`, and :func:`is_direct`."""
    if fperrors.CONTEXT_VAR is None:
        return generic
    make = _direct_c if _direct_c is not None else direct_python
    op = make(ufunc, generic, None if same is None else tuple(same), tuple(with_number),
              fperrors.CONTEXT_VAR, fperrors.QUIET, into_first)
    _MADE[id(op)] = op
    return fperrors.prefers_quiet_run(op)


_MADE = {}  # by id, kept alive here: what is_direct recognises


def is_direct(fn: Callable) -> bool:
    """Whether ``fn`` was made by :func:`direct` (the tests ask)."""
    return id(fn) in _MADE
