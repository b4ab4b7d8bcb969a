"""Tests for the preprocessing passes: exact graph texts and move flags, pinned."""

from pyjit.ir.parser import parse_ir
from pyjit.passes import (Preprocessed, desugar_trip_counts, drop_unused, find_last_uses,
                          flatten_io, preprocess)


def flags_text(graph, flags):
    """Every node in program order with its move flags: each input printed as
    ``move(%v)`` where it moves, ``%v`` where it is copied; block outputs appear on
    the block's return node (``->``).  Also checks that exactly the scanned nodes
    (all nodes, plus each block's return node) have flags, one per input, and
    that only those that copy an input have an entry of their own."""
    lines = []
    flagged = set()

    def uses(node):
        fl = flags[node]
        assert len(fl) == len(node.inputs), node
        flagged.add(node)
        return ", ".join(f"move(%{v.debug_name})" if m else f"%{v.debug_name}"
                         for v, m in zip(node.inputs, fl))

    def block(b, indent):
        for n in b.nodes():
            lines.append(f"{indent}{n.kind}({uses(n)})")
            for i, sub in enumerate(n.blocks):
                lines.append(f"{indent}  block{i}:")
                block(sub, indent + "    ")
        lines.append(f"{indent}-> ({uses(b.return_node)})")

    block(graph.block, "")
    # Entries only for nodes of the graph (those that move every input have none)
    assert set(flags) <= flagged, "flags for nodes that are not in the graph"
    assert all(not all(flags[n]) for n in flags), "an entry for a node that moves all"
    return "\n".join(lines) + "\n"


def run(graph_text, *passes):
    """Parse ``graph_text``, run ``passes`` on it (linting after each), return it.
    The text may be a lowered graph already (prim::Load/Store/Drop)."""
    g = parse_ir(graph_text, lowered=True)
    g.lint()
    for p in passes:
        p(g)
        g.lint()
    return g


def on_block(p):
    return lambda g: p(g.block)


DESUGAR = on_block(desugar_trip_counts)
DROP = on_block(drop_unused)


# ---------------------------------------------------------------------------
# desugar_trip_counts

def test_desugar_for_loop():
    g = run("""\
graph(%n : int,
      %x : int):
  %c : bool = prim::Constant[value=1]()
  %r : int = prim::Loop(%n, %c, %x)
    block0(%i : int, %acc : int):
      %acc.2 : int = aten::add(%acc, %i)
      -> (%c, %acc.2)
  return (%r)
""", DESUGAR)
    assert str(g) == """\
graph(%n : int,
      %x : int):
  %c : bool = prim::Constant[value=1]()
  %8 : int = prim::Constant[value=0]()
  %9 : bool = aten::lt(%8, %n)
  %10 : bool = aten::__and__(%9, %c)
  %7 : int, %r : int = prim::Loop(%10, %8, %x)
    block0(%i : int, %acc : int):
      %acc.2 : int = aten::add(%acc, %i)
      %11 : int = prim::Constant[value=1]()
      %12 : int = aten::add(%i, %11)
      %13 : bool = aten::lt(%12, %n)
      %14 : bool = aten::__and__(%13, %c)
      -> (%14, %12, %acc.2)
  return (%r)
"""


def test_desugar_loop_without_carried_values():
    g = run("""\
graph(%n : int):
  %c : bool = prim::Constant[value=1]()
   = prim::Loop(%n, %c)
    block0(%i : int):
      %p : int = aten::mul(%i, %i)
      -> (%c)
  return ()
""", DESUGAR)
    assert str(g) == """\
graph(%n : int):
  %c : bool = prim::Constant[value=1]()
  %5 : int = prim::Constant[value=0]()
  %6 : bool = aten::lt(%5, %n)
  %7 : bool = aten::__and__(%6, %c)
  %4 : int = prim::Loop(%7, %5)
    block0(%i : int):
      %p : int = aten::mul(%i, %i)
      %8 : int = prim::Constant[value=1]()
      %9 : int = aten::add(%i, %8)
      %10 : bool = aten::lt(%9, %n)
      %11 : bool = aten::__and__(%10, %c)
      -> (%11, %9)
  return ()
"""


