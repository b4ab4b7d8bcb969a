"""The runtime value of a ``prim::Constant`` node.

The code generator turns every ``prim::Constant`` into a CONST instruction holding
``constant_value(node)``; the evaluators of :mod:`pyjit.benchmarks` read constants
the same way.  The value comes from the node's ``value`` attribute, read
in the light of the output's type, because torch's attributes are coarser than its
types::

    %a : bool = prim::Constant[value=1]()          True   (bools are int attributes)
    %b : float = prim::Constant[value=3.]()        3.0
    %c : NoneType = prim::Constant()               None   (no attribute at all)
    %d : str = prim::Constant[value="x"]()         'x'
    %e : int[] = prim::Constant[value=[1, 2]]()    [1, 2]
    %f : bool[] = prim::Constant[value=[0, 1]]()   [False, True]
    %g : Float(...) = prim::Constant[value={1.5}]()  numpy.float32 0-d array
    %h : Device = prim::Constant[value="cpu"]()    'cpu'  (opaque values stay strings)
    %i : Function = prim::Constant[name="f"]()     'f'    (the one attribute's value)

Tensor literals are read with :meth:`pyjit.ir.literals.TensorLiteral.value`,
except a :class:`~pyjit.ir.literals.TensorValue` (from :func:`pyjit.from_torch`),
which holds torch's exact values and dtype and is taken as it is.  A
refined output type (``Float(...)``, ``Long(...)``) gives their dtype, since the
one-element form ``{1.5}`` does not print it (torch's default float32 otherwise
applies to a float literal).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import types as T
from .literals import TensorValue

__all__ = ["constant_value"]

_TENSOR_SCALARS = {
    "Float": np.float32, "Double": np.float64, "Half": np.float16, "Long": np.int64,
    "Int": np.int32, "Short": np.int16, "Char": np.int8, "Byte": np.uint8, "Bool": np.bool_,
}


def _convert(value: Any, t: T.Type) -> Any:
    if isinstance(t, T.OptionalType):
        return None if value is None else _convert(value, t.elem)
    if t == T.BOOL:
        return bool(value)
    if t == T.FLOAT and isinstance(value, (int, float)):
        return float(value)
    if t == T.INT and isinstance(value, (int, float)):
        return int(value)
    if isinstance(t, T.ListType) and isinstance(value, (list, tuple)):
        return [_convert(v, t.elem) for v in value]
    if isinstance(t, T.TupleType) and isinstance(value, (list, tuple)):
        return tuple(_convert(v, e) for v, e in zip(value, t.elems))
    if isinstance(t, T.TensorType) or hasattr(value, "value") and hasattr(value, "text"):
        return _tensor(value, t)
    return value


def _tensor(value: Any, t: T.Type) -> Any:
    if isinstance(value, TensorValue):
        return value.array  # exact values and dtype, from torch itself
    if isinstance(value, np.ndarray):
        array = value
    elif hasattr(value, "value") and callable(value.value):
        array = value.value()
    else:
        return value
    scalar = getattr(t, "scalar", None)
    if scalar in _TENSOR_SCALARS:
        return np.asarray(array, dtype=_TENSOR_SCALARS[scalar])
    if array.dtype == np.float64 and array.ndim == 0:
        # ``{1.5}`` does not say its dtype; torch's default is float32.
        return array.astype(np.float32)
    return np.asarray(array)


def constant_value(node) -> Any:
    """The value a ``prim::Constant`` node stands for (see the module docstring)."""
    if not node.outputs:
        raise ValueError("prim::Constant without an output")
    t = node.outputs[0].type
    if "value" not in node.attrs:
        if node.attrs:
            # An opaque constant such as ``Function = prim::Constant[name="f"]``
            # (left behind by inlining): its attribute text stands for it.
            return next(iter(node.attrs.values()))
        if t != T.NONE and not isinstance(t, T.OptionalType):
            raise ValueError(f"prim::Constant of type {t} has no value attribute")
        return None
    return _convert(node.attrs["value"], t)
