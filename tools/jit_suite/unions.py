"""Unions and optionals: programs from test/jit/test_union.py and the optional
programs of test/jit/test_typing.py."""
# flake8: noqa
from typing import Dict, List, Optional, Tuple, Union

import torch

from torch._jit_internal import BroadcastingList2  # noqa: F401 (named in a type comment)

from suite import program

U = "test/jit/test_union.py::TestUnion::"


@program(U + "test_check_union_annotation", (5, 6))
def check_union_annotation(a: Union[int, float], b: Optional[int]):
    return 0


@program(U + "test_union_with_scalar_values", (1,), (1.0,))
def union_with_scalar_values(x: Union[int, float]) -> str:
    return "foo"


@program(U + "test_union_with_collections", ({"foo": 1, "bar": 2, "baz": 3},), ([1, 2, 3],))
def union_with_collections(x: Union[Dict[str, int], List[int]]) -> str:
    return "foo"


@program(U + "test_union_return_type", (1,))
def union_return_type(x: int) -> Union[int, str]:
    return "foo"


@program(U + "test_union_as_annotation", ())
def union_as_annotation() -> Union[int, str]:
    x: Union[int, str] = "foo"
    return x


@program(U + "test_union_as_annotation_in_typed_container", ())
def union_as_annotation_in_typed_container() -> None:
    l: List[Union[int, str]] = []
    u1: Union[int, str] = "foo"
    u2: Union[int, str] = 1
    l.append(u1)
    l.append(u2)


@program(U + "test_union_as_annotation_py2", ())
def union_as_annotation_py2():
    # type: () -> Union[int, str]
    x: Union[int, str] = "foo"
    return x


@program(U + "test_union_as_internal_tuple_type", ())
def union_as_internal_tuple_type():
    t: Tuple[Union[int, str], Union[int, str]] = (1, "foo")
    return t


def aux1(i: int):
    return int(i**2)


def aux2(s: str):
    return s + s


@program(U + "test_union_variable_can_be_reassigned", ())
def union_variable_can_be_reassigned() -> Union[int, str]:
    x: Union[int, str] = "foo"
    i: int = 1
    x = i
    y: int = aux1(x)
    z: str = aux2(str(y))
    x = z
    return x


def inner(x: Union[int, None]) -> int:
    if x is not None:
        return x
    else:
        return 5


@program(U + "test_union_T_None_is_equivalent_to_optional_T", ())
def union_T_None_fn1() -> int:
    a: Optional[int] = 5
    b: Optional[int] = None
    a_ = inner(a)
    b_ = inner(b)
    return a_ + b_


@program(U + "test_union_T_None_is_equivalent_to_optional_T", ())
def union_T_None_fn2() -> int:
    a: Union[int, None] = 5
    b: Union[int, None] = None
    a_ = inner(a)
    b_ = inner(b)
    return a_ + b_


@program(U + "test_union_optional_of_union_is_flattened", (0,), (1,), (2,))
def union_optional_of_union_is_flattened(flag: int) -> Union[str, int, None]:
    y: Union[int, str, None] = "foo"
    if flag == 0:
        x: Optional[Union[int, str]] = y
    elif flag == 1:
        x: Optional[Union[int, str]] = 1
    else:
        x: Optional[Union[int, str]] = None
    return x


@program(U + "test_union_subclasses_larger_union", ())
def union_subclasses_larger_union() -> Union[int, str, torch.Tensor]:
    x: Union[int, str] = "foo"
    return x


@program(U + "test_union_as_dict_value", ())
def union_as_dict_value():
    x: Dict[str, Union[int, str]] = {}
    x["foo"] = "bar"
    x["baz"] = 2
    return x["baz"]


@program(U + "test_union_type_refinement", ("foo",), (1,))
def union_type_refinement(x: Union[int, str]) -> str:
    if isinstance(x, str):
        z = x + "bar"
        return x
    else:
        return "baz"


