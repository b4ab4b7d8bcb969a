"""dtype and device: ``to`` in all its overloads, dtype queries, and tensors as
Python values (``item``, ``int(t)``, ``t.tolist()``).

pyjit's tensors are dense CPU numpy arrays, so a device is always ``"cpu"`` (a
``Device`` value in a graph is its string), a layout is ``torch.strided`` and a
memory format is accepted and ignored; dtypes are torch's ScalarType codes
(:mod:`pyjit.ops.dtypes`).  ``to`` returns ``self`` itself when nothing changes
and ``copy`` is false, as torch does, so an in-place update through the result
is seen through ``self``.

TorchScript prints these ``to`` overloads (``x.float()`` is the first one)::

    aten::to(%x, %dtype, %non_blocking, %copy, %memory_format)
    aten::to(%x, %other, %non_blocking, %copy, %memory_format)          # x.to(y)
    aten::to(%x, %device, %dtype, %non_blocking, %copy, %memory_format)
    aten::to(%x, %device, %dtype?, %non_blocking, %copy)                 # x.to("cpu")
    aten::to(%x, %dtype?, %layout?, %device?, %pin_memory?, %non_blocking, %copy,
             %memory_format)                                             # x.to(dtype=...)
    aten::to(%x, %dtype?, %non_blocking, %copy), aten::to(%x, %non_blocking, %copy)
"""

from __future__ import annotations

import re
from typing import Any, Optional

import numpy as np

from ..registry import library as R
from .dims import as_array
from .dtypes import (STRIDED, can_cast, code_of, promote_types, result_type, to_dtype,
                     torch_name)

__all__ = ["to", "to_other", "item", "tensor_to_float", "tensor_to_int", "tensor_to_bool",
           "tolist"]

_ndarray = np.ndarray


def to(a, dtype: Optional[int] = None, copy: bool = False):
    """``a`` in the dtype of ScalarType code ``dtype`` (None: keep it); ``a`` itself
    when that changes nothing and no copy is asked for."""
    dt = a.dtype if dtype is None else to_dtype(dtype)
    if dt == a.dtype:
        return a.copy() if copy else a
    return as_array(a.astype(dt))


def to_other(a, other, copy: bool = False):
    """``a.to(other)``: ``other``'s dtype (and device, always the CPU)."""
    if other.dtype == a.dtype:
        return a.copy() if copy else a
    return as_array(a.astype(other.dtype))


def _check_device(device: Any) -> None:
    if device is not None and str(device).split(":")[0] != "cpu":
        raise ValueError(f"pyjit runs on the CPU only; cannot move a tensor to {device!r}")


_DEVICE_TEXT = re.compile(r"[a-z_]+(:\d+)?")


def device(text: str, index: Optional[int] = None) -> str:
    """``aten::device``: ``torch.device("cpu")``.  pyjit's devices are their text
    (what ``prim::device`` gives); naming one is allowed, moving a tensor to
    anything but the CPU is not (:func:`_check_device`)."""
    if not isinstance(text, str) or not _DEVICE_TEXT.fullmatch(text) or \
            (index is not None and ":" in text):
        raise ValueError(f"Invalid device string: '{text}'")
    return text if index is None else f"{text}:{index}"


def item(a):
    """The one element of ``a`` as a Python number (``Tensor.item()``)."""
    if a.size != 1:
        raise ValueError(f"a Tensor with {a.size} elements cannot be converted to Scalar")
    return a.reshape(()).item()


def tensor_to_float(a) -> float:
    return float(item(a))


def tensor_to_int(a) -> int:
    return int(item(a))


def tensor_to_bool(a) -> bool:
    """``bool(t)`` (``aten::Bool``, and what ``if t:`` compiles to)."""
    if a.size != 1:
        raise ValueError("Boolean value of Tensor with more than one value is ambiguous")
    return bool(item(a))


# prim::tolist's element type codes: how the output annotation names its scalars,
# and the dtypes torch accepts for it (an int annotation wants int64 exactly).
_TOLIST_TYPES = {0: ("Long", (np.int64,)), 1: ("Float", (np.float32, np.float64)),
                 2: ("Bool", (np.bool_,))}


def tolist(a, dim: int, elem: int):
    """``prim::tolist(self, dims, elem_type)``: the nested lists the output
    annotation promises (``List[List[float]]`` is dims 2, elem 1), checked as torch
    checks them."""
    name, dtypes = _TOLIST_TYPES[elem]
    if a.ndim != dim:
        raise ValueError("Output annotation list dimension and runtime tensor dimension must "
                         "match for tolist()")
    if a.dtype.type not in dtypes:
        raise TypeError(f"Output annotation element type and runtime tensor element type must "
                        f"match for tolist(): {name} vs {torch_name(a.dtype)}")
    return a.tolist()


