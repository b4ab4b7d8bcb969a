"""The typed tier's intrinsics compute exactly what the library operators they stand
for compute: every operator the library declares with an intrinsic, run as a
graph at both levels (``optimize=False``: a CALL of the operator; the default:
the intrinsic on scalar registers) on both loops, on edge values and random ones,
must give the same value, of the same type, or the same error.

Also: constants as operands (preloaded registers, and the compiled loop's shift
and mask for a power of two), comparisons folded into branches (NaN included),
and a user's own operator replacing the library's at both levels.
"""

from __future__ import annotations

import math
import operator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pyjit import opcodes
from pyjit.interpreter import Function
from pyjit.ir import types as T
from pyjit.ir.parser import parse_ir
from pyjit.registry import Registry, default_registry

from helpers.backends import import_backend

INT64_MIN, INT64_MAX = -2 ** 63, 2 ** 63 - 1
INT_EDGES = [0, 1, -1, 2, -2, 3, 7, -7, 1000003, 2 ** 31, -2 ** 31, 2 ** 53 + 1,
             INT64_MIN, INT64_MAX, INT64_MIN + 1, INT64_MAX - 1]
FLOAT_EDGES = [0.0, -0.0, 1.0, -1.0, 0.5, -2.5, 3.0, 1e308, -1e308, 5e-324, math.inf,
               -math.inf, math.nan, 2.0 ** 63, -2.0 ** 63, 9007199254740993.0, 1e-300]
VALUES = {
    T.INT: st.one_of(st.sampled_from(INT_EDGES), st.integers(INT64_MIN, INT64_MAX)),
    T.FLOAT: st.one_of(st.sampled_from(FLOAT_EDGES),
                       st.floats(allow_nan=True, allow_infinity=True)),
    T.BOOL: st.booleans(),
}
_TYPE_OF_KIND = {"I": T.INT, "F": T.FLOAT, "B": T.BOOL}


def _intrinsic_signatures():
    """(kind, input types, output type, intrinsic) for every operator of the
    library declared with an intrinsic, factories included."""
    out = []
    for kind in default_registry.kinds():
        for o in default_registry.overloads(kind):
            if o.intrinsic:
                d = opcodes.BY_NAME[o.intrinsic]
                out.append((kind, o.types, _TYPE_OF_KIND[d.outputs.fixed], o.intrinsic))
    # Factories that return an Intrinsic: ==, != and float powers.
    for a, b in [(T.INT, T.INT), (T.FLOAT, T.FLOAT), (T.INT, T.FLOAT), (T.FLOAT, T.INT),
                 (T.BOOL, T.BOOL)]:
        suffix = {(T.INT, T.INT): "_I", (T.BOOL, T.BOOL): "_B"}.get((a, b), "_F")
        for name in ("eq", "ne"):
            out.append((f"aten::{name}", (a, b), T.BOOL, f"{name.upper()}{suffix}"))
        if T.BOOL not in (a, b):
            out.append(("aten::pow", (a, b), T.FLOAT, "POW_F"))
    return out


SIGNATURES = _intrinsic_signatures()


def _graph(kind, types, out, constant=None):
    """``%r = kind(%a, ...)``; with ``constant``, the last input is that constant."""
    names = [f"%a{i}" for i in range(len(types))]
    params = [f"{n} : {t}" for n, t in zip(names, types)]
    body = []
    if constant is not None:
        params.pop()
        value = {True: "1", False: "0"}.get(constant, repr(constant)) \
            if isinstance(constant, bool) else repr(constant)
        body.append(f"  {names[-1]} : {types[-1]} = prim::Constant[value={value}]()")
    body.append(f"  %r : {out} = {kind}({', '.join(names)})")
    return parse_ir(f"graph({', '.join(params)}):\n" + "\n".join(body) + "\n  return (%r)\n")


def _outcome(fn, args):
    try:
        r = fn(*args)
    except Exception as exc:  # the cause is what the operator raised
        cause = exc.__cause__ or exc
        return ("raise", type(cause).__name__, str(cause))
    if isinstance(r, float):
        return ("ok", "float", repr(r))  # repr: -0.0 and nan are themselves
    return ("ok", type(r).__name__, r)


def test_every_intrinsic_implements_a_library_operator():
    declared = {sig[3] for sig in SIGNATURES}
    assert declared == set(d.name for d in opcodes.INTRINSICS.values())
    for d in opcodes.INTRINSICS.values():
        kind, types, _ = d.implements.partition("(")
        assert default_registry.overloads(kind), d


_FUNCTIONS: dict = {}


