"""Tensor shapes: sizes, views, splits and joins, on numpy arrays, with torch's
view semantics and errors.

Views (``view``, ``transpose``, ``permute``, ``select``, ``slice``, ``narrow``,
``unbind``, ``split``, ``diagonal``, ``expand``, ``unfold``...) return numpy views
sharing memory, as torch's do, so TorchScript code that writes through a view
(``H[..., -1, -1] += 1.0``, ``x.narrow(0, 1, 2).zero_()``) changes its base.
Every view has a ``_copy`` twin (``view_copy``, ``transpose_copy``...) returning a
new array.  ``reshape`` copies only when it must; ``view`` refuses where torch
refuses.  Dimensions are checked as torch checks them (:mod:`pyjit.ops.dims`), so
an out-of-range ``dim`` fails with ``Dimension out of range (expected to be in
range of [-2, 1], but got 2)`` and a bad ``view`` with ``shape '[4, 4]' is
invalid for input of size 6``.  Joins promote their inputs' dtypes as torch does.

Adding a view is one row of :data:`VIEWS` (its name and the function computing
it); the ``_copy`` form comes with it.
"""

from __future__ import annotations

import itertools
import warnings
from functools import reduce
from typing import Callable, Dict, List, Optional, Sequence

import math

import numpy as np

from ..registry import library as R
from .dims import as_array, broadcast_shapes, shape_list, wrap_dim, wrap_dims
from .dtypes import promote_types

__all__ = ["size", "view", "reshape", "select", "cat", "stack", "VIEWS"]

_ndarray = np.ndarray


# -- sizes ----------------------------------------------------------------------------

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


# -- views -------------------------------------------------------------------------------

def _infer_shape(shape: Sequence[int], numel: int) -> List[int]:
    shape = list(shape)
    bad = f"shape '{shape_list(shape)}' is invalid for input of size {numel}"
    if shape.count(-1) > 1:
        raise ValueError("only one dimension can be inferred")
    for d in shape:
        if d < -1:
            raise ValueError(f"invalid shape dimension {d}")
    known = reduce(lambda x, y: x * y, (d for d in shape if d != -1), 1)
    if -1 in shape:
        if known == 0 and numel == 0:
            raise ValueError(f"cannot reshape tensor of 0 elements into shape {shape_list(shape)} "
                             f"because the unspecified dimension size -1 can be any value and "
                             f"is ambiguous")
        if known == 0 or numel % known:
            raise ValueError(bad)
        shape[shape.index(-1)] = numel // known
    elif known != numel:
        raise ValueError(bad)
    return shape


def view(a, shape):
    """``a.view(shape)``: a view, or torch's error where the strides do not allow
    one (numpy would silently copy)."""
    if isinstance(shape, int):  # view(dtype)
        from .dtypes import to_dtype
        return a.view(to_dtype(shape))
    shape = _infer_shape(shape, a.size)
    try:
        # copy=False: a view or an error, never a copy (setting .shape, which
        # did the same, is deprecated since numpy 2.5)
        return np.reshape(a, shape, copy=False)
    except ValueError:
        raise ValueError("view size is not compatible with input tensor's size and stride (at "
                         "least one dimension spans across two contiguous subspaces). Use "
                         ".reshape(...) instead.") from None


def reshape(a, shape):
    return np.reshape(a, _infer_shape(shape, a.size))


def flatten(a, start: int = 0, end: int = -1):
    if a.ndim == 0:
        return a.reshape(1)
    s, e = wrap_dim(start, a.ndim), wrap_dim(end, a.ndim)
    if s > e:
        raise ValueError("flatten() has invalid args: start_dim cannot come after end_dim")
    # the flattened size written out: numpy cannot infer -1 beside a zero-size dimension
    merged = int(np.prod(a.shape[s:e + 1], dtype=np.int64))
    return a.reshape(a.shape[:s] + (merged,) + a.shape[e + 1:]) if s < e else a


def unflatten(a, dim: int, sizes):
    d = wrap_dim(dim, a.ndim)
    sizes = _infer_shape(sizes, a.shape[d])
    return a.reshape(a.shape[:d] + tuple(sizes) + a.shape[d + 1:])


def t(a, name: str = "t"):
    if a.ndim > 2:
        raise ValueError(f"{name}() expects a tensor with <= 2 dimensions, but self is {a.ndim}D")
    return a.T


def transpose(a, d0: int, d1: int):
    if a.ndim == 0:
        wrap_dim(d0, 0), wrap_dim(d1, 0)
        return a
    return np.swapaxes(a, wrap_dim(d0, a.ndim), wrap_dim(d1, a.ndim))


def permute(a, dims):
    if len(dims) != a.ndim:
        raise ValueError(f"permute(sparse_coo): number of dimensions in the tensor input does "
                         f"not match the length of the desired ordering of dimensions i.e. "
                         f"input.dim() = {a.ndim} is not equal to len(dims) = {len(dims)}")
    return np.transpose(a, wrap_dims(dims, a.ndim))


