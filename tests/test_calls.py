"""Graphs calling graphs: :class:`pyjit.CompilationUnit`, ``prim::CallFunction`` and
``prim::CallMethod`` compiled to ``INVOKE``, tracebacks through calls, recursion
and its limit, modules' attributes; on both loops at both levels (``loop``).

The INVOKE instruction itself, on hand-written tables, is ``test_calls_loop.py``'s;
torch's own programs that call functions, and scripted modules, are
``test_calls_corpus.py``'s.
"""

from __future__ import annotations

import types

import pytest
from hypothesis import HealthCheck, given, note, settings
from hypothesis import strategies as st

import pyjit
from pyjit import CompilationUnit, GraphRecursionError, InterpreterError, JITException
from pyjit.benchmarks.walker import GraphInterpreter
from pyjit.errors import OperatorNotFoundError, TraceFrame
from pyjit.futures import Future
from pyjit.interpreter import Function, InterpreterState
from pyjit.ir import IRError
from pyjit.ir.parser import parse_ir
from pyjit.passes import inline_calls

from helpers.random_graphs import units

HELPER = """\
graph(%a : int,
      %b : int):
  %c : int = aten::mul(%a, %b) # calls.py:2:11
  return (%c)
"""

MAIN = """\
graph(%x : int):
  %two : int = prim::Constant[value=2]()
  %h : Function = prim::Constant[name="helper"]()
  %y : int = prim::CallFunction(%h, %x, %two) # calls.py:5:11
  %z : int = aten::add(%y, %x) # calls.py:5:11
  return (%z)
"""

SCALE = """\
graph(%self : __torch__.M,
      %x : Tensor):
  %w : Tensor = prim::GetAttr[name="w"](%self)
  %y : Tensor = aten::mul(%x, %w)
  return (%y)
"""

FORWARD = """\
graph(%self : __torch__.M,
      %x : Tensor):
  %y : Tensor = prim::CallMethod[name="scale"](%self, %x)
  %n : int = prim::GetAttr[name="n"](%self)
  %one : int = prim::Constant[value=1]()
  %m : int = aten::add(%n, %one)
   = prim::SetAttr[name="n"](%self, %m)
  return (%y)
"""

# n! by recursion; evens and odds by mutual recursion.
FACT = """\
graph(%n : int):
  %one : int = prim::Constant[value=1]()
  %fact : Function = prim::Constant[name="fact"]()
  %c : bool = aten::le(%n, %one) # fact.py:2:7
  %r : int = prim::If(%c) # fact.py:2:4
    block0():
      -> (%one)
    block1():
      %m : int = aten::sub(%n, %one) # fact.py:4:20
      %s : int = prim::CallFunction(%fact, %m) # fact.py:4:15
      %p : int = aten::mul(%n, %s) # fact.py:4:11
      -> (%p)
  return (%r)
"""


def parity(name: str, other: str, at_zero: bool) -> str:
    return f"""\
graph(%n : int):
  %zero : int = prim::Constant[value=0]()
  %one : int = prim::Constant[value=1]()
  %base : bool = prim::Constant[value={int(at_zero)}]()
  %f : Function = prim::Constant[name="{other}"]()
  %c : bool = aten::eq(%n, %zero) # parity.py:2:7
  %r : bool = prim::If(%c) # parity.py:2:4
    block0():
      -> (%base)
    block1():
      %m : int = aten::sub(%n, %one)
      %s : bool = prim::CallFunction(%f, %m) # parity.py:3:11
      -> (%s)
  return (%r)
"""


def unit() -> CompilationUnit:
    return CompilationUnit({"helper": HELPER, "main": MAIN, "fact": FACT,
                            "is_even": parity("is_even", "is_odd", True),
                            "is_odd": parity("is_odd", "is_even", False)},
                           methods={"__torch__.M": {"scale": SCALE, "forward": FORWARD}})


# -- the unit -----------------------------------------------------------------------------

