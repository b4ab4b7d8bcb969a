"""How a ``prim::Constant``'s value is made available to a run.

Immutable values are shared by every run (a tensor as a read-only view, so an
operator writing into it fails instead of changing what the next run sees); a
list or dict is copied on every load, since a graph may append to it.  Both
lowerings ask here.
"""

from __future__ import annotations

import copy
import functools
from typing import Any, Callable

import numpy as np

__all__ = ["is_mutable", "fresh_copy", "shared"]


def is_mutable(value: Any) -> bool:
    """A value a graph may change in place (and so must not share between runs)."""
    return isinstance(value, (list, dict))


def fresh_copy(value: Any) -> Callable[[], Any]:
    """A callable returning a new copy of a list or dict constant on each call."""
    flat = all(isinstance(v, (int, float, str, bool, type(None), tuple))
               for v in (value.values() if isinstance(value, dict) else value))
    if flat:
        return value.copy  # a bound C method: no Python frame per load
    return functools.partial(copy.deepcopy, value)


def shared(value: Any) -> Any:
    """An immutable constant as every run sees it: tensors read-only."""
    if isinstance(value, np.ndarray):
        value = value.view()
        value.flags.writeable = False
    return value
