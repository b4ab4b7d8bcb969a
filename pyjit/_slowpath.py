"""The rare paths of the run loops, written once for both.

``pyjit._pure`` and ``pyjit._core`` run the same instructions; where an instruction
leaves its common case -- a run that may not start, an operator result of the
wrong shape, a ``STACKCALL`` jump, a value that does not fit a scalar register,
an empty register -- both call the functions here, so the two loops raise the
same exceptions with the same messages, and neither carries a second copy of the
rules.  Nothing here is on a hot path.
"""

from __future__ import annotations

from operator import index as _index
from typing import Any, Callable, List, Sequence

import numpy as np

__all__ = ["checkpoint", "refuse_run", "empty_register", "unpack", "stackcall", "not_a_future",
           "call_returned_null", "unbox_int", "unbox_float", "unbox_bool",
           "DEFAULT_MAX_DEPTH", "check_max_depth", "link", "too_deep", "stack_used_up",
           "load_short", "load_mismatch", "store_too_many", "bad_return"]

_INT64_MIN, _INT64_MAX = -2 ** 63, 2 ** 63 - 1


def checkpoint() -> None:
    """Nothing: the compiled loop calls it now and then (every ``TICK`` backward
    jumps and calls) because CPython, on entering a Python function, runs pending
    signal handlers and gives the GIL to a thread that has waited for it, as its
    own loops do.  A handler's exception propagates from here."""


def stack_used_up(what: str) -> RecursionError:
    """The error for a run that would start with ``what`` (the compiled loop's C
    stack, the pure loop's Python recursion limit) nearly used up: an operator
    running its graph again, deeper than the thread can hold."""
    return RecursionError(f"maximum recursion depth exceeded while running a pyjit graph "
                          f"({what} is nearly used up)")


def refuse_run(stack: Any, failed: bool, running: bool, pc: int) -> None:
    """Raise why ``Frame.run(stack)`` may not run (the caller found one of these)."""
    if type(stack) is not list:
        raise TypeError(f"run() expects a list, got {type(stack).__name__}")
    if failed:
        raise RuntimeError(f"frame is unusable after an error (it failed at pc {pc})")
    if running:
        raise RuntimeError("frame is already running (run() called from one of its callbacks)")


def load_short(k: int, have: int) -> TypeError:
    """LOAD found fewer values than it takes on the caller's stack."""
    return TypeError(f"LOAD takes {k} values but the stack holds {have}")


def load_mismatch(k: int, given: int) -> TypeError:
    """A callee's LOAD takes other than all the values its INVOKE pushed."""
    return TypeError(f"LOAD takes {k} values but the INVOKE that called it gives {given}")


def empty_register(reg: int, pc: int) -> RuntimeError:
    """The error for reading register ``reg``, found empty, at instruction ``pc``."""
    return RuntimeError(f"register {reg} read at pc {pc} is empty")


def not_a_future(future_type: type, value: Any) -> TypeError:
    return TypeError(f"WAIT expects a {future_type.__name__}, got {type(value).__name__}")


def call_returned_null(fn: Any) -> SystemError:
    """A C operator returned NULL without setting an exception."""
    return SystemError(f"{fn!r} returned NULL without setting an exception")


def unpack(result: Any, nout: int, arg: int) -> Sequence[Any]:
    """The ``nout`` values of an operator's tuple or list result, as an exact tuple
    or list (whose length is what it holds)."""
    if not isinstance(result, (tuple, list)):
        raise TypeError(f"operator F[{arg}] returned {type(result).__name__}, "
                        f"expected a tuple or list of {nout} values")
    if type(result) is not tuple and type(result) is not list:
        result = tuple(result)  # a subclass's __len__ may not count what it holds
    if len(result) != nout:
        raise TypeError(f"operator F[{arg}] returned {len(result)} values, expected {nout}")
    return result


