"""The code generator, instruction by instruction: ``str(Code(graph))`` pinned.

``str(code)`` is the seed's ``operator<<(ostream&, const Code&)``: the
preprocessed graph, a blank line, then the listing, one instruction a line in the
seed's ``dumpInstruction`` form (``4, 5 = aten::add move(2), 3``: output
registers, ``=``, the debug name, the input registers with ``move(r)`` at a last
use), preceded by the instruction's index and followed by ``-> target`` on jumps.

Each case below was read against the seed's ``CodeImpl::insertNodesFromBlock``:

* registers are numbered on a value's first definition (``getOrAllocateRegister``),
  so a listing's registers rise in order of definition;
* ``If`` is ``JumpNZ c -> then; <else>; x = Assign vf; Jump -> end;
  then: <then>; x = Assign vt; end:``, both Assigns writing the same registers;
* ``Loop`` is ``l = Assign c, i0; JumpZ -> end; body: <body>; l = Assign c', v;
  JumpNZ -> body; end:``, the Assigns having one input more than outputs (the
  condition, left for the jump), and the Loop's outputs living in the registers
  of the body's inputs (``aliasRegistersTo``);
* a value's last use moves it; a last use nested in an If/Loop copies it and a
  ``prim::Drop`` right after that If/Loop moves it instead.
"""

from __future__ import annotations

import glob
import os
import re
from typing import NamedTuple

import numpy as np
import pytest

from pyjit import opcodes
from pyjit.code import Code
from pyjit.interpreter import Function
from pyjit.ir import IRError
from pyjit.errors import OperatorNotFoundError
from pyjit.ir.parser import parse_ir

FIXTURES = os.path.join(os.path.dirname(__file__), "fixtures")


class Case(NamedTuple):
    ir: str        # the user's graph
    graph: str     # the preprocessed graph, as str(code) prints it
    listing: str   # the instruction listing that follows it


CASES: dict[str, Case] = {}

# %x is read twice: copied by add, moved by mul (its last use); %y moves at once.
# Source locations survive preprocessing.
CASES["straight_line"] = Case(
    ir="""\
graph(%x : int, %y : int):
  %z : int = aten::add(%x, %y) # model.py:2:8
  %w : int = aten::mul(%z, %x) # model.py:3:8
  return (%w)
""",
    graph="""\
graph():
  %x : int, %y : int = prim::Load()
  %z : int = aten::add(%x, %y) # model.py:2:8
  %w : int = aten::mul(%z, %x) # model.py:3:8
   = prim::Store(%w)
  return ()
""",
    listing="""\
0  0, 1 = prim::Load
1  2 = aten::add 0, move(1)
2  3 = aten::mul move(2), move(0)
3   = prim::Store move(3)
""")

# drop_unused: an unused graph input is dropped right after the Load, an unused
# output right after its node; the Drops move the value out of its register.
CASES["unused_outputs"] = Case(
    ir="""\
graph(%t : (int, int), %unused : int):
  %a : int, %b : int = prim::TupleUnpack(%t)
  return (%a)
""",
    graph="""\
graph():
  %t : (int, int), %unused : int = prim::Load()
   = prim::Drop(%unused)
  %a : int, %b : int = prim::TupleUnpack(%t)
   = prim::Drop(%b)
   = prim::Store(%a)
  return ()
""",
    listing="""\
0  0, 1 = prim::Load
1   = prim::Drop move(1)
2  2, 3 = prim::TupleUnpack move(0)
3   = prim::Drop move(3)
4   = prim::Store move(2)
""")

# find_last_uses scans a node's inputs backwards: of mul's two uses of %x
# neither is the last (add's is); of add's inputs both moves.
CASES["used_twice_by_one_node"] = Case(
    ir="""\
graph(%x : int):
  %y : int = aten::mul(%x, %x)
  %z : int = aten::add(%y, %x)
  return (%z)
""",
    graph="""\
graph():
  %x : int = prim::Load()
  %y : int = aten::mul(%x, %x)
  %z : int = aten::add(%y, %x)
   = prim::Store(%z)
  return ()
""",
    listing="""\
0  0 = prim::Load
1  1 = aten::mul 0, 0
2  2 = aten::add move(1), move(0)
3   = prim::Store move(2)
""")