def movedim(a, source, destination):
    src = [source] if isinstance(source, int) else list(source)
    dst = [destination] if isinstance(destination, int) else list(destination)
    if len(src) != len(dst):
        raise ValueError(f"movedim: Invalid source or destination dims: source ({src} dims) "
                         f"should contain the same number of dims as destination ({dst} dims)")
    return np.moveaxis(a, wrap_dims(src, a.ndim), wrap_dims(dst, a.ndim))


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
    drop = tuple(d for d in set(wrap_dims(dims, a.ndim)) if a.shape[d] == 1)
    return np.squeeze(a, axis=drop) if drop else a


def unsqueeze(a, dim: int):
    return np.expand_dims(a, wrap_dim(dim, a.ndim + 1))


def expand(a, sizes, implicit: bool = False):
    sizes = list(sizes)
    if len(sizes) < a.ndim:
        raise ValueError(f"expand({_type_text(a)}{{{shape_list(a.shape)}}}, size={sizes}): the "
                         f"number of sizes provided ({len(sizes)}) must be greater or equal to "
                         f"the number of dimensions in the tensor ({a.ndim})")
    lead = len(sizes) - a.ndim
    target = []
    for i, s in enumerate(sizes):
        own = a.shape[i - lead] if i >= lead else None
        if s == -1:
            if own is None:
                raise ValueError(f"The expanded size of the tensor (-1) isn't allowed in a "
                                 f"leading, non-existing dimension {i}")
            s = own
        elif own is not None and own != s and own != 1:
            raise ValueError(f"The expanded size of the tensor ({s}) must match the existing "
                             f"size ({own}) at non-singleton dimension {i}.  Target sizes: "
                             f"{shape_list(sizes)}.  Tensor sizes: {shape_list(a.shape)}")
        target.append(s)
    return np.broadcast_to(a, target)


def _type_text(a) -> str:
    from .dtypes import torch_name
    return f"CPU{torch_name(a.dtype)}Type"


def repeat(a, repeats):
    repeats = list(repeats)
    if len(repeats) < a.ndim:
        raise ValueError("Number of dimensions of repeat dims can not be smaller than number of "
                         "dimensions of tensor")
    x = a.reshape((1,) * (len(repeats) - a.ndim) + a.shape)
    return np.tile(x, repeats)


def flip(a, dims):
    if a.ndim == 0:
        return a.copy()
    return np.flip(a, wrap_dims(dims, a.ndim)).copy()


def roll(a, shifts, dims=()):
    shifts = [shifts] if isinstance(shifts, int) else list(shifts)
    dims = [dims] if isinstance(dims, int) else list(dims)
    if not dims:
        return np.roll(a.reshape(-1), shifts[0]).reshape(a.shape)
    return np.roll(a, shifts, wrap_dims(dims, a.ndim))


def rot90(a, k: int = 1, dims=(0, 1)):
    if len(dims) != 2:
        raise ValueError(f"expected total rotation dims == 2, but got dims = {len(dims)}")
    return np.rot90(a, k, wrap_dims(dims, a.ndim)).copy()


def narrow(a, dim: int, start, length: int):
    d = wrap_dim(dim, a.ndim)
    if type(start) is _ndarray:
        start = int(start)
    n = a.shape[d]
    if start < 0:
        start += n
    if not 0 <= start <= n or start + length > n or length < 0:
        raise IndexError(f"start ({start}) + length ({length}) exceeds dimension size ({n}).")
    return a[(slice(None),) * d + (slice(start, start + length),)]


def select(a, dim: int, index: int):
    """``aten::select``: a 0-dim result is still an array (a view), never a numpy
    scalar."""
    if a.ndim == 0:
        raise IndexError("select() cannot be applied to a 0-dim tensor.")
    d = wrap_dim(dim, a.ndim)
    n = a.shape[d]
    if not -n <= index < n:
        raise IndexError(f"select(): index {index} out of range for tensor of size "
                         f"{shape_list(a.shape)} at dimension {d}")
    return a[(slice(None),) * d + (index, Ellipsis)]


def tensor_slice(a, dim: int = 0, start: Optional[int] = None, end: Optional[int] = None,
                 step: int = 1):
    if a.ndim == 0:
        raise IndexError("slice() cannot be applied to a 0-dim tensor.")
    d = wrap_dim(dim, a.ndim)
    if step <= 0:
        raise ValueError("slice step must be positive")
    return a[(slice(None),) * d + (slice(start, end, step),)]


def diagonal(a, offset: int = 0, dim1: int = 0, dim2: int = 1):
    d1, d2 = wrap_dim(dim1, a.ndim), wrap_dim(dim2, a.ndim)
    if d1 == d2:
        raise ValueError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    return np.diagonal(a, offset, d1, d2)


