"""Exceptions and assertions: the runnable programs of test/jit/test_exception.py."""
# flake8: noqa
from typing import List

import torch

from suite import program

E = "test/jit/test_exception.py::TestException::"


@program(E + "test_exceptions", (torch.tensor(0),), (torch.tensor(1),))
def raise_value_error(cond):
    if bool(cond):
        raise ValueError(3)
    return 1


@program(E + "test_exceptions", ())
def foo_no_decl_always_throws():
    raise RuntimeError("Hi")


@program(E + "test_exceptions", ())
def foo_decl_always_throws():
    # type: () -> Tensor
    raise Exception("Hi")  # noqa: TRY002


@program(E + "test_exceptions", ())
def a_escapes_scope():
    if 1 == 1:
        a = 1
    else:
        if 1 == 1:
            raise Exception("Hi")  # noqa: TRY002
        else:
            raise Exception("Hi")  # noqa: TRY002
    return a


@program(E + "test_exceptions", ())
def tuple_fn():
    raise RuntimeError("hello", "goodbye")


@program(E + "test_exceptions", ())
def no_message():
    raise RuntimeError


@program(E + "test_assertions", (torch.tensor(1),), (torch.tensor(0),))
def assert_returning(cond):
    assert bool(cond), "hi"
    return 0


@program(E + "test_assertions", (torch.tensor(1),), (torch.tensor(0),))
def assert_only(cond):
    assert bool(cond), "hi"


class MyValueError(ValueError):
    pass


@program(E + "test_custom_python_exception", ())
def custom_python_exception():
    raise MyValueError("test custom exception")


EX = "pyjit: exception probe (test/jit/test_exception.py)"


def inner_raises(x: int) -> int:
    if x > 2:
        raise ValueError("x is too large: " + str(x))
    return x


def middle_calls(x: int) -> int:
    return inner_raises(x + 1) * 2


@program(EX, (1,), (2,))
def exception_through_calls(x: int) -> int:
    return middle_calls(x)


@program(EX, (1,), (5,))
def exception_formatted(x: int) -> int:
    if x > 3:
        raise RuntimeError("bad value {} (limit {})".format(x, 3))
    return x


@program(EX, (1,), (-1,))
def assert_no_message(x: int) -> int:
    assert x > 0
    return x


@program(EX, ([1, 2],), ([],))
def assert_in_loop(xs: List[int]) -> int:
    total = 0
    for x in xs:
        assert x < 2, "element " + str(x) + " too big"
        total += x
    return total
