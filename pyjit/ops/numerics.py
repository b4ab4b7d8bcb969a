"""Numerical routines over a dimension: differences and gradients, trapezoidal
integrals, covariance, quantiles, histograms and segment reductions.

Each computes in double and rounds once to torch's result dtype (the input's
floating dtype; float32 for integer inputs where torch returns floats).
``gradient`` follows torch's second-order central differences in the interior
and first- or second-order one-sided differences at the edges (``edge_order``),
as numpy's ``gradient`` does; ``quantile`` interpolates as torch's
``interpolation`` names say (numpy's ``method`` of the same names).
"""

from __future__ import annotations

from typing import List, Optional

import numpy as np

from ..registry import library as R
from .dims import as_array, wrap_dim
from .dtypes import DEFAULT_FLOAT
from ..fperrors import ignoring

__all__ = ["diff", "gradient", "trapezoid", "cov", "quantile", "histogram", "segment_reduce"]


# numpy 2 renamed trapz to trapezoid
_trapezoid = getattr(np, "trapezoid", None) or getattr(np, "trapz")


def _float_dtype(x: np.ndarray) -> np.dtype:
    return x.dtype if x.dtype.kind in "fc" else DEFAULT_FLOAT


def diff(a, n: int = 1, dim: int = -1, prepend=None, append=None):
    d = wrap_dim(dim, a.ndim)
    kwargs = {}
    if prepend is not None:
        kwargs["prepend"] = prepend
    if append is not None:
        kwargs["append"] = append
    if a.dtype == np.bool_:  # torch's diff of bools is logical_xor
        x = np.concatenate([p for p in (prepend, a, append) if p is not None], axis=d)
        for _ in range(n):
            x = np.logical_xor(np.take(x, range(1, x.shape[d]), axis=d),
                               np.take(x, range(0, x.shape[d] - 1), axis=d))
        return x
    return as_array(np.diff(a, n=n, axis=d, **kwargs))


def gradient(a, spacing=None, dim=None, edge_order: int = 1) -> List[np.ndarray]:
    """``torch.gradient``: one tensor per dimension differentiated."""
    if dim is None:
        dims = list(range(a.ndim))
    elif isinstance(dim, int):
        dims = [wrap_dim(dim, a.ndim)]
    else:
        dims = [wrap_dim(d, a.ndim) for d in dim]
    if spacing is None:
        steps = [1.0] * len(dims)
    elif isinstance(spacing, (int, float)):
        steps = [float(spacing)] * len(dims)
    else:
        steps = list(spacing)
    for d in dims:
        if a.shape[d] < edge_order + 1:
            raise ValueError("torch.gradient expected each dimension size to be at least "
                             "edge_order+1")
    dt = _float_dtype(a)
    out = []
    for d, h in zip(dims, steps):
        g = np.gradient(a.astype(np.float64), h, axis=d, edge_order=edge_order)
        out.append(as_array(g.astype(dt)))
    return out


def trapezoid(y, x=None, dim: int = -1, dx: float = 1.0):
    d = wrap_dim(dim, y.ndim)
    dt = _float_dtype(y) if x is None or not isinstance(x, np.ndarray) else \
        np.result_type(_float_dtype(y), x.dtype)
    if isinstance(x, np.ndarray):
        r = _trapezoid(y.astype(np.float64), x.astype(np.float64), axis=d)
    else:
        r = _trapezoid(y.astype(np.float64), dx=dx if x is None else x, axis=d)
    return as_array(np.asarray(r).astype(dt))


def cumulative_trapezoid(y, x=None, dim: int = -1, dx: float = 1.0):
    d = wrap_dim(dim, y.ndim)
    yd = np.moveaxis(y.astype(np.float64), d, -1)
    if isinstance(x, np.ndarray):
        widths = np.diff(np.moveaxis(np.broadcast_to(x, y.shape).astype(np.float64), d, -1)
                         if x.ndim == y.ndim else x.astype(np.float64), axis=-1)
    else:
        widths = dx if x is None else x
    r = np.cumsum((yd[..., 1:] + yd[..., :-1]) / 2 * widths, axis=-1)
    return as_array(np.moveaxis(r, -1, d).astype(_float_dtype(y)))


def cov(a, correction: int = 1, fweights=None, aweights=None):
    x = a if a.ndim == 2 else a.reshape(1, -1)
    r = np.cov(x.astype(np.float64), ddof=correction,
               fweights=None if fweights is None else fweights,
               aweights=None if aweights is None else aweights.astype(np.float64))
    r = np.asarray(r)
    return as_array(r.reshape(()) if a.ndim < 2 else r).astype(_float_dtype(a))