def unfold(a, dim: int, size_: int, step: int):
    """``Tensor.unfold``: windows of ``size_`` every ``step`` along ``dim``, as a new
    last dimension (a strided view)."""
    d = wrap_dim(dim, a.ndim)
    n = a.shape[d] if a.ndim else 1
    if size_ > n:
        raise ValueError(f"maximum size for tensor at dimension {d} is {n} but size is {size_}")
    if step <= 0:
        raise ValueError(f"step is {step} but must be > 0")
    if a.ndim == 0:
        return a.reshape(1)
    count = (n - size_) // step + 1
    shape = a.shape[:d] + (count,) + a.shape[d + 1:] + (size_,)
    strides = a.strides[:d] + (a.strides[d] * step,) + a.strides[d + 1:] + (a.strides[d],)
    return np.lib.stride_tricks.as_strided(a, shape, strides, writeable=a.flags.writeable)


def storage(a) -> np.ndarray:
    """The array at the root of ``a``'s ``base`` chain: torch's storage of ``a``."""
    base = a
    while isinstance(base.base, _ndarray):
        base = base.base
    return base


def storage_offset(a) -> int:
    """Where ``a``'s first element lies in its storage, in elements."""
    return (a.__array_interface__["data"][0] - storage(a).__array_interface__["data"][0]) \
        // a.itemsize


def as_strided(a, sizes, strides, offset=None):
    """``as_strided``: element strides over ``a``'s storage (its base array)."""
    base = storage(a)
    start = storage_offset(a) if offset is None else offset
    flat = base.reshape(-1) if base.flags.c_contiguous else base.copy().reshape(-1)
    need = start + sum((s - 1) * st for s, st in zip(sizes, strides)) + 1 if all(sizes) else 0
    if need > flat.size:
        raise ValueError(f"setStorage: sizes {shape_list(sizes)}, strides {shape_list(strides)}, "
                         f"storage offset {start}, and itemsize {a.itemsize} requiring a storage "
                         f"size of {need * a.itemsize} are out of bounds for storage of size "
                         f"{flat.size * a.itemsize}")
    return np.lib.stride_tricks.as_strided(flat[start:], tuple(sizes),
                                           tuple(s * a.itemsize for s in strides))


def pixel_shuffle(a, r: int):
    *lead, c, h, w = a.shape
    oc = c // (r * r)
    x = a.reshape(*lead, oc, r, r, h, w)
    n = len(lead)
    x = x.transpose(*range(n), n, n + 3, n + 1, n + 4, n + 2)
    return x.reshape(*lead, oc, h * r, w * r)


