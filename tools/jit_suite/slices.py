"""Slices: the programs of test/jit/test_slice.py."""
# flake8: noqa
from typing import List, Tuple

import torch

from suite import program

S = "test/jit/test_slice.py::TestSlice::"
R = (list(range(10)),)


@program(S + "test_slice_three_nones", R)
def three_nones(x: List[int]):
    return x[slice(None, None, None)]


@program(S + "test_slice_two_nones", R)
def two_nones(x: List[int]):
    return x[slice(None, None)]


@program(S + "test_slice_one_none", R)
def one_none(x: List[int]):
    return x[slice(None)]


@program(S + "test_slice_stop_only", R)
def stop_only(x: List[int]):
    return x[slice(5)]


@program(S + "test_slice_stop_only_with_nones", R)
def stop_only_with_nones(x: List[int]):
    return x[slice(None, 5, None)]


@program(S + "test_slice_start_stop", R)
def start_stop(x: List[int]):
    return x[slice(1, 5)]


@program(S + "test_slice_start_stop_with_none", R)
def start_stop_with_none(x: List[int]):
    return x[slice(1, 5, None)]


@program(S + "test_slice_start_stop_step", R)
def start_stop_step(x: List[int]):
    return x[slice(0, 6, 2)]


@program(S + "test_slice_tensor", (torch.ones(10),))
def slice_tensor(x: torch.Tensor):
    return x[slice(None, 3, 1)]


@program(S + "test_slice_tensor_multidim", (torch.ones((10, 10)),))
def slice_tensor_multidim(x: torch.Tensor):
    return x[slice(None, 3, 1), 0]


@program(S + "test_slice_tensor_multidim_with_dots", (torch.ones((10, 10)),))
def slice_tensor_multidim_with_dots(x: torch.Tensor):
    return x[slice(None, 3, 1), ...]


@program(S + "test_slice_as_variable", R)
def slice_as_variable(x: List[int]):
    a = slice(1)
    return x[a]


@program(S + "test_slice_stop_clipped", R)
def slice_stop_clipped(x: List[int]):
    return x[slice(1000)]


@program(S + "test_slice_dynamic_index", (torch.zeros(3, 2, 3),))
def slice_dynamic_index(x):
    slice1 = x[0:1]
    zero = 0
    one = zero + 1
    slice2 = x[zero:one]
    return slice1 + slice2


@program(S + "test_tuple_slicing", (torch.tensor([1]),), (torch.tensor(1),), (torch.tensor(0),))
def tuple_slice(a):
    b = (1, 2, 3, 4) if bool(a) else (4, 3, 2, 1)
    c = b[-4:4]
    e = c[1:-1]
    return e


# pyjit's probes of slices beyond the test file's: negative steps, bounds clipped,
# a zero step, slices of strings and tensors with computed bounds.
SP = "pyjit: slice probe (test/jit/test_slice.py)"


@program(SP, (list(range(10)),), ([],))
def slice_negative_step(x: List[int]):
    return x[::-1], x[7:2:-2], x[-1:-4:-1], x[2:7:-1]


@program(SP, (list(range(10)), -100, 100), (list(range(10)), 8, 3), (list(range(10)), -3, -1))
def slice_dynamic_bounds(x: List[int], a: int, b: int):
    return x[a:b], x[slice(a, b)], x[a:], x[:b]


@program(SP, (list(range(10)), 0), (list(range(10)), 3), (list(range(10)), -2))
def slice_dynamic_step(x: List[int], s: int):
    return x[::s]


@program(SP, ("hello world",), ("",))
def slice_string_steps(s: str):
    return s[::-1], s[::2], s[-3:], s[1:100:3], s[slice(None, None, -2)]


@program(SP, (torch.arange(10),))
def slice_tensor_steps(x: torch.Tensor):
    return x[::3], x[-3:], x[2:-2:2], x[100:], x[-100:2]


@program(SP, (torch.arange(10),))
def slice_tensor_negative_step(x: torch.Tensor):
    return x[::-1]


@program(SP, (torch.arange(12).reshape(3, 4), 1, 3))
def slice_tensor_2d_dynamic(x: torch.Tensor, a: int, b: int):
    return x[a:b, ::2], x[:, a:b], x[..., -1], x[a:, None, b]


@program(SP, ((1, 2, 3, 4, 5),))
def slice_tuple_steps(t: Tuple[int, int, int, int, int]):
    return t[::2], t[::-1], t[1:-1], t[3:1]
