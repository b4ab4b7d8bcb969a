"""The pointwise family's direct ufunc calls (:mod:`pyjit.ops.ufunc_direct`): which
nodes get them, the run that ignores numpy's floating-point errors once, and the
same results, dtypes and errors as the generic path they stand in for."""

import types
import warnings

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from pyjit import Function, InterpreterError
from pyjit.code import Code
from pyjit.ir.parser import parse_ir
from pyjit import fperrors
from pyjit.ops import pointwise, ufunc_direct
from pyjit.registry import Registry, default_registry

from helpers.backends import import_compiled

pytestmark = pytest.mark.skipif(fperrors.CONTEXT_VAR is None,
                                reason="numpy < 2 keeps no context variable for its errors: "
                                       "the library has no direct path")

ARITHMETIC = """\
graph(%x : Tensor, %y : Tensor, %k : int):
  %one : int = prim::Constant[value=1]()
  %two : int = prim::Constant[value=2]()
  %half : float = prim::Constant[value=1.5]()
  %a1 : Tensor = aten::add(%x, %y, %one)
  %a2 : Tensor = aten::add(%x, %y, %two)
  %a3 : Tensor = aten::sub(%x, %y, %k)
  %a4 : Tensor = aten::sub(%x, %y, %one)
  %a5 : Tensor = aten::mul(%x, %y)
  %a6 : Tensor = aten::div(%x, %y)
  %a7 : Tensor = aten::add(%x, %half, %one)
  %a8 : Tensor = aten::maximum(%x, %y)
  %a9 : Tensor = aten::lt(%x, %y)
  return (%a1, %a2, %a3, %a4, %a5, %a6, %a7, %a8, %a9)
"""


def _direct(fn) -> bool:
    return ufunc_direct.is_direct(fn)


def test_the_registry_picks_the_direct_callable_where_alpha_is_the_constant_1():
    g = parse_ir(ARITHMETIC)
    fns = {n.outputs[0].debug_name: default_registry.lookup(n).fn
           for n in g.nodes() if n.kind.startswith("aten::")}
    assert fns["a1"] is pointwise._add and fns["a4"] is pointwise._sub
    assert fns["a5"] is pointwise._BY_NAME["mul"] and fns["a6"] is pointwise._true_div
    assert fns["a7"] is pointwise._add  # a Python number with the constant alpha 1
    assert all(_direct(fns[k]) for k in ("a1", "a4", "a5", "a6", "a7", "a8"))
    # alpha 2, or not a constant: the generic operator applies it; lt needs no errors off.
    assert fns["a2"] is pointwise.add and fns["a3"] is pointwise.sub
    assert not any(_direct(fns[k]) for k in ("a2", "a3", "a9"))
    # Every direct callable, and the generic ones that call fperrors.enter, want
    # their run to ignore numpy's errors once; lt has none to ignore.
    assert fperrors.wants_quiet_run([fns["a1"]]) and fperrors.wants_quiet_run([fns["a3"]])
    assert not fperrors.wants_quiet_run([fns["a9"]])
    if ufunc_direct.COMPILED:  # C, no Python frame
        assert not isinstance(fns["a1"], types.FunctionType)
    assert fns["a1"].__name__ == "add" and fns["a6"].__name__ == "div"


def test_code_runs_quiet_only_with_direct_callables():
    assert Code(parse_ir(ARITHMETIC)).quiet_fp
    ints = "graph(%a : int, %b : int):\n  %c : int = aten::add(%a, %b)\n  return (%c)\n"
    assert not Code(parse_ir(ints)).quiet_fp
    # A user's own aten::add replaces the library's: nothing to run quiet for.
    mine = Registry()
    mine.register("aten::add", lambda x, y, alpha: x, types=["Tensor", "Tensor", "Scalar"])
    tensors = ("graph(%x : Tensor, %y : Tensor):\n  %one : int = prim::Constant[value=1]()\n"
               "  %z : Tensor = aten::add(%x, %y, %one)\n  return (%z)\n")
    assert not Code(parse_ir(tensors), registry=mine).quiet_fp


DIVIDE = """\
graph(%x : Tensor, %y : Tensor):
  %z : Tensor = aten::div(%x, %y)
  %w : Tensor = aten::mul(%z, %y)
  return (%w)
"""


