"""The operator library, operator by operator, through the default registry.

Each operator is looked up the way the code generator looks it up (from a node of
a parsed graph, by its input types) and called directly, so a failure here points
at the operator, not at the interpreter.  Expected values and messages are
torch 2.13's (checked with the scripted function noted beside the less obvious
ones).
"""

from __future__ import annotations

import math
import operator

import numpy as np
import pytest

from pyjit.errors import JITException, OperatorNotFoundError
from pyjit.interpreter import Function
from pyjit.ir.parser import parse_ir
from pyjit.ops import linalg, lists, pointwise, reductions, scalars, strings
from pyjit.ir.constants import constant_value
from pyjit.ops.dtypes import promote_types, result_type
from pyjit.ops.strings import torch_str
from pyjit.ops.tensor_format import format_tensor
from pyjit.registry import default_registry as R

from helpers.operators import node_of, op

F32, F64, I64, I32, B = (np.dtype(t) for t in ("float32", "float64", "int64", "int32", "bool"))


def run(text: str, *args):
    return Function(parse_ir(text))(*args)


# -- overload selection --------------------------------------------------------------

@pytest.mark.parametrize("kind, types, expected", [
    # C functions where Python's semantics are torch's
    ("aten::add", ("float", "float"), operator.add),
    ("aten::add", ("int", "float"), operator.add),
    ("aten::add", ("str", "str"), operator.add),
    ("aten::add", ("int[]", "int[]"), operator.add),
    ("aten::mul", ("float", "int"), operator.mul),
    ("aten::lt", ("int", "int"), operator.lt),
    ("aten::ge", ("float", "int"), scalars._COMPARISONS["ge"][1]),  # on doubles
    ("aten::lt", ("str", "str"), operator.lt),
    ("aten::__and__", ("bool", "bool"), operator.and_),
    ("aten::__not__", ("bool",), operator.not_),
    ("aten::__is__", ("int?", "NoneType"), operator.is_),
    ("aten::__isnot__", ("int?", "NoneType"), operator.is_not),
    ("aten::__contains__", ("int[]", "int"), operator.contains),
    ("aten::__contains__", ("Dict(str, int)", "str"), operator.contains),
    ("aten::__getitem__", ("int[]", "int"), operator.getitem),
    ("aten::len", ("float[]",), len),
    ("aten::len", ("Dict(str, int)",), len),
    ("aten::insert", ("int[]", "int", "int"), list.insert),
    ("aten::extend", ("int[]", "int[]"), list.extend),
    ("aten::clear", ("str[]",), list.clear),
    ("aten::reverse", ("int[]",), list.reverse),
    ("aten::copy", ("int[]",), list.copy),
    ("aten::count", ("int[]", "int"), list.count),
    ("aten::get", ("Dict(str, int)", "str"), dict.get),
    ("aten::get", ("Dict(int, float)", "int", "float"), dict.get),
    ("aten::_set_item", ("Dict(str, int)", "str", "int"), operator.setitem),
    ("aten::floor", ("int",), math.floor),
    ("aten::atan", ("float",), math.atan),
    ("aten::Float", ("int",), float),
    ("aten::Bool", ("int",), bool),
    ("prim::min", ("int", "int"), min),
    ("prim::max", ("int[]",), max),
    ("prim::abs", ("float",), abs),
    ("prim::TupleIndex", ("(int, str)", "int"), operator.getitem),
    ("prim::Uninitialized", (), type(None)),
    # wrappers where torch differs from Python
    # int64 wraps around: C code in pyjit._core when it is active, else Python
    ("aten::add", ("int", "int"), scalars.INT64_OPS["add"]),
    ("aten::sub", ("int", "int"), scalars.INT64_OPS["sub"]),
    ("aten::mul", ("int", "int"), scalars.INT64_OPS["mul"]),
    ("aten::floordiv", ("int", "int"), scalars.INT64_OPS["floordiv"]),
    ("aten::remainder", ("int", "int"), scalars.INT64_OPS["remainder"]),
    ("aten::div", ("int", "int"), scalars.true_divide),      # 1/0 is inf
    ("aten::floordiv", ("float", "float"), scalars.float_floordiv),
    ("aten::remainder", ("float", "int"), scalars.float_remainder),
    ("prim::min", ("float", "float"), scalars.float_min),
    ("prim::max", ("int", "float"), scalars.float_max),
    ("aten::Int", ("str",), scalars.str_to_int),
    ("aten::Float", ("str",), scalars.str_to_float),
    ("aten::pop", ("int[]", "int"), lists.pop),
    ("aten::index", ("int[]", "int"), lists.index),
    ("aten::str", ("float",), strings.torch_str),
    ("aten::format", ("str", "int", "float"), strings.torch_format),
    ("aten::len", ("str",), strings.string_len),
    ("aten::mm", ("Tensor", "Tensor"), linalg.mm),
    ("aten::sum", ("Tensor", "NoneType"), reductions.DTYPE_FORMS["sum"]),
    ("aten::mean", ("Tensor", "int[]", "bool", "NoneType"), reductions.BY_NAME["mean"]),
])
def test_overload_selection(kind, types, expected):
    assert op(kind, *types) is expected