# Store takes the outputs in order; %d appears twice and only its second use
# moves.
CASES["multiple_outputs"] = Case(
    ir="""\
graph(%x : int, %y : int):
  %s : int = aten::add(%x, %y)
  %d : int = aten::sub(%x, %y)
  return (%d, %s, %x, %d)
""",
    graph="""\
graph():
  %x : int, %y : int = prim::Load()
  %s : int = aten::add(%x, %y)
  %d : int = aten::sub(%x, %y)
   = prim::Store(%d, %s, %x, %d)
  return ()
""",
    listing="""\
0  0, 1 = prim::Load
1  2 = aten::add 0, 1
2  3 = aten::sub 0, move(1)
3   = prim::Store 3, move(2), move(0), move(3)
""")

# A node with several outputs gets consecutive registers, in output order.
CASES["several_outputs_node"] = Case(
    ir="""\
graph(%t : (int, int, int)):
  %a : int, %b : int, %c : int = prim::TupleUnpack(%t)
  %ab : int = aten::mul(%a, %b)
  %r : int = aten::add(%ab, %c)
  return (%r)
""",
    graph="""\
graph():
  %t : (int, int, int) = prim::Load()
  %a : int, %b : int, %c : int = prim::TupleUnpack(%t)
  %ab : int = aten::mul(%a, %b)
  %r : int = aten::add(%ab, %c)
   = prim::Store(%r)
  return ()
""",
    listing="""\
0  0 = prim::Load
1  1, 2, 3 = prim::TupleUnpack move(0)
2  4 = aten::mul move(1), move(2)
3  5 = aten::add move(4), move(3)
4   = prim::Store move(5)
""")

# JumpNZ moves the condition; the else block comes first and falls through to
# the Jump over the then block; both Assigns write %r's register (4).  %x, %y are
# used in both branches: copied there, moved by the Drop after the If.
CASES["if_with_outputs"] = Case(
    ir="""\
graph(%c : bool, %x : int, %y : int):
  %r : int = prim::If(%c)
    block0():
      %s : int = aten::add(%x, %y)
      -> (%s)
    block1():
      %d : int = aten::sub(%x, %y)
      -> (%d)
  return (%r)
""",
    graph="""\
graph():
  %c : bool, %x : int, %y : int = prim::Load()
  %r : int = prim::If(%c)
    block0():
      %s : int = aten::add(%x, %y)
      -> (%s)
    block1():
      %d : int = aten::sub(%x, %y)
      -> (%d)
   = prim::Drop(%y, %x)
   = prim::Store(%r)
  return ()
""",
    listing="""\
0  0, 1, 2 = prim::Load
1   = prim::JumpNZ move(0) -> 5
2  3 = aten::sub 1, 2
3  4 = prim::Assign move(3)
4   = prim::Jump -> 7
5  5 = aten::add 1, 2
6  4 = prim::Assign move(5)
7   = prim::Drop move(2), move(1)
8   = prim::Store move(4)
""")

# %x is used only in the then branch: the Drop after the If frees it whichever
# branch ran.  %y's use in the else branch is a copy, as its last use is later.
CASES["last_use_in_one_branch"] = Case(
    ir="""\
graph(%c : bool, %x : int, %y : int):
  %r : int = prim::If(%c)
    block0():
      %s : int = aten::add(%x, %x)
      -> (%s)
    block1():
      -> (%y)
  %z : int = aten::mul(%r, %y)
  return (%z)
""",
    graph="""\
graph():
  %c : bool, %x : int, %y : int = prim::Load()
  %r : int = prim::If(%c)
    block0():
      %s : int = aten::add(%x, %x)
      -> (%s)
    block1():
      -> (%y)
   = prim::Drop(%x)
  %z : int = aten::mul(%r, %y)
   = prim::Store(%z)
  return ()
""",
    listing="""\
0  0, 1, 2 = prim::Load
1   = prim::JumpNZ move(0) -> 4
2  3 = prim::Assign 2
3   = prim::Jump -> 6
4  4 = aten::add 1, 1
5  3 = prim::Assign move(4)
6   = prim::Drop move(1)
7  5 = aten::mul move(3), move(2)
8   = prim::Store move(5)
""")