def test_desugar_while_loop():
    # A while loop has the largest int as its trip count; it is desugared like any
    # other loop (the comparison with it is always true).
    g = run("""\
graph(%x : int):
  %max : int = prim::Constant[value=9223372036854775807]()
  %zero : int = prim::Constant[value=0]()
  %c : bool = aten::gt(%x, %zero)
  %r : int = prim::Loop(%max, %c, %x)
    block0(%i : int, %y : int):
      %one : int = prim::Constant[value=1]()
      %y.2 : int = aten::sub(%y, %one)
      %c.2 : bool = aten::gt(%y.2, %zero)
      -> (%c.2, %y.2)
  return (%r)
""", DESUGAR)
    assert str(g) == """\
graph(%x : int):
  %max : int = prim::Constant[value=9223372036854775807]()
  %zero : int = prim::Constant[value=0]()
  %c : bool = aten::gt(%x, %zero)
  %11 : int = prim::Constant[value=0]()
  %12 : bool = aten::lt(%11, %max)
  %13 : bool = aten::__and__(%12, %c)
  %10 : int, %r : int = prim::Loop(%13, %11, %x)
    block0(%i : int, %y : int):
      %one : int = prim::Constant[value=1]()
      %y.2 : int = aten::sub(%y, %one)
      %c.2 : bool = aten::gt(%y.2, %zero)
      %14 : int = prim::Constant[value=1]()
      %15 : int = aten::add(%i, %14)
      %16 : bool = aten::lt(%15, %max)
      %17 : bool = aten::__and__(%16, %c.2)
      -> (%17, %15, %y.2)
  return (%r)
"""


def test_desugar_nested_loops():
    # The outer loop is desugared first (its additions at the end of its body),
    # then its body is visited and the inner loop desugared.
    g = run("""\
graph(%n : int,
      %m : int):
  %c : bool = prim::Constant[value=1]()
  %z : int = prim::Constant[value=0]()
  %r : int = prim::Loop(%n, %c, %z)
    block0(%i : int, %s : int):
      %s.2 : int = prim::Loop(%m, %c, %s)
        block0(%j : int, %t : int):
          %t.2 : int = aten::add(%t, %j)
          -> (%c, %t.2)
      -> (%c, %s.2)
  return (%r)
""", DESUGAR)
    assert str(g) == """\
graph(%n : int,
      %m : int):
  %c : bool = prim::Constant[value=1]()
  %z : int = prim::Constant[value=0]()
  %12 : int = prim::Constant[value=0]()
  %13 : bool = aten::lt(%12, %n)
  %14 : bool = aten::__and__(%13, %c)
  %11 : int, %r : int = prim::Loop(%14, %12, %z)
    block0(%i : int, %s : int):
      %20 : int = prim::Constant[value=0]()
      %21 : bool = aten::lt(%20, %m)
      %22 : bool = aten::__and__(%21, %c)
      %19 : int, %s.2 : int = prim::Loop(%22, %20, %s)
        block0(%j : int, %t : int):
          %t.2 : int = aten::add(%t, %j)
          %23 : int = prim::Constant[value=1]()
          %24 : int = aten::add(%j, %23)
          %25 : bool = aten::lt(%24, %m)
          %26 : bool = aten::__and__(%25, %c)
          -> (%26, %24, %t.2)
      %15 : int = prim::Constant[value=1]()
      %16 : int = aten::add(%i, %15)
      %17 : bool = aten::lt(%16, %n)
      %18 : bool = aten::__and__(%17, %c)
      -> (%18, %16, %s.2)
  return (%r)
"""


def test_desugar_loop_inside_if():
    g = run("""\
graph(%b : bool,
      %n : int):
  %r : int = prim::If(%b)
    block0():
      %c : bool = prim::Constant[value=1]()
      %z : int = prim::Constant[value=0]()
      %l : int = prim::Loop(%n, %c, %z)
        block0(%i : int, %s : int):
          %s.2 : int = aten::add(%s, %i)
          -> (%c, %s.2)
      -> (%l)
    block1():
      -> (%n)
  return (%r)
""", DESUGAR)
    assert str(g) == """\
graph(%b : bool,
      %n : int):
  %r : int = prim::If(%b)
    block0():
      %c : bool = prim::Constant[value=1]()
      %z : int = prim::Constant[value=0]()
      %10 : int = prim::Constant[value=0]()
      %11 : bool = aten::lt(%10, %n)
      %12 : bool = aten::__and__(%11, %c)
      %9 : int, %l : int = prim::Loop(%12, %10, %z)
        block0(%i : int, %s : int):
          %s.2 : int = aten::add(%s, %i)
          %13 : int = prim::Constant[value=1]()
          %14 : int = aten::add(%i, %13)
          %15 : bool = aten::lt(%14, %n)
          %16 : bool = aten::__and__(%15, %c)
          -> (%16, %14, %s.2)
      -> (%l)
    block1():
      -> (%n)
  return (%r)
"""


