"""Attributes of objects: ``prim::GetAttr`` and ``prim::SetAttr``.

A module's methods read and write the attributes of ``self`` (its parameters,
submodules, counters...)::

    %w : Tensor = prim::GetAttr[name="w"](%self)
     = prim::SetAttr[name="count"](%self, %n)

pyjit runs them on any Python object: ``getattr``/``setattr`` with the node's
name, chosen when the Code is built (``operator.attrgetter("w")`` runs from C).
A name that is an index reads an item of a list or tuple, so a plain Python list
of modules stands for a ``ModuleList`` (torch prints its modules as attributes
``"0"``, ``"1"``...); an object that has such an attribute keeps it.

TorchScript's objects hold what their class declares; a Python object may hold
anything, so a read checks the value against the type the graph gives it (as a
scripted function checks its arguments: an ``int`` where a ``float`` is
declared becomes a float), except for an object of a class, which is read as it
is (its own attributes are checked when they are read).  A missing attribute is
the object's own ``AttributeError``, a value of another type a ``TypeError``
naming the attribute; the interpreter reports either with the node's location,
as any failing operator.  (The method calls
on objects, ``prim::CallMethod``, are calls between graphs: see
:mod:`pyjit.codegen.calls`.)
"""

from __future__ import annotations

import operator
from typing import Any, Callable

from ..ir import types as T
from ..ir.type_relation import ValueMismatch, describe_value, value_checker
from ..registry import default_registry as R

__all__ = ["get_attr", "set_attr"]


def _name(node) -> str:
    name = node.attrs.get("name") if node.attrs else None
    if not isinstance(name, str) or not name:
        raise ValueError(f"{node.kind} needs the attribute's name: {node.kind}[name=\"...\"]")
    return name


def get_attr(name: str, t: T.Type = T.ANY) -> Callable[[Any], Any]:
    """The ``prim::GetAttr[name=name]`` operator, of a value declared ``t``."""
    get = _item_or_attribute(name) if name.isdigit() else operator.attrgetter(name)
    if not _checked(t):
        return get

    # A container's own type only: its items are the graph's to read.
    check = value_checker(t, items=False)

    def get_checked(obj: Any) -> Any:
        value = get(obj)
        try:
            return check(value)
        except ValueMismatch as m:
            detail = f" ({m.reason})" if m.reason else ""
            raise TypeError(f"attribute '{name}': expected {t}, got "
                            f"{describe_value(value)}{detail}") from None

    get_checked.__name__ = f"get_attr_{name}"
    return get_checked


def _item_or_attribute(name: str) -> Callable[[Any], Any]:
    index, attr = int(name), operator.attrgetter(name)

    def item_or_attribute(obj: Any) -> Any:
        return obj[index] if isinstance(obj, (list, tuple)) else attr(obj)

    item_or_attribute.__name__ = f"get_attr_{name}"
    return item_or_attribute


def _checked(t: T.Type) -> bool:
    """Whether a read of a value declared ``t`` is checked: all but ``Any`` and
    objects of classes (duck-typed: their attributes are checked when read)."""
    return t != T.ANY and not (isinstance(t, T.NamedType) and "." in t.name)


def set_attr(name: str) -> Callable[[Any, Any], None]:
    """The ``prim::SetAttr[name=name]`` operator."""
    def set_attribute(obj: Any, value: Any) -> None:
        setattr(obj, name, value)

    set_attribute.__name__ = f"set_attr_{name}"
    return set_attribute


R.register("prim::GetAttr", factory=lambda node: get_attr(_name(node), node.outputs[0].type),
           types=["Any"])
R.register("prim::SetAttr", factory=lambda node: set_attr(_name(node)), types=["Any", "Any"])
