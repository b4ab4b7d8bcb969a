"""Models for the tests that send pyjit's objects to other processes (pickling,
process pools, Dask, Ray): a module, so that a worker process can import what a
pickle names by reference (``tests/`` is on ``sys.path`` in the workers a test
starts: multiprocessing hands its children the parent's path)."""

from __future__ import annotations

import os
from typing import List

import pyjit
from pyjit.pickling import register_registry
from pyjit.registry import Registry

from . import frontend_programs

__all__ = ["MUL_ADD", "FORKING", "mul_add", "forking", "collatz_steps", "steps_all",
           "call_with", "worker_pid", "prepare", "PID_REGISTRY", "cache_misses", "INT_MATH",
           "INT_MATH_CALLS", "load_int_math"]

#: ``x * y + 1`` over ints, with locations for error messages.
MUL_ADD = """
graph(%x : int, %y : int):
  %one : int = prim::Constant[value=1]()
  %p : int = aten::mul(%x, %y) # model.py:2:11
  %q : int = aten::floordiv(%p, %y) # model.py:3:11
  %r : int = aten::add(%q, %one) # model.py:4:11
  return (%r)
"""

#: A fork of ``x * 2 // d`` waited for at once: the fork's failure is located twice.
FORKING = """
graph(%x : int, %d : int):
  %f : Future[int] = prim::fork_0(%x, %d) # main.py:2:8
  %y : int = aten::wait(%f) # main.py:3:8
  return (%y)
with prim::fork_0 = graph(%a : int, %d : int):
  %c : int = prim::Constant[value=2]()
  %b : int = aten::mul(%a, %c) # sub.py:6:8
  %e : int = aten::floordiv(%b, %d) # sub.py:7:8
  return (%e)
"""

mul_add = pyjit.Function(pyjit.parse_ir(MUL_ADD))
forking = pyjit.Code(pyjit.parse_ir(FORKING))


#: A plain Python function of the frontend's corpus, scripted here: pickled, it
#: goes as that function, by reference.
collatz_steps = pyjit.script(frontend_programs.collatz_steps)


@pyjit.script
def steps_all(ns: List[int]) -> List[int]:
    return [collatz_steps(n) for n in ns]


def call_with(model, args):
    """``model(*args)``: what a pool maps when the model travels with each task."""
    return model(*args)


def worker_pid(_=None) -> int:
    return os.getpid()


def prepare() -> None:
    """A pool's initializer: importing this module in the worker registers
    :data:`PID_REGISTRY` there."""


def _pid(_: int) -> int:
    return os.getpid()


#: A registry of one operator (the process's id), named so that a Code using it
#: can be sent to a worker, which imports this module and so registers it too.
PID_REGISTRY = "tests.helpers.pickled_models.pids"
_pids = Registry()
_pids.register("test_process_pools::pid", _pid, types=["int"])
register_registry(PID_REGISTRY, _pids)


def cache_misses(_=None) -> int:
    """How many objects this process compiled from pickles (pyjit.pickling)."""
    from pyjit.pickling import cache_info
    return cache_info().misses


# -- loaded models ----------------------------------------------------------------------------

#: A saved model with int arguments and a tuple result, and torch's answers for it.
INT_MATH = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                        "fixtures", "archives", "int_math.pt")
INT_MATH_CALLS = [((17, 5), (3, 2, 12, 3.4, True)), ((-7, 2), (-4, 1, 9, -3.5, True)),
                  ((3, 0), (0, 0, 0, 0.0, False))]


def load_int_math():
    return pyjit.load(INT_MATH)
