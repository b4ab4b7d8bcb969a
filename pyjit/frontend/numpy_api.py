"""The numpy functions, array methods and array attributes scripted code may use:
one table, read by :class:`~.tensors.TensorEmitter`.

Each row of :data:`ARRAY_API` is one numpy name: its *lowering* (the aten op
emitted and what decides the result type), and its parameters as
``np.<name>(...)`` and as ``x.<name>(...)``, with numpy's own names, defaults
and calling conventions (None where numpy has no such function or method).
The two spellings bind to the same parameters, the array being the first, and
share the lowering, so ``x.sum(axis=1)`` and ``np.sum(x, axis=1)`` are one
entry and emit the same nodes:

============================  ==========================================
numpy                         graph
============================  ==========================================
``np.exp(x)`` (tanh, ...)     ``aten::exp(x)``
``np.add(x, 1)`` ...          ``aten::add(x, 1, 1)``, as ``x + 1``
``np.dot(a, b)``, ``a.dot(b)``  ``aten::matmul(a, b)``
``np.maximum(0, x)``          ``aten::maximum(x, 0)``
``np.sum(x)``, ``x.sum()``    ``aten::sum(x, None)``  (dtype None)
``np.sum(x, axis=1)``         ``aten::sum(x, [1], False, None)``
``np.max(x)``, ``x.max()``    ``aten::max(x)``
``np.max(x, 0, keepdims=True)``  ``aten::amax(x, [0], True)``
``np.reshape(x, (2, 3))``     ``aten::reshape(x, [2, 3])``
``x.reshape(2, 3)``           ``aten::reshape(x, [2, 3])``
``np.transpose(x)``, ``x.T``  ``aten::numpy_T(x)``
``np.concatenate([a, b], 1)``  ``aten::cat([a, b], 1)``
``np.where(c, a, b)``         ``aten::where(c, a, b)``
``np.clip(x, lo, None)``      ``aten::clamp(x, lo, None)``
``x.copy()``                  ``aten::clone(x, None)``
``x.flatten()``               ``aten::flatten(x, 0, -1)``
``x.shape``                   ``aten::size(x)``  (a list of ints)
============================  ==========================================

A parameter's ``kind`` (:class:`~.signatures.Param`) says how its argument is
read and what it must be:

===============  ================================================================
``ARRAY``        a Tensor
``VALUE``        any value; the lowering checks it
``AXES``         None (the whole array), an int, or a tuple/list of ints: ``int[]``
``SHAPE``        an int, a tuple/list of ints, or an ``int[]``: ``int[]``
``BOOL``         a bool
``INT``          an int
``BOUND``        a number or None
``ARRAYS``       a tuple/list of Tensors, or a ``Tensor[]``
``UNSUPPORTED``  numpy has it, pyjit does not: an error when it is given
                 (:data:`.signatures.UNSUPPORTED`, refused by the binder)
===============  ================================================================

Adding a numpy function is adding a row; a new way of lowering is a new
lowering class here and its method in :class:`~.tensors.TensorEmitter`.
"""

from __future__ import annotations

import ast
from typing import Any, Dict, NamedTuple, Optional, Tuple, Union

from ..ir import types as T
from .signatures import OPTIONAL, REQUIRED, UNSUPPORTED, Param

__all__ = ["ArrayOp", "Call", "Operator", "Extremum", "Reduction", "ARRAY_API",
           "ARRAY_ATTRIBUTES", "ARRAY", "VALUE", "AXES", "SHAPE", "BOOL", "INT", "BOUND",
           "ARRAYS"]

ARRAY = "array"
VALUE = "value"
AXES = "axes"
SHAPE = "shape"
BOOL = "bool"
INT = "int"
BOUND = "bound"
ARRAYS = "arrays"


# -- lowerings ------------------------------------------------------------------------------

class Call(NamedTuple):
    """``kind(arguments..., *extra)``: the arguments in parameter order (the
    unsupported ones left out), then the constants ``extra``; the result is a
    ``result``."""

    kind: str
    extra: Tuple[Any, ...] = ()
    result: T.Type = T.TENSOR


class Operator(NamedTuple):
    """The Python operator ``op`` on the two arguments (``np.add(x, 1)`` is
    ``x + 1``), typed by the operator's rules."""

    op: type


class Extremum(NamedTuple):
    """``kind(a, b)`` of an array and an array or a number, given in either order
    (``np.maximum(0, x)`` is ``maximum(x, 0)``); a Tensor."""

    kind: str


class Reduction(NamedTuple):
    """A reduction of the array ``a``: over the whole array
    ``whole(a, *extra)``, or over ``axis`` ``along(a, axes, keepdims, *extra)``
    (``keepdims`` needs an axis); a Tensor.  ``extra`` is ``(None,)`` for the
    reductions whose aten op takes a dtype."""

    whole: str
    along: str
    extra: Tuple[Any, ...] = ()


Lowering = Union[Call, Operator, Extremum, Reduction]


class ArrayOp(NamedTuple):
    """One numpy name: its lowering, and its parameters as a numpy function and
    as an array method (None where numpy has no such spelling).  A method's
    first parameter is the array it is called on."""

    lowering: Lowering
    function: Optional[Tuple[Param, ...]] = None
    method: Optional[Tuple[Param, ...]] = None


# -- parameters -------------------------------------------------------------------------------

