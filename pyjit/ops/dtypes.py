"""torch's dtypes on numpy: ScalarType codes, names, and torch's type promotion.

This is the one place that maps torch's dtypes to numpy's.  Graphs name a dtype
by its ``ScalarType`` integer (``dtype=torch.int64`` prints as ``%d : int =
prim::Constant[value=4]()``, and ``x.dtype`` is an ``int`` at run time);
:data:`SCALAR_TYPES` maps those codes to numpy dtypes and :func:`code_of` back.
torch's messages name dtypes as ``Float``/``Long`` (:func:`torch_name`) or as
their C++ types (:func:`c_name`).  The default dtype is float32, as in torch.

Type promotion follows torch (``c10::promoteTypes`` and ``at::result_type``), not
numpy, where the two differ:

* a float type beats any integer type whatever their sizes: ``int64 + float32`` is
  float32 (numpy says float64);
* operands come in three priority classes: tensors with dimensions, zero-dim
  tensors, and Python numbers.  A lower class only changes the result when it is
  of a higher *category* (bool < integer < floating < complex), so ``float32[3] +
  float64[]`` stays float32 and ``int64[3] * 2.5`` is float32 (the default dtype),
  while ``int32[3] + 5`` stays int32.

torch's wider unsigned types promote only with a float type (anything else is
torch's error); of them pyjit has uint64, the dtype of ``hash_tensor``'s results.

Layouts and memory formats, which pyjit's dense arrays do not have, are codes
too: :data:`STRIDED` is what ``prim::layout`` returns, and memory formats are
accepted and ignored where torch takes them.
"""

from __future__ import annotations

from typing import Any, Dict

import numpy as np

__all__ = ["SCALAR_TYPES", "DEFAULT_FLOAT", "to_dtype", "code_of", "torch_name", "c_name",
           "meta_name",
           "promote_types", "result_type", "scalar_dtype", "category", "is_floating",
           "can_cast", "check_cast", "INT64", "BOOL", "FLOAT64", "STRIDED"]

DEFAULT_FLOAT = np.dtype(np.float32)
FLOAT64 = np.dtype(np.float64)
INT64 = np.dtype(np.int64)
BOOL = np.dtype(np.bool_)

#: ``prim::layout`` of every pyjit tensor: ``torch.strided``.
STRIDED = 0

#: torch's ScalarType enum (c10/core/ScalarType.h) for the dtypes numpy has, with the
#: three names torch's messages use: the ScalarType's (``Long``), the C++ type of
#: ``checked_convert`` (``int64_t``) and the TypeMeta's (``long int``, what a
#: message printing ``tensor.dtype()`` from C++ shows).
_TABLE = [
    (0, np.uint8, "Byte", "uint8_t", "unsigned char"),
    (1, np.int8, "Char", "int8_t", "signed char"),
    (2, np.int16, "Short", "int16_t", "short int"),
    (3, np.int32, "Int", "int", "int"),
    (4, np.int64, "Long", "int64_t", "long int"),
    (5, np.float16, "Half", "c10::Half", "c10::Half"),
    (6, np.float32, "Float", "float", "float"),
    (7, np.float64, "Double", "double", "double"),
    (9, np.complex64, "ComplexFloat", "c10::complex<float>", "c10::complex<float>"),
    (10, np.complex128, "ComplexDouble", "c10::complex<double>", "c10::complex<double>"),
    (11, np.bool_, "Bool", "bool", "bool"),
    (29, np.uint64, "UInt64", "uint64_t", "unsigned long"),   # hash_tensor's result
]

SCALAR_TYPES: Dict[int, np.dtype] = {row[0]: np.dtype(row[1]) for row in _TABLE}
_CODES: Dict[np.dtype, int] = {np.dtype(row[1]): row[0] for row in _TABLE}
_NAMES: Dict[np.dtype, str] = {np.dtype(row[1]): row[2] for row in _TABLE}
_C_NAMES: Dict[np.dtype, str] = {np.dtype(row[1]): row[3] for row in _TABLE}
_META_NAMES: Dict[np.dtype, str] = {np.dtype(row[1]): row[4] for row in _TABLE}

#: torch's "barebones" unsigned types, which it promotes only with floats.
_BAREBONES = (np.dtype(np.uint16), np.dtype(np.uint32), np.dtype(np.uint64))

# bool < integer < floating < complex: torch's categories (numpy's dtype.kind).
_CATEGORY = {"b": 0, "u": 1, "i": 1, "f": 2, "c": 3}