def test_overload_specialised_on_the_node():
    assert op("prim::TupleUnpack", "(int, str)", n_out=2, out="int") is tuple
    one = op("prim::TupleUnpack", "(int)", out="int")
    assert isinstance(one, operator.itemgetter) and one((7,)) == 7
    assert op("prim::ListConstruct", out="int[]") is list
    assert op("prim::ListConstruct", "int", "int", out="int[]")(1, 2) == [1, 2]
    assert op("prim::TupleConstruct", "int", "str", out="(int, str)")(1, "a") == (1, "a")
    assert op("prim::DictConstruct", "str", "int", "str", "int",
              out="Dict(str, int)")("a", 1, "b", 2) == {"a": 1, "b": 2}
    # append without its output used would be list.append; here it has one
    assert op("aten::append", "int[]", "int", out="int[]") is lists.append
    # pow's result type picks int_to_int
    assert op("aten::pow", "int", "int", out="int") is scalars.int_pow
    assert op("aten::pow", "int", "int", out="float") is scalars.float_pow
    # Tensor add with the constant alpha 1 does not apply alpha
    plain = op("aten::add", "Tensor", "Tensor", "int", consts={2: "int=1"})
    scaled = op("aten::add", "Tensor", "Tensor", "int")
    assert plain is not pointwise.add and scaled is pointwise.add
    x = np.array([1.0, 2.0], dtype=F32)
    np.testing.assert_array_equal(plain(x, x, 1), [2.0, 4.0])
    np.testing.assert_array_equal(scaled(x, x, 3), [4.0, 8.0])
    sliced = op("prim::TupleSlice", "(int, int, int)", attrs="[beg=1, end=3]", out="(int, int)")
    assert sliced((1, 2, 3)) == (2, 3)


def test_unsupported_operator_names_the_op_and_its_location():
    with pytest.raises(OperatorNotFoundError) as info:
        R.lookup(node_of("aten::frobnicate", "int", out="int"))
    assert "aten::frobnicate" in str(info.value) and "f.py:3:4" in str(info.value)
    with pytest.raises(OperatorNotFoundError) as info:
        R.lookup(node_of("aten::add", "str", "int", out="str"))
    assert "no overload of aten::add accepts aten::add(str, int)" in str(info.value)
    assert "f.py:3:4" in str(info.value)


# -- scalars --------------------------------------------------------------------------

NAN, INF = math.nan, math.inf


@pytest.mark.parametrize("kind, types, args, expected", [
    ("aten::add", ("int", "int"), (9223372036854775807, 1), -9223372036854775808),
    ("aten::mul", ("int", "int"), (2 ** 62, 4), 0),
    ("aten::sub", ("int", "int"), (-2 ** 63, 1), 2 ** 63 - 1),
    ("aten::neg", ("int",), (-2 ** 63,), -2 ** 63),
    ("aten::div", ("int", "int"), (7, 2), 3.5),
    ("aten::div", ("int", "int"), (1, 0), INF),
    ("aten::div", ("int", "int"), (-1, 0), -INF),
    ("aten::div", ("float", "float"), (0.0, 0.0), NAN),
    ("aten::floordiv", ("int", "int"), (-7, 2), -4),
    ("aten::floordiv", ("float", "float"), (-7.0, 2.0), -4.0),
    ("aten::floordiv", ("float", "float"), (1.0, 0.1), 10.0),   # floor(1/0.1), not Python's 9
    ("aten::floordiv", ("int", "float"), (1, 0.0), INF),
    ("aten::remainder", ("int", "int"), (-7, 2), 1),
    ("aten::remainder", ("int", "int"), (7, -2), -1),
    ("aten::remainder", ("float", "float"), (-7.0, 2.0), 1.0),
    ("aten::remainder", ("float", "float"), (1.0, 0.0), NAN),
    ("aten::pow", ("int", "int"), (2, 3), 8.0),
    ("aten::pow", ("float", "float"), (-8.0, 1 / 3), NAN),
    ("aten::pow", ("float", "float"), (10.0, 400.0), INF),
    ("aten::neg", ("float",), (2.5,), -2.5),
    ("aten::eq", ("float", "float"), (NAN, NAN), False),
    ("aten::ne", ("float", "int"), (NAN, 1), True),
    ("aten::__or__", ("int", "int"), (5, 2), 7),
    ("aten::__xor__", ("bool", "bool"), (True, True), False),
    ("aten::__lshift__", ("int", "int"), (1, 63), -2 ** 63),
    ("aten::__rshift__", ("int", "int"), (-8, 1), -4),
    ("aten::Int", ("float",), (-3.7,), -3),
    ("aten::Int", ("float",), (NAN,), -2 ** 63),
    ("aten::Int", ("str",), (" 12",), 12),
    ("aten::Int", ("bool",), (True,), 1),
    ("aten::Float", ("str",), ("1.5",), 1.5),
    ("aten::Float", ("bool",), (True,), 1.0),
    ("aten::Bool", ("float",), (0.0,), False),
    ("prim::min", ("float", "float"), (NAN, 2.0), 2.0),
    ("prim::min", ("float", "float"), (2.0, NAN), NAN),
    ("prim::max", ("float", "float"), (NAN, 2.0), 2.0),
    ("prim::min", ("float", "int"), (3.0, 2), 2.0),
    ("prim::max", ("int", "float"), (3, 2.0), 3.0),
    ("prim::abs", ("int",), (-3,), 3),
    ("aten::sqrt", ("float",), (-1.0,), NAN),
    ("aten::sqrt", ("int",), (16,), 4.0),
    ("aten::exp", ("float",), (1000.0,), INF),
    ("aten::log", ("float",), (0.0,), -INF),
    ("aten::log", ("float",), (-1.0,), NAN),
    ("aten::log", ("int", "int"), (8, 2), 3.0),
    ("aten::floor", ("float",), (2.5,), 2),
    ("aten::ceil", ("float",), (2.1,), 3),
    ("aten::round", ("float",), (2.5,), 2.0),
    ("aten::round", ("float",), (3.5,), 4.0),
    ("aten::gamma", ("float",), (0.0,), INF),
    ("aten::gamma", ("float",), (-1.0,), NAN),
    ("aten::sin", ("float",), (INF,), NAN),
    ("aten::tanh", ("float",), (0.0,), 0.0),
    ("aten::fmod", ("int", "int"), (3, 0), NAN),
    ("aten::factorial", ("int",), (5,), 120),
    ("aten::__range_length", ("int", "int", "int"), (0, 10, 3), 4),
    ("aten::__range_length", ("int", "int", "int"), (10, 0, -3), 4),
    ("aten::__range_length", ("int", "int", "int"), (5, 0, 1), 0),
    ("aten::__derive_index", ("int", "int", "int"), (2, 10, -3), 4),
])
def test_scalar_semantics(kind, types, args, expected):
    result = op(kind, *types, out="Any")(*args)
    assert type(result) is type(expected)
    assert result == expected or (result != result and expected != expected)


