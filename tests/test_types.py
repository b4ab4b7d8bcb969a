"""pyjit.ir.types: how each type prints (as torch prints it in a graph), equality
and hashing, and the subtype rules (as torch's ``Type::isSubtypeOf``)."""

import pytest

from pyjit.ir import types as T
from pyjit.ir.types import (ANY, BOOL, FLOAT, INT, NONE, NUMBER, STR, TENSOR, DictType,
                            FutureType, GenericType, ListType, NamedType, OptionalType,
                            TensorType, TupleType, UnionType)
from pyjit.ir.type_relation import fits, is_subtype, matches

REFINED = TensorType("Float", "2, 3, strides=[3, 1], requires_grad=0, device=cpu")
UNION = UnionType([INT, STR])


# torch: g.addInput().setType(t) for each type, then print(g).
@pytest.mark.parametrize("t, text", [
    (INT, "int"), (FLOAT, "float"), (BOOL, "bool"), (STR, "str"), (NONE, "NoneType"),
    (TENSOR, "Tensor"), (ANY, "Any"), (NUMBER, "Scalar"),
    (ListType(INT), "int[]"),
    (OptionalType(ListType(INT)), "int[]?"),
    (ListType(OptionalType(INT)), "int?[]"),
    (DictType(STR, TENSOR), "Dict(str, Tensor)"),
    (TupleType([INT]), "(int)"),
    (TupleType([]), "()"),
    (TupleType([INT, TupleType([FLOAT, STR])]), "(int, (float, str))"),
    (UNION, "Union(int, str)"),
    (OptionalType(TENSOR), "Tensor?"),
    (FutureType(INT), "Future[int]"),
    (NamedType("Device"), "Device"),
    (ListType(ListType(TENSOR)), "Tensor[][]"),
    (UnionType([INT, NONE, STR]), "Union(int, NoneType, str)"),
    (OptionalType(UNION), "Union(int, str)?"),
    (ListType(UNION), "Union(int, str)[]"),
    (OptionalType(TupleType([INT, FLOAT])), "(int, float)?"),
    (GenericType("RRef", [INT]), "RRef[int]"),
    (GenericType("Await", [INT]), "Await(int)"),
    (NamedType("complex"), "complex"),
    (NamedType("Stream"), "Stream"),
    # torch: TensorType.create_from_tensor(torch.zeros(2, 3)), its Optional and List
    (REFINED, "Float(2, 3, strides=[3, 1], requires_grad=0, device=cpu)"),
    (OptionalType(REFINED), "Float(2, 3, strides=[3, 1], requires_grad=0, device=cpu)?"),
    (ListType(REFINED), "Float(2, 3, strides=[3, 1], requires_grad=0, device=cpu)[]"),
    # torch: TensorType.get().with_dtype(torch.float32) / .with_sizes([2, None])
    (TensorType("Float"), "FloatTensor"),
    (TensorType(None, "2, *"), "Tensor(2, *)"),
    # torch: the type of insertConstant(torch.tensor(2.5)) (rank 0)
    (TensorType("Float", "requires_grad=0, device=cpu"), "Float(requires_grad=0, device=cpu)"),
    (TensorType("Long", ""), "Long()"),
    (DictType(STR, OptionalType(ListType(FLOAT))), "Dict(str, float[]?)"),
])
def test_str_as_torch_prints_in_graphs(t, text):
    assert str(t) == text
    assert repr(t) == f"<type {text}>"


def test_equality_is_structural_and_hash_agrees():
    same = [
        (ListType(INT), ListType(INT)),
        (TupleType([INT, STR]), TupleType((INT, STR))),
        (DictType(STR, INT), DictType(STR, INT)),
        (OptionalType(TENSOR), OptionalType(TensorType())),
        (FutureType(INT), GenericType("Future", [INT])),
        (NamedType("int"), INT),
        (TensorType("Float", "2"), TensorType("Float", "2")),
        (UnionType([INT, STR]), UnionType([STR, INT])),   # torch: order does not matter
    ]
    for a, b in same:
        assert a == b and hash(a) == hash(b), (a, b)
    different = [
        (ListType(INT), ListType(FLOAT)), (ListType(INT), OptionalType(INT)),
        (TupleType([INT]), ListType(INT)), (DictType(STR, INT), DictType(INT, STR)),
        (NamedType("int"), NamedType("float")), (TENSOR, TensorType("Float", "2")),
        (TensorType("Float", "2"), TensorType("Float", "3")), (TensorType("Float"), TensorType("Float", "")),
        (GenericType("Future", [INT]), GenericType("RRef", [INT])),
        (UnionType([INT, STR]), UnionType([INT, STR, NONE])), (TupleType([INT]), INT),
    ]
    for a, b in different:
        assert a != b, (a, b)
    assert len({ListType(INT), ListType(INT), ListType(FLOAT)}) == 2
    assert ListType(INT) != "int[]"


