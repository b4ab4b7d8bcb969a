"""Window functions: ``hann_window``, ``hamming_window``, ``blackman_window``,
``bartlett_window`` and ``kaiser_window``, every overload, as torch's CPU
kernels compute them.

Each is computed in the result's dtype (float32 unless ``dtype=`` says
otherwise) in torch's order of operations (``TensorFactories.cpp``): an
``arange`` scaled by a constant computed in double, then the window's formula
applied in place.  A *periodic* window (the default) of length N is the
symmetric one of length N + 1 without its last value, as for spectral analysis;
a window of length 0 is empty and one of length 1 is ``[1.]``.  ``kaiser``'s
Bessel function is numpy's ``i0``, in double, rounded once to the dtype.
"""

from __future__ import annotations

import math

import numpy as np

from ..registry import library as R
from .dtypes import DEFAULT_FLOAT, meta_name, to_dtype

__all__ = ["window"]


def _checks(name: str, n: int, dtype) -> np.dtype:
    """torch's ``window_function_checks``."""
    if n < 0:
        raise ValueError(f"{name} requires non-negative window_length, got window_length={n}")
    dt = to_dtype(dtype, DEFAULT_FLOAT)
    if dt.kind != "f":
        # torch prints the whole TensorOptions it was given
        raise ValueError(f"{name} expects floating point dtypes, got: TensorOptions(dtype="
                         f"{meta_name(dt)}, device=cpu (default), layout=Strided (default), "
                         f"requires_grad=false (default), pinned_memory=false (default), "
                         f"memory_format=(nullopt))")
    return dt


def _hamming(n: int, dt: np.dtype, alpha: float, beta: float) -> np.ndarray:
    w = np.arange(n, dtype=dt) * dt.type(math.pi * 2.0 / (n - 1))
    return np.cos(w) * dt.type(-beta) + dt.type(alpha)


def _bartlett(n: int, dt: np.dtype) -> np.ndarray:
    w = np.arange(n, dtype=dt) * dt.type(2.0 / (n - 1))
    first_half = ((n - 1) >> 1) + 1
    w[first_half:] = w[first_half:] * dt.type(-1) + dt.type(2)
    return w


def _blackman(n: int, dt: np.dtype) -> np.ndarray:
    w = np.arange(n, dtype=dt) * dt.type(math.pi / (n - 1))
    return np.cos(w * dt.type(4)) * dt.type(0.08) - np.cos(w * dt.type(2)) * dt.type(0.5) + \
        dt.type(0.42)


def _kaiser(n: int, dt: np.dtype, beta: float) -> np.ndarray:
    alpha = (n - 1) / 2.0
    k = np.arange(n, dtype=np.float64)
    return (np.i0(beta * np.sqrt(np.maximum(1 - ((k - alpha) / alpha) ** 2, 0))) /
            np.i0(beta)).astype(dt)


def window(name: str, formula):
    """The operator ``aten::<name>_window(n, periodic=True, *params, dtype...)``:
    ``formula(n, dtype, *params)`` computes the symmetric window of length n > 1."""
    full = f"{name}_window"

    def op(n, periodic=True, *rest):
        params, (dtype, layout, device, pin_memory) = rest[:-4], rest[-4:]
        dt = _checks(full, n, dtype)
        if n == 0:
            return np.zeros(0, dtype=dt)
        if n == 1:
            return np.ones(1, dtype=dt)
        out = formula(n + 1 if periodic else n, dt, *params)
        return out[:-1].copy() if periodic else out
    return op


_OPTS = ["int?", "Any", "Any", "bool?"]  # dtype, layout, device, pin_memory


def _no_periodic(op):
    return lambda n, *opts: op(n, True, *opts)


#: Each window, its formula, and the parameter lists of its overloads after
#: ``periodic`` (with the defaults of the shorter ones).
WINDOWS = {
    "hann": (lambda n, dt: _hamming(n, dt, 0.5, 0.5), [()]),
    "hamming": (lambda n, dt, alpha=0.54, beta=0.46: _hamming(n, dt, alpha, beta),
                [(), ("float",), ("float", "float")]),
    "bartlett": (_bartlett, [()]),
    "blackman": (_blackman, [()]),
    "kaiser": (lambda n, dt, beta=12.0: _kaiser(n, dt, beta), [(), ("float",)]),
}

for _name, (_formula, _param_lists) in WINDOWS.items():
    _op = window(_name, _formula)
    R.register(f"aten::{_name}_window", _no_periodic(_op), types=["int"] + _OPTS)
    for _params in _param_lists:
        R.register(f"aten::{_name}_window", _op, types=["int", "bool", *_params] + _OPTS)
