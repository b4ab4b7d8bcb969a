"""Indexing: advanced indexing read and write, gather/scatter, masks, searches.

TorchScript compiles ``x[mask]``, ``x[:, idx]`` and ``x[idx] = v`` to
``aten::index(self, Tensor?[] indices)`` and ``aten::index_put_(self, indices,
values, accumulate)``, after the basic slicing has become ``slice``/``select``
views::

    %idx : Tensor?[] = prim::ListConstruct(%none, %i)     # x[:, i]
    %y : Tensor = aten::index(%x, %idx)

torch's advanced indexing is numpy's: ``None`` entries keep a dimension whole,
bool (and uint8) tensors select by mask over as many dimensions as they have,
integer tensors broadcast together, and the indexed dimensions go where the
first advanced index was when the advanced indices are adjacent, first
otherwise.  So an index list becomes a numpy index tuple; what differs is
torch's messages (``index 7 is out of bounds for dimension 0 with size 3``) and
that a result is always a new tensor, never a numpy scalar or a view.

``x[0, 1] = 3.0`` is ``select`` views and ``aten::copy_``; ``gather``,
``scatter``/``scatter_add``/``scatter_reduce`` and the ``index_*`` family work
along one dimension; ``masked_fill``/``masked_select``/``masked_scatter``,
``take``/``put``, ``nonzero``/``where(cond)``, ``searchsorted``/``bucketize``,
``isin``, ``unique`` and ``bincount``/``histc`` complete the family.
"""

from __future__ import annotations

import re
from typing import List, Optional, Sequence

import math

import numpy as np

from ..registry import library as R
from .dims import as_array, broadcast_shapes, shape_list, wrap_dim
from .dtypes import BOOL, DEFAULT_FLOAT, INT64, meta_name, torch_name

__all__ = ["index", "index_put_", "gather", "scatter", "masked_fill", "nonzero", "copy_"]

_ndarray = np.ndarray
_NUMPY_OUT_OF_BOUNDS = re.compile(r"index (-?\d+) is out of bounds for axis (\d+) with size (\d+)")


# -- advanced indexing ---------------------------------------------------------------

def _index_tuple(a: np.ndarray, indices: Sequence[Optional[np.ndarray]]) -> tuple:
    """torch's ``Tensor?[]`` as a numpy index, checked as torch checks it."""
    if len(indices) > a.ndim:
        raise IndexError(f"too many indices for tensor of dimension {a.ndim} (got "
                         f"{len(indices)})")
    out = []
    dim = 0
    for i, x in enumerate(indices):
        if x is None:
            out.append(slice(None))
            dim += 1
            continue
        if x.dtype == np.uint8:
            x = x.astype(BOOL)
        if x.dtype == BOOL:
            for k, n in enumerate(x.shape):
                if dim + k >= a.ndim or a.shape[dim + k] != n:
                    raise IndexError(f"The shape of the mask {shape_list(x.shape)} at index {k} "
                                     f"does not match the shape of the indexed tensor "
                                     f"{shape_list(a.shape)} at index {dim + k}")
            dim += x.ndim
        elif x.dtype.kind in "iu":
            dim += 1
        else:
            raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
        out.append(x)
    return tuple(out)


def _translate_index_error(exc: IndexError) -> IndexError:
    m = _NUMPY_OUT_OF_BOUNDS.search(str(exc))
    if m and m.group(3) == "0":  # torch names neither index nor dimension then
        return IndexError("index is out of bounds for dimension with size 0")
    if m:
        return IndexError(f"index {m.group(1)} is out of bounds for dimension {m.group(2)} "
                           f"with size {m.group(3)}")
    return exc


def index(a, indices):
    """``aten::index``: a new tensor."""
    idx = _index_tuple(a, indices)
    try:
        r = a[idx]
    except IndexError as exc:
        raise _translate_index_error(exc) from None
    if type(r) is not _ndarray:
        return np.asarray(r)
    return r.copy() if np.may_share_memory(r, a) else r