def test_contained():
    assert INT.contained() == () and TENSOR.contained() == ()
    assert ListType(INT).contained() == (INT,)
    assert DictType(STR, FLOAT).contained() == (STR, FLOAT)
    assert TupleType([INT, STR]).contained() == (INT, STR)
    assert OptionalType(INT).contained() == (INT,)
    assert UNION.contained() == (INT, STR)
    assert FutureType(BOOL).contained() == (BOOL,)


# Each row checked with torch: a.isSubtypeOf(b) for the same torch._C types.
@pytest.mark.parametrize("sub, sup, expected", [
    (INT, INT, True),
    (INT, NUMBER, True), (FLOAT, NUMBER, True), (BOOL, NUMBER, False),
    (BOOL, INT, False), (INT, FLOAT, False), (NUMBER, FLOAT, False), (NUMBER, ANY, True),
    (TENSOR, NUMBER, False),
    (NONE, OptionalType(INT), True), (INT, OptionalType(INT), True),
    (OptionalType(INT), INT, False), (NONE, TENSOR, False),
    (OptionalType(INT), OptionalType(NUMBER), True), (INT, OptionalType(NUMBER), True),
    (NUMBER, OptionalType(NUMBER), True), (TENSOR, OptionalType(TENSOR), True),
    (ListType(INT), OptionalType(ListType(INT)), True),
    (ListType(INT), ListType(NUMBER), False), (ListType(INT), ListType(ANY), False),
    (ListType(INT), ListType(OptionalType(INT)), False), (ListType(INT), ANY, True),
    (DictType(STR, INT), DictType(STR, NUMBER), False), (DictType(STR, INT), DictType(STR, INT), True),
    (TupleType([INT]), TupleType([NUMBER]), True), (TupleType([INT, INT]), TupleType([INT]), False),
    (TupleType([INT, NONE]), TupleType([OptionalType(INT), OptionalType(INT)]), True),
    (TupleType([INT]), ANY, True),
    (INT, ANY, True), (ANY, INT, False), (NONE, ANY, True), (OptionalType(INT), ANY, True),
    (ANY, OptionalType(ANY), True),
    (UnionType([INT, NONE]), OptionalType(INT), True),
    (OptionalType(INT), UnionType([INT, NONE, STR]), True),
    (UnionType([INT, STR]), UnionType([STR, INT, FLOAT]), True),
    (UnionType([INT, STR]), INT, False), (INT, UnionType([INT, STR]), True),
    (STR, UnionType([INT, NONE]), False),
    (OptionalType(TENSOR), UnionType([TENSOR, NONE, INT]), True),
    (UNION, OptionalType(UNION), True),
    (FutureType(INT), FutureType(NUMBER), True), (FutureType(INT), FutureType(ANY), True),
    (GenericType("Await", [INT]), GenericType("Await", [NUMBER]), True),
    (GenericType("RRef", [INT]), GenericType("RRef", [NUMBER]), False),
])
def test_is_subtype_as_torch(sub, sup, expected):
    assert is_subtype(sub, sup) is expected


def test_refined_tensors_are_tensors_not_the_other_way_round():
    assert is_subtype(REFINED, TENSOR)
    assert is_subtype(TensorType("Float"), TENSOR)
    assert not is_subtype(TENSOR, REFINED)
    assert is_subtype(REFINED, OptionalType(TENSOR))
    assert not is_subtype(REFINED, TensorType("Long", "2, 3"))
    assert is_subtype(REFINED, REFINED)


def test_opaque_named_types_only_match_themselves_and_any():
    dev = NamedType("Device")
    assert is_subtype(dev, NamedType("Device")) and is_subtype(dev, ANY)
    assert not is_subtype(dev, NamedType("__torch__.M"))
    assert not is_subtype(dev, TENSOR)