def test_a_unit_holds_functions_and_methods():
    u = unit()
    assert u.functions == ("helper", "main", "fact", "is_even", "is_odd")
    assert u.classes == {"__torch__.M": ("scale", "forward")}
    assert repr(u) == "<pyjit CompilationUnit: 5 functions, 1 classes, 2 methods>"
    assert str(u.graph("helper")) == HELPER
    assert str(u.graph("forward", "__torch__.M")) == FORWARD
    assert u.find_function("nope") is None and u.find_method("__torch__.M", "nope") is None
    assert u.main(4) == 12 and u.function("main") is u.main


def test_calls_run(loop):
    u = unit()
    assert u.function("main", loop=loop)(5) == 15
    assert u.function("fact", loop=loop)(20) == 2432902008176640000
    assert [u.function("is_even", loop=loop)(n) for n in range(5)] == [
        True, False, True, False, True]
    obj = types.SimpleNamespace(w=pyjit.ir.constants.np.arange(3.0), n=41)
    out = u.method("__torch__.M", "forward", loop=loop)(obj, pyjit.ir.constants.np.ones(3))
    assert out.tolist() == [0.0, 1.0, 2.0] and obj.n == 42


def test_pinned_listings_of_calls_unoptimised():
    u = unit()
    assert u.code("main", optimize=False).dump() == (
        "0  0 = prim::Load\n"
        "1  1 = prim::Constant[value=2]\n"
        "2  2 = prim::CallFunction[helper] 0, move(1)\n"
        "3  3 = aten::add move(2), move(0)\n"
        "4   = prim::Store move(3)\n")
    assert u.code("forward", "__torch__.M", optimize=False).dump() == (
        "0  0, 1 = prim::Load\n"
        "1  2 = prim::CallMethod[__torch__.M.scale] 0, move(1)\n"
        "2  3 = prim::GetAttr[name=\"n\"] 0\n"
        "3  4 = prim::Constant[value=1]\n"
        "4  5 = aten::add move(3), move(4)\n"
        "5   = prim::SetAttr[name=\"n\"] move(0), move(5)\n"
        "6   = prim::Store move(2)\n")


def test_pinned_listings_of_calls_optimised():
    """Scalars cross a call boxed: the caller boxes its arguments, the callee's LOAD
    unboxes them, and back for the results."""
    u = unit()
    assert u.code("main", optimize=True).dump() == (
        "constants: 2 = 2\n"
        "0  0 = prim::Load\n"
        "1  s0 = UNBOX_I move(0)\n"
        "2  1 = BOX_I s0\n"
        "3  3 = prim::CallFunction[helper] move(1), 2\n"
        "4  s1 = UNBOX_I move(3)\n"
        "5  s2 = ADD_I s1, s0  # aten::add\n"
        "6  4 = BOX_I s2\n"
        "7   = prim::Store move(4)\n")
    assert u.code("fact", optimize=True).dump() == (
        "constants: s1 = 1\n"
        " 0  0 = prim::Load\n"
        " 1  s0 = UNBOX_I move(0)\n"
        " 2   = JLE_I s0, s1 -> 9\n"
        " 3  s2 = SUB_I s0, s1  # aten::sub\n"
        " 4  1 = BOX_I s2\n"
        " 5  2 = prim::CallFunction[fact] move(1)\n"
        " 6  s3 = UNBOX_I move(2)\n"
        " 7  s4 = MUL_I s0, s3  # aten::mul\n"
        " 8   = prim::Jump -> 10\n"
        " 9  s4 = MOVE s1\n"
        "10  3 = BOX_I s4\n"
        "11   = prim::Store move(3)\n")


@pytest.mark.parametrize("optimize", [False, True])
def test_code_lists_its_callees(optimize):
    u = unit()
    main = u.code("main", optimize=optimize)
    helper = u.code("helper", optimize=optimize)
    assert main.callees() == (helper,) and helper.callees() == ()
    pc = 2 if not optimize else 3
    assert main.callee_sites() == ((pc, helper),)
    assert (main.name, helper.name, main.unit) == ("main", "helper", u)
    fact = u.code("fact", optimize=optimize)
    assert fact.callees() == (fact,)           # it calls itself
    even, odd = u.code("is_even", optimize=optimize), u.code("is_odd", optimize=optimize)
    assert even.callees() == (odd,) and odd.callees() == (even,)
    forward = u.code("forward", "__torch__.M", optimize=optimize)
    assert [c.name for c in forward.callees()] == ["__torch__.M.scale"]
    assert main.subcodes() == ()               # forks only


