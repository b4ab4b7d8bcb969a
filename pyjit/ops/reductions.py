"""Reductions, scans and sorts: a tensor reduced over ``dim`` (an int, a list, or
None for all of it), with ``keepdim`` and ``dtype`` as torch takes them.

Every reduction is one row of :data:`REDUCTIONS`: its names, a numpy kernel
``kernel(x, axis, keepdims)`` and a dtype rule.  TorchScript passes the
arguments positionally in a handful of shapes, each registered from the row::

    aten::sum(%x, %dtype)                       # x.sum()
    aten::sum(%x, %dims, %keepdim, %dtype)      # x.sum(dim=(0, 1), keepdim=True)
    aten::amax(%x, %dims, %keepdim)
    aten::all(%x, %dim, %keepdim)               # a single int dim

Dtype rules: ``SUM`` (integers and bools accumulate in int64; ``dtype`` converts
the input first), ``MEAN`` (floating only: an integer tensor is torch's error),
``SAME``, ``BOOL`` (``all``/``any``: bool, or uint8 for uint8), ``COUNT`` (int64).  A 0-dim tensor
reduces over nothing whatever its ``dim`` (0 or -1), and keeps 0 dimensions with
``keepdim``; an empty dimension is torch's error for the reductions that have no
identity (``max``, ``amin``...).

The ``values, indices`` reductions (``max``/``min`` over a dim, ``median``,
``mode``, ``kthvalue``, ``sort``, ``topk``, ``cummax``...) return a tuple of two
arrays, the indices int64; ties resolve as torch's CPU kernels resolve them.
"""

from __future__ import annotations

from typing import Any, Callable, List, NamedTuple, Optional

import numpy as np

from ..registry import library as R, torch_declares
from . import kernels
from .dims import as_array, reduce_axes, wrap_dim
from ..fperrors import ignoring
from .dtypes import DEFAULT_FLOAT, INT64, to_dtype, torch_name

__all__ = ["Reduction", "REDUCTIONS", "BY_NAME", "DTYPE_FORMS", "reduction", "sort", "topk"]

_ndarray = np.ndarray
SUM, MEAN, SAME, BOOL_RULE, FLOATING, COUNT = "sum", "mean", "same", "bool", "floating", "count"


class Reduction(NamedTuple):
    """``kernel(x, axis, keepdims)``: numpy's reduction (``axis`` None or a tuple);
    ``empty_error``: whether reducing an empty dimension is an error."""

    names: str
    kernel: Callable
    rule: str
    empty_error: bool = False


def _input_dtype(name: str, rule: str, a: np.ndarray, dtype: Optional[int]) -> np.dtype:
    """The dtype ``a`` is reduced in."""
    if dtype is not None:
        return to_dtype(dtype)
    if rule == SUM:
        return INT64 if a.dtype.kind in "biu" else a.dtype
    if rule == MEAN and a.dtype.kind not in "fc":
        raise TypeError(f"{name}(): could not infer output dtype. Input dtype must be either "
                        f"a floating point or complex dtype. Got: {torch_name(a.dtype)}")
    if rule == FLOATING and a.dtype.kind not in "fc":
        return DEFAULT_FLOAT
    return a.dtype


def _check_empty(name: str, a: np.ndarray, axes) -> None:
    if a.size:
        return
    if axes is None:
        raise ValueError(f"{name}(): Expected reduction dim to be specified for input.numel() "
                         f"== 0. Specify the reduction dim with the 'dim' argument.")
    for d in axes:
        if a.shape[d] == 0:
            raise IndexError(f"{name}(): Expected reduction dim {d} to have non-zero size.")


def reduction(row: Reduction) -> Callable:
    """``op(a, dim=None, keepdim=False, dtype=None)`` for a row."""
    kernel, rule = row.kernel, row.rule
    name = row.names.split()[0]

    def op(a, dim=None, keepdim=False, dtype=None):
        axes = reduce_axes(dim, a.ndim)
        dt = _input_dtype(name, rule, a, dtype)
        if row.empty_error:
            _check_empty(name, a, axes)
        x = a if a.dtype == dt else a.astype(dt)
        with ignoring():
            r = as_array(kernel(x, axes, bool(keepdim) and a.ndim > 0))
        if rule == BOOL_RULE:
            return r if a.dtype != np.uint8 else r.astype(np.uint8)
        out = INT64 if rule == COUNT else dt
        return r if r.dtype == out else r.astype(out)
    op.__name__ = name
    return op


