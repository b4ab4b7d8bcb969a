"""Small graphs with their code pinned: ``str(Code(graph))`` exactly, for
``test_code.py`` to compare and ``test_interpreter.py`` to run on both loops.

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

from typing import NamedTuple

__all__ = ["Case", "CASES"]


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
