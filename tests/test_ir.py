"""The graph IR (pyjit.ir): mutators and their use lists, names, iteration,
copy, destroy, insertion points, lint, and the exact text graphs print as.

Expected texts marked "torch" were printed by torch 2.x for the same graph built
through ``torch._C.Graph``'s API (scripts in the comments), so they pin pyjit to
torch's format rather than to itself.
"""

import math

import pytest

from pyjit.ir import Graph, IRError, Use, types as T
from pyjit.ir.graph import _add_use, _remove_use, constant_type
from pyjit.ir.parser import parse_ir
from pyjit.ir.printer import format_float, quote_string
from pyjit.ir.source import SourceLocation
from pyjit.ir.symbols import prim


# -- helpers -----------------------------------------------------------------------

def op(g, kind, inputs=(), n_out=1, type=T.INT):
    """Insert a ``kind`` node at the insertion point; outputs typed ``type``."""
    n = g.insert_node(g.create(kind, list(inputs), n_out))
    for v in n.outputs:
        v.set_type(type)
    return n


def two_inputs():
    g = Graph()
    return g, g.add_input("x", T.INT), g.add_input("y", T.INT)


class TensorText:
    """Stands for a tensor attribute: the printer writes ``.text`` verbatim."""

    def __init__(self, text):
        self.text = text


def lint_error(g):
    with pytest.raises(IRError) as info:
        g.lint()
    return str(info.value)


# -- printing ----------------------------------------------------------------------

# torch: the same graph built with torch._C.Graph (addInput, insertConstant, create,
# addBlock, addInputToBlock, registerOutput, eraseOutput) prints exactly this.
LOOP_IF_TEXT = """\
graph(%x : int,
      %n : int):
  %2 : bool = prim::Constant[value=1]()
  %3 : int = prim::Loop(%n, %2, %x)
    block0(%i : int, %acc.1 : int):
      %acc : int = aten::add(%acc.1, %i)
      -> (%2, %acc)
  %7 : bool = aten::gt(%3, %x)
  %8 : int, %9 : float = prim::If(%7)
    block0():
      %10 : float = prim::Constant[value=2.5]()
      -> (%x, %10)
    block1():
      %11 : float = prim::Constant[value=-0.5]()
       = prim::Print(%3)
      -> (%3, %11)
  return (%8, %9)
"""


def build_loop_if():
    g = Graph()
    x = g.add_input("x", T.INT)
    n = g.add_input("n", T.INT)
    c = g.insert_constant(True)
    loop = op(g, "prim::Loop", [n, c, x])
    body = loop.add_block()
    i = body.add_input("i", T.INT)
    acc = body.add_input("acc", T.INT)
    add = body.append_node(g.create("aten::add", [acc, i]))
    add.output().set_type(T.INT).set_debug_name("acc")
    body.register_output(c)
    body.register_output(add.output())
    cond = op(g, "aten::gt", [loop.output(), x], type=T.BOOL)
    if_ = op(g, "prim::If", [cond.output()], 2)
    if_.output(1).set_type(T.FLOAT)
    then, else_ = if_.add_block(), if_.add_block()
    k = then.append_node(g.create(prim.Constant))
    k.attrs["value"] = 2.5
    k.output().set_type(T.FLOAT)
    then.register_output(x)
    then.register_output(k.output())
    k2 = else_.append_node(g.create(prim.Constant))
    k2.attrs["value"] = -0.5
    k2.output().set_type(T.FLOAT)
    pr = else_.append_node(g.create("prim::Print", [loop.output()]))
    pr.erase_output(0)
    else_.register_output(loop.output())
    else_.register_output(k2.output())
    g.register_output(if_.output(0))
    g.register_output(if_.output(1))
    return g


def test_print_nested_blocks_several_outputs_and_no_outputs_as_torch():
    g = build_loop_if()
    assert str(g) == LOOP_IF_TEXT
    g.lint()


# torch: g.insertConstant(v) for each value, in this order.
CONSTANTS = [3.0, 1e-05, -math.inf, math.inf, math.nan, 0.1, 1e20, 1e16,
             123456789012345678.0, -0.0, 2.5e-300, 1 / 3, True, False, 7, -3, None,
             "a'b\"c\\d\ne\tf", "é€😀", "\x01\x7f", [1, 2], [1.0, 2.5], [True, False],
             ["a", "b"], (1, 2.0, "x"), 1e10, 9999999999.0, -9999999999.0, (1,), (),
             [[1, 2], [3]], [math.inf, math.nan, -0.0], (None, True, "q"),
             {"a": 1, "b": 2}, "\x80\xff", "a\x00b", "\x1f ~"]
CONSTANTS_TEXT = r"""graph():
  %0 : float = prim::Constant[value=3.]()
  %1 : float = prim::Constant[value=1.0000000000000001e-05]()
  %2 : float = prim::Constant[value=-inf]()
  %3 : float = prim::Constant[value=inf]()
  %4 : float = prim::Constant[value=nan]()
  %5 : float = prim::Constant[value=0.10000000000000001]()
  %6 : float = prim::Constant[value=1e+20]()
  %7 : float = prim::Constant[value=10000000000000000]()
  %8 : float = prim::Constant[value=1.2345678901234568e+17]()
  %9 : float = prim::Constant[value=-0.]()
  %10 : float = prim::Constant[value=2.5e-300]()
  %11 : float = prim::Constant[value=0.33333333333333331]()
  %12 : bool = prim::Constant[value=1]()
  %13 : bool = prim::Constant[value=0]()
  %14 : int = prim::Constant[value=7]()
  %15 : int = prim::Constant[value=-3]()
  %16 : NoneType = prim::Constant()
  %17 : str = prim::Constant[value="a\'b\"c\\d\ne\tf"]()
  %18 : str = prim::Constant[value="\0)+\/.)\0-*\/)*\/.,\0.0\/,/\/+0\.00"]()
  %19 : str = prim::Constant[value="\001\177"]()
  %20 : int[] = prim::Constant[value=[1, 2]]()
  %21 : float[] = prim::Constant[value=[1., 2.5]]()
  %22 : bool[] = prim::Constant[value=[True, False]]()
  %23 : str[] = prim::Constant[value=["a", "b"]]()
  %24 : (int, float, str) = prim::Constant[value=(1, 2., "x")]()
  %25 : float = prim::Constant[value=10000000000]()
  %26 : float = prim::Constant[value=9999999999.]()
  %27 : float = prim::Constant[value=-9999999999.]()
  %28 : (int) = prim::Constant[value=(1,)]()
  %29 : () = prim::Constant[value=()]()
  %30 : int[][] = prim::Constant[value=[[1, 2], [3]]]()
  %31 : float[] = prim::Constant[value=[inf, nan, -0.]]()
  %32 : (NoneType, bool, str) = prim::Constant[value=(None, True, "q")]()
  %33 : Dict(str, int) = prim::Constant[value={"a": 1, "b": 2}]()
  %34 : str = prim::Constant[value="\0)*\.00\0)+\/0/"]()
  %35 : str = prim::Constant[value="a\000b"]()
  %36 : str = prim::Constant[value="\037 ~"]()
  return ()
"""