def is_nonzero(a) -> bool:
    if a.size == 0:
        raise ValueError("Boolean value of Tensor with no values is ambiguous")
    return tensor_to_bool(a)


_T = "Tensor"

# to(dtype), to(other), to(device, dtype), to(device, dtype?) ... (see the docstring)
R.implement("aten::to.dtype", lambda a, dt, nb, copy, mf=None: to(a, dt, copy))
R.implement("aten::to.other", lambda a, o, nb, copy, mf=None: to_other(a, o, copy))


def _to_device(a, device, dtype, nb, copy, mf=None):
    _check_device(device)
    return to(a, dtype, copy)


def _to_layout(a, dtype, layout, device, pin, nb, copy, mf=None):
    _check_device(device)
    return to(a, dtype, copy)


R.register("aten::to", _to_device, types=[_T, "Device?", "int?", "bool", "bool", "int?"])
R.implement("aten::to.prim_Device", _to_device)
R.implement("aten::to.dtype_layout", _to_layout)
R.implement("aten::to.prim_dtype", lambda a, dt, nb, copy: to(a, dt, copy))
R.implement("aten::to.prim_other", lambda a, nb, copy: to(a, None, copy))
R.implement("aten::type_as", to_other)
R.implement("aten::cpu", lambda a: a)

R.implement("prim::dtype", lambda a: code_of(a.dtype))
R.implement("prim::device", lambda a: "cpu")
R.implement("aten::device", device)
R.implement("aten::device.with_index", device)
R.implement("prim::layout", lambda a: STRIDED)
R.implement("prim::type", lambda d: str(d).split(":")[0])
R.implement("prim::requires_grad", lambda a: False)
R.implement("prim::is_cuda", lambda a: False)
for _name in ("is_mps", "is_xpu", "is_sparse", "is_quantized", "is_meta", "is_mkldnn",
              "is_vulkan", "is_nested"):
    R.implement(f"prim::{_name}", lambda a: False)
R.implement("aten::get_device", lambda a: -1)
# pyjit computes no gradients and never autocasts: both modes are off, as under
# torch.no_grad() (models' fast paths ask, e.g. nn.TransformerEncoderLayer's).
R.implement("aten::is_autocast_enabled", lambda: False)
R.implement("aten::is_floating_point", lambda a: a.dtype.kind == "f")
R.implement("aten::is_complex", lambda a: a.dtype.kind == "c")
R.implement("aten::is_signed", lambda a: a.dtype.kind in "ifc")
R.implement("aten::is_contiguous", lambda a, mf=0: bool(a.flags.c_contiguous))
R.implement("aten::is_contiguous.memory_format", lambda a, mf=0: bool(a.flags.c_contiguous))
R.implement("aten::element_size", lambda a: a.dtype.itemsize)
R.implement("aten::promote_types",
            lambda a, b: code_of(promote_types(to_dtype(a), to_dtype(b))))
R.implement("aten::can_cast", lambda a, b: can_cast(to_dtype(a), to_dtype(b)))
for _o in (_T, "Scalar"):
    R.register("aten::result_type", lambda a, b: code_of(result_type(a, b)), types=[_T, _o])
R.implement("aten::result_type.Scalar_Tensor", lambda a, b: code_of(result_type(a, b)))
R.implement("aten::result_type.Scalar_Scalar", lambda a, b: code_of(result_type(a, b)))   # two numbers: int64, the default float, complex64

R.implement("aten::item", item)
R.implement("aten::Float.Tensor", tensor_to_float)
R.implement("aten::Int.Tensor", tensor_to_int)
R.implement("aten::Bool.Tensor", tensor_to_bool)
R.implement("aten::is_nonzero", is_nonzero)
# IntImplicit, FloatImplicit and ScalarImplicit, with torch's checks, are implicit's.
R.implement("aten::ComplexImplicit", item)
R.register("prim::tolist", tolist, types=[_T, "int", "int"])

R.implement("aten::clone", lambda a, memory_format=None: a.copy())
R.register("aten::clone", np.copy, types=[_T])


def contiguous(a, memory_format=0):
    """``a`` itself when C-contiguous, else a C-ordered copy (a 0-dim tensor stays
    0-dim: ``numpy.ascontiguousarray`` would make it 1-D)."""
    return a if a.flags.c_contiguous else a.copy(order="C")


R.implement("aten::contiguous", contiguous)
R.register("aten::contiguous", contiguous, types=[_T])
for _name in ("detach", "detach_", "requires_grad_", "lift_fresh"):
    R.register(f"aten::{_name}", lambda a, *flag: a, types=[_T])
R.implement("aten::requires_grad_", lambda a, flag: a)
