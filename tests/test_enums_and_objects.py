"""Enums and objects a graph makes: ``Enum<C>`` in the type system, a unit's enum
classes, the enum operators, ``prim::CreateObject`` and ``with`` on the objects
(the JIT suite's ``enums/``, ``classes/`` and ``with/`` programs run them against
torch; these pin the edges)."""

from __future__ import annotations

import enum

import pytest

from pyjit import CompilationUnit
from pyjit.errors import ParseError
from pyjit.interpreter import Function
from pyjit.ir import IRError
from pyjit.ir import types as T
from pyjit.ir.parser import parse_ir
from pyjit.ir.type_grammar import parse_type
from pyjit.ir.type_relation import check_value, fits, is_subtype, matches

# Named as torch names the classes of test/jit/test_enum.py's module ``enums``.
Color = enum.Enum("Color", [("RED", 1), ("GREEN", 2)], module="enums", qualname="Color")
Other = enum.Enum("Other", [("RED", 1)], module="enums", qualname="Other")
COLOR = T.EnumType("__torch__.enums.Color")

CONST = ("graph(%x : Enum<__torch__.enums.Color>):\n"
         "  %c : Enum<__torch__.enums.Color> = prim::Constant[value=__torch__.enums.Color.RED]()"
         " # e.py:3:4\n"
         "  %b : bool = aten::eq(%x, %c)\n"
         "  %v : int = prim::EnumValue(%c)\n"
         "  %n : str = prim::EnumName(%x)\n"
         "  %t : (bool, int, str) = prim::TupleConstruct(%b, %v, %n)\n"
         "  return (%t)\n")


def test_enum_type_reads_prints_and_names_its_class():
    assert parse_type("Enum<__torch__.enums.Color>") == COLOR
    assert str(parse_type("Enum<__torch__.enums.Color>[]?")) == "Enum<__torch__.enums.Color>[]?"
    assert T.class_type_name(Color) == "__torch__.enums.Color"
    with pytest.raises(ParseError, match=r"Enum<\.\.\.> takes the qualified name of an enum "
                                         r"class, found '<1 2>'"):
        parse_type("Enum<1 2>")


def test_enum_types_relate_only_to_themselves():
    other = T.EnumType("__torch__.enums.Other")
    assert is_subtype(COLOR, COLOR) and is_subtype(COLOR, T.ANY)
    assert not is_subtype(COLOR, other) and not fits(COLOR, other)
    assert not is_subtype(COLOR, T.INT) and not fits(T.NamedType("__torch__.enums.M"), COLOR)
    assert matches(COLOR, T.ANY_ENUM) and not matches(T.INT, T.ANY_ENUM)


def test_any_class_type_takes_objects_only():
    """torch's ``AnyClassType`` (``prim::id(AnyClassType? x)``): an object of any
    class, or None through the Optional; not a builtin, not an enum member."""
    box = T.NamedType("__torch__.m.Box")
    assert matches(box, T.ANY_CLASS) and matches(T.OptionalType(box), T.OptionalType(T.ANY_CLASS))
    assert matches(T.NONE, T.OptionalType(T.ANY_CLASS))
    assert not matches(T.INT, T.ANY_CLASS) and not matches(COLOR, T.ANY_CLASS)
    assert not matches(T.TENSOR, T.OptionalType(T.ANY_CLASS))


def test_check_value_takes_members_of_that_class_only():
    assert check_value(Color.RED, COLOR) is Color.RED
    for wrong, what in ((Other.RED, "Other"), (1, "int")):
        with pytest.raises(TypeError, match=rf"expected Enum<__torch__.enums.Color>, got {what}"):
            check_value(wrong, COLOR)


def test_a_constant_of_an_enum_type_names_a_member_of_it():
    with pytest.raises(ParseError, match="a constant of type Enum<__torch__.enums.Color> cannot "
                                         "hold __torch__.enums.Other.RED: not a member of "
                                         "__torch__.enums.Color"):
        parse_ir("graph():\n  %c : Enum<__torch__.enums.Color> = prim::Constant["
                 "value=__torch__.enums.Other.RED]()\n  return (%c)\n")


def test_members_come_from_the_units_enum_classes(loop):
    unit = CompilationUnit({"f": CONST}, enums=[Color])
    f = unit.function("f", loop=loop)
    assert f(Color.RED) == (True, 1, "RED")
    assert f(Color.GREEN) == (False, 1, "GREEN")
    assert unit.find_enum("__torch__.enums.Color") is Color


@pytest.mark.parametrize("make, why", [
    (lambda: Function(parse_ir(CONST)), "which only a compilation unit can define "
                                        r"\(pyjit.CompilationUnit\(..., enums=\[...\]\)\)"),
    (lambda: CompilationUnit({"f": CONST}, enums=[Other]).f,
     "which the compilation unit does not define"),
])
def test_an_enum_constant_without_its_class_is_refused_where_it_is(make, why):
    with pytest.raises(IRError, match=r"bad constant: __torch__.enums.Color.RED is a member of "
                                      rf"enum __torch__.enums.Color, {why} at e.py:3:4"):
        make()


