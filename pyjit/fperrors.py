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

Even directly, setting the variable and resetting it costs about as much as a
ufunc on 16 elements, and it makes numpy's next lookup of the setting miss its
cache.  So a *run* of a graph whose operators ignore the errors sets it once
(:mod:`pyjit.interpreter` calls :func:`enter` around a run of a Code whose
``quiet_fp`` is true: some of its operators were declared with
:func:`prefers_quiet_run`), and inside it :func:`enter` finds the setting made
and sets nothing (one lookup), and the library's direct ufunc calls
(:mod:`pyjit.ops.ufunc_direct`) call numpy straight.  Every operator still works
outside a run, setting it per call.  An operator of the user's that runs inside
such a run sees numpy's errors ignored too; one that wants numpy's reports sets
its own ``numpy.errstate``.

A run sets one more thing of numpy's for its time, when its graph computes on
tensors: the data allocator, to the *run arena* of :mod:`pyjit.ops.kernels`,
which keeps the blocks of big arrays when they are freed for the next arrays
of their size (numpy's ``PyDataMem_SetHandler``, NEP 49, which is also set for
the current context only).  :func:`run_settings` says what a Code's runs set,
:func:`run_enter` and :func:`run_leave` set and undo it; this module knows the
arena only as the handler and the setter :func:`use_run_arena` gave it.
"""

from __future__ import annotations

import numpy as np

__all__ = ["enter", "leave", "ignoring", "QUIET", "CONTEXT_VAR", "is_quiet",
           "prefers_quiet_run", "wants_quiet_run", "QUIET_RUN", "ARENA_RUN", "run_settings",
           "run_enter", "run_leave", "use_run_arena"]

try:
    from numpy._core.umath import _extobj_contextvar, _make_extobj
except ImportError:  # numpy < 2: no context variable; errstate is the public way
    #: numpy's setting with every error ignored, and the context variable holding
    #: the current one (None without numpy 2: then no run sets it, nothing is quiet).
    QUIET = CONTEXT_VAR = None

    def enter():
        state = np.errstate(all="ignore")
        state.__enter__()
        return state

    def leave(state) -> None:
        state.__exit__(None, None, None)
else:
    QUIET = _make_extobj(all="ignore")
    CONTEXT_VAR = _extobj_contextvar
    _set = _extobj_contextvar.set
    _get = _extobj_contextvar.get
    _reset = _extobj_contextvar.reset

    def enter():
        """Ignore floating-point errors until :func:`leave` is given the token: None
        when this module ignores them already (inside a run), with nothing to undo."""
        if _get() is QUIET:
            return None
        return _set(QUIET)

    def leave(token) -> None:
        """Undo the :func:`enter` that gave ``token``."""
        if token is not None:
            _reset(token)


class ignoring:
    """``with ignoring():`` -- :func:`enter`/:func:`leave` as a context manager, for
    the heavier operators (a fresh one each time: it holds its token)."""

    __slots__ = ("_token",)

    def __enter__(self) -> None:
        self._token = enter()

    def __exit__(self, *exc_info) -> None:
        leave(self._token)


def is_quiet() -> bool:
    """Whether floating-point errors are ignored by :func:`enter` in this context
    now (an equal setting made otherwise does not count)."""
    return CONTEXT_VAR is not None and _get() is QUIET


# The ids of the callables that run faster inside a quiet run, kept alive here
# (ids, not the callables: a user's callback need not be hashable).
_PREFER_QUIET = {}


def prefers_quiet_run(fn):
    """Declare that ``fn`` runs faster inside a run that ignores floating-point
    errors once (it calls :func:`enter` or checks :func:`is_quiet` itself, so it is
    right either way); returns ``fn``."""
    _PREFER_QUIET[id(fn)] = fn
    return fn


def wants_quiet_run(callbacks) -> bool:
    """Whether a Code calling ``callbacks`` should run between :func:`enter` and
    :func:`leave`: some of them were declared with :func:`prefers_quiet_run`."""
    return CONTEXT_VAR is not None and any(id(cb) in _PREFER_QUIET for cb in callbacks)


# -- what a run sets for its time ------------------------------------------------------
#: A run ignores numpy's floating-point errors (the Code's ``quiet_fp``).
QUIET_RUN = 1
#: A run allocates numpy's data from the run arena (its graph has tensors).
ARENA_RUN = 2

# The run arena's numpy handler and the function that installs a handler in the
# current context, returning the one it replaces; None until pyjit.ops.kernels
# gives them (a build without the compiled kernels has no arena).
_arena = None


def use_run_arena(handler, set_handler) -> None:
    """Make ``handler`` numpy's data allocator during the runs that ask for
    :data:`ARENA_RUN`, installed by ``set_handler(handler) -> previous``
    (``None``: no arena)."""
    global _arena
    _arena = None if handler is None else (handler, set_handler)


def run_settings(quiet: bool, tensors: bool) -> int:
    """What a run of a Code sets: :data:`QUIET_RUN` if ``quiet``, :data:`ARENA_RUN`
    if its graph computes on ``tensors``; 0 for nothing (a scalar graph)."""
    return (QUIET_RUN if quiet else 0) | (ARENA_RUN if tensors else 0)


def run_enter(settings: int):
    """Set what ``settings`` (:func:`run_settings`) asks, until :func:`run_leave`
    is given the token this returns."""
    token = enter() if settings & QUIET_RUN else None
    arena = _arena
    if settings & ARENA_RUN and arena is not None:
        set_handler = arena[1]
        try:
            # (the setter kept with the token: run_leave undoes this very setting)
            return (token, set_handler, set_handler(arena[0]))
        except BaseException:
            leave(token)
            raise
    return token


def run_leave(state) -> None:
    """Undo the :func:`run_enter` that gave ``state``."""
    if type(state) is tuple:
        token, set_handler, previous = state
        set_handler(previous)
        leave(token)
    else:
        leave(state)
