"""Tensor operators the Python frontend emits beyond the first set: in-place
arithmetic (``x += y`` ...), ``x.T``, ``where``, ``clamp``, ``amax``/``amin``,
``sign``, ``square`` and more float functions.

Every expected value, dtype and message below was computed once with torch 2.13
(CPU) and is recorded here as a literal; pyjit never imports torch.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from pyjit.errors import InterpreterError
from pyjit.frontend import script
from pyjit.interpreter import Function
from pyjit.ir.parser import parse_ir

from helpers.operators import op
from helpers.source_files import load_function

F32, F64, I64, I32, U8, B = (np.dtype(t) for t in
                             ("float32", "float64", "int64", "int32", "uint8", "bool"))
NAN, INF = math.nan, math.inf


def arr(values, dtype):
    return np.array(values, dtype=dtype)


def check(got, values, dtype, shape=None):
    """``got`` is an array of ``dtype`` holding ``values`` (float32 within an ulp or
    two: numpy's and ATen's libm may round the last bit differently)."""
    assert type(got) is np.ndarray
    assert got.dtype == dtype
    want = np.array(values, dtype=dtype)
    assert got.shape == (want.shape if shape is None else tuple(shape))
    if dtype.kind == "f":
        np.testing.assert_allclose(got, want, rtol=4e-7 if dtype == F32 else 1e-15, atol=0)
    else:
        np.testing.assert_array_equal(got, want)


# -- in place: x += y, x -= y, x *= y, x /= y ------------------------------------------------

INPLACE = """graph(%x : Tensor, %y : Tensor):
  %one : int = prim::Constant[value=1]()
  %z : Tensor = aten::KIND(%x, %y ALPHA)
  return (%x, %z)