def test_a_member_the_class_lacks_is_refused():
    Small = enum.Enum("Color", [("GREEN", 2)], module="enums", qualname="Color")
    with pytest.raises(IRError, match="enum __torch__.enums.Color has no member RED"):
        CompilationUnit({"f": CONST}, enums=[Small]).f


def test_a_unit_takes_enum_classes_only_and_each_name_once():
    with pytest.raises(TypeError, match="an enum must be an enum.Enum class, not 3"):
        CompilationUnit(enums=[3])
    Again = enum.Enum("Color", [("RED", 1)], module="enums", qualname="Color")
    with pytest.raises(ValueError, match="enum __torch__.enums.Color is defined already"):
        CompilationUnit(enums=[Color, Again])


def test_members_compare_by_class_and_name_not_value(loop):
    # torch: Foo.ITEM1 == Bar.ITEM1 is false; an IntEnum's own == would say true.
    Foo = enum.IntEnum("Foo", [("ITEM1", 1)], module="enums", qualname="Foo")
    Bar = enum.IntEnum("Bar", [("ITEM1", 1)], module="enums", qualname="Bar")
    g = parse_ir("graph(%a : Enum<__torch__.enums.Foo>, %b : Enum<__torch__.enums.Bar>):\n"
                 "  %e : bool = aten::eq(%a, %b)\n  %n : bool = aten::ne(%a, %b)\n"
                 "  %t : (bool, bool) = prim::TupleConstruct(%e, %n)\n  return (%t)\n")
    assert Function(g, loop=loop)(Foo.ITEM1, Bar.ITEM1) == (False, True)


def test_isinstance_of_an_enum_type(loop):
    g = parse_ir("graph(%x : Any):\n"
                 "  %b : bool = prim::isinstance[types=[Enum<__torch__.enums.Color>]](%x)\n"
                 "  return (%b)\n")
    f = Function(g, loop=loop)
    assert [f(v) for v in (Color.GREEN, Other.RED, 1)] == [True, False, False]


def test_create_object_makes_an_object_named_as_its_class(loop):
    g = parse_ir("graph(%a : int):\n"
                 "  %o : __torch__.m.Point = prim::CreateObject()\n"
                 "   = prim::SetAttr[name=\"x\"](%o, %a)\n"
                 "  return (%o)\n")
    f = Function(g, loop=loop)
    p, q = f(3), f(4)
    assert (p.x, q.x) == (3, 4) and type(p) is type(q)
    assert T.class_type_name(type(p)) == "__torch__.m.Point"
    assert repr(p) == "<__torch__.m.Point object (x=3)>"
    with pytest.raises(Exception, match=r"prim::CreateObject makes an object of a TorchScript "
                                        r"class \(__torch__.<module>.<class>\), not of int"):
        Function(parse_ir("graph():\n  %o : int = prim::CreateObject()\n  return (%o)\n"))


WITH = ("graph(%x : int):\n"
        "  %o : __torch__.{cls} = prim::CreateObject()\n"
        "  %m : NoneType = prim::Enter(%o)\n"
        "  %g : bool = aten::is_grad_enabled()\n"
        "  %e : Tensor = prim::Exit(%o)\n"
        "  %h : bool = aten::is_grad_enabled()\n"
        "  %t : (bool, bool) = prim::TupleConstruct(%g, %h)\n"
        "  return (%t)\n")


@pytest.mark.parametrize("cls, inside", [("torch.autograd.grad_mode.no_grad", False),
                                         ("torch.autograd.grad_mode.enable_grad", True)])
def test_torchs_grad_mode_objects_without_their_unit(loop, cls, inside):
    """An inlined ``with torch.no_grad():`` holds Enter/Exit on torch's own class,
    whose methods pyjit knows: the mode inside, and restored after."""
    from pyjit.ops.grad_mode import is_grad_enabled, set_grad_enabled
    f = Function(parse_ir(WITH.format(cls=cls)), loop=loop)
    set_grad_enabled(not inside)
    try:
        assert f(1) == (inside, not inside)
        assert is_grad_enabled() is (not inside)
    finally:
        set_grad_enabled(True)


def test_enter_on_an_object_of_a_class_without_its_unit_says_so():
    f = Function(parse_ir(WITH.format(cls="m.Ctx")))
    with pytest.raises(Exception, match=r"prim::Enter on an object of __torch__.m.Ctx: its "
                                        r"__enter__ is a method graph of the class; run the "
                                        r"graph in a pyjit.CompilationUnit"):
        f(1)