def test_one_code_per_function_and_level():
    u = unit()
    assert u.code("main", optimize=True) is u.code("main", optimize=True)
    assert u.code("main", optimize=False) is not u.code("main", optimize=True)
    assert u.code("main", optimize=False).callees()[0].optimize is False


def test_a_unit_compiles_every_callee_it_can_reach_at_once():
    broken = HELPER.replace("aten::mul", "nope::mul")
    u = CompilationUnit({"helper": broken, "main": MAIN})
    with pytest.raises(OperatorNotFoundError, match="unknown operator nope::mul at calls.py:2:11"):
        u.code("main")
    # nothing half-linked is kept: asking again fails again
    with pytest.raises(OperatorNotFoundError):
        u.function("main")


def test_a_call_without_a_callee_is_an_error_at_build_time():
    with pytest.raises(OperatorNotFoundError) as info:
        Function(parse_ir(MAIN))
    assert str(info.value) == (
        "prim::CallFunction at calls.py:5:11: calls function 'helper', but the graph is "
        "not compiled in a unit that holds it (pyjit.CompilationUnit)\n"
        "  in: %y : int = prim::CallFunction(%h, %x, %two) # calls.py:5:11")
    with pytest.raises(OperatorNotFoundError) as info:
        CompilationUnit({"main": MAIN}).code("main")
    assert str(info.value).startswith(
        "prim::CallFunction at calls.py:5:11: calls function 'helper', which its "
        "compilation unit does not hold\n")
    with pytest.raises(OperatorNotFoundError, match=r"calls method 'scale' of __torch__\.M, "
                                                    "which its compilation unit does not hold"):
        CompilationUnit(methods={"__torch__.M": {"forward": FORWARD}}).code(
            "forward", "__torch__.M")


def test_a_call_must_fit_its_callee():
    u = CompilationUnit({"helper": HELPER, "main": MAIN.replace("%x, %two", "%x")})
    with pytest.raises(OperatorNotFoundError, match=r"^prim::CallFunction at calls.py:5:11: "
                                                    r"passes 1 arguments and takes 1 results, "
                                                    r"but helper takes 2 and returns 1\n"):
        u.code("main")


def test_a_called_function_must_be_a_named_constant():
    g = """\
graph(%x : int,
      %f : Function):
  %y : int = prim::CallFunction(%f, %x) # c.py:1:2
  return (%y)
"""
    with pytest.raises(OperatorNotFoundError, match=r"^prim::CallFunction at c.py:1:2: the "
                                                    r"function called must be a prim::Constant"):
        CompilationUnit({"g": g}).code("g")


def test_unit_definitions_are_checked():
    u = CompilationUnit({"helper": HELPER})
    with pytest.raises(ValueError, match="^helper is defined already$"):
        u.define("helper", HELPER)
    with pytest.raises(ValueError, match="^method __torch__.M.f has no inputs: its first "
                                         "input is self$"):
        u.define_method("__torch__.M", "f", "graph():\n  return ()\n")
    assert u.classes == {}
    with pytest.raises(TypeError, match="expected a Graph or IR text, got int"):
        u.define("g", 3)
    with pytest.raises(LookupError, match="^the compilation unit holds no function 'nope'$"):
        u.code("nope")
    with pytest.raises(AttributeError, match="CompilationUnit has no function 'nope'"):
        u.nope


# -- recursion -----------------------------------------------------------------------------

@pytest.fixture
def recursion_limit():
    saved = pyjit.get_recursion_limit()
    yield
    pyjit.set_recursion_limit(saved)