"""


@pytest.mark.parametrize("kind", ["add_", "sub_", "mul_", "div_"])
def test_in_place_writes_self_and_returns_it(kind, loop):
    """Both loops: the result is the very array passed in, and the caller sees the
    new values (an alias of ``x`` would too, as in torch)."""
    text = INPLACE.replace("KIND", kind).replace(
        " ALPHA", ", %one" if kind in ("add_", "sub_") else "")
    x = arr([1.5, -2.0, 0.0], F32)
    a, z = Function(parse_ir(text), loop=loop)(x, arr([0.5, 4.0, 2.0], F32))
    assert a is x and z is x
    want = {"add_": [2.0, 2.0, 2.0], "sub_": [1.0, -6.0, -2.0], "mul_": [0.75, -8.0, 0.0],
            "div_": [3.0, -0.5, 0.0]}[kind]
    check(x, want, F32)


@pytest.mark.parametrize("kind, types, a, b, values, dtype", [
    ("add_", ("Tensor", "int"), arr([1, -2, 3], I64), 1, [2, -1, 4], I64),
    ("sub_", ("Tensor", "int"), arr([1, -2, 3], I64), 1, [0, -3, 2], I64),
    ("mul_", ("Tensor", "int"), arr([1, -2, 3], I64), 2, [2, -4, 6], I64),
    ("mul_", ("Tensor", "Tensor"), arr([1, -2, 3], I64), arr([1, -2, 3], I64), [1, 4, 9], I64),
    ("div_", ("Tensor", "int"), arr([1.5, -2.0, 0.0], F32), 2, [0.75, -1.0, 0.0], F32),
    ("div_", ("Tensor", "int"), arr([1.5, -2.0, 0.0], F32), 0, [INF, -INF, NAN], F32),
    # computed in float64, cast back into the float32 self
    ("add_", ("Tensor", "Tensor"), arr([1.5, -2.0, 0.0], F32), arr([1.5, -2.0, 0.0], F64),
     [3.0, -4.0, 0.0], F32),
    ("add_", ("Tensor", "float"), arr([1.5, -2.0, 0.0], F32), 1e40, [INF, INF, INF], F32),
    ("mul_", ("Tensor", "Tensor"), arr([True, False, True], B), arr([True, False, True], B),
     [True, False, True], B),
    ("add_", ("Tensor", "Tensor"), arr([1, -2, 3], I32), arr([1, -2, 3], I64), [2, -4, 6], I32),
    ("add_", ("Tensor", "Tensor"), arr([1, -2, 3], I32), arr(5, I64), [6, 3, 8], I32),
    # a number is cast into self's integer dtype, wrapping around
    ("sub_", ("Tensor", "int"), arr([1, 2, 3], U8), 5, [252, 253, 254], U8),
    ("add_", ("Tensor", "int"), arr([1], U8), 300, [45], U8),
    ("add_", ("Tensor", "int"), arr([1, -2, 3], I32), 2 ** 40, [1, -2, 3], I32),
    ("add_", ("Tensor", "Tensor"), arr([1, 2, 3], U8), arr([1, -2, 3], I64), [2, 0, 6], U8),
    ("add_", ("Tensor", "Tensor"), arr([1, -2, 3], I64), arr([1, 2, 3], U8), [2, 0, 6], I64),
    ("add_", ("Tensor", "Tensor"), np.ones((2, 3), F32), arr([1.5, -2.0, 0.0], F32),
     [[2.5, -1.0, 1.0], [2.5, -1.0, 1.0]], F32),
    ("add_", ("Tensor", "int"), arr(2.5, F32), 1, 3.5, F32),
])
def test_in_place_values_and_dtypes(kind, types, a, b, values, dtype):
    f = op(f"aten::{kind}", *types)
    assert f(a, b) is a
    check(a, values, dtype)


def test_in_place_alpha():
    """A constant alpha of 1 (what ``x += y`` compiles to) is skipped; any other is
    applied, and a float alpha on an integer self is refused."""
    plain = op("aten::add_", "Tensor", "Tensor", "int", consts={2: "int=1"})
    scaled = op("aten::add_", "Tensor", "Tensor", "Scalar")
    x = arr([1, -2, 3], I64)
    assert plain(x, arr([1, 1, 1], I64), 1) is x
    check(x, [2, -1, 4], I64)
    assert scaled(x, arr([1, -2, 3], I64), 2) is x
    check(x, [4, -5, 10], I64)
    f = arr([1.5, -2.0, 0.0], F32)
    check(scaled(f, arr([1.5, -2.0, 0.0], F32), 2.5), [5.25, -7.0, 0.0], F32)
    g = arr([1.5, -2.0, 0.0], F32)
    check(op("aten::sub_", "Tensor", "int", "int")(g, 1, 2), [-0.5, -4.0, -2.0], F32)
    with pytest.raises(TypeError, match=r"^For integral input tensors, argument alpha must not "
                                        r"be a floating point number\.$"):
        scaled(arr([1, -2, 3], I64), arr([1, -2, 3], I64), 2.5)


@pytest.mark.parametrize("kind, types, a, b, exc, message", [
    ("add_", ("Tensor", "float"), arr([1, -2, 3], I64), 1.5, TypeError,
     "result type Float can't be cast to the desired output type Long"),
    ("add_", ("Tensor", "Tensor"), arr([1, -2, 3], I64), arr([1.5, -2.0, 0.0], F32), TypeError,
     "result type Float can't be cast to the desired output type Long"),
    ("mul_", ("Tensor", "float"), arr([1, -2, 3], I64), 2.0, TypeError,
     "result type Float can't be cast to the desired output type Long"),
    ("div_", ("Tensor", "int"), arr([1, -2, 3], I64), 2, TypeError,
     "result type Float can't be cast to the desired output type Long"),
    ("div_", ("Tensor", "Tensor"), arr([1, -2, 3], I64), arr([1, -2, 3], I64), TypeError,
     "result type Float can't be cast to the desired output type Long"),
    ("add_", ("Tensor", "int"), arr([True, False], B), 1, TypeError,
     "result type Long can't be cast to the desired output type Bool"),
    ("div_", ("Tensor", "Tensor"), arr([True, False], B), arr([True, False], B), TypeError,
     "result type Float can't be cast to the desired output type Bool"),
    ("sub_", ("Tensor", "Tensor"), arr([1.5], F32), arr([True], B), TypeError,
     "Subtraction, the `-` operator, with a bool tensor is not supported. If you are trying "
     "to invert a mask, use the `~` or `logical_not()` operator instead."),
    ("sub_", ("Tensor", "Tensor"), arr([True, False], B), arr([True, False], B), TypeError,
     "Subtraction, the `-` operator, with two bool tensors is not supported. Use the `^` or "
     "`logical_xor()` operator instead."),
    ("add_", ("Tensor", "Tensor"), arr([1.5, -2.0, 0.0], F32), np.ones((2, 3), F32), ValueError,
     "output with shape [3] doesn't match the broadcast shape [2, 3]"),
    ("mul_", ("Tensor", "Tensor"), np.ones(1, F32), arr([1.5, -2.0, 0.0], F32), ValueError,
     "output with shape [1] doesn't match the broadcast shape [3]"),
    ("add_", ("Tensor", "Tensor"), arr(1.0, F32), arr([1.5, -2.0, 0.0], F32), ValueError,
     "output with shape [] doesn't match the broadcast shape [3]"),
    ("div_", ("Tensor", "Tensor"), arr([1.5, -2.0, 0.0], F32), np.ones(2, F32), ValueError,
     "The size of tensor a (3) must match the size of tensor b (2) at non-singleton "
     "dimension 0"),
    ("sub_", ("Tensor", "Tensor"), np.ones((4, 3), F32), np.ones((2, 1), F32), ValueError,
     "The size of tensor a (4) must match the size of tensor b (2) at non-singleton "
     "dimension 0"),
])
def test_in_place_errors_leave_self_alone(kind, types, a, b, exc, message):
    before = a.copy()
    with pytest.raises(exc) as info:
        op(f"aten::{kind}", *types)(a, b)
    assert str(info.value) == message
    np.testing.assert_array_equal(a, before)


def test_out_of_place_sub_refuses_one_bool_operand_too():
    with pytest.raises(TypeError, match=r"^Subtraction, the `-` operator, with a bool tensor "):
        op("aten::sub", "Tensor", "int")(arr([True], B), 1)
    check(op("aten::sub", "Tensor", "int")(arr([1, -2, 3], I64), 1), [0, -3, 2], I64)


@pytest.mark.parametrize("kind", ["aten::add", "aten::sub", "aten::mul", "aten::add_"])
def test_a_bool_is_no_scalar(kind):
    """torch's Scalar is int, float or complex: for ``x + b`` with a bool ``b`` torch
    prints ``aten::Int(b)`` first, so a graph handing the bool itself has no overload."""
    from pyjit.errors import OperatorNotFoundError
    with pytest.raises(OperatorNotFoundError, match=rf"no overload of {kind} accepts "
                                                     rf"{kind}\(Tensor, bool\)"):
        op(kind, "Tensor", "bool")


def test_in_place_on_a_tensor_constant_raises():
    """A Code's tensor constants are shared read-only arrays: writing one is an error
    rather than a change every later run would see."""
    f = Function(parse_ir("""graph(%y : Tensor):
  %c : Float(requires_grad=0, device=cpu) = prim::Constant[value={2.5}]()
  %one : int = prim::Constant[value=1]()
  %z : Tensor = aten::add_(%c, %y, %one)
  return (%z)
