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
