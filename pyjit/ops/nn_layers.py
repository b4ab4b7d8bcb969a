"""Layers without their own family: ``linear``, ``bilinear``, ``embedding`` and
``one_hot`` (the dropouts are with the random operators, :mod:`pyjit.ops.random`).
"""

from __future__ import annotations

import numpy as np

from ..registry import library as R
from .dims import as_array
from .linalg import _same_dtype, _shape_text

__all__ = ["linear", "embedding", "FAMILY"]


def linear(x, weight, bias=None):
    """``aten::linear``: ``x @ weight.T + bias``."""
    wt = weight.T
    if x.shape[-1] != wt.shape[0]:
        rows = int(np.prod(x.shape[:-1])) if x.ndim > 1 else 1
        raise ValueError(f"mat1 and mat2 shapes cannot be multiplied ({rows}x{x.shape[-1]} "
                         f"and {_shape_text(wt)})")
    _same_dtype(x, weight, "mat1 and mat2 must have the same dtype")
    out = np.matmul(x, wt, out=...)
    return out if bias is None else np.add(out, bias, out=...)


def bilinear(x1, x2, weight, bias=None):
    out = np.einsum("...i,oij,...j->...o", x1.astype(np.float64), weight.astype(np.float64),
                    x2.astype(np.float64))
    if bias is not None:
        out = out + bias
    return as_array(out.astype(x1.dtype))


def embedding(weight, indices, padding_idx=-1, scale_grad=False, sparse=False):
    if indices.dtype.kind not in "iu":
        raise TypeError("Expected tensor for argument #1 'indices' to have one of the following "
                        "scalar types: Long, Int; but got torch.FloatTensor instead (while "
                        "checking arguments for embedding)")
    if indices.size and (indices.max() >= weight.shape[0] or indices.min() < 0):
        raise IndexError("index out of range in self")
    return weight[indices]


def one_hot(indices, num_classes: int = -1):
    if indices.dtype.kind not in "iu":
        raise TypeError("one_hot is only applicable to index tensor of type LongTensor.")
    if indices.size and indices.min() < 0:
        raise ValueError("Class values must be non-negative.")
    if num_classes == -1:
        num_classes = int(indices.max()) + 1 if indices.size else 0
    elif indices.size and indices.max() >= num_classes:
        raise ValueError("Class values must be smaller than num_classes.")
    return (indices[..., None] == np.arange(num_classes)).astype(np.int64)


_T = "Tensor"
R.register("aten::linear", linear, types=[_T, _T, "Tensor?"])
R.register("aten::linear", linear, types=[_T, _T])
R.register("aten::bilinear", bilinear, types=[_T, _T, _T, "Tensor?"])
R.register("aten::embedding", embedding, types=[_T, _T, "int", "bool", "bool"])
R.register("aten::one_hot", one_hot, types=[_T, "int"])

#: The family's operator names, for ``pyjit info --ops``.
FAMILY = sorted(["linear", "bilinear", "embedding", "one_hot"])