def test_constants_print_as_torch_prints_them():
    g = Graph()
    for v in CONSTANTS:
        g.insert_constant(v)
    assert str(g) == CONSTANTS_TEXT


@pytest.mark.parametrize("x, text", [
    (3.0, "3."), (1e-05, "1.0000000000000001e-05"), (-math.inf, "-inf"), (math.nan, "nan"),
    (-0.0, "-0."), (0.0, "0."), (1e10, "10000000000"), (9999999999.0, "9999999999."),
    (0.5, "0.5"), (5e-324, "4.9406564584124654e-324"), (1.5e300, "1.5000000000000001e+300"),
    (100.0, "100."),
])
def test_format_float(x, text):
    assert format_float(x) == text


def test_quote_string_escapes_and_torchs_signed_char_digits():
    assert quote_string("q'\"\\\a\b\f\n\r\t\v") == r'''"q\'\"\\\a\b\f\n\r\t\v"'''
    assert quote_string("\x00\x1f\x7f") == r'"\000\037\177"'
    # 'é' is UTF-8 C3 A9; torch computes octal digits on a signed char.
    assert quote_string("é") == r'"\0)+\/.)"'
    assert quote_string("") == '""'


# torch: n = g.create("prim::Foo", 0); n.f_("f", 3.0); n.i_("i", 4); n.s_("s", "hi");
# n.fs_; n.is_; n.ss_; n.g_; n.gs_; n.ty_; n.tys_; n.t_(torch.tensor([1.0, 2.0]));
# n.ts_; n.ival_("iv", (1, True)); then prim::Bar with n2.i_("b", True).
def test_attributes_of_every_kind_print_as_torch():
    g = Graph()
    n = g.append_node(g.create("prim::Foo", 0))
    n.attrs.update({
        "f": 3.0, "i": 4, "s": "hi", "fs": [1.0, 2.5], "is": [1, 2], "ss": ["a", "b"],
        "g": Graph(), "gs": [Graph(), Graph()], "ty": T.INT, "tys": [T.INT, T.FLOAT],
        "t": TensorText(" 1  2 [ CPUFloatType{2} ]"), "ts": [TensorText("{1.}")],
        "iv": (1, True),
    })
    bar = g.append_node(g.create("prim::Bar", 0))
    bar.attrs["b"] = True
    assert str(g) == (
        "graph():\n"
        '   = prim::Foo[f=3., i=4, s="hi", fs=[1., 2.5], is=[1, 2], ss=["a", "b"], '
        "g=<Graph>, gs=[<Graphs>], ty=int, tys=[int, float], t= 1  2 [ CPUFloatType{2} ], "
        "ts=[<Tensors>], iv=(1, True)]()\n"
        "   = prim::Bar[b=1]()\n"
        "  return ()\n")


# torch: a FusionGroup with g_("Subgraph", sg) and i_("k", 3), and a
# DifferentiableGraph with the same attributes; print(g) and print(node).
def test_subgraphs_print_after_the_graph_as_torch():
    g = Graph()
    x = g.add_input("x")
    sub = Graph()
    sub.register_output(sub.add_input("a"))
    fusion = op(g, "prim::FusionGroup", [x], type=T.TENSOR)
    fusion.attrs["Subgraph"] = sub
    fusion.attrs["k"] = 3
    diff = op(g, "prim::DifferentiableGraph", [x], type=T.TENSOR)
    diff.attrs["Subgraph"] = sub.copy()
    diff.attrs["k"] = 3
    g.register_output(fusion.output())
    assert str(g) == (
        "graph(%x : Tensor):\n"
        "  %1 : Tensor = prim::FusionGroup_0[k=3](%x)\n"
        "  %2 : Tensor = prim::DifferentiableGraph_1(%x)\n"
        "  return (%1)\n"
        "with prim::FusionGroup_0 = graph(%a : Tensor):\n"
        "  return (%a)\n"
        "with prim::DifferentiableGraph_1 = graph(%a : Tensor):\n"
        "  return (%a)\n")
    assert repr(fusion) == "%1 : Tensor = prim::FusionGroup[Subgraph=<Graph>, k=3](%x)"


def test_source_location_and_scope_print_after_the_node():
    g, x, y = two_inputs()
    n = op(g, "aten::add", [x, y])
    n.source_location = SourceLocation("f.py", 3, 12)
    n.scope = "__module.fc1"
    g.insert_constant(1, loc=SourceLocation("f.py", 4, 0))
    assert str(g).splitlines()[2:4] == [
        "  %2 : int = aten::add(%x, %y), scope: __module.fc1 # f.py:3:12",
        "  %3 : int = prim::Constant[value=1]() # f.py:4:0"]


def test_an_empty_graph_and_a_graph_returning_an_input():
    assert str(Graph()) == "graph():\n  return ()\n"
    g = Graph()
    g.register_output(g.add_input("a", T.FLOAT))
    assert str(g) == "graph(%a : float):\n  return (%a)\n"


# -- debug names -------------------------------------------------------------------

def names(vs):
    return [v.debug_name for v in vs]


def test_renaming_sequence_matches_torch():
    # torch: v.setDebugName("x") on four fresh inputs in turn, then "x.1" on a fifth.
    g = Graph()
    a, b, c, d, e = (g.add_input() for _ in range(5))
    a.set_debug_name("x")
    assert names([a, b, c, d]) == ["x", "1", "2", "3"]
    b.set_debug_name("x")
    assert names([a, b, c, d]) == ["x.1", "x", "2", "3"]
    c.set_debug_name("x")
    assert names([a, b, c, d]) == ["x.1", "x.3", "x", "3"]
    d.set_debug_name("x")
    assert names([a, b, c, d]) == ["x.1", "x.3", "x.5", "x"]
    e.set_debug_name("x.1")
    assert names([a, b, c, d, e]) == ["x.7", "x.3", "x.5", "x", "x.1"]
    g.lint()


