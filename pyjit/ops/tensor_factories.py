"""Tensor factories: ``zeros ones full arange tensor`` and their ``*_like`` forms.

TorchScript passes every keyword argument positionally, so ``torch.zeros(2, 3,
dtype=torch.int64)`` arrives as ``aten::zeros(size, dtype, layout, device,
pin_memory)`` with ``dtype`` a ScalarType code (4) and the others None or
constants.  Layout, device and pin_memory are accepted and ignored (pyjit tensors
are dense CPU arrays).  Without a dtype the result follows torch:

* ``zeros``/``ones``: float32;
* ``full``: from the fill value: bool, int64 or float32;
* ``arange``: int64 when start, end and step are all ints, else float32; its values
  are computed in float64 and then cast, as torch does, so ``arange(0, 1, 0.1)``
  has exactly torch's ten elements and values.
"""

from __future__ import annotations

import math

import numpy as np

from ..registry import default_registry as R
from .dtypes import BOOL, DEFAULT_FLOAT, INT64, to_dtype

__all__ = ["zeros", "ones", "full", "arange", "tensor"]


def _size(size):
    for s in size:
        if s < 0:
            raise ValueError(f"Trying to create tensor with negative dimension {s}: "
                             f"[{', '.join(map(str, size))}]")
    return tuple(size)


def zeros(size, dtype=None, layout=None, device=None, pin_memory=None):
    return np.zeros(_size(size), dtype=to_dtype(dtype, DEFAULT_FLOAT))


def ones(size, dtype=None, layout=None, device=None, pin_memory=None):
    return np.ones(_size(size), dtype=to_dtype(dtype, DEFAULT_FLOAT))


def _fill_dtype(value):
    if isinstance(value, bool):
        return BOOL
    if isinstance(value, int):
        return INT64
    return DEFAULT_FLOAT


def full(size, fill_value, dtype=None, layout=None, device=None, pin_memory=None):
    return np.full(_size(size), fill_value, dtype=to_dtype(dtype, _fill_dtype(fill_value)))


def arange(*args):
    """``aten::arange(end, ...)``, ``(start, end, ...)`` or ``(start, end, step, ...)``,
    each followed by dtype, layout, device, pin_memory."""
    n = len(args) - 4
    bounds, dtype = args[:n], args[n]
    if n == 1:
        start, end, step = 0, bounds[0], 1
    elif n == 2:
        start, end, step = bounds[0], bounds[1], 1
    else:
        start, end, step = bounds
    if step == 0:
        raise ValueError("step must be nonzero")
    if (end - start) * step < 0 and end != start:
        raise ValueError("upper bound and larger bound inconsistent with step sign")
    ints = all(isinstance(x, int) for x in (start, end, step))
    dt = to_dtype(dtype, INT64 if ints else DEFAULT_FLOAT)
    if ints:
        return np.arange(start, end, step).astype(dt)
    count = max(math.ceil((end - start) / step), 0)
    return (start + np.arange(count, dtype=np.float64) * step).astype(dt)


def tensor(data, dtype=None, device=None, requires_grad=False):
    """``aten::tensor``: a tensor from (nested lists of) numbers."""
    if dtype is None:
        flat = np.asarray(data)
        dt = {"b": BOOL, "i": INT64, "u": INT64}.get(flat.dtype.kind, DEFAULT_FLOAT)
    else:
        dt = to_dtype(dtype)
    return np.array(data, dtype=dt)


def _like(fill):
    def like(a, dtype=None, layout=None, device=None, pin_memory=None, memory_format=None):
        return np.full(a.shape, fill, dtype=to_dtype(dtype, a.dtype))
    return like


def full_like(a, fill_value, dtype=None, layout=None, device=None, pin_memory=None,
              memory_format=None):
    return np.full(a.shape, fill_value, dtype=to_dtype(dtype, a.dtype))


_OPTS = ["int?", "t", "t", "bool?"]  # dtype, layout, device, pin_memory

R.register("aten::zeros", zeros, types=["int[]"] + _OPTS)
R.register("aten::ones", ones, types=["int[]"] + _OPTS)
R.register("aten::full", full, types=["int[]", "Scalar"] + _OPTS)
R.register("aten::arange", arange, types=["Scalar"] + _OPTS)
R.register("aten::arange", arange, types=["Scalar", "Scalar"] + _OPTS)
R.register("aten::arange", arange, types=["Scalar", "Scalar", "Scalar"] + _OPTS)
R.register("aten::tensor", tensor, types=["t", "int?", "t", "bool"])
R.register("aten::zeros_like", _like(0), types=["Tensor"] + _OPTS + ["int?"])
R.register("aten::ones_like", _like(1), types=["Tensor"] + _OPTS + ["int?"])
R.register("aten::full_like", full_like, types=["Tensor", "Scalar"] + _OPTS + ["int?"])
R.register("prim::NumToTensor", lambda x: np.array(x, dtype=_fill_dtype(x) if not
                                                    isinstance(x, float) else np.float64),
           types=["Scalar"])
