"""Tensor arithmetic on numpy arrays, with torch's dtypes.

Tensors are ``numpy.ndarray``s, zero-dim ones included (never numpy scalars: every
operator here returns an array, a ufunc's scalar result wrapped by :func:`as_tensor`;
numpy's own ``out=...`` does that only from numpy 2.3, which needs Python 3.11).  What torch would
compute in float32 stays float32; int64 stays int64.  Result dtypes follow torch's
promotion (:mod:`pyjit.ops.dtypes`), which numpy's differs from:

==================================  ==========  ==========
operation                           torch       numpy
==================================  ==========  ==========
``int64[3] * 2.5``                  float32     float64
``int64[3] + float32[3]``           float32     float64
``float32[3] + float64[]`` (0-dim)  float32     float64
``int64[3] / int64[3]``             float32     float64
``exp(int64[3])``                   float32     float64
``sum(int32[3])``, ``sum(bool[3])``  int64       int64
``sum(uint8[3])``                   int64       uint64
==================================  ==========  ==========

So binary operators are small wrappers: same-dtype arrays go straight to the numpy
ufunc; anything else first computes torch's result dtype and passes it as the
ufunc's ``dtype``.  Errors keep torch's messages where the corpus meets them
(``mat1 and mat2 shapes cannot be multiplied (2x3 and 2x3)``, ``a Tensor with 2
elements cannot be converted to Scalar``...).

In-place operators (``add_ sub_ mul_ div_``, what ``x += y`` on a Tensor compiles
to) write into ``self`` and return that same array, as torch's do, so aliases see
the change.  torch computes in the promoted dtype and then casts back into
``self``, refusing a cast to a lower category (``result type Float can't be cast
to the desired output type Long`` for ``int_tensor /= 2``) and a broadcast that
would grow ``self`` (``output with shape [3] doesn't match the broadcast shape [2,
3]``).  A read-only array (a tensor constant of a Code) cannot be written to: numpy
raises, which is intended.

Registered: ``add sub`` (with ``alpha``) ``mul div floor_divide remainder pow neg
abs exp log tanh sigmoid relu sqrt``, trigonometric and hyperbolic functions,
``sign square``, ``add_ sub_ mul_ div_``, comparisons, ``__and__ __or__
__xor__``, ``where clamp``, ``matmul mm linear``, ``sum mean`` (all elements or
over dims, ``keepdim``, ``dtype``), ``max min amax amin argmax argmin``,
``softmax``, ``Bool Int Float item`` of one-element tensors, ``clone contiguous
detach``; shapes are in :mod:`pyjit.ops.tensor_shapes`, factories in
:mod:`pyjit.ops.tensor_factories`.
"""

from __future__ import annotations

import math
from typing import Any, Callable, Optional

import numpy as np

from ..registry import default_registry as R
from .dtypes import DEFAULT_FLOAT, INT64, result_type, to_dtype
from .tensor_shapes import wrap_dim

__all__ = ["binary", "true_divide", "add", "sub", "inplace", "unary_float", "sign", "square",
           "where", "clamp", "tensor_sum", "tensor_mean", "amax", "amin", "mm", "matmul",
           "linear", "item"]

_ndarray = np.ndarray

#: torch's names of its ScalarTypes, as its messages print them.
_SCALAR_NAMES = {"uint8": "Byte", "int8": "Char", "int16": "Short", "int32": "Int",
                 "int64": "Long", "float16": "Half", "float32": "Float", "float64": "Double",
                 "complex64": "ComplexFloat", "complex128": "ComplexDouble", "bool": "Bool"}


def as_tensor(x: Any) -> np.ndarray:
    """``x`` as an array (numpy scalars become zero-dim arrays)."""
    return x if type(x) is _ndarray else np.asarray(x)


