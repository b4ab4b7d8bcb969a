"""Fused operators: a convolution or a linear layer and the activation after it,
in one node (what :mod:`pyjit.passes.fuse_activations` makes of the two).

TorchScript has no such operators; torch's ``optimize_for_inference`` makes
similar ones for its mkldnn backend (``prim::mkldnn_convolution`` with a fused
``attr``).  Here they are in the ``pyjit::`` namespace::

    pyjit::conv_act(Tensor input, Tensor weight, Tensor? bias, int[] stride,
                    int[] padding, int[] dilation, int groups, int nd,
                    str activation) -> Tensor
    pyjit::linear_act(Tensor input, Tensor weight, Tensor? bias,
                      str activation) -> Tensor

``nd`` is the convolution's spatial rank (``aten::conv{nd}d``) and
``activation`` one of :data:`ACTIVATIONS`.  The result is exactly the two
operators' one after the other: the convolution's (or linear's) output is a
fresh array, so the activation's in-place form writes into it (for a float32
output, the same kernel call ``relu_`` or ``silu_`` makes), which saves the
second array, a pass over memory and an instruction.  Any other dtype
computes the activation out of place, as its operator does.
"""

from __future__ import annotations

import math
from typing import Callable, Dict

import numpy as np

from ..registry import library as R
from . import kernels
from .activations import _gelu, _hardswish, _silu
from .nn_conv import conv, conv2d, direct_conv2d
from .nn_layers import linear

__all__ = ["ACTIVATIONS", "conv_act", "linear_act"]


def _t(x, v):
    return x.dtype.type(v)


def _relu(a):
    if kernels.writes_in_place(a):
        return kernels.pointwise("clamp", a, 0.0, math.inf, out=a)
    return np.maximum(a, _t(a, 0), out=a)


def _relu6(a):
    if kernels.writes_in_place(a):
        return kernels.pointwise("clamp", a, 0.0, 6.0, out=a)
    return np.clip(a, _t(a, 0), _t(a, 6), out=a)


def _kernel(name: str, generic: Callable[[np.ndarray], np.ndarray],
            *args) -> Callable[[np.ndarray], np.ndarray]:
    """The activation ``name`` of :mod:`.kernels` written into a float32 array
    in place; any other dtype by ``generic``, its operator's numpy path."""
    def apply(a):
        if kernels.writes_in_place(a):
            return kernels.pointwise(name, a, *args, out=a)
        return generic(a)
    return apply


#: The activations a fused node applies, by the name its ``activation`` input
#: gives: each writes into its argument (the convolution's fresh output) and
#: returns it.  ``relu6`` is also ``hardtanh(x, 0., 6.)``.
ACTIVATIONS: Dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "relu": _relu,
    "relu6": _relu6,
    "silu": _kernel("silu", _silu),
    "hardswish": _kernel("hardswish", _hardswish),
    "gelu": _kernel("gelu", _gelu, False),
    "gelu_tanh": _kernel("gelu", lambda a: _gelu(a, "tanh"), True),
}


def _activation(name: str) -> Callable[[np.ndarray], np.ndarray]:
    try:
        return ACTIVATIONS[name]
    except KeyError:
        raise ValueError(f"pyjit::conv_act/linear_act: no fused activation {name!r}; the "
                         f"activations are {', '.join(ACTIVATIONS)}") from None


#: The activations that are a clamp, applied by a float32 convolution as it
#: stores its output (the GEMM's epilogue), by their bounds.
CLAMPS = {"relu": (0.0, math.inf), "relu6": (0.0, 6.0)}


def conv_act(x, weight, bias, stride, padding, dilation, groups: int, nd: int,
             activation: str):
    """``pyjit::conv_act``: ``aten::conv{nd}d``, then ``activation`` in place (a
    clamp, of a float32 2-d convolution, as the convolution stores its output:
    the same values, one pass fewer)."""
    act = _activation(activation)
    if nd == 2:
        if activation in CLAMPS:
            out = direct_conv2d(x, weight, bias, stride, padding, dilation, groups,
                                CLAMPS[activation])
            if out is not None:
                return out
        return act(conv2d(x, weight, bias, stride, padding, dilation, groups))
    return act(conv(x, weight, bias, stride, padding, dilation, groups, nd))


def linear_act(x, weight, bias, activation: str):
    """``pyjit::linear_act``: ``aten::linear``, then ``activation`` in place."""
    act = _activation(activation)
    return act(linear(x, weight, bias))


_T, _L = "Tensor", "int[]"
R.register("pyjit::conv_act", conv_act,
           types=[_T, _T, "Tensor?", _L, _L, _L, "int", "int", "str"])
R.register("pyjit::linear_act", linear_act, types=[_T, _T, "Tensor?", "str"])
