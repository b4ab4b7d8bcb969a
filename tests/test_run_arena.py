"""The run arena (pyjit/ops/_kernels_arena.h): numpy's data allocator for the
time of a run on tensors, which keeps the blocks of big arrays when they are
freed for the next arrays of their size, so that a second run takes no page
faults writing them."""

from __future__ import annotations

import threading

import numpy as np
import pytest

from pyjit import fperrors
from pyjit.code import Code
from pyjit.interpreter import Function
from pyjit.ir.parser import parse_ir
from pyjit.ops import kernels

pytestmark = pytest.mark.skipif(not kernels.RUN_ARENA,
                                reason="no run arena: a build without the compiled kernels")

from numpy._core.multiarray import get_handler_name  # noqa: E402

SQUARE = """graph(%x : Tensor):
  %y : Tensor = aten::mul(%x, %x)
  return (%y)
"""

ADD = """graph(%a : int, %b : int):
  %c : int = aten::add(%a, %b)
  return (%c)
"""


def _k():
    from pyjit.ops import _kernels
    return _kernels


def test_a_run_on_tensors_allocates_from_the_arena_and_only_a_run():
    f = Function(Code(parse_ir(SQUARE)))
    assert f.code.run_settings & fperrors.ARENA_RUN
    x = np.ones(1 << 16, np.float32)
    y = f(x)
    assert get_handler_name(y) == "pyjit_arena"
    assert np.array_equal(y, x)
    assert get_handler_name(x * x) == "default_allocator"   # outside the run: numpy's


def test_a_scalar_graph_sets_nothing():
    assert not Code(parse_ir(ADD)).run_settings & fperrors.ARENA_RUN


def test_a_freed_block_is_given_out_again_and_zeroed_for_zeros():
    f = Function(Code(parse_ir(SQUARE)))
    x = np.full(1 << 18, 3, np.float32)      # 1 MB results: the arena's
    _, _, reused = _k().arena_info()
    y = f(x)
    del y                                     # back to the arena's list
    y = f(x)
    assert _k().arena_info()[2] > reused and np.all(y == 9)
    del y
    previous = _k().set_data_handler(_k().ARENA_HANDLER)
    try:
        z = np.zeros(1 << 18, np.float32)     # a dirty block, zeroed
        assert not z.any()
        z[:] = 5
        z.resize(1 << 19, refcheck=False)     # realloc: the old values kept
        assert np.all(z[:1 << 18] == 5) and z.shape == (1 << 19,)
    finally:
        _k().set_data_handler(previous)


def test_the_limit_bounds_what_is_kept():
    k = _k()
    cached, limit, _ = k.arena_info()
    try:
        k.release_arena()
        k.set_arena_limit(0)
        f = Function(Code(parse_ir(SQUARE)))
        del_me = f(np.ones(1 << 18, np.float32))
        del del_me
        assert k.arena_info()[0] == 0
    finally:
        k.set_arena_limit(limit)


def test_another_thread_keeps_its_allocator_while_a_run_goes_on():
    f = Function(Code(parse_ir(SQUARE)))
    seen = []
    go = threading.Event()

    def other():
        go.wait()
        seen.append(get_handler_name(np.empty(1 << 17, np.uint8)))

    t = threading.Thread(target=other)
    t.start()

    def op_then_release(x):   # runs inside the run, on this thread
        go.set()
        t.join()
        return x
    from pyjit.registry import Registry
    r = Registry(library=True)
    r.register("test::hold", op_then_release, types=["Tensor"])
    g = parse_ir("""graph(%x : Tensor):
  %y : Tensor = test::hold(%x)
  %z : Tensor = aten::mul(%y, %y)
  return (%z)
""")
    out = Function(Code(g, registry=r))(np.ones(4, np.float32))
    assert get_handler_name(out) == "pyjit_arena" and seen == ["default_allocator"]
