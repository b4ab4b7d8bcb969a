"""Dicts and named tuples: programs from test/jit/test_list_dict.py (TestDict,
TestNamedTuple) and the dict parts of test/jit/test_typing.py."""
# flake8: noqa
from collections import OrderedDict, namedtuple
from typing import Dict, List, NamedTuple, Optional, Tuple

import torch
from torch import Tensor

from suite import program, seeded

D = "test/jit/test_list_dict.py::TestDict::"


def _dict():
    return {"a": torch.ones(1), "b": torch.ones(1) + 1, "c": torch.ones(1) + 2}


def _dict2():
    return {"x": torch.ones(1) + 100, "y": torch.ones(1) + 101, "z": torch.ones(1) + 102}


@program(D + "test_dict_bool_conversion", ({1: 2, 3: 5},), ({},))
def dict_if_predicate(d: Dict[int, int]):
    if d:
        s, t = 0, 0
        for k, v in d.items():
            s += k
            t += v

        return s, t
    else:
        return -1, -1


@program(D + "test_dict_bool_conversion", ({1: 2, 3: 5},), ({},))
def dict_while_predicate(d: Dict[int, int]):
    while d:
        d.clear()


@program(D + "test_dict_bool_conversion", ({1: 2, 3: 5},), ({},))
def dict_ternary_predicate(d: Dict[int, int]):
    return "non-empty" if d else "empty"


@program(D + "test_del", ({"hi": 2, "bye": 3},), ({},))
def dict_del(x: Dict[str, int]) -> Dict[str, int]:
    del x["hi"]
    return x


@program(D + "test_dict_variance", ())
def test_dictliteral_is_typed_from_annotation():
    x: Dict[str, Optional[int]] = {"foo": None, "bar": None, "baz": None}
    return x


@program(D + "test_dict_variance", ())
def test_dictcomprehension_is_typed_from_annotation():
    metasyntactics = ["foo", "bar", "baz"]
    x: Dict[str, Optional[int]] = {  # noqa: C420, RUF025
        word: None for word in metasyntactics
    }
    return x


@program(D + "test_keys", (_dict(),))
def keys(x: Dict[str, Tensor]) -> List[str]:
    return list(x.keys())


@program(D + "test_keys", ())
def specialized_list():
    li = {1: 1, 2: 2}.keys()
    li.append(3)
    return li


@program(D + "test_values", (_dict(),))
def values(x: Dict[str, Tensor]) -> List[Tensor]:
    return list(x.values())


@program(D + "test_len", (_dict(),))
def length(x: Dict[str, Tensor]) -> int:
    return len(x)


@program(D + "test_copy", (_dict(),))
def dict_copy(x: Dict[str, Tensor]) -> Dict[str, Tensor]:
    return x.copy()


@program(D + "test_items", (_dict(),))
def dict_items(x: Dict[str, Tensor]) -> List[Tuple[str, Tensor]]:
    return x.items()


@program(D + "test_pop", (_dict(), "a"), (_dict(), "x"))
def pop(x: Dict[str, Tensor], key: str) -> Tuple[Tensor, Dict[str, Tensor]]:
    return x.pop(key), x


@program(D + "test_pop", (_dict(), "a", seeded(21, 2, 2)), (_dict(), "x", seeded(22, 2, 2)))
def default_pop(
    x: Dict[str, Tensor], key: str, default: Tensor
) -> Tuple[Tensor, Dict[str, Tensor]]:
    return x.pop(key, default), x


@program(D + "test_setdefault", (_dict(), "a", seeded(23, 2, 2)),
         (_dict(), "nonexistant", seeded(24, 2, 2)))
def setdefault(
    x: Dict[str, Tensor], key: str, default: Tensor
) -> Dict[str, Tensor]:
    x.setdefault(key, default)
    return x


@program(D + "test_update", (_dict(), _dict()), (_dict(), _dict2()))
def update(
    a: Dict[str, Tensor], b: Dict[str, Tensor]
) -> Tuple[Dict[str, Tensor], Dict[str, Tensor]]:
    a.update(b)
    return a, b


@program(D + "test_update_existing_key", ())
def update_existing_key() -> Dict[str, int]:
    a: Dict[str, int] = {}
    for i in range(3):
        a.update({"a": i})
    return a


@program(D + "test_aug_assign", (_dict(),))
def aug_assign_dict_tensor(a: Dict[str, Tensor]) -> Dict[str, Tensor]:
    a["a"] += 1
    a["b"] -= 12
    a["c"] *= 122
    a["c"] /= 2
    a["c"] %= 2
    return a


