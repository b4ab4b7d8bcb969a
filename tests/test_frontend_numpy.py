"""numpy through the frontend: every row of ``pyjit/frontend/numpy_api.py``, as a
numpy function and as an array method, emits the pinned nodes and computes what
numpy computes, on both loops; a wrong call is a CompileError at the call, with
the caret, like every other frontend error.

The pinned listings are the graph's nodes without their source locations;
the function and method spellings of one numpy name emit the same nodes.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

from pyjit import CompileError
from pyjit.frontend import script
from pyjit.frontend.numpy_api import ARRAY_API, ARRAY_ATTRIBUTES
from pyjit.interpreter import Function

from helpers.source_files import load_function, short_paths

SOURCE = """\
import numpy as np
from typing import List


def f(x: np.ndarray, y: np.ndarray, xs: List[np.ndarray]):
    return {expr}
"""

X = np.array([[1.5, 0.25, 2.0], [0.5, 0.75, 1.0]])        # positive: logs and roots
Y = np.array([[0.5, 1.5, -2.0], [3.0, -0.25, -0.75]])     # both signs

#: (expression, the nodes its graph holds)
PINNED = [
    ('np.exp(x)', [
        '%3 : Tensor = aten::exp(%x)',
    ]),
    ('np.log(x)', [
        '%3 : Tensor = aten::log(%x)',
    ]),
    ('np.tanh(y)', [
        '%3 : Tensor = aten::tanh(%y)',
    ]),
    ('np.sqrt(x)', [
        '%3 : Tensor = aten::sqrt(%x)',
    ]),
    ('np.abs(y)', [
        '%3 : Tensor = aten::abs(%y)',
    ]),
    ('np.sin(y)', [
        '%3 : Tensor = aten::sin(%y)',
    ]),
    ('np.cos(y)', [
        '%3 : Tensor = aten::cos(%y)',
    ]),
    ('np.tan(y)', [
        '%3 : Tensor = aten::tan(%y)',
    ]),
    ('np.floor(y)', [
        '%3 : Tensor = aten::floor(%y)',
    ]),
    ('np.ceil(y)', [
        '%3 : Tensor = aten::ceil(%y)',
    ]),
    ('np.sign(y)', [
        '%3 : Tensor = aten::sign(%y)',
    ]),
    ('np.log1p(x)', [
        '%3 : Tensor = aten::log1p(%x)',
    ]),
    ('np.expm1(y)', [
        '%3 : Tensor = aten::expm1(%y)',
    ]),
    ('np.square(y)', [
        '%3 : Tensor = aten::square(%y)',
    ]),
    ('np.log2(x)', [
        '%3 : Tensor = aten::log2(%x)',
    ]),
    ('np.log10(x)', [
        '%3 : Tensor = aten::log10(%x)',
    ]),
    ('np.sinh(y)', [
        '%3 : Tensor = aten::sinh(%y)',
    ]),
    ('np.cosh(y)', [
        '%3 : Tensor = aten::cosh(%y)',
    ]),
    ('np.negative(y)', [
        '%3 : Tensor = aten::neg(%y)',
    ]),
    ('np.absolute(y)', [
        '%3 : Tensor = aten::abs(%y)',
    ]),
    ('np.arctan(y)', [
        '%3 : Tensor = aten::atan(%y)',
    ]),
    ('np.add(x, 1)', [
        '%3 : int = prim::Constant[value=1]()',
        '%5 : Tensor = aten::add(%x, %3, %3)',
    ]),
    ('np.subtract(x, y)', [
        '%3 : int = prim::Constant[value=1]()',
        '%4 : Tensor = aten::sub(%x, %y, %3)',
    ]),
    ('np.multiply(y, 2.5)', [
        '%3 : float = prim::Constant[value=2.5]()',
        '%4 : Tensor = aten::mul(%y, %3)',
    ]),
    ('np.divide(x, y)', [
        '%3 : Tensor = aten::div(%x, %y)',
    ]),
    ('np.power(y, 2)', [
        '%3 : int = prim::Constant[value=2]()',
        '%4 : Tensor = aten::pow(%y, %3)',
    ]),
    ('np.matmul(x, y.T)', [
        '%3 : Tensor = aten::numpy_T(%y)',
        '%4 : Tensor = aten::matmul(%x, %3)',
    ]),
    ('np.dot(x, y.T)', [
        '%3 : Tensor = aten::numpy_T(%y)',
        '%4 : Tensor = aten::matmul(%x, %3)',
    ]),
    ('x.dot(y.T)', [
        '%3 : Tensor = aten::numpy_T(%y)',
        '%4 : Tensor = aten::matmul(%x, %3)',
    ]),
    ('np.maximum(x, y)', [
        '%3 : Tensor = aten::maximum(%x, %y)',
    ]),
    ('np.minimum(0.5, y)', [
        '%3 : float = prim::Constant[value=0.5]()',
        '%4 : Tensor = aten::minimum(%y, %3)',
    ]),
    ('np.sum(y)', [
        '%3 : NoneType = prim::Constant()',
        '%4 : Tensor = aten::sum(%y, %3)',
    ]),
    ('y.sum()', [
        '%3 : NoneType = prim::Constant()',
        '%4 : Tensor = aten::sum(%y, %3)',
    ]),
    ('np.sum(y, 1)', [
        '%3 : int = prim::Constant[value=1]()',
        '%5 : bool = prim::Constant[value=0]()',
        '%6 : NoneType = prim::Constant()',
        '%4 : int[] = prim::ListConstruct(%3)',
        '%7 : Tensor = aten::sum(%y, %4, %5, %6)',
    ]),
    ('y.sum(axis=(0, 1), keepdims=True)', [
        '%3 : int = prim::Constant[value=0]()',
        '%4 : int = prim::Constant[value=1]()',
        '%6 : bool = prim::Constant[value=1]()',
        '%7 : NoneType = prim::Constant()',
        '%5 : int[] = prim::ListConstruct(%3, %4)',
        '%8 : Tensor = aten::sum(%y, %5, %6, %7)',
    ]),
    ('np.mean(y, axis=0)', [
        '%3 : int = prim::Constant[value=0]()',
        '%5 : bool = prim::Constant[value=0]()',
        '%6 : NoneType = prim::Constant()',
        '%4 : int[] = prim::ListConstruct(%3)',
        '%7 : Tensor = aten::mean(%y, %4, %5, %6)',
    ]),
    ('y.mean()', [
        '%3 : NoneType = prim::Constant()',
        '%4 : Tensor = aten::mean(%y, %3)',
    ]),
    ('np.max(y)', [
        '%3 : Tensor = aten::max(%y)',
    ]),
    ('np.max(y, axis=None)', [
        '%3 : Tensor = aten::max(%y)',
    ]),
    ('y.min()', [
        '%3 : Tensor = aten::min(%y)',
    ]),
    ('np.amax(y, 0, keepdims=True)', [
        '%3 : int = prim::Constant[value=0]()',
        '%5 : bool = prim::Constant[value=1]()',
        '%4 : int[] = prim::ListConstruct(%3)',
        '%6 : Tensor = aten::amax(%y, %4, %5)',
    ]),
    ('y.max(axis=1)', [
        '%3 : int = prim::Constant[value=1]()',
        '%5 : bool = prim::Constant[value=0]()',
        '%4 : int[] = prim::ListConstruct(%3)',
        '%6 : Tensor = aten::amax(%y, %4, %5)',
    ]),
    ('np.amin(y, axis=(0, 1))', [
        '%3 : int = prim::Constant[value=0]()',
        '%4 : int = prim::Constant[value=1]()',
        '%6 : bool = prim::Constant[value=0]()',
        '%5 : int[] = prim::ListConstruct(%3, %4)',
        '%7 : Tensor = aten::amin(%y, %5, %6)',
    ]),
    ('np.min(y, 1)', [
        '%3 : int = prim::Constant[value=1]()',
        '%5 : bool = prim::Constant[value=0]()',
        '%4 : int[] = prim::ListConstruct(%3)',
        '%6 : Tensor = aten::amin(%y, %4, %5)',
    ]),
    ('np.reshape(y, (3, 2))', [
        '%3 : int = prim::Constant[value=3]()',
        '%4 : int = prim::Constant[value=2]()',
        '%5 : int[] = prim::ListConstruct(%3, %4)',
        '%6 : Tensor = aten::reshape(%y, %5)',
    ]),
    ('np.reshape(y, 6)', [
        '%3 : int = prim::Constant[value=6]()',
        '%4 : int[] = prim::ListConstruct(%3)',
        '%5 : Tensor = aten::reshape(%y, %4)',
    ]),
    ('y.reshape(3, 2)', [
        '%3 : int = prim::Constant[value=3]()',
        '%4 : int = prim::Constant[value=2]()',
        '%5 : int[] = prim::ListConstruct(%3, %4)',
        '%6 : Tensor = aten::reshape(%y, %5)',
    ]),
    ('y.reshape([6])', [
        '%3 : int = prim::Constant[value=6]()',
        '%4 : int[] = prim::ListConstruct(%3)',
        '%5 : Tensor = aten::reshape(%y, %4)',
    ]),
    ('np.transpose(y)', [
        '%3 : Tensor = aten::numpy_T(%y)',
    ]),
    ('y.transpose()', [
        '%3 : Tensor = aten::numpy_T(%y)',
    ]),
    ('np.concatenate([x, y])', [
        '%4 : int = prim::Constant[value=0]()',
        '%3 : Tensor[] = prim::ListConstruct(%x, %y)',
        '%5 : Tensor = aten::cat(%3, %4)',
    ]),
    ('np.concatenate(xs, axis=1)', [
        '%3 : int = prim::Constant[value=1]()',
        '%4 : Tensor = aten::cat(%xs, %3)',
    ]),
    ('np.stack((x, y), 1)', [
        '%4 : int = prim::Constant[value=1]()',
        '%3 : Tensor[] = prim::ListConstruct(%x, %y)',
        '%5 : Tensor = aten::stack(%3, %4)',
    ]),
    ('np.where(y > 0, x, y)', [
        '%3 : int = prim::Constant[value=0]()',
        '%4 : Tensor = aten::gt(%y, %3)',
        '%5 : Tensor = aten::where(%4, %x, %y)',
    ]),
    ('np.clip(y, -0.5, None)', [
        '%3 : float = prim::Constant[value=-0.5]()',
        '%4 : NoneType = prim::Constant()',
        '%5 : Tensor = aten::clamp(%y, %3, %4)',
    ]),
    ('np.clip(y, None, 1)', [
        '%3 : NoneType = prim::Constant()',
        '%4 : int = prim::Constant[value=1]()',
        '%5 : Tensor = aten::clamp(%y, %3, %4)',
    ]),
    ('y.copy()', [
        '%3 : NoneType = prim::Constant()',
        '%4 : Tensor = aten::clone(%y, %3)',
    ]),
    ('y.flatten()', [
        '%3 : int = prim::Constant[value=0]()',
        '%4 : int = prim::Constant[value=-1]()',
        '%5 : Tensor = aten::flatten(%y, %3, %4)',
    ]),
    ('y.shape', [
        '%3 : int[] = aten::size(%y)',
    ]),
    ('y.ndim', [
        '%3 : int = aten::dim(%y)',
    ]),
    ('y.size', [
        '%3 : int = aten::numel(%y)',
    ]),
    ('y.T', [
        '%3 : Tensor = aten::numpy_T(%y)',
    ]),
]


def compile_expr(expr: str, tmp_path):
    fn = load_function(SOURCE.format(expr=expr), tmp_path)
    return fn, script(fn)


def nodes(graph) -> list:
    lines = str(graph).splitlines()[3:-1]   # between the signature and the return
    return [re.sub(r" # .*$", "", line).strip() for line in lines]


@pytest.mark.parametrize("expr, expected", PINNED, ids=[p[0] for p in PINNED])
def test_pinned_nodes(expr, expected, tmp_path):
    _, f = compile_expr(expr, tmp_path)
    assert nodes(f.graph) == expected
    f.graph.lint()


@pytest.mark.parametrize("expr, expected", PINNED, ids=[p[0] for p in PINNED])
def test_computes_what_numpy_computes(expr, expected, loop, tmp_path):
    fn, f = compile_expr(expr, tmp_path)
    x, y = X.copy(), Y.copy()
    got = Function(f.graph, loop=loop)(x, y, [x, y])
    want = fn(X.copy(), Y.copy(), [X.copy(), Y.copy()])
    if isinstance(want, tuple):        # x.shape: a list of ints in the graph, as in torch
        assert got == list(want)
        return
    if isinstance(want, int):
        assert type(got) is int and got == want
        return
    want = np.asarray(want)
    assert isinstance(got, np.ndarray) and got.dtype == want.dtype
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
    np.testing.assert_array_equal(x, X)   # nothing here mutates its arguments
    np.testing.assert_array_equal(y, Y)


def test_every_table_entry_is_pinned():
    """Each numpy function and array method of the table, and each attribute,
    has a pinned expression (so a new row comes with its pin)."""
    pinned = " ".join(expr for expr, _ in PINNED)
    for name, op in ARRAY_API.items():
        if op.function is not None:
            assert f"np.{name}(" in pinned, name
        if op.method is not None:
            assert f"y.{name}(" in pinned or f"x.{name}(" in pinned, name
    for name in ARRAY_ATTRIBUTES:
        assert f"y.{name}" in pinned, name


# -- wrong calls ---------------------------------------------------------------------------------

@pytest.mark.parametrize("expr, message, at", [
    # arity: a missing argument, one too many
    ("np.max()", "np.max() is missing its argument 'a'", "np.max()"),
    ("np.amin()", "np.amin() is missing its argument 'a'", "np.amin()"),
    ("np.exp()", "np.exp() is missing its argument 'x'", "np.exp()"),
    ("x.reshape()", "ndarray.reshape() is missing its argument 'shape'", "x.reshape()"),
    ("np.where(x > 0, x)", "np.where() is missing its argument 'y'", "np.where("),
    ("np.clip(x, 0.0)", "np.clip() is missing its argument 'a_max'", "np.clip("),
    ("np.where(x > 0, x, y, y)", "np.where() takes at most 3 arguments, 4 given", "np.where("),
    ("x.dot(y.T, y, y)", "ndarray.dot() takes at most 2 arguments, 3 given", "x.dot("),
    # numpy's own parameters that pyjit does not support, by position or keyword
    ("np.exp(x, y)", "np.exp() with out is not supported", "y)"),
    ("np.sum(x, 1, True)", "np.sum() with dtype is not supported", "True)"),
    ("x.sum(0, True)", "ndarray.sum() with dtype is not supported", "True)"),
    ("np.max(x, 0, True)", "np.max() with out is not supported", "True)"),
    ("np.sum(x, out=y)", "np.sum() with out is not supported", "out=y"),
    ("np.transpose(x, (1, 0))", "np.transpose() with axes is not supported", "(1, 0)"),
    ("x.transpose(1, 0)", "ndarray.transpose() with axes is not supported", "1, 0"),
    ("x.flatten('F')", "ndarray.flatten() with order is not supported", "'F'"),
    # keywords
    ("np.exp(x=x)", "np.exp() does not support the keyword 'x'", "x=x"),
    ("np.max(x, axes=0)", "np.max() does not support the keyword 'axes'", "axes=0"),
    ("np.max(x, 0, axis=1)", "np.max() got two values for 'axis'", "axis=1"),
    ("np.sum(x, keepdims=True)", "keepdims without an axis is not supported", "np.sum("),
    # argument types
    ("np.exp(1.0)", "np.exp() expects an array (Tensor), not float", "1.0"),
    ("np.add(2, x)", "np.add() expects an array (Tensor), not int", "2, x"),
    ("np.amax(x, axis=0, keepdims=1)", "np.amax(): keepdims must be a bool, not int", "1)"),
    ("np.sum(x, axis=(0, 1.5))", "axes must be ints, not float", "(0, 1.5)"),
    ("np.reshape(x, (2, 3.0))", "shape entries must be ints, not float", "(2, 3.0)"),
    ("np.concatenate([x, y], 0.5)", "np.concatenate(): axis must be an int, not float",
     "0.5"),
    ("np.concatenate(x)", "np.concatenate() expects a list of arrays, not Tensor", "x)"),
    ("np.stack([x, 1])", "np.stack() expects an array (Tensor), not int", "1]"),
    ("np.clip(x, 'a', 1.0)", "np.clip() bounds must be numbers or None, not str", "'a'"),
    ("np.maximum(1, 2)", "np.maximum() expects an array and an array or a number, not int "
     "and int", "np.maximum("),
    # names outside the table
    ("np.frobnicate(x)", "np.frobnicate is not supported by pyjit.script", "np.frobnicate"),
    ("np.copy(x)", "np.copy is not supported by pyjit.script", "np.copy"),
    ("x.amax()", "ndarray.amax() is not supported by pyjit.script", "x.amax"),
    ("x.dtype", "array attribute 'dtype' is not supported", "x.dtype"),
])
def test_a_wrong_call_is_a_compile_error_at_the_call(expr, message, at, tmp_path):
    with pytest.raises(CompileError) as info:
        compile_expr(expr, tmp_path)
    err = info.value
    line_text = "    return " + expr
    col = line_text.index(at)
    assert (err.message, err.line, err.col) == (message, 6, col)
    assert err.line_text == line_text
    assert short_paths(str(err), tmp_path) == (f"prog.py:6:{col}: {message}\n"
                                               f"    {line_text}\n    {' ' * col}^")