def _ufunc_reduce(u: np.ufunc) -> Callable:
    return lambda x, axis, keepdims: u.reduce(x, axis=axis, keepdims=keepdims, out=...)


def _mean(x, axis, keepdims):
    if axis is not None and x.size and x.flags.c_contiguous and kernels.is_float32(x) and \
            sorted(axis) == list(range(x.ndim - len(axis), x.ndim)):
        # the trailing dimensions of a C array (a squeeze-excitation block's
        # mean over H and W): rows of one plane each, as global average pooling
        # sums them (numpy's mean over two axes of (1, 1280, 7, 7): 39 us
        # against 18, and in double)
        lead = x.shape[:x.ndim - len(axis)]
        out = np.empty(lead, x.dtype)
        n = x.size // max(out.size, 1)
        kernels.ACTIVE.plane_means(x.reshape(out.size, n), out.reshape(-1), float(n))
        return out.reshape(lead + (1,) * len(axis)) if keepdims else out
    return np.mean(x, axis=axis, keepdims=keepdims, dtype=x.dtype)


def _logsumexp(x, axis, keepdims):
    m = np.max(x, axis=axis, keepdims=True) if x.size else np.zeros((1,) * x.ndim, x.dtype)
    m = np.where(np.isfinite(m), m, 0)
    r = np.log(np.sum(np.exp(x - m), axis=axis, keepdims=True)) + m
    return r if keepdims else (np.squeeze(r, axis=axis) if axis is not None else r.reshape(()))


def _count_nonzero(x, axis, keepdims):
    return np.count_nonzero(x, axis=axis, keepdims=keepdims)


#: Reductions to one value per kept position.
REDUCTIONS: List[Reduction] = [
    Reduction("sum", _ufunc_reduce(np.add), SUM),
    Reduction("nansum", lambda x, axis, keepdims: np.nansum(x, axis=axis, keepdims=keepdims),
              SUM),
    Reduction("prod", _ufunc_reduce(np.multiply), SUM),
    Reduction("mean", _mean, MEAN),
    Reduction("nanmean", lambda x, axis, keepdims: np.nanmean(x, axis=axis, keepdims=keepdims),
              MEAN),
    Reduction("amax", _ufunc_reduce(np.maximum), SAME, empty_error=True),
    Reduction("amin", _ufunc_reduce(np.minimum), SAME, empty_error=True),
    Reduction("all", lambda x, axis, keepdims: np.all(x, axis=axis, keepdims=keepdims),
              BOOL_RULE),
    Reduction("any", lambda x, axis, keepdims: np.any(x, axis=axis, keepdims=keepdims),
              BOOL_RULE),
    Reduction("logsumexp special_logsumexp", _logsumexp, FLOATING),
    Reduction("count_nonzero", _count_nonzero, COUNT),
]

#: Each reduction by name: ``op(a, dim=None, keepdim=False, dtype=None)``.
BY_NAME = {}
for _row in REDUCTIONS:
    for _name in _row.names.split():
        BY_NAME[_name] = reduction(_row)


def _dtype_form(op: Callable) -> Callable:
    """``aten::sum(self, dtype)``: every element, in ``dtype``."""
    def whole(a, dtype=None):
        return op(a, None, False, dtype)
    whole.__name__ = op.__name__
    return whole


#: ``aten::sum(self, dtype)`` and the like: the reductions taking a ``dtype``.
DTYPE_FORMS = {name: _dtype_form(BY_NAME[name]) for name in
               ("sum", "nansum", "prod", "mean", "nanmean", "count_nonzero")}


# -- std / var -------------------------------------------------------------------------

def _correction(arg: Any) -> float:
    """``unbiased`` (a bool) or ``correction`` (a number, None meaning 1)."""
    if arg is None:
        return 1
    if isinstance(arg, bool):
        return 1 if arg else 0
    return arg


