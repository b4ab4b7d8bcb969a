"""Enums: the programs of test/jit/test_enum.py."""
# flake8: noqa
from enum import Enum
from typing import Any, List

from suite import program

E = "test/jit/test_enum.py::TestEnum::"


class IntEnum(Enum):
    FOO = 1
    BAR = 2


class FloatEnum(Enum):
    FOO = 1.2
    BAR = 2.3


class StringEnum(Enum):
    FOO = "foo as in foo bar"
    BAR = "bar as in foo bar"


class Color(Enum):
    RED = 1
    GREEN = 2


class Foo(Enum):
    ITEM1 = 1
    ITEM2 = 2


class Bar(Enum):
    ITEM1 = 1
    ITEM2 = 2


class Color3(Enum):
    RED = 1
    GREEN = 2
    PURPLE = 3


@program(E + "test_enum_value_types", (IntEnum.FOO, FloatEnum.BAR, StringEnum.FOO))
def supported_enum_types(a: IntEnum, b: FloatEnum, c: StringEnum):
    return (a.name, b.name, c.name)


@program(E + "test_enum_comp", (Color.RED, Color.RED), (Color.RED, Color.GREEN))
def enum_comp(x: Color, y: Color) -> bool:
    return x == y


@program(E + "test_enum_comp_diff_classes", (Foo.ITEM1,))
def enum_comp_diff_classes(x: Foo) -> bool:
    return x == Bar.ITEM1


@program(E + "test_enum_name", (Color.RED,), (Color.GREEN,))
def enum_name(x: Color) -> str:
    return x.name


@program(E + "test_enum_value", (Color.RED,), (Color.GREEN,))
def enum_value(x: Color) -> int:
    return x.value


@program(E + "test_enum_as_const", (Color.RED,), (Color.GREEN,))
def enum_const(x: Color) -> bool:
    return x == Color.RED


@program(E + "test_enum_ivalue_type", (Color.RED,), (Color.GREEN,), (1,))
def is_color_enum(x: Any):
    return isinstance(x, Color)


a = Color
b = Color.RED


@program(E + "test_closed_over_enum_constant", ())
def closed_over_aliased_type():
    return a.RED.value


@program(E + "test_closed_over_enum_constant", ())
def closed_over_aliased_value():
    return b.value


@program(E + "test_enum_return", (True,), (False,))
def return_enum(cond: bool):
    if cond:
        return Color.RED
    else:
        return Color.GREEN


@program(E + "test_enum_iterate", (Color3.RED,), (Color3.GREEN,))
def iterate_enum(x: Color3):
    res: List[int] = []
    for e in Color3:
        if e != x:
            res.append(e.value)
    return res