def _arg(name: str, kind: str = ARRAY, default: Any = REQUIRED, **how: bool) -> Param:
    return Param(name, default, kind, **how)


def _unsupported(name: str, **how: bool) -> Param:
    return Param(name, OPTIONAL, UNSUPPORTED, **how)


_POSITIONAL_ONLY = {"keyword": False}
_KEYWORD_ONLY = {"positional": False}


def _ufunc(*inputs: Tuple[str, str]) -> Tuple[Param, ...]:
    """A ufunc's parameters: positional-only inputs, then ``out``."""
    return tuple(_arg(n, k, **_POSITIONAL_ONLY) for n, k in inputs) + (_unsupported("out"),)


def _reduction(dtype: bool, method: bool) -> Tuple[Param, ...]:
    """``np.sum(a, axis=None, dtype=None, out=None, keepdims=False)``, and as a
    method ``x.sum(axis=None, dtype=None, out=None, *, keepdims=False)``; the
    extrema take no dtype."""
    return ((_arg("a"), _arg("axis", AXES, OPTIONAL))
            + ((_unsupported("dtype"),) if dtype else ())
            + (_unsupported("out"),
               _arg("keepdims", BOOL, False, **(_KEYWORD_ONLY if method else {}))))


_UNARY = {name: "aten::" + name for name in (
    "exp", "log", "tanh", "sqrt", "abs", "sin", "cos", "tan", "floor", "ceil", "sign", "log1p",
    "expm1", "square", "log2", "log10", "sinh", "cosh")}
_UNARY.update({"negative": "aten::neg", "absolute": "aten::abs", "arctan": "aten::atan"})

_OPERATORS = {"add": ast.Add, "subtract": ast.Sub, "multiply": ast.Mult, "divide": ast.Div,
              "power": ast.Pow}


def _extremum(which: str) -> Dict[str, ArrayOp]:
    """``np.max``/``np.amax`` (and ``x.max()``), or the same for min."""
    lowering = Reduction("aten::" + which, "aten::a" + which)
    return {which: ArrayOp(lowering, _reduction(False, False), _reduction(False, True)),
            "a" + which: ArrayOp(lowering, _reduction(False, False))}


def _sum_like(name: str) -> ArrayOp:
    return ArrayOp(Reduction("aten::" + name, "aten::" + name, (None,)),
                   _reduction(True, False), _reduction(True, True))


#: Every numpy function and array method, by name.
ARRAY_API: Dict[str, ArrayOp] = {
    **{name: ArrayOp(Call(kind), _ufunc(("x", ARRAY))) for name, kind in _UNARY.items()},
    **{name: ArrayOp(Operator(op), _ufunc(("x1", ARRAY), ("x2", VALUE)))
       for name, op in _OPERATORS.items()},
    "matmul": ArrayOp(Call("aten::matmul"), _ufunc(("x1", ARRAY), ("x2", ARRAY))),
    "dot": ArrayOp(Call("aten::matmul"),
                   (_arg("a"), _arg("b"), _unsupported("out")),
                   (_arg("a"), _arg("b", **_POSITIONAL_ONLY), _unsupported("out"))),
    "maximum": ArrayOp(Extremum("aten::maximum"), _ufunc(("x1", VALUE), ("x2", VALUE))),
    "minimum": ArrayOp(Extremum("aten::minimum"), _ufunc(("x1", VALUE), ("x2", VALUE))),
    "sum": _sum_like("sum"),
    "mean": _sum_like("mean"),
    **_extremum("max"),
    **_extremum("min"),
    "reshape": ArrayOp(Call("aten::reshape"),
                       (_arg("a", **_POSITIONAL_ONLY), _arg("shape", SHAPE),
                        _unsupported("order"), _unsupported("copy", **_KEYWORD_ONLY)),
                       (_arg("a"), _arg("shape", SHAPE, variadic=True),
                        _unsupported("order", **_KEYWORD_ONLY),
                        _unsupported("copy", **_KEYWORD_ONLY))),
    "transpose": ArrayOp(Call("aten::numpy_T"),
                         (_arg("a"), _unsupported("axes")),
                         (_arg("a"), _unsupported("axes", variadic=True))),
    "concatenate": ArrayOp(Call("aten::cat"),
                           (_arg("arrays", ARRAYS, **_POSITIONAL_ONLY), _arg("axis", INT, 0),
                            _unsupported("out"))),
    "stack": ArrayOp(Call("aten::stack"),
                     (_arg("arrays", ARRAYS), _arg("axis", INT, 0), _unsupported("out"))),
    "where": ArrayOp(Call("aten::where"),
                     tuple(_arg(n, **_POSITIONAL_ONLY) for n in ("condition", "x", "y"))),
    "clip": ArrayOp(Call("aten::clamp"),
                    (_arg("a"), _arg("a_min", BOUND), _arg("a_max", BOUND), _unsupported("out"))),
    "copy": ArrayOp(Call("aten::clone", (None,)), method=(_arg("a"), _unsupported("order"))),
    "flatten": ArrayOp(Call("aten::flatten", (0, -1)),
                       method=(_arg("a"), _unsupported("order"))),
}

#: The array attributes, each an op of the array alone.
ARRAY_ATTRIBUTES: Dict[str, Call] = {
    "shape": Call("aten::size", result=T.ListType(T.INT)),
    "ndim": Call("aten::dim", result=T.INT),
    "size": Call("aten::numel", result=T.INT),
    "T": Call("aten::numpy_T"),
}