def _moments(name: str, take_sqrt: bool, with_mean: bool):
    def op(a, dim=None, correction=None, keepdim=False):
        if a.dtype.kind not in "fc":
            raise TypeError(f"{name}(): input dtype should be either floating point or complex "
                            f"dtypes. Got {torch_name(a.dtype)} instead.")
        axes = reduce_axes(dim, a.ndim)
        keep = bool(keepdim) and a.ndim > 0
        with ignoring():
            mean = np.mean(a, axis=axes, keepdims=True, dtype=np.float64)
            n = a.size if axes is None else int(np.prod([a.shape[d] for d in axes]))
            sq = np.sum(np.abs(a - mean) ** 2, axis=axes, keepdims=keep, dtype=np.float64)
            var = sq / max(n - _correction(correction), 0)
        dt = a.dtype if a.dtype.kind == "f" else np.dtype(a.real.dtype)
        r = as_array((np.sqrt(var) if take_sqrt else var).astype(dt))
        if with_mean:
            m = mean if keep else (np.squeeze(mean, axis=axes) if axes is not None
                                   else mean.reshape(()))
            return r, as_array(m.astype(a.dtype))
        return r
    op.__name__ = name
    return op


# -- values and indices ---------------------------------------------------------------

#: hash_tensor's widening before the bits are read: integers and bools to int64,
#: floats to float64 (torch's "64 bit float / integer equivalent").
_HASH_WIDE = {"b": INT64, "i": INT64, "f": np.dtype(np.float64)}


def hash_tensor(a, dim=(), keepdim=False, mode=0):
    """``torch.hash_tensor``: mode 0, the only one torch has, xors the elements'
    64-bit patterns, each element first widened to int64 (integers, bools) or
    float64 (floats) and its bits read as uint64; the result is uint64.  The
    reduction is over ``dim`` (all of them when it is empty), and like ``amax``
    it has no answer for an empty dimension, torch's error.  Wider unsigned
    integers and complex numbers have no kernel in torch (``xor_sum_cpu``)."""
    dims = [dim] if isinstance(dim, int) else list(dim)
    if not a.size:   # torch checks this first, naming the dim as it was given
        if not dims or not a.ndim:
            raise ValueError("hash_tensor: Expected reduction dim to be specified for "
                             "input.numel() == 0. Specify the reduction dim with the 'dim' "
                             "argument.")
        for d in dims:
            if a.shape[wrap_dim(d, a.ndim)] == 0:
                raise IndexError(f"hash_tensor: Expected reduction dim {d} to have non-zero "
                                 f"size.")
    axes = reduce_axes(dims, a.ndim)
    if mode != 0:
        raise ValueError(f"Unknown hash_tensor mode: {mode}")
    keep = bool(keepdim) and a.ndim > 0
    kind = "i" if a.dtype == np.uint8 else a.dtype.kind
    if not a.size:   # an empty result: torch runs no kernel, so any dtype will do
        return as_array(np.bitwise_xor.reduce(np.zeros(a.shape, np.uint64), axis=axes,
                                              keepdims=keep))
    if kind not in _HASH_WIDE:
        raise NotImplementedError(f'"xor_sum_cpu" not implemented for \'{torch_name(a.dtype)}\'')
    bits = np.ascontiguousarray(a, _HASH_WIDE[kind]).view(np.uint64)
    return as_array(np.bitwise_xor.reduce(bits, axis=axes, keepdims=keep))


def _select_along(x: np.ndarray, idx: np.ndarray, dim: int, keepdim: bool):
    idx = np.expand_dims(idx, dim)
    values = np.take_along_axis(x, idx, axis=dim)
    if not keepdim:
        values, idx = np.squeeze(values, dim), np.squeeze(idx, dim)
    return as_array(values), as_array(idx.astype(INT64))


def _values_indices(name: str, pick: Callable):
    """``op(a, dim, keepdim) -> (values, indices)`` from ``pick(x, dim) -> indices``
    over one dimension of a tensor with at least one dimension."""
    def op(a, dim=-1, keepdim=False):
        d = wrap_dim(dim, a.ndim)
        if a.ndim == 0:
            return a.copy(), np.zeros((), INT64)
        if a.shape[d] == 0:
            raise IndexError(f"{name}(): Expected reduction dim {d} to have non-zero size.")
        with ignoring():
            return _select_along(a, pick(a, d), d, bool(keepdim))
    op.__name__ = name
    return op