def index_put_(a, indices, values, accumulate: bool = False):
    """``aten::index_put_``: ``self[indices] = values`` (``+=`` with ``accumulate``,
    adding repeated indices up), in place; returns ``self``."""
    if type(values) is _ndarray and values.dtype != a.dtype:
        raise TypeError(f"Index put requires the source and destination dtypes match, got "
                        f"{torch_name(a.dtype)} for the destination and "
                        f"{torch_name(values.dtype)} for the source.")
    idx = _index_tuple(a, indices)
    if type(values) is _ndarray and values.ndim and values.shape[0] == 1:
        # numpy drops a value's leading 1s to fit the result; torch expands the
        # value to the result's shape (is_expandable_to), which more dimensions fail
        try:
            result = a[idx].shape
        except IndexError as exc:
            raise _translate_index_error(exc) from None
        if values.ndim > len(result):
            raise ValueError(f"shape mismatch: value tensor of shape "
                             f"{shape_list(values.shape)} cannot be broadcast to indexing "
                             f"result of shape {shape_list(result)}")
    try:
        if accumulate:
            np.add.at(a, idx, values)
        else:
            a[idx] = values
    except IndexError as exc:
        raise _translate_index_error(exc) from None
    except ValueError as exc:
        raise ValueError(f"shape mismatch: value tensor of shape "
                         f"{shape_list(np.shape(values))} cannot be broadcast to indexing result "
                         f"of shape {shape_list(a[idx].shape)}") from exc
    return a


def index_put(a, indices, values, accumulate: bool = False):
    return index_put_(a.copy(), indices, values, accumulate)


def copy_(a, src, non_blocking: bool = False):
    """``self.copy_(src)``: ``src`` broadcast into ``self`` in ``self``'s dtype."""
    src_shape = np.shape(src)
    if src_shape != a.shape and broadcast_shapes(a.shape, src_shape) != a.shape:
        raise ValueError(f"output with shape {shape_list(a.shape)} doesn't match the broadcast "
                         f"shape {shape_list(broadcast_shapes(a.shape, src_shape))}")
    np.copyto(a, src, casting="unsafe")
    return a


def copy(a, src, non_blocking: bool = False):
    """``aten::copy``, the functional ``copy_``: a new tensor of ``self``'s shape
    and dtype holding ``src`` broadcast into it (``self`` is left alone)."""
    return copy_(np.empty_like(a, order="K"), src)


def fill_(a, value):
    if type(value) is _ndarray and value.ndim:
        raise ValueError(f"fill_ only supports 0-dimension value tensor but got tensor with "
                         f"{value.ndim} dimensions.")
    a[...] = value
    return a


def fill_diagonal_(a, value, wrap: bool):
    """``fill_diagonal_``: the main diagonal of a matrix, or of a tensor whose
    dimensions are all equal; a tall matrix's diagonal starts again below the
    first square with ``wrap``, as numpy's ``fill_diagonal`` does."""
    if a.ndim < 2:
        raise ValueError("dimensions must larger than 1")
    if a.ndim > 2 and len(set(a.shape)) != 1:
        raise ValueError("all dimensions of input must be of equal length")
    np.fill_diagonal(a, value, wrap=wrap)
    return a


# -- along one dimension ---------------------------------------------------------------

def _check_index_tensor(name: str, idx: np.ndarray) -> None:
    if idx.dtype.kind not in "iu":
        raise TypeError(f"{name}(): Expected dtype int32/int64 for index")


def _prefix(a: np.ndarray, shape: tuple, d: int) -> np.ndarray:
    """``a`` cut to ``shape`` in every dimension but ``d`` (gather/scatter read only
    the part of the other tensor the index covers)."""
    return a[tuple(slice(None) if k == d else slice(0, n) for k, n in enumerate(shape))]


def _full_index(idx: np.ndarray, d: int, size: int) -> tuple:
    """The coordinates ``idx`` addresses, dimension ``d`` replaced by its values."""
    if idx.size and (idx.min() < 0 or idx.max() >= size):  # gather/scatter never wrap
        bad = idx.max() if idx.max() >= size else idx.min()
        raise IndexError(f"index {bad} is out of bounds for dimension {d} with size {size}")
    grid = list(np.indices(idx.shape, sparse=True))
    grid[d] = idx
    return tuple(grid)