@program(D + "test_aug_assign", ({"a": 3.0, "b": 2.0, "c": 4.0},))
def aug_assign_dict_prim(a: Dict[str, float]) -> Dict[str, float]:
    a["a"] += 3.4
    a["b"] -= 2.4
    a["c"] *= 3.0
    a["c"] /= 2.0
    a["c"] %= 2.0
    return a


@program(D + "test_popitem", (_dict(),))
def popitem(
    x: Dict[str, Tensor]
) -> Tuple[Tuple[str, Tensor], Dict[str, Tensor]]:
    item = x.popitem()
    return item, x


@program(D + "test_clear", (_dict(),))
def clear(x: Dict[str, Tensor]) -> Dict[str, Tensor]:
    x.clear()
    return x


@program(D + "test_get", (_dict(), "a"), (_dict(), "doesn't exist"))
def get(x: Dict[str, Tensor], key: str) -> Optional[Tensor]:
    return x.get(key)


@program(D + "test_get", (_dict(), "a"))
def get_default(x: Dict[str, Tensor], key: str) -> Optional[Tensor]:
    return x.get(key, torch.randn(2, 2))


@program(D + "test_get_boolkey", ({True: 1}, True), ({True: 1}, False))
def get_boolkey(x: Dict[bool, int], key: bool) -> Optional[int]:
    return x.get(key)


@program(D + "test_get_boolkey", ({True: 1}, True), ({True: 1}, False))
def get_default_boolkey(x: Dict[bool, int], key: bool) -> int:
    return x.get(key, 42)


@program(D + "test_basic", ({"item": 20, "other_item": 120},))
def simple(x: Dict[str, int]) -> Dict[str, int]:
    return x


@program(D + "test_basic", ({"item": 20, "other_item": 120},))
def dict_index(x: Dict[str, int]) -> int:
    return x["item"]


@program(D + "test_basic", ())
def type_default() -> Dict[str, Tensor]:
    return {}


@program(D + "test_basic", ({"item": 20, "other_item": 120},))
def missing_index(x: Dict[str, int]) -> int:
    return x["dne"]


@program(D + "test_basic", ())
def literal1():
    return torch.jit.annotate(Dict[int, float], {})


@program(D + "test_basic", ())
def literal2():
    return torch.jit.annotate(Dict[int, float], {10: 1.2})


@program(D + "test_basic", ())
def literal3():
    return torch.jit.annotate(Dict[int, float], {10: 1.2, 11: 1.3})


@program(D + "test_basic", ())
def list_of_dicts() -> List[Dict[str, Tensor]]:
    return [{"word": torch.ones(2) + 3}, {"other word": torch.ones(1) + 2}]


@program(D + "test_mutability", ())
def mutability() -> Dict[str, int]:
    a = torch.jit.annotate(Dict[str, int], {})
    a["ok"] = 10
    return a


@program(D + "test_loop", (10,))
def dict_loop(x: int) -> Dict[str, int]:
    a = torch.jit.annotate(Dict[str, int], {})
    for i in range(x):
        a["ok"] = i
    return a


@program(D + "test_view", (seeded(25, 2, 3), seeded(26, 2, 3)))
def dict_view(x, y):
    l = {"a": x}
    x_view = l["a"]
    a = x + x
    x_view.add_(y)
    b = x + x
    return a == b


@program(D + "test_membership", ({1: 2, 3: 4}, 3), ({1: 2, 3: 4}, 2))
def membership(x: Dict[int, int], y: int) -> int:
    return x.get(y, 3)


@program(D + "test_membership", ({1: 2, 3: 4}, 3), ({1: 2, 3: 4}, 2))
def optional(x: Dict[int, int], y: int) -> bool:
    res = x.get(y)
    return res is None


@program(D + "test_ordered_dict", ())
def repeated_key():
    return OrderedDict([(1, 2), (2, 3), (1, 4)])


@program(D + "test_ordered_dict", ())
def no_args():
    a = OrderedDict()
    a["one"] = torch.tensor(1)
    a["two"] = torch.tensor(2)


@program(D + "test_ordered_dict", ())
def test_dict_constructor():
    a = dict()  # noqa: C408
    a["one"] = torch.tensor(1)
    return a, dict([(1, 2), (2, 3), (1, 4)])  # noqa: C406


@program(D + "test_ordered_dict", ())
def test_dict_initializer_list():
    a = {"1": torch.tensor(1), "2": torch.tensor(2)}
    output_order = []
    for key in a:
        output_order.append(a[key])
    return output_order