def stackcall(fn: Callable, arg: int, values: List[Any], pc: int, n: int,
              takes_condition: Callable[[int], bool], nout: int) -> int:
    """Run a STACKCALL's operator on ``values`` (its inputs; its outputs afterwards,
    in place) and return the next pc.

    The callback may keep the list: on any error its values are cleared, since they
    are the run's to release.
    """
    try:
        off = fn(values)
        # A Python int until range-checked: any offset is a RuntimeError, never
        # an OverflowError.
        target = pc + 1 + (0 if off is None else _index(off))
        if not 0 <= target <= n:
            raise RuntimeError(f"STACKCALL F[{arg}] jumped to {target}, outside [0, {n}]")
        if target < n and takes_condition(target):
            raise RuntimeError(f"STACKCALL F[{arg}] jumped to {target}, a conditional jump "
                               f"that expects a condition on the stack")
        if len(values) != nout:
            raise TypeError(f"STACKCALL F[{arg}] left {len(values)} values, expected {nout}")
    except BaseException:
        values.clear()
        raise
    return target


# -- UNBOX: what a scalar register accepts ----------------------------------------
#
# A value of static type int, float or bool that an operator returns (or a caller
# passes) as a Python object enters a scalar register here.  The exact types go
# through the compiled loop's own fast path; everything else comes here.

def unbox_int(v: Any) -> int:
    """An int-typed value as an int64: Python ints (bools are ints) and numpy
    integers."""
    if isinstance(v, (int, np.integer)):
        i = int(v)
        if _INT64_MIN <= i <= _INT64_MAX:
            return i
        raise OverflowError(f"int value {i} does not fit in int64 (TorchScript's int)")
    raise TypeError(f"expected an int value, got {type(v).__name__}")


def unbox_float(v: Any) -> float:
    """A float-typed value as a double: Python floats and ints, numpy floating and
    integers."""
    if isinstance(v, (float, int, np.floating, np.integer)) and not isinstance(
            v, (bool, np.bool_)):
        return float(v)
    raise TypeError(f"expected a float value, got {type(v).__name__}")


def unbox_bool(v: Any) -> bool:
    """A bool-typed value: Python and numpy bools."""
    if isinstance(v, (bool, np.bool_)):
        return bool(v)
    raise TypeError(f"expected a bool value, got {type(v).__name__}")


# -- INVOKE: calls between graphs ---------------------------------------------------

#: How many activations a Frame may hold at once unless told otherwise: as many as
#: Python's own default recursion limit allows frames.
DEFAULT_MAX_DEPTH = 1000


def check_max_depth(n: Any) -> int:
    """The argument of ``set_max_depth``: an int of at least 1."""
    if isinstance(n, bool) or not isinstance(n, int):
        raise TypeError(f"the call depth limit must be an int, not {type(n).__name__}")
    if not 1 <= n <= 2 ** 31 - 1:
        raise ValueError(f"the call depth limit must be between 1 and 2**31 - 1, got {n}")
    return n


def link(target: Callable[[], Any], program_type: type, arg: int) -> Any:
    """The callee Program of an INVOKE: ``F[arg]()``, which must be a Program of the
    running loop."""
    program = target()
    if type(program) is not program_type:
        raise TypeError(f"INVOKE F[{arg}]() returned {type(program).__name__}, "
                        f"not a {program_type.__module__}.Program")
    return program


def too_deep(limit: int) -> RecursionError:
    """An INVOKE would make more activations than the limit allows."""
    return RecursionError(f"maximum recursion depth exceeded: a run may hold {limit} "
                          "activations (its own and one per call in progress); "
                          "pyjit.set_recursion_limit() changes the limit")


def store_too_many(k: int, room: int) -> TypeError:
    """A callee's STORE would give its caller's INVOKE more values than it takes."""
    return TypeError(f"STORE gives {k} values but the INVOKE that called it takes {room}")


def bad_return(arg: int, have: int, takes: int) -> TypeError:
    """A callee ended leaving ``have`` values where its INVOKE takes ``takes``."""
    return TypeError(f"INVOKE F[{arg}]: the callee gave {have} values, expected {takes}")