def gather(a, dim: int, idx, sparse_grad: bool = False):
    _check_index_tensor("gather", idx)
    d = wrap_dim(dim, a.ndim)
    if a.ndim == 0:
        return a[...].reshape(idx.shape).copy() if idx.size else np.empty(idx.shape, a.dtype)
    if idx.ndim != a.ndim and idx.ndim:
        raise ValueError("Index tensor must have the same number of dimensions as input tensor")
    for k in range(idx.ndim):
        if k != d and idx.shape[k] > a.shape[k]:
            raise ValueError(f"Size does not match at dimension {k} expected index "
                             f"{shape_list(idx.shape)} to be no larger than self "
                             f"{shape_list(a.shape)} apart from dimension {d}")
    return a[_full_index(idx, d, a.shape[d])]


_REDUCE_UFUNCS = {"add": np.add, "sum": np.add, "multiply": np.multiply, "prod": np.multiply,
                  "amax": np.maximum, "amin": np.minimum}


def _scatter_into(out, d, idx, src, reduce: Optional[str]):
    if out.ndim == 0:
        where = ()
    else:
        where = _full_index(idx, d, out.shape[d])
    if type(src) is _ndarray and src.ndim:
        src = _prefix(src, idx.shape, -1)[tuple(slice(0, n) for n in idx.shape)]
    if reduce is None:
        out[where] = src
    else:
        _REDUCE_UFUNCS[reduce].at(out, where, src)
    return out


def _scatter_shape_check(a, d: int, idx, src) -> None:
    """torch's checks of a scatter's shapes (``scatter_shape_check``), in its order
    and words: the index has self's number of dimensions (a 0-d tensor counting as
    1-d) and src's, and is no larger than self outside ``d`` nor than src anywhere.
    An empty index is never checked.  Sizes are read as torch reads them, so a src
    of fewer dimensions fails on reading one, before the dimension check."""
    if idx.size == 0:
        return
    dims = max(a.ndim, 1)
    if max(idx.ndim, 1) != dims:
        raise RuntimeError("Index tensor must have the same number of dimensions as self tensor")

    def size(t, k):
        return t.shape[wrap_dim(k, t.ndim)] if t.ndim else 1
    wrong = any(k != d and size(idx, k) > size(a, k) for k in range(dims))
    tensor_src = type(src) is _ndarray
    if not wrong and tensor_src:
        wrong = any(size(idx, k) > size(src, k) for k in range(dims))
    if tensor_src and max(src.ndim, 1) != dims:
        raise RuntimeError("Index tensor must have the same number of dimensions as src tensor")
    if wrong:
        tail = f" and to be no larger size than src {shape_list(src.shape)}" if tensor_src else ""
        raise RuntimeError(f"Expected index {shape_list(idx.shape)} to be no larger than self "
                           f"{shape_list(a.shape)} apart from dimension {d}{tail}")


def _one_d(a, idx, src):
    """A 0-d index (and src) of a 1-d self as 1-d: torch counts a 0-d tensor as one
    of size 1 (``ensure_nonempty_dim``), numpy's grid would not."""
    if a.ndim == 1 and idx.ndim == 0:
        idx = idx.reshape(1)
        if type(src) is _ndarray and src.ndim == 0:
            src = src.reshape(1)
    return idx, src


def scatter(a, dim, idx, src, reduce: Optional[str] = None, inplace: bool = False):
    _check_index_tensor("scatter", idx)
    if reduce is not None and reduce not in ("add", "multiply"):
        raise ValueError("reduce argument must be either add or multiply.")
    d = wrap_dim(dim, a.ndim)
    _scatter_shape_check(a, d, idx, src)
    out = a if inplace else a.copy()
    if idx.size == 0:  # nothing to write, whatever the shapes (torch checks none)
        return out
    idx, src = _one_d(a, idx, src)
    return _scatter_into(out, d, idx, src, reduce)