def _four(kind, types, out):
    """The graph as Functions: (pure, compiled) x (unoptimised, optimised), built
    once per signature."""
    key = (kind, types, out)
    if key not in _FUNCTIONS:
        g = _graph(kind, types, out)
        _FUNCTIONS[key] = [Function(g, loop=import_backend(b), optimize=o)
                           for b in ("pure", "compiled") for o in (False, True)]
    return _FUNCTIONS[key]


@pytest.mark.parametrize("kind, types, out, name", SIGNATURES,
                         ids=[f"{s[3]}-{s[0]}({','.join(map(str, s[1]))})" for s in SIGNATURES])
@settings(max_examples=150, deadline=None)
@given(data=st.data())
def test_intrinsic_equals_its_operator(kind, types, out, name, data):
    args = [data.draw(VALUES[t]) for t in types]
    fns = _four(kind, types, out)
    assert name in fns[1].code.dump() and name in fns[3].code.dump()  # not a call
    results = [_outcome(f, args) for f in fns]
    assert all(r == results[0] for r in results), (kind, types, args, results)


DIVISORS = [1, 2, 4, 8, 2 ** 62, 3, 5, 7, 10, 641, -1, -2, -3, 0, 1000003,
            2 ** 62 + 1, 2 ** 63 - 1, INT64_MIN]


@pytest.mark.parametrize("kind", ["aten::floordiv", "aten::remainder", "aten::mul",
                                  "aten::add", "aten::sub", "prim::min"])
@pytest.mark.parametrize("divisor", DIVISORS)
def test_constant_operands(kind, divisor):
    """A constant operand is a preloaded register; the compiled loop turns // and %
    by a power of two into a shift and a mask."""
    g = _graph(kind, (T.INT, T.INT), T.INT, constant=divisor)
    fns = [Function(g, loop=import_backend(b), optimize=o)
           for b in ("pure", "compiled") for o in (False, True)]
    for x in INT_EDGES + [5, -5, 12345, -12345]:
        results = [_outcome(f, [x]) for f in fns]
        assert all(r == results[0] for r in results), (kind, x, divisor, results)


@settings(max_examples=200, deadline=None)
@given(d=st.integers(3, 2 ** 63 - 1).filter(lambda d: d & (d - 1)),
       xs=st.lists(st.integers(INT64_MIN, 2 ** 63 - 1), min_size=1, max_size=8))