def test_a_run_ignores_errors_silently_and_restores_the_callers_setting(loop):
    f = Function(parse_ir(DIVIDE), loop=loop)
    x, y = np.array([1.0, 0.0, -1.0], np.float32), np.zeros(3, np.float32)
    before = fperrors.CONTEXT_VAR.get()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a RuntimeWarning would fail the test
        r = f(x, y)
    assert r.dtype == np.float32 and np.isnan(r).all()
    assert fperrors.CONTEXT_VAR.get() is before and not fperrors.is_quiet()
    with np.errstate(divide="raise", invalid="raise"):
        assert np.isnan(f(x, y)).all()  # as torch: no error for inf and NaN
        assert np.geterr()["divide"] == "raise"  # the caller's setting is back
        with pytest.raises(FloatingPointError):
            np.divide(x, y)


def test_the_direct_path_keeps_zero_dim_results_and_torch_errors(loop):
    f = Function(parse_ir(DIVIDE), loop=loop)
    r = f(np.array(3.0, np.float32), np.array(2.0, np.float32))
    assert type(r) is np.ndarray and r.shape == () and r.dtype == np.float32 and r == 3.0
    with pytest.raises(InterpreterError, match=r"The size of tensor a \(3\) must match the size "
                                               r"of tensor b \(4\) at non-singleton dimension 0"):
        f(np.zeros(3, np.float32), np.ones(4, np.float32))
    # Mixed dtypes take the generic path: torch's promotion, not numpy's.
    assert f(np.arange(3), np.ones(3, np.float32)).dtype == np.float32


def test_a_float_alpha_is_refused_for_integral_tensors_even_when_1():
    # torch.add(torch.tensor([1]), torch.tensor([2]), alpha=1.0), torch 2.13:
    msg = "For integral input tensors, argument alpha must not be a floating point number."
    with pytest.raises(TypeError, match=msg):
        pointwise.add(np.array([1]), np.array([2]), 1.0)
    assert pointwise.add(np.array([1.0]), np.array([2.0]), 1.0).tolist() == [3.0]


# -- the direct path against the generic one ------------------------------------------

DTYPES = [np.bool_, np.uint8, np.int8, np.int16, np.int32, np.int64, np.float16, np.float32,
          np.float64, np.complex64, np.complex128]
SHAPES = [(), (1,), (3,), (2, 3), (1, 3), (4,)]
#: Every binary operator of the family that has a direct path (add and sub: the
#: forms without alpha, which the constant alpha 1 resolves to).
DIRECT = {**{name: fn for name, fn in pointwise._BY_NAME.items() if _direct(fn)},
          "add": pointwise._add, "sub": pointwise._sub}


def test_the_arithmetic_and_more_have_a_direct_path():
    assert {"add", "sub", "mul", "div", "maximum", "bitwise_and", "remainder"} <= set(DIRECT)


@st.composite
def operands(draw):
    dt = np.dtype(draw(st.sampled_from(DTYPES)))
    elements = st.integers(-3, 3) if dt.kind in "iu" else None
    if dt.kind == "u":
        elements = st.integers(0, 5)
    a = draw(hnp.arrays(dt, st.sampled_from(SHAPES), elements=elements))
    kind = draw(st.sampled_from(["same", "same", "other", "number"]))
    if kind == "number":
        b = draw(st.one_of(st.integers(-3, 3), st.floats(-4, 4), st.booleans()))
    else:
        bt = dt if kind == "same" else np.dtype(draw(st.sampled_from(DTYPES)))
        el = st.integers(0, 3) if bt.kind in "iu" else None
        b = draw(hnp.arrays(bt, st.sampled_from(SHAPES), elements=el))
    return a, b


def outcome(fn, a, b):
    """What ``fn(a, b)`` gives: the array exactly (type, dtype, shape, bytes), or
    the error's type and text."""
    try:
        r = fn(a, b)
    except Exception as exc:  # the paths must fail alike, whatever the failure
        return ("raise", type(exc), str(exc))
    return ("ok", type(r), r.dtype, r.shape, r.tobytes())


def in_a_run(fn, a, b):
    token = fperrors.enter()
    assert token is not None
    try:
        return outcome(fn, a, b)
    finally:
        fperrors.leave(token)


@given(name=st.sampled_from(sorted(DIRECT)), ab=operands())
def test_direct_path_equals_generic_path(name, ab):
    """Inside a run the callable calls the ufunc itself where it can; outside one
    it is the generic implementation throughout: the two must not differ."""
    a, b = ab
    fn = DIRECT[name]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert in_a_run(fn, a, b) == outcome(fn, a, b)