def scatter_reduce(a, dim, idx, src, reduce: str, include_self: bool = True,
                   inplace: bool = False):
    if reduce not in ("sum", "prod", "mean", "amax", "amin"):
        raise ValueError("reduce argument must be either sum, prod, mean, amax or amin, got "
                         f"{reduce}")
    d = wrap_dim(dim, a.ndim)
    _scatter_shape_check(a, d, idx, src)
    out = a if inplace else a.copy()
    if idx.size == 0:
        return out
    idx, src = _one_d(a, idx, src)
    where = _full_index(idx, d, out.shape[d]) if out.ndim else ()
    values = _prefix(src, idx.shape, -1)[tuple(slice(0, n) for n in idx.shape)]
    if not include_self:
        identity = {"sum": 0, "mean": 0, "prod": 1,
                    "amax": -np.inf if a.dtype.kind == "f" else np.iinfo(a.dtype).min,
                    "amin": np.inf if a.dtype.kind == "f" else np.iinfo(a.dtype).max}[reduce]
        out[where] = identity
    if reduce == "mean":
        counts = np.ones(out.shape, INT64) if include_self else np.zeros(out.shape, INT64)
        np.add.at(out, where, values)
        np.add.at(counts, where, 1)
        counts = np.maximum(counts, 1)
        if out.dtype.kind == "f":
            out[...] = out / counts
        else:
            out[...] = np.floor_divide(out, counts)
        return out
    _REDUCE_UFUNCS[reduce].at(out, where, values)
    return out


def _along(a, d, idx):
    """The index tuple addressing positions ``idx`` of dimension ``d``."""
    return (slice(None),) * d + (idx,)


def index_select(a, dim, idx):
    d = wrap_dim(dim, a.ndim)
    if idx.ndim > 1:
        raise IndexError("index_select(): Index is supposed to be a vector")
    if a.ndim == 0:
        return a.reshape(1)[idx.reshape(-1)].reshape(idx.shape[:0]) if idx.size == 1 else \
            a.reshape(1)[idx.reshape(-1)]
    if a.shape[d] == 0 and idx.size:
        raise IndexError("index_select(): self indexing axis dim should be positive")
    try:
        return np.take(a, idx.reshape(-1), axis=d)
    except IndexError as exc:
        raise IndexError(f"index out of range in self") from exc


def _vector_view(x):
    """A 0-dim tensor as a 1-element vector (sharing memory): the ``index_*``
    operators treat a scalar as one element along dimension 0."""
    return x.reshape(1) if x.ndim == 0 else x


def index_add(a, dim, idx, source, alpha=1, inplace=False):
    d = wrap_dim(dim, a.ndim)
    out = a if inplace else a.copy()
    values = source if alpha == 1 else source * alpha
    np.add.at(_vector_view(out), _along(out, d, idx.reshape(-1)),
              _vector_view(np.asarray(values)).astype(out.dtype, copy=False))
    return out


def index_copy(a, dim, idx, source, inplace=False):
    d = wrap_dim(dim, a.ndim)
    out = a if inplace else a.copy()
    _vector_view(out)[_along(out, d, idx.reshape(-1))] = _vector_view(source)
    return out


def index_fill(a, dim, idx, value, inplace=False):
    d = wrap_dim(dim, a.ndim)
    out = a if inplace else a.copy()
    _vector_view(out)[_along(out, d, idx.reshape(-1))] = value
    return out


def index_reduce(a, dim, idx, source, reduce: str, include_self: bool = True, inplace=False):
    if a.ndim == 0:
        r = index_reduce(a.reshape(1), 0, idx, _vector_view(source), reduce, include_self)
        if inplace:
            a[...] = r.reshape(())
            return a
        return r.reshape(())
    d = wrap_dim(dim, a.ndim)
    grid_idx = np.broadcast_to(
        np.expand_dims(idx.reshape(-1), tuple(k for k in range(a.ndim) if k != d)),
        source.shape)
    return scatter_reduce(a, d, grid_idx.astype(INT64),
                          source, {"prod": "prod", "mean": "mean", "amax": "amax",
                                   "amin": "amin"}[reduce], include_self, inplace)


# -- masks ----------------------------------------------------------------------------------

def _check_mask(name: str, mask) -> None:
    if mask.dtype != BOOL:
        raise TypeError(f"{name} only supports boolean masks, but got mask with dtype "
                        f"{meta_name(mask.dtype)}")


def masked_fill(a, mask, value, inplace: bool = False):
    _check_mask("masked_fill_", mask)
    if type(value) is _ndarray and value.ndim:
        raise ValueError(f"masked_fill_ only supports a 0-dimensional value tensor, but got "
                         f"tensor with {value.ndim} dimension(s).")
    if inplace:
        if broadcast_shapes(a.shape, mask.shape) != a.shape:
            raise ValueError(f"output with shape {shape_list(a.shape)} doesn't match the "
                             f"broadcast shape {shape_list(broadcast_shapes(a.shape, mask.shape))}")
        np.copyto(a, np.asarray(value).astype(a.dtype), where=mask)
        return a
    shape = broadcast_shapes(a.shape, mask.shape)
    fill = np.asarray(value).astype(a.dtype)
    return as_array(np.where(mask, fill, np.broadcast_to(a, shape)))