def test_desugar_if_inside_loop():
    g = run("""\
graph(%n : int):
  %c : bool = prim::Constant[value=1]()
  %z : int = prim::Constant[value=0]()
  %r : int = prim::Loop(%n, %c, %z)
    block0(%i : int, %s : int):
      %two : int = prim::Constant[value=2]()
      %q : int = aten::remainder(%i, %two)
      %e : bool = aten::eq(%q, %z)
      %s.2 : int = prim::If(%e)
        block0():
          %s.3 : int = aten::add(%s, %i)
          -> (%s.3)
        block1():
          -> (%s)
      -> (%c, %s.2)
  return (%r)
""", DESUGAR)
    assert str(g) == """\
graph(%n : int):
  %c : bool = prim::Constant[value=1]()
  %z : int = prim::Constant[value=0]()
  %12 : int = prim::Constant[value=0]()
  %13 : bool = aten::lt(%12, %n)
  %14 : bool = aten::__and__(%13, %c)
  %11 : int, %r : int = prim::Loop(%14, %12, %z)
    block0(%i : int, %s : int):
      %two : int = prim::Constant[value=2]()
      %q : int = aten::remainder(%i, %two)
      %e : bool = aten::eq(%q, %z)
      %s.2 : int = prim::If(%e)
        block0():
          %s.3 : int = aten::add(%s, %i)
          -> (%s.3)
        block1():
          -> (%s)
      %15 : int = prim::Constant[value=1]()
      %16 : int = aten::add(%i, %15)
      %17 : bool = aten::lt(%16, %n)
      %18 : bool = aten::__and__(%17, %c)
      -> (%18, %16, %s.2)
  return (%r)
"""


def test_desugar_leaves_graphs_without_loops_alone():
    text = """\
graph(%b : bool,
      %x : int):
  %r : int = prim::If(%b)
    block0():
      %y : int = aten::neg(%x)
      -> (%y)
    block1():
      -> (%x)
  return (%r)
"""
    assert str(run(text, DESUGAR)) == text


# ---------------------------------------------------------------------------
# flatten_io

def test_flatten_io_several_inputs_and_outputs():
    g = run("""\
graph(%x : Tensor,
      %y : int,
      %unused : float):
  %z : Tensor = aten::mul(%x, %y)
  return (%z, %x, %y)
""", flatten_io)
    assert str(g) == """\
graph():
  %x : Tensor, %y : int, %unused : float = prim::Load()
  %z : Tensor = aten::mul(%x, %y)
   = prim::Store(%z, %x, %y)
  return ()
"""
    load = g.block.nodes().front()
    assert [v.debug_name for v in load.outputs] == ["x", "y", "unused"]
    # Each name is held once, by the Load's output (lint checked the name table).
    named = [v.debug_name for n in g.nodes() for v in n.outputs if v.has_debug_name()]
    assert named == ["x", "y", "unused", "z"]


def test_flatten_io_outputs_are_new_values():
    g = parse_ir("""\
graph(%x : int):
  return (%x)
""")
    old = g.inputs[0]
    flatten_io(g)
    g.lint()
    load = g.block.nodes().front()
    assert load.output().unique != old.unique
    assert not old.has_debug_name()
    assert str(g) == """\
graph():
  %x : int = prim::Load()
   = prim::Store(%x)
  return ()
"""


def test_flatten_io_unnamed_inputs_stay_unnamed():
    g = run("""\
graph(%0 : int,
      %1 : int):
  %2 : int = aten::add(%0, %1)
  return (%2)
""", flatten_io)
    assert str(g) == """\
graph():
  %3 : int, %4 : int = prim::Load()
  %2 : int = aten::add(%3, %4)
   = prim::Store(%2)
  return ()
"""


def test_flatten_io_no_inputs_or_outputs():
    g = run("""\
graph():
  return ()
""", flatten_io)
    assert str(g) == """\
graph():
   = prim::Load()
   = prim::Store()
  return ()
"""