@pytest.mark.parametrize("first, second, renamed", [
    ("y.5", "y.5", "y.6"),     # the suffix counts on from the name's own
    ("z.", "z.", "z..1"),      # "z." has no numeric tail
    ("w.a", "w.a", "w.a.1"),
    (".5", ".5", ".6"),        # an empty base is a base
    ("x.0", "x.0", "x.1"),     # x.0 is taken (by the old owner), so x.1
    ("p.01", "p.01", "p.1"),   # the tail is read as a number
])
def test_rename_on_clash_matches_torch(first, second, renamed):
    g = Graph()
    a, b = g.add_input(), g.add_input()
    a.set_debug_name(first)
    b.set_debug_name(second)
    assert names([a, b]) == [renamed, second]


def test_rename_skips_names_in_use_and_remembers_per_base():
    # torch: "m.2", "m.3", then "m.2" again -> the old m.2 becomes m.4.
    g = Graph()
    h, i, j = g.add_input(), g.add_input(), g.add_input()
    h.set_debug_name("m.2")
    i.set_debug_name("m.3")
    j.set_debug_name("m.2")
    assert names([h, i, j]) == ["m.4", "m.3", "m.2"]
    # torch: after y.5 -> y.6 the record for "y" is 7, so "y" twice gives y.8.
    f, k, m, n = (g.add_input() for _ in range(4))
    f.set_debug_name("y.5")
    k.set_debug_name("y.5")
    m.set_debug_name("y")
    n.set_debug_name("y")
    assert names([f, k, m, n]) == ["y.6", "y.5", "y.8", "y"]


def test_numeric_names_are_refused_and_empty_or_none_clears():
    g = Graph()
    v = g.add_input("a")
    with pytest.raises(IRError, match="cannot be numbers"):
        v.set_debug_name("12")
    assert v.debug_name == "a"
    v.set_debug_name("²")  # not ASCII digits: a name (torch's isNumber)
    assert v.debug_name == "²"
    v.set_debug_name("")
    assert (v.debug_name, v.has_debug_name()) == ("0", False)
    v.debug_name = "b"
    v.debug_name = None
    assert v.debug_name == "0" and g._names == {}


def test_renaming_to_the_same_name_and_freeing_names():
    g = Graph()
    u = g.add_input("u")
    u.set_debug_name("u")
    assert u.debug_name == "u"
    w = g.add_input("u")
    assert names([u, w]) == ["u.1", "u"]          # torch: addInput("u") twice
    g.erase_input(1)                               # erasing frees the name
    assert g.add_input("u").debug_name == "u"
    g.lint()


# -- node inputs ---------------------------------------------------------------------

def test_add_insert_replace_remove_input_keep_use_lists_exact():
    # Uses come in the order they were made; a node holding the value at several
    # inputs gives those in input order (its use list names the node once per
    # input, the offsets are found when asked).
    g, x, y = two_inputs()
    n = op(g, "aten::f", [x, y])
    assert x.uses == [Use(n, 0)] and y.uses == [Use(n, 1)]
    n.add_input(x)                                  # f(x, y, x)
    assert x.uses == [Use(n, 0), Use(n, 2)]
    n.insert_input(1, y)                            # f(x, y, y, x)
    assert n.inputs == (x, y, y, x)
    assert x.uses == [Use(n, 0), Use(n, 3)] and y.uses == [Use(n, 1), Use(n, 2)]
    assert n.replace_input(0, y) is x               # f(y, y, y, x)
    assert x.uses == [Use(n, 3)] and y.uses == [Use(n, 0), Use(n, 1), Use(n, 2)]
    n.replace_input_with(y, x)                      # f(x, x, x, x)
    assert x.uses == [Use(n, 0), Use(n, 1), Use(n, 2), Use(n, 3)] and y.uses == []
    n.remove_input(1)                               # f(x, x, x)
    assert n.inputs == (x, x, x)
    assert x.uses == [Use(n, 0), Use(n, 1), Use(n, 2)]
    n.remove_input(-1)                              # negative indices count from the end
    assert x.uses == [Use(n, 0), Use(n, 1)]
    n.replace_input(-1, y)
    assert n.inputs == (x, y) and y.uses == [Use(n, 1)]
    n.remove_all_inputs()
    assert n.inputs == () and x.uses == [] and y.uses == []
    g.lint()


def test_input_index_errors():
    g, x, y = two_inputs()
    n = op(g, "aten::f", [x])
    with pytest.raises(IndexError):
        n.insert_input(3, y)
    with pytest.raises(IndexError):
        n.remove_input(1)
    with pytest.raises(IndexError):
        n.replace_input(-2, y)
    assert x.uses == [Use(n, 0)] and y.uses == []
    with pytest.raises(TypeError):
        n.add_input(3)


def test_values_of_another_graph_are_refused():
    g, x, _ = two_inputs()
    other = Graph()
    z = other.add_input("z")
    n = op(g, "aten::f", [x])
    for mutate in (lambda: n.add_input(z), lambda: n.insert_input(0, z),
                   lambda: n.replace_input(0, z), lambda: n.replace_input_with(x, z),
                   lambda: x.replace_all_uses_with(z), lambda: g.register_output(z),
                   lambda: g.create("aten::g", [z])):
        with pytest.raises(IRError, match="another graph"):
            mutate()
    assert n.inputs == (x,) and z.uses == [] and x.uses == [Use(n, 0)]


def test_input_and_output_without_index_need_exactly_one():
    g, x, y = two_inputs()
    one = op(g, "aten::neg", [x])
    two = op(g, "aten::f", [x, y], 2)
    none = op(g, "prim::Print", [x], 0)
    assert one.input() is x and one.output() is one.outputs[0]
    assert two.output(0) is two.outputs[0] and two.output(1) is two.outputs[1]
    assert two.input(1) is y
    with pytest.raises(IRError, match="2 outputs"):
        two.output()
    with pytest.raises(IRError, match="0 outputs"):
        none.output()
    with pytest.raises(IRError, match="2 inputs"):
        two.input()


# -- node outputs ----------------------------------------------------------------------