# desugar_trip_counts: trip count 0 makes the first condition false, so JumpZ
# skips the body (pc 8-14) to the end (15).  mul reads %a twice, moving the
# second.  The Loop's outputs %7, %r live in the body inputs' registers 6, 7.
CASES["zero_trip_loop"] = Case(
    ir="""\
graph(%x : int):
  %t : bool = prim::Constant[value=1]()
  %zero : int = prim::Constant[value=0]()
  %r : int = prim::Loop(%zero, %t, %x)
    block0(%i : int, %a : int):
      %b : int = aten::mul(%a, %a)
      -> (%t, %b)
  return (%r)
""",
    graph="""\
graph():
  %x : int = prim::Load()
  %t : bool = prim::Constant[value=1]()
  %zero : int = prim::Constant[value=0]()
  %8 : int = prim::Constant[value=0]()
  %9 : bool = aten::lt(%8, %zero)
  %10 : bool = aten::__and__(%9, %t)
  %7 : int, %r : int = prim::Loop(%10, %8, %x)
    block0(%i : int, %a : int):
      %b : int = aten::mul(%a, %a)
      %11 : int = prim::Constant[value=1]()
      %12 : int = aten::add(%i, %11)
      %13 : bool = aten::lt(%12, %zero)
      %14 : bool = aten::__and__(%13, %t)
      -> (%14, %12, %b)
   = prim::Drop(%t, %zero)
   = prim::Drop(%7)
   = prim::Store(%r)
  return ()
""",
    listing="""\
 0  0 = prim::Load
 1  1 = prim::Constant[value=1]
 2  2 = prim::Constant[value=0]
 3  3 = prim::Constant[value=0]
 4  4 = aten::lt 3, 2
 5  5 = aten::__and__ move(4), 1
 6  6, 7 = prim::Assign move(5), move(3), move(0)
 7   = prim::JumpZ -> 15
 8  8 = aten::mul 7, move(7)
 9  9 = prim::Constant[value=1]
10  10 = aten::add move(6), move(9)
11  11 = aten::lt 10, 2
12  12 = aten::__and__ move(11), 1
13  6, 7 = prim::Assign move(12), move(10), move(8)
14   = prim::JumpNZ -> 8
15   = prim::Drop move(1), move(2)
16   = prim::Drop move(6)
17   = prim::Store move(7)
""")

# A while loop: the max trip count is INT64_MAX and the condition comes from the
# body.  The loop-carried %a is copied then moved by the same add.
CASES["while_loop"] = Case(
    ir="""\
graph(%x : int, %limit : int):
  %max : int = prim::Constant[value=9223372036854775807]()
  %c0 : bool = aten::lt(%x, %limit)
  %r : int = prim::Loop(%max, %c0, %x)
    block0(%i : int, %a : int):
      %b : int = aten::add(%a, %a)
      %c : bool = aten::lt(%b, %limit)
      -> (%c, %b)
  return (%r)
""",
    graph="""\
graph():
  %x : int, %limit : int = prim::Load()
  %max : int = prim::Constant[value=9223372036854775807]()
  %c0 : bool = aten::lt(%x, %limit)
  %10 : int = prim::Constant[value=0]()
  %11 : bool = aten::lt(%10, %max)
  %12 : bool = aten::__and__(%11, %c0)
  %9 : int, %r : int = prim::Loop(%12, %10, %x)
    block0(%i : int, %a : int):
      %b : int = aten::add(%a, %a)
      %c : bool = aten::lt(%b, %limit)
      %13 : int = prim::Constant[value=1]()
      %14 : int = aten::add(%i, %13)
      %15 : bool = aten::lt(%14, %max)
      %16 : bool = aten::__and__(%15, %c)
      -> (%16, %14, %b)
   = prim::Drop(%max, %limit)
   = prim::Drop(%9)
   = prim::Store(%r)
  return ()
""",
    listing="""\
 0  0, 1 = prim::Load
 1  2 = prim::Constant[value=9223372036854775807]
 2  3 = aten::lt 0, 1
 3  4 = prim::Constant[value=0]
 4  5 = aten::lt 4, 2
 5  6 = aten::__and__ move(5), move(3)
 6  7, 8 = prim::Assign move(6), move(4), move(0)
 7   = prim::JumpZ -> 16
 8  9 = aten::add 8, move(8)
 9  10 = aten::lt 9, 1
10  11 = prim::Constant[value=1]
11  12 = aten::add move(7), move(11)
12  13 = aten::lt 12, 2
13  14 = aten::__and__ move(13), move(10)
14  7, 8 = prim::Assign move(14), move(12), move(9)
15   = prim::JumpNZ -> 8
16   = prim::Drop move(2), move(1)
17   = prim::Drop move(7)
18   = prim::Store move(8)
""")

