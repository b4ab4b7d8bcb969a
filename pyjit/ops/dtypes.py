"""torch's dtypes on numpy: ScalarType codes and torch's type promotion.

Graphs name dtypes by torch's ``ScalarType`` integer (``dtype=torch.int64`` prints as
``%d : int = prim::Constant[value=4]()``); :data:`SCALAR_TYPES` maps those codes to
numpy dtypes.  The default dtype is float32, as in torch.

Type promotion follows torch (``c10::promoteTypes`` and ``at::result_type``), not
numpy, where the two differ:

* a float type beats any integer type whatever their sizes: ``int64 + float32`` is
  float32 (numpy says float64);
* operands come in three priority classes: tensors with dimensions, zero-dim
  tensors, and Python numbers.  A lower class only changes the result when it is
  of a higher *category* (bool < integer < floating), so ``float32[3] + float64[]``
  stays float32 and ``int64[3] * 2.5`` is float32 (the default dtype), while
  ``int32[3] + 5`` stays int32.
"""

from __future__ import annotations

from typing import Any, Dict

import numpy as np

__all__ = ["SCALAR_TYPES", "TYPE_NAMES", "DEFAULT_FLOAT", "to_dtype", "promote_types", "result_type",
           "category", "is_floating", "INT64", "BOOL"]

DEFAULT_FLOAT = np.dtype(np.float32)
INT64 = np.dtype(np.int64)
BOOL = np.dtype(np.bool_)

#: torch's ScalarType enum (c10/core/ScalarType.h) for the dtypes numpy has.
SCALAR_TYPES: Dict[int, np.dtype] = {
    0: np.dtype(np.uint8),
    1: np.dtype(np.int8),
    2: np.dtype(np.int16),
    3: np.dtype(np.int32),
    4: INT64,
    5: np.dtype(np.float16),
    6: DEFAULT_FLOAT,
    7: np.dtype(np.float64),
    9: np.dtype(np.complex64),
    10: np.dtype(np.complex128),
    11: BOOL,
}

#: torch's name of each dtype (``ScalarType``'s), as its messages print it.
TYPE_NAMES: Dict[np.dtype, str] = {
    np.dtype(np.float32): "Float", np.dtype(np.float64): "Double",
    np.dtype(np.float16): "Half", INT64: "Long", np.dtype(np.int32): "Int",
    np.dtype(np.int16): "Short", np.dtype(np.int8): "Char", np.dtype(np.uint8): "Byte",
    BOOL: "Bool", np.dtype(np.complex64): "ComplexFloat",
    np.dtype(np.complex128): "ComplexDouble",
}

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


def category(dt: np.dtype) -> int:
    return _CATEGORY[dt.kind]


def is_floating(dt: np.dtype) -> bool:
    return dt.kind == "f"


def promote_types(a: np.dtype, b: np.dtype) -> np.dtype:
    """``torch.promote_types``: the higher category wins outright; within a category
    the wider type (numpy agrees there: uint8 with int8 gives int16)."""
    if a == b:
        return a
    ca, cb = _CATEGORY[a.kind], _CATEGORY[b.kind]
    if ca != cb:
        return a if ca > cb else b
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
        else:
            dt = scalar_dtype(x)
            wrapped = dt if wrapped is None else promote_types(wrapped, dt)
    return _combine(dim, _combine(zero, wrapped))
