"""Node kinds.

A kind is a qualified string ``namespace::name`` (``prim::If``, ``aten::add``), the
way torch spells its ``Symbol``s.  Python strings are interned and compare by
value, so a kind needs no class of its own; this module only names the kinds the
interpreter itself relies on, so that a typo is an AttributeError rather than a
silently unmatched string.
"""

from __future__ import annotations

__all__ = ["prim", "aten", "namespace_of", "unqualified", "is_qualified"]


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