"""))
    with pytest.raises(InterpreterError, match="^ValueError: output array is read-only"):
        f(arr(1.0, F32))


# -- x.T, where, clamp ----------------------------------------------------------------------------

def test_numpy_T_reverses_the_dimensions_as_a_view():
    T = op("aten::numpy_T", "Tensor")
    scalar = arr(3.0, F32)
    check(T(scalar), 3.0, F32)
    check(T(arr([1.5, -2.0, 0.0], F32)), [1.5, -2.0, 0.0], F32)
    x = np.arange(6, dtype=I64).reshape(2, 3)
    check(T(x), [[0, 3], [1, 4], [2, 5]], I64)
    cube = np.arange(24, dtype=I64).reshape(2, 3, 4)
    check(T(cube), [[[0, 12], [4, 16], [8, 20]], [[1, 13], [5, 17], [9, 21]],
                    [[2, 14], [6, 18], [10, 22]], [[3, 15], [7, 19], [11, 23]]], I64)
    assert np.shares_memory(T(cube), cube) and not T(cube).flags.c_contiguous


C = arr([True, False, True], B)


@pytest.mark.parametrize("types, cond, a, b, values, dtype", [
    (("Tensor", "Tensor"), C, arr([1, -2, 3], I64), arr([1.5, -2.0, 0.0], F32),
     [1.0, -2.0, 3.0], F32),
    (("Tensor", "Tensor"), C, arr([1, -2, 3], I64), arr([1.5, -2.0, 0.0], F64),
     [1.0, -2.0, 3.0], F64),
    (("Tensor", "Tensor"), C, arr([1.5, -2.0, 0.0], F32), arr(2.0, F64), [1.5, 2.0, 0.0], F32),
    (("Tensor", "Tensor"), C, arr([1, -2, 3], I64), arr([1, 2, 3], I32), [1, 2, 3], I64),
    (("Tensor", "Tensor"), C, arr([True, False, True], B), arr([True, False, True], B),
     [True, False, True], B),
    (("Tensor", "Tensor"), C, arr([True, False, True], B), arr([1, -2, 3], I64), [1, -2, 1], I64),
    (("Tensor", "Tensor"), arr([1, 0, 2], U8), arr([1, -2, 3], I64), arr([7, 8, 9], I64),
     [1, 8, 3], I64),
    (("Tensor", "Tensor"), arr([[True], [False]], B), arr([1, -2, 3], I64), arr(0, I64),
     [[1, -2, 3], [0, 0, 0]], I64),
    (("Tensor", "float"), C, arr([1, -2, 3], I64), 1.5, [1.0, 1.5, 3.0], F32),
    (("int", "Tensor"), C, 1, arr([1, -2, 3], I64), [1, -2, 1], I64),
    (("int", "float"), C, 1, 2.5, [1.0, 2.5, 1.0], F32),
    (("int", "int"), C, 1, 2, [1, 2, 1], I64),
])
def test_where(types, cond, a, b, values, dtype):
    check(op("aten::where", "Tensor", *types)(cond, a, b), values, dtype)


def test_where_zero_dim_and_errors():
    where = op("aten::where", "Tensor", "Tensor", "Tensor")
    check(where(arr(True, B), arr(1, I64), arr(2.0, F32)), 1.0, F32)
    for cond, name in ((arr([1.5], F32), "Float"), (arr([1], I64), "Long")):
        with pytest.raises(TypeError) as info:
            where(cond, arr([1], I64), arr([2], I64))
        assert str(info.value) == (f"where expected condition to be a boolean tensor, but got "
                                   f"a tensor with dtype {name}")


@pytest.mark.parametrize("a, lo, hi, values, dtype", [
    (arr([1, -2, 3], I64), 0, 2, [1, 0, 2], I64),
    (arr([1, -2, 3], I64), 0.5, 2, [1.0, 0.5, 2.0], F32),
    (arr([1, -2, 3], I64), None, 2.5, [1.0, -2.0, 2.5], F32),
    (arr([1, -2, 3], I64), True, None, [1, 1, 3], I64),
    (arr([1.5, -2.0, 0.0, NAN], F32), 0, 1, [1.0, 0.0, 0.0, NAN], F32),
    (arr([1.5, -2.0, 0.0, NAN], F32), 1, 0, [0.0, 0.0, 0.0, NAN], F32),   # min > max: max
    (arr([1.5, -2.0, 0.0, NAN], F32), NAN, 1, [NAN, NAN, NAN, NAN], F32),
    (arr([1.5, -2.0, 0.0, NAN], F32), 0, NAN, [NAN, NAN, NAN, NAN], F32),
    (arr([1.5, -2.0, 0.0], F64), 0, 1, [1.0, 0.0, 0.0], F64),
    (arr([1.0], F32), 0, INF, [1.0], F32),
    (arr([True, False, True], B), 0, 1, [1, 0, 1], I64),
    (arr([True, False, True], B), 0.5, None, [1.0, 0.5, 1.0], F32),
    (arr([1, 2, 200], U8), 5, 100, [5, 5, 100], U8),
    (arr(5, I64), 0, 2, 2, I64),
    (np.zeros(0, F32), 0, 1, np.zeros(0), F32),
])
def test_clamp(a, lo, hi, values, dtype):
    before = a.copy()
    got = op("aten::clamp", "Tensor", "Scalar?", "Scalar?")(a, lo, hi)
    check(got, values, dtype)
    assert got is not a
    np.testing.assert_array_equal(a, before)


@pytest.mark.parametrize("a, lo, hi, exc, message", [
    (arr([1, -2, 3], I64), None, None, ValueError,
     "torch.clamp: At least one of 'min' or 'max' must not be None"),
    (arr([True], B), False, True, TypeError, "\"clamp_scalar_cpu\" not implemented for 'Bool'"),
    (arr([1, 2], U8), -1, 300, OverflowError,
     "value cannot be converted to type uint8_t without overflow"),
    (arr([1], np.int8), 0, 2 ** 40, OverflowError,
     "value cannot be converted to type int8_t without overflow"),
    (arr([1], np.int16), -2 ** 40, None, OverflowError,
     "value cannot be converted to type int16_t without overflow"),
    (arr([1, 2], I32), 0, 2 ** 40, OverflowError,
     "value cannot be converted to type int without overflow"),
    (arr([1.0], F32), 0, 1e40, OverflowError,
     "value cannot be converted to type float without overflow"),
    (arr([1.0], F32), -1e40, 0, OverflowError,
     "value cannot be converted to type float without overflow"),
    (arr([1.0], np.float16), 0, 1e5, OverflowError,
     "value cannot be converted to type c10::Half without overflow"),
])
def test_clamp_errors(a, lo, hi, exc, message):
    with pytest.raises(exc) as info:
        op("aten::clamp", "Tensor", "Scalar?", "Scalar?")(a, lo, hi)
    assert str(info.value) == message


# -- amax, amin ----------------------------------------------------------------------------------

X = np.arange(6, dtype=F32).reshape(2, 3)


@pytest.mark.parametrize("kind, a, dim, keep, values, dtype, shape", [
    ("amax", X, [0], False, [3.0, 4.0, 5.0], F32, [3]),
    ("amax", X, [1], True, [[2.0], [5.0]], F32, [2, 1]),
    ("amax", X, [], False, 5.0, F32, []),
    ("amax", X, [], True, [[5.0]], F32, [1, 1]),
    ("amax", X, [0, 1], False, 5.0, F32, []),
    ("amax", X, [-1], False, [2.0, 5.0], F32, [2]),
    ("amin", X, [1, 0], True, [[0.0]], F32, [1, 1]),
    ("amin", arr([1, -2, 3], I64), [0], False, -2, I64, []),
    ("amin", arr([True, False, True], B), [0], False, False, B, []),
    ("amax", arr([1.5, -2.0, 0.0, NAN], F32), [0], False, NAN, F32, []),
    ("amax", np.zeros((0, 3), F32), [1], False, np.zeros(0), F32, [0]),
    ("amax", arr(2.0, F32), [0], False, 2.0, F32, []),
    ("amax", arr(2.0, F32), [], True, 2.0, F32, []),
    ("amin", arr(2.0, F32), [-1], True, 2.0, F32, []),
])
def test_amax_amin(kind, a, dim, keep, values, dtype, shape):
    check(op(f"aten::{kind}", "Tensor", "int[]", "bool")(a, dim, keep), values, dtype, shape)


@pytest.mark.parametrize("kind, a, dim, exc, message", [
    ("amax", X, [2], IndexError,
     "Dimension out of range (expected to be in range of [-2, 1], but got 2)"),
    ("amin", arr(2.0, F32), [1], IndexError,
     "Dimension out of range (expected to be in range of [-1, 0], but got 1)"),
    ("amax", X, [0, 0], ValueError, "dim 0 appears multiple times in the list of dims"),
    ("amax", X, [0, -2], ValueError, "dim 0 appears multiple times in the list of dims"),
    ("amax", np.zeros((0, 3), F32), [0], IndexError,
     "amax(): Expected reduction dim 0 to have non-zero size."),
    ("amin", np.zeros((0, 3), F32), [], ValueError,
     "amin(): Expected reduction dim to be specified for input.numel() == 0. Specify the "
     "reduction dim with the 'dim' argument."),
])
def test_amax_amin_errors(kind, a, dim, exc, message):
    with pytest.raises(exc) as info:
        op(f"aten::{kind}", "Tensor", "int[]", "bool")(a, dim, False)
    assert str(info.value) == message


# -- sign, square, trigonometric and hyperbolic functions ----------------------------------------

I = arr([1, -2, 3], I64)
BB = arr([True, False, True], B)
U = arr([0, 3, 200], U8)
F = arr([0.5, -2.0, 0.0, 3.0], F32)
D = arr([0.5, -2.0, 0.0, 3.0], F64)


@pytest.mark.parametrize("kind, a, values, dtype", [
    ("sign", I, [1, -1, 1], I64),
    ("sign", BB, [True, False, True], B),
    ("sign", U, [0, 1, 1], U8),
    ("sign", F, [1.0, -1.0, 0.0, 1.0], F32),
    ("sign", D, [1.0, -1.0, 0.0, 1.0], F64),
    ("square", I, [1, 4, 9], I64),
    ("square", BB, [1, 0, 1], I64),
    ("square", U, [0, 9, 64], U8),   # wraps around, as torch's does
    ("square", arr([70000], I32), [605032704], I32),
    ("square", F, [0.25, 4.0, 0.0, 9.0], F32),
    ("square", D, [0.25, 4.0, 0.0, 9.0], F64),
    ("atan", I, [0.7853981852531433, -1.1071487665176392, 1.249045729637146], F32),
    ("atan", BB, [0.7853981852531433, 0.0, 0.7853981852531433], F32),
    ("atan", U, [0.0, 1.249045729637146, 1.5657963752746582], F32),
    ("atan", F, [0.46364760398864746, -1.1071487665176392, 0.0, 1.249045729637146], F32),
    ("atan", D, [0.4636476090008061, -1.1071487177940904, 0.0, 1.2490457723982544], F64),
    ("sinh", I, [1.175201177597046, -3.6268603801727295, 10.017874717712402], F32),
    ("sinh", BB, [1.175201177597046, 0.0, 1.175201177597046], F32),
    ("sinh", U, [0.0, 10.017874717712402, INF], F32),
    ("sinh", F, [0.5210952758789062, -3.6268603801727295, 0.0, 10.017874717712402], F32),
    ("sinh", D, [0.5210953054937474, -3.626860407847019, 0.0, 10.017874927409903], F64),
    ("cosh", I, [1.5430805683135986, 3.7621958255767822, 10.067662239074707], F32),
    ("cosh", BB, [1.5430805683135986, 1.0, 1.5430805683135986], F32),
    ("cosh", U, [1.0, 10.067662239074707, INF], F32),
    ("cosh", F, [1.1276259422302246, 3.7621958255767822, 1.0, 10.067662239074707], F32),
    ("cosh", D, [1.1276259652063807, 3.7621956910836314, 1.0, 10.067661995777765], F64),
    ("tan", I, [1.5574077367782593, 2.185039758682251, -0.14254654943943024], F32),
    ("tan", BB, [1.5574077367782593, 0.0, 1.5574077367782593], F32),
    ("tan", U, [0.0, -0.14254654943943024, -1.792527437210083], F32),
    ("tan", F, [0.5463024973869324, 2.185039758682251, 0.0, -0.14254654943943024], F32),
    ("tan", D, [0.5463024898437905, 2.185039863261519, 0.0, -0.1425465430742778], F64),
])
def test_unary(kind, a, values, dtype):
    before = a.copy()
    check(op(f"aten::{kind}", "Tensor")(a), values, dtype)
    np.testing.assert_array_equal(a, before)


def test_sign_of_nan_and_negative_zero_is_positive_zero():
    """Where numpy's sign differs: torch gives 0 for NaN and +0.0 for -0.0."""
    got = op("aten::sign", "Tensor")(arr([-0.0, NAN, INF, -INF], F32))
    check(got, [0.0, 0.0, 1.0, -1.0], F32)
    assert not np.signbit(got[:2]).any()
    assert op("aten::sign", "Tensor")(BB) is not BB