def test_round_keeps_the_sign_of_zero():
    assert math.copysign(1, op("aten::round", "float", out="float")(-0.5)) == -1


@pytest.mark.parametrize("kind, types, args, exc, message", [
    ("aten::floordiv", ("int", "int"), (1, 0), ZeroDivisionError, "division by 0"),
    ("aten::remainder", ("int", "int"), (1, 0), ZeroDivisionError, "integer modulo by zero"),
    ("aten::pow", ("float", "float"), (0.0, -1.0), ZeroDivisionError,
     "0.0 cannot be raised to a negative power"),
    ("aten::Int", ("str",), ("abc",), ValueError, "stoll"),
    ("aten::Int", ("str",), ("99999999999999999999",), ValueError, "stoll"),
    ("aten::Int", ("str",), ("12abc",), ValueError,
     "invalid literal for int() with base 10: '12abc'"),
    ("aten::Float", ("str",), ("x",), ValueError, "stod"),
    ("aten::Float", ("str",), ("1e400",), ValueError, "stod"),
    ("aten::Float", ("str",), ("1.5abc",), ValueError,
     "could not convert string to float: '1.5abc'"),
    ("aten::floor", ("float",), (NAN,), ValueError, "Cannot convert float nan to integer"),
    ("aten::ceil", ("float",), (INF,), ValueError, "Cannot convert float inf to integer"),
    ("aten::factorial", ("int",), (-1,), ValueError,
     "factorial() not defined for negative values"),
    ("aten::__range_length", ("int", "int", "int"), (0, 1, 0), ValueError,
     "range() arg 3 must not be zero"),
])
def test_scalar_errors(kind, types, args, exc, message):
    with pytest.raises(exc) as info:
        op(kind, *types, out="Any")(*args)
    assert str(info.value) == message


def test_equal_values_compare_equal_even_when_nan():
    # torch folds x == x after CSE: `x + nan == x + nan` is True, `a == b` of two nan
    # inputs is False (see scalars.same_scalar_expression).
    text = """graph(%x : float, %y : float):
  %n : float = prim::Constant[value=nan]()
  %a : float = aten::add(%x, %n)
  %b : float = aten::add(%x, %n)
  %e : bool = aten::eq(%a, %b)
  %f : bool = aten::ne(%a, %b)
  %g : bool = aten::eq(%x, %y)
  %h : bool = aten::eq(%x, %x)
  %t : (bool, bool, bool, bool) = prim::TupleConstruct(%e, %f, %g, %h)
  return (%t)
"""
    assert run(text, 1.0, NAN) == (True, False, False, True)
    assert run(text, NAN, NAN) == (True, False, False, True)


# -- lists and dicts -------------------------------------------------------------------