def masked_select(a, mask):
    _check_mask("masked_select", mask)
    shape = broadcast_shapes(a.shape, mask.shape)
    return np.broadcast_to(a, shape)[np.broadcast_to(mask, shape)]


def masked_scatter(a, mask, source, inplace: bool = False):
    _check_mask("masked_scatter_", mask)
    out = a if inplace else np.broadcast_to(a, broadcast_shapes(a.shape, mask.shape)).copy()
    m = np.broadcast_to(mask, out.shape)
    count = int(m.sum())
    if count > source.size:
        raise ValueError("masked_scatter: expected source to have at least as many elements as "
                         "ones in mask")
    out[m] = source.reshape(-1)[:count]
    return out


# -- flat -------------------------------------------------------------------------------------

def take(a, idx):
    flat = a.reshape(-1)
    if idx.size and (idx.max() >= flat.size or idx.min() < -flat.size):
        bad = idx.max() if idx.max() >= flat.size else idx.min()
        raise IndexError(f"out of range: tried to access index {bad} on a tensor of "
                         f"{flat.size} elements.")
    return flat[idx]


def take_along_dim(a, idx, dim: Optional[int] = None):
    if dim is None:
        return take(a, idx.reshape(-1))
    d = wrap_dim(dim, a.ndim)
    shape = list(broadcast_shapes(a.shape[:d] + (1,) + a.shape[d + 1:],
                                  idx.shape[:d] + (1,) + idx.shape[d + 1:]))
    ash, ish = list(shape), list(shape)
    ash[d], ish[d] = a.shape[d], idx.shape[d]
    return np.take_along_axis(np.broadcast_to(a, ash), np.broadcast_to(idx, ish), axis=d)


def put(a, idx, source, accumulate: bool = False, inplace: bool = False):
    out = a if inplace else a.copy()
    flat = out.reshape(-1) if out.flags.c_contiguous else None
    if flat is None:
        flat = out.copy().reshape(-1)
    if accumulate:
        np.add.at(flat, idx.reshape(-1), source.reshape(-1))
    else:
        flat[idx.reshape(-1)] = source.reshape(-1)
    if not np.shares_memory(flat, out):
        out[...] = flat.reshape(out.shape)
    return out


# -- searches -----------------------------------------------------------------------------

def nonzero(a):
    if a.ndim == 0:
        return np.zeros((1 if a.item() else 0, 0), INT64)
    return np.stack(np.nonzero(a), axis=1).astype(INT64) if a.size else \
        np.zeros((0, a.ndim), INT64)


def nonzero_static(a, size: int, fill_value: int = -1):
    nz = nonzero(a)
    out = np.full((size, max(a.ndim, 1) if a.ndim else 0), fill_value, INT64)
    n = min(size, nz.shape[0])
    out[:n] = nz[:n]
    return out


def where_nonzero(cond) -> List[np.ndarray]:
    """``torch.where(condition)``: one index tensor per dimension."""
    if cond.ndim == 0:
        return [np.zeros(1 if cond.item() else 0, INT64)]
    return [x.astype(INT64) for x in np.nonzero(cond)]


def searchsorted(sorted_seq, values, out_int32: bool = False, right: bool = False,
                 side: Optional[str] = None, sorter=None):
    if side is not None:
        right = side == "right"
    if sorter is not None:
        sorted_seq = np.take_along_axis(sorted_seq, sorter, axis=-1)
    scalar = type(values) is not _ndarray
    v = np.asarray(values)
    how = "right" if right else "left"
    if sorted_seq.ndim <= 1:
        r = np.searchsorted(sorted_seq, v, side=how)
    else:
        # sizes, not -1, which numpy cannot infer beside a 0 (no rows at all)
        rows = math.prod(sorted_seq.shape[:-1])
        flat_seq = sorted_seq.reshape(rows, sorted_seq.shape[-1])
        flat_v = v.reshape(rows, v.shape[-1])
        r = np.stack([np.searchsorted(s, x, side=how) for s, x in zip(flat_seq, flat_v)]) \
            if rows else np.zeros(v.shape, INT64)
        r = r.reshape(v.shape)
    r = as_array(r).astype(np.int32 if out_int32 else INT64)
    return r.reshape(()) if scalar else r


