"""Slices: the programs of test/jit/test_slice.py."""
# flake8: noqa
from typing import List

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