def test_add_insert_erase_output_keep_offsets():
    g, x, _ = two_inputs()
    n = op(g, "aten::f", [x], 0)
    a = n.add_output(T.INT)
    b = n.insert_output(0, T.FLOAT)
    c = n.add_output()
    assert n.outputs == (b, a, c) and [v.offset for v in n.outputs] == [0, 1, 2]
    assert [v.unique for v in (a, b, c)] == [2, 3, 4]
    assert c.type == T.TENSOR
    a.set_debug_name("a")
    n.erase_output(1)
    assert n.outputs == (b, c) and [v.offset for v in n.outputs] == [0, 1]
    assert "a" not in g._names
    n.erase_output(-1)
    assert n.outputs == (b,)
    with pytest.raises(IndexError):
        n.insert_output(3)
    g.lint()


def test_erase_output_refuses_a_used_output():
    g, x, _ = two_inputs()
    n = op(g, "aten::neg", [x])
    user = op(g, "aten::neg", [n.output()])
    with pytest.raises(IRError, match="still has 1 use"):
        n.erase_output(0)
    assert n.output().uses == [Use(user, 0)]


def test_value_replace_all_uses_with_moves_uses_in_order():
    g, x, y = two_inputs()
    f = op(g, "aten::f", [x, y])
    h = op(g, "aten::h", [f.output(), y, f.output()])
    g.register_output(f.output())
    new = op(g, "aten::new", [])
    # move the replacement's node before its users, then redirect the uses
    new.move_before(h)
    f.output().replace_all_uses_with(new.output())
    assert f.output().uses == []
    assert new.output().uses == [Use(h, 0), Use(h, 2), Use(g.return_node, 0)]
    assert h.inputs == (new.output(), y, new.output())
    new.output().replace_all_uses_with(new.output())   # a no-op
    assert len(new.output().uses) == 3
    g.lint()


def test_node_replace_all_uses_with_and_has_uses():
    g, x, y = two_inputs()
    old = op(g, "aten::f", [x], 2)
    user = op(g, "aten::g", [old.output(1), old.output(0)])
    assert old.has_uses() and not user.has_uses()
    new = op(g, "aten::f2", [y], 2)
    new.move_before(user)
    old.replace_all_uses_with(new)
    assert not old.has_uses()
    assert user.inputs == (new.output(1), new.output(0))
    assert new.output(0).uses == [Use(user, 1)] and new.output(1).uses == [Use(user, 0)]
    with pytest.raises(IRError, match="2 outputs but aten::g has 1"):
        new.replace_all_uses_with(user)
    old.destroy()
    g.lint()


# -- blocks --------------------------------------------------------------------------------

def test_block_inputs_and_outputs():
    g, x, y = two_inputs()
    loop = op(g, "prim::Loop", [x], 0)
    body = loop.add_block()
    a = body.add_input("a", T.INT)
    b = body.insert_input(0, "b", T.FLOAT)
    assert body.inputs == (b, a) and [v.offset for v in body.inputs] == [0, 1]
    assert a.node is body.param_node and b.owning_graph is g
    ret = body.return_node
    assert body.register_output(a) == 0
    assert body.register_output(x) == 1
    assert body.insert_output(1, a) == 1              # outputs (a, a, x)
    assert body.outputs == (a, a, x)
    assert a.uses == [Use(ret, 0), Use(ret, 1)] and x.uses == [Use(loop, 0), Use(ret, 2)]
    body.erase_output(0)                              # only that use goes
    assert body.outputs == (a, x) and a.uses == [Use(ret, 0)]
    assert x.uses == [Use(loop, 0), Use(ret, 1)]
    body.erase_output(-1)
    assert body.outputs == (a,) and x.uses == [Use(loop, 0)]
    with pytest.raises(IRError, match="still has 1 use"):
        body.erase_input(1)
    body.erase_output(0)
    body.erase_input(1)
    body.erase_input(0)
    assert body.inputs == () and body.outputs == ()
    assert body.owning_node is loop and body.owning_graph is g
    assert g.block.owning_node is None
    g.lint()


def test_graph_inputs_and_outputs():
    g = Graph()
    a = g.add_input("a", T.INT)
    b = g.insert_input(0, "b")
    assert g.inputs == (b, a) and g.param_node.outputs == (b, a)
    assert g.register_output(a) == 0 and g.insert_output(0, b) == 0
    assert g.outputs == (b, a) and g.return_node.inputs == (b, a)
    assert a.uses == [Use(g.return_node, 1)] and b.uses == [Use(g.return_node, 0)]
    g.erase_output(0)
    assert a.uses == [Use(g.return_node, 0)] and b.uses == []
    g.erase_input(0)
    assert g.inputs == (a,) and a.offset == 0
    with pytest.raises(IRError, match="still has 1 use"):
        g.erase_input(0)
    g.lint()


def test_erase_block():
    g, x, _ = two_inputs()
    if_ = op(g, "prim::If", [x])
    then, else_ = if_.add_block(), if_.add_block()
    with g.inserting_before(then):
        inner = op(g, "aten::neg", [x])
        inner.output().set_debug_name("inner")
    then.register_output(inner.output())
    else_.register_output(x)
    if_.erase_block(0)
    assert if_.blocks == (else_,)
    assert x.uses == [Use(if_, 0), Use(else_.return_node, 0)]
    assert "inner" not in g._names and then.owning_node is None
    g.lint()


# -- placing nodes ---------------------------------------------------------------------

def kinds(block):
    return [n.kind for n in block.nodes()]


def test_insert_node_prepend_append_before_after():
    g, x, _ = two_inputs()
    a = g.insert_node(g.create("aten::a", [x]))
    b = g.append_node(g.create("aten::b", [x]))
    c = g.prepend_node(g.create("aten::c", [x]))
    d = g.create("aten::d", [x]).insert_before(a)
    e = g.create("aten::e", [x]).insert_after(a)
    f = g.create("aten::f", [x]).insert_after(g.param_node)    # first
    h = g.create("aten::h", [x]).insert_before(g.return_node)  # last
    assert kinds(g.block) == ["aten::f", "aten::c", "aten::d", "aten::a", "aten::e",
                              "aten::b", "aten::h"]
    assert all(n.owning_block is g.block for n in (a, b, c, d, e, f, h))
    assert a.next is e and a.prev is d and f.prev is g.return_node
    assert x.uses == [Use(a, 0), Use(b, 0), Use(c, 0), Use(d, 0), Use(e, 0), Use(f, 0),
                      Use(h, 0)]
    assert d.is_before(a) and not a.is_before(d)
    g.lint()


def test_create_with_an_int_means_number_of_outputs():
    g = Graph()
    n = g.create(prim.Load, 0)
    assert (n.inputs, n.outputs, n.is_inserted()) == ((), (), False)
    assert len(g.create(prim.Load, 3).outputs) == 3