def corrcoef(a):
    with ignoring():
        r = np.asarray(np.corrcoef(a.astype(np.float64)))
    return as_array(r.astype(_float_dtype(a)))


def quantile(a, q, dim: Optional[int] = None, keepdim: bool = False,
             interpolation: str = "linear", ignore_nan: bool = False):
    if interpolation not in ("linear", "lower", "higher", "midpoint", "nearest"):
        raise ValueError("quantile() interpolation must be one of linear, lower, higher, "
                         f"midpoint or nearest. Got {interpolation}")
    qs = np.asarray(q, dtype=np.float64)
    if np.any((qs < 0) | (qs > 1)):
        raise ValueError("quantile() q values must be in the range [0, 1]")
    fn = np.nanquantile if ignore_nan else np.quantile
    axis = None if dim is None or a.ndim == 0 else wrap_dim(dim, a.ndim)
    x = a.astype(np.float64)
    r = fn(x, qs, axis=axis, method=interpolation, keepdims=bool(keepdim) and a.ndim > 0)
    if dim is None and keepdim and a.ndim:
        r = np.reshape(r, qs.shape + (1,) * a.ndim)
    return as_array(np.asarray(r).astype(a.dtype))


def _count(points: np.ndarray, edges: List[np.ndarray], weight, density: bool) -> np.ndarray:
    """Counts of ``points`` (one row per point) in the bins the edges bound, as
    torch's kernel counts them: a point is in when ``edges[0] <= x <= edges[-1]``
    in every dimension (so decreasing edges count nothing), in the bin whose left
    edge is the last one <= x, the last bin closed on the right."""
    shape = tuple(len(e) - 1 for e in edges)
    inside = np.ones(points.shape[0], bool)
    index = np.zeros(points.shape[0], np.int64)
    for k, e in enumerate(edges):
        x = points[:, k]
        inside &= (x >= e[0]) & (x <= e[-1])
        pos = np.searchsorted(e, x, side="right") - 1 if np.all(np.diff(e) >= 0) else \
            np.zeros(x.shape, np.int64)
        index = index * shape[k] + np.clip(pos, 0, shape[k] - 1)
    w = np.ones(points.shape[0]) if weight is None else weight.reshape(-1).astype(np.float64)
    hist = np.bincount(index[inside], weights=w[inside], minlength=int(np.prod(shape)))
    hist = hist.reshape(shape)
    if density:
        volume = np.ones(shape)
        for k, e in enumerate(edges):
            widths = np.diff(e)
            volume = volume * widths.reshape((1,) * k + (-1,) + (1,) * (len(shape) - k - 1))
        with ignoring():
            hist = hist / (hist.sum() * volume)
    return hist


def _edges(x: np.ndarray, count: int, lo_hi, dtype) -> np.ndarray:
    lo, hi = lo_hi if lo_hi is not None else \
        ((float(x.min()), float(x.max())) if x.size else (0.0, 0.0))
    if lo == hi:
        lo, hi = lo - 0.5, hi + 0.5
    return np.linspace(lo, hi, count + 1).astype(dtype).astype(np.float64)


def histogram(a, bins, range_=None, weight=None, density: bool = False):
    """``torch.histogram``: ``(hist, bin_edges)`` in the input's dtype; with an int
    ``bins`` the edges are spaced over ``range`` (the data's extent by default)."""
    x = a.reshape(-1, 1).astype(np.float64)
    edges = bins.astype(np.float64) if isinstance(bins, np.ndarray) else \
        _edges(x, bins, range_, a.dtype)
    hist = _count(x, [edges], weight, density)
    return as_array(hist.astype(a.dtype)), as_array(edges.astype(a.dtype))


def histogramdd(a, bins, range_=None, weight=None, density: bool = False):
    d = a.shape[-1]
    x = a.reshape(-1, d).astype(np.float64)
    if isinstance(bins, (list, tuple)) and bins and isinstance(bins[0], np.ndarray):
        edges = [b.astype(np.float64) for b in bins]
    else:
        counts = [bins] * d if isinstance(bins, int) else list(bins)
        edges = [_edges(x[:, k], counts[k], None if range_ is None else
                        (range_[2 * k], range_[2 * k + 1]), a.dtype) for k in range(d)]
    hist = _count(x, edges, weight, density)
    return as_array(hist.astype(a.dtype)), [as_array(e.astype(a.dtype)) for e in edges]


_SEGMENT_IDENTITY = {"sum": 0.0, "prod": 1.0, "max": -np.inf, "min": np.inf, "mean": np.nan}