# The closing Assign writes (%i, %x, %y, %acc) := (%18, %y, %x, %acc2) at once:
# registers 9 and 10 swap through the value stack.
CASES["swap_carried"] = Case(
    ir="""\
graph(%n : int, %a0 : int, %b0 : int, %k : int):
  %t : bool = prim::Constant[value=1]()
  %a : int, %b : int, %s : int = prim::Loop(%n, %t, %a0, %b0, %k)
    block0(%i : int, %x : int, %y : int, %acc : int):
      %acc2 : int = aten::add(%acc, %x)
      -> (%t, %y, %x, %acc2)
  return (%a, %b, %s)
""",
    graph="""\
graph():
  %n : int, %a0 : int, %b0 : int, %k : int = prim::Load()
  %t : bool = prim::Constant[value=1]()
  %14 : int = prim::Constant[value=0]()
  %15 : bool = aten::lt(%14, %n)
  %16 : bool = aten::__and__(%15, %t)
  %13 : int, %a : int, %b : int, %s : int = prim::Loop(%16, %14, %a0, %b0, %k)
    block0(%i : int, %x : int, %y : int, %acc : int):
      %acc2 : int = aten::add(%acc, %x)
      %17 : int = prim::Constant[value=1]()
      %18 : int = aten::add(%i, %17)
      %19 : bool = aten::lt(%18, %n)
      %20 : bool = aten::__and__(%19, %t)
      -> (%20, %18, %y, %x, %acc2)
   = prim::Drop(%t, %n)
   = prim::Drop(%13)
   = prim::Store(%a, %b, %s)
  return ()
""",
    listing="""\
 0  0, 1, 2, 3 = prim::Load
 1  4 = prim::Constant[value=1]
 2  5 = prim::Constant[value=0]
 3  6 = aten::lt 5, 0
 4  7 = aten::__and__ move(6), 4
 5  8, 9, 10, 11 = prim::Assign move(7), move(5), move(1), move(2), move(3)
 6   = prim::JumpZ -> 14
 7  12 = aten::add move(11), 9
 8  13 = prim::Constant[value=1]
 9  14 = aten::add move(8), move(13)
10  15 = aten::lt 14, 0
11  16 = aten::__and__ move(15), 4
12  8, 9, 10, 11 = prim::Assign move(16), move(14), move(10), move(9), move(12)
13   = prim::JumpNZ -> 7
14   = prim::Drop move(4), move(0)
15   = prim::Drop move(8)
16   = prim::Store move(9), move(10), move(11)
""")

# The If lowered inside the body; %a's last use is in both branches, so a Drop
# inside the body, after the If, frees it each iteration.  %t, %n, %two are
# read by every iteration: dropped after the Loop.
CASES["nested_if_in_loop"] = Case(
    ir="""\
graph(%n : int, %x : int):
  %t : bool = prim::Constant[value=1]()
  %two : int = prim::Constant[value=2]()
  %acc : int = prim::Loop(%n, %t, %x)
    block0(%i : int, %a : int):
      %odd : bool = aten::lt(%i, %two)
      %b : int = prim::If(%odd)
        block0():
          %p : int = aten::add(%a, %i)
          -> (%p)
        block1():
          %q : int = aten::mul(%a, %two)
          -> (%q)
      -> (%t, %b)
  return (%acc)
""",
    graph="""\
graph():
  %n : int, %x : int = prim::Load()
  %t : bool = prim::Constant[value=1]()
  %two : int = prim::Constant[value=2]()
  %12 : int = prim::Constant[value=0]()
  %13 : bool = aten::lt(%12, %n)
  %14 : bool = aten::__and__(%13, %t)
  %11 : int, %acc : int = prim::Loop(%14, %12, %x)
    block0(%i : int, %a : int):
      %odd : bool = aten::lt(%i, %two)
      %b : int = prim::If(%odd)
        block0():
          %p : int = aten::add(%a, %i)
          -> (%p)
        block1():
          %q : int = aten::mul(%a, %two)
          -> (%q)
       = prim::Drop(%a)
      %15 : int = prim::Constant[value=1]()
      %16 : int = aten::add(%i, %15)
      %17 : bool = aten::lt(%16, %n)
      %18 : bool = aten::__and__(%17, %t)
      -> (%18, %16, %b)
   = prim::Drop(%t, %n, %two)
   = prim::Drop(%11)
   = prim::Store(%acc)
  return ()
""",
    listing="""\
 0  0, 1 = prim::Load
 1  2 = prim::Constant[value=1]
 2  3 = prim::Constant[value=2]
 3  4 = prim::Constant[value=0]
 4  5 = aten::lt 4, 0
 5  6 = aten::__and__ move(5), 2
 6  7, 8 = prim::Assign move(6), move(4), move(1)
 7   = prim::JumpZ -> 22
 8  9 = aten::lt 7, 3
 9   = prim::JumpNZ move(9) -> 13
10  10 = aten::mul 8, 3
11  11 = prim::Assign move(10)
12   = prim::Jump -> 15
13  12 = aten::add 8, 7
14  11 = prim::Assign move(12)
15   = prim::Drop move(8)
16  13 = prim::Constant[value=1]
17  14 = aten::add move(7), move(13)
18  15 = aten::lt 14, 0
19  16 = aten::__and__ move(15), 2
20  7, 8 = prim::Assign move(16), move(14), move(11)
21   = prim::JumpNZ -> 8
22   = prim::Drop move(2), move(0), move(3)
23   = prim::Drop move(7)
24   = prim::Store move(8)
""")

