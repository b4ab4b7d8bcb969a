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

from ..registry import library as R
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


def stft(x, n_fft: int, hop_length=None, win_length=None, window=None,
         normalized: bool = False, onesided=None, return_complex=None, align_to_window=None):
    """``aten::stft`` (``torch.stft`` pads a centred signal before it): frames of
    ``n_fft`` samples every ``hop_length``, each multiplied by the window (centred
    in the frame when shorter) and transformed; ``(freq, frames)`` per signal,
    complex, or its real view when ``return_complex`` is false."""
    if align_to_window:
        raise ValueError("pyjit's stft does not take align_to_window=True")
    hop = hop_length or n_fft // 4
    length = win_length or n_fft
    w = np.ones(length, x.dtype) if window is None else window
    if length < n_fft:
        left = (n_fft - length) // 2
        w = np.pad(w, (left, n_fft - length - left))
    signals = x if x.ndim == 2 else x[None]
    if signals.shape[-1] < n_fft:
        raise ValueError(f"stft: expected 0 < n_fft <= {signals.shape[-1]}, but got n_fft={n_fft}")
    frames = np.lib.stride_tricks.sliding_window_view(signals, n_fft, axis=-1)[:, ::hop]
    frames = frames.astype(np.float64 if x.dtype.kind == "f" else np.complex128) * w
    two_sided = onesided is False or x.dtype.kind == "c" or (window is not None and
                                                             window.dtype.kind == "c")
    spec = np.fft.fft(frames, axis=-1) if two_sided else np.fft.rfft(frames, axis=-1)
    if normalized:
        spec = spec / np.sqrt(n_fft)
    spec = np.swapaxes(spec, -1, -2).astype(_out_dtype(x, False))
    if x.ndim == 1:
        spec = spec[0]
    return as_array(spec if return_complex else np.stack([spec.real, spec.imag], axis=-1))


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
R.register("aten::stft", stft,
           types=[_T, "int", "int?", "int?", "Tensor?", "bool", "bool?", "bool?", "bool?"])
R.register("aten::stft", stft, types=[_T, "int", "int?", "int?", "Tensor?", "bool", "bool?", "bool?"])
R.register("aten::fft_fftshift", _shift(np.fft.fftshift), types=[_T, "int[]?"])
R.register("aten::fft_ifftshift", _shift(np.fft.ifftshift), types=[_T, "int[]?"])


def _freq(real: bool):
    """``fft_fftfreq(n, d)``: ``[0, 1, ..., -(n // 2), ..., -1] / (n d)``, and
    ``fft_rfftfreq``'s non-negative half, each in the dtype asked for (float32
    by default), scaled as torch scales them, by ``1 / (n d)`` computed in double."""
    def op(n, d=1.0, dtype=None, layout=None, device=None, pin_memory=None):
        from .dtypes import to_dtype
        dt = to_dtype(dtype, DEFAULT_FLOAT)
        if real:
            k = np.arange(n // 2 + 1, dtype=dt)
        else:
            k = np.arange(n, dtype=dt)
            k[(n + 1) // 2:] = np.arange(-(n // 2), 0, dtype=dt)
        return as_array(k * dt.type(1.0 / (n * d)))
    return op


for _name, _real in (("fftfreq", False), ("rfftfreq", True)):
    R.register(f"aten::fft_{_name}", _freq(_real), types=["int", "float", "int?", "t", "t", "bool?"])

#: The family's operator names, for ``pyjit info --ops``.
FAMILY = sorted([f"fft_{n}" for n in TRANSFORMS] +
                ["fft_hfft2", "fft_ihfft2", "fft_hfftn", "fft_ihfftn", "fft_fftshift",
                 "fft_ifftshift", "stft", "fft_fftfreq", "fft_rfftfreq"])