def test_module_constants():
    assert T.NUMBER == NamedType("Scalar")
    assert T.TENSOR == TensorType() and str(T.FUNCTION) == "Function"


# torch: BoolType is no subtype of NumberType, ComplexType is (isSubtypeOf); a bool
# passed for a Scalar is converted with aten::Int in the graphs torch prints.
@pytest.mark.parametrize("relation", [is_subtype, fits, matches])
def test_scalar_is_int_float_or_complex_for_every_variant(relation):
    assert relation(INT, NUMBER) and relation(FLOAT, NUMBER) and relation(T.COMPLEX, NUMBER)
    assert relation(NUMBER, NUMBER)
    assert not relation(BOOL, NUMBER)
    assert not relation(STR, NUMBER)


# -- the one relation: variables, conversions, isinstance; what torch decides ----------
#
# tests/fixtures/type_relation.json is torch 2.14's answers to each question below
# (tools/fixtures/make_type_relation.py), and every row must have pyjit's same
# answer from pyjit.ir.type_relation, which the registry, prim::isinstance, the
# archive's choice among torch's schemas and the frontend all use.

import json
import os
import typing

import numpy as np

from pyjit.ir.type_grammar import annotation_type, parse_type
from pyjit.ir.type_relation import (CONVERSIONS, NO_MATCH, Conversion, bind, check_value,
                                    implicit_conversion, instance_check, match_argument,
                                    substitute, unify, widens)

with open(os.path.join(os.path.dirname(__file__), "fixtures", "type_relation.json"),
          encoding="utf-8") as _f:
    TORCH = json.load(_f)

_TEXT = {"Tensor": TENSOR, "Scalar": NUMBER, "NoneType": NONE}


def _type(text: str) -> T.Type:
    """A type from the fixture's names (graph text or a Python annotation)."""
    if "[" in text:
        from pyjit.frontend.typing_rules import type_from_annotation
        return type_from_annotation(eval(text, vars(typing)))  # noqa: S307 - fixture text
    return _TEXT.get(text) or parse_type(text)


def test_the_fixture_is_torchs():
    assert TORCH["torch"].startswith("2.14")


@pytest.mark.parametrize("row", TORCH["isinstance"], ids=lambda r: f"{r['value']}-{r['type']}")
def test_isinstance_as_torch(row):
    """``prim::isinstance`` on an ``Any``: ``True`` is a bool, never an int or a
    Scalar (the decision the former copy in ops/prim.py got wrong)."""
    value = eval(row["value"])  # noqa: S307 - a literal of the fixture
    assert instance_check(_type(row["type"]))(value) is row["result"]


def _pyjit_conversion(actual: T.Type, declared: T.Type):
    """The fixture's encoding of match_argument's answer: "" as it is, the kind
    of the conversion, or None for a refusal."""
    got = match_argument(actual, declared, {}, conversions=True)
    if got is NO_MATCH:
        return None
    return "" if got is None else got.kind


@pytest.mark.parametrize("row", TORCH["conversions"],
                         ids=lambda r: f"{r['actual']}-for-{r['declared']}")
def test_conversions_as_torch(row):
    """An argument of one type for a parameter declared another: passed as it
    is, through the conversion torch inserts, or refused; an int for a float is
    refused, as torch refuses it."""
    assert _pyjit_conversion(_type(row["actual"]), _type(row["declared"])) == row["conversion"]


@pytest.mark.parametrize("row", TORCH["unify"], ids=lambda r: f"{r['a']}-{r['b']}")
def test_unify_as_torch(row):
    got = unify(_type(row["a"]), _type(row["b"]))
    assert (None if got is None else T.annotation_str(got)) == row["unified"]


@pytest.mark.parametrize("row", TORCH["binding"], ids=lambda r: f"{r['schema']}-{r['b']}")
def test_type_variables_bind_as_torch(row):
    from pyjit.registry import parse_schema
    _, pattern, _ = parse_schema(row["schema"] + " -> bool")
    env: dict = {}
    args = [_type(row["a"]), _type(row["b"])]
    ok = all(match_argument(a, p, env) is not NO_MATCH for a, p in zip(args, pattern))
    assert ok is row["compiles"]