def bucketize(values, boundaries, out_int32: bool = False, right: bool = False):
    return searchsorted(boundaries, values, out_int32, right)


def isin(elements, test_elements, assume_unique: bool = False, invert: bool = False):
    return as_array(np.isin(elements, test_elements, invert=invert))


def unique2(a, sorted_: bool = True, return_inverse: bool = False, return_counts: bool = False):
    """``torch.unique`` (``aten::_unique2``): values sorted, inverse indices in
    ``self``'s shape, counts; the parts not asked for are empty tensors."""
    values, inverse, counts = np.unique(a.reshape(-1), return_inverse=True, return_counts=True)
    inv = inverse.reshape(a.shape).astype(INT64) if return_inverse else np.zeros(0, INT64)
    cnt = counts.astype(INT64) if return_counts else np.zeros(0, INT64)
    return values, inv, cnt


def unique_dim(a, dim: int, sorted_: bool = True, return_inverse: bool = False,
               return_counts: bool = False):
    d = wrap_dim(dim, a.ndim)
    values, inverse, counts = np.unique(a, axis=d, return_inverse=True, return_counts=True)
    inv = inverse.reshape(-1).astype(INT64) if return_inverse else np.zeros(0, INT64)
    cnt = counts.astype(INT64) if return_counts else np.zeros(0, INT64)
    return values, inv, cnt


def unique_consecutive(a, return_inverse: bool = False, return_counts: bool = False,
                       dim: Optional[int] = None):
    if dim is not None:
        d = wrap_dim(dim, a.ndim)
        x = np.moveaxis(a, d, 0)
        keep = np.ones(x.shape[0], bool)
        if x.shape[0] > 1:
            keep[1:] = np.any((x[1:] != x[:-1]).reshape(x.shape[0] - 1, -1), axis=1)
        values = np.moveaxis(x[keep], 0, d)
        groups = np.cumsum(keep) - 1
        counts = np.bincount(groups)
        inv = groups
    else:
        flat = a.reshape(-1)
        keep = np.ones(flat.size, bool)
        if flat.size > 1:
            keep[1:] = flat[1:] != flat[:-1]
        values = flat[keep]
        groups = np.cumsum(keep) - 1
        counts = np.bincount(groups) if flat.size else np.zeros(0, INT64)
        inv = groups.reshape(a.shape)
    return (values, inv.astype(INT64) if return_inverse else np.zeros(0, INT64),
            counts.astype(INT64) if return_counts else np.zeros(0, INT64))


def bincount(a, weights=None, minlength: int = 0):
    if a.ndim != 1:
        raise ValueError("bincount only supports 1-d non-negative integral inputs.")
    r = np.bincount(a, weights=weights, minlength=minlength)
    if weights is None:
        return r.astype(INT64)
    return r.astype(DEFAULT_FLOAT if weights.dtype == DEFAULT_FLOAT else np.float64)


def histc(a, bins: int = 100, lo=0, hi=0):
    x = a.reshape(-1)
    if lo == hi and x.size:
        lo, hi = float(x.min()), float(x.max())
    if lo == hi:
        lo, hi = lo - 1, hi + 1
    width = (hi - lo) / bins
    inside = (x >= lo) & (x <= hi)
    pos = ((x[inside].astype(np.float64) - lo) / width).astype(INT64)
    pos = np.minimum(pos, bins - 1)
    return np.bincount(pos, minlength=bins).astype(a.dtype)


# -- registration -------------------------------------------------------------------------

_T = "Tensor"
R.implement("aten::index.Tensor", index)
R.implement("aten::index_put_", index_put_)
R.implement("aten::index_put", index_put)
R.implement("aten::_index_put_impl_", lambda a, i, v, acc=False, unsafe=False:
            index_put_(a, i, v, acc))
R.implement("aten::copy_", copy_)
R.implement("aten::copy", copy)
R.implement("aten::copy_.Tensor", copy_)
R.register("aten::copy_", copy_, types=[_T, "Scalar", "bool"])
for _s in ("int", "float"):
    R.register("aten::copy_", fill_, types=[_T, _s])