def segment_reduce(data, reduce: str, lengths=None, indices=None, offsets=None, axis: int = 0,
                   unsafe: bool = False, initial=None):
    """``torch.segment_reduce`` along ``axis``: consecutive segments of the given
    ``lengths`` (or between ``offsets``); an empty segment gives ``initial``, or
    the reduction's identity (NaN for ``mean``)."""
    if reduce not in _SEGMENT_IDENTITY:
        raise ValueError(f"unsupported reduction {reduce} for segment_reduce")
    if indices is not None:
        raise ValueError("segment_reduce(): indices are not supported (torch does not either)")
    if lengths is not None:
        bounds = np.concatenate([[0], np.cumsum(lengths.reshape(-1))])
    else:
        bounds = offsets.reshape(-1)
    x = np.moveaxis(data.astype(np.float64), axis, 0)
    parts = []
    for lo, hi in zip(bounds[:-1], bounds[1:]):
        seg = x[lo:hi]
        if hi <= lo:
            value = _SEGMENT_IDENTITY[reduce] if initial is None else initial
            parts.append(np.full(x.shape[1:], value))
        elif reduce == "sum":
            parts.append(seg.sum(0) + (initial or 0))
        elif reduce == "prod":
            parts.append(seg.prod(0) * (1 if initial is None else initial))
        elif reduce == "max":
            parts.append(seg.max(0) if initial is None else np.maximum(seg.max(0), initial))
        elif reduce == "min":
            parts.append(seg.min(0) if initial is None else np.minimum(seg.min(0), initial))
        else:
            parts.append(seg.mean(0) if initial is None else
                         (seg.sum(0) + initial) / (hi - lo + 1))
    out = np.stack(parts) if parts else np.zeros((0,) + x.shape[1:])
    return as_array(np.moveaxis(out, 0, axis).astype(data.dtype))


def sum_to_size(a, size):
    """``a`` summed down to ``size`` (a shape ``a`` broadcasts from)."""
    lead = a.ndim - len(size)
    x = a.sum(axis=tuple(range(lead))) if lead > 0 else a
    axes = tuple(i for i, s in enumerate(size) if s == 1 and x.shape[i] != 1)
    if axes:
        x = x.sum(axis=axes, keepdims=True)
    if tuple(x.shape) != tuple(size):
        raise ValueError(f"size {{{', '.join(map(str, size))}}} is not expandable to size "
                         f"{{{', '.join(map(str, a.shape))}}}.")
    return as_array(x.astype(a.dtype))


_T = "Tensor"
R.implement("aten::diff", diff)
for _s in ("Scalar?", "Scalar[]", "Tensor[]"):
    for _d in ("int?", "int[]"):
        R.register("aten::gradient", gradient, types=[_T, _s, _d, "int"])
# gradient.array: the dimensions alone, unit spacing
R.implement("aten::gradient.array", lambda a, dim, edge_order=1: gradient(a, None, dim, edge_order))
for _name in ("trapz", "trapezoid"):
    R.implement(f"aten::{_name}.x", lambda y, x, dim=-1: trapezoid(y, x, dim))
    R.register(f"aten::{_name}", lambda y, dx=1.0, dim=-1: trapezoid(y, None, dim, dx),
               types=[_T, "Scalar", "int"])
R.implement("aten::cumulative_trapezoid.x", lambda y, x, dim=-1: cumulative_trapezoid(y, x, dim))
R.implement("aten::cumulative_trapezoid.dx",
            lambda y, dx=1.0, dim=-1: cumulative_trapezoid(y, None, dim, dx))
R.implement("aten::cov", cov)
R.implement("aten::corrcoef", corrcoef)
for _q in ("float", _T):
    R.register("aten::quantile", quantile, types=[_T, _q, "int?", "bool", "str"])
    R.register("aten::nanquantile", lambda a, q, dim=None, keepdim=False, how="linear":
               quantile(a, q, dim, keepdim, how, True), types=[_T, _q, "int?", "bool", "str"])
R.implement("aten::histogram.bins_tensor", lambda a, bins, weight=None, density=False:
            histogram(a, bins, None, weight, density))
R.implement("aten::histogram.bin_ct", histogram)
R.implement("aten::histogramdd.TensorList_bins", histogramdd)
R.implement("aten::histogramdd", histogramdd)
R.implement("aten::histogramdd.int_bins", histogramdd)
R.implement("aten::segment_reduce", segment_reduce)
R.implement("aten::sum_to_size", sum_to_size)
