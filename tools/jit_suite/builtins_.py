"""Builtins: programs from test/jit/test_builtins.py (del, torch._check, tensor
subscript assignment, item, implicit tensor-to-number conversions), and hash() from test/jit/test_hash.py."""
# flake8: noqa
from typing import Dict, List, Tuple

import torch

from suite import program

B = "test/jit/test_builtins.py::TestBuiltins::"
TB = "test/jit/test_builtins.py::TestTensorBuiltins::"


@program(B + "test_del", ([1, 2, 3],))
def del_local(x: List[int]) -> List[int]:
    a = x * 2
    del a
    return x


@program(B + "test_del_multiple_operands", ([1, 2, 3],))
def del_multiple_locals(x: List[int]) -> List[int]:
    a, b, c = x[0], x[1], x[2]
    del a, b, c
    return x


@program(B + "test_del_multiple_operands", ([0, 1, 2],))
def del_list_multiple_operands(x: List[int]) -> List[int]:
    del x[0], x[1]
    return x


@program(B + "test_del_multiple_operands", ({"hi": 5, "there": 6},))
def del_dict_multiple_operands(x: Dict[str, int]) -> Dict[str, int]:
    del x["hi"], x["there"]
    return x


_CHECKED = torch.tensor([1, 2, 3])


@program(B + "test_torch_check", (_CHECKED,))
def test_check_basic(x):
    torch._check(x.sum().item() > -1000)
    return x


@program(B + "test_torch_check", (_CHECKED,))
def test_check_with_message(x):
    torch._check(x.sum().item() > -1000, "Tensor sum must be reasonable")
    return x


@program(B + "test_torch_check", (_CHECKED,))
def test_check_with_kwarg_message(x):
    torch._check(
        x.sum().item() > -1000, message="Tensor sum must be reasonable"
    )
    return x


@program(B + "test_torch_check", (_CHECKED,))
def test_check_cond_kwarg(x):
    torch._check(cond=x.sum().item() > -1000)
    return x


@program(B + "test_torch_check", (_CHECKED,))
def test_check_both_kwargs(x):
    torch._check(cond=x.sum().item() > -1000, message="Both as kwargs")
    return x


@program(B + "test_torch_check", (_CHECKED,))
def test_check_kwargs_reversed(x):
    torch._check(message="Reversed order", cond=x.sum().item() > -1000)
    return x


@program(B + "test_torch_check", (_CHECKED,))
def test_check_in_loop(x):
    sizes = torch.jit.annotate(List[int], x.tolist())
    for s in sizes:
        torch._check(s > -100)
    return x


_U8 = (torch.zeros(2, dtype=torch.uint8),)


@program(TB + "test_tensor_subscript_assign", _U8)
def subscript_assign_fn1(x):
    a = torch.zeros_like(x, dtype=torch.uint8)
    a[torch.tensor(0)] = torch.tensor(2, dtype=torch.uint8)
    return a


@program(TB + "test_tensor_subscript_assign", _U8)
def subscript_assign_fn2(x):
    a = torch.zeros_like(x, dtype=torch.uint8)
    a[0] = 2
    return a


@program(TB + "test_tensor_subscript_assign", _U8)
def subscript_assign_fn3(x):
    a = torch.zeros_like(x, dtype=torch.uint8)
    a[torch.tensor(0)] = 2
    return a


@program(TB + "test_tensor_subscript_assign", _U8)
def subscript_assign_fn4(x):
    a = torch.zeros_like(x, dtype=torch.uint8)
    a[0] = torch.tensor(2, dtype=torch.uint8)
    return a


@program(TB + "test_tensor_subscript_assign", _U8)
def subscript_assign_fn5(x):
    a = torch.zeros_like(x, dtype=torch.float32)
    a[torch.tensor(0)] = 2
    return a


@program(TB + "test_tensor_item", (torch.tensor(1.0),), (torch.tensor(1),))
def test_scalar_cast(x):
    scalar = x.item()
    return int(scalar), float(scalar)


@program(TB + "test_scalar_to_num_conversions", (torch.tensor([2]),))
def multiple_defs(x):
    c = 1
    x = x + c
    return x


# The tensors the test converts: float, float with grad (not encodable here), int, 1-element.
_CONVERTED = [torch.tensor(1.1), torch.tensor(0), torch.tensor([2]), torch.tensor([2, 2])]


@program(TB + "test_scalar_to_num_conversions",
         *[(torch.zeros(10), t) for t in _CONVERTED])
def tensor_to_int(x, tensor):
    return x.unsqueeze(tensor)


@program(TB + "test_scalar_to_num_conversions",
         *[(torch.zeros(10), t) for t in _CONVERTED])
def tensor_to_float(x, tensor):
    return x.addcmul(tensor, tensor, value=tensor)


H = "test/jit/test_hash.py::TestHash::"


@program(H + "test_hash_tuple", ((1, 2), (1, 2)), ((1, 2), (3, 4)), ((1, 2), (2, 1)))
def hash_tuple(t1: Tuple[int, int], t2: Tuple[int, int]) -> bool:
    return hash(t1) == hash(t2)


@program(H + "test_hash_tuple_nested_unhashable_type", ((1, [1]),))
def hash_unhashable(t1: Tuple[int, List[int]]):
    return hash(t1)


@program(H + "test_hash_tensor", (torch.tensor(1), torch.tensor(1)), (torch.tensor(1), torch.tensor(2)))
def hash_tensor(t1, t2):
    return hash(t1) == hash(t2)


@program(H + "test_hash_tensor (one tensor)", (torch.tensor(1),))
def hash_same_tensor(t1):
    return hash(t1) == hash(t1)


@program(H + "test_hash_none", ())
def hash_none():
    n1 = None
    n2 = None
    return hash(n1) == hash(n2)


@program(H + "test_hash_bool", (True, False), (True, True), (False, True), (False, False))
def hash_bool(b1: bool, b2: bool):
    return hash(b1) == hash(b2)


@program(H + "test_hash_float", (1.2345, 1.2345), (1.2345, 6.789), (1.2345, float("inf")),
         (float("inf"), float("inf")), (1.2345, float("nan")), (float("nan"), float("nan")),
         (float("nan"), float("inf")))
def hash_float(f1: float, f2: float):
    return hash(f1) == hash(f2)


@program(H + "test_hash_int", (123, 456), (123, 123), (123, -123), (-123, -123), (123, 0))
def hash_int(i1: int, i2: int):
    return hash(i1) == hash(i2)


@program(H + "test_hash_string", ("foo", "foo"), ("foo", "bar"), ("foo", ""))
def hash_string(s1: str, s2: str):
    return hash(s1) == hash(s2)