def test_recursion_up_to_the_limit(loop, recursion_limit):
    u = unit()
    even = u.function("is_even", loop=loop)
    assert pyjit.get_recursion_limit() == 1000
    assert even(999) is False           # 1000 activations: the limit
    with pytest.raises(GraphRecursionError) as info:
        even(1000)
    err = info.value
    assert isinstance(err, RecursionError) and isinstance(err, InterpreterError)
    assert type(err.__cause__) is RecursionError
    assert len(err.frames) == 1000
    assert str(err) == (
        "RecursionError: maximum recursion depth exceeded: a run may hold 1000 "
        "activations (its own and one per call in progress); pyjit.set_recursion_limit() "
        "changes the limit\n"
        "  at parity.py:3:11, in is_even\n"
        "  while running: %s : bool = prim::CallFunction(%f, %m) # parity.py:3:11\n"
        "  at parity.py:3:11, in is_odd\n"
        "  while running: %s : bool = prim::CallFunction(%f, %m) # parity.py:3:11\n"
        "  at parity.py:3:11, in is_even\n"
        "  while running: %s : bool = prim::CallFunction(%f, %m) # parity.py:3:11\n"
        "  at parity.py:3:11, in is_odd\n"
        "  while running: %s : bool = prim::CallFunction(%f, %m) # parity.py:3:11\n"
        + "".join(
            f"  at parity.py:3:11, in {name}\n"
            f"  while running: %s : bool = prim::CallFunction(%f, %m) # parity.py:3:11\n"
            for name in ["is_even", "is_odd"] * 498)[:-1])
    pyjit.set_recursion_limit(5000)
    assert pyjit.get_recursion_limit() == 5000
    assert even(4000) is True


def test_deep_recursion_in_both_loops(loop, recursion_limit):
    pyjit.set_recursion_limit(20_001)
    fact = unit().function("fact", loop=loop)
    assert fact(20_000) == 0    # 20000! wraps to 0 in int64 (it has 4995 factors of 2)
    assert fact(25) == 7034535277573963776


def test_repeated_frames_are_cut_as_python_cuts_them(loop):
    down = """\
graph(%n : int):
  %zero : int = prim::Constant[value=0]()
  %one : int = prim::Constant[value=1]()
  %down : Function = prim::Constant[name="down"]()
  %c : bool = aten::le(%n, %zero) # down.py:2:7
  %r : int = prim::If(%c) # down.py:2:4
    block0():
      %q : int = aten::floordiv(%one, %zero) # down.py:3:15
      -> (%q)
    block1():
      %m : int = aten::sub(%n, %one) # down.py:4:20
      %s : int = prim::CallFunction(%down, %m) # down.py:4:15
      -> (%s)
  return (%r)
"""
    f = CompilationUnit({"down": down}).function("down", loop=loop)
    call = "%s : int = prim::CallFunction(%down, %m) # down.py:4:15"
    frame = f"\n  at down.py:4:15, in down\n  while running: {call}"
    for n, shown in [(0, ""), (1, frame), (3, frame * 3),
                     (4, frame * 3 + "\n  [Previous frame repeated 1 more time]"),
                     (9, frame * 3 + "\n  [Previous frame repeated 6 more times]")]:
        with pytest.raises(InterpreterError) as info:
            f(n)
        where = "  at down.py:3:15, in down\n" if n else "  at down.py:3:15\n"
        assert str(info.value) == (
            "ZeroDivisionError: division by 0" + shown + "\n" + where +
            "  while running: %q : int = aten::floordiv(%one, %zero) # down.py:3:15")
        assert len(info.value.frames) == n + 1


# -- errors through calls --------------------------------------------------------------------