for _v in ("Scalar", _T):
    R.register("aten::fill_", fill_, types=[_T, _v])
    R.register("aten::fill", lambda a, v: fill_(a.copy(), v), types=[_T, _v])
R.implement("aten::zero_", lambda a: fill_(a, 0))
R.implement("aten::zero", np.zeros_like)
R.implement("aten::fill_diagonal_", lambda a, value, wrap=False: fill_diagonal_(a, value, wrap))
R.implement("aten::gather", gather)
R.register("aten::gather", gather, types=[_T, "int", _T])
for _src in (_T, "Scalar"):
    R.register("aten::scatter", scatter, types=[_T, "int", _T, _src])
    R.register("aten::scatter", scatter, types=[_T, "int", _T, _src, "str"])
    R.register("aten::scatter_", lambda a, d, i, s, r=None: scatter(a, d, i, s, r, True),
               types=[_T, "int", _T, _src])
    R.register("aten::scatter_", lambda a, d, i, s, r=None: scatter(a, d, i, s, r, True),
               types=[_T, "int", _T, _src, "str"])
R.implement("aten::scatter_add", lambda a, d, i, s: scatter(a, d, i, s, "add"))
R.implement("aten::scatter_add_", lambda a, d, i, s: scatter(a, d, i, s, "add", True))
R.implement("aten::scatter_reduce.two", scatter_reduce)
R.implement("aten::scatter_reduce_.two",
            lambda a, d, i, s, r, inc=True: scatter_reduce(a, d, i, s, r, inc, True))
R.implement("aten::index_select", index_select)
R.implement("aten::index_add", index_add)
R.implement("aten::index_add_", lambda a, d, i, s, alpha=1: index_add(a, d, i, s, alpha, True))
R.implement("aten::index_copy", index_copy)
R.implement("aten::index_copy_", lambda a, d, i, s: index_copy(a, d, i, s, True))
for _v in ("Scalar", _T):
    R.register("aten::index_fill", index_fill, types=[_T, "int", _T, _v])
    R.register("aten::index_fill_", lambda a, d, i, v: index_fill(a, d, i, v, True),
               types=[_T, "int", _T, _v])
    R.register("aten::masked_fill", masked_fill, types=[_T, _T, _v])
    R.register("aten::masked_fill_", lambda a, m, v: masked_fill(a, m, v, True),
               types=[_T, _T, _v])
R.implement("aten::index_reduce", index_reduce)
R.implement("aten::index_reduce_",
            lambda a, d, i, s, r, inc=True: index_reduce(a, d, i, s, r, inc, True))
R.implement("aten::masked_select", masked_select)
R.implement("aten::masked_scatter", masked_scatter)
R.implement("aten::masked_scatter_", lambda a, m, s: masked_scatter(a, m, s, True))
R.implement("aten::take", take)
R.implement("aten::take_along_dim", take_along_dim)
R.implement("aten::put", put)
R.implement("aten::put_", lambda a, i, s, acc=False: put(a, i, s, acc, True))
R.implement("aten::nonzero", nonzero)
R.implement("aten::argwhere", nonzero)
R.implement("aten::nonzero_static", nonzero_static)
R.implement("aten::where", where_nonzero)
R.implement("aten::nonzero_numpy", where_nonzero)
for _v in (_T, "Scalar"):
    R.register("aten::searchsorted", searchsorted, types=[_T, _v, "bool", "bool", "str?",
                                                          "Tensor?"])
R.implement("aten::bucketize.Tensor", bucketize)
R.implement("aten::bucketize.Scalar", bucketize)
for _a, _b in ((_T, _T), (_T, "Scalar"), ("Scalar", _T)):
    R.register("aten::isin", isin, types=[_a, _b, "bool", "bool"])
R.implement("aten::_unique2", unique2)
R.implement("aten::unique_dim", unique_dim)
R.implement("aten::unique_consecutive", unique_consecutive)
R.implement("aten::unique_dim_consecutive",   # torch fills inverse and counts whatever it is asked
            lambda a, dim, inverse=False, counts=False: unique_consecutive(a, True, True, dim))
R.implement("aten::bincount", bincount)
R.implement("aten::histc", histc)
