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

A missing attribute is the object's own ``AttributeError``; the interpreter
reports it with the node's location, as any failing operator.  (The method calls
on objects, ``prim::CallMethod``, are calls between graphs: see
:mod:`pyjit.codegen.calls`.)
"""

from __future__ import annotations

import operator
from typing import Any, Callable

from ..registry import default_registry as R

__all__ = ["get_attr", "set_attr"]


def _name(node) -> str:
    name = node.attrs.get("name") if node.attrs else None
    if not isinstance(name, str) or not name:
        raise ValueError(f"{node.kind} needs the attribute's name: {node.kind}[name=\"...\"]")
    return name


def get_attr(name: str) -> Callable[[Any], Any]:
    """The ``prim::GetAttr[name=name]`` operator."""
    if not name.isdigit():
        return operator.attrgetter(name)
    index = int(name)
    plain = operator.attrgetter(name)

    def get_item_or_attr(obj: Any) -> Any:
        if isinstance(obj, (list, tuple)):
            return obj[index]
        return plain(obj)

    get_item_or_attr.__name__ = f"get_attr_{name}"
    return get_item_or_attr


def set_attr(name: str) -> Callable[[Any, Any], None]:
    """The ``prim::SetAttr[name=name]`` operator."""
    def set_attribute(obj: Any, value: Any) -> None:
        setattr(obj, name, value)

    set_attribute.__name__ = f"set_attr_{name}"
    return set_attribute


R.register("prim::GetAttr", factory=lambda node: get_attr(_name(node)), types=["Any"])
R.register("prim::SetAttr", factory=lambda node: set_attr(_name(node)), types=["Any", "Any"])
