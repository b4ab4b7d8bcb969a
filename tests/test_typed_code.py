"""The optimising code generator's tables, pinned: what ``Code(graph)`` (O1)
emits for the benchmark loops and for the If layouts, read against the lowering
described in :mod:`pyjit.codegen.typed` and :mod:`pyjit.codegen.coalesce`.

Each listing was read by hand: scalar values in ``s`` registers, constants
preloaded (no instruction), comparisons folded into their branches, loop-carried
values computed in place where the coalescer allows it, an If whose else branch
comes to nothing jumping over its then branch on the negated condition, and one
whose then branch comes to nothing without its Jump.  The values are checked on
both loops at both levels (the ``loop`` fixture).
"""

from __future__ import annotations

import pytest

from pyjit.benchmarks import workloads
from pyjit.benchmarks.systems import natural_python
from pyjit.code import Code
from pyjit.interpreter import Function
from pyjit.ir.parser import parse_ir

# fib: both values of the pair move round together (a swap needs its MOVE);
# the remainder by 1000003 is REM_I (the compiled loop multiplies by a
# reciprocal: a constant divisor).
FIB = """\
constants: s1 = 0, s3 = 1, s5 = True, s8 = 1000003
0  0 = prim::Load
1  s0 = UNBOX_I move(0)
2  s2, s4 = MOVE s1, s3
3  s6 = LOOP_ENTER s0, s5 -> 8
4  s7 = ADD_I s2, s4  # aten::add
5  s9 = REM_I s7, s8  # aten::remainder
6  s2, s4 = MOVE s4, s9
7  s6 = LOOP_BACK s6, s0, s5 -> 4
8  1 = BOX_I s2
9   = prim::Store move(1)
"""

# collatz: a while loop with no counter, entered and closed by compare-branches;
# n is halved or tripled in its own register (s7), and the step count too.
COLLATZ = """\
constants: s2 = 0, s4 = True, s8 = 1, s9 = 2, s11 = 3
 0  0, 1 = prim::Load
 1  s0 = UNBOX_I move(0)
 2  s1 = UNBOX_I move(1)
 3  s3 = MOVE s2
 4  s5 = LOOP_ENTER s1, s4 -> 17
 5  s6, s7 = MOVE s2, s0
 6   = JEQ_I s0, s8 -> 15
 7  s10 = REM_I s7, s9  # aten::remainder
 8   = JEQ_I s10, s2 -> 12
 9  s12 = MUL_I s7, s11  # aten::mul
10  s7 = ADD_I s12, s8  # aten::add
11   = prim::Jump -> 13
12  s7 = FLOORDIV_I s7, s9  # aten::floordiv
13  s6 = ADD_I s6, s8  # aten::add
14   = JNE_I s7, s8 -> 7
15  s3 = ADD_I s3, s6  # aten::add
16  s5 = LOOP_BACK s5, s1, s4 -> 5
17  2 = BOX_I s3
18   = prim::Store move(2)
"""

# the float loop: s - 0.25 is computed in the register of s, so the If's else
# branch (keep s) is empty: JNLT_F jumps over the subtraction, and NaN-safe.
FLOAT_LOOP = """\
constants: s2 = 0.0, s4 = True, s6 = 1.0001, s9 = 0.25, s10 = 1000.0
 0  0, 1 = prim::Load
 1  s0 = UNBOX_F move(0)
 2  s1 = UNBOX_I move(1)
 3  s3 = MOVE s2
 4  s5 = LOOP_ENTER s1, s4 -> 11
 5  s7 = MUL_F s0, s6  # aten::mul
 6  s8 = ADD_F s3, s7  # aten::add
 7  s3 = SUB_F s8, s9  # aten::sub
 8   = JNLT_F s10, s3 -> 10
 9  s3 = SUB_F s3, s10  # aten::sub
10  s5 = LOOP_BACK s5, s1, s4 -> 5
11  2 = BOX_F s3
12   = prim::Store move(2)
"""

LOOPS = {"fib": (workloads.fib, FIB, (1000,)),
         "collatz": (workloads.collatz, COLLATZ, (27, 3)),
         "float-loop": (workloads.float_loop, FLOAT_LOOP, (1.5, 5000))}