# ---------------------------------------------------------------------------
# drop_unused

def test_drop_unused_inputs_outputs_and_block_inputs():
    g = run("""\
graph(%t : (int, int, int),
      %n : int,
      %u : int):
  %a : int, %b : int, %d : int = prim::TupleUnpack(%t)
  %c : bool = prim::Constant[value=1]()
  %r : int, %w : int = prim::Loop(%n, %c, %a, %b)
    block0(%i : int, %p : int, %q : int):
      %p.2 : int = aten::add(%p, %p)
      -> (%c, %p.2, %p.2)
  return (%r)
""", DROP)
    assert str(g) == """\
graph(%t : (int, int, int),
      %n : int,
      %u : int):
   = prim::Drop(%u)
  %a : int, %b : int, %d : int = prim::TupleUnpack(%t)
   = prim::Drop(%d)
  %c : bool = prim::Constant[value=1]()
  %r : int, %w : int = prim::Loop(%n, %c, %a, %b)
    block0(%i : int, %p : int, %q : int):
       = prim::Drop(%i, %q)
      %p.2 : int = aten::add(%p, %p)
      -> (%c, %p.2, %p.2)
   = prim::Drop(%w)
  return (%r)
"""


def test_drop_unused_after_flatten_io_drops_unused_graph_inputs():
    g = run("""\
graph(%x : int,
      %unused : int,
      %unused2 : int):
  %b : bool = aten::gt(%x, %x)
  %r : int = prim::If(%b)
    block0():
      %k : int = aten::neg(%x)
      %k2 : int = aten::neg(%x)
      -> (%x)
    block1():
      -> (%x)
  return (%x)
""", flatten_io, DROP)
    assert str(g) == """\
graph():
  %x : int, %unused : int, %unused2 : int = prim::Load()
   = prim::Drop(%unused, %unused2)
  %b : bool = aten::gt(%x, %x)
  %r : int = prim::If(%b)
    block0():
      %k : int = aten::neg(%x)
       = prim::Drop(%k)
      %k2 : int = aten::neg(%x)
       = prim::Drop(%k2)
      -> (%x)
    block1():
      -> (%x)
   = prim::Drop(%r)
   = prim::Store(%x)
  return ()
"""


def test_drop_unused_nothing_to_drop():
    text = """\
graph(%x : int):
  %y : int = aten::neg(%x)
  return (%y)
"""
    assert str(run(text, DROP)) == text


# ---------------------------------------------------------------------------
# find_last_uses

def last_uses(graph_text):
    """Parse, run find_last_uses, lint; return (graph text, flags text)."""
    g = run(graph_text)
    flags = find_last_uses(g)
    g.lint()
    return str(g), flags_text(g, flags)


def test_last_uses_in_one_block():
    text = """\
graph():
  %x : int, %y : int = prim::Load()
  %z : int = aten::add(%x, %y)
  %w : int = aten::mul(%z, %x)
   = prim::Store(%w, %z)
  return ()
"""
    graph, flags = last_uses(text)
    assert graph == text  # no nested blocks: nothing to drop
    assert flags == """\
prim::Load()
aten::add(%x, move(%y))
aten::mul(%z, move(%x))
prim::Store(move(%w), move(%z))
-> ()
"""


def test_value_used_twice_by_one_node_moves_at_last_position():
    text = """\
graph():
  %x : int = prim::Load()
  %y : int = aten::add(%x, %x)
   = prim::Store(%y, %y)
  return ()
"""
    graph, flags = last_uses(text)
    assert graph == text
    assert flags == """\
prim::Load()
aten::add(%x, move(%x))
prim::Store(%y, move(%y))
-> ()
"""


def test_last_use_in_one_branch_drops_after_the_if():
    graph, flags = last_uses("""\
graph():
  %a : int, %b : bool = prim::Load()
  %r : int = prim::If(%b)
    block0():
      %s : int = aten::add(%a, %a)
      -> (%s)
    block1():
      %one : int = prim::Constant[value=1]()
      -> (%one)
   = prim::Store(%r)
  return ()
""")
    assert graph == """\
graph():
  %a : int, %b : bool = prim::Load()
  %r : int = prim::If(%b)
    block0():
      %s : int = aten::add(%a, %a)
      -> (%s)
    block1():
      %one : int = prim::Constant[value=1]()
      -> (%one)
   = prim::Drop(%a)
   = prim::Store(%r)
  return ()
"""
    assert flags == """\
prim::Load()
prim::If(move(%b))
  block0:
    aten::add(%a, %a)
    -> (move(%s))
  block1:
    prim::Constant()
    -> (move(%one))
prim::Drop(move(%a))
prim::Store(move(%r))
-> ()
"""