TV, K, V = NamedType("t"), NamedType("k"), NamedType("v")
LONG = TensorType("Long", "2")


@pytest.mark.parametrize("pattern, actual, bound", [
    (TV, INT, {"t": INT}),
    (ListType(TV), ListType(INT), {"t": INT}),
    (DictType(K, V), DictType(STR, TENSOR), {"k": STR, "v": TENSOR}),
    (FutureType(TV), FutureType(FLOAT), {"t": FLOAT}),
    (GenericType("Await", [TV]), GenericType("Await", [INT]), {"t": INT}),
    (OptionalType(TV), INT, {"t": INT}),                   # t? takes a T: t is T
    (OptionalType(TV), OptionalType(INT), {"t": INT}),
    (OptionalType(TV), NONE, {}),                           # None binds nothing
    (TupleType([TV, NamedType("t1")]), TupleType([INT, STR]), {"t": INT, "t1": STR}),
    (ListType(TV), INT, None),                              # no list: no binding
    (FutureType(TV), GenericType("RRef", [INT]), None),
    (INT, STR, {}),                                         # no variable: accepts decides
])
def test_bind(pattern, actual, bound):
    env: dict = {}
    assert bind(pattern, actual, env) is (bound is not None)
    if bound is not None:
        assert env == bound


def test_a_variable_bound_twice_is_bound_to_what_unifies_both():
    env: dict = {}
    assert bind(TV, REFINED, env) and bind(TV, LONG, env) and env == {"t": TENSOR}
    env = {}
    assert bind(TV, NONE, env) and bind(TV, INT, env) and env == {"t": OptionalType(INT)}
    env = {}
    assert bind(TV, INT, env) and not bind(TV, FLOAT, env)  # int and float: no Scalar


def test_substitute():
    env = {"t": INT, "k": STR}
    assert substitute(ListType(TV), env) == ListType(INT)
    assert substitute(DictType(K, ListType(TV)), env) == DictType(STR, ListType(INT))
    assert substitute(FutureType(TV), env) == FutureType(INT)
    assert substitute(OptionalType(V), env) == OptionalType(ANY)  # unbound: Any
    assert substitute(TENSOR, env) is TENSOR


def test_the_conversions_are_one_table():
    assert implicit_conversion(BOOL, NUMBER) == Conversion("aten::Int", INT)
    assert implicit_conversion(TENSOR, OptionalType(FLOAT)) == Conversion("aten::FloatImplicit",
                                                                          FLOAT)
    assert implicit_conversion(REFINED, INT) == Conversion("aten::IntImplicit", INT)
    assert implicit_conversion(INT, FLOAT) is None and implicit_conversion(NONE, FLOAT) is None
    assert all(c.kind.startswith("aten::") for c in CONVERSIONS.values())
    # widening is not a conversion of matching, only the run time's
    assert widens(INT, FLOAT) and not widens(BOOL, FLOAT) and not widens(FLOAT, INT)


# -- each former copy now asks the one relation ------------------------------------------

def test_bool_is_no_scalar_at_the_boundary_in_isinstance_and_in_the_registry(loop):
    """The copies disagreed: ops/prim.py's isinstance took True for a Scalar,
    check_value refused it.  Now both refuse it (torch: isinstance is False), and
    the registry matches no Scalar overload with a bool."""
    from pyjit import Code
    from pyjit.ir.parser import parse_ir
    from pyjit.registry import default_registry
    g = parse_ir("graph(%x : Any):\n"
                 "  %r : bool = prim::isinstance[types=[Scalar]](%x)\n"
                 "  return (%r)\n")
    from pyjit.interpreter import Function
    f = Function(Code(g))  # on the loop and at the level the fixture selects
    assert [f(True), f(1), f(1.5)] == [False, True, True]
    with pytest.raises(TypeError, match=r"^expected Scalar, got bool$"):
        check_value(True, NUMBER)
    assert default_registry.find("aten::mul", [TENSOR, INT]).types == (TENSOR, NUMBER)
    assert default_registry.find("aten::mul", [TENSOR, BOOL]) is None  # aten::Int first