def binary(ufunc) -> Callable:
    """A torch binary operator from a numpy ufunc: torch's result dtype, array out."""
    def op(a, b):
        if type(a) is _ndarray and type(b) is _ndarray and a.dtype == b.dtype:
            return as_tensor(ufunc(a, b))
        return as_tensor(ufunc(a, b, dtype=result_type(a, b)))
    op.__name__ = ufunc.__name__
    op.__doc__ = f"``numpy.{ufunc.__name__}`` with torch's result dtype."
    return op


def compare(ufunc) -> Callable:
    """A comparison: a bool array, operands compared in numpy's common type."""
    def op(a, b):
        return as_tensor(ufunc(a, b))
    op.__name__ = ufunc.__name__
    return op


_add, _sub, _mul = binary(np.add), binary(np.subtract), binary(np.multiply)


def add(a, b, alpha=1):
    """``aten::add(self, other, alpha)``: ``self + alpha * other``."""
    if alpha != 1:
        b = _mul(b, alpha)
    return _add(a, b)


def _check_sub(a, b) -> None:
    """torch refuses ``-`` with a bool on either side (a Python bool counts)."""
    a_bool = a.dtype == np.bool_
    b_bool = b.dtype == np.bool_ if type(b) is _ndarray else type(b) is bool
    if a_bool and b_bool:
        raise TypeError("Subtraction, the `-` operator, with two bool tensors is not "
                        "supported. Use the `^` or `logical_xor()` operator instead.")
    if a_bool or b_bool:
        raise TypeError("Subtraction, the `-` operator, with a bool tensor is not supported. "
                        "If you are trying to invert a mask, use the `~` or `logical_not()` "
                        "operator instead.")


def sub(a, b, alpha=1):
    """``aten::sub(self, other, alpha)``: ``self - alpha * other``."""
    _check_sub(a, b)
    if alpha != 1:
        b = _mul(b, alpha)
    return _sub(a, b)


def _alpha_factory(two_arg: Callable, three_arg: Callable):
    """When ``alpha`` is the constant 1 (as in nearly every graph), skip it."""
    def factory(node):
        alpha = node.inputs[2].node if len(node.inputs) > 2 else None
        if alpha is not None and alpha.kind == "prim::Constant" and \
                alpha.attrs.get("value") == 1:
            return lambda a, b, _alpha: two_arg(a, b)
        return three_arg
    return factory


def rsub(a, b, alpha=1):
    """``aten::rsub(self, other, alpha)``: ``other - alpha * self``."""
    return _sub(b, _mul(a, alpha) if alpha != 1 else a)


def true_divide(a, b, rounding_mode: Optional[str] = None):
    """``aten::div``: true division in a float dtype (ints divide to float32);
    ``rounding_mode`` ``"trunc"``/``"floor"`` keeps integer dtypes."""
    dt = result_type(a, b)
    with np.errstate(divide="ignore", invalid="ignore"):
        if rounding_mode is None:
            if dt.kind in "biu":
                dt = DEFAULT_FLOAT
            return as_tensor(np.true_divide(a, b, dtype=dt))
        if dt.kind in "biu":
            if np.any(np.asarray(b) == 0):
                raise ZeroDivisionError("ZeroDivisionError")
            q = as_tensor(np.floor_divide(a, b, dtype=dt))
            if rounding_mode == "trunc":
                r = np.remainder(a, b, dtype=dt)
                q = np.where((r != 0) & ((np.asarray(a) < 0) != (np.asarray(b) < 0)), q + 1, q)
            return as_tensor(q.astype(dt))
        q = np.true_divide(a, b, dtype=dt)
        fn = np.trunc if rounding_mode == "trunc" else np.floor
        if rounding_mode not in ("trunc", "floor"):
            raise ValueError(f"div expected rounding_mode to be one of None, 'trunc', or "
                             f"'floor' but found '{rounding_mode}'")
        return as_tensor(fn(q))


def floor_divide(a, b):
    dt = result_type(a, b)
    if dt.kind in "biu" and np.any(np.asarray(b) == 0):
        raise ZeroDivisionError("ZeroDivisionError")
    with np.errstate(divide="ignore", invalid="ignore"):
        if dt.kind == "f":
            return as_tensor(np.floor(np.true_divide(a, b, dtype=dt)))
        return as_tensor(np.floor_divide(a, b, dtype=dt))