# -- through the frontend --------------------------------------------------------------------

SOURCE = """
import numpy as np


def f(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    x += y
    x -= 1
    x *= 2.0
    x /= 4
    z = np.where(x > 0, np.square(x), np.sign(x))
    z = np.clip(z, -0.5, 2.0) + np.arctan(x) + np.sinh(x) - np.cosh(x) + np.tan(x)
    return np.amax(z, axis=0) + np.min(x.T, axis=1) + np.transpose(x)[:, 0]
"""


def test_the_frontend_compiles_and_runs_them(tmp_path):
    """A function using every one of them decorates (each kind has an operator) and
    mutates its argument as numpy does."""
    fn = load_function(SOURCE, tmp_path)
    f = script(fn)
    kinds = {n.kind for n in f.graph.nodes()}
    assert {"aten::add_", "aten::sub_", "aten::mul_", "aten::div_", "aten::where",
            "aten::square", "aten::sign", "aten::clamp", "aten::atan", "aten::sinh",
            "aten::cosh", "aten::tan", "aten::amax", "aten::amin", "aten::numpy_T"} <= kinds
    x0 = np.arange(6, dtype=F64).reshape(3, 2) / 3 - 0.5
    y = np.full((3, 2), 0.25)
    x1, x2 = x0.copy(), x0.copy()
    got = f(x1, y)
    want = fn(x2, y)
    assert got.dtype == want.dtype == F64
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
    np.testing.assert_array_equal(x1, x2)


