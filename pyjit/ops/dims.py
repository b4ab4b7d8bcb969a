"""Dimensions and shapes as torch checks them, for every tensor operator family.

torch numbers dimensions from ``-ndim`` to ``ndim - 1`` and lets a 0-dim tensor
take ``dim=0`` or ``-1``; it names shapes as lists (``[2, 3]``) in its messages,
and says which dimension failed to broadcast.  numpy's messages say none of that,
so operators check (or translate numpy's failure) here.
"""

from __future__ import annotations

from typing import Any, Optional, Sequence, Tuple

import numpy as np

__all__ = ["wrap_dim", "wrap_dims", "reduce_axes", "shape_list", "broadcast_shapes",
           "as_array", "check_inplace_shape"]

_ndarray = np.ndarray


def as_array(x: Any) -> np.ndarray:
    """``x`` as an array: a numpy scalar or Python number becomes a 0-dim array
    (pyjit's tensors are always ``ndarray``s, never numpy scalars)."""
    return x if type(x) is _ndarray else np.asarray(x)


def wrap_dim(dim: int, ndim: int) -> int:
    """A dimension index in ``[0, ndim)``, from torch's ``[-ndim, ndim-1]`` (a 0-dim
    tensor accepts -1 and 0)."""
    n = ndim if ndim > 0 else 1
    if not -n <= dim < n:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], "
                         f"but got {dim})")
    return dim + n if dim < 0 else dim


def wrap_dims(dims: Sequence[int], ndim: int) -> Tuple[int, ...]:
    """Several dimensions, each wrapped; a repeated one is torch's error."""
    out = tuple(wrap_dim(d, ndim) for d in dims)
    if len(set(out)) != len(out):
        for i, d in enumerate(out):
            if d in out[:i]:
                raise ValueError(f"dim {d} appears multiple times in the list of dims")
    return out


def reduce_axes(dim: Any, ndim: int) -> Optional[Tuple[int, ...]]:
    """torch's ``dim`` argument of a reduction as numpy's ``axis``: ``None`` or an
    empty list reduce everything; a 0-dim tensor reduces over nothing (``axis=None``
    gives the same 0-dim result)."""
    if dim is None:
        return None
    dims = (dim,) if isinstance(dim, int) else tuple(dim)
    if not dims:
        return None
    axes = wrap_dims(dims, ndim)
    return axes if ndim else None


def shape_list(shape: Sequence[int]) -> str:
    """``[2, 3]``: a shape as torch prints it."""
    return "[" + ", ".join(map(str, shape)) + "]"


def broadcast_shapes(*shapes: Sequence[int]) -> Tuple[int, ...]:
    """The shape operands broadcast to, failing as torch's ``infer_size`` does."""
    n = max((len(s) for s in shapes), default=0)
    out = [1] * n
    for s in shapes:
        for i, size in enumerate(s, n - len(s)):
            if size != out[i] and size != 1:
                if out[i] != 1:
                    raise ValueError(f"The size of tensor a ({out[i]}) must match the size of "
                                     f"tensor b ({size}) at non-singleton dimension {i}")
                out[i] = size
            elif size == 0:
                out[i] = 0
    return tuple(out)


def check_inplace_shape(target: Tuple[int, ...], *others: Any) -> None:
    """An in-place or ``out=`` result must keep ``target``'s shape: broadcasting may
    not grow it."""
    shapes = [x.shape for x in others if type(x) is _ndarray and x.shape != target]
    if shapes:
        full = broadcast_shapes(target, *shapes)
        if full != target:
            raise ValueError(f"output with shape {shape_list(target)} doesn't match the "
                             f"broadcast shape {shape_list(full)}")