def test_placement_errors_leave_the_graph_unchanged():
    g, x, _ = two_inputs()
    a = op(g, "aten::a", [x])
    with pytest.raises(IRError, match="already in a block"):
        a.insert_before(g.return_node)
    loose = g.create("aten::loose")
    with pytest.raises(IRError, match="not in a block"):
        g.create("aten::z").insert_after(loose)
    with pytest.raises(IRError, match="after a block's return node"):
        g.create("aten::z").insert_after(g.return_node)
    with pytest.raises(IRError, match="before a block's param node"):
        g.create("aten::z").insert_before(g.param_node)
    other = Graph()
    with pytest.raises(IRError, match="another graph"):
        other.create("aten::z").insert_before(a)
    with pytest.raises(IRError, match="another graph"):
        other.insert_node(g.create("aten::z"))
    with pytest.raises(IRError, match="qualified"):
        g.create("add")
    assert kinds(g.block) == ["aten::a"]
    g.lint()


def test_a_node_cannot_go_into_its_own_block():
    g, x, _ = two_inputs()
    if_ = g.create("prim::If", [x], 0)
    inner = if_.add_block()
    deeper = inner.append_node(g.create("prim::If", [x], 0)).add_block()
    with pytest.raises(IRError, match="its own block"):
        if_.insert_before(deeper.return_node)
    g.insert_node(if_)
    with pytest.raises(IRError, match="its own block"):
        if_.move_before(deeper.return_node)
    assert if_.owning_block is g.block
    g.lint()


def test_move_before_and_after():
    g, x, _ = two_inputs()
    a, b, c = (op(g, f"aten::{k}", [x]) for k in "abc")
    c.move_before(a)
    assert kinds(g.block) == ["aten::c", "aten::a", "aten::b"]
    c.move_after(b)
    assert kinds(g.block) == ["aten::a", "aten::b", "aten::c"]
    a.move_after(g.param_node)
    with pytest.raises(IRError, match="next to itself"):
        a.move_after(a)
    with pytest.raises(IRError, match="only a node in a block"):
        g.create("aten::z").move_before(a)
    assert kinds(g.block) == ["aten::a", "aten::b", "aten::c"]
    assert x.uses == [Use(a, 0), Use(b, 0), Use(c, 0)]
    g.lint()


def test_owning_graph_block_node():
    g = build_loop_if()
    loop = g.nodes().front().next
    body = loop.blocks[0]
    add = body.nodes().front()
    assert loop.kind == "prim::Loop" and add.kind == "aten::add"
    assert add.owning_block is body and body.owning_node is loop
    assert loop.owning_block is g.block and g.block.owning_node is None
    assert add.owning_graph is g and body.owning_graph is g and add.output().owning_graph is g
    assert g.return_node is g.block.return_node and g.param_node.outputs == g.inputs
    assert body.param_node.kind == prim.Param and body.return_node.kind == prim.Return
    assert g.create("aten::z").owning_block is None


# -- insert_constant ----------------------------------------------------------------------

def test_insert_constant_types_and_attributes():
    g = Graph()
    t = g.insert_constant(True)
    assert (t.type, t.node.attrs) == (T.BOOL, {"value": 1})
    assert g.insert_constant(None).node.attrs == {}
    f = g.insert_constant(2, type=T.FLOAT, loc=SourceLocation("a.py", 1, 2))
    assert f.type == T.FLOAT and str(f.node.source_location) == "a.py:1:2"
    e = g.insert_constant([], type=T.ListType(T.INT))
    assert e.type == T.ListType(T.INT) and e.node.attrs == {"value": []}
    with pytest.raises(IRError, match="empty list"):
        g.insert_constant([])
    with pytest.raises(IRError, match="mix types"):
        g.insert_constant([1, "a"])


@pytest.mark.parametrize("value, type_text", [
    (1, "int"), (1.5, "float"), (False, "bool"), ("s", "str"), (None, "NoneType"),
    ([1, 2], "int[]"), ([[1.0]], "float[][]"), ((1, "a"), "(int, str)"), ((), "()"),
    ({"a": [1]}, "Dict(str, int[])"), ([(1, 2), (3, 4)], "(int, int)[]"),
])
def test_constant_type(value, type_text):
    assert str(constant_type(value)) == type_text


# -- iteration -------------------------------------------------------------------------------

def test_forward_iteration_visits_nodes_inserted_after_the_current_one():
    g, x, _ = two_inputs()
    a, b = op(g, "aten::a", [x]), op(g, "aten::b", [x])
    seen = []
    for n in g.nodes():
        seen.append(n.kind)
        if n is a:
            g.create("aten::after_a", [x]).insert_after(n)     # visited
            g.create("aten::before_a", [x]).insert_before(n)   # behind: not visited
        if n is b:
            g.append_node(g.create("aten::end", [x]))           # visited
    assert seen == ["aten::a", "aten::after_a", "aten::b", "aten::end"]
    assert kinds(g.block) == ["aten::before_a", "aten::a", "aten::after_a", "aten::b",
                              "aten::end"]


def test_reverse_iteration_visits_nodes_inserted_before_the_current_one():
    g, x, _ = two_inputs()
    a, b = op(g, "aten::a", [x]), op(g, "aten::b", [x])
    seen = []
    for n in reversed(g.nodes()):
        seen.append(n.kind)
        if n is b:
            g.create("aten::before_b", [x]).insert_before(n)   # visited
            g.create("aten::after_b", [x]).insert_after(n)     # behind: not visited
    assert seen == ["aten::b", "aten::before_b", "aten::a"]
    assert [n.kind for n in g.nodes().reverse()] == [
        "aten::after_b", "aten::b", "aten::before_b", "aten::a"]


def test_destroying_the_current_node_while_iterating():
    g, x, _ = two_inputs()
    for k in "abcd":
        op(g, f"aten::{k}", [x])
    seen = []
    for n in g.nodes():
        seen.append(n.kind)
        if n.kind in ("aten::a", "aten::c"):
            n.destroy()
    assert seen == ["aten::a", "aten::b", "aten::c", "aten::d"]
    assert kinds(g.block) == ["aten::b", "aten::d"]
    seen = []
    for n in reversed(g.nodes()):
        seen.append(n.kind)
        n.destroy()
    assert seen == ["aten::d", "aten::b"] and kinds(g.block) == []
    assert x.uses == []
    g.lint()