def test_list_operators():
    xs = [3, 1, 2]
    assert op("aten::append", "int[]", "int", out="int[]")(xs, 4) is xs and xs == [3, 1, 2, 4]
    assert op("aten::_set_item", "int[]", "int", "int", out="int[]")(xs, -1, 5) is xs
    assert xs == [3, 1, 2, 5]
    op("aten::sort", "int[]", "bool", n_out=0)(xs, True)
    assert xs == [5, 3, 2, 1]
    op("aten::sort", "int[]", n_out=0)(xs)
    assert xs == [1, 2, 3, 5]
    assert op("aten::pop", "int[]", out="int")(xs) == 5
    assert op("aten::index", "int[]", "int", out="int")(xs, 3) == 2
    assert op("aten::slice", "int[]", "int?", "int?", "int", out="int[]")(xs, 1, None, 1) == [2, 3]
    assert op("aten::mul", "int[]", "int", out="int[]")([1], 3) == [1, 1, 1]
    assert op("aten::sum", "int[]", out="int")([1, 2]) == 3
    assert op("prim::min", "int[]", "int[]", out="int[]")([1, 5], [2, 0]) == [1, 5]
    assert op("aten::list", "int[]", out="int[]")(xs) == xs
    assert op("aten::sorted", "int[]", out="int[]")([2, 1]) == [1, 2]
    unpack = op("prim::ListUnpack", "int[]", n_out=2, out="int")
    assert unpack([1, 2]) == [1, 2]


@pytest.mark.parametrize("call, exc, message", [
    (lambda: op("aten::__getitem__", "int[]", "int", out="int")([1, 2], 5), IndexError,
     "list index out of range"),
    (lambda: op("aten::_set_item", "int[]", "int", "int", out="int[]")([1], 5, 1), IndexError,
     "list index out of range"),
    (lambda: op("aten::pop", "int[]", out="int")([]), IndexError, "pop from empty list"),
    (lambda: op("aten::pop", "int[]", "int", out="int")([1], 5), IndexError,
     "list index out of range"),
    (lambda: op("aten::index", "str[]", "str", out="int")(["a"], "z"), ValueError,
     "'z' is not in list"),
    (lambda: op("aten::remove", "int[]", "int", n_out=0)([1], 5), ValueError,
     "list.remove(x): x not in list"),
    (lambda: op("prim::max", "int[]", out="int")([]), ValueError,
     "max() arg is an empty sequence"),
    (lambda: op("prim::ListUnpack", "int[]", n_out=2, out="int")([1, 2, 3]), ValueError,
     "Expected 2 elements in a list but found 3"),
    (lambda: op("aten::__getitem__", "Dict(str, int)", "str", out="int")({"a": 1}, "b"),
     KeyError, "b"),
    (lambda: op("aten::pop", "Dict(int, int)", "int", out="int")({}, 2), KeyError, "2"),
    (lambda: op("aten::popitem", "Dict(str, int)", out="(str, int)")({}), KeyError,
     "popitem(): dictionary is empty"),
])
def test_container_errors(call, exc, message):
    with pytest.raises(exc) as info:
        call()
    assert str(info.value) == message
    assert type(info.value).__name__ == exc.__name__


def test_dict_operators():
    d = {"b": 1, "a": 2}
    assert op("aten::keys", "Dict(str, int)", out="str[]")(d) == ["b", "a"]
    assert op("aten::values", "Dict(str, int)", out="int[]")(d) == [1, 2]
    assert op("aten::items", "Dict(str, int)", out="(str, int)[]")(d) == [("b", 1), ("a", 2)]
    assert op("aten::get", "Dict(str, int)", "str", out="int?")(d, "x") is None
    assert op("aten::get", "Dict(str, int)", "str", "int", out="int")(d, "x", 7) == 7
    assert op("aten::setdefault", "Dict(str, int)", "str", "int", out="int")(d, "c", 3) == 3
    assert op("aten::pop", "Dict(str, int)", "str", "int", out="int")(d, "zz", 9) == 9
    assert op("aten::pop", "Dict(str, int)", "str", out="int")(d, "c") == 3
    op("aten::update", "Dict(str, int)", "Dict(str, int)", n_out=0)(d, {"z": 0})
    assert list(d) == ["b", "a", "z"]
    assert op("aten::popitem", "Dict(str, int)", out="(str, int)")(d) == ("z", 0)
    assert op("aten::copy", "Dict(str, int)", out="Dict(str, int)")(d) == {"b": 1, "a": 2}
    assert op("aten::dict", "Dict(str, int)", out="Dict(str, int)")(d) is not d


# -- strings ------------------------------------------------------------------------

@pytest.mark.parametrize("value, text", [
    (2.0, "2."), (-0.0, "0."), (0.1, "0.10000000000000001"), (1e20, "1e+20"),
    (1e16, "10000000000000000."), (1e-05, "1.0000000000000001e-05"), (123.456, "123.456"),
    (-INF, "-inf"), (NAN, "nan"), (True, "True"), (None, "None"), (3, "3"),
    ([1.0, 2.5], "[1., 2.5]"), (["a", "b"], "[a, b]"), ((1, "b", 2.0), "(1, b, 2.)"),
    ((1,), "(1,)"), ({"a": [1], "b": []}, "{a: [1], b: []}"), ([None, 1], "[None, 1]"),
    (np.array([1.5, 2.0], dtype=F32), " 1.5000\n 2.0000\n[ CPUFloatType{2} ]"),
])
def test_torch_str(value, text):
    assert torch_str(value) == text
    assert op("aten::str", "Any", out="str")(value) == text