def remainder(a, b):
    dt = result_type(a, b)
    if dt.kind in "biu" and np.any(np.asarray(b) == 0):
        raise ZeroDivisionError("ZeroDivisionError")
    with np.errstate(divide="ignore", invalid="ignore"):
        return as_tensor(np.remainder(a, b, dtype=dt))


def power(a, b):
    """``aten::pow``; integer tensors to negative integer powers fail as in torch."""
    dt = result_type(a, b)
    if dt.kind in "iu" and np.any(np.asarray(b) < 0):
        raise ValueError("Integers to negative integer powers are not allowed.")
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        return as_tensor(np.power(a, b, dtype=dt))


# -- in place ----------------------------------------------------------------------

def _shape_list(shape) -> str:
    return "[" + ", ".join(map(str, shape)) + "]"


def _broadcast_shape(a: tuple, b: tuple) -> tuple:
    """The shape two operands broadcast to, failing as torch's ``infer_size`` does
    (numpy's message names neither the sizes nor the dimension)."""
    n = max(len(a), len(b))
    out = []
    for i in range(n):
        da, db = len(a) - n + i, len(b) - n + i
        sa, sb = a[da] if da >= 0 else 1, b[db] if db >= 0 else 1
        if sa != sb and sa != 1 and sb != 1:
            raise ValueError(f"The size of tensor a ({sa}) must match the size of tensor b "
                             f"({sb}) at non-singleton dimension {i}")
        out.append(sb if sa == 1 else sa)
    return tuple(out)


def _can_cast(src: np.dtype, dst: np.dtype) -> bool:
    """``c10::canCast``: anything but a cast to a lower category (float to an
    integer, an integer to bool).  Narrowing within a category is allowed."""
    if src.kind == "c" and dst.kind != "c":
        return False
    if src.kind == "f" and dst.kind in "biu":
        return False
    return not (src.kind != "b" and dst.kind == "b")


def inplace(ufunc, true_division: bool = False) -> Callable:
    """A torch in-place operator (``self op= other``) from a numpy ufunc: compute in
    torch's result dtype, cast back into ``self`` and return ``self``."""
    def op(a, b):
        dt = result_type(a, b)
        if true_division and dt.kind in "biu":
            dt = DEFAULT_FLOAT
        if dt != a.dtype and not _can_cast(dt, a.dtype):
            raise TypeError(f"result type {_SCALAR_NAMES[dt.name]} can't be cast to the "
                            f"desired output type {_SCALAR_NAMES[a.dtype.name]}")
        if type(b) is _ndarray:
            if b.shape != a.shape and _broadcast_shape(a.shape, b.shape) != a.shape:
                raise ValueError(f"output with shape {_shape_list(a.shape)} doesn't match "
                                 f"the broadcast shape "
                                 f"{_shape_list(_broadcast_shape(a.shape, b.shape))}")
        elif type(b) is int and dt.kind in "iu" and dt != INT64:
            # torch casts the number into the computation dtype, wrapping around
            # (uint8 += 300 adds 44); numpy would refuse the out-of-range int.
            b = np.array(b, dtype=INT64).astype(dt)
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            return ufunc(a, b, out=a, dtype=dt, casting="unsafe")
    op.__name__ = ufunc.__name__ + "_"
    op.__doc__ = f"``numpy.{ufunc.__name__}`` into ``self``, with torch's casting rules."
    return op


_iadd, _imul = inplace(np.add), inplace(np.multiply)
_isub_unchecked, _idiv = inplace(np.subtract), inplace(np.true_divide, true_division=True)


def _isub(a, b):
    _check_sub(a, b)
    return _isub_unchecked(a, b)


