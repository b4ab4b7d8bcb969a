"""Operators whose meaning changed since an archive was written, read with the
meaning it had then (torch's *upgraders*).

An archive's format version says which operator semantics its code was written
for (:mod:`.reader`).  Before version 4, ``torch.div`` of two integer operands
rounded toward zero; torch now divides exactly and loads old archives through
an upgrader that keeps the old result, which pyjit emits the same way::

    torch.div(a, b)                     %f = aten::is_floating_point(%a)  (or of %b)
      (version 3)                       %r = prim::If(%f)
                                          block0(): aten::div(%a, %b)
                                          block1(): aten::div(%a, %b, "trunc")

With a number as the divisor, a float divisor divides exactly too.  The
in-place ``div_`` is upgraded alike.  Before version 5, ``torch.full`` with no
dtype made a float tensor whatever its fill value (the value goes through
``aten::Float`` first).
"""

from __future__ import annotations

from typing import Any, Callable, Dict, List, Optional

from ..ir import Value
from ..ir import types as T

__all__ = ["upgrader"]

def upgrader(kind: str, version: int) -> Optional[Callable]:
    """The upgrader of ``kind`` for an archive of ``version``, or None."""
    found = _UPGRADERS.get(kind)
    return found[1] if found is not None and version < found[0] else None


def _div_0_3(c: Any, kind: str, args: List[Value], kwargs: Dict[str, Value], at: Any) -> Any:
    """``div``/``div_`` of a version 3 archive: true division when either operand
    is floating point, else rounding toward zero (``c`` is the compiler)."""
    if len(args) != 2 or kwargs or not isinstance(args[0].type, T.TensorType):
        return c.op(kind, args, kwargs, at, upgrade=False)   # div.int, explicit modes...
    a, b = args
    if isinstance(b.type, T.TensorType):
        floating = c.b.value_if(
            c.op("aten::is_floating_point", [a], {}, at),
            lambda: c.b.const(True, at),
            lambda: c.op("aten::is_floating_point", [b], {}, at), at)
    else:
        floating = c.b.const(b.type != T.INT, at)
    trunc = c.b.const("trunc", at)
    return c.b.value_if(floating, lambda: c.op(kind, [a, b], {}, at, upgrade=False),
                        lambda: c.op(kind, [a, b], {"rounding_mode": trunc}, at, upgrade=False),
                        at)


def _full_0_4(c: Any, kind: str, args: List[Value], kwargs: Dict[str, Value], at: Any) -> Any:
    """``torch.full(size, fill)`` of an archive before version 5: without a dtype,
    a float tensor."""
    dtype = kwargs.get("dtype")
    if len(args) == 2 and (dtype is None or dtype.type == T.NONE) and \
            args[1].type in (T.INT, T.BOOL, T.NUMBER):
        args = [args[0], c.op("aten::Float", [args[1]], {}, at)]
    return c.op(kind, args, kwargs, at, upgrade=False)


#: Each upgraded operator: the first format version with today's meaning, and
#: the upgrader for the versions before it.
_UPGRADERS = {"aten::div": (4, _div_0_3), "aten::div_": (4, _div_0_3),
              "aten::full": (5, _full_0_4)}
