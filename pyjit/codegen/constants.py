"""How a ``prim::Constant``'s value is made available to a run.

Immutable values are shared by every run (a tensor as a read-only view, so an
operator writing into it fails instead of changing what the next run sees); a
list or dict (or a tuple holding one) is copied on every load, since a graph may
append to it.  Both lowerings ask here, and read the value with :func:`value_of`,
which names the node when the value cannot be made.
"""

from __future__ import annotations

import functools
from typing import Any, Callable

import numpy as np

from ..ir import IRError, Node
from ..ir import types as T
from ..ir.graph import copy_attribute
from ..ir.constants import constant_value

__all__ = ["is_mutable", "fresh_copy", "shared", "value_of", "enum_members", "check_wait"]


def is_mutable(value: Any) -> bool:
    """A value a graph may change in place (and so must not share between runs): a
    list or dict, or a tuple holding one at any depth (``(1, [2, 3])``)."""
    if isinstance(value, (list, dict)):
        return True
    if isinstance(value, tuple):
        return any(is_mutable(v) for v in value)
    return False


def fresh_copy(value: Any) -> Callable[[], Any]:
    """A callable returning a new copy of a mutable constant on each call: every
    list and dict in it new, the immutable leaves (and tensors) shared."""
    if isinstance(value, (list, dict)):
        items = value.values() if isinstance(value, dict) else value
        if not any(is_mutable(v) for v in items):
            return value.copy  # flat: a bound C method, no Python frame per load
    # A constant holds no graph, so copy_attribute (an attribute's copy: graphs
    # copied, containers rebuilt, the rest shared) rebuilds exactly its lists,
    # dicts and tuples.  Constants nest at most 100 deep (the parser's limit):
    # its recursion is bounded.
    return functools.partial(copy_attribute, value)


def value_of(node: Node, unit: Any = None) -> Any:
    """``constant_value(node)``, its enum members looked up in ``unit``
    (:func:`enum_members`), or an :class:`~pyjit.ir.IRError` naming the node and
    its location when the table cannot hold it (``<Tensor>``: no values; not
    exactly one output; an enum class the unit does not define)."""
    if len(node.outputs) != 1:
        raise IRError.at(node, f"prim::Constant has one output, not {len(node.outputs)}")
    try:
        value = constant_value(node)
        t = node.outputs[0].type
        return enum_members(value, t, unit) if _has_enum(t) else value
    except (ValueError, TypeError, OverflowError, LookupError) as exc:
        raise IRError.at(node, f"bad constant: {exc}") from exc


def _has_enum(t: T.Type) -> bool:
    return isinstance(t, T.EnumType) or any(_has_enum(c) for c in t.contained())


def enum_members(value: Any, t: T.Type, unit: Any) -> Any:
    """``value`` with each enum member torch printed by name (a
    :class:`~pyjit.ir.literals.Literal` ``__torch__.Color.RED`` where ``t`` says
    ``Enum<__torch__.Color>``) replaced by the member of the Python enum class the
    unit defines for it (``unit.find_enum``, :class:`pyjit.CompilationUnit`'s
    ``enums``): graphs never print a member's value.

    Raises:
        LookupError: no unit, no such class in it, or no such member.
    """
    if isinstance(t, T.EnumType):
        cls = getattr(unit, "find_enum", lambda name: None)(t.name)
        if cls is None:
            raise LookupError(f"{value.text} is a member of enum {t.name}, which "
                              + ("the compilation unit does not define" if unit is not None
                                 else "only a compilation unit can define "
                                      "(pyjit.CompilationUnit(..., enums=[...]))"))
        member = value.text.rpartition(".")[2]
        if member not in cls.__members__:
            raise LookupError(f"enum {t.name} has no member {member}")
        return cls[member]
    if isinstance(t, T.OptionalType):
        return None if value is None else enum_members(value, t.elem, unit)
    if isinstance(t, T.ListType):
        return [enum_members(v, t.elem, unit) for v in value]
    if isinstance(t, T.TupleType):
        return tuple(enum_members(v, e, unit) for v, e in zip(value, t.elems))
    if isinstance(t, T.DictType):
        return {enum_members(k, t.key, unit): enum_members(v, t.value, unit)
                for k, v in value.items()}
    return value


def check_wait(node: Node) -> None:
    """``aten::wait`` is an instruction of its own: one future in, its value out."""
    if len(node.inputs) != 1 or len(node.outputs) != 1:
        raise IRError.at(node, f"aten::wait takes one future and has one output, not "
                               f"{len(node.inputs)} input(s) and {len(node.outputs)} "
                               "output(s)")


def shared(value: Any) -> Any:
    """An immutable constant as every run sees it: tensors read-only."""
    if isinstance(value, np.ndarray):
        value = value.view()
        value.flags.writeable = False
    return value
