"""``torch.fft`` on ``numpy.fft``: one table row per transform.

numpy's transforms take the same arguments as torch's (``n``/``s``, ``dim``/
``axes``, ``norm`` of ``"backward"``, ``"ortho"`` or ``"forward"``) and compute in
double; the result is rounded to torch's dtype: complex64 for float32 or
complex64 input (float32 for the transforms that return real values), complex128
for double.  ``fftshift``/``ifftshift`` keep the input's dtype.
"""

from __future__ import annotations

from typing import Callable, Dict, Tuple

import numpy as np

from ..registry import default_registry as R
from .dims import as_array, wrap_dim, wrap_dims
from .dtypes import DEFAULT_FLOAT

__all__ = ["TRANSFORMS", "FAMILY"]

_C64, _C128 = np.dtype(np.complex64), np.dtype(np.complex128)


def _out_dtype(x: np.ndarray, real_output: bool) -> np.dtype:
    double = x.dtype in (np.float64, np.complex128)
    if real_output:
        return np.dtype(np.float64) if double else DEFAULT_FLOAT
    return _C128 if double else _C64


#: name -> (numpy transform, dimensions it takes: 1, 2 or "n", real output?)
TRANSFORMS: Dict[str, Tuple[Callable, object, bool]] = {
    "fft": (np.fft.fft, 1, False), "ifft": (np.fft.ifft, 1, False),
    "rfft": (np.fft.rfft, 1, False), "irfft": (np.fft.irfft, 1, True),
    "hfft": (np.fft.hfft, 1, True), "ihfft": (np.fft.ihfft, 1, False),
    "fft2": (np.fft.fft2, 2, False), "ifft2": (np.fft.ifft2, 2, False),
    "rfft2": (np.fft.rfft2, 2, False), "irfft2": (np.fft.irfft2, 2, True),
    "fftn": (np.fft.fftn, "n", False), "ifftn": (np.fft.ifftn, "n", False),
    "rfftn": (np.fft.rfftn, "n", False), "irfftn": (np.fft.irfftn, "n", True),
}


def _transform(fn: Callable, kind, real_output: bool) -> Callable:
    def op(x, n=None, dim=-1, norm=None):
        if x.dtype.kind not in "fc":
            x = x.astype(DEFAULT_FLOAT)
        if kind == 1:
            r = fn(x, n=n, axis=wrap_dim(dim, x.ndim), norm=norm)
        else:
            axes = None if dim is None else wrap_dims(dim, x.ndim)
            r = fn(x, s=None if n is None else list(n), axes=axes, norm=norm)
        return as_array(r.astype(_out_dtype(x, real_output)))
    return op


def _hfftn(two_d: bool, inverse: bool):
    """``hfft2``/``hfftn`` and their inverses, from the real transforms: an
    Hermitian signal's FFT is the real inverse FFT of its conjugate."""
    def op(x, s=None, dim=None, norm=None):
        if x.dtype.kind not in "fc":
            x = x.astype(DEFAULT_FLOAT)
        axes = wrap_dims(dim, x.ndim) if dim is not None else \
            (tuple(range(x.ndim - 2, x.ndim)) if two_d else tuple(range(x.ndim)))
        flip = {None: "forward", "backward": "forward", "forward": "backward",
                "ortho": "ortho"}[norm]
        if inverse:
            r = np.conj(np.fft.rfftn(x, s=None if s is None else list(s), axes=axes, norm=flip))
            return as_array(r.astype(_out_dtype(x, False)))
        r = np.fft.irfftn(np.conj(x), s=None if s is None else list(s), axes=axes, norm=flip)
        return as_array(r.astype(_out_dtype(x, True)))
    return op


def _shift(fn: Callable):
    def op(x, dim=None):
        axes = None if dim is None else wrap_dims(dim, x.ndim)
        return as_array(fn(x, axes=axes))
    return op


_T = "Tensor"
for _name, (_fn, _kind, _real) in TRANSFORMS.items():
    _op = _transform(_fn, _kind, _real)
    if _kind == 1:
        R.register(f"aten::fft_{_name}", _op, types=[_T, "int?", "int", "str?"])
    else:
        R.register(f"aten::fft_{_name}", _op, types=[_T, "int[]?", "int[]?", "str?"])
        R.register(f"aten::fft_{_name}", _op, types=[_T, "int[]?", "int[]", "str?"])
for _name, _two, _inv in (("hfft2", True, False), ("ihfft2", True, True),
                          ("hfftn", False, False), ("ihfftn", False, True)):
    R.register(f"aten::fft_{_name}", _hfftn(_two, _inv), types=[_T, "int[]?", "int[]?", "str?"])
    R.register(f"aten::fft_{_name}", _hfftn(_two, _inv), types=[_T, "int[]?", "int[]", "str?"])
R.register("aten::fft_fftshift", _shift(np.fft.fftshift), types=[_T, "int[]?"])
R.register("aten::fft_ifftshift", _shift(np.fft.ifftshift), types=[_T, "int[]?"])

#: The family's operator names, for ``pyjit info --ops``.
FAMILY = sorted([f"fft_{n}" for n in TRANSFORMS] +
                ["fft_hfft2", "fft_ihfft2", "fft_hfftn", "fft_ihfftn", "fft_fftshift",
                 "fft_ifftshift"])