# The Loop lowered inside the then block (4-19); %x's uses are all nested in
# the If (copied), so the Drop after the If frees it.
CASES["loop_in_if"] = Case(
    ir="""\
graph(%c : bool, %n : int, %x : int):
  %r : int = prim::If(%c)
    block0():
      %t : bool = prim::Constant[value=1]()
      %s : int = prim::Loop(%n, %t, %x)
        block0(%i : int, %a : int):
          %b : int = aten::add(%a, %i)
          -> (%t, %b)
      -> (%s)
    block1():
      -> (%x)
  return (%r)
""",
    graph="""\
graph():
  %c : bool, %n : int, %x : int = prim::Load()
  %r : int = prim::If(%c)
    block0():
      %t : bool = prim::Constant[value=1]()
      %10 : int = prim::Constant[value=0]()
      %11 : bool = aten::lt(%10, %n)
      %12 : bool = aten::__and__(%11, %t)
      %9 : int, %s : int = prim::Loop(%12, %10, %x)
        block0(%i : int, %a : int):
          %b : int = aten::add(%a, %i)
          %13 : int = prim::Constant[value=1]()
          %14 : int = aten::add(%i, %13)
          %15 : bool = aten::lt(%14, %n)
          %16 : bool = aten::__and__(%15, %t)
          -> (%16, %14, %b)
       = prim::Drop(%t)
       = prim::Drop(%9)
      -> (%s)
    block1():
      -> (%x)
   = prim::Drop(%n, %x)
   = prim::Store(%r)
  return ()
""",
    listing="""\
 0  0, 1, 2 = prim::Load
 1   = prim::JumpNZ move(0) -> 4
 2  3 = prim::Assign 2
 3   = prim::Jump -> 20
 4  4 = prim::Constant[value=1]
 5  5 = prim::Constant[value=0]
 6  6 = aten::lt 5, 1
 7  7 = aten::__and__ move(6), 4
 8  8, 9 = prim::Assign move(7), move(5), 2
 9   = prim::JumpZ -> 17
10  10 = aten::add move(9), 8
11  11 = prim::Constant[value=1]
12  12 = aten::add move(8), move(11)
13  13 = aten::lt 12, 1
14  14 = aten::__and__ move(13), 4
15  8, 9 = prim::Assign move(14), move(12), move(10)
16   = prim::JumpNZ -> 10
17   = prim::Drop move(4)
18   = prim::Drop move(8)
19  3 = prim::Assign move(9)
20   = prim::Drop move(1), move(2)
21   = prim::Store move(3)
""")


@pytest.mark.parametrize("name", list(CASES))
def test_pinned_code(name):
    case = CASES[name]
    code = Code(parse_ir(case.ir))
    assert str(code) == case.graph + "\n" + case.listing
    assert code.dump() == case.listing
    assert str(code.graph) == case.graph
    code.graph.lint()


@pytest.mark.parametrize("name", list(CASES))
def test_listing_lines_are_instructions(name):
    """``dump()`` is ``instruction(pc)`` for every pc, and the columns agree with it."""
    code = Code(parse_ir(CASES[name].ir))
    lines = code.dump().splitlines()
    assert len(lines) == len(code)
    ops = code.columns["op"]
    for pc, line in enumerate(lines):
        index, text = line.lstrip().split("  ", 1)
        assert int(index) == pc and text == code.instruction(pc)
        name = opcodes.BY_CODE[int(ops[pc])].name
        is_jump = name in ("JUMP", "JUMPZ", "JUMPNZ")
        assert text.endswith(f" -> {code.columns['arg'][pc]}") == is_jump