def _alpha_checked(a, b, alpha):
    """``alpha * other`` for ``add_``/``sub_``: an integral ``self`` refuses a float
    ``alpha``."""
    if a.dtype.kind in "biu" and isinstance(alpha, float):
        raise TypeError("For integral input tensors, argument alpha must not be a floating "
                        "point number.")
    return _mul(b, alpha)


def add_(a, b, alpha=1):
    """``aten::add_(self, other, alpha)``: ``self += alpha * other``; returns ``self``."""
    return _iadd(a, _alpha_checked(a, b, alpha) if alpha != 1 else b)


def sub_(a, b, alpha=1):
    """``aten::sub_(self, other, alpha)``: ``self -= alpha * other``; returns ``self``."""
    _check_sub(a, b)
    return _isub_unchecked(a, _alpha_checked(a, b, alpha) if alpha != 1 else b)


def unary_float(ufunc) -> Callable:
    """A float-valued torch function: integer and bool tensors compute in float32."""
    def op(a):
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            if a.dtype.kind in "fc":
                return as_tensor(ufunc(a))
            return as_tensor(ufunc(a, dtype=DEFAULT_FLOAT))
    op.__name__ = ufunc.__name__
    op.__doc__ = f"``numpy.{ufunc.__name__}``, in float32 for integer tensors."
    return op


def _sigmoid(a, dtype=None, out=None):
    with np.errstate(over="ignore"):
        x = np.asarray(a, dtype=dtype) if dtype is not None else a
        one = x.dtype.type(1)
        return as_tensor(np.divide(one, one + np.exp(np.negative(x))))


_sigmoid.__name__ = "sigmoid"


def relu(a):
    if a.dtype == np.bool_:
        raise TypeError('"clamp_min_scalar_cpu" not implemented for \'Bool\'')
    return as_tensor(np.maximum(a, a.dtype.type(0)))


def neg(a):
    if a.dtype == np.bool_:
        raise TypeError("Negation, the `-` operator, on a bool tensor is not supported. "
                        "If you are trying to invert a mask, use the `~` or "
                        "`logical_not()` operator instead.")
    return as_tensor(np.negative(a))


def absolute(a):
    return as_tensor(np.absolute(a))


def sign(a):
    """``aten::sign``: keeps the dtype; unlike ``numpy.sign``, NaN gives 0 and -0.0
    gives 0.0, and a bool tensor is its own sign."""
    if a.dtype.kind in "iu":
        return as_tensor(np.sign(a))
    if a.dtype == np.bool_:
        return a.copy()
    return as_tensor(np.subtract(a > 0, a < 0, dtype=a.dtype))


def square(a):
    """``aten::square``: ``pow(self, 2)``, so a bool tensor squares to int64."""
    if a.dtype == np.bool_:
        return as_tensor(np.square(a, dtype=INT64))
    return as_tensor(np.square(a))


def where(cond, a, b):
    """``aten::where(condition, self, other)``: the condition must be bool (uint8 is
    still accepted, deprecated); the result has torch's promoted dtype."""
    if cond.dtype != np.bool_ and cond.dtype != np.uint8:
        raise TypeError(f"where expected condition to be a boolean tensor, but got a tensor "
                        f"with dtype {_SCALAR_NAMES[cond.dtype.name]}")
    dt = result_type(a, b)
    return np.where(cond, _as_dtype(a, dt), _as_dtype(b, dt))


def _as_dtype(x, dt: np.dtype):
    """An operand converted to ``dt`` before numpy combines it (numpy would promote
    int64 with float32 to float64)."""
    if type(x) is _ndarray:
        return x if x.dtype == dt else x.astype(dt)
    return np.array(x, dtype=dt)


#: The C++ type names torch's ``checked_convert`` prints.
_C_TYPES = {"uint8": "uint8_t", "int8": "int8_t", "int16": "int16_t", "int32": "int",
            "int64": "int64_t", "float16": "c10::Half", "float32": "float", "float64": "double"}