@program(D + "test_dict_preserves_order", ())
def dict_ordering():
    a: Dict[int, int] = {}
    for i in range(1000):
        a[i] = i + 1
    return a


# ---- test_list_dict.py::TestList, the dict() keyword tests -------------------------

K = "test/jit/test_list_dict.py::TestList::"


@program(K + "test_dict_keyword_with_kwargs", ())
def dict_keyword_with_kwargs():
    return dict(foo=1, bar=2, baz=3)


@program(K + "test_dict_keyword_with_kwargs_using_container_values", ())
def dict_keyword_with_kwargs_using_container_values():
    return dict(foo=[1, 2, 3], bar=[4, 5, 6], baz=[7, 8, 9])


@program(K + "test_dict_keyword_with_iterable", ())
def dict_keyword_with_iterable():
    return dict([("foo", 1), ("bar", 2), ("baz", 3)])  # noqa: C406


@program(K + "test_dict_keyword_with_empty_iterable", ())
def dict_keyword_with_empty_iterable():
    return dict([])  # noqa: C406


@program(K + "test_dict_keyword_with_internal_aggregate_function", ())
def dict_keyword_with_internal_aggregate_function():
    return dict(zip(["foo", "baz", "bar"], [1, 2, 3]))


@program(K + "test_dict_keyword_with_mapping", ())
def dict_keyword_with_mapping():
    return {"foo": 1, "bar": 2, "baz": 3}


@program(K + "test_dict_keyword_with_mapping_and_kwargs", ())
def dict_keyword_with_mapping_and_kwargs():
    return dict({"foo": 1, "bar": 2}, baz=3)


@program(K + "test_dict_keyword_with_dict_comprehension", ())
def dict_keyword_with_dict_comprehension():
    return {i: chr(i + 65) for i in range(4)}


@program(K + "test_dict_keyword_with_dict_comprehension_and_kwargs", ())
def dict_keyword_with_dict_comprehension_and_kwargs():
    return dict({chr(65 + i): i for i in range(4)}, foo=2)


@program(K + "test_dict_keyword_with_empty_dict_comprehension", ())
def dict_keyword_with_empty_dict_comprehension():
    return {}


@program(K + "test_dict_keyword_is_correctly_typed", ())
def dict_keyword_is_correctly_typed():
    x: Dict[str, int] = dict()  # noqa: C408
    x["foo"] = 1
    return x


@program(K + "test_dict_keyword_with_nested_call", ())
def dict_keyword_with_nested_call():
    return dict(dict(foo=1, bar=2, baz=3))


@program(K + "test_dict_keyword_with_previously_declared_variable", ())
def dict_keyword_with_previously_declared_variable():
    d = {"foo": 1, "bar": 2}
    return dict(d)


@program(K + "test_dict_keyword_with_previously_declared_variable_and_kwargs", ())
def dict_keyword_with_previously_declared_variable_and_kwargs():
    d = {"foo": 1, "bar": 2}
    return dict(d, baz=3)


# ---- test/jit/test_typing.py: dict programs ---------------------------------------

T = "test/jit/test_typing.py::TestTyping::"


@program(T + "test_dict_in_not_in", ({"hi": 2, "bye": 3},), ({"bye": 3},))
def test_in_dict(x):
    # type: (Dict[str, int]) -> bool
    return "hi" in x


def a():
    print("a")
    return 3


def b():
    print("b")
    return {3: 2, 4: 1}


@program(T + "test_dict_in_not_in", (), stdout=True)
def in_evaluation_order():
    return a() in b()


@program(T + "test_dict_in_not_in", ({"hello": 1, "world": 2},), ({"world": 2},))
def test_not_in_dict(a):
    # type: (Dict[str, int]) -> bool
    if "hello" not in a:
        return False
    else:
        return True


@program(T + "test_for_in_dict", ({"a": 1, "b": 2, "c": 3},))
def test_dicts(x):
    # type: (Dict[str, int]) -> int
    sum = 0
    for key in x:
        sum += x[key]
    return sum


@program(T + "test_for_in_dict", ({"a": 1, "b": 2, "c": 3},))
def test_dict_keys_values(x):
    # type: (Dict[str, int]) -> Tuple[str, int]
    key_str = ""
    sum = 0
    for key in x.keys():
        key_str += key
    for val in x.values():
        sum += val
    return key_str, sum


@program(T + "test_dict_comprehension", ())
def dict_comprehension():
    return {i: chr(i + 65) for i in range(4)}