def test_node_list_len_bool_front_back():
    g, x, _ = two_inputs()
    nodes = g.nodes()
    assert (len(nodes), bool(nodes), nodes.front(), nodes.back()) == (
        0, False, g.return_node, g.return_node)
    a, b = op(g, "aten::a", [x]), op(g, "aten::b", [x])
    assert (len(nodes), bool(nodes), nodes.front(), nodes.back()) == (2, True, a, b)
    assert list(nodes) == [a, b] and list(reversed(nodes)) == [b, a]


def test_all_nodes_is_depth_first_in_program_order():
    g = build_loop_if()
    assert [n.kind for n in g.all_nodes()] == [
        "prim::Constant", "prim::Loop", "aten::add", "aten::gt", "prim::If",
        "prim::Constant", "prim::Constant", "prim::Print"]


# -- destroy ----------------------------------------------------------------------------------

def test_destroy_releases_inputs_and_names():
    g, x, y = two_inputs()
    a = op(g, "aten::a", [x, y, x])
    a.output().set_debug_name("a")
    b = op(g, "aten::b", [y])
    a.destroy()
    assert x.uses == [] and y.uses == [Use(b, 0)]
    assert kinds(g.block) == ["aten::b"] and "a" not in g._names
    assert not a.is_inserted() and a.owning_block is None
    assert (a.inputs, a.outputs) == ((), ())
    g.create("aten::never_inserted", [x]).destroy()
    assert x.uses == []
    g.lint()


def test_destroy_refuses_a_used_node_and_changes_nothing():
    g, x, _ = two_inputs()
    a = op(g, "aten::a", [x])
    b = op(g, "aten::b", [a.output()])
    with pytest.raises(IRError, match=r"%2 is still used by %3 : int = aten::b\(%2\)"):
        a.destroy()
    assert kinds(g.block) == ["aten::a", "aten::b"] and x.uses == [Use(a, 0)]
    with pytest.raises(IRError, match="cannot be destroyed"):
        g.return_node.destroy()
    del b
    g.lint()


def test_destroy_a_node_with_blocks():
    g = build_loop_if()
    loop = g.nodes().front().next
    x, n = g.inputs
    const = g.nodes().front().output()
    if_ = loop.next.next
    if_.output(0).replace_all_uses_with(x)
    if_.output(1).replace_all_uses_with(x)
    if_.destroy()
    # the Print inside the If used the Loop's output: that use is gone too
    assert loop.output().uses == [Use(loop.next, 0)]
    assert x.uses[:2] == [Use(loop, 2), Use(loop.next, 1)]
    loop.next.destroy()
    loop.output().set_debug_name("r")
    loop.destroy()
    assert "i" not in g._names and "acc" not in g._names and "acc.1" not in g._names
    assert const.uses == [] and n.uses == []
    assert str(g) == ("graph(%x : int,\n      %n : int):\n"
                      "  %2 : bool = prim::Constant[value=1]()\n  return (%x, %x)\n")
    g.lint()


def test_destroy_refuses_when_a_nested_value_is_used_outside():
    # Only a broken graph can do this; destroy must still not half-happen.
    g, x, _ = two_inputs()
    if_ = op(g, "prim::If", [x], 0)
    with g.inserting_before(if_.add_block()):
        inner = op(g, "aten::inner", [x])
    outside = op(g, "aten::outside", [inner.output()])
    with pytest.raises(IRError, match="still used by"):
        if_.destroy()
    assert if_.is_inserted() and inner.owning_block is if_.blocks[0]
    assert inner.output().uses == [Use(outside, 0)]


# -- copy -------------------------------------------------------------------------------------

def test_copy_prints_the_same_and_keeps_ids_names_types_locations():
    g = build_loop_if()
    g.nodes().front().source_location = SourceLocation("f.py", 1, 2)
    g.nodes().front().scope = "__module.m"
    h = g.copy()
    assert str(h) == str(g) and "# f.py:1:2" in str(h)
    h.lint()
    pairs = list(zip(g.all_nodes(), h.all_nodes()))
    assert len(pairs) == 8
    for old, new in pairs:
        assert new is not old and new.owning_graph is h
        assert [v.unique for v in new.outputs] == [v.unique for v in old.outputs]
        assert [v.debug_name for v in new.outputs] == [v.debug_name for v in old.outputs]
        assert [v.type for v in new.outputs] == [v.type for v in old.outputs]
        assert new.attrs == old.attrs and new.source_location == old.source_location
        assert new.scope == old.scope
    # new values continue after the copied ids, and names clash as in the original
    assert h.insert_constant(0).unique == g.insert_constant(0).unique == 13
    assert h.add_input("acc").debug_name == "acc"
    assert names(h.inputs) == ["x", "n", "acc"]
    assert h.nodes().front().next.blocks[0].nodes().front().output().debug_name == "acc.3"


def test_mutating_a_copy_leaves_the_original_alone():
    g = build_loop_if()
    before = str(g)
    h = g.copy()
    x = h.inputs[0]
    for n in list(h.nodes()):
        if n.kind == "prim::If":
            n.output(0).replace_all_uses_with(x)
            n.output(1).replace_all_uses_with(x)
            n.destroy()
    h.nodes().front().attrs["value"] = 0
    h.inputs[1].set_debug_name("renamed")
    assert str(g) == before
    g.lint()
    h.lint()


def test_copy_copies_subgraphs_and_attribute_containers():
    g, x, _ = two_inputs()
    sub = Graph()
    sub.register_output(sub.add_input("a"))
    fork = op(g, "prim::fork", [x], type=T.FutureType(T.INT))
    fork.attrs["Subgraph"] = sub
    fork.attrs["sizes"] = [[1, 2], [3]]
    fork.attrs["graphs"] = [sub]
    h = g.copy()
    hfork = h.nodes().front()
    assert str(h) == str(g)
    assert hfork.attrs["Subgraph"] is not sub and str(hfork.attrs["Subgraph"]) == str(sub)
    assert hfork.attrs["graphs"][0] is not sub
    hfork.attrs["sizes"][0].append(9)
    hfork.attrs["Subgraph"].add_input("b")
    assert fork.attrs["sizes"] == [[1, 2], [3]] and len(sub.inputs) == 1


def test_copy_refuses_an_out_of_scope_input():
    g, x, _ = two_inputs()
    a = op(g, "aten::a", [x])
    b = op(g, "aten::b", [a.output()])
    b.move_before(a)
    with pytest.raises(IRError, match="not in scope"):
        g.copy()


