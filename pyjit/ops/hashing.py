"""``hash(x)`` in TorchScript: ``aten::hash``, as torch's ``IValue::hash``.

==========================  =====================================================
None                        0
bool, int                   the value itself (``std::hash`` of an integer)
float                       by its bits, except that 0.0 and -0.0 hash alike:
                            ``hash(nan) == hash(nan)``, unlike Python's
str                         by its bytes
Tensor                      by identity: two equal tensors hash differently
tuple                       by its elements'
list, dict (in a tuple too) ``unhashable type: 'List[int]'`` (torch's error, at run
                            time: the graph compiles)
==========================  =====================================================

The integers are torch's for None, bools and ints; for the rest, hashes are equal
exactly when torch's are (what programs compare), not the same numbers.
"""

from __future__ import annotations

import struct
from typing import Any, Callable, Optional

import numpy as np

from ..ir import types as T
from ..registry import library as R

__all__ = ["torch_hash", "hash_operator"]

_INT64 = 1 << 64


def _signed(h: int) -> int:
    h %= _INT64
    return h - _INT64 if h >= 1 << 63 else h


def torch_hash(value: Any) -> int:
    """The hash of a TorchScript value (one whose type holds no list or dict)."""
    if value is None:
        return 0
    if isinstance(value, (bool, int)):
        return int(value)
    if isinstance(value, float):
        bits = 0 if value == 0.0 else struct.unpack("<q", struct.pack("<d", value))[0]
        return _signed(hash(("float", bits)))
    if isinstance(value, str):
        return _signed(hash(("str", value)))
    if isinstance(value, np.ndarray):
        return id(value)
    if isinstance(value, tuple):
        return _signed(hash(tuple(torch_hash(v) for v in value)))
    raise TypeError(f"unhashable type: '{type(value).__name__}'")


def _unhashable(t: T.Type) -> Optional[T.Type]:
    """The first list or dict type in ``t`` (depth first), which torch cannot hash."""
    if isinstance(t, (T.ListType, T.DictType)):
        return t
    for inner in t.contained() if isinstance(t, T.TupleType) else ():
        found = _unhashable(inner)
        if found is not None:
            return found
    return None


def hash_operator(t: T.Type) -> Callable[[Any], int]:
    """``aten::hash`` of a value of type ``t``."""
    bad = _unhashable(t)
    if bad is None:
        return torch_hash
    message = f"unhashable type: '{T.annotation_str(bad)}'"

    def unhashable(value: Any) -> int:
        raise RuntimeError(message)
    return unhashable


R.implement("aten::hash.generic", factory=lambda node: hash_operator(node.inputs[0].type))