def test_the_traceback_lists_every_frame_with_its_source(loop, tmp_path):
    src = tmp_path / "prog.py"
    src.write_text("def inner(x):\n    return 10 // x\n\ndef outer(x):\n"
                   "    return inner(x - 1) + 1\n")
    u = CompilationUnit({
        "inner": parse_ir(f"""\
graph(%x : int):
  %ten : int = prim::Constant[value=10]()
  %q : int = aten::floordiv(%ten, %x) # {src}:2:11
  return (%q)
""", read_sources=True),
        "outer": parse_ir(f"""\
graph(%x : int):
  %one : int = prim::Constant[value=1]()
  %f : Function = prim::Constant[name="inner"]()
  %m : int = aten::sub(%x, %one) # {src}:5:17
  %r : int = prim::CallFunction(%f, %m) # {src}:5:11
  %s : int = aten::add(%r, %one) # {src}:5:11
  return (%s)
""", read_sources=True)})
    state = InterpreterState(u.code("outer"), loop=loop)
    with pytest.raises(InterpreterError) as info:
        state.run([1])
    err = info.value
    assert str(err) == (
        "ZeroDivisionError: division by 0\n"
        f"  at {src}:5:11, in outer\n"
        "        return inner(x - 1) + 1\n"
        "               ^\n"
        f"  while running: %r : int = prim::CallFunction(%f, %m) # {src}:5:11\n"
        f"  at {src}:2:11, in inner\n"
        "        return 10 // x\n"
        "               ^\n"
        f"  while running: %q : int = aten::floordiv(%ten, %x) # {src}:2:11")
    assert err.frames == (
        TraceFrame("outer", f"%r : int = prim::CallFunction(%f, %m) # {src}:5:11",
                   err.frames[0].location),
        TraceFrame("inner", f"%q : int = aten::floordiv(%ten, %x) # {src}:2:11",
                   err.location))
    assert (err.frames[0].location.line, err.location.line) == (5, 2)
    assert err.node == f"%q : int = aten::floordiv(%ten, %x) # {src}:2:11"
    assert type(err.__cause__) is ZeroDivisionError
    with pytest.raises(InterpreterError, match="unusable: its run failed at instruction"):
        state.run([1])


def test_a_raise_in_a_callee_is_a_jit_exception_with_every_frame(loop):
    raiser = """\
graph(%x : int):
  %m : str = prim::Constant[value="no"]()
  %c : str = prim::Constant[value="builtins.ValueError"]()
   = prim::RaiseException(%m, %c) # r.py:2:4
  return (%x)
"""
    caller = """\
graph(%x : int):
  %f : Function = prim::Constant[name="raiser"]()
  %y : int = prim::CallFunction(%f, %x) # r.py:5:11
  return (%y)
"""
    f = CompilationUnit({"raiser": raiser, "caller": caller}).function("caller", loop=loop)
    with pytest.raises(JITException) as info:
        f(3)
    assert str(info.value) == (
        "builtins.ValueError: no\n"
        "  at r.py:5:11, in caller\n"
        "  while running: %y : int = prim::CallFunction(%f, %x) # r.py:5:11\n"
        "  at r.py:2:4, in raiser\n"
        "  raised by:  = prim::RaiseException(%m, %c) # r.py:2:4")
    assert (info.value.msg, info.value.python_class) == ("no", "builtins.ValueError")


# -- suspension inside a callee ------------------------------------------------------------

WAITER = """\
graph(%f : Future[int],
      %k : int):
  %v : int = aten::wait(%f) # w.py:2:8
  %r : int = aten::mul(%v, %k) # w.py:2:8
  return (%r)
"""

STARTS_AND_WAITS = """\
graph(%x : int):
  %three : int = prim::Constant[value=3]()
  %f : Future[int] = calls_tests::pending(%x) # w.py:5:8
  %w : Function = prim::Constant[name="waiter"]()
  %r : int = prim::CallFunction(%w, %f, %three) # w.py:6:8
  %s : int = aten::add(%r, %x) # w.py:6:8
  return (%s)
"""

_pending = {}


def _start_pending(x):
    fut = Future()
    _pending[x] = fut
    return fut


pyjit.register_operator("calls_tests::pending", _start_pending)


def test_a_wait_in_a_callee_suspends_the_run_and_resumes_it(loop):
    code = CompilationUnit({"waiter": WAITER, "starts": STARTS_AND_WAITS}).code("starts")
    out = InterpreterState(code, loop=loop).run_async([7])
    assert not out.done()
    _pending.pop(7).mark_completed(5)
    assert out.wait(timeout=10) == 5 * 3 + 7


def test_a_failed_future_fails_the_callee_at_its_wait(loop):
    code = CompilationUnit({"waiter": WAITER, "starts": STARTS_AND_WAITS}).code("starts")
    out = InterpreterState(code, loop=loop).run_async([8])
    _pending.pop(8).set_error(KeyError("gone"))
    assert out.join(10)
    err = out.error()
    assert type(err) is InterpreterError
    assert str(err) == ("KeyError: 'gone'\n"
                        "  at w.py:6:8, in starts\n"
                        "  while running: %r : int = prim::CallFunction(%w, %f, %three) "
                        "# w.py:6:8\n"
                        "  at w.py:2:8, in waiter\n"
                        "  while running: %v : int = aten::wait(%f) # w.py:2:8")