def _checked_bound(x, dt: np.dtype):
    """A clamp bound in ``dt``; like torch, a bound ``dt`` cannot hold is an error,
    not a wrap-around (infinities and NaN convert to any float type)."""
    if dt.kind in "iu":
        info = np.iinfo(dt)
        ok = info.min <= x <= info.max
    else:
        ok = not math.isfinite(x) or abs(x) <= float(np.finfo(dt).max)
    if not ok:
        raise OverflowError(f"value cannot be converted to type {_C_TYPES[dt.name]} "
                            f"without overflow")
    return dt.type(x)


def clamp(a, lo=None, hi=None):
    """``aten::clamp(self, min, max)``: ``min(max(self, min), max)``, in torch's
    promoted dtype (``clamp(int_tensor, 0.5, 2)`` is float32).  With ``min >
    max`` every element becomes ``max``; a NaN element or bound gives NaN."""
    if lo is None and hi is None:
        raise ValueError("torch.clamp: At least one of 'min' or 'max' must not be None")
    dt = result_type(a, *[x for x in (lo, hi) if x is not None])
    if dt == np.bool_:
        raise TypeError('"clamp_scalar_cpu" not implemented for \'Bool\'')
    out = a if a.dtype == dt else a.astype(dt)
    if lo is not None:
        out = as_tensor(np.maximum(out, _checked_bound(lo, dt)))
    if hi is not None:
        out = as_tensor(np.minimum(out, _checked_bound(hi, dt)))
    return out


# -- reductions -------------------------------------------------------------------

def _dims(dim) -> Any:
    """torch's ``dim`` argument as numpy's ``axis``: None or an empty list reduce all."""
    if dim is None:
        return None
    if isinstance(dim, int):
        return dim
    return tuple(dim) if len(dim) else None


def _sum_dtype(a: np.ndarray, dtype) -> np.dtype:
    if dtype is not None:
        return to_dtype(dtype)
    return INT64 if a.dtype.kind in "biu" else a.dtype


def tensor_sum(a, *args):
    """``aten::sum(self, dtype)`` or ``aten::sum(self, dim, keepdim, dtype)``."""
    if len(args) <= 1:
        return as_tensor(np.sum(a, dtype=_sum_dtype(a, args[0] if args else None)))
    dim, keepdim, dtype = (list(args) + [None])[:3]
    return as_tensor(np.sum(a, axis=_dims(dim), keepdims=bool(keepdim),
                            dtype=_sum_dtype(a, dtype)))


def _mean_dtype(a: np.ndarray, dtype) -> np.dtype:
    dt = to_dtype(dtype) if dtype is not None else a.dtype
    if dt.kind not in "fc":
        raise TypeError("mean(): could not infer output dtype. Input dtype must be either "
                        f"a floating point or complex dtype. Got: {_SCALAR_NAMES[dt.name]}")
    return dt


def tensor_mean(a, *args):
    """``aten::mean(self, dtype)`` or ``aten::mean(self, dim, keepdim, dtype)``."""
    if len(args) <= 1:
        return as_tensor(np.mean(a, dtype=_mean_dtype(a, args[0] if args else None)))
    dim, keepdim, dtype = (list(args) + [None])[:3]
    return as_tensor(np.mean(a, axis=_dims(dim), keepdims=bool(keepdim),
                             dtype=_mean_dtype(a, dtype)))


def _reduce_dims(name: str, a: np.ndarray, dim) -> Optional[tuple]:
    """torch's ``int[] dim`` of ``amax``/``amin`` as numpy's ``axis`` (None: all),
    checked as torch checks it: in range, no repeats, no empty dimension."""
    dims = tuple(wrap_dim(d, a.ndim) for d in dim)
    seen = set()
    for d in dims:
        if d in seen:
            raise ValueError(f"dim {d} appears multiple times in the list of dims")
        seen.add(d)
    if a.size == 0:
        if not dims:
            raise ValueError(f"{name}(): Expected reduction dim to be specified for "
                             "input.numel() == 0. Specify the reduction dim with the 'dim' "
                             "argument.")
        for d in dims:
            if a.ndim and a.shape[d] == 0:
                raise IndexError(f"{name}(): Expected reduction dim {d} to have non-zero size.")
    return dims if dims and a.ndim else None