def pixel_unshuffle(a, r: int):
    *lead, c, h, w = a.shape
    x = a.reshape(*lead, c, h // r, r, w // r, r)
    n = len(lead)
    x = x.transpose(*range(n), n, n + 2, n + 4, n + 1, n + 3)
    return x.reshape(*lead, c * r * r, h // r, w // r)


def channel_shuffle(a, groups: int):
    b, c = a.shape[:2]
    x = a.reshape(b, groups, c // groups, *a.shape[2:])
    return np.swapaxes(x, 1, 2).reshape(a.shape)


def _split_points(n: int, split_size) -> List[int]:
    if isinstance(split_size, int):
        if split_size < 0:
            raise ValueError(f"split expects split_size be non-negative, but got split_size="
                             f"{split_size}")
        return list(range(split_size, n, split_size)) if split_size else []
    sizes = list(split_size)
    if sum(sizes) != n:
        raise ValueError(f"split_with_sizes expects split_sizes to sum exactly to {n} (input "
                         f"tensor's size at dimension 0), but got split_sizes={sizes}")
    return list(itertools.accumulate(sizes))[:-1]


def split(a, split_size, dim: int = 0):
    d = wrap_dim(dim, a.ndim)
    if isinstance(split_size, int) and split_size == 0 and a.shape[d] == 0:
        return [a]
    return list(np.split(a, _split_points(a.shape[d], split_size), axis=d))


def chunk(a, chunks: int, dim: int = 0):
    if chunks <= 0:
        raise ValueError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    d = wrap_dim(dim, a.ndim)
    each = -(-a.shape[d] // chunks)
    return split(a, each, d)


def tensor_split(a, sections, dim: int = 0):
    d = wrap_dim(dim, a.ndim)
    if type(sections) is _ndarray:
        sections = sections.tolist()
    if isinstance(sections, int):
        return list(np.array_split(a, sections, axis=d))
    return list(np.split(a, sections, axis=d))


def _dir_split(dim_of: Callable[[np.ndarray], int], name: str, min_dim: int):
    def op(a, sections):
        if a.ndim < min_dim:
            raise ValueError(f"torch.{name} requires a tensor with at least {min_dim} dimension, "
                             f"but got a tensor with {a.ndim} dimensions!")
        d = dim_of(a)
        if isinstance(sections, int) and a.shape[d] % sections:
            raise ValueError(f"torch.{name} attempted to split along dimension {d}, but the size "
                             f"of the dimension {a.shape[d]} is not divisible by the split_size "
                             f"{sections}!")
        return tensor_split(a, sections, d)
    return op


def unbind(a, dim: int = 0):
    if a.ndim == 0:
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    d = wrap_dim(dim, a.ndim)
    return [a[(slice(None),) * d + (i, Ellipsis)] for i in range(a.shape[d])]


def diag_embed(a, offset: int = 0, dim1: int = -2, dim2: int = -1):
    n = a.shape[-1] + abs(offset)
    out_ndim = a.ndim + 1
    d1, d2 = wrap_dim(dim1, out_ndim), wrap_dim(dim2, out_ndim)
    out = np.zeros(a.shape[:-1] + (n, n), a.dtype)
    idx = np.arange(a.shape[-1])
    rows, cols = (idx, idx + offset) if offset >= 0 else (idx - offset, idx)
    out[..., rows, cols] = a
    return np.moveaxis(out, (-2, -1), (d1, d2))


def diag(a, diagonal_: int = 0):
    if a.ndim == 1:
        return np.diag(a, diagonal_)
    if a.ndim == 2:
        return np.diag(a, diagonal_).copy()
    raise ValueError("diag(): Supports 1D or 2D tensors. Got %dD" % a.ndim)


def tril(a, diagonal_: int = 0):
    if a.ndim < 2:
        raise ValueError("tril: input tensor must have at least 2 dimensions")
    return np.tril(a, diagonal_)


def triu(a, diagonal_: int = 0):
    if a.ndim < 2:
        raise ValueError("triu: input tensor must have at least 2 dimensions")
    return np.triu(a, diagonal_)


# -- joins ---------------------------------------------------------------------------------

def _joined_dtype(tensors):
    return reduce(promote_types, (x.dtype for x in tensors))


def cat(tensors, dim: int = 0):
    if not tensors:
        raise ValueError("torch.cat(): expected a non-empty list of Tensors")
    parts = [x for x in tensors if not (x.ndim == 1 and x.size == 0)] or tensors[:1]
    ndim = parts[0].ndim
    if ndim == 0:
        raise ValueError("zero-dimensional tensor (at position 0) cannot be concatenated")
    d = wrap_dim(dim, ndim)
    for i, x in enumerate(parts):
        if x.ndim != ndim:
            raise ValueError(f"Tensors must have same number of dimensions: got {ndim} and "
                             f"{x.ndim}")
        for k in range(ndim):
            if k != d and x.shape[k] != parts[0].shape[k]:
                raise ValueError(f"Sizes of tensors must match except in dimension {d}. "
                                 f"Expected size {parts[0].shape[k]} but got size {x.shape[k]} "
                                 f"for tensor number {i} in the list.")
    return np.concatenate(parts, axis=d, dtype=_joined_dtype(tensors))


def stack(tensors, dim: int = 0):
    if not tensors:
        raise ValueError("stack expects a non-empty TensorList")
    first = tensors[0].shape
    for i, x in enumerate(tensors):
        if x.shape != first:
            raise ValueError(f"stack expects each tensor to be equal size, but got "
                             f"{shape_list(first)} at entry 0 and {shape_list(x.shape)} at "
                             f"entry {i}")
    dt = _joined_dtype(tensors)
    return np.stack([x.astype(dt, copy=False) for x in tensors],
                    axis=wrap_dim(dim, tensors[0].ndim + 1))


def atleast(n: int):
    def one(a):
        if a.ndim >= n:
            return a
        if n == 1:
            return a.reshape(1)
        if n == 2:
            return a.reshape((1,) * (2 - a.ndim) + a.shape)
        return a.reshape(1, 1, 1) if a.ndim == 0 else (
            a.reshape(1, a.shape[0], 1) if a.ndim == 1 else a[..., None])
    return one


def hstack(tensors):
    ts = [atleast(1)(x) for x in tensors]
    return cat(ts, 0 if ts[0].ndim == 1 else 1)


def vstack(tensors):
    return cat([atleast(2)(x) for x in tensors], 0)


def dstack(tensors):
    return cat([atleast(3)(x) for x in tensors], 2)


def column_stack(tensors):
    return cat([x.reshape(-1, 1) if x.ndim <= 1 else x for x in tensors], 1)


def meshgrid(tensors, indexing: str = "ij"):
    if indexing not in ("ij", "xy"):
        raise ValueError(f"torch.meshgrid: indexing must be one of \"xy\" or \"ij\", but "
                         f"received: {indexing}")
    return list(np.meshgrid(*tensors, indexing=indexing))


def broadcast_tensors(tensors):
    shape = broadcast_shapes(*[x.shape for x in tensors])
    return [np.broadcast_to(x, shape) for x in tensors]


def block_diag(tensors):
    mats = [x.reshape(1, -1) if x.ndim == 1 else x.reshape(1, 1) if x.ndim == 0 else x
            for x in tensors]
    dt = _joined_dtype(mats)
    out = np.zeros((sum(m.shape[0] for m in mats), sum(m.shape[1] for m in mats)), dt)
    r = c = 0
    for m in mats:
        out[r:r + m.shape[0], c:c + m.shape[1]] = m
        r, c = r + m.shape[0], c + m.shape[1]
    return out


def cartesian_prod(tensors):
    if len(tensors) == 1:
        return tensors[0].copy()
    grids = np.meshgrid(*tensors, indexing="ij")
    return np.stack([g.reshape(-1) for g in grids], axis=1)


def combinations(a, r: int = 2, with_replacement: bool = False):
    pick = itertools.combinations_with_replacement if with_replacement else \
        itertools.combinations
    idx = list(pick(range(a.shape[0]), r))
    if not idx:
        return np.empty((0, r) if r else (0,), a.dtype)
    return a[np.array(idx)]


def repeat_interleave(a, repeats, dim=None, output_size=None):
    """``torch.repeat_interleave``: each element (or slice along ``dim``) repeated;
    with one tensor argument, its indices repeated by its values."""
    if type(repeats) is _ndarray and repeats.ndim and dim is None and a.ndim == 0:
        raise ValueError("repeat_interleave: repeats must be 0-dim or 1-dim tensor")
    reps = repeats if type(repeats) is not _ndarray or repeats.ndim else int(repeats)
    if dim is None:
        return np.repeat(a.reshape(-1), reps)
    return np.repeat(a, reps, axis=wrap_dim(dim, a.ndim))


def _scatter_into_view(view_of):
    """``<view>_scatter(self, src, ...)``: a copy of ``self`` with ``src`` written
    into the view ``view_of(copy, ...)`` selects."""
    def op(a, src, *args):
        out = a.copy()
        target = view_of(out, *args)
        if target.shape != src.shape:
            raise ValueError(f"expected src to have a size equal to the slice of self. src "
                             f"size = {shape_list(src.shape)}, slice size = "
                             f"{shape_list(target.shape)}")
        target[...] = src
        return out
    return op


def _writable_diagonal(a, offset: int = 0, dim1: int = 0, dim2: int = 1):
    """:func:`diagonal` as a writable view of ``a`` (numpy's is read-only); ``a``
    is the C-contiguous copy ``_scatter_into_view`` made."""
    view = diagonal(a, offset, dim1, dim2)
    if view.size == 0:
        return view
    start = (view.__array_interface__["data"][0] - a.__array_interface__["data"][0]) // a.itemsize
    return np.lib.stride_tricks.as_strided(a.reshape(-1)[start:], view.shape, view.strides,
                                           writeable=True)


def chunk_cat(tensors, dim: int, num_chunks: int):
    """``torch._chunk_cat``: each tensor cut into ``num_chunks`` chunks along
    ``dim`` (zero-padded to equal size), the chunks flattened from ``dim`` on, and
    chunk ``c`` of every tensor concatenated into row ``c`` of a new dimension."""
    first = tensors[0]
    d = wrap_dim(dim, first.ndim)
    parts = []
    for t in tensors:
        n = t.shape[d]
        size_ = -(-n // num_chunks)
        pad = [(0, 0)] * t.ndim
        pad[d] = (0, size_ * num_chunks - n)
        padded = np.pad(t, pad)
        parts.append(padded.reshape(t.shape[:d] + (num_chunks, -1)))
    return np.concatenate(parts, axis=d + 1, dtype=_joined_dtype(tensors))


def resize_as_(a, other, memory_format=None):
    """``self.resize_as_(other)``: ``self`` reshaped in place to ``other``'s shape,
    which numpy can do only for an array that owns its contiguous data."""
    if a.shape != other.shape:
        try:
            a.resize(other.shape, refcheck=False)
        except ValueError:
            raise ValueError(f"pyjit cannot resize this tensor in place to "
                             f"{shape_list(other.shape)} (it is a view or not contiguous)") \
                from None
    return a


def resize_(a, size, memory_format=None):
    """``self.resize_(size)``: ``self`` with ``size``, its leading elements kept
    and any new ones zero, in place (an array that owns its contiguous data)."""
    size = [int(n) for n in size]
    if any(n < 0 for n in size):
        raise ValueError(f"Trying to create tensor with negative dimension {min(size)}: "
                         f"{shape_list(size)}")
    return resize_as_(a, np.empty(size, dtype=np.bool_))


def pad_sequence(sequences, batch_first=False, padding_value=0.0, padding_side="right"):
    """``nn.utils.rnn.pad_sequence``: the sequences stacked along a new batch
    dimension, each padded to the longest with ``padding_value``."""
    if padding_side not in ("left", "right"):
        raise ValueError(f"Expected padding_side to be one of left or right, but got "
                         f"{padding_side}.")
    if not sequences:
        raise ValueError("received an empty list of sequences")
    longest = max(s.shape[0] for s in sequences)
    trailing = sequences[0].shape[1:]
    out = np.full((len(sequences), longest) + trailing, padding_value,
                  dtype=sequences[0].dtype)
    for i, s in enumerate(sequences):
        n = s.shape[0]
        if padding_side == "right":
            out[i, :n] = s
        else:
            out[i, longest - n:] = s
    return out if batch_first else np.ascontiguousarray(out.swapaxes(0, 1))


def unflatten_dense_tensors(flat, tensors):
    """Views of ``flat`` shaped as each of ``tensors``, in order (the inverse of
    ``flatten_dense_tensors``, which is ``cat`` of the flattened tensors)."""
    out, start = [], 0
    for t in tensors:
        out.append(flat[start:start + t.size].reshape(t.shape))
        start += t.size
    return out


def kron(a, b):
    return as_array(np.kron(a, b))


# -- views in place ----------------------------------------------------------------------
#
# ``x.unsqueeze_(0)``, ``x.t_()``: torch changes the sizes and strides of ``x``
# itself, so that every holder of ``x`` sees them.  A numpy array's shape and
# strides can be set too: the operator computes the view as its out-of-place
# form does, then gives ``x`` that view's shape and strides.

def _become(a, v):
    """Give ``a`` the shape and strides of ``v``, a view of the same elements,
    and return ``a``.  The shape first (numpy takes a new shape where it needs
    no copy; else the strides first go to zero, where it takes any shape of the
    same size, which a view may do: numpy checks its strides against its base),
    then ``v``'s strides (numpy 2.4 deprecates setting strides; it is the one
    way to change an array's strides in place)."""
    if a.shape == v.shape and a.strides == v.strides:
        return a
    if v.size != a.size or v.__array_interface__["data"][0] != a.__array_interface__["data"][0]:
        raise ValueError(f"pyjit cannot make a tensor of {a.size} elements a view of "
                         f"{v.size} elements starting elsewhere in place")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        try:
            a.shape = v.shape
        except AttributeError:
            a.strides = (0,) * a.ndim
            a.shape = v.shape
        a.strides = v.strides
    return a


def _in_place(view_fn: Callable) -> Callable:
    """The in-place form of a view: ``a`` itself, made that view."""
    return lambda a, *args: _become(a, view_fn(a, *args))


def as_strided_(a, sizes, strides, offset=None):
    """``as_strided_``: ``a`` given these sizes and strides over its storage.  An
    array's first element cannot move, so the offset must stay ``a``'s own, and
    numpy keeps an array's element count."""
    if offset is not None and offset != storage_offset(a):
        raise ValueError(f"pyjit cannot move a tensor's storage offset in place "
                         f"(from {storage_offset(a)} to {offset})")
    return _become(a, as_strided(a, sizes, strides))


def _matrix_h(a):
    """``x.H``: the conjugate transpose of a matrix."""
    if a.ndim != 2:
        raise ValueError(f"tensor.H is only supported on matrices (2-D tensors). Got "
                         f"{a.ndim}-D tensor." + (" For batches of matrices, consider using "
                                                  "tensor.mH" if a.ndim > 2 else ""))
    return _conj_view(a.T)


def _m_h(a):
    """``x.mH``: the conjugate transpose of each matrix of a batch."""
    if a.ndim < 2:
        raise ValueError(f"tensor.mH is only supported on matrices or batches of matrices. "
                         f"Got {a.ndim}-D tensor.")
    return _conj_view(np.swapaxes(a, -1, -2))


def _conj_view(a):
    """A real tensor's conjugate is itself (a view); a complex one's is a copy,
    since pyjit has no lazy conjugate bit."""
    return np.conj(a) if a.dtype.kind == "c" else a


def imag(a):
    if a.dtype.kind != "c":
        raise ValueError("imag is not implemented for tensors with non-complex dtypes.")
    return a.imag


def slice_inverse(a, src, dim=0, start=None, end=None, step=1):
    """``slice_inverse(self, src, ...)``, functionalization's undoing of
    ``src.slice(...)``: ``self``'s storage seen with ``src``'s sizes, strides and
    storage offset (the slice's arguments only name the slice, as in torch)."""
    return as_strided(a, src.shape, [st // src.itemsize for st in src.strides],
                      storage_offset(src))


# -- registration ------------------------------------------------------------------------

_T = "Tensor"

#: Views, by name: ``(function, type patterns of the arguments after self)``; each
#: is registered as ``aten::<name>`` and, copying, as ``aten::<name>_copy``.
VIEWS: Dict[str, list] = {
    "view": [(view, ["int[]"]), (view, ["int"])],
    "reshape": [(reshape, ["int[]"])],
    "flatten": [(flatten, ["int", "int"]), (flatten, [])],
    "unflatten": [(unflatten, ["int", "int[]"])],
    "ravel": [(lambda a: a.reshape(-1), [])],
    "view_as": [(lambda a, o: view(a, o.shape), [_T])],
    "reshape_as": [(lambda a, o: reshape(a, o.shape), [_T])],
    "t": [(t, [])],
    "numpy_T": [(np.transpose, [])],
    "mT": [(lambda a: np.swapaxes(a, -1, -2), [])],
    "adjoint": [(lambda a: np.swapaxes(a, -1, -2), [])],
    "transpose": [(transpose, ["int", "int"])],
    "swapaxes": [(transpose, ["int", "int"])],
    "swapdims": [(transpose, ["int", "int"])],
    "permute": [(permute, ["int[]"])],
    "movedim": [(movedim, ["int", "int"]), (movedim, ["int[]", "int[]"])],
    "moveaxis": [(movedim, ["int", "int"]), (movedim, ["int[]", "int[]"])],
    "squeeze": [(squeeze, []), (squeeze, ["int"]), (squeeze, ["int[]"])],
    "unsqueeze": [(unsqueeze, ["int"])],
    "expand": [(expand, ["int[]", "bool"]), (expand, ["int[]"])],
    "expand_as": [(lambda a, o: expand(a, o.shape), [_T])],
    "broadcast_to": [(lambda a, s: expand(a, s), ["int[]"])],
    "select": [(select, ["int", "int"])],
    "slice": [(tensor_slice, ["int", "int?", "int?", "int"])],
    "narrow": [(narrow, ["int", "int", "int"]), (narrow, ["int", _T, "int"])],
    "diagonal": [(diagonal, ["int", "int", "int"]), (diagonal, [])],
    "linalg_diagonal": [(lambda a, o=0, d1=-2, d2=-1: diagonal(a, o, d1, d2),
                         ["int", "int", "int"])],
    "unfold": [(unfold, ["int", "int", "int"])],
    "as_strided": [(as_strided, ["int[]", "int[]", "int?"]), (as_strided, ["int[]", "int[]"])],
    "alias": [(lambda a: a[...], [])],
    "real": [(lambda a: a.real if a.dtype.kind == "c" else a, [])],
    "imag": [(imag, [])],
    "mH": [(_m_h, [])],
    "matrix_H": [(_matrix_h, [])],
}

for _name, _forms in VIEWS.items():
    for _fn, _args in _forms:
        R.register(f"aten::{_name}", _fn, types=[_T] + _args)
        if (_name, _args) != ("narrow", ["int", "int", "int"]):  # contiguous: below
            R.register(f"aten::{_name}_copy", (lambda f: lambda *a: np.array(f(*a)))(_fn),
                       types=[_T] + _args)

for _name, _view, _args in [("unsqueeze_", unsqueeze, ["int"]), ("squeeze_", squeeze, []),
                             ("squeeze_", squeeze, ["int"]), ("squeeze_", squeeze, ["int[]"]),
                             ("transpose_", transpose, ["int", "int"]),
                             ("t_", lambda a: t(a, "t_"), []),
                             ("swapdims_", transpose, ["int", "int"]),
                             ("swapaxes_", transpose, ["int", "int"])]:
    R.register(f"aten::{_name}", _in_place(_view), types=[_T] + _args)
R.implement("aten::as_strided_", as_strided_)
R.implement("aten::slice_inverse", slice_inverse)
R.implement("aten::detach_copy", lambda a: np.array(a))
R.implement("aten::_shape_as_tensor", lambda a: np.array(a.shape, dtype=np.int64))
R.implement("aten::size", size)
R.implement("aten::size.int", size)
R.implement("aten::sym_size.int", size)
R.implement("aten::sym_size", size)
R.implement("aten::dim", np.ndim)
R.register("aten::ndimension", np.ndim, types=[_T])
R.implement("aten::numel", np.size)
R.implement("aten::len.Tensor", tensor_len)
R.register("aten::__getitem__", lambda a, i: select(a, 0, i), types=[_T, "int"])
R.implement("aten::repeat", repeat)
R.implement("aten::tile", lambda a, reps: repeat(a, [1] * (a.ndim - len(reps)) + list(reps)))
R.implement("aten::flip", flip)
R.implement("aten::fliplr", lambda a: flip(a, [1]) if a.ndim >= 2 else _need_dims("fliplr", 2))
R.implement("aten::flipud", lambda a: flip(a, [0]) if a.ndim >= 1 else _need_dims("flipud", 1))
R.implement("aten::roll", roll)
R.register("aten::roll", roll, types=[_T, "int", "int"])
R.implement("aten::rot90", rot90)
R.implement("aten::narrow_copy", lambda a, d, s, n: narrow(a, d, s, n).copy())
R.implement("aten::pixel_shuffle", pixel_shuffle)
R.implement("aten::pixel_unshuffle", pixel_unshuffle)
R.implement("aten::channel_shuffle", channel_shuffle)
R.implement("aten::native_channel_shuffle", channel_shuffle)
for _name in ("split", "unsafe_split"):
    R.implement(f"aten::{_name}.Tensor", split)
    R.register(f"aten::{_name}", split, types=[_T, "int[]", "int"])
for _name in ("split_with_sizes", "unsafe_split_with_sizes"):
    R.implement(f"aten::{_name}", split)
R.implement("aten::split_with_sizes_copy", lambda a, s, d=0: [x.copy() for x in split(a, s, d)])
R.implement("aten::split_copy.Tensor", lambda a, s, d=0: [x.copy() for x in split(a, s, d)])
for _name in ("chunk", "unsafe_chunk"):
    R.implement(f"aten::{_name}", chunk)
for _s in ("int", "int[]", _T):
    R.register("aten::tensor_split", tensor_split, types=[_T, _s, "int"])
for _name, _dim_of, _min in [("hsplit", lambda a: 1 if a.ndim > 1 else 0, 1),
                             ("vsplit", lambda a: 0, 2), ("dsplit", lambda a: 2, 3)]:
    for _s in ("int", "int[]"):
        R.register(f"aten::{_name}", _dir_split(_dim_of, _name, _min), types=[_T, _s])
R.implement("aten::unbind.int", unbind)
R.implement("aten::unbind_copy.int", lambda a, d=0: [x.copy() for x in unbind(a, d)])
R.implement("aten::diag_embed", diag_embed)
R.implement("aten::diag", diag)
R.implement("aten::diagflat", lambda a, off=0: np.diag(a.reshape(-1), off))
R.implement("aten::tril", tril)
R.implement("aten::triu", triu)
for _name, _fn in (("tril_", tril), ("triu_", triu)):
    R.implement(f"aten::{_name}", (lambda f: lambda a, k=0: _assign(a, f(a, k)))(_fn))
for _name in ("cat", "concat", "concatenate"):
    R.implement(f"aten::{_name}", cat)
R.implement("aten::stack", stack)
R.implement("aten::hstack", hstack)
R.implement("aten::vstack", vstack)
R.implement("aten::row_stack", vstack)
R.implement("aten::dstack", dstack)
R.implement("aten::column_stack", column_stack)
for _n in (1, 2, 3):
    R.implement(f"aten::atleast_{_n}d", atleast(_n))
    R.implement(f"aten::atleast_{_n}d.Sequence", (lambda f: lambda ts: [f(x) for x in ts])(atleast(_n)))
R.implement("aten::meshgrid.indexing", meshgrid)
R.implement("aten::meshgrid", meshgrid)
R.implement("aten::broadcast_tensors", broadcast_tensors)
R.register("aten::broadcast_shapes", lambda *shapes: list(broadcast_shapes(*shapes)),
           types=["int[]"], varargs=True)
R.implement("aten::block_diag", block_diag)
R.implement("aten::cartesian_prod", cartesian_prod)
R.implement("aten::combinations", combinations)
R.implement("aten::kron", kron)
R.implement("aten::diagonal_scatter", _scatter_into_view(_writable_diagonal))
R.implement("aten::select_scatter", _scatter_into_view(select))
R.implement("aten::slice_scatter", _scatter_into_view(tensor_slice))
R.implement("aten::as_strided_scatter", _scatter_into_view(as_strided))
R.implement("aten::_chunk_cat", chunk_cat)
R.implement("aten::resize_as_", resize_as_)
R.implement("aten::resize_as", lambda a, other, mf=None: resize_as_(a.copy(), other))
R.implement("aten::resize_", resize_)
R.implement("aten::resize", lambda a, size, mf=None: resize_(a.copy(), size))
R.implement("aten::pad_sequence", pad_sequence)
R.implement("aten::flatten_dense_tensors",
            lambda ts: cat([t.reshape(-1) for t in ts], 0) if ts else np.zeros(0, np.float32))
R.implement("aten::unflatten_dense_tensors", unflatten_dense_tensors)
for _r in (_T, "int"):
    R.register("aten::repeat_interleave", repeat_interleave, types=[_T, _r, "int?", "int?"])
R.implement("aten::repeat_interleave.Tensor",
            lambda r, size=None: np.repeat(np.arange(r.shape[0]), r))


def _assign(a, value):
    a[...] = value
    return a


def _need_dims(name: str, n: int):
    raise ValueError(f"Input must be >= {n}-d.")
