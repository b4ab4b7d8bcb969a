"""What a tensor is, rather than what it holds: strides, storage offset, the
flags torch keeps beside the data, and what the environment answers about
devices, autocast and TorchScript itself.

pyjit's tensors are numpy arrays on the CPU, so every answer is the one torch
gives for a dense CPU tensor made outside inference mode:

* ``stride``, ``storage_offset`` are counted in elements, as torch counts them
  (numpy counts bytes); an array's storage is the array at the root of its
  ``base`` chain, so a view's offset is where its first element lies in it;
* ``is_conj``, ``is_neg`` are False: pyjit's ``conj`` and ``neg`` compute
  their values, never setting torch's lazy bits; ``is_inference`` and
  ``is_pinned`` are False, and ``pin_memory`` raises torch's error of a
  machine with no accelerator;
* autocast is never on (``is_autocast_enabled``, ``is_autocast_cpu_enabled``
  answer False), and ``get_autocast_dtype`` answers the dtype autocast would
  use, as torch does whether or not it is on: ``bfloat16`` for ``"cpu"``,
  ``float16`` for the others;
* a graph is TorchScript: ``is_scripting()`` is True, ``has_torch_function``
  False;
* devices are their text (``"cpu"``, ``"cpu:0"``), compared as torch compares
  type and index.
"""

from __future__ import annotations

from typing import List, Optional

import numpy as np

from ..registry import library as R
from .dims import wrap_dim
from .tensor_shapes import storage_offset

__all__ = ["strides"]

_T = "Tensor"