def test_format():
    fmt = op("aten::format", "str", "int", "float", out="str")
    assert fmt("{} and {}", 3, 1.5) == "3 and 1.5"
    assert fmt("{0}{{}}|{:>3}", "x", 1) == "{0}{x}|{:>3}"  # only "{}" is replaced
    assert fmt("{}", "x", 1) == "x"
    with pytest.raises(RuntimeError, match=r"^Too few arguments for format string: \{\} \{\}$"):
        fmt("{} {}", "x")


def test_string_operators():
    assert op("aten::len", "str", out="int")("日本é") == 8  # UTF-8 bytes, as torch
    assert op("aten::__getitem__", "str", "int", out="str")("abc", -1) == "c"
    with pytest.raises(IndexError, match=r"basic_string::at: __n \(which is 5\) >= "
                                         r"this->size\(\) \(which is 2\)"):
        op("aten::__getitem__", "str", "int", out="str")("ab", 5)
    assert op("aten::slice", "str", "int?", "int?", "int", out="str")("hello", 1, None, 2) == "el"
    assert op("aten::split", "str", "str?", "int", out="str[]")("a b  c", None, -1) == \
        ["a", "b", "c"]
    assert op("aten::join", "str", "str[]", out="str")("-", ["a", "b"]) == "a-b"
    assert op("aten::strip", "str", "str", out="str")("\u00a0 x \n", " \n\t\f\v") == "\u00a0 x"
    assert op("aten::find", "str", "str", "int", "int", out="int")("abcabc", "c", 0, -1) == 2
    assert op("aten::startswith", "str", "str", "int", "int", out="bool")("abc", "ab", 0, -1)
    assert op("aten::upper", "str", out="str")("ab") == "AB"
    assert op("aten::add", "str", "str", out="str")("a", "b") == "ab"
    assert op("aten::__contains__", "str", "str", out="bool")("cat", "a")


# -- prim ----------------------------------------------------------------------------

def test_raise_exception():
    with pytest.raises(JITException) as info:
        op("prim::RaiseException", "str", "str", n_out=0)("bad", "builtins.ValueError")
    assert info.value.msg == "bad" and info.value.python_class == "builtins.ValueError"
    with pytest.raises(JITException) as info:
        op("prim::RaiseException", "str", "NoneType", n_out=0)("AssertionError: x", None)
    assert info.value.python_class is None


def test_isinstance_and_casts():
    check = op("prim::isinstance", "Union(float, str)", attrs="[types=[float]]", out="bool")
    assert check(1.5) is True and check("s") is False
    check = op("prim::isinstance", "Any", attrs="[types=[int[], str]]", out="bool")
    assert check([1]) and check("s") and not check(1)
    assert op("prim::unchecked_cast", "int?", out="int")(3) == 3
    assert op("prim::Uninitialized", out="int")() is None


def test_print(capsys):
    op("prim::Print", "str", "int", "float[]", n_out=0)("x", 1, [2.0])
    assert capsys.readouterr().out == "x 1 [2.]\n"


# -- constants -----------------------------------------------------------------------

@pytest.mark.parametrize("line, expected", [
    ('%c : bool = prim::Constant[value=1]()', True),
    ('%c : bool = prim::Constant[value=0]()', False),
    ('%c : float = prim::Constant[value=3.]()', 3.0),
    ('%c : float = prim::Constant[value=-inf]()', -INF),
    ('%c : int = prim::Constant[value=9223372036854775807]()', 2 ** 63 - 1),
    ('%c : str = prim::Constant[value="a\\nb"]()', "a\nb"),
    ('%c : NoneType = prim::Constant()', None),
    ('%c : int[] = prim::Constant[value=[1, 2]]()', [1, 2]),
    ('%c : float[] = prim::Constant[value=[1., 2.5]]()', [1.0, 2.5]),
    ('%c : Device = prim::Constant[value="cpu"]()', "cpu"),
    ('%c : Function = prim::Constant[name="helper"]()', "helper"),
])
def test_constant_value(line, expected):
    graph = parse_ir(f"graph():\n  {line}\n  return (%c)\n")
    value = constant_value(next(iter(graph.nodes())))
    assert type(value) is type(expected) and value == expected


def test_tensor_constants_keep_their_dtype():
    graph = parse_ir("graph():\n  %c : Float(requires_grad=0, device=cpu) = "
                     "prim::Constant[value={1.5}]()\n  %d : Tensor = prim::Constant[value="
                     "{2}]()\n  %t : (Tensor, Tensor) = prim::TupleConstruct(%c, %d)\n"
                     "  return (%t)\n")
    c, d = [constant_value(n) for n in graph.nodes() if n.kind == "prim::Constant"]
    assert c.dtype == F32 and c.shape == () and c == 1.5
    assert d.dtype == I64 and d == 2