@program(U + "test_union_type_refinement_union_rhs", (1,))
def union_type_refinement_union_rhs(x: int) -> str:
    if torch.jit.isinstance(x, Union[int, str]):
        return "bar"
    else:
        return "baz"


@program(U + "test_union_type_refinement_tuple_rhs", (1,), (1.0,), (["a", "b", "c"],))
def union_type_refinement_tuple_rhs(x: Union[int, float, List[str]]) -> str:
    if isinstance(x, (int, float)):
        if isinstance(x, int):
            return str(x)
        else:
            return "foo"
    else:
        if len(x):
            return x[0]
        else:
            return "bar"


@program(U + "test_union_type_refinement_tuple_rhs_noncontained_type", (1,), (["a", "b", "c"],))
def union_type_refinement_tuple_rhs_noncontained_type(x: Union[int, List[str]]) -> str:
    if isinstance(x, (int, float)):
        y = x + x
        return str(y)
    else:
        if len(x):
            return x[0]
        else:
            return "bar"


@program(U + "test_union_type_refinement_tuple_rhs_union", (1,))
def union_type_refinement_tuple_rhs_union(x: int) -> str:
    if torch.jit.isinstance(x, (Union[int, str], float)):
        y = x + x
        return str(y)
    else:
        return "foo"


@program(U + "test_union_type_refinement_statically_false", (1,))
def union_type_refinement_statically_false(x: int) -> str:
    if torch.jit.isinstance(x, (Union[str, float], List[str], str)):
        z = x + "foo"
        return z
    else:
        return "bar"


@program(U + "test_union_type_refinement_statically_true", ([4, 5],), (4,))
def union_type_refinement_statically_true(x: Union[List[int], int]) -> Union[List[int], int]:
    if not torch.jit.isinstance(x, (int, List[int])):
        return x
    else:
        l = [1, 2, 3]
        y: Union[List[int], int] = l
        return y


@program(U + "test_union_type_refinement_partial_static_refinement_tuple_rhs", ([1, 2, 3],), (1,))
def union_partial_static_refinement_tuple_rhs(x: Union[List[int], int]) -> int:
    if torch.jit.isinstance(x, (int, float, str)):
        # We should know that `x` is an `int` here
        z = x + 1
        return z
    else:
        return 100


@program(U + "test_union_type_refinement_partial_static_refinement_union_rhs", ([1, 2, 3],), (1,))
def union_partial_static_refinement_union_rhs(x: Union[List[int], int]) -> int:
    if torch.jit.isinstance(x, Union[int, float, str]):
        # We should know that `x` is an `int` here
        z = x + 1
        return z
    else:
        return 100


@program(U + "test_union_type_refinement_internal_declaration", (True,), (False,))
def union_type_refinement_internal_declaration(flag: bool) -> str:
    x: Union[int, str, None] = None
    if flag:
        y = "foo"
    else:
        y = 1
    if isinstance(x, str):
        return x
    else:
        return "bar"


@program(U + "test_union_branching_with_union_return_and_homogenous_types", (1,), (8,))
def union_branching_with_union_return_and_homogenous_types(x: int) -> Union[int, str]:
    if x % 2:
        return "foo"
    else:
        return "bar"


@program(U + "test_union_schema_matching_on_internal_type", ([1, 2, 3],),
         ({"foo": 1, "bar": 2, "baz": 3},))
def union_schema_matching_on_internal_type(x: Union[List[int], Dict[str, int]]) -> int:
    if torch.jit.isinstance(x, List[int]):
        return x[0]
    else:
        return list(x.values())[0]


@program(U + "test_union_subtractive_refinement", (1,), ([1, 2, 3],))
def union_subtractive_refinement(x: Union[List[int], int]) -> int:
    if not isinstance(x, int):
        x.append(1)
        return x[0]
    else:
        return x


@program(U + "test_union_subtractive_refinement_with_container", (1,), ([1, 2, 3],))
def union_subtractive_refinement_with_container(x: Union[List[int], int]) -> int:
    if not torch.jit.isinstance(x, List[int]):
        return x
    else:
        x.append(1)
        return x[0]


