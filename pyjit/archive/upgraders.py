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
in-place ``div_`` is upgraded alike.
"""

from __future__ import annotations

from typing import Any, Callable, Dict, List, Optional

from ..ir import Value
from ..ir import types as T

__all__ = ["upgrader"]

#: The first format version with today's meaning of each upgraded operator.
_SINCE = {"aten::div": 4, "aten::div_": 4}


def upgrader(kind: str, version: int) -> Optional[Callable]:
    """The upgrader of ``kind`` for an archive of ``version``, or None."""
    since = _SINCE.get(kind)
    return _div_0_3 if since is not None and version < since else None


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