def test_division_by_a_constant_reciprocal(d, xs):
    """The compiled loop divides by a constant d > 2 (not a power of two) with a
    multiplication by a 64-bit reciprocal where the dividend is non-negative: it
    must be Python's // and % exactly, up to the largest dividends."""
    for kind, py in (("aten::floordiv", operator.floordiv),
                     ("aten::remainder", operator.mod)):
        g = _graph(kind, (T.INT, T.INT), T.INT, constant=d)
        f = Function(g, loop=import_backend("compiled"), optimize=True)
        for x in xs + [0, d - 1, d, d + 1, 2 ** 63 - 1, (2 ** 63 - 1) // d * d]:
            if x < 2 ** 63:
                assert f(x) == py(x, d), (kind, x, d)


CMP = {"lt": operator.lt, "le": operator.le, "gt": operator.gt, "ge": operator.ge,
       "eq": operator.eq, "ne": operator.ne}


@pytest.mark.parametrize("cmp", list(CMP))
@pytest.mark.parametrize("t", ["int", "float"])
def test_a_comparison_folded_into_a_branch(cmp, t, loop):
    """``if a < b`` becomes one compare-and-branch; the else side jumps on the
    comparison's negation, which for floats with a NaN is not the swapped one."""
    g = parse_ir(f"""\
graph(%a : {t}, %b : {t}):
  %c : bool = aten::{cmp}(%a, %b)
  %r : int = prim::If(%c)
    block0():
      %one : int = prim::Constant[value=1]()
      -> (%one)
    block1():
      %two : int = prim::Constant[value=2]()
      -> (%two)
  return (%r)
""")
    f = Function(g, loop=loop)
    if f.code.optimize:
        assert f"aten::{cmp}" not in f.code.dump().split("\n\n")[-1]  # folded away
    values = INT_EDGES[:6] if t == "int" else [0.0, -0.0, 1.0, -1.0, math.nan, math.inf]
    for a in values:
        for b in values:
            assert f(a, b) == (1 if CMP[cmp](a, b) else 2), (cmp, a, b)


@pytest.mark.parametrize("cmp", ["lt", "le", "gt", "ge"])
def test_a_while_condition_folded_at_entry_and_back_edge(cmp, loop):
    """``while x < n`` (torch: a Loop with the INT64_MAX trip count and a computed
    condition) enters on the negated comparison and goes round on it; the body
    steps towards the end (up for < and <=, down for > and >=)."""
    step = "add" if cmp in ("lt", "le") else "sub"
    g = parse_ir(f"""\
graph(%x : float, %n : float):
  %max : int = prim::Constant[value=9223372036854775807]()
  %c0 : bool = aten::{cmp}(%x, %n)
  %one : float = prim::Constant[value=1.]()
  %r : float = prim::Loop(%max, %c0, %x)
    block0(%i : int, %y : float):
      %z : float = aten::{step}(%y, %one)
      %c : bool = aten::{cmp}(%z, %n)
      -> (%c, %z)
  return (%r)
""")
    f = Function(g, loop=loop)
    delta = 1.0 if step == "add" else -1.0
    for x, n in [(0.0, 5.0), (5.0, 5.0), (7.0, 5.0), (math.nan, 5.0), (0.0, math.nan),
                 (-5.5, -3.0), (2.5, 2.5), (10.0, -3.0)]:
        y = x
        while CMP[cmp](y, n):
            y += delta
        got = f(x, n)
        assert got == y or (math.isnan(got) and math.isnan(y)), (cmp, x, n)


def test_a_users_operator_replaces_the_intrinsic_at_every_level(loop):
    """An intrinsic runs only where the registry resolves a node to the library's
    own operator: register your own aten::sub(int, int), and it is called (a
    subtraction: the seed's desugared loop counter uses the library's add)."""
    calls = []

    def my_sub(a, b):
        calls.append((a, b))
        return a - b + 100

    reg = Registry()
    for kind in default_registry.kinds():  # the library, then one override
        for o in default_registry.overloads(kind):
            if o.factory is None:
                reg.register(kind, o.fn, types=o.types, varargs=o.varargs, stack=o.stack,
                             intrinsic=o.intrinsic)
    reg.register("aten::sub", my_sub, types=["int", "int"])
    g = parse_ir("""\
graph(%n : int):
  %t : bool = prim::Constant[value=1]()
  %zero : int = prim::Constant[value=0]()
  %r : int = prim::Loop(%n, %t, %zero)
    block0(%i : int, %acc : int):
      %next : int = aten::sub(%acc, %i)
      -> (%t, %next)
  return (%r)
""")
    f = Function(g, loop=loop, registry=reg)
    assert f(3) == (0 - 0 + 100) - 1 + 100 - 2 + 100
    assert calls == [(0, 0), (100, 1), (199, 2)]
    assert "SUB_I" not in f.code.dump()
    # The library's own operator, in the default registry, is the intrinsic.
    assert "SUB_I" in Function(g, loop=loop, optimize=True).code.dump()


_PARITY = """graph(%n : int):
  %two : int = prim::Constant[value={d}]()
  %zero : int = prim::Constant[value=0]()
  %one : int = prim::Constant[value=1]()
  %r : int = aten::remainder(%n, %two)
  %c : bool = aten::{cmp}(%r, %zero)
  %y : int = prim::If(%c)
    block0():
      %h : int = aten::floordiv(%n, %two)
      -> (%h)
    block1():
      %t : int = aten::mul(%n, %two)
      %u : int = aten::add(%t, %one)
      -> (%u)
  %s : int = aten::add(%y, %r)
  return (%s)
"""


@pytest.mark.parametrize("cmp", ["eq", "ne"])
@pytest.mark.parametrize("d", [2, 8])
def test_a_parity_test_fused_with_its_branch(cmp, d):
    """``if n % 2 == 0`` is one instruction of the compiled loop (REM_POW2 fused
    with the jump): both outcomes, negative dividends, and the remainder still
    written for its other use."""
    g = parse_ir(_PARITY.replace("{d}", str(d)).replace("{cmp}", cmp))
    fns = [Function(g, loop=import_backend(b), optimize=o)
           for b in ("pure", "compiled") for o in (False, True)]
    for n in [0, 1, 2, 3, 7, 8, 9, -1, -2, -7, -8, 2 ** 62, INT64_MIN, 2 ** 63 - 1]:
        r = n % d
        y = (n // d) if (r == 0) == (cmp == "eq") else (n * d + 1)
        want = ((y + r + 2 ** 63) % 2 ** 64) - 2 ** 63  # int64 wrap of mul and add
        assert [f(n) for f in fns] == [want] * 4, (cmp, d, n)
