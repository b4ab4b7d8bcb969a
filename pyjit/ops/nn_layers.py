"""Layers without their own family: ``linear``, ``bilinear``, ``embedding`` and
``one_hot`` (the dropouts are with the random operators, :mod:`pyjit.ops.random`).
"""

from __future__ import annotations

import math

import numpy as np

from ..registry import library as R
from . import kernels
from .dims import as_array
from .linalg import _same_dtype, _shape_text

__all__ = ["linear", "embedding"]


def linear(x, weight, bias=None):
    """``aten::linear``: ``x @ weight.T + bias``."""
    wt = weight.T
    if x.shape[-1] != wt.shape[0]:
        rows = int(np.prod(x.shape[:-1])) if x.ndim > 1 else 1
        raise ValueError(f"mat1 and mat2 shapes cannot be multiplied ({rows}x{x.shape[-1]} "
                         f"and {_shape_text(wt)})")
    _same_dtype(x, weight, "mat1 and mat2 must have the same dtype")
    lead = x.shape[:-1]
    if kernels.OWN_GEMM_EVERYWHERE and x.ndim >= 2 and weight.ndim == 2 and \
            kernels.is_float32(x, weight, bias):
        # pyjit's GEMM, a bias of one per output its sums' start (kernels.matmul)
        per_output = bias if bias is not None and bias.shape == wt.shape[1:] else None
        out = kernels.matmul(x.reshape(math.prod(lead), x.shape[-1]), wt, per_output)
        out = out.reshape(*lead, wt.shape[1])
        return out if bias is None or per_output is not None else np.add(out, bias, out=...)
    if x.ndim > 2:
        # One product over all the rows, as torch makes it: numpy's matmul of a
        # stack makes one per leading index, and Swin's (1, 7, 7, C) inputs
        # would then be seven products of 7 rows, at a third of BLAS's speed.
        # (A non-contiguous x is copied once here, which BLAS would need anyway.)
        out = np.matmul(x.reshape(math.prod(lead), x.shape[-1]), wt)
    else:
        out = np.matmul(x, wt, out=...)
    if bias is not None:
        if bias.ndim <= 1 and bias.dtype == out.dtype and out.ndim:
            np.add(out, bias, out=out)   # the product is ours: no second array
        else:   # (a bias of more dimensions broadcasts against the whole shape)
            return np.add(out.reshape(*lead, wt.shape[1]), bias, out=...)
    return out.reshape(*lead, wt.shape[1]) if x.ndim > 2 else out


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


def embedding_renorm_(weight, indices, max_norm: float, norm_type: float):
    """``embedding(..., max_norm=)``'s renormalisation, in place: each row of
    ``weight`` that ``indices`` names, whose ``norm_type``-norm exceeds
    ``max_norm``, scaled to ``max_norm`` (over ``norm + 1e-7``, as torch)."""
    rows = np.unique(indices.reshape(-1))
    if rows.size and (rows.max() >= weight.shape[0] or rows.min() < 0):
        raise IndexError("index out of range in self")
    sel = weight[rows].astype(np.float64)
    norms = np.linalg.norm(sel, ord=norm_type, axis=1) if sel.size else np.zeros(0)
    scale = np.where(norms > max_norm, max_norm / (norms + 1e-7), 1.0)
    weight[rows] = (sel * scale[:, None]).astype(weight.dtype)
    return weight


def embedding_bag(weight, indices, offsets, scale_grad=False, mode: int = 0, sparse=False,
                  per_sample_weights=None, include_last_offset=False, padding_idx=None):
    """``aten::embedding_bag`` (``F.embedding_bag`` flattens a 2-d input before
    calling it): ``(output, offset2bag, bag_size, max_indices)``, as torch's CPU
    kernel computes them, quirks included.

    Bag ``b`` starts at ``offsets[b]``; with ``include_last_offset`` the last
    offset only ends the last bag.  Entries equal to ``padding_idx`` count for
    nothing.  Mode 0 sums (weighted by ``per_sample_weights``) and mode 1
    averages the rows ``indices[offsets[b]:offsets[b + 1]]``; an index after the
    last offset still belongs to the last bag (``offset2bag``), which counts it
    in ``bag_size`` (the mean's divisor) and takes it into mode 2's maximum.
    The other outputs are the gradient's: for sums ``offset2bag`` is empty
    (without ``padding_idx``) and ``bag_size`` and ``max_indices`` zeros, one
    per offset; for means ``max_indices`` is ``bag_size``; for maxima it is the
    row of each column's maximum."""
    if per_sample_weights is not None and mode != 0:
        raise ValueError("embedding_bag: per_sample_weights was not None. per_sample_weights "
                         "is only supported for mode='sum' (got mode='"
                         f"{['sum', 'mean', 'max'][mode]}'). Please open a feature request on "
                         "the PyTorch GitHub.")
    if indices.size and (indices.max() >= weight.shape[0] or indices.min() < 0):
        raise IndexError("index out of range in self")
    starts = offsets.astype(np.int64)
    if starts.size and starts[0] != 0:
        raise ValueError(f"offsets[0] has to be 0, i.e., the first sequence in the mini-batch "
                         f"has to start from position 0. However, got {starts[0]}")
    bags = starts.size - 1 if include_last_offset else starts.size
    n, dim = indices.size, weight.shape[1]
    # each index's bag: the last offset at or before it, the last bag at most
    offset2bag = np.minimum(np.searchsorted(starts, np.arange(n), side="right") - 1,
                            bags - 1).astype(np.int64)
    counted = np.ones(n, bool) if padding_idx is None else indices != padding_idx
    bag_size = np.bincount(offset2bag[counted], minlength=bags)[:bags].astype(np.int64)
    ends = np.append(starts[1:], n)[:bags] if bags else starts[:0]
    rows = weight[indices].astype(np.float64)
    if per_sample_weights is not None:
        rows = rows * per_sample_weights.astype(np.float64)[:, None]
    out = np.zeros((bags, dim), dtype=np.float64)
    max_indices = np.zeros((bags, dim), dtype=np.int64)
    for b in range(bags):
        if mode == 2:
            members = np.flatnonzero((offset2bag == b) & counted)
        else:
            members = np.arange(starts[b], min(ends[b], n))
            members = members[counted[members]]
        if not members.size:
            continue
        if mode == 2:
            best = rows[members].argmax(axis=0)
            out[b] = rows[members][best, np.arange(dim)]
            max_indices[b] = indices[members][best]
        else:
            out[b] = rows[members].sum(axis=0)
            if mode == 1:
                out[b] /= bag_size[b]
    out = out.astype(weight.dtype)
    if mode == 0:
        return (out, offset2bag if padding_idx is not None else np.zeros(0, np.int64),
                np.zeros(starts.size, np.int64), np.zeros(starts.size, np.int64))
    return out, offset2bag, bag_size, (bag_size.copy() if mode == 1 else max_indices)


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
R.implement("aten::linear", linear)
R.register("aten::linear", linear, types=[_T, _T])
R.implement("aten::bilinear", bilinear)
R.implement("aten::embedding", embedding)
R.implement("aten::one_hot", one_hot)
R.implement("aten::embedding_renorm_", embedding_renorm_)
R.implement("aten::embedding_renorm", lambda w, i, m, p: embedding_renorm_(w.copy(), i, m, p))
R.implement("aten::embedding_bag", embedding_bag)
R.implement("aten::embedding_bag.padding_idx", embedding_bag)
