"""Activation functions: pointwise rows with scalar parameters, and the softmaxes.

Each activation is a :class:`~pyjit.ops.pointwise.Unary` row (the pointwise
family's generic implementation gives it its functional, ``_`` in-place and
``out=`` forms), with the parameters TorchScript passes after the tensor::

    aten::leaky_relu(%x, %negative_slope)
    aten::elu(%x, %alpha, %scale, %input_scale)
    aten::gelu(%x, %approximate)              # "none" or "tanh"

The kernels compute in the input's float dtype, so float32 stays float32; a
float32 ``gelu``, ``silu``, ``hardswish``, ``hardsigmoid``, ``relu``,
``relu6``, ``hardtanh`` or softmax is one of :mod:`.kernels`' (gelu's erf is
Abramowitz and Stegun's, as torch's vectorised one is).
``softmax``/``log_softmax`` (with an optional ``dtype``), ``glu`` and ``prelu``
follow the table.
"""

from __future__ import annotations

import math
from typing import List

import numpy as np

from ..registry import library as R
from . import kernels, special
from ..fperrors import ignoring, prefers_quiet_run
from .dims import as_array, wrap_dim
from .dtypes import DEFAULT_FLOAT, to_dtype
from .pointwise import FLOAT, SAME, Unary, register_unary

__all__ = ["ACTIVATIONS", "softmax"]


def _t(x, v):
    """``v`` as a scalar of ``x``'s dtype (so numpy keeps float32)."""
    return x.dtype.type(v)


_INF = math.inf


def _clamp(a, lo, hi):
    """relu, relu6 and hardtanh written into a float32 ``a`` in place, by the
    ``clamp`` kernel (numpy's ``maximum`` with a scalar took four times a
    copy's time, ``clip`` more)."""
    return kernels.pointwise("clamp", a, float(lo), float(hi), out=a)


def _relu(x):
    if kernels.is_float32(x):
        return kernels.pointwise("clamp", x, 0.0, _INF)
    return np.maximum(x, _t(x, 0), out=...)


def _relu6(x):
    if kernels.is_float32(x):
        return kernels.pointwise("clamp", x, 0.0, 6.0)
    return np.clip(x, _t(x, 0), _t(x, 6), out=...)


def _leaky_relu(x, slope=0.01):
    return np.where(x > 0, x, x * _t(x, slope))


def _elu(x, alpha=1.0, scale=1.0, input_scale=1.0):
    neg = np.expm1(x * _t(x, input_scale)) * _t(x, alpha)
    return np.where(x > 0, x, neg) * _t(x, scale)


def _selu(x):
    return _elu(x, 1.6732632423543772848170429916717, 1.0507009873554804934193349852946)


def _celu(x, alpha=1.0):
    return np.maximum(x, 0) + np.minimum(0, _t(x, alpha) * np.expm1(x / _t(x, alpha)))


def _hardtanh(x, lo=-1.0, hi=1.0):
    if kernels.is_float32(x):
        return kernels.pointwise("clamp", x, float(lo), float(hi))
    return np.minimum(np.maximum(x, _t(x, lo)), _t(x, hi))


def _hardsigmoid(x):
    if kernels.is_float32(x):
        return kernels.pointwise("hardsigmoid", x)
    return np.clip(x / _t(x, 6) + _t(x, 0.5), _t(x, 0), _t(x, 1))


def _hardswish(x):
    if kernels.is_float32(x):
        return kernels.pointwise("hardswish", x)
    return x * np.clip(x + _t(x, 3), _t(x, 0), _t(x, 6)) / _t(x, 6)


def _hardshrink(x, lambd=0.5):
    return np.where(np.abs(x) > lambd, x, _t(x, 0))


def _softshrink(x, lambd=0.5):
    return np.where(x > lambd, x - _t(x, lambd), np.where(x < -lambd, x + _t(x, lambd),
                                                           _t(x, 0)))


def _softplus(x, beta=1.0, threshold=20.0):
    bx = x * _t(x, beta)
    return np.where(bx > threshold, x, np.log1p(np.exp(bx)) / _t(x, beta))


def _silu(x):
    if kernels.is_float32(x):
        return kernels.pointwise("silu", x)
    return x / (_t(x, 1) + np.exp(-x))


def _mish(x):
    return x * np.tanh(np.log1p(np.exp(x)))


def _log_sigmoid(x):
    # -softplus(-x), stable for large |x|
    return -(np.maximum(-x, _t(x, 0)) + np.log1p(np.exp(-np.abs(x))))


def _gelu(x, approximate="none"):
    if kernels.is_float32(x):
        return kernels.pointwise("gelu", x, approximate == "tanh")
    if approximate == "tanh":
        inner = _t(x, math.sqrt(2 / math.pi)) * (x + _t(x, 0.044715) * x * x * x)
        return _t(x, 0.5) * x * (_t(x, 1) + np.tanh(inner))
    cdf = (0.5 * special.erfc(-x.astype(np.float64) / math.sqrt(2))).astype(x.dtype)
    return x * cdf


def _threshold(x, threshold, value):
    return np.where(x > threshold, x, _t(x, value))


def _rrelu_eval(x, lower=1.0 / 8, upper=1.0 / 3, training=False, generator=None):
    if training:
        raise ValueError("rrelu in training mode draws random slopes; pyjit runs it in eval "
                         "mode only (training=False)")
    return _leaky_relu(x, (lower + upper) / 2)


