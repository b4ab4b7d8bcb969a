"""``fold_batch_norm``: a batch norm in inference folded into the convolution
before it, as torch's ``torch.jit.freeze`` does (``FoldFrozenConvBatchnorm``).

In inference a batch norm is an affine map per channel, by its running
statistics::

    bn(y)[c] = (y[c] - mean[c]) / sqrt(var[c] + eps) * gamma[c] + beta[c]
             = y[c] * scale[c] + (beta[c] - mean[c] * scale[c])
    scale[c] = gamma[c] / sqrt(var[c] + eps)

and a convolution's output channel ``c`` is linear in its filter ``W[c]`` plus
its bias ``b[c]``.  So ``bn(conv(x, W, b))`` is ``conv(x, W', b')`` with::

    W'[c] = W[c] * scale[c]
    b'[c] = (b[c] - mean[c]) * scale[c] + beta[c]     (b = 0 when None)

computed once, here, when the Code is built: the batch norm's instruction, its
pass over the output and its array are gone from every run.

When it applies -- only where the rewrite is exact up to rounding:

* the batch norm is ``aten::batch_norm`` with ``training`` a constant False
  (inference: a training batch norm uses the batch's statistics and updates
  the running ones);
* its weight, bias, running mean and running variance, and the convolution's
  weight and bias, are tensor constants (weight and biases may be None) that
  nothing in the graph writes into (:func:`.constant_values.tensor_constant`):
  a frozen module's, where ``torch.jit.freeze`` made its parameters constants;
* the convolution (``aten::conv1d``, ``conv2d``, ``conv3d``) is the batch norm's
  input and the batch norm its only user (the un-normalised output is not
  needed elsewhere; a query of its shape, as ``BatchNorm2d._check_input_dim``
  makes, sees the folded output's, which is the same), and the shapes agree
  (one statistic per output channel).

A ``linear`` before a batch norm is not folded: the batch norm's channels are
dimension 1 of its input and a linear's features the last one, which are the
same only for 2-d input, and a graph's tensor types do not say the rank.

Rounding.  ``W'`` and ``b'`` are computed in double and rounded once to the
weights' dtype, so each is within half an ulp of the exact product; the
folded convolution then rounds its sums as any convolution does.  The result
differs from the unfolded one's by about float32's ulp times the output's
magnitude (torch's own folding moves its outputs likewise:
tests/test_inference_passes.py compares both with float64's value).

Before::

    %w : Tensor = prim::Constant[value=<Tensor>]()
    %y : Tensor = aten::conv2d(%x, %w, %none, %stride, %pad, %dil, %groups)
    %out : Tensor = aten::batch_norm(%y, %gamma, %beta, %mean, %var, %false, %m, %eps, %true)

After::

    %w2 : Tensor = prim::Constant[value=<Tensor>]()      # W'
    %b2 : Tensor = prim::Constant[value=<Tensor>]()      # b'
    %y : Tensor = aten::conv2d(%x, %w2, %b2, %stride, %pad, %dil, %groups)
"""

from __future__ import annotations

import numpy as np

from ..ir import types as T
from ..ir.graph import Graph, Node
from .constant_values import (NOT_CONSTANT, constant_of, drop_if_unused, only_user,
                              replace_constant, tensor_constant)

__all__ = ["fold_batch_norm", "CONVOLUTIONS"]

#: The convolutions a batch norm folds into (their output channels are the
#: weight's first dimension).
CONVOLUTIONS = frozenset({"aten::conv1d", "aten::conv2d", "aten::conv3d"})


def fold_batch_norm(graph: Graph) -> int:
    """Fold every inference batch norm of ``graph`` that may be folded into the
    convolution before it (see the module docstring); returns how many."""
    folded = 0
    for bn in [n for n in graph.all_nodes() if n.kind == "aten::batch_norm"]:
        conv = bn.inputs[0].node
        if conv.kind in CONVOLUTIONS and only_user(conv.output(), shapes=True) is bn and \
                _fold(conv, bn):
            folded += 1
    return folded


def _optional_tensor(v) -> object:
    """A tensor constant's array, None for a None constant, else NOT_CONSTANT."""
    a = tensor_constant(v)
    if a is not None:
        return a
    return None if constant_of(v) is None else NOT_CONSTANT


def _fold(conv: Node, bn: Node) -> bool:
    if constant_of(bn.inputs[5]) is not False:   # training
        return False
    eps = constant_of(bn.inputs[7])
    if type(eps) is not float:
        return False
    weight = tensor_constant(conv.inputs[1])
    bias = _optional_tensor(conv.inputs[2])
    gamma, beta = _optional_tensor(bn.inputs[1]), _optional_tensor(bn.inputs[2])
    mean, var = tensor_constant(bn.inputs[3]), tensor_constant(bn.inputs[4])
    if weight is None or mean is None or var is None or any(a is NOT_CONSTANT for a in (bias, gamma, beta)):
        return False
    o = weight.shape[0] if weight.ndim else -1
    dtype = weight.dtype
    stats = [a for a in (bias, gamma, beta, mean, var) if a is not None]
    if dtype.kind != "f" or any(a.shape != (o,) or a.dtype != dtype for a in stats):
        return False
    scale = (1.0 if gamma is None else gamma.astype(np.float64)) / \
        np.sqrt(var.astype(np.float64) + eps)
    new_weight = (weight.astype(np.float64) *
                  scale.reshape((o,) + (1,) * (weight.ndim - 1))).astype(dtype)
    b = 0.0 if bias is None else bias.astype(np.float64)
    new_bias = ((b - mean.astype(np.float64)) * scale +
                (0.0 if beta is None else beta.astype(np.float64))).astype(dtype)
    replace_constant(conv, 1, new_weight)
    replace_constant(conv, 2, new_bias, T.TENSOR)
    bn.output().replace_all_uses_with(conv.output())
    inputs = list(bn.inputs)
    bn.destroy()
    for v in inputs:
        drop_if_unused(v)
    return True