def amax(a, dim=(), keepdim: bool = False):
    """``aten::amax(self, dim, keepdim)``: the maximum over ``dim`` (all
    dimensions when it is empty), in the input's dtype; NaN propagates."""
    return as_tensor(np.max(a, axis=_reduce_dims("amax", a, dim), keepdims=keepdim))


def amin(a, dim=(), keepdim: bool = False):
    """``aten::amin(self, dim, keepdim)``; see :func:`amax`."""
    return as_tensor(np.min(a, axis=_reduce_dims("amin", a, dim), keepdims=keepdim))


def _reduce_with_indices(values_fn, index_fn):
    def op(a, dim: int, keepdim: bool = False):
        idx = index_fn(a, axis=dim, keepdims=keepdim)
        return as_tensor(values_fn(a, axis=dim, keepdims=keepdim)), as_tensor(idx.astype(INT64))
    return op


def _arg_reduce(index_fn):
    def op(a, dim=None, keepdim: bool = False):
        if dim is None:
            return as_tensor(np.int64(index_fn(a)))
        return as_tensor(index_fn(a, axis=dim, keepdims=keepdim).astype(INT64))
    return op


def _softmax(log: bool):
    def op(a, dim: int, dtype=None):
        x = a.astype(to_dtype(dtype)) if dtype is not None else a
        if x.dtype.kind not in "fc":
            x = x.astype(DEFAULT_FLOAT)
        shifted = x - np.max(x, axis=dim, keepdims=True)
        e = np.exp(shifted)
        s = np.sum(e, axis=dim, keepdims=True)
        return as_tensor(shifted - np.log(s)) if log else as_tensor(e / s)
    return op


# -- matrix products --------------------------------------------------------------

def _shape_text(a: np.ndarray) -> str:
    return "x".join(map(str, a.shape))


def mm(a, b):
    """``aten::mm``: 2-D by 2-D."""
    if a.ndim != 2:
        raise ValueError("self must be a matrix")
    if b.ndim != 2:
        raise ValueError("mat2 must be a matrix")
    if a.shape[1] != b.shape[0]:
        raise ValueError(f"mat1 and mat2 shapes cannot be multiplied ({_shape_text(a)} and "
                         f"{_shape_text(b)})")
    _same_dtype(a, b)
    return as_tensor(np.matmul(a, b))


def _same_dtype(a, b, what="expected m1 and m2 to have the same dtype") -> None:
    if a.dtype != b.dtype:
        raise TypeError(f"{what}, but got: {_torch_dtype(a.dtype)} != {_torch_dtype(b.dtype)}")


def _torch_dtype(dt: np.dtype) -> str:
    return {"float32": "float", "float64": "double", "int64": "long int", "int32": "int",
            "bool": "bool", "float16": "c10::Half"}.get(dt.name, dt.name)


def matmul(a, b):
    """``aten::matmul``: numpy's ``matmul`` rules, which are torch's."""
    if a.ndim == 0 or b.ndim == 0:
        raise ValueError(f"both arguments to matmul need to be at least 1D, but they are "
                         f"{a.ndim}D and {b.ndim}D")
    if a.ndim == 2 and b.ndim == 2:
        return mm(a, b)
    if a.ndim == 1 and b.ndim == 1 and a.shape != b.shape:
        raise ValueError("inconsistent tensor size, expected tensor [%d] and src [%d] to have "
                         "the same number of elements, but got %d and %d elements "
                         "respectively" % (a.shape[0], b.shape[0], a.shape[0], b.shape[0]))
    _same_dtype(a, b)
    return as_tensor(np.matmul(a, b))


