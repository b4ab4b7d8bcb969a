"""Implicit conversions of a tensor to a number: ``aten::IntImplicit``,
``FloatImplicit`` and ``ScalarImplicit``.

torch inserts them where a tensor is passed for a number, e.g. ``x.unsqueeze(t)``
with a tensor ``t``::

    %d : int = aten::IntImplicit(%t)
    %y : Tensor = aten::unsqueeze(%x, %d)

Only a 0-dim tensor converts (and, to an int, only one of an integer dtype); the
checks and their messages are torch's ``checkImplicitTensorToNum``.  The number is
the tensor's single element: an int, a float, or for ``ScalarImplicit`` whichever
of int, float or bool the dtype holds.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..registry import library as R
from .dtypes import torch_name

__all__ = ["int_implicit", "float_implicit", "scalar_implicit"]


def _check(t: Any, to_int: bool) -> np.ndarray:
    a = np.asarray(t)
    # (A tensor that requires grad is refused too; numpy arrays never do.)
    if a.ndim != 0:
        raise ValueError("Cannot input a tensor of dimension other than 0 as a scalar argument")
    if to_int and a.dtype.kind not in "iu":
        raise ValueError(f"Cannot input a tensor of type {torch_name(a.dtype)} as an integral "
                         f"argument")
    return a


def int_implicit(t: Any) -> int:
    return int(_check(t, to_int=True))


def float_implicit(t: Any) -> float:
    return float(_check(t, to_int=False))


def scalar_implicit(t: Any) -> Any:
    return _check(t, to_int=False).item()


R.implement("aten::IntImplicit", int_implicit)
R.implement("aten::FloatImplicit", float_implicit)
R.implement("aten::ScalarImplicit", scalar_implicit)
