"""Builtins: programs from test/jit/test_builtins.py (del, torch._check, tensor
subscript assignment, item, implicit tensor-to-number conversions)."""
# flake8: noqa
from typing import Dict, List

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