def to_dtype(code: Any, default: np.dtype = None) -> np.dtype:
    """The numpy dtype of a ScalarType code; ``None`` gives ``default``."""
    if code is None:
        return default
    try:
        return SCALAR_TYPES[code]
    except (KeyError, TypeError):
        raise TypeError(f"unsupported torch ScalarType {code!r}; pyjit knows "
                        f"{sorted(SCALAR_TYPES)}") from None


def code_of(dt: np.dtype) -> int:
    """The ScalarType code of a numpy dtype (what ``x.dtype`` is in a graph)."""
    return _CODES[dt]


def torch_name(dt: np.dtype) -> str:
    """``Float``, ``Long``...: the dtype as torch's error messages name it."""
    return _NAMES.get(dt, str(dt))


def c_name(dt: np.dtype) -> str:
    """``float``, ``int64_t``...: the dtype as torch's C++ messages name it."""
    return _C_NAMES.get(dt, str(dt))


def meta_name(dt: np.dtype) -> str:
    """``float``, ``long int``...: the dtype as C++ prints a tensor's TypeMeta."""
    return _META_NAMES.get(dt, str(dt))


def category(dt: np.dtype) -> int:
    return _CATEGORY[dt.kind]


def is_floating(dt: np.dtype) -> bool:
    return dt.kind == "f"


def promote_types(a: np.dtype, b: np.dtype) -> np.dtype:
    """``torch.promote_types``: the higher category wins outright; within a category
    the wider type (numpy agrees there: uint8 with int8 gives int16)."""
    if a == b:
        return a
    if a in _BAREBONES or b in _BAREBONES:
        # torch promotes its wider unsigned types only with a float type
        if a.kind == "f" or b.kind == "f":
            return a if a.kind == "f" else b
        raise TypeError(f"Promotion for uint16, uint32, uint64 types is not supported, "
                        f"attempted to promote {torch_name(a)} and {torch_name(b)}")
    ca, cb = _CATEGORY[a.kind], _CATEGORY[b.kind]
    if ca != cb:
        hi, lo = (a, b) if ca > cb else (b, a)
        if hi.kind == "c" and lo.kind == "f" and lo.itemsize * 2 > hi.itemsize:
            return np.dtype(np.complex128)  # complex64 with float64
        return hi
    return np.promote_types(a, b)


def _combine(higher, lower):
    """``combine_categories``: a lower priority class only counts when it is of a
    higher category than the result so far."""
    if higher is None:
        return lower
    if lower is None:
        return higher
    if _CATEGORY[higher.kind] >= 2 and _CATEGORY[higher.kind] >= _CATEGORY[lower.kind]:
        return higher
    if higher.kind == "b" or _CATEGORY[lower.kind] > _CATEGORY[higher.kind]:
        return promote_types(higher, lower)
    return higher


def scalar_dtype(x: Any) -> np.dtype:
    """The dtype torch gives a Python number taking part in a tensor operation."""
    if isinstance(x, bool):
        return BOOL
    if isinstance(x, int):
        return INT64
    if isinstance(x, complex):
        return np.dtype(np.complex64)
    return DEFAULT_FLOAT


def result_type(*operands: Any) -> np.dtype:
    """``torch.result_type`` of tensors (numpy arrays) and Python numbers."""
    dim = zero = wrapped = None
    for x in operands:
        if isinstance(x, (np.ndarray, np.generic)):
            dt = x.dtype
            if x.ndim:
                dim = dt if dim is None else promote_types(dim, dt)
            else:
                zero = dt if zero is None else promote_types(zero, dt)
        elif x is not None:
            dt = scalar_dtype(x)
            wrapped = dt if wrapped is None else promote_types(wrapped, dt)
    return _combine(dim, _combine(zero, wrapped))


def can_cast(src: np.dtype, dst: np.dtype) -> bool:
    """``c10::canCast``: anything but a cast to a lower category (complex to real,
    float to an integer, an integer to bool).  Narrowing within a category is
    allowed."""
    return _CATEGORY[src.kind] <= _CATEGORY[dst.kind] or src == dst


def check_cast(src: np.dtype, dst: np.dtype, name=torch_name) -> None:
    """Raise torch's error when a result of ``src`` cannot go into ``dst``
    (an in-place or ``out=`` operation); ``name`` spells the output's dtype
    (``torch_name``, or ``meta_name`` where torch prints its TypeMeta)."""
    if src != dst and not can_cast(src, dst):
        raise TypeError(f"result type {torch_name(src)} can't be cast to the desired output "
                        f"type {name(dst)}")
