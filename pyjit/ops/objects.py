"""Objects: ``prim::CreateObject``, ``prim::GetAttr`` and ``prim::SetAttr``.

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

A graph that makes an object of a TorchScript class (``C(a, b)`` in TorchScript)
creates it empty and sets its attributes, in ``__init__`` or, inlined, right
there::

    %c : __torch__.m.C = prim::CreateObject()
     = prim::SetAttr[name="a"](%c, %a)

pyjit makes a :class:`ScriptObject`: an instance of a Python class made for that
TorchScript class, named so that torch would name it the same
(``__torch__.m.C`` is class ``C`` of module ``m``,
:func:`pyjit.ir.types.class_type_name`), holding whatever the graph sets.
"""

from __future__ import annotations

import operator
import threading
from typing import Any, Callable, Dict

from ..ir import types as T
from ..ir.symbols import attribute_name_problem
from ..ir.types import class_type_name
from ..ir.type_relation import ValueMismatch, describe_value, value_checker
from ..registry import library as R

__all__ = ["get_attr", "set_attr", "ScriptObject", "object_class", "create_object"]


def _name(node) -> str:
    name = node.attrs.get("name") if node.attrs else None
    if not isinstance(name, str) or not name:
        raise ValueError(f"{node.kind} needs the attribute's name: {node.kind}[name=\"...\"]")
    problem = attribute_name_problem(name)
    if problem is not None:
        raise ValueError(f"{node.kind}: {problem}")
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


class ScriptObject:
    """An object of a TorchScript class that a graph made: its attributes are what
    the graph set (:func:`object_class` makes one subclass per TorchScript class)."""

    def __repr__(self) -> str:
        attrs = ", ".join(f"{k}={v!r}" for k, v in vars(self).items())
        return f"<{class_type_name(type(self))} object ({attrs})>"


_object_classes: Dict[str, type] = {}
_object_classes_lock = threading.Lock()


def object_class(name: str) -> type:
    """The :class:`ScriptObject` subclass of the TorchScript class ``name``
    (``__torch__.m.C``): one per name, so that objects of one class share it."""
    cls = _object_classes.get(name)
    if cls is None:
        module, _, short = name[len("__torch__."):].rpartition(".")
        with _object_classes_lock:
            cls = _object_classes.setdefault(name, type(short, (ScriptObject,), {
                "__module__": module or "__main__", "__qualname__": short}))
    return cls


def create_object(t: T.Type) -> Callable[[], Any]:
    """The ``prim::CreateObject`` operator making objects of class type ``t``."""
    if not (isinstance(t, T.NamedType) and t.name.startswith("__torch__.")):
        raise TypeError(f"prim::CreateObject makes an object of a TorchScript class "
                        f"(__torch__.<module>.<class>), not of {t}")
    return object_class(t.name)


R.register("prim::CreateObject", factory=lambda node: create_object(node.outputs[0].type),
           types=[])
R.register("prim::GetAttr", factory=lambda node: get_attr(_name(node), node.outputs[0].type),
           types=["Any"])
R.register("prim::SetAttr", factory=lambda node: set_attr(_name(node)), types=["Any", "Any"])