# -- tensors: dtypes -------------------------------------------------------------------

def arr(values, dtype):
    return np.array(values, dtype=dtype)


@pytest.mark.parametrize("a, b, expected", [
    (arr([1, 2], I64), 2.5, F32),                 # torch: float32, numpy: float64
    (arr([1, 2], I64), arr([1.0, 2.0], F32), F32),
    (arr([1.0], F32), arr(2.0, F64), F32),        # a 0-dim tensor does not widen
    (arr([1.0], F32), arr([2.0], F64), F64),
    (arr([1], I32), 5, I32),
    (arr(1, I64), 2.5, F32),
    (arr([True], B), 1, I64),
    (arr([True], B), arr([1], np.uint8), np.dtype(np.uint8)),
    (arr([1], np.uint8), arr([1], np.int8), np.dtype(np.int16)),
])
def test_result_type(a, b, expected):
    assert result_type(a, b) == expected
    assert op("aten::mul", "Tensor", "Tensor" if isinstance(b, np.ndarray) else "float")(a, b) \
        .dtype == expected


def test_promote_types():
    assert promote_types(I64, np.dtype(np.float16)) == np.dtype(np.float16)
    assert promote_types(B, I32) == I32


def test_tensor_arithmetic_dtypes():
    i = arr([1, 2, 3], I64)
    f = arr([0.5, 1.0, 2.0], F32)
    div = op("aten::div", "Tensor", "Tensor")
    assert div(i, i).dtype == F32 and np.array_equal(div(i, i), [1, 1, 1])
    assert op("aten::div", "Tensor", "int")(i, 2).dtype == F32
    assert op("aten::add", "Tensor", "int", "int", consts={2: "int=1"})(i, 1, 1).dtype == I64
    assert op("aten::sub", "Tensor", "float", "int")(i, 0.5, 2).dtype == F32
    assert op("aten::pow", "Tensor", "int")(i, 2).dtype == I64
    assert op("aten::pow", "Tensor", "float")(i, 0.5).dtype == F32
    assert op("aten::pow", "Tensor", "Tensor")(f, i).dtype == F32
    for name in ("exp", "log", "tanh", "sigmoid", "sqrt"):
        assert op(f"aten::{name}", "Tensor")(i).dtype == F32, name
        assert op(f"aten::{name}", "Tensor")(f).dtype == F32, name
    assert op("aten::relu", "Tensor")(arr([-1, 2], I64)).tolist() == [0, 2]
    assert op("aten::neg", "Tensor")(i).dtype == I64
    assert op("aten::abs", "Tensor")(arr([-1.5], F32)).tolist() == [1.5]
    np.testing.assert_allclose(op("aten::sigmoid", "Tensor")(arr([0.0, 100.0], F32)), [0.5, 1.0])
    for name in ("eq", "ne", "lt", "le", "gt", "ge"):
        assert op(f"aten::{name}", "Tensor", "int")(i, 2).dtype == B
    assert op("aten::gt", "Tensor", "Tensor")(f, i).tolist() == [False, False, False]
    with pytest.raises(ValueError, match="Integers to negative integer powers are not allowed."):
        op("aten::pow", "Tensor", "int")(i, -1)


def test_zero_dim_results_are_arrays():
    x = arr(2.0, F32)
    for result in (op("aten::mul", "Tensor", "Tensor")(x, x),
                   op("aten::sum", "Tensor", "NoneType")(arr([1.0], F32), None),
                   op("aten::exp", "Tensor")(x),
                   op("aten::matmul", "Tensor", "Tensor")(arr([1.0], F32), arr([2.0], F32))):
        assert type(result) is np.ndarray and result.shape == ()


def test_reductions():
    i = arr([[1, 2], [3, 4]], I64)
    total = op("aten::sum", "Tensor", "NoneType")
    assert total(i, None).dtype == I64 and total(i, None) == 10
    assert total(arr([True, True], B), None).dtype == I64
    assert total(arr([200, 100], np.uint8), None) == 300
    assert total(i, 7).dtype == F64  # dtype=torch.float64
    by_dim = op("aten::sum", "Tensor", "int[]", "bool", "NoneType")
    assert by_dim(i, [1], True, None).tolist() == [[3], [7]]
    assert by_dim(i, [], False, None).shape == ()  # an empty dim list reduces everything
    mean = op("aten::mean", "Tensor", "NoneType")
    assert mean(arr([1.0, 2.0], F32), None).dtype == F32
    with pytest.raises(TypeError, match="mean\\(\\): could not infer output dtype. Input dtype "
                                        "must be either a floating point or complex dtype. "
                                        "Got: Long"):
        mean(i, None)
    assert op("aten::mean", "Tensor", "int[]", "bool", "NoneType")(
        arr([[1.0, 3.0]], F32), [1], False, None).tolist() == [2.0]