@program(T + "test_dict_comprehension_with_type_annotation", ())
def dict_comprehension_with_type_annotation():
    d: Dict[int, str] = {i: chr(i + 65) for i in range(4)}
    return d


@program(T + "test_dict_comprehension_scope", ())
def comprehension_can_access_outer_scope_variables():
    lst = ["foo", "bar", "baz"]
    return {l: len(l) for l in lst}


# ---- test_list_dict.py::TestNamedTuple ----------------------------------------------

N = "test/jit/test_list_dict.py::TestNamedTuple::"


class FeatureVector(NamedTuple):
    float_features: float
    sequence_features: List[float]
    time_since_first: float


class Tup(NamedTuple):
    a: int
    b: int


class MyCoolNamedTuple(NamedTuple):
    a: int
    b: float
    c: List[int]


class FeatureVectorRef(NamedTuple):
    float_features: "float"
    sequence_features: "List[float]"
    time_since_first: "float"


class MyNamedTuple(NamedTuple):
    a: "int"
    b: "float"
    c: "torch.Tensor"


@program(N + "test_namedtuple", (seeded(27, 3, 4),))
def namedtuple_foo(x) -> float:
    fv = FeatureVector(3.0, [3.0], 3.0)
    rv = fv.float_features
    for val in fv.sequence_features:
        rv += val
    rv *= fv.time_since_first
    return rv


@program(N + "test_namedtuple_constant", ())
def namedtuple_constant():
    return Tup(1, 2)


@program(N + "test_return_named_tuple", (seeded(28, 3, 4),))
def return_named_tuple(x):
    fv = FeatureVector(3.0, [3.0], 3.0)
    return fv


@program(N + "test_namedtuple_slice_unpack", (3, 3.5, [6]))
def namedtuple_slice_unpack(a: int, b: float, c: List[int]):
    tup = MyCoolNamedTuple(a, b, c)
    my_a, my_b, my_c = tup
    return tup[:1], my_a, my_c


@program(N + "test_namedtuple_lower", (3,))
def namedtuple_lower(a: int):
    tup = MyCoolNamedTuple(a, 3.14, [9])
    return tup


@program(N + "test_namedtuple_type_annotation", (MyCoolNamedTuple(42, 420.0, [666]),))
def namedtuple_type_annotation(x: MyCoolNamedTuple) -> MyCoolNamedTuple:
    return x


@program(N + "test_namedtuple_kwarg_construct", ())
def namedtuple_kwarg_construct():
    tup = MyCoolNamedTuple(c=[1, 2, 3], b=3.5, a=9)
    return tup


@program(N + "test_namedtuple_inside_forwardref", (seeded(29, 3, 4),))
def namedtuple_inside_forwardref(x) -> float:
    fv = FeatureVectorRef(3.0, [3.0], 3.0)
    rv = fv.float_features
    for val in fv.sequence_features:
        rv += val
    rv *= fv.time_since_first
    return rv


@program(N + "test_namedtuple_input_forwardref", (MyNamedTuple(4, 2.5, seeded(30, 2, 2)),))
def namedtuple_input_forwardref(obj: MyNamedTuple):
    return ((obj.c + obj.b) ** obj.a).sin()


_GoogLeNetOutputs = namedtuple("GoogLeNetOutputs", ["logits", "aux_logits2", "aux_logits1"])


@program("test/jit/test_typing.py::TestTyping::test_namedtuple_py2",
         (_GoogLeNetOutputs(logits=seeded(31, 3), aux_logits2=seeded(32, 4),
                            aux_logits1=seeded(33, 5)),))
def namedtuple_py2(x):
    # type: (_GoogLeNetOutputs) -> _GoogLeNetOutputs
    return x


# pyjit's probes of dict keys: floats compare by value (a nan key finds nothing),
# and torch's messages for a missing key.
DP = "pyjit: dict-key probe (test/jit/test_list_dict.py::TestDict::test_keys)"


@program(DP, (float("nan"),), (0.0,), (-0.0,))
def dict_float_keys(x: float):
    d = {0.0: "zero", 1.5: "one and a half"}
    d[x] = "x"
    return len(d), x in d, -0.0 in d


@program(DP, ("missing",), ("a",))
def dict_missing_str_key(k: str):
    d = {"a": 1}
    return d[k]


@program(DP, (3,), (1,))
def dict_missing_int_key(k: int):
    d = {1: 1.5}
    return d[k]


@program(DP, ({"b": 2, "a": 1, "c": 3},))
def dict_sorted_keys(d: Dict[str, int]):
    return sorted(d.keys()), list(d.values()), [k + str(v) for k, v in d.items()]
