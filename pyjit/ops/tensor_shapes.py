"""Tensor shapes: sizes, views and joins, on numpy arrays, with torch's errors.

Views (``view``, ``t``, ``numpy_T``, ``transpose``, ``permute``, ``squeeze``, ``unsqueeze``,
``select``, ``slice``) return numpy views sharing memory, as torch's do; ``reshape``
copies only when it must.  Dimensions are checked as torch checks them, so an
out-of-range ``dim`` fails with ``Dimension out of range (expected to be in range of
[-2, 1], but got 2)`` and a bad ``view`` with ``shape '[4, 4]' is invalid for input
of size 6``.  ``cat``/``stack`` promote their inputs' dtypes as torch does.

Registered: ``size dim numel len view reshape flatten t numpy_T transpose permute squeeze
unsqueeze expand cat stack select slice __getitem__ chunk split``, ``prim::dtype``,
``prim::device``.
"""

from __future__ import annotations

from functools import reduce
from typing import List, Optional, Sequence

import numpy as np

from ..registry import default_registry as R
from .dtypes import promote_types

__all__ = ["wrap_dim", "size", "view", "cat", "stack"]

_TORCH_CODES = {"uint8": 0, "int8": 1, "int16": 2, "int32": 3, "int64": 4, "float16": 5,
                "float32": 6, "float64": 7, "complex64": 9, "complex128": 10, "bool": 11}


def wrap_dim(dim: int, ndim: int) -> int:
    """A dimension index in ``[0, ndim)``, from torch's ``[-ndim, ndim-1]`` (a 0-dim
    tensor accepts -1 and 0)."""
    n = max(ndim, 1)
    if not -n <= dim < n:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], "
                         f"but got {dim})")
    return dim + n if dim < 0 else dim


def size(a, dim: Optional[int] = None):
    """``aten::size``: the shape as a list, or one dimension's size."""
    if dim is None:
        return list(a.shape)
    if a.ndim == 0:
        raise IndexError("dimension specified as %d but tensor has no dimensions" % dim)
    return a.shape[wrap_dim(dim, a.ndim)]


def tensor_len(a) -> int:
    if a.ndim == 0:
        raise TypeError("len() of a 0-d tensor")
    return a.shape[0]


def _infer_shape(shape: Sequence[int], numel: int) -> List[int]:
    shape = list(shape)
    bad = f"shape '[{', '.join(map(str, shape))}]' is invalid for input of size {numel}"
    if shape.count(-1) > 1:
        raise ValueError("only one dimension can be inferred")
    known = reduce(lambda x, y: x * y, (d for d in shape if d != -1), 1)
    if -1 in shape:
        if known == 0 or numel % known:
            raise ValueError(bad)
        shape[shape.index(-1)] = numel // known
    elif known != numel:
        raise ValueError(bad)
    return shape


def view(a, shape):
    return a.reshape(_infer_shape(shape, a.size))


def reshape(a, shape):
    return np.reshape(a, _infer_shape(shape, a.size))


def flatten(a, start: int = 0, end: int = -1):
    if a.ndim == 0:
        return a.reshape(1)
    s, e = wrap_dim(start, a.ndim), wrap_dim(end, a.ndim)
    return a.reshape(a.shape[:s] + (-1,) + a.shape[e + 1:]) if s <= e else a


def t(a):
    if a.ndim > 2:
        raise ValueError(f"t() expects a tensor with <= 2 dimensions, but self is {a.ndim}D")
    return a.T


def transpose(a, d0: int, d1: int):
    if a.ndim == 0:
        return a
    return np.swapaxes(a, wrap_dim(d0, a.ndim), wrap_dim(d1, a.ndim))


def permute(a, dims):
    dims = [wrap_dim(d, a.ndim) for d in dims]
    if len(dims) != a.ndim:
        raise ValueError(f"permute(sparse_coo): number of dimensions in the tensor input does "
                         f"not match the length of the desired ordering of dimensions i.e. "
                         f"input.dim() = {a.ndim} is not equal to len(dims) = {len(dims)}")
    return np.transpose(a, dims)


def squeeze(a, dim=None):
    """``squeeze()`` drops every size-1 dimension; ``squeeze(dim)`` only that one, and
    leaves the tensor alone when its size is not 1 (no error, unlike numpy)."""
    if dim is None:
        return np.squeeze(a) if a.ndim else a
    dims = [dim] if isinstance(dim, int) else list(dim)
    if a.ndim == 0:
        for d in dims:
            wrap_dim(d, 0)
        return a
    drop = tuple(d for d in {wrap_dim(d, a.ndim) for d in dims} if a.shape[d] == 1)
    return np.squeeze(a, axis=drop) if drop else a


def unsqueeze(a, dim: int):
    return np.expand_dims(a, wrap_dim(dim, a.ndim + 1))