_N = "Scalar"

#: Activation functions, as pointwise rows.
ACTIVATIONS: List[Unary] = [
    Unary("relu", _relu, SAME, refuse=("b", '"clamp_min_scalar_cpu" not implemented for '
                                            "'{dtype}'"),
          direct=lambda a: _clamp(a, 0.0, _INF)),
    Unary("relu6", _relu6, FLOAT, direct=lambda a: _clamp(a, 0.0, 6.0)),
    Unary("leaky_relu", _leaky_relu, FLOAT, params=(_N,)),
    Unary("elu", _elu, FLOAT, params=(_N, _N, _N)),
    Unary("selu", _selu, FLOAT),
    Unary("celu", _celu, FLOAT, params=(_N,)),
    Unary("hardtanh", _hardtanh, FLOAT, params=(_N, _N),
          direct=lambda a, lo=-1.0, hi=1.0: _clamp(a, lo, hi)),
    Unary("hardsigmoid", _hardsigmoid, FLOAT,
          direct=lambda a: kernels.pointwise("hardsigmoid", a, out=a)),
    Unary("hardswish", _hardswish, FLOAT,
          direct=lambda a: kernels.pointwise("hardswish", a, out=a)),
    Unary("hardshrink", _hardshrink, FLOAT, params=(_N,)),
    Unary("softshrink", _softshrink, FLOAT, params=(_N,)),
    Unary("softplus", _softplus, FLOAT, params=(_N, _N)),
    Unary("silu", _silu, FLOAT, direct=lambda a: kernels.pointwise("silu", a, out=a)),
    Unary("mish", _mish, FLOAT),
    Unary("log_sigmoid", _log_sigmoid, FLOAT, inplace=False),
    Unary("gelu", _gelu, FLOAT, params=("str",)),
    Unary("gelu", _gelu, FLOAT),
    Unary("threshold", _threshold, FLOAT, params=(_N, _N)),
    Unary("rrelu", _rrelu_eval, FLOAT, params=(_N, _N, "bool", "Generator?")),
]

for _row in ACTIVATIONS:
    register_unary(_row)


def softmax(a, dim: int, dtype=None, log: bool = False):
    """``softmax``/``log_softmax`` over ``dim``, in ``dtype`` if given (integer
    inputs need one: torch refuses them otherwise)."""
    x = a.astype(to_dtype(dtype)) if dtype is not None else a
    if x.dtype.kind not in "fc":
        x = x.astype(DEFAULT_FLOAT)
    d = wrap_dim(dim, x.ndim)
    if x.ndim == 0:
        return as_array(np.zeros((), x.dtype) if log else np.ones((), x.dtype))
    if kernels.is_float32(x) and x.size:
        return kernels.softmax(x, d, log)
    with ignoring():
        m = np.max(x, axis=d, keepdims=True) if x.size else x
        m = np.where(np.isfinite(m), m, 0)
        shifted = x - m
        e = np.exp(shifted)
        s = np.sum(e, axis=d, keepdims=True)
        return as_array(shifted - np.log(s)) if log else as_array(e / s)


def glu(a, dim: int = -1):
    d = wrap_dim(dim, a.ndim)
    if a.shape[d] % 2:
        raise ValueError(f"Halving dimension must be even, but dimension {d} is size "
                         f"{a.shape[d]}")
    x, gate = np.split(a, 2, axis=d)
    with ignoring():
        return as_array(x / (1 + np.exp(-gate)))


def prelu(a, weight):
    if weight.size != 1 and a.ndim >= 2:
        shape = [1] * a.ndim
        shape[1] = weight.size
        w = weight.reshape(shape)
    else:
        w = weight.reshape(()) if weight.size == 1 else weight
    return as_array(np.where(a > 0, a, a * w)).astype(a.dtype)


_T = "Tensor"
for _name, _log in (("softmax", False), ("log_softmax", True), ("special_softmax", False),
                    ("special_log_softmax", True)):
    R.register(f"aten::{_name}", (lambda lg: lambda a, dim, dtype=None:
                                  softmax(a, dim, dtype, lg))(_log), types=[_T, "int", "int?"])
    R.register(f"aten::{_name}", (lambda lg: lambda a, dim, half: softmax(a, dim, None, lg))(
        _log), types=[_T, "int", "bool"])
R.implement("aten::_softmax", lambda a, dim, half=False: softmax(a, dim))
R.implement("aten::_log_softmax", lambda a, dim, half=False: softmax(a, dim, None, True))
R.implement("aten::glu", glu)
R.implement("aten::_softmax_backward_data",
            lambda grad, out, dim, input_dtype: as_array(
                out * (grad - np.sum(grad * out, axis=wrap_dim(dim, out.ndim), keepdims=True))))
R.implement("aten::prelu", prelu)
R.implement("aten::_prelu_kernel", prelu)
# (log_sigmoid(x), exp(-|x|)): the buffer torch's CPU kernel keeps for the gradient
R.implement("aten::log_sigmoid_forward",
            lambda x: (as_array(_log_sigmoid(x).astype(x.dtype)),
                       as_array(np.exp(-np.abs(x)).astype(x.dtype))))