def test_registers_follow_first_definition():
    """A value gets the next free register where it is first defined and keeps it:
    an ordinary instruction's outputs are always new registers, in order; an
    Assign's outputs are new (an If's outputs, at the else Assign) or already
    allocated (the then Assign, a Loop's body inputs)."""
    for case in CASES.values():
        code = Code(parse_ir(case.ir))
        c, ints = code.columns, code.int_data
        top = -1
        for pc in range(len(code)):
            for r in ints[c["out_start"][pc]:c["out_start"][pc] + c["out_size"][pc]]:
                if c["op"][pc] == opcodes.ASSIGN and r <= top:
                    continue
                assert r == top + 1, (code.instruction(pc), top)
                top = r
        assert code.register_size == top + 1


def test_code_metadata():
    code = Code(parse_ir(CASES["swap_carried"].ir))
    assert (code.n_inputs, code.n_outputs, code.register_size, len(code)) == (4, 3, 17, 17)
    assert repr(code) == "<pyjit Code: 17 instructions, 17 registers, 4 inputs, 3 outputs>"
    assert code.node_at(5).kind == "prim::Loop"      # the Loop's first Assign
    assert code.node_at(7).kind == "aten::add"


def test_empty_graph():
    code = Code(parse_ir("graph():\n  return ()\n"))
    assert str(code) == ("graph():\n"
                         "   = prim::Load()\n"
                         "   = prim::Store()\n"
                         "  return ()\n"
                         "\n"
                         "0   = prim::Load\n"
                         "1   = prim::Store\n")
    assert (code.n_inputs, code.n_outputs, code.register_size) == (0, 0, 0)


def test_constants_print_their_attributes():
    code = Code(parse_ir("""\
graph():
  %a : int = prim::Constant[value=-3]()
  %b : float = prim::Constant[value=2.5]()
  %c : str = prim::Constant[value="hi"]()
  %d : NoneType = prim::Constant()
  %e : int[] = prim::Constant[value=[1, 2]]()
  return (%a, %b, %c, %d, %e)
"""))
    assert code.dump() == """\
0   = prim::Load
1  0 = prim::Constant[value=-3]
2  1 = prim::Constant[value=2.5]
3  2 = prim::Constant[value="hi"]
4  3 = prim::Constant
5  4 = prim::Constant[value=[1, 2]]
6   = prim::Store move(0), move(1), move(2), move(3), move(4)
"""
    # The list is not in the constant table: it is copied by a CALL on each load.
    assert code.constants == (-3, 2.5, "hi", None)
    assert code.callbacks[0]() == [1, 2]


# -- immutability ----------------------------------------------------------------

def test_code_tables_are_read_only():
    code = Code(parse_ir(CASES["nested_if_in_loop"].ir))
    arrays = [*code.columns.values(), code.int_data, code.bool_data]
    assert sorted(code.columns) == sorted(["op", "in_start", "in_size", "flag_start",
                                           "out_start", "out_size", "arg"])
    for a in arrays:
        assert not a.flags.writeable
        with pytest.raises(ValueError, match="read-only"):
            a[0] = 1
    assert all(a.dtype == np.int32 for a in code.columns.values())
    assert code.int_data.dtype == np.int32 and code.bool_data.dtype == np.uint8
    with pytest.raises(TypeError):
        code.columns["op"] = np.zeros(len(code), dtype=np.int32)
    assert isinstance(code.callbacks, tuple) and isinstance(code.constants, tuple)


@pytest.mark.parametrize("name", list(CASES))
def test_users_graph_is_unchanged(name):
    graph = parse_ir(CASES[name].ir)
    before = str(graph)
    nodes = list(graph.all_nodes())
    uses = {v: list(v.uses) for v in graph.inputs}
    uses.update((v, list(v.uses)) for n in nodes for v in n.outputs)
    code = Code(graph)
    assert str(graph) == before
    assert list(graph.all_nodes()) == nodes
    assert all(list(v.uses) == u for v, u in uses.items())
    graph.lint()
    assert code.graph is not graph
    assert str(Code(graph)) == str(code)  # and building twice gives the same code


def test_code_takes_a_graph():
    with pytest.raises(TypeError, match="Code\\(\\) takes a pyjit Graph, not str"):
        Code(CASES["straight_line"].ir)


# -- errors at build time ----------------------------------------------------------