def expand(a, sizes, implicit: bool = False):
    sizes = list(sizes)
    lead = len(sizes) - a.ndim
    target = [a.shape[i - lead] if s == -1 else s for i, s in enumerate(sizes)]
    return np.broadcast_to(a, target)


def _joined_dtype(tensors):
    return reduce(promote_types, (x.dtype for x in tensors))


def cat(tensors, dim: int = 0):
    if not tensors:
        raise ValueError("torch.cat(): expected a non-empty list of Tensors")
    parts = [x for x in tensors if not (x.ndim == 1 and x.size == 0)] or tensors[:1]
    ndim = parts[0].ndim
    if ndim == 0:
        raise ValueError("zero-dimensional tensor (at position 0) cannot be concatenated")
    return np.concatenate(parts, axis=wrap_dim(dim, ndim), dtype=_joined_dtype(tensors))


def stack(tensors, dim: int = 0):
    if not tensors:
        raise ValueError("stack expects a non-empty TensorList")
    first = tensors[0].shape
    for i, x in enumerate(tensors):
        if x.shape != first:
            raise ValueError(f"stack expects each tensor to be equal size, but got "
                             f"[{', '.join(map(str, first))}] at entry 0 and "
                             f"[{', '.join(map(str, x.shape))}] at entry {i}")
    dt = _joined_dtype(tensors)
    return np.stack([x.astype(dt, copy=False) for x in tensors],
                    axis=wrap_dim(dim, tensors[0].ndim + 1))


def select(a, dim: int, index: int):
    d = wrap_dim(dim, a.ndim)
    n = a.shape[d]
    if not -n <= index < n:
        raise IndexError(f"index {index} is out of bounds for dimension {d} with size {n}")
    return a[(slice(None),) * d + (index,)]


def tensor_slice(a, dim: int = 0, start: Optional[int] = None, end: Optional[int] = None,
                 step: int = 1):
    d = wrap_dim(dim, a.ndim)
    if step <= 0:
        raise ValueError("slice step must be positive")
    return a[(slice(None),) * d + (slice(start, end, step),)]


def chunk(a, chunks: int, dim: int = 0):
    d = wrap_dim(dim, a.ndim)
    each = -(-a.shape[d] // chunks)
    return split(a, each, d)


def split(a, split_size, dim: int = 0):
    d = wrap_dim(dim, a.ndim)
    n = a.shape[d]
    if isinstance(split_size, int):
        bounds = list(range(split_size, n, split_size)) if split_size else []
    else:
        bounds = list(np.cumsum(split_size)[:-1])
    return list(np.split(a, bounds, axis=d))


def dtype_code(a) -> int:
    """``prim::dtype``: torch's ScalarType code of the tensor's dtype."""
    return _TORCH_CODES[a.dtype.name]


_T = "Tensor"

R.register("aten::size", size, types=[_T])
R.register("aten::size", size, types=[_T, "int"])
R.register("aten::dim", np.ndim, types=[_T])
R.register("aten::numel", np.size, types=[_T])
R.register("aten::len", tensor_len, types=[_T])
R.register("aten::view", view, types=[_T, "int[]"])
R.register("aten::reshape", reshape, types=[_T, "int[]"])
R.register("aten::flatten", flatten, types=[_T, "int", "int"])
R.register("aten::t", t, types=[_T])
# x.T: the dimensions reversed, as a view; 0-D and 1-D tensors come back as they are.
# torch (2.13) only warns for other than 2-D, so numpy's transpose is exactly it.
R.register("aten::numpy_T", np.transpose, types=[_T])
R.register("aten::transpose", transpose, types=[_T, "int", "int"])
R.register("aten::permute", permute, types=[_T, "int[]"])
R.register("aten::squeeze", squeeze, types=[_T])
R.register("aten::squeeze", squeeze, types=[_T, "int"])
R.register("aten::squeeze", squeeze, types=[_T, "int[]"])
R.register("aten::unsqueeze", unsqueeze, types=[_T, "int"])
R.register("aten::expand", expand, types=[_T, "int[]", "bool"])
R.register("aten::cat", cat, types=["Tensor[]", "int"])
R.register("aten::stack", stack, types=["Tensor[]", "int"])
R.register("aten::select", select, types=[_T, "int", "int"])
R.register("aten::__getitem__", lambda a, i: select(a, 0, i), types=[_T, "int"])
R.register("aten::slice", tensor_slice, types=[_T, "int", "int?", "int?", "int"])
R.register("aten::chunk", chunk, types=[_T, "int", "int"])
R.register("aten::split", split, types=[_T, "int", "int"])
R.register("aten::split", split, types=[_T, "int[]", "int"])
R.register("prim::dtype", dtype_code, types=[_T])
R.register("prim::device", lambda a: "cpu", types=[_T])