# -- insertion points ----------------------------------------------------------------------

def test_inserting_before_nests_and_restores():
    g, x, _ = two_inputs()
    a = op(g, "aten::a", [x])
    loop = op(g, "prim::Loop", [x], 0)
    body = loop.add_block()
    assert g.insert_point is g.return_node
    with g.inserting_before(a):
        op(g, "aten::before_a", [x])
        with g.inserting_before(body):
            assert g.insert_point is body.return_node
            op(g, "aten::in_body", [x])
            with g.inserting_before(loop):
                op(g, "aten::before_loop", [x])
            op(g, "aten::in_body2", [x])
        op(g, "aten::before_a2", [x])
    assert g.insert_point is g.return_node
    op(g, "aten::end", [x])
    assert kinds(g.block) == ["aten::before_a", "aten::before_a2", "aten::a",
                              "aten::before_loop", "prim::Loop", "aten::end"]
    assert kinds(body) == ["aten::in_body", "aten::in_body2"]
    g.lint()


def test_inserting_before_restores_on_exception_and_checks_the_point():
    g, x, _ = two_inputs()
    a = op(g, "aten::a", [x])
    with pytest.raises(KeyError):
        with g.inserting_before(a):
            raise KeyError
    assert g.insert_point is g.return_node
    with pytest.raises(IRError, match="another graph"):
        g.set_insert_point(Graph().block)
    with pytest.raises(IRError, match="not in a block"):
        g.set_insert_point(g.create("aten::loose"))
    with pytest.raises(IRError, match="param node"):
        g.set_insert_point(g.param_node)
    g.set_insert_point(a)
    a.destroy()
    with pytest.raises(IRError, match="no longer in a block"):
        g.insert_constant(1)


# -- deep nesting ------------------------------------------------------------------------

def test_500_nested_ifs_print_copy_lint_and_destroy_without_recursion():
    g, x, _ = two_inputs()
    depth = 500
    block = g.block
    for _ in range(depth):
        with g.inserting_before(block):
            n = op(g, "prim::If", [x], 0)
        block = n.add_block()
    with g.inserting_before(block):
        op(g, "aten::leaf", [x])
    text = str(g)
    assert text.count("prim::If") == depth
    assert "  " * (2 * depth + 1) + "%" in text  # the leaf, indented 2 * depth + 1 levels
    g.lint()
    h = g.copy()
    assert str(h) == text
    h.lint()
    assert len(list(g.all_nodes())) == depth + 1
    g.nodes().front().destroy()
    assert x.uses == [] and str(g) == "graph(%x : int,\n      %y : int):\n  return ()\n"
    g.lint()


# -- lint: one broken graph per rule --------------------------------------------------------

def linted_graph():
    """x, y -> a = f(x, y); if a: b = g(a) -> (b) else: -> (x); return (if)"""
    g, x, y = two_inputs()
    a = op(g, "aten::f", [x, y])
    a.output().set_debug_name("a")
    if_ = op(g, "prim::If", [a.output()])
    then, else_ = if_.add_block(), if_.add_block()
    with g.inserting_before(then):
        b = op(g, "aten::g", [a.output()])
    then.register_output(b.output())
    else_.register_output(x)
    g.register_output(if_.output())
    g.lint()
    return g, x, y, a, if_, b


def test_lint_accepts_the_fixture():
    linted_graph()


def test_lint_param_node_not_pointing_back():
    g, *_ = linted_graph()
    g.param_node._block = None
    assert "param/return node does not point back" in lint_error(g)


def test_lint_block_owner():
    g, x, y, a, if_, b = linted_graph()
    if_.blocks[1]._owning_node = a
    assert "a block of %3 : int = prim::If(%a) names another owning node" in lint_error(g)


def test_lint_broken_prev_link():
    g, x, y, a, if_, b = linted_graph()
    if_._prev = g.return_node
    assert "broken node links after %a : int = aten::f(%x, %y)" in lint_error(g)


def test_lint_cycle_ends_as_a_broken_link():
    g, x, y, a, if_, b = linted_graph()
    if_._next = a          # return -> a -> if -> a -> ...: a cannot have two prevs
    assert "broken node links after %3 : int = prim::If(%a)" in lint_error(g)
    g, x, y, a, if_, b = linted_graph()
    a._next, a._prev = a, a
    assert "broken node links at the start of a block" in lint_error(g)


def test_lint_node_claims_another_block():
    g, x, y, a, if_, b = linted_graph()
    b._block = g.block
    assert "aten::g(%a) is listed in a block it does not own" in lint_error(g)


def test_lint_node_of_another_graph():
    g, x, y, a, if_, b = linted_graph()
    b._graph = Graph()
    assert "belongs to another graph" in lint_error(g)


def test_lint_param_kind_in_the_node_list():
    g, x, y, a, if_, b = linted_graph()
    a._kind = prim.Param
    assert "a prim::Param node is listed among a block's nodes" in lint_error(g)


def test_lint_constant_with_inputs():
    g, x, *_ = linted_graph()
    c = g.insert_constant(1).node
    c._inputs = (x,)
    _add_use(x, c)
    assert "a constant has no inputs" in lint_error(g)


def test_lint_output_offset():
    g, x, y, a, if_, b = linted_graph()
    a.output()._offset = 3
    assert "output 0 of %a : int = aten::f(%x, %y) records node/offset aten::f/3" in lint_error(g)


def test_lint_duplicate_and_too_large_ids():
    g, x, y, a, if_, b = linted_graph()
    b.output()._unique = a.output().unique
    assert "value id 2 is used twice" in lint_error(g)
    g, x, y, a, if_, b = linted_graph()
    b.output()._unique = 99
    assert "value id 99 of %99 is not below the graph's next id 5" in lint_error(g)


def test_lint_input_of_another_graph():
    g, x, y, a, if_, b = linted_graph()
    other = Graph().add_input("z")
    a._inputs[1] = other
    assert "input 1 of %a : int = aten::f(%x, %z) belongs to another graph" in lint_error(g)


def test_lint_use_before_definition():
    g, x, y, a, if_, b = linted_graph()
    if_.move_before(a)     # the API allows the move; lint finds the problem
    assert "input %a of %3 : int = prim::If(%a) is not defined before this use" in lint_error(g)


def test_lint_value_used_outside_its_block():
    g, x, y, a, if_, b = linted_graph()
    late = op(g, "aten::h", [y])
    late.replace_input(0, b.output())   # b is defined inside the If's block
    assert "input %4 of %5 : int = aten::h(%4) is not defined" in lint_error(g)