# find_last_uses does not care about a Loop's signature; these loops keep their
# trip count (the parser reads only that form) and leave the counter %i unused.

def test_doubly_nested_last_uses_drop_at_the_definitions_depth():
    # %a and %b are last used inside the Loop (the If in its body, its condition
    # output): one Drop after the Loop takes both.  %y, a body input last used in
    # the If, is dropped after the If, inside the body.
    graph, flags = last_uses("""\
graph():
  %a : int, %b : bool, %x : int, %n : int = prim::Load()
  %c : bool = prim::Constant[value=1]()
  %r : int = prim::Loop(%n, %c, %x)
    block0(%i : int, %y : int):
      %y.2 : int = prim::If(%b)
        block0():
          %s : int = aten::add(%y, %a)
          -> (%s)
        block1():
          -> (%y)
      -> (%b, %y.2)
   = prim::Store(%r)
  return ()
""")
    assert graph == """\
graph():
  %a : int, %b : bool, %x : int, %n : int = prim::Load()
  %c : bool = prim::Constant[value=1]()
  %r : int = prim::Loop(%n, %c, %x)
    block0(%i : int, %y : int):
      %y.2 : int = prim::If(%b)
        block0():
          %s : int = aten::add(%y, %a)
          -> (%s)
        block1():
          -> (%y)
       = prim::Drop(%y)
      -> (%b, %y.2)
   = prim::Drop(%b, %a)
   = prim::Store(%r)
  return ()
"""
    assert flags == """\
prim::Load()
prim::Constant()
prim::Loop(move(%n), move(%c), move(%x))
  block0:
    prim::If(%b)
      block0:
        aten::add(%y, %a)
        -> (move(%s))
      block1:
        -> (%y)
    prim::Drop(move(%y))
    -> (%b, move(%y.2))
prim::Drop(move(%b), move(%a))
prim::Store(move(%r))
-> ()
"""


def test_several_values_dropped_by_one_drop_each_once():
    graph, flags = last_uses("""\
graph():
  %a : int, %b : int, %p : bool = prim::Load()
  %r : int = prim::If(%p)
    block0():
      %s : int = aten::add(%a, %b)
      -> (%s)
    block1():
      %t : int = aten::sub(%b, %a)
      -> (%t)
   = prim::Store(%r)
  return ()
""")
    assert graph == """\
graph():
  %a : int, %b : int, %p : bool = prim::Load()
  %r : int = prim::If(%p)
    block0():
      %s : int = aten::add(%a, %b)
      -> (%s)
    block1():
      %t : int = aten::sub(%b, %a)
      -> (%t)
   = prim::Drop(%b, %a)
   = prim::Store(%r)
  return ()
"""
    assert flags == """\
prim::Load()
prim::If(move(%p))
  block0:
    aten::add(%a, %b)
    -> (move(%s))
  block1:
    aten::sub(%b, %a)
    -> (move(%t))
prim::Drop(move(%b), move(%a))
prim::Store(move(%r))
-> ()
"""


def test_use_in_nested_block_and_after_it_is_a_plain_move_after():
    text = """\
graph():
  %a : int, %b : bool = prim::Load()
  %r : int = prim::If(%b)
    block0():
      %s : int = aten::add(%a, %a)
      -> (%s)
    block1():
      -> (%a)
  %t : int = aten::mul(%r, %a)
   = prim::Store(%t)
  return ()
"""
    graph, flags = last_uses(text)
    assert graph == text
    assert flags == """\
prim::Load()
prim::If(move(%b))
  block0:
    aten::add(%a, %a)
    -> (move(%s))
  block1:
    -> (%a)
aten::mul(move(%r), move(%a))
prim::Store(move(%t))
-> ()
"""