def test_unknown_operator_is_reported_at_build_with_its_location():
    graph = parse_ir("""\
graph(%x : int):
  %t : bool = prim::Constant[value=1]()
  %r : int = prim::If(%t)
    block0():
      %y : int = myns::nope(%x, %x) # model.py:3:7
      -> (%y)
    block1():
      -> (%x)
  return (%r)
""")
    with pytest.raises(OperatorNotFoundError) as info:
        Code(graph)
    assert str(info.value) == ("unknown operator myns::nope at model.py:3:7: no operator "
                               "is registered for it\n"
                               "  in: %y : int = myns::nope(%x, %x) # model.py:3:7")


def test_operator_without_matching_overload_names_the_types():
    graph = parse_ir("""\
graph(%x : Dict(str, int)):
  %y : int = aten::mul(%x, %x) # model.py:4:2
  return (%y)
""")
    with pytest.raises(OperatorNotFoundError) as info:
        Code(graph)
    msg = str(info.value)
    assert msg.startswith("no overload of aten::mul accepts aten::mul(Dict(str, int), "
                          "Dict(str, int)) at model.py:4:2; registered: ")
    assert "aten::mul(int, int)" in msg
    assert msg.endswith("\n  in: %y : int = aten::mul(%x, %x) # model.py:4:2")


# -- the corpus ------------------------------------------------------------------

CORPUS = sorted(glob.glob(os.path.join(FIXTURES, "corpus", "*.ir")))


def test_corpus_is_there():
    assert len(CORPUS) > 100


@pytest.mark.parametrize("path", CORPUS, ids=[os.path.basename(p)[:-3] for p in CORPUS])
def test_corpus_graph_builds(path):
    with open(path, encoding="utf-8") as f:
        graph = parse_ir(f.read(), file=path)
    code = Code(graph)
    code.graph.lint()
    listing = code.dump()
    assert len(listing.splitlines()) == len(code) > 0
    # Every jump lands inside the table or on its end.
    for pc in range(len(code)):
        if code.columns["op"][pc] in (opcodes.JUMP, opcodes.JUMPZ, opcodes.JUMPNZ):
            assert 0 <= code.columns["arg"][pc] <= len(code)
    assert re.fullmatch(r"(?:\s*\d+  .*\n)+", listing)


def _nested_ifs(depth: int) -> str:
    """Graph text with ``depth`` If nodes each nested in the then-block of the last."""
    lines = ["graph(%x : int):", "  %c : bool = aten::ge(%x, %x)"]
    for level in range(depth, 0, -1):
        pad = "  " + "    " * (depth - level)
        lines += [f"{pad}%r{level} : int = prim::If(%c)", f"{pad}  block0():"]
    lines.append("  " + "    " * depth + "%y : int = aten::add(%x, %x)")
    inner = "%y"
    for level in range(1, depth + 1):
        pad = "  " + "    " * (depth - level)
        lines += [f"{pad}    -> ({inner})", f"{pad}  block1():", f"{pad}    -> (%x)"]
        inner = f"%r{level}"
    lines.append(f"  return ({inner})")
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("backend", ["pure", "compiled"])
def test_nesting_depth_is_not_limited_by_the_recursion_limit(backend):
    """Every pass and the lowering walk blocks without recursing per level."""
    import sys
    from conftest import import_backend
    loop = import_backend(backend)
    graph = parse_ir(_nested_ifs(1500))
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(200)
    try:
        f = Function(graph, loop=loop)
        listing = f.code.dump()
        assert f(3) == 6
    finally:
        sys.setrecursionlimit(limit)
    # One JUMPNZ, Assign and Jump per level and a second Assign on the way out.
    assert listing.count("prim::JumpNZ") == 1500
    assert listing.count("prim::Assign") == 3000


@pytest.mark.parametrize("backend", ["pure", "compiled"])
def test_a_mutable_constant_is_fresh_on_every_run(backend):
    from conftest import import_backend
    loop = import_backend(backend)
    g = parse_ir("graph(%x : int):\n"
                 "  %l : int[] = prim::Constant[value=[1, 2]]()\n"
                 "  %r : int[] = aten::append(%l, %x)\n"
                 "  %n : int[][] = prim::Constant[value=[[1], [2]]]()\n"
                 "  %m : int[] = aten::__getitem__(%n, %x)\n"
                 "  %s : int[] = aten::append(%m, %x)\n"
                 "  %t : (int[], int[][]) = prim::TupleConstruct(%r, %n)\n"
                 "  return (%t)\n")
    f = Function(g, loop=loop)
    assert f(1) == ([1, 2, 1], [[1], [2, 1]])
    assert f(0) == ([1, 2, 0], [[1, 0], [2]])
    # Still one instruction per constant in the listing.
    assert "1 = prim::Constant[value=[1, 2]]" in f.code.dump()


