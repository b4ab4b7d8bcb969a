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

__all__ = ["TRANSFORMS"]

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


def stft_center(x, n_fft: int, hop_length=None, win_length=None, window=None,
                center: bool = True, pad_mode: str = "reflect", normalized: bool = False,
                onesided=None, return_complex=None, align_to_window=None):
    """``aten::stft.center``, what ``torch.stft`` does in Python: with ``center``,
    the signal padded by ``n_fft // 2`` on each side (``pad_mode``, as
    ``F.pad`` pads the last dimension), then :func:`stft`."""
    if center:
        if align_to_window is not None:
            raise ValueError("stft: align_to_window should only be set when center = false")
        from .nn_resample import pad    # (the nn family is declared after this one)
        half, ndim = n_fft // 2, x.ndim
        # F.pad's reflect and replicate modes take (N, C, L): pad as one
        padded = pad(x.reshape((1,) * (3 - ndim) + x.shape), [half, half], pad_mode)
        x = padded.reshape(padded.shape[3 - ndim:])
    return stft(x, n_fft, hop_length, win_length, window, normalized, onesided, return_complex,
                align_to_window)


def istft(spec, n_fft: int, hop_length=None, win_length=None, window=None, center=True,
          normalized=False, onesided=None, length=None, return_complex=False):
    """``torch.istft``, as torch computes it: each frame inverse-transformed
    (``n_fft`` points; a one-sided spectrum to a real frame), multiplied by the
    window, overlapped and added every ``hop_length``, and divided by the
    overlapped squared window; ``center`` trims ``n_fft // 2`` from each end,
    and ``length`` cuts (or zero-pads) the result to that many samples."""
    if spec.dtype.kind != "c":
        raise ValueError("istft requires a complex-valued input tensor matching the output "
                         "from stft with return_complex=True.")
    hop = n_fft // 4 if hop_length is None else hop_length
    win = n_fft if win_length is None else win_length
    batched = spec.ndim == 3
    x = spec if batched else spec[None]
    fft_size, n_frames = x.shape[1], x.shape[2]
    def call():   # how torch's messages show the call
        def tensor(t):
            kind = {"float32": "Float", "float64": "Double", "complex64": "ComplexFloat",
                    "complex128": "ComplexDouble"}.get(t.dtype.name, t.dtype.name)
            return f"CPU{kind}Type[{', '.join(map(str, t.shape))}]"
        flag = "None" if onesided is None else int(onesided)
        return (f"istft({tensor(spec)}, n_fft={n_fft}, hop_length={hop}, win_length={win}, "
                f"window={'None' if window is None else tensor(window)}, center={int(center)}, "
                f"normalized={int(normalized)}, onesided={flag}, "
                f"length={'None' if length is None else length}, "
                f"return_complex={int(return_complex)}) : ")
    expect = onesided is None and fft_size != n_fft or bool(onesided)
    if expect and fft_size != n_fft // 2 + 1:
        raise ValueError(f"{call()}expected the frequency dimension (3rd to the last) of the input "
                         f"tensor to match n_fft / 2 + 1 when onesided=True, but got {fft_size}")
    if not expect and fft_size != n_fft:
        raise ValueError(f"{call()}expected the frequency dimension (3rd to the last) of the input "
                         f"tensor to match n_fft when onesided=False, but got {fft_size}")
    onesided = expect
    real = spec.dtype == _C64 and np.float32 or np.float64
    w = np.ones(win, np.float64) if window is None else window.astype(np.complex128
                                                                        if window.dtype.kind == "c"
                                                                        else np.float64)
    if win < n_fft:
        left = (n_fft - win) // 2
        w = np.pad(w, (left, n_fft - win - left))
    frames = np.swapaxes(x, 1, 2).astype(np.complex128)          # (batch, frames, freq)
    norm = "ortho" if normalized else "backward"
    if return_complex:
        if onesided:
            raise ValueError("Cannot have onesided output if window or input is complex")
        frames = np.fft.ifft(frames, n_fft, axis=-1, norm=norm)
    else:
        if not onesided:
            frames = frames[..., :n_fft // 2 + 1]
        frames = np.fft.irfft(frames, n_fft, axis=-1, norm=norm)
    frames = frames * w
    total = n_fft + hop * (n_frames - 1)
    y = np.zeros((x.shape[0], total), dtype=frames.dtype)
    envelope = np.zeros(total, dtype=np.float64)
    for f in range(n_frames):
        y[:, f * hop:f * hop + n_fft] += frames[:, f]
        envelope[f * hop:f * hop + n_fft] += np.abs(w) ** 2 if w.dtype.kind == "c" else w ** 2
    start = n_fft // 2 if center else 0
    end = start + length if length is not None else (total - n_fft // 2 if center else total)
    y, envelope = y[:, start:end], envelope[start:end]
    if envelope.size and np.abs(envelope).min() < 1e-11:
        raise ValueError("istft(...) window overlap add min: 1")
    y = y / envelope
    if end > total:
        y = np.pad(y, ((0, 0), (0, end - total)))
    out_dtype = (spec.dtype if return_complex else real)
    y = y.astype(out_dtype)
    return as_array(y if batched else y[0])


def _shift(fn: Callable):
    def op(x, dim=None):
        axes = None if dim is None else wrap_dims(dim, x.ndim)
        return as_array(fn(x, axes=axes))
    return op


_T = "Tensor"
for _name, (_fn, _kind, _real) in TRANSFORMS.items():
    _op = _transform(_fn, _kind, _real)
    if _kind == 1:
        R.implement(f"aten::fft_{_name}", _op)
    else:
        R.register(f"aten::fft_{_name}", _op, types=[_T, "int[]?", "int[]?", "str?"])
        R.register(f"aten::fft_{_name}", _op, types=[_T, "int[]?", "int[]", "str?"])
for _name, _two, _inv in (("hfft2", True, False), ("ihfft2", True, True),
                          ("hfftn", False, False), ("ihfftn", False, True)):
    R.register(f"aten::fft_{_name}", _hfftn(_two, _inv), types=[_T, "int[]?", "int[]?", "str?"])
    R.register(f"aten::fft_{_name}", _hfftn(_two, _inv), types=[_T, "int[]?", "int[]", "str?"])
R.implement("aten::stft", stft)
R.register("aten::stft", stft, types=[_T, "int", "int?", "int?", "Tensor?", "bool", "bool?", "bool?"])
R.implement("aten::stft.center", stft_center)
R.implement("aten::istft", istft)
R.implement("aten::fft_fftshift", _shift(np.fft.fftshift))
R.implement("aten::fft_ifftshift", _shift(np.fft.ifftshift))


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
    R.register(f"aten::fft_{_name}", _freq(_real),
               types=["int", "float", "int?", "Any", "Any", "bool?"])