@program(U + "test_union_memory_aliasing", ())
def union_memory_aliasing():
    x: List[torch.Tensor] = []
    z: List[Optional[List[torch.Tensor]]] = []
    z.append(x)
    x_alias = z[0]
    if torch.jit.isinstance(x_alias, List[torch.Tensor]):
        x_alias.append(torch.tensor(3))
    return x


@program(U + "test_union_serialization_preserves_type_annotations", (1,), (8,))
def union_serialization_preserves_type_annotations(x: int) -> str:
    if x % 2:
        y: Union[str, int] = "bar"
    else:
        y: Union[str, int] = x
    if isinstance(y, str):
        return y
    else:
        return "baz"


# test_union_with_list_assignment and test_union_with_dict_assignment format one
# template per case; the cases the tests expect to compile are written out here.
LA = U + "test_union_with_list_assignment"


@program(LA, ())
def list_assignment_str_or_tensors_of_tensor():
    x: Union[List[str], List[torch.Tensor]] = [torch.arange(3), torch.arange(5)]
    if torch.jit.isinstance(x, List[torch.Tensor]):
        x.append(torch.tensor(3))
    return x


@program(LA, ())
def list_assignment_str_or_tensors_of_str():
    x: Union[List[str], List[torch.Tensor]] = ["foo", "bar", "baz"]
    if torch.jit.isinstance(x, List[torch.Tensor]):
        x.append(torch.tensor(3))
    return x


@program(LA, ())
def list_assignment_str_or_tensors_comprehension_of_tensor():
    x: Union[List[str], List[torch.Tensor]] = [torch.add(x, 1) for x in [torch.arange(3), torch.arange(5)]]
    if torch.jit.isinstance(x, List[torch.Tensor]):
        x.append(torch.tensor(3))
    return x


@program(LA, ())
def list_assignment_str_or_tensors_comprehension_of_str():
    x: Union[List[str], List[torch.Tensor]] = [x + "!" for x in ["foo", "bar", "baz"]]
    if torch.jit.isinstance(x, List[torch.Tensor]):
        x.append(torch.tensor(3))
    return x


@program(LA, ())
def list_assignment_tensors_or_int_empty():
    x: Union[List[torch.Tensor], int] = []
    if torch.jit.isinstance(x, List[torch.Tensor]):
        x.append(torch.tensor(3))
    return x


@program(LA, ())
def list_assignment_tensors_or_int_of_tensor():
    x: Union[List[torch.Tensor], int] = [torch.arange(3), torch.arange(5)]
    if torch.jit.isinstance(x, List[torch.Tensor]):
        x.append(torch.tensor(3))
    return x


@program(LA, ())
def list_assignment_tensors_or_int_comprehension_of_tensor():
    x: Union[List[torch.Tensor], int] = [torch.add(x, 1) for x in [torch.arange(3), torch.arange(5)]]
    if torch.jit.isinstance(x, List[torch.Tensor]):
        x.append(torch.tensor(3))
    return x


DA = U + "test_union_with_dict_assignment"


@program(DA, ())
def dict_assignment_two_dicts_of_str_tensor():
    x: Union[Dict[str, torch.Tensor], Dict[str, int]] = {"foo" : torch.arange(3), "bar" : torch.arange(5)}
    if torch.jit.isinstance(x, Dict[str, torch.Tensor]):
        x["foo"] = torch.tensor(3)
    return x


@program(DA, ())
def dict_assignment_two_dicts_of_str_int():
    x: Union[Dict[str, torch.Tensor], Dict[str, int]] = {"foo" : 1, "bar" : 2}
    if torch.jit.isinstance(x, Dict[str, torch.Tensor]):
        x["foo"] = torch.tensor(3)
    return x


@program(DA, ())
def dict_assignment_tensors_or_int_empty():
    x: Union[Dict[str, torch.Tensor], int] = {}
    if torch.jit.isinstance(x, Dict[str, torch.Tensor]):
        x["foo"] = torch.tensor(3)
    return x


