"""Node kinds, and the names of attributes.

A kind is a qualified string ``namespace::name`` (``prim::If``, ``aten::add``), the
way torch spells its ``Symbol``s.  Python strings are interned and compare by
value, so a kind needs no class of its own; this module only names the kinds the
interpreter itself relies on, so that a typo is an AttributeError rather than a
silently unmatched string.
"""

from __future__ import annotations

import re
from typing import Any, Optional

__all__ = ["prim", "aten", "namespace_of", "unqualified", "is_qualified",
           "attribute_name_problem"]


class prim:
    """Kinds of the ``prim`` namespace that pyjit's passes and code generator use."""

    Param = "prim::Param"
    Return = "prim::Return"
    Constant = "prim::Constant"
    If = "prim::If"
    Loop = "prim::Loop"
    Load = "prim::Load"
    Store = "prim::Store"
    Drop = "prim::Drop"
    Assign = "prim::Assign"
    Jump = "prim::Jump"
    JumpZ = "prim::JumpZ"
    JumpNZ = "prim::JumpNZ"
    Placeholder = "prim::Placeholder"
    fork = "prim::fork"
    awaitable = "prim::awaitable"
    RaiseException = "prim::RaiseException"
    PythonOp = "prim::PythonOp"
    TupleConstruct = "prim::TupleConstruct"
    CallFunction = "prim::CallFunction"
    CallMethod = "prim::CallMethod"
    GetAttr = "prim::GetAttr"
    SetAttr = "prim::SetAttr"


class aten:
    """Kinds of the ``aten`` namespace that pyjit's passes emit."""

    lt = "aten::lt"
    add = "aten::add"
    __and__ = "aten::__and__"
    wait = "aten::wait"


def is_qualified(kind: str) -> bool:
    """True for ``ns::name`` with a non-empty namespace and name."""
    ns, sep, name = kind.partition("::")
    return bool(sep and ns and name)


def namespace_of(kind: str) -> str:
    """``"aten::add"`` -> ``"aten"``."""
    return kind.partition("::")[0]


def unqualified(kind: str) -> str:
    """``"aten::add"`` -> ``"add"`` (the seed's ``toUnqualString``)."""
    return kind.partition("::")[2]


# TorchScript attribute names: identifiers (a class's private "__a" too), and a
# module container's keys (ModuleList's "0", ModuleDict's "conv-1"): no dot, no
# __dunder__, printable.
_ATTRIBUTE = re.compile(r"(?!__.*__\Z)[^.\s\x00-\x1f\x7f]+", re.S)


def attribute_name_problem(name: Any, max_chars: int = 256) -> Optional[str]:
    """Why ``name`` cannot be an attribute's name (``prim::GetAttr[name=...]``, an
    archive class's declaration), or None if it can.

    An attribute name has no dot and is no ``__dunder__``: graphs and archives may
    come from anyone, and such a name would reach Python's own attributes
    (``__class__``, ``__globals__``) or, followed by dots, anything from there.
    """
    if not isinstance(name, str):
        return f"an attribute name must be a str, not {type(name).__name__}"
    if len(name) > max_chars:
        return f"an attribute name of {len(name)} characters (at most {max_chars})"
    if not _ATTRIBUTE.fullmatch(name):
        return (f"{name[:80]!r} is not a TorchScript attribute name (no dots, spaces or "
                "control characters, and no __dunder__)")
    return None