def linear(x, weight, bias=None):
    """``aten::linear``: ``x @ weight.T + bias``."""
    wt = weight.T
    if x.shape[-1] != wt.shape[0]:
        rows = int(np.prod(x.shape[:-1])) if x.ndim > 1 else 1
        raise ValueError(f"mat1 and mat2 shapes cannot be multiplied ({rows}x{x.shape[-1]} "
                         f"and {_shape_text(wt)})")
    _same_dtype(x, weight, "mat1 and mat2 must have the same dtype")
    out = as_tensor(np.matmul(x, wt))
    return out if bias is None else _add(out, bias)


# -- tensor -> number ---------------------------------------------------------------

def item(a):
    """The one element of ``a`` as a Python number (``Tensor.item()``)."""
    if a.size != 1:
        raise ValueError(f"a Tensor with {a.size} elements cannot be converted to Scalar")
    return a.reshape(()).item()


def tensor_to_float(a) -> float:
    return float(item(a))


def tensor_to_int(a) -> int:
    return int(item(a))


def tensor_to_bool(a) -> bool:
    if a.size != 1:
        raise ValueError("Boolean value of Tensor with more than one value is ambiguous")
    return bool(item(a))


# -- registrations ----------------------------------------------------------------

_T, _N = "Tensor", "Scalar"

R.register("aten::add", factory=_alpha_factory(_add, add), types=[_T, _T, _N])
R.register("aten::add", factory=_alpha_factory(_add, add), types=[_T, _N, _N])
R.register("aten::add", _add, types=[_T, _T])
R.register("aten::add", _add, types=[_T, _N])
R.register("aten::sub", factory=_alpha_factory(sub, sub), types=[_T, _T, _N])
R.register("aten::sub", factory=_alpha_factory(sub, sub), types=[_T, _N, _N])
R.register("aten::sub", sub, types=[_T, _T])
R.register("aten::sub", sub, types=[_T, _N])
for _t in (_T, _N):
    R.register("aten::add_", factory=_alpha_factory(_iadd, add_), types=[_T, _t, _N])
    R.register("aten::add_", _iadd, types=[_T, _t])
    R.register("aten::sub_", factory=_alpha_factory(_isub, sub_), types=[_T, _t, _N])
    R.register("aten::sub_", _isub, types=[_T, _t])
    R.register("aten::mul_", _imul, types=[_T, _t])
    R.register("aten::div_", _idiv, types=[_T, _t])
R.register("aten::rsub", rsub, types=[_T, _T, _N])
R.register("aten::rsub", rsub, types=[_T, _N, _N])
for _t in (_T, _N):
    R.register("aten::mul", _mul, types=[_T, _t])
    R.register("aten::div", true_divide, types=[_T, _t])
    R.register("aten::div", true_divide, types=[_T, _t, "str?"])
    R.register("aten::floor_divide", floor_divide, types=[_T, _t])
    R.register("aten::remainder", remainder, types=[_T, _t])
    R.register("aten::pow", power, types=[_T, _t])
    R.register("aten::__and__", binary(np.bitwise_and), types=[_T, _t])
    R.register("aten::__or__", binary(np.bitwise_or), types=[_T, _t])
    R.register("aten::__xor__", binary(np.bitwise_xor), types=[_T, _t])
    R.register("aten::maximum", binary(np.maximum), types=[_T, _t])
    R.register("aten::minimum", binary(np.minimum), types=[_T, _t])
    for _name, _ufunc in [("eq", np.equal), ("ne", np.not_equal), ("lt", np.less),
                          ("le", np.less_equal), ("gt", np.greater),
                          ("ge", np.greater_equal)]:
        R.register(f"aten::{_name}", compare(_ufunc), types=[_T, _t])
R.register("aten::mul", lambda s, t: _mul(t, s), types=[_N, _T])
R.register("aten::pow", power, types=[_N, _T])
R.register("aten::neg", neg, types=[_T])
R.register("aten::abs", absolute, types=[_T])
R.register("prim::abs", absolute, types=[_T])
R.register("aten::relu", relu, types=[_T])
R.register("aten::sign", sign, types=[_T])
R.register("aten::square", square, types=[_T])
for _c, _o in [(_T, _T), (_T, _N), (_N, _T), (_N, _N)]:
    R.register("aten::where", where, types=[_T, _c, _o])
