"""The bounds of ``aten::slice`` on lists and strings, shared by both families."""

from __future__ import annotations

from typing import Optional

__all__ = ["torch_slice"]

_INT64_MAX = 2 ** 63 - 1


def torch_slice(start: Optional[int], end: Optional[int], step: int) -> slice:
    """The Python slice that ``aten::slice`` of a list or str takes: torch's
    ``slice_indices_adjust`` reads a bound of INT64_MAX as "none" (TorchScript
    passes ``slice(None, None, -2)`` as ``0, INT64_MAX, -2``, which takes the
    first element only) and refuses a zero step in its own words; otherwise
    Python's rules are torch's."""
    if step == 0:
        raise ValueError("List slice should have non-zero step")
    return slice(None if start == _INT64_MAX else start, None if end == _INT64_MAX else end,
                 step)