def test_loop_input_also_used_in_its_body():
    # The body runs after the Loop reads its inputs, so the body's use is the last
    # one: the Loop's own input copies and a Drop after the Loop frees the value.
    graph, flags = last_uses("""\
graph():
  %n : int, %c : bool, %x : int = prim::Load()
  %r : int = prim::Loop(%n, %c, %x)
    block0(%i : int, %y : int):
      %y.2 : int = aten::add(%y, %x)
      -> (%c, %y.2)
   = prim::Store(%r)
  return ()
""")
    assert graph == """\
graph():
  %n : int, %c : bool, %x : int = prim::Load()
  %r : int = prim::Loop(%n, %c, %x)
    block0(%i : int, %y : int):
      %y.2 : int = aten::add(%y, %x)
      -> (%c, %y.2)
   = prim::Drop(%c, %x)
   = prim::Store(%r)
  return ()
"""
    assert flags == """\
prim::Load()
prim::Loop(move(%n), %c, %x)
  block0:
    aten::add(move(%y), %x)
    -> (%c, move(%y.2))
prim::Drop(move(%c), move(%x))
prim::Store(move(%r))
-> ()
"""


# ---------------------------------------------------------------------------
# preprocess

LOOP_PROGRAM = """\
graph(%x : Tensor,
      %n : int):
  %c : bool = prim::Constant[value=1]()
  %r : Tensor = prim::Loop(%n, %c, %x)
    block0(%i : int, %acc : Tensor):
      %acc.2 : Tensor = aten::mul(%acc, %x)
      -> (%c, %acc.2)
  return (%r)
"""


def test_preprocess_loop_program():
    g = parse_ir(LOOP_PROGRAM)
    p = preprocess(g)
    assert isinstance(p, Preprocessed)
    assert str(g) == LOOP_PROGRAM  # the user's graph is untouched
    g.lint()
    p.graph.lint()
    assert p.n_outputs == 1
    assert str(p.graph) == """\
graph():
  %x : Tensor, %n : int = prim::Load()
  %c : bool = prim::Constant[value=1]()
  %8 : int = prim::Constant[value=0]()
  %9 : bool = aten::lt(%8, %n)
  %10 : bool = aten::__and__(%9, %c)
  %7 : int, %r : Tensor = prim::Loop(%10, %8, %x)
    block0(%i : int, %acc : Tensor):
      %acc.2 : Tensor = aten::mul(%acc, %x)
      %11 : int = prim::Constant[value=1]()
      %12 : int = aten::add(%i, %11)
      %13 : bool = aten::lt(%12, %n)
      %14 : bool = aten::__and__(%13, %c)
      -> (%14, %12, %acc.2)
   = prim::Drop(%c, %n, %x)
   = prim::Drop(%7)
   = prim::Store(%r)
  return ()
"""
    assert flags_text(p.graph, p.move_flags) == """\
prim::Load()
prim::Constant()
prim::Constant()
aten::lt(%8, %n)
aten::__and__(move(%9), %c)
prim::Loop(move(%10), move(%8), %x)
  block0:
    aten::mul(move(%acc), %x)
    prim::Constant()
    aten::add(move(%i), move(%11))
    aten::lt(%12, %n)
    aten::__and__(move(%13), %c)
    -> (move(%14), move(%12), move(%acc.2))
prim::Drop(move(%c), move(%n), move(%x))
prim::Drop(move(%7))
prim::Store(move(%r))
-> ()
"""


def test_preprocess_counts_outputs_before_flattening():
    text = """\
graph(%x : int,
      %y : int):
  %z : int = aten::add(%x, %y)
  return (%z, %x, %z)
"""
    g = parse_ir(text)
    p = preprocess(g)
    assert str(g) == text
    assert p.n_outputs == 3
    assert p.graph.outputs == () and p.graph.inputs == ()
    assert str(p.graph) == """\
graph():
  %x : int, %y : int = prim::Load()
  %z : int = aten::add(%x, %y)
   = prim::Store(%z, %x, %z)
  return ()
"""
    assert flags_text(p.graph, p.move_flags) == """\
prim::Load()
aten::add(%x, move(%y))
prim::Store(%z, move(%x), move(%z))
-> ()
"""


def test_preprocess_is_repeatable():
    g = parse_ir(LOOP_PROGRAM)
    assert str(preprocess(g).graph) == str(preprocess(g).graph)