def test_a_tensor_constant_is_shared_read_only():
    g = parse_ir("graph():\n"
                 "  %t : Long(requires_grad=0, device=cpu) = prim::Constant[value={2}]()\n"
                 "  return (%t)\n")
    f = Function(g)
    a, b = f(), f()
    assert a is b and int(a) == 2
    with pytest.raises(ValueError, match="read-only"):
        a[...] = 3


def test_an_ill_formed_graph_is_refused_before_compiling():
    """A value used in a sibling block is out of scope: lint names it, and the
    loops never see a table that would read an empty register."""
    from pyjit.ir import IRError
    g = parse_ir("graph(%c : bool, %x : int):\n"
                 "  %r : int = prim::If(%c)\n"
                 "    block0():\n"
                 "      %y : int = aten::add(%x, %x)\n"
                 "      -> (%y)\n"
                 "    block1():\n"
                 "      -> (%x)\n"
                 "  return (%r)\n")
    then_block, else_block = next(iter(g.nodes())).blocks
    y = then_block.outputs[0]
    else_block.return_node.replace_input(0, y)   # the else branch returns then's %y
    with pytest.raises(IRError, match=r"input %y of .* is not defined"):
        Code(g)


@pytest.mark.parametrize("backend", ["pure", "compiled"])
def test_a_list_inside_a_tuple_constant_is_fresh_on_every_run(backend):
    """A tuple is immutable, but the list it holds is not: it is copied at any depth,
    and the flat list and the immutable tuple keep their cheap forms."""
    from conftest import import_backend
    loop = import_backend(backend)
    g = parse_ir("graph(%x : int):\n"
                 "  %c : (int, int[]) = prim::Constant[value=(1, [2, 3])]()\n"
                 "  %a : int, %l : int[] = prim::TupleUnpack(%c)\n"
                 "  %r : int[] = aten::append(%l, %x)\n"
                 "  %d : (int, int[])[] = prim::Constant[value=[(1, [2])]]()\n"
                 "  %z : int = prim::Constant[value=0]()\n"
                 "  %t : (int, int[]) = aten::__getitem__(%d, %z)\n"
                 "  %b : int, %m : int[] = prim::TupleUnpack(%t)\n"
                 "  %s : int[] = aten::append(%m, %x)\n"
                 "  %o : ((int, int[]), (int, int[])[]) = prim::TupleConstruct(%c, %d)\n"
                 "  return (%o)\n")
    f = Function(g, loop=loop)
    assert f(5) == ((1, [2, 3, 5]), [(1, [2, 5])])
    assert f(6) == ((1, [2, 3, 6]), [(1, [2, 6])])
    flat = Function(parse_ir("graph():\n  %l : int[] = prim::Constant[value=[1, 2]]()\n"
                             "  %t : (int, str) = prim::Constant[value=(1, \"a\")]()\n"
                             "  %o : (int[], (int, str)) = prim::TupleConstruct(%l, %t)\n"
                             "  return (%o)\n"), loop=loop)
    assert type(flat.code.callbacks[0]).__name__ == "builtin_function_or_method"
    assert flat.code.constants == ((1, "a"),)


# -- nodes the table cannot hold: an IRError naming the node, at build time -----------

@pytest.mark.parametrize("line, message", [
    ("%c : Tensor = prim::Constant[value=<Tensor>]()",
     "bad constant: tensor literal '<Tensor>' carries no values"),
    ("%c : int, %d : int = prim::Constant[value=1]()", "prim::Constant has one output, not 2"),
    ("%c : Dict(str, int) = prim::DictConstruct(%s)",
     "prim::DictConstruct takes key/value pairs, got 1 inputs"),
    ("%c : bool = prim::isinstance[types=[1]](%s)", "prim::isinstance cannot test for type '1'"),
    ("%c : int = aten::wait(%f, %f)",
     "aten::wait takes one future and has one output, not 2 input(s) and 1 output(s)"),
    ("%c : int, %d : int = aten::wait(%f)",
     "aten::wait takes one future and has one output, not 1 input(s) and 2 output(s)"),
])
def test_a_node_the_table_cannot_hold_is_named_at_build(line, message):
    g = parse_ir(f"graph(%s : str, %f : Future[int]):\n  {line} # m.py:4:2\n  return (%s)\n")
    with pytest.raises(IRError) as info:
        Code(g)
    assert str(info.value) == f"{message} at m.py:4:2\n  in: {line} # m.py:4:2"