def _argmax(x, d):
    return np.argmax(x, axis=d)


def _argmin(x, d):
    return np.argmin(x, axis=d)


def _stable_order(x: np.ndarray, d: int, descending: bool) -> np.ndarray:
    """Indices sorting ``x`` along ``d``, stably, NaN greatest (torch's order)."""
    if not descending:
        return np.argsort(x, axis=d, kind="stable")
    n = x.shape[d]
    flipped = np.flip(x, axis=d)
    return np.flip(n - 1 - np.argsort(flipped, axis=d, kind="stable"), axis=d)


def _median_index(ignore_nan: bool):
    """torch's median: the lower of the two middle values; with a NaN the NaN
    (``median``), or the median of the other values (``nanmedian``)."""
    def pick(x, d):
        order = _stable_order(x, d, False)
        n = x.shape[d]
        if not x.dtype.kind == "f":
            return np.take(order, [(n - 1) // 2], axis=d).squeeze(d)
        nans = np.sum(np.isnan(x), axis=d, keepdims=True)
        count = n - nans if ignore_nan else np.full_like(nans, n)
        k = np.where(count > 0, (count - 1) // 2, 0)
        if not ignore_nan:
            k = np.where(nans > 0, n - nans, k)  # the first NaN in sorted order
        return np.take_along_axis(order, k, axis=d).squeeze(d)
    return pick


def _mode_index(x, d):
    """The most frequent value (the smallest among ties), at its last index."""
    moved = np.moveaxis(x, d, -1)
    flat = moved.reshape(-1, moved.shape[-1])
    out = np.empty(flat.shape[0], INT64)
    for i, row in enumerate(flat):
        values, counts = np.unique(row, return_counts=True)
        best = values[np.argmax(counts)]
        out[i] = np.flatnonzero(row == best)[-1]
    return out.reshape(moved.shape[:-1])


def median_all(a, ignore_nan: bool = False):
    """``median()`` of every element: a 0-dim tensor."""
    if a.size == 0:
        return np.array(np.nan, a.dtype) if a.dtype.kind == "f" else np.zeros((), a.dtype)
    flat = a.reshape(-1)
    idx = _median_index(ignore_nan)(flat, 0)
    return as_array(flat[idx].copy())


def kthvalue(a, k: int, dim: int = -1, keepdim: bool = False):
    d = wrap_dim(dim, a.ndim)
    n = a.shape[d] if a.ndim else 1
    if not 1 <= k <= n:
        raise IndexError(f"kthvalue(): selected number k out of range for dimension {d}")
    if a.ndim == 0:
        return a.copy(), np.zeros((), INT64)
    order = _stable_order(a, d, False)
    return _select_along(a, np.take(order, k - 1, axis=d), d, bool(keepdim))


def sort(a, dim: int = -1, descending: bool = False, stable: Optional[bool] = None):
    """``(values, indices)`` sorted along ``dim``: stable, NaN greatest."""
    d = wrap_dim(dim, a.ndim)
    if a.ndim == 0:
        return a.copy(), np.zeros((), INT64)
    idx = _stable_order(a, d, bool(descending))
    return as_array(np.take_along_axis(a, idx, axis=d)), as_array(idx.astype(INT64))


def topk(a, k: int, dim: int = -1, largest: bool = True, sorted_: bool = True):
    d = wrap_dim(dim, a.ndim)
    n = a.shape[d] if a.ndim else 1
    if not 0 <= k <= n:
        raise IndexError("selected index k out of range")
    if a.ndim == 0:
        return a.copy(), np.zeros((), INT64)
    idx = np.take(_stable_order(a, d, bool(largest)), np.arange(k), axis=d)
    return as_array(np.take_along_axis(a, idx, axis=d)), as_array(idx.astype(INT64))


def max_min_all(name: str, u: np.ufunc):
    def op(a):
        if a.size == 0:
            raise ValueError(f"{name}(): Expected reduction dim to be specified for "
                             f"input.numel() == 0. Specify the reduction dim with the 'dim' "
                             f"argument.")
        return u.reduce(a, axis=None, out=...)
    return op


def arg_reduce(name: str, fn: Callable):
    def op(a, dim=None, keepdim=False):
        if dim is None:
            if a.size == 0:
                raise ValueError(f"{name}(): Expected reduction dim to be specified for "
                                 f"input.numel() == 0.")
            r = np.array(fn(a.reshape(-1)), INT64)
            return r.reshape((1,) * a.ndim) if keepdim else r
        d = wrap_dim(dim, a.ndim)
        if a.ndim == 0:
            return np.zeros((), INT64)
        if a.shape[d] == 0:
            raise IndexError(f"{name}(): Expected reduction dim {d} to have non-zero size.")
        return as_array(fn(a, axis=d, keepdims=bool(keepdim)).astype(INT64))
    return op


def aminmax(a, dim=None, keepdim=False):
    return (BY_NAME["amin"](a, dim, keepdim), BY_NAME["amax"](a, dim, keepdim))


# -- scans ---------------------------------------------------------------------------------

#: The dtype torch's CPU scans (cumsum, cumprod) carry their running value in,
#: its ``acc_type``: wider than a float16/float32/complex64 tensor, so a running
#: sum of float32 is rounded to float32 once per element, not once per addition
#: (numpy's accumulate would round each partial sum: a sum that cancels differs).
_SCAN_ACC = {np.dtype(np.float16): np.dtype(np.float32), np.dtype(np.float32): np.dtype(np.float64),
             np.dtype(np.complex64): np.dtype(np.complex128)}


def _accumulate(u: np.ufunc, x: np.ndarray, axis: int) -> np.ndarray:
    acc = _SCAN_ACC.get(x.dtype)
    if acc is None:
        return u.accumulate(x, axis=axis, dtype=x.dtype)
    return u.accumulate(x, axis=axis, dtype=acc).astype(x.dtype)


def _scan(u: np.ufunc, rule: str):
    def op(a, dim, dtype=None):
        d = wrap_dim(dim, a.ndim)
        dt = _input_dtype("cumsum", rule, a, dtype)
        x = a if a.dtype == dt else a.astype(dt)
        if x.ndim == 0:
            return x.copy()
        return as_array(_accumulate(u, x, d))
    return op


def _cum_extreme(better: Callable):
    """``cummax``/``cummin``: running extreme and the index where it was last
    reached (torch moves the index on ties, and a NaN sticks)."""
    def op(a, dim):
        d = wrap_dim(dim, a.ndim)
        if a.ndim == 0:
            return a.copy(), np.zeros((), INT64)
        x = np.moveaxis(a, d, -1)
        values = np.empty_like(x)
        idx = np.empty(x.shape, INT64)
        best = x[..., 0].copy()
        where = np.zeros(x.shape[:-1], INT64)
        for i in range(x.shape[-1]):
            cur = x[..., i]
            with ignoring():
                take = better(cur, best) | np.isnan(cur) if x.dtype.kind == "f" \
                    else better(cur, best)
            if x.dtype.kind == "f":
                take &= ~np.isnan(best) | np.isnan(cur)
            best = np.where(take, cur, best)
            where = np.where(take, i, where)
            values[..., i], idx[..., i] = best, where
        return np.moveaxis(values, -1, d), np.moveaxis(idx, -1, d)
    return op


def logcumsumexp(a, dim):
    d = wrap_dim(dim, a.ndim)
    x = a if a.dtype.kind == "f" else a.astype(DEFAULT_FLOAT)
    if x.ndim == 0:
        return x.copy()
    return as_array(np.logaddexp.accumulate(x, axis=d))


# -- bool-valued comparisons of whole tensors -------------------------------------------

def allclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False) -> bool:
    return bool(np.allclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan))


def equal(a, b) -> bool:
    return a.shape == b.shape and bool(np.array_equal(a, b))


def trace(a):
    if a.ndim != 2:
        raise ValueError(f"trace: expected a matrix, but got tensor with dim {a.ndim}")
    dt = INT64 if a.dtype.kind in "biu" else a.dtype
    return as_array(np.trace(a, dtype=dt))


# -- registration --------------------------------------------------------------------------

_T = "Tensor"
for _row in REDUCTIONS:
    for _name in _row.names.split():
        _op = BY_NAME[_name]
        # The row's generic form, where torch declares it (aten::prod has no
        # int[] overload, aten::count_nonzero no keepdim).
        _generic = [_T, "int[]?", "bool", "int?"] if _row.rule in (SUM, MEAN) else \
            [_T, "int[]?", "bool"]
        if _row.rule in (SUM, MEAN):
            R.register(f"aten::{_name}", DTYPE_FORMS[_name], types=[_T, "int?"])
        if torch_declares(f"aten::{_name}", _generic):
            R.register(f"aten::{_name}", _op, types=_generic)
        R.register(f"aten::{_name}", lambda a, _op=_op: _op(a), types=[_T])
        R.register(f"aten::{_name}", _op, types=[_T, "int", "bool"])
R.implement("aten::hash_tensor", hash_tensor)
R.implement("aten::prod.dim_int", BY_NAME["prod"])
R.implement("aten::count_nonzero", lambda a, dim=None: BY_NAME["count_nonzero"](a, dim))
R.implement("aten::count_nonzero.dim_IntList", lambda a, dim: BY_NAME["count_nonzero"](a, dim))

for _name, _sqrt, _mean in [("std", True, False), ("var", False, False),
                            ("std_mean", True, True), ("var_mean", False, True)]:
    _op = _moments(_name, _sqrt, _mean)
    R.implement(f"aten::{_name}", lambda a, unbiased=True, _op=_op: _op(a, None, unbiased))
    R.register(f"aten::{_name}", lambda a, _op=_op: _op(a), types=[_T])
    R.implement(f"aten::{_name}.dim", _op)
    R.implement(f"aten::{_name}.correction", _op)

_max_dim = _values_indices("max", _argmax)
_min_dim = _values_indices("min", _argmin)
R.implement("aten::max", max_min_all("max", np.maximum))
R.implement("aten::min", max_min_all("min", np.minimum))
R.implement("aten::max.dim", _max_dim)
R.implement("aten::min.dim", _min_dim)
R.implement("aten::argmax", arg_reduce("argmax", np.argmax))
R.implement("aten::argmin", arg_reduce("argmin", np.argmin))
R.implement("aten::aminmax", aminmax)
for _name, _nan in (("median", False), ("nanmedian", True)):
    R.implement(f"aten::{_name}", (lambda n: lambda a: median_all(a, n))(_nan))
    R.implement(f"aten::{_name}.dim", _values_indices(_name, _median_index(_nan)))
R.implement("aten::mode", _values_indices("mode", _mode_index))
R.implement("aten::kthvalue", kthvalue)
R.implement("aten::sort", sort)
R.implement("aten::sort.stable", lambda a, stable, dim, descending: sort(a, dim, descending))
R.implement("aten::argsort", lambda a, dim=-1, descending=False: sort(a, dim, descending)[1])
R.implement("aten::argsort.stable", lambda a, stable, dim, descending: sort(a, dim, descending)[1])
R.implement("aten::msort", lambda a: sort(a, 0)[0])
R.implement("aten::topk", topk)
R.implement("aten::cumsum", _scan(np.add, SUM))
R.implement("aten::cumprod", _scan(np.multiply, SUM))
R.implement("aten::cumsum_", lambda a, dim, dtype=None: _inplace_scan(np.add, a, dim))
R.implement("aten::cumprod_", lambda a, dim, dtype=None: _inplace_scan(np.multiply, a, dim))
R.implement("aten::cummax", _cum_extreme(np.greater_equal))
R.implement("aten::cummin", _cum_extreme(np.less_equal))
R.implement("aten::logcumsumexp", logcumsumexp)
R.implement("aten::allclose", allclose)
R.implement("aten::equal", equal)
R.implement("aten::trace", trace)


def _inplace_scan(u, a, dim):
    a[...] = _accumulate(u, a, wrap_dim(dim, a.ndim)) if a.ndim else a
    return a