def test_the_archive_converts_as_torch_does():
    """The archive's copy (_fits) took an int for a float and refused a bool for a
    Scalar; torch does the opposite (``torch.add(x, b)`` is ``aten::add(x,
    aten::Int(b), 1)``, ``torch.dropout(x, 1, False)`` does not compile)."""
    from pyjit.archive import schemas
    m = schemas.match("aten::add", [("x", TENSOR), ("b", BOOL)], {})
    assert m.schema.overload == "Scalar" and m.convert == {1: Conversion("aten::Int", INT)}
    assert schemas.match("aten::dropout", [("x", TENSOR), ("p", INT), ("t", BOOL)], {}) is None
    m = schemas.match("aten::dropout", [("x", TENSOR), ("p", TENSOR), ("t", BOOL)], {})
    assert m.convert == {1: Conversion("aten::FloatImplicit", FLOAT)}
    m = schemas.match("aten::add", [("a", ListType(INT)), ("b", ListType(FLOAT))], {})
    assert m is None  # t[] binds t once: int and float do not unify
    m = schemas.match("aten::list", [("a", ListType(STR))], {})
    assert m.returns == (ListType(STR),)


def test_the_registry_binds_type_variables():
    """The registry's copy took any type for each t; one node's t is one type."""
    from pyjit.registry import default_registry
    assert default_registry.find("aten::append", [ListType(INT), INT]) is not None
    assert default_registry.find("aten::append", [ListType(INT), STR]) is None
    assert default_registry.find("aten::append", [ListType(TENSOR), REFINED]) is not None
    assert default_registry.find("aten::format", [STR, INT, ListType(INT)]) is not None


def test_the_frontend_converts_a_return_as_torch_and_nothing_else(tmp_path):
    """``coerce`` turned an int into a float everywhere; torch converts only a
    returned value, by its table (a bool returned as a float is ``aten::Float``),
    and refuses ``x: float = 1`` and ``return 1`` from a float function."""
    from pyjit import CompileError
    from pyjit.frontend import script
    from helpers.source_files import load_function
    f = script(load_function("def f(b: bool) -> float:\n    return b\n", tmp_path, "f",
                             "ret_bool"))
    assert [n.kind for n in f.graph.nodes()] == ["aten::Float"]
    assert f(True) == 1.0 and isinstance(f(True), float)
    with pytest.raises(CompileError, match="returns float .* but this return gives int"):
        script(load_function("def g() -> float:\n    return 1\n", tmp_path, "g", "ret_int"))
    with pytest.raises(CompileError):
        script(load_function("def h() -> float:\n    x: float = 1\n    return x\n",
                             tmp_path, "h", "ann_int"))


# -- annotations: one reading of the generic forms for both dialects ---------------------

@pytest.mark.parametrize("python, serialized, expected", [
    (typing.List[int], "List[int]", ListType(INT)),
    (typing.Optional[typing.List[float]], "Optional[List[float]]", OptionalType(ListType(FLOAT))),
    (typing.Dict[str, np.ndarray], "Dict[str, Tensor]", DictType(STR, TENSOR)),
    (typing.Tuple[()], "Tuple[()]", TupleType([])),
    (typing.Tuple[int, str], "Tuple[int, str]", TupleType([INT, STR])),
    (typing.Union[int, None], "Union[int, None]", OptionalType(INT)),
])
def test_both_dialects_read_annotations_alike(python, serialized, expected):
    import ast
    from pyjit.archive.source import type_of
    from pyjit.frontend.typing_rules import type_from_annotation
    assert type_from_annotation(python) == expected
    assert type_of(ast.parse(serialized, mode="eval").body, None) == expected


def test_annotation_errors():
    with pytest.raises(ValueError, match=r"variable-length tuples"):
        annotation_type("Tuple", [INT, ...], "Tuple[int, ...]")
    with pytest.raises(ValueError, match=r"^dict keys must be int, float, complex, str, bool "
                                         r"or Device, not Tensor$"):
        annotation_type("Dict", [TENSOR, INT], "Dict[Tensor, int]")
    with pytest.raises(ValueError, match=r"^Union types other than Optional\[T\] are not "
                                         r"supported: U$"):
        annotation_type("Union", [INT, STR], "U", unions=False)
    assert annotation_type("Union", [INT, STR], "U") == UnionType([INT, STR])
    with pytest.raises(ValueError, match=r"^unsupported type annotation 'Set\[int\]'$"):
        annotation_type("Set", [INT], "Set[int]")