def test_deeply_nested_last_use_is_dropped_at_the_definitions_depth():
    # 150 nested Ifs, %x used only in the innermost block: every nested use is a
    # copy, one Drop right after the outermost If frees it.  (The passes recurse
    # once or twice per level; find_last_uses allows about 490 levels.)
    depth = 150
    lines = ["graph(%x : int,", "      %b : bool):"]
    for d in range(depth):
        pad = "  " * (2 * d + 1)
        lines += [f"{pad} = prim::If(%b)", f"{pad}  block0():"]
    lines.append("  " * (2 * depth + 1) + "%y : int = aten::neg(%x)")
    for d in reversed(range(depth)):
        pad = "  " * (2 * d + 1)
        lines += [f"{pad}    -> ()", f"{pad}  block1():", f"{pad}    -> ()"]
    lines.append("  return ()")
    g = parse_ir("\n".join(lines) + "\n")
    p = preprocess(g)
    p.graph.lint()
    top = list(p.graph.nodes())
    assert [n.kind for n in top] == ["prim::Load", "prim::If", "prim::Drop", "prim::Store"]
    assert [v.debug_name for v in top[2].inputs] == ["x", "b"]
    assert p.move_flags[top[2]] == (True, True)
    assert p.move_flags[top[1]] == (False,)   # %b is used again inside
    node = top[1]
    for _ in range(depth - 1):
        node = node.blocks[0].nodes().front()
        assert node.kind == "prim::If" and p.move_flags[node] == (False,)
    inner = list(node.blocks[0].nodes())
    assert [n.kind for n in inner] == ["aten::neg", "prim::Drop"]
    assert p.move_flags[inner[0]] == (False,)    # %x: the Drop after the outer If
    assert p.move_flags[inner[1]] == (True,)     # %y is unused: dropped at once


def test_move_flags_are_keyed_by_the_preprocessed_graphs_nodes():
    g = parse_ir(LOOP_PROGRAM)
    p = preprocess(g)
    original = set()
    stack = [g.block]
    while stack:
        b = stack.pop()
        original.add(b.return_node)
        for n in b.nodes():
            original.add(n)
            stack.extend(n.blocks)
    assert not original & set(p.move_flags)
    assert all(n.owning_graph is p.graph for n in p.move_flags)


def test_call_context_methods_calls_a_units_enter_and_exit():
    from pyjit import CompilationUnit
    from pyjit.passes.context_methods import call_context_methods
    enter = ("graph(%self : __torch__.m.Ctx):\n"
             "  %c : int = prim::GetAttr[name=\"c\"](%self)\n"
             "  return (%c)\n")
    exit_ = ("graph(%self : __torch__.m.Ctx, %t : Any, %v : Any, %tb : Any):\n"
             "  %n : NoneType = prim::Constant()\n"
             "  return (%n)\n")
    unit = CompilationUnit(methods={"__torch__.m.Ctx": {"__enter__": enter, "__exit__": exit_}})
    g = parse_ir("graph(%o : __torch__.m.Ctx, %p : __torch__.m.Other):\n"
                 "  %m : int = prim::Enter(%o) # w.py:2:4\n"
                 "  %e : Tensor = prim::Exit(%o)\n"
                 "  %q : int = prim::Enter(%p)\n"
                 "  %f : Tensor = prim::Exit(%p)\n"
                 "  return (%m)\n")
    assert call_context_methods(g, unit) == 2
    assert str(g) == (
        "graph(%o : __torch__.m.Ctx,\n"
        "      %p : __torch__.m.Other):\n"
        "  %m : int = prim::CallMethod[name=\"__enter__\"](%o) # w.py:2:4\n"
        "  %7 : NoneType = prim::Constant()\n"
        "  %e : NoneType = prim::CallMethod[name=\"__exit__\"](%o, %7, %7, %7)\n"
        "  %q : int = prim::Enter(%p)\n"
        "  %f : Tensor = prim::Exit(%p)\n"
        "  return (%m)\n")


def test_move_flags_have_entries_only_for_nodes_that_copy_an_input():
    # Most nodes of a big graph move every input: they are not stored, and
    # looking one up gives all True all the same (a million entries would be
    # ~50 MB).
    g = run("""\
graph():
  %x : int = prim::Load()
  %y : int = aten::neg(%x)
  %z : int = aten::add(%y, %y)
   = prim::Store(%z)
  return ()
""")
    flags = find_last_uses(g)
    load, neg, add, store = g.nodes()
    assert dict(flags) == {add: (False, True)}      # %y's first use copies
    assert [flags[n] for n in (load, neg, store)] == [(), (True,), (True,)]
    assert flags[g.return_node] == ()