# -- modules: attributes of any Python object ----------------------------------------------

def test_attributes_are_read_and_written_on_any_object(loop):
    g = """\
graph(%self : __torch__.Holder):
  %items : __torch__.torch.nn.modules.container.ModuleList = prim::GetAttr[name="items"](%self)
  %first : __torch__.Item = prim::GetAttr[name="0"](%items)
  %v : int = prim::GetAttr[name="v"](%first)
  %one : int = prim::Constant[value=1]()
  %w : int = aten::add(%v, %one)
   = prim::SetAttr[name="v"](%first, %w)
  %seen : str = prim::GetAttr[name="name"](%self)
  return (%seen)
"""
    f = CompilationUnit(methods={"__torch__.Holder": {"go": g}}).method(
        "__torch__.Holder", "go", loop=loop)
    item = types.SimpleNamespace(v=1)
    holder = types.SimpleNamespace(items=[item], name="h")
    assert f(holder) == "h" and item.v == 2
    # an object with an attribute named "0" keeps it
    holder.items = types.SimpleNamespace(**{"0": item})
    assert f(holder) == "h" and item.v == 3
    with pytest.raises(InterpreterError) as info:
        f(types.SimpleNamespace(items=[item]))
    assert str(info.value).startswith(
        "AttributeError: 'types.SimpleNamespace' object has no attribute 'name'\n")


# -- inlining ---------------------------------------------------------------------------------

def test_inline_calls_gives_one_graph_that_computes_the_same(loop):
    u = unit()
    g = u.graph("main").copy()
    assert inline_calls(g, u) == 1
    assert str(g) == ("graph(%x : int):\n"
                      "  %two : int = prim::Constant[value=2]()\n"
                      "  %c : int = aten::mul(%x, %two) # calls.py:2:11\n"
                      "  %z : int = aten::add(%c, %x) # calls.py:5:11\n"
                      "  return (%z)\n")
    assert Function(g, loop=loop)(5) == 15
    assert str(u.graph("main")) == MAIN    # the unit's own graph is not touched


def test_inline_calls_refuses_recursion():
    u = unit()
    with pytest.raises(IRError, match=r"cannot inline the call of function 'is_odd': it is "
                                      r"recursive \(is_odd -> is_even -> is_odd\)"):
        inline_calls(u.graph("is_even").copy(), u)


# -- differential: random units, called and inlined -----------------------------------------

@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(graphs=units(), args=st.lists(st.integers(-20, 20), min_size=3, max_size=3))
def test_calls_compute_what_the_inlined_graph_computes(backends, graphs, args):
    """A unit of random functions calling one another gives, run with calls on both
    loops at both levels, what the benchmarks' dict walker gives on the inlined
    graph."""
    for name, g in graphs.items():
        note(f"{name} = {g}")
    u = CompilationUnit(graphs)
    inlined = u.graph("f0").copy()
    inline_calls(inlined, u)
    args = args[:len(inlined.inputs)]
    expect = GraphInterpreter(inlined)(*args)
    for loop in backends:
        for optimize in (False, True):
            got = u.function("f0", loop=loop, optimize=optimize)(*args)
            assert got == expect and type(got) is type(expect), (loop.__name__, optimize)


def test_random_units_call_functions():
    """The strategy makes calls, nested in control flow too (not only trivial units)."""
    seen = set()

    @settings(max_examples=100, deadline=None, database=None, derandomize=True)
    @given(graphs=units())
    def look(graphs):
        for g in graphs.values():
            for n in g.all_nodes():
                if n.kind == "prim::CallFunction":
                    owner = n.owning_block.owning_node
                    seen.add("call" if owner is None else f"call in {owner.kind}")

    look()
    assert {"call", "call in prim::If", "call in prim::Loop"} <= seen, seen