def test_lint_node_output_used_in_its_own_block():
    g, x, y, a, if_, b = linted_graph()
    b.replace_input(0, if_.output())
    assert "input %3 of %4 : int = aten::g(%3) is not defined" in lint_error(g)


def test_lint_missing_and_duplicated_use():
    g, x, y, a, if_, b = linted_graph()
    _remove_use(x, a)
    assert "use list of %x does not record its use as input 0" in lint_error(g)
    g, x, y, a, if_, b = linted_graph()
    _add_use(y, a)
    assert "use list of %y does not record its use as input 1" in lint_error(g)


def test_lint_stale_use():
    g, x, y, a, if_, b = linted_graph()
    dead = g.create("aten::dead", [x])        # never inserted: its use is not live
    assert "%x records a use by a aten::dead node that is not in the graph" in lint_error(g)
    dead.destroy()
    g.lint()
    _add_use(y, b)   # b uses %a, not %y
    assert "%y records a use by %4 : int = aten::g(%a), which does not use it" \
        in lint_error(g)


def test_lint_name_table():
    g, x, y, a, if_, b = linted_graph()
    del g._names["a"]
    assert "names not in the table: ['a']" in lint_error(g)
    g, x, y, a, if_, b = linted_graph()
    g._names["ghost"] = b.output()
    assert "names of no live value: ['ghost']" in lint_error(g)


def _chain_of_negs():
    g = parse_ir("""graph(%x : int):
  %a : int = aten::neg(%x)
  %b : int = aten::neg(%a)
  %c : int = aten::neg(%b)
  return (%c)
""")
    g.lint()
    a, b, c = (n.output() for n in g.nodes())
    return g, a, b, c


def test_lint_checks_the_commonest_node_as_closely_as_any():
    # One input, one output, no attributes: lint takes these in one step, and
    # must still find each thing that can be wrong with them.
    g, a, b, c = _chain_of_negs()
    b._uses = None                                  # %b's use by %c not recorded
    assert "use list of %b does not record its use as input 0" in lint_error(g)
    g, a, b, c = _chain_of_negs()
    c._unique = b._unique
    assert f"value id {b._unique} is used twice (%c)" in lint_error(g)
    g, a, b, c = _chain_of_negs()
    c._offset = 1
    assert "output 0 of %c : int = aten::neg(%b) records node/offset aten::neg/1" \
        in lint_error(g)
    g, a, b, c = _chain_of_negs()
    c.node._graph = Graph()
    assert "%c : int = aten::neg(%b) belongs to another graph" in lint_error(g)
    g, a, b, c = _chain_of_negs()
    c._unique = g._next_unique
    assert "is not below the graph's next id" in lint_error(g)
    g, a, b, c = _chain_of_negs()
    c._name = "d"                                   # the table still says "c"
    assert "names of no live value: ['c']; names not in the table: ['d']" in lint_error(g)


def test_lint_param_and_return_nodes_shape():
    g, x, y, a, if_, b = linted_graph()
    g.return_node._outputs = (a.output(),)
    assert "return node has outputs" in lint_error(g)
    g, x, y, a, if_, b = linted_graph()
    g.param_node._inputs = (x,)
    assert "param node has inputs" in lint_error(g)


def test_lint_checks_subgraphs():
    g, x, y, a, if_, b = linted_graph()
    sub = Graph()
    v = sub.add_input("v")
    sub.register_output(v)
    a.attrs["Subgraph"] = sub
    g.lint()
    v._uses = None          # forget its use by the return node
    assert "use list of %v" in lint_error(g)


# -- small things ------------------------------------------------------------------------

def test_docs_example():
    """The example in docs/ir.md, with the text it shows."""
    g = Graph()
    x = g.add_input("x", T.INT)
    one = g.insert_constant(1)
    s = g.insert_node(g.create("aten::add", [x, one])).output().set_type(T.INT)
    g.register_output(s)
    assert str(g) == ("graph(%x : int):\n"
                      "  %1 : int = prim::Constant[value=1]()\n"
                      "  %2 : int = aten::add(%x, %1)\n"
                      "  return (%2)\n")
    s.replace_all_uses_with(x)
    for n in reversed(g.nodes()):
        if not n.has_uses():
            n.destroy()
    g.lint()
    assert str(g) == "graph(%x : int):\n  return (%x)\n"
    assert one.uses == [] and x.uses == [Use(g.return_node, 0)]


def test_value_type_and_repr():
    g = Graph()
    v = g.add_input("v")
    assert v.type == T.TENSOR and repr(v) == "%v : Tensor"
    assert v.set_type(T.ListType(T.INT)) is v and repr(v) == "%v : int[]"
    with pytest.raises(TypeError):
        v.type = "int"


def test_insert_before_and_after_sentinels_of_a_nested_block():
    g, x, _ = two_inputs()
    body = op(g, "prim::Loop", [x], 0).add_block()
    a = g.create("aten::a", [x]).insert_before(body.return_node)   # last
    b = g.create("aten::b", [x]).insert_after(body.param_node)     # first
    c = body.append_node(g.create("aten::c", [x]))
    d = body.prepend_node(g.create("aten::d", [x]))
    assert kinds(body) == ["aten::d", "aten::b", "aten::a", "aten::c"]
    assert all(n.owning_block is body for n in (a, b, c, d))
    g.lint()


def test_symbols():
    from pyjit.ir.symbols import aten, is_qualified, namespace_of, unqualified
    assert (prim.If, aten.add) == ("prim::If", "aten::add")
    assert unqualified("aten::__and__") == "__and__" and namespace_of("prim::Loop") == "prim"
    assert is_qualified("a::b") and not any(map(is_qualified, ["add", "::add", "aten::", ""]))


def test_source_location(tmp_path):
    src = tmp_path / "f.py"
    src.write_text("def f(x):\n    return x + 1\n")
    loc = SourceLocation.parse(f"{src}:2:11")
    assert (loc.file, loc.line, loc.col) == (str(src), 2, 11)
    assert str(loc) == f"{src}:2:11"
    assert loc.source_line() == "    return x + 1"
    assert loc.highlight() == f"{src}:2:11\n        return x + 1\n               ^"
    missing = SourceLocation("c:\\no\\such.py", 3, 0)   # colons in the file name
    assert SourceLocation.parse(str(missing)) == missing
    assert missing.source_line() is None and missing.highlight() == "c:\\no\\such.py:3:0"