def strides(a) -> List[int]:
    """``Tensor.stride()``: numpy's byte strides in elements.  An empty array's
    strides mean nothing to numpy (it may give any); torch's empty tensors have
    the contiguous strides of their sizes, as a fresh one does."""
    if a.size == 0:
        out, step = [], 1
        for n in reversed(a.shape):
            out.append(step)
            step *= max(n, 1)
        return out[::-1]
    size = a.itemsize
    return [s // size for s in a.strides]


def stride(a, dim: int) -> int:
    """``Tensor.stride(dim)``, with torch's check of ``dim``."""
    if a.ndim == 0:
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    return strides(a)[wrap_dim(dim, a.ndim)]


def is_non_overlapping_and_dense(a) -> bool:
    """torch's test: some order of the dimensions makes the strides those of a
    contiguous tensor (dimensions of size 1 are free)."""
    if a.ndim <= 1:
        return a.ndim == 0 or a.shape[0] < 2 or strides(a)[0] == 1
    order = sorted(range(a.ndim), key=lambda d: (strides(a)[d], a.shape[d]))
    expected = 1
    for d in order:
        if a.shape[d] == 1:
            continue
        if strides(a)[d] != expected:
            return False
        expected *= a.shape[d]
    return True


#: torch's MemoryFormat codes.
_CHANNELS_LAST, _CHANNELS_LAST_3D = 2, 3


def is_strides_like_format(a, memory_format: int) -> bool:
    """``channels_last`` (4-d) or ``channels_last_3d`` (5-d) strides: the
    channel dimension the fastest, then width, height (and depth), then batch.
    Like torch, no tensor is "strides like" the contiguous format."""
    if memory_format not in (_CHANNELS_LAST, _CHANNELS_LAST_3D):
        return False
    nd = 4 if memory_format == _CHANNELS_LAST else 5
    if a.ndim != nd:
        return False
    st = strides(a)
    order = [1] + list(range(nd - 1, 1, -1)) + [0]   # c, w, h(, d), n
    minimum = 0
    for d in order:
        if a.shape[d] == 1 and d != 1:
            continue
        if st[d] < minimum:
            return False
        if d == 0 and minimum == st[1]:
            return False
        minimum = st[d] * a.shape[d] if a.shape[d] > 1 else st[d]
    return True


def pin_memory(a, device=None):
    raise RuntimeError("Cannot access accelerator device when none is available.")


#: torch's ScalarType codes of the two autocast dtypes (numpy has no bfloat16,
#: so no dtype of pyjit's holds one; a graph passes dtypes as codes).
HALF, BFLOAT16 = 5, 15

#: The dtype autocast would use on each device type, as torch's defaults are.
AUTOCAST_DTYPES = {"cpu": BFLOAT16, "cuda": HALF, "mps": HALF, "xpu": HALF,
                   "hpu": BFLOAT16, "ipu": HALF, "xla": BFLOAT16, "mtia": HALF,
                   "maia": BFLOAT16, "privateuseone": HALF}

#: The device types torch's device strings may start with, in its message's order.
DEVICE_TYPES = ("cpu", "cuda", "ipu", "xpu", "mkldnn", "opengl", "opencl", "ideep", "hip", "ve",
                "fpga", "maia", "xla", "lazy", "vulkan", "mps", "meta", "hpu", "mtia",
                "privateuseone")


def get_autocast_dtype(device_type: str) -> int:
    """The ScalarType code of ``AUTOCAST_DTYPES[device_type]``."""
    code = AUTOCAST_DTYPES.get(device_type)
    if code is None:
        if device_type not in DEVICE_TYPES:
            raise RuntimeError(f"Expected one of {', '.join(DEVICE_TYPES)} device type at start "
                               f"of device string: {device_type}")
        raise RuntimeError(f"unknown device type for autocast in get_autocast_dispatch_key_from_"
                           f"device_type: {device_type}")
    return code


def device_index(device: str) -> Optional[int]:
    """``torch.device(...).index``: None for ``"cpu"``, 0 for ``"cpu:0"``."""
    _, _, index = device.partition(":")
    return int(index) if index else None


# -- registration ---------------------------------------------------------------------------

R.implement("aten::stride", strides)
R.implement("aten::stride.int", stride)
R.implement("aten::sym_stride", strides)
R.implement("aten::sym_stride.int", stride)
R.implement("aten::storage_offset", storage_offset)
R.implement("aten::sym_storage_offset", storage_offset)
R.implement("aten::sym_numel", np.size)
R.implement("aten::sym_is_contiguous", lambda a, mf=0: bool(a.flags.c_contiguous))
R.implement("aten::is_non_overlapping_and_dense", is_non_overlapping_and_dense)
R.implement("aten::is_strides_like_format", is_strides_like_format)
R.implement("aten::is_same_size", lambda a, b: a.shape == b.shape)
for _flag in ("is_conj", "is_neg", "is_inference"):
    R.implement(f"aten::{_flag}", lambda a: False)
R.implement("aten::is_pinned", lambda a, device=None: False)
R.implement("aten::pin_memory", pin_memory)
R.implement("aten::data", lambda a: a.view())
R.implement("prim::data", lambda a: a.view())
R.implement("prim::is_cpu", lambda a: True)
for _backend in ("ipu", "maia", "mtia", "xla", "sparse_csr"):
    R.implement(f"prim::is_{_backend}", lambda a: False)
R.implement("prim::itemsize", lambda a: a.itemsize)
R.implement("prim::nbytes", lambda a: a.nbytes)
R.implement("prim::name", lambda a: None)
R.implement("prim::index", device_index)

# Devices, compared by type and index, which their text says exactly.
R.implement("aten::eq.device", lambda a, b: a == b)
R.implement("aten::ne.device", lambda a, b: a != b)

# Autocast is never on in pyjit; the dtype it would use is torch's default.
R.implement("aten::is_autocast_cpu_enabled", lambda: False)
R.implement("aten::get_autocast_dtype", lambda device_type: get_autocast_dtype(device_type))

# TorchScript's own questions.
R.implement("aten::is_scripting", lambda: True)
R.register("aten::has_torch_function", lambda *args: False, types=["t"], varargs=True)