#: The in-place forms with a direct path, by name (``add_``, ``mul_``...).
DIRECT_INPLACE = {op.kind.split("::")[1]: op.fn for kind in default_registry.kinds()
                  if kind.startswith("aten::") and kind.endswith("_")
                  for op in default_registry.overloads(kind)
                  if op.fn is not None and _direct(op.fn)}


def test_the_in_place_arithmetic_has_a_direct_path():
    assert {"add_", "sub_", "mul_", "div_", "bitwise_or_"} <= set(DIRECT_INPLACE)


def outcome_in_place(fn, a, b):
    """``fn(a, b)`` on a copy of ``a``: whether it returned the copy, and the copy
    after it (or the error)."""
    a = a.copy()
    try:
        r = fn(a, b)
    except Exception as exc:
        return ("raise", type(exc), str(exc))
    return ("ok", r is a, a.dtype, a.shape, a.tobytes())


@given(name=st.sampled_from(sorted(DIRECT_INPLACE)), ab=operands())
def test_direct_in_place_path_equals_generic_path(name, ab):
    a, b = ab
    fn = DIRECT_INPLACE[name]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        token = fperrors.enter()
        try:
            inside = outcome_in_place(fn, a, b)
        finally:
            fperrors.leave(token)
        assert inside == outcome_in_place(fn, a, b)


def test_the_in_place_direct_path_returns_self_and_keeps_torch_errors():
    add_ = DIRECT_INPLACE["add_"]
    x, y = np.ones(3, np.float32), np.arange(3, dtype=np.float32)
    token = fperrors.enter()
    try:
        assert add_(x, y) is x and x.tolist() == [1.0, 2.0, 3.0]
        with pytest.raises(ValueError, match=r"output with shape \[3\] doesn't match the "
                                             r"broadcast shape \[2, 3\]"):
            add_(x, np.ones((2, 3), np.float32))
        with pytest.raises(ValueError, match="more than one element of the written-to tensor"):
            add_(np.broadcast_to(np.float32(1), (3,)), y)
    finally:
        fperrors.leave(token)


# -- the C callable against its Python twin -----------------------------------------

F32, F64, I64 = np.dtype(np.float32), np.dtype(np.float64), np.dtype(np.int64)


def cases():
    """Operands for the twins, made afresh for each (the in-place form writes)."""
    return [
        (np.ones(3, F32), np.ones(3, F32)),
        (np.ones(3, F32), np.ones(3, F64)),
        (np.ones(3, I64), np.ones(3, I64)),
        (np.ones(3, F32), 2.5), (np.ones(3, F32), 2), (np.ones(3, F32), True),
        (np.ones(3, I64), 2), (2.5, np.ones(3, F32)),
        (np.array(1.0, F32), np.array(2.0, F32)),
        (np.ones(3, F32), np.ones(4, F32)),
        (np.ones(3, F32).view(np.recarray), np.ones(3, F32)),
        (np.ones(3, F32), np.ones((2, 3), F32)),
    ]


@pytest.mark.parametrize("into_first", [False, True])
@pytest.mark.parametrize("quiet", [False, True])
@pytest.mark.parametrize("same", [None, (F32, F64)])
def test_c_callable_equals_python_twin(quiet, same, into_first):
    core = import_compiled("pyjit.ops._ufunc_direct")

    def spy(calls):
        def generic(a, b):
            calls.append((a, b))
            return np.add(a, b, out=a) if into_first else np.asarray(np.add(a, b))
        generic.__name__ = "add"
        return generic

    made = []
    for make in (core.direct, ufunc_direct.direct_python):
        calls = []
        op = make(np.add, spy(calls), same, (F32,), fperrors.CONTEXT_VAR, fperrors.QUIET,
                  into_first)
        operands = cases()
        token = fperrors.enter() if quiet else None
        try:
            results = [outcome(op, a, b) for a, b in operands]
        finally:
            fperrors.leave(token)
        made.append((results, [i for i, (a, b) in enumerate(operands)
                               for c in calls if c[0] is a and c[1] is b],
                     [a.tobytes() if isinstance(a, np.ndarray) else a for a, _ in operands]))
        assert op.__name__ == "add"
    assert made[0] == made[1]
    generic_cases = made[0][1]
    if not quiet:
        assert generic_cases == list(range(len(cases())))
    else:  # straight: same dtype (in `same`), or float32 with a number; 0-dim too;
        # a broadcast that would grow the first operand is the generic's in place
        straight = {0, 3, 4, 8} | ({2} if same is None else set()) | (
            set() if into_first else {11})
        assert set(range(len(cases()))) - set(generic_cases) == straight