@pytest.mark.parametrize("name", list(LOOPS))
def test_benchmark_loops_listing(name):
    make, listing, _ = LOOPS[name]
    code = Code(parse_ir(make().ir), optimize=True)
    assert code.dump() == listing
    # Objects only at the edges: the inputs unboxed once, the result boxed once.
    assert code.boxing()["box"] == 1


@pytest.mark.parametrize("name", list(LOOPS))
def test_benchmark_loops_compute_what_python_does(name, loop):
    make, _, args = LOOPS[name]
    w = make()
    assert Function(parse_ir(w.ir), loop=loop)(*args) == natural_python(w)(*args)


# An If whose then branch hands on %x unchanged and whose else branch doubles it.
IF_KEEPS = """graph(%x : int, %c : bool):
  %two : int = prim::Constant[value=2]()
  %y : int = prim::If(%c)
    block0():
      -> (%x)
    block1():
      %t : int = aten::mul(%x, %two)
      -> (%t)
  return (%y{more})
"""

# %x is not used after the If: it is computed (unboxed) in %y's register, the then
# branch comes to nothing and the Jump over it is gone.
IF_IN_PLACE = """\
constants: s2 = 2
0  0, 1 = prim::Load
1  s0 = UNBOX_I move(0)
2  s1 = UNBOX_B move(1)
3   = JT s1 -> 5
4  s0 = MUL_I s0, s2  # aten::mul
5  2 = BOX_I s0
6   = prim::Store move(2)
"""

# %x is used after the If: it keeps its register and the then branch moves it.
IF_WITH_MOVE = """\
constants: s2 = 2
0  0, 1 = prim::Load
1  s0 = UNBOX_I move(0)
2  s1 = UNBOX_B move(1)
3   = JT s1 -> 6
4  s3 = MUL_I s0, s2  # aten::mul
5   = prim::Jump -> 7
6  s3 = MOVE s0
7  2 = BOX_I s3
8  3 = BOX_I s0
9   = prim::Store move(2), move(3)
"""


def _if_graph(used_after: bool):
    return parse_ir(IF_KEEPS.replace("{more}", ", %x" if used_after else ""))


def test_an_if_computed_in_place_drops_its_jump(loop):
    code = Code(_if_graph(False), optimize=True)
    assert code.dump() == IF_IN_PLACE
    f = Function(_if_graph(False), loop=loop)
    assert (f(5, True), f(5, False)) == (5, 10)


def test_a_value_used_after_the_if_keeps_its_register(loop):
    code = Code(_if_graph(True), optimize=True)
    assert code.dump() == IF_WITH_MOVE
    f = Function(_if_graph(True), loop=loop)
    assert (f(5, True), f(5, False)) == ((5, 5), (10, 5))


# Three nested Ifs, each in the then branch of the last, all handing on %x in
# their else branches: one register for every level's result, so each level is
# one negated jump over its then branch.
NESTED = """graph(%x : int):
  %c : bool = aten::ge(%x, %x)
  %r3 : int = prim::If(%c)
    block0():
      %r2 : int = prim::If(%c)
        block0():
          %r1 : int = prim::If(%c)
            block0():
              %y : int = aten::add(%x, %x)
              -> (%y)
            block1():
              -> (%x)
          -> (%r1)
        block1():
          -> (%x)
      -> (%r2)
    block1():
      -> (%x)
  return (%r3)
"""

NESTED_LISTING = """\
0  0 = prim::Load
1  s0 = UNBOX_I move(0)
2  s1 = GE_I s0, s0  # aten::ge
3   = JF s1 -> 7
4   = JF s1 -> 7
5   = JF s1 -> 7
6  s0 = ADD_I s0, s0  # aten::add
7  1 = BOX_I s0
8   = prim::Store move(1)
"""


def test_nested_ifs_share_one_register(loop):
    assert Code(parse_ir(NESTED), optimize=True).dump() == NESTED_LISTING
    assert Function(parse_ir(NESTED), loop=loop)(21) == 42