def test_matrix_products():
    a = arr([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], F32)
    w = arr([[1.0, 0.0, 1.0]], F32)
    lin = op("aten::linear", "Tensor", "Tensor", "Tensor?")
    assert lin(a, w, arr([0.5], F32)).tolist() == [[4.5], [10.5]]
    assert lin(a, w, None).dtype == F32
    assert op("aten::mm", "Tensor", "Tensor")(a, a.T).shape == (2, 2)
    with pytest.raises(ValueError, match=r"^mat1 and mat2 shapes cannot be multiplied "
                                         r"\(2x3 and 2x3\)$"):
        op("aten::mm", "Tensor", "Tensor")(a, a)
    with pytest.raises(ValueError, match=r"\(2x3 and 1x2\)"):
        lin(a, arr([[1.0], [2.0]], F32), None)
    assert op("aten::matmul", "Tensor", "Tensor")(a, arr([1.0, 1.0, 1.0], F32)).tolist() == \
        [6.0, 15.0]


def test_tensor_to_number():
    assert op("aten::Float", "Tensor", out="float")(arr([2], I64)) == 2.0
    assert op("aten::Int", "Tensor", out="int")(arr(2.7, F32)) == 2
    assert op("aten::Bool", "Tensor", out="bool")(arr([1], I64)) is True
    with pytest.raises(ValueError, match="a Tensor with 2 elements cannot be converted to Scalar"):
        op("aten::Float", "Tensor", out="float")(arr([1, 2], I64))


# -- tensors: shapes and factories ------------------------------------------------------

def test_shapes():
    x = np.arange(6, dtype=F32).reshape(2, 3)
    assert op("aten::size", "Tensor", out="int[]")(x) == [2, 3]
    assert op("aten::size", "Tensor", "int", out="int")(x, -1) == 3
    assert op("aten::dim", "Tensor", out="int")(x) == 2
    assert op("aten::numel", "Tensor", out="int")(x) == 6
    assert op("aten::len", "Tensor", out="int")(x) == 2
    assert op("aten::view", "Tensor", "int[]")(x, [3, -1]).shape == (3, 2)
    assert op("aten::reshape", "Tensor", "int[]")(x, [6]).shape == (6,)
    assert op("aten::t", "Tensor")(x).shape == (3, 2)
    assert op("aten::transpose", "Tensor", "int", "int")(x, 0, -1).shape == (3, 2)
    assert op("aten::permute", "Tensor", "int[]")(x, [1, 0]).shape == (3, 2)
    assert op("aten::unsqueeze", "Tensor", "int")(x, -1).shape == (2, 3, 1)
    assert op("aten::squeeze", "Tensor")(x.reshape(1, 2, 1, 3)).shape == (2, 3)
    assert op("aten::squeeze", "Tensor", "int")(x, 0).shape == (2, 3)  # size 2: unchanged
    cat = op("aten::cat", "Tensor[]", "int")
    assert cat([x, x], 1).shape == (2, 6)
    assert cat([arr([1], I64), arr([0.5], F32)], 0).dtype == F32
    assert op("aten::stack", "Tensor[]", "int")([x, x], -1).shape == (2, 3, 2)
    with pytest.raises(ValueError, match=r"^shape '\[4, 4\]' is invalid for input of size 6$"):
        op("aten::view", "Tensor", "int[]")(x, [4, 4])
    with pytest.raises(IndexError, match=r"^Dimension out of range \(expected to be in range "
                                         r"of \[-2, 1\], but got 2\)$"):
        op("aten::size", "Tensor", "int", out="int")(x, 2)
    view = op("aten::view", "Tensor", "int[]")(x, [6])
    view[0] = 100.0
    assert x[0, 0] == 100.0  # a view shares memory, as in torch


def test_factories():
    opts = ("NoneType",) * 4
    z = op("aten::zeros", "int[]", *opts)([2, 3], None, None, None, None)
    assert z.dtype == F32 and z.shape == (2, 3)
    assert op("aten::zeros", "int[]", "int", "NoneType", "NoneType", "NoneType")(
        [2], 4, None, None, None).dtype == I64
    assert op("aten::ones", "int[]", *opts)([1], None, None, None, None).tolist() == [1.0]
    full = op("aten::full", "int[]", "Scalar", *opts)
    assert full([2], 3, None, None, None, None).dtype == I64
    assert full([2], 3.5, None, None, None, None).dtype == F32
    assert full([2], True, None, None, None, None).dtype == B
    arange = op("aten::arange", "int", *opts)
    assert arange(5, None, None, None, None).tolist() == [0, 1, 2, 3, 4]
    assert arange(5, None, None, None, None).dtype == I64
    tenths = op("aten::arange", "int", "float", "float", *opts)(0, 1.0, 0.1, None, None, None,
                                                                   None)
    assert tenths.dtype == F32 and len(tenths) == 10
    assert op("aten::arange", "int", "int", "int", "int", "NoneType", "NoneType", "NoneType")(
        1, 7, 2, 6, None, None, None).tolist() == [1.0, 3.0, 5.0]