def test_an_int_array_divided_in_place_fails_at_run_time_not_decoration(tmp_path):
    fn = load_function("""
import numpy as np


def g(x: np.ndarray) -> np.ndarray:
    x /= 2
    return x
""", tmp_path, module_name="prog_div")
    f = script(fn)   # no CompileError: aten::div_(Tensor, int) exists
    with pytest.raises(InterpreterError) as info:
        f(arr([1, 2], I64))
    assert str(info.value).startswith("TypeError: result type Float can't be cast to the "
                                      "desired output type Long\n  at ")
    assert isinstance(info.value.__cause__, TypeError)


def test_conj_conjugates_complex_tensors_and_returns_real_ones_themselves():
    """torch.conj(torch.tensor([1+2j, 3-1j])) reads [1-2j, 3+1j] (a view with the
    conjugate bit; pyjit computes its values); a real tensor is returned itself.
    resolve_conj has nothing to resolve: pyjit's tensors carry no such bit."""
    z = arr([1 + 2j, 3 - 1j], np.complex64)
    for kind in ("aten::conj", "aten::conj_physical"):
        got = op(kind, "Tensor")(z)
        assert got.dtype == np.complex64 and got.tolist() == [1 - 2j, 3 + 1j]
    x = arr([1.5, -2.0], F32)
    assert op("aten::conj", "Tensor")(x) is x
    assert op("aten::resolve_conj", "Tensor")(z).tolist() == [1 + 2j, 3 - 1j]
    assert op("aten::resolve_neg", "Tensor")(z).tolist() == [1 + 2j, 3 - 1j]