R.register("aten::clamp", clamp, types=[_T, "Scalar?", "Scalar?"])
R.register("aten::__not__", np.logical_not, types=[_T])
R.register("aten::logical_not", lambda a: as_tensor(np.logical_not(a)), types=[_T])
for _name, _ufunc in [("exp", np.exp), ("log", np.log), ("tanh", np.tanh),
                      ("sqrt", np.sqrt), ("sin", np.sin), ("cos", np.cos), ("tan", np.tan),
                      ("atan", np.arctan), ("sinh", np.sinh), ("cosh", np.cosh),
                      ("log2", np.log2), ("log10", np.log10), ("log1p", np.log1p),
                      ("expm1", np.expm1), ("rsqrt", lambda a, **kw: 1 / np.sqrt(a, **kw)),
                      ("sigmoid", _sigmoid), ("reciprocal", np.reciprocal)]:
    R.register(f"aten::{_name}", unary_float(_ufunc), types=[_T])
for _name, _fn in [("floor", np.floor), ("ceil", np.ceil), ("round", np.round),
                   ("trunc", np.trunc)]:
    R.register(f"aten::{_name}", (lambda f: lambda a: a if a.dtype.kind in "biu"
                                  else as_tensor(f(a)))(_fn), types=[_T])

R.register("aten::matmul", matmul, types=[_T, _T])
R.register("aten::mm", mm, types=[_T, _T])
R.register("aten::linear", linear, types=[_T, _T, "Tensor?"])
R.register("aten::linear", linear, types=[_T, _T])

R.register("aten::sum", tensor_sum, types=[_T, "int?"])
R.register("aten::sum", tensor_sum, types=[_T])
R.register("aten::sum", tensor_sum, types=[_T, "int[]?", "bool", "int?"])
R.register("aten::mean", tensor_mean, types=[_T, "int?"])
R.register("aten::mean", tensor_mean, types=[_T])
R.register("aten::mean", tensor_mean, types=[_T, "int[]?", "bool", "int?"])
R.register("aten::max", lambda a: as_tensor(np.max(a)), types=[_T])
R.register("aten::min", lambda a: as_tensor(np.min(a)), types=[_T])
R.register("aten::max", _reduce_with_indices(np.max, np.argmax), types=[_T, "int", "bool"])
R.register("aten::min", _reduce_with_indices(np.min, np.argmin), types=[_T, "int", "bool"])
R.register("aten::max", binary(np.maximum), types=[_T, _T])
R.register("aten::min", binary(np.minimum), types=[_T, _T])
R.register("aten::amax", amax, types=[_T, "int[]", "bool"])
R.register("aten::amin", amin, types=[_T, "int[]", "bool"])
R.register("aten::argmax", _arg_reduce(np.argmax), types=[_T, "int?", "bool"])
R.register("aten::argmin", _arg_reduce(np.argmin), types=[_T, "int?", "bool"])
R.register("aten::softmax", _softmax(False), types=[_T, "int", "int?"])
R.register("aten::log_softmax", _softmax(True), types=[_T, "int", "int?"])

R.register("aten::item", item, types=[_T])
R.register("aten::Float", tensor_to_float, types=[_T])
R.register("aten::Int", tensor_to_int, types=[_T])
R.register("aten::Bool", tensor_to_bool, types=[_T])
R.register("aten::ScalarImplicit", item, types=[_T])
R.register("aten::clone", lambda a, memory_format=None: a.copy(), types=[_T, "int?"])
R.register("aten::clone", np.copy, types=[_T])
R.register("aten::contiguous", lambda a, memory_format=0: np.ascontiguousarray(a),
           types=[_T, "int"])
R.register("aten::detach", lambda a: a, types=[_T])
