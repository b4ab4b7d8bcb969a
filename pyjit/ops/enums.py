"""Enums: the members of Python ``enum.Enum`` classes, as TorchScript uses them.

A TorchScript enum value is a member of a Python enum class; its type names the
class as torch does (``Enum<__torch__.Color>``, :func:`pyjit.ir.types.class_type_name`).
A graph reads a member's name and value, and compares members::

    %v : int = prim::EnumValue(%x)          x.value (an int, float or str enum)
    %n : str = prim::EnumName(%x)           x.name
    %b : bool = aten::eq(%x, %y)            x is y: the same member of the same class

Members a graph names as constants (``prim::Constant[value=__torch__.Color.RED]``)
come from the enum classes of its compilation unit
(:func:`pyjit.codegen.constants.enum_members`); ``isinstance(x, Color)`` is
:func:`pyjit.ir.type_relation.instance_check`'s.
"""

from __future__ import annotations

import enum
import operator

from ..registry import library as R

__all__ = ["enum_value", "enum_name", "same_member", "other_member"]

#: ``prim::EnumValue``: the member's value.
enum_value = operator.attrgetter("value")
#: ``prim::EnumName``: the member's name.
enum_name = operator.attrgetter("name")


def same_member(a: enum.Enum, b: enum.Enum) -> bool:
    """``aten::eq.enum``: torch compares a member's class and name, never its value
    alone (``Foo.ITEM1 == Bar.ITEM1`` is false, although both are 1; an
    ``IntEnum``'s own ``==`` would say true).  Members are singletons: the same
    class and name is the same object."""
    return a is b


def other_member(a: enum.Enum, b: enum.Enum) -> bool:
    """``aten::ne.enum``: not :func:`same_member`."""
    return a is not b


R.register("prim::EnumValue", enum_value, types=["AnyEnumType"])
R.implement("prim::EnumName", enum_name)
R.implement("aten::eq.enum", same_member)
R.implement("aten::ne.enum", other_member)