@program(DA, ())
def dict_assignment_tensors_or_int_of_str_tensor():
    x: Union[Dict[str, torch.Tensor], int] = {"foo" : torch.arange(3), "bar" : torch.arange(5)}
    if torch.jit.isinstance(x, Dict[str, torch.Tensor]):
        x["foo"] = torch.tensor(3)
    return x


@program(DA, ())
def dict_assignment_tensors_or_int_keyword():
    x: Union[Dict[str, torch.Tensor], int] = dict(foo=torch.arange(3), baz=torch.arange(5))
    if torch.jit.isinstance(x, Dict[str, torch.Tensor]):
        x["foo"] = torch.tensor(3)
    return x


@program(DA, ())
def dict_assignment_tensors_or_int_keyword_with_iterable():
    x: Union[Dict[str, torch.Tensor], int] = dict([("foo", torch.arange(3)), ("bar", torch.arange(5))])
    if torch.jit.isinstance(x, Dict[str, torch.Tensor]):
        x["foo"] = torch.tensor(3)
    return x


@program(DA, ())
def dict_assignment_tensors_or_int_keyword_with_empty_iterable():
    x: Union[Dict[str, torch.Tensor], int] = dict([])
    if torch.jit.isinstance(x, Dict[str, torch.Tensor]):
        x["foo"] = torch.tensor(3)
    return x


@program(DA, ())
def dict_assignment_tensors_or_int_keyword_with_mapping():
    x: Union[Dict[str, torch.Tensor], int] = dict({"foo" : torch.arange(3), "bar" : torch.arange(5)})
    if torch.jit.isinstance(x, Dict[str, torch.Tensor]):
        x["foo"] = torch.tensor(3)
    return x


@program(DA, ())
def dict_assignment_tensors_or_int_keyword_with_mapping_and_kwargs():
    x: Union[Dict[str, torch.Tensor], int] = dict({"foo" : torch.arange(3), "bar" : torch.arange(5)}, baz=torch.arange(7))
    if torch.jit.isinstance(x, Dict[str, torch.Tensor]):
        x["foo"] = torch.tensor(3)
    return x


# ---- test/jit/test_typing.py: optionals -------------------------------------------

T = "test/jit/test_typing.py::TestTyping::"


@program(T + "test_opt_opt_refinement", (None, None), (1, None), (None, 2))
def test_unify(weight, bias):
    # type: (Optional[int], Optional[int]) -> Optional[int]
    if weight is not None:
        opt = None
    else:
        if bias is not None:
            opt = 1
        else:
            opt = None

    return opt


@program(T + "test_optional_refinement", (1,), (None,))
def test_if_none_assignment(x):
    # type: (Optional[int]) -> int
    if x is None:
        x = 1
    return x + 1


def other_fn(x=None):
    # type: (Optional[int]) -> int
    return torch.jit._unwrap_optional(x)


@program(T + "test_optional_conversion", (2,))
def optional_conversion_fn(x):
    # type: (int) -> int
    return other_fn(x)


@program(T + "test_optional_conversion", (True,), (False,))
def unify_to_optional(x):
    # type: (bool) -> Optional[int]
    if x:
        a = None
    else:
        a = 2
    return a


def opt_list(x):
    # type: (Optional[List[float]]) -> int
    return 2


def broadcast_opt_list(x):
    # type: (Optional[BroadcastingList2[float]]) -> int
    return 2


@program(T + "test_optional_conversion", ((2.0, 3.0),))
def opt_list_tuple_caller(x):
    # type: (Tuple[float, float]) -> int
    return opt_list(x) + broadcast_opt_list(x)


@program(T + "test_optional_tuple", ((3, 4),), (None,))
def optional_tuple(x=None):
    # type: (Optional[Tuple[int, int]]) -> Tuple[int, int]
    if x is None:
        new_x = (1, 2)
    else:
        new_x = x
    return new_x
