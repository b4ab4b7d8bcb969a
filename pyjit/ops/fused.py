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

    pyjit::conv_bn_act(Tensor input, Tensor weight, Tensor? bias, int[] stride,
                       int[] padding, int[] dilation, int groups, int nd,
                       Tensor? bn_weight, Tensor? bn_bias, Tensor? running_mean,
                       Tensor? running_var, float eps, str activation) -> Tensor

``nd`` is the convolution's spatial rank (``aten::conv{nd}d``) and
``activation`` one of :data:`ACTIVATIONS` (``conv_bn_act`` also takes
``"none"``).  ``conv_bn_act`` is a convolution, then an inference batch norm
by the running statistics it is given at each run (a module's attributes, not
constants: :mod:`pyjit.passes.fuse_batch_norm`), then the activation: the batch
norm's affine map ``y * scale + shift``, made per channel as
``aten::batch_norm`` makes it, is applied as the convolution stores its sums,
as is a clamp (ReLU, ReLU6), so the output is written once where three
operators wrote it three times.  The result is exactly the two
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
from .nn_conv import direct_size, conv, conv2d, direct_conv2d
from .nn_layers import linear
from .nn_norm import batch_norm

__all__ = ["ACTIVATIONS", "CLAMPS", "conv_act", "conv_bn_act", "linear_act"]


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


def conv_bn_act(x, weight, bias, stride, padding, dilation, groups: int, nd: int, bn_weight,
                bn_bias, mean, var, eps: float, activation: str):
    """``pyjit::conv_bn_act``: ``aten::conv{nd}d``, ``aten::batch_norm`` in
    inference by ``mean`` and ``var``, then ``activation`` (``"none"``: none)."""
    act = None if activation == "none" else _activation(activation)
    if nd == 2 and mean is not None and var is not None and \
            kernels.is_float32(x, weight, bias, bn_weight, bn_bias, mean, var) and \
            type(eps) is float and weight.ndim == 4 and \
            mean.shape == var.shape == weight.shape[:1] and \
            (bn_weight is None or bn_weight.shape == mean.shape) and \
            (bn_bias is None or bn_bias.shape == mean.shape) and \
            (bias is None or bias.shape == mean.shape):
        size = direct_size(x, weight, stride, padding, dilation, groups)
        if size:
            # the affine map as batch_norm_planes makes it: in double, rounded
            # once; a bias first, (sums + bias) * scale + shift
            scale, shift = np.empty((2,) + mean.shape, np.float32)
            kernels.ACTIVE.bn_affine(bn_weight, bn_bias, mean, var, eps, bias, scale, shift)
            out = kernels.conv2d(x, weight, None, stride, padding, dilation, groups, size,
                                 clamp=CLAMPS.get(activation), affine=(scale, shift))
            return out if act is None or activation in CLAMPS else act(out)
    y = conv2d(x, weight, bias, stride, padding, dilation, groups) if nd == 2 else \
        conv(x, weight, bias, stride, padding, dilation, groups, nd)
    y = batch_norm(y, bn_weight, bn_bias, mean, var, False, 0.0, eps)
    return y if act is None else act(y)


def linear_act(x, weight, bias, activation: str):
    """``pyjit::linear_act``: ``aten::linear``, then ``activation`` in place."""
    act = _activation(activation)
    return act(linear(x, weight, bias))


_T, _L = "Tensor", "int[]"
R.register("pyjit::conv_act", conv_act,
           types=[_T, _T, "Tensor?", _L, _L, _L, "int", "int", "str"])
R.register("pyjit::linear_act", linear_act, types=[_T, _T, "Tensor?", "str"])
R.register("pyjit::conv_bn_act", conv_bn_act,
           types=[_T, _T, "Tensor?", _L, _L, _L, "int", "int", "Tensor?", "Tensor?", "Tensor?", "Tensor?",
                  "float", "str"])