@pytest.mark.parametrize("value, text", [
    (arr(3.25, F32), "3.25\n[ CPUFloatType{} ]"),
    (arr(7, I64), "7\n[ CPULongType{} ]"),
    (arr([[1, 2], [30, 4]], I64), "  1   2\n 30   4\n[ CPULongType{2,2} ]"),
    (arr([1e-5, 1.0], F32), " 1.0000e-05\n 1.0000e+00\n[ CPUFloatType{2} ]"),
    (arr([123456.0, 1.0], F32), " 123456\n      1\n[ CPUFloatType{2} ]"),
    (arr([True, False], B), " 1\n 0\n[ CPUBoolType{2} ]"),
    (np.zeros((2, 0), F32), "[ CPUFloatType{2,0} ]"),
    (arr([NAN, INF, 1.0], F32), "nan\ninf\n 1\n[ CPUFloatType{3} ]"),
    (arr([1e6 + 0.5, 2e6], F32), "1000000 *\n 1.0000\n 2.0000\n[ CPUFloatType{2} ]"),
    (arr([[0.001, 0.002]], F32), "0.001 *\n 1.0000  2.0000\n[ CPUFloatType{1,2} ]"),
    (np.arange(8.0, dtype=F32).reshape(2, 2, 2) / 3,
     "(1,.,.) = \n 0.0000  0.3333\n  0.6667  1.0000\n\n(2,.,.) = \n 1.3333  1.6667\n"
     "  2.0000  2.3333\n[ CPUFloatType{2,2,2} ]"),
    (np.arange(30.0, dtype=F32).reshape(2, 15) * 1.5,
     "Columns 1 to 8  0.0000   1.5000   3.0000   4.5000   6.0000   7.5000   9.0000  10.5000\n"
     " 22.5000  24.0000  25.5000  27.0000  28.5000  30.0000  31.5000  33.0000\n\n"
     "Columns 9 to 15 12.0000  13.5000  15.0000  16.5000  18.0000  19.5000  21.0000\n"
     " 34.5000  36.0000  37.5000  39.0000  40.5000  42.0000  43.5000\n[ CPUFloatType{2,15} ]"),
])
def test_tensor_text(value, text):
    assert format_tensor(value) == text


def test_every_listed_operator_is_registered():
    kinds = set(R.kinds())
    listed = """prim::TupleConstruct prim::TupleUnpack prim::TupleIndex prim::TupleSlice
    prim::ListConstruct prim::ListUnpack prim::DictConstruct prim::Uninitialized
    prim::unchecked_cast prim::RaiseException prim::min prim::max prim::abs prim::Print
    prim::isinstance prim::Enter prim::Exit aten::add aten::sub aten::mul aten::div
    aten::floordiv aten::remainder aten::pow aten::neg aten::lt aten::le aten::gt aten::ge
    aten::eq aten::ne aten::__and__ aten::__or__ aten::__xor__ aten::__not__ aten::__is__
    aten::__isnot__ aten::__contains__ aten::Int aten::Float aten::Bool aten::str aten::len
    aten::__getitem__ aten::_set_item aten::append aten::insert aten::pop aten::copy
    aten::extend aten::clear aten::reverse aten::sort aten::index aten::count aten::keys
    aten::values aten::items aten::get aten::format aten::__range_length aten::__derive_index
    aten::sqrt aten::exp aten::log aten::floor aten::ceil aten::tanh aten::sigmoid aten::relu
    aten::abs aten::matmul aten::mm aten::linear aten::sum aten::mean aten::size aten::dim
    aten::view aten::reshape aten::t aten::transpose aten::permute aten::squeeze
    aten::unsqueeze aten::cat aten::stack aten::zeros aten::ones aten::full aten::arange
    aten::numel""".split()
    assert set(listed) - kinds == set()
    # the interpreter's own instructions are not operators (prim::fork is one:
    # pyjit.ops.fork registers it, with a factory compiling its subgraph)
    assert not {"prim::If", "prim::Loop", "prim::Constant", "prim::Load", "prim::Store",
                "prim::Drop", "aten::wait"} & kinds


def test_int_list_sum_wraps_to_int64():
    # TorchScript ints are int64 and wrap.  (torch 2.13's own aten::sum(int[])
    # accumulates in a 32-bit C int -- sum([2**40]) is 0, sum([2**31]) is
    # -2147483648 -- a bug pyjit does not copy: it adds as every other int op.)
    fn = op("aten::sum", "int[]")
    assert fn([2**62, 2**62]) == -2**63
    assert fn([2**62, 2**62, 2**62, 2**62]) == 0
    assert fn([2**63 - 1, 1]) == -2**63
    assert fn([1, 2, 3]) == 6


def test_schema_and_varargs_must_agree():
    from pyjit.registry import Registry
    with pytest.raises(ValueError, match="no trailing '...' but varargs=True"):
        Registry().register("t::f", print, schema="t::f(int a) -> int", varargs=True)
    r = Registry()
    r.register("t::f", print, schema="t::f(int a, ...) -> int")
    assert r.overloads("t::f")[0].varargs
