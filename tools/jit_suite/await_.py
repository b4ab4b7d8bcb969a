"""Awaitables (``torch.jit._awaitable``): the programs of test/jit/test_await.py that
use no TorchScript class."""
# flake8: noqa
from typing import List, Tuple

import torch
from torch import Tensor
from torch._awaits import _Await as Await

from suite import program

W = "test/jit/test_await.py::TestAwait::"


def delayed_int(z: int) -> int:
    return z + 3


@program(W + "test_script", (torch.zeros(2),))
def await_script(x: Tensor):
    aw: Await[int] = torch.jit._awaitable(delayed_int, 99)
    a = torch.eye(2)
    b = torch.jit._awaitable_wait(aw)
    return a + b + x


@program(W + "test_nowait", (torch.zeros(2),))
def await_nowait(x: Tensor):
    aw = torch.jit._awaitable_nowait(13)
    a = torch.eye(2)
    b = torch.jit._awaitable_wait(aw)
    return a + b + x


def delayed_twice(x: Tensor) -> Tensor:
    return 2 * (x + 1)


@program(W + "test_await_isinstance", (torch.eye(2),))
def await_isinstance(x: Tensor) -> Tensor:
    aw = torch.jit._awaitable(delayed_twice, x)
    if torch.jit.is_scripting():
        assert isinstance(aw, torch.jit._Await)
    return torch.jit._awaitable_wait(aw)


def gap(x: Tensor):
    return torch.relu(x) + torch.sin(x)


def delayed_multiout(x: Tensor) -> Tuple[Tensor, List[Tensor]]:
    l = [x * i for i in range(5)]
    return (100 * x, l)


@program(W + "test_await_multiout_save", (torch.eye(2),))
def await_multiout(x: Tensor) -> Tensor:
    aw = torch.jit._awaitable(delayed_multiout, x)
    z = gap(x)
    (_, l) = torch.jit._awaitable_wait(aw)
    return l[3] + z


def delayed_neg(x: Tensor) -> Tensor:
    return -1 * x


def wait_times_three(aw: Await[Tensor]) -> Tensor:
    return 3 * torch.jit._awaitable_wait(aw)


@program(W + "test_await_func_arg", (torch.eye(2),))
def await_func_arg(x: Tensor) -> Tensor:
    aw = torch.jit._awaitable(delayed_neg, x)
    z = gap(x)
    y = wait_times_three(aw)
    return y + x


# ---- awaitables of TorchScript classes (for the class and module work to come) ----

class C1:
    def __init__(self, a: Tensor, b: Tensor):
        self._a = a
        self._b = b

    def a(self) -> Tensor:
        return self._a


@program(W + "test_nowait_class", (torch.zeros(2),))
def await_nowait_class(x: Tensor):
    aw = torch.jit._awaitable_nowait(C1(torch.zeros(2), torch.ones(2)))
    _a = torch.eye(2)
    c = torch.jit._awaitable_wait(aw)
    return _a + c.a() + x


class C2:
    def __init__(self, a: Tensor, b: Tensor):
        self.__a = a
        self.__b = b

    def a(self) -> Tensor:
        return self.__a


def delayed_c2(c: C2) -> Tensor:
    return c.a()


@program(W + "test_await_class_arg", (torch.zeros(2),))
def await_class_arg(x: Tensor):
    c = C2(torch.zeros(2), torch.ones(2))
    aw = torch.jit._awaitable(delayed_c2, c)
    _a = torch.eye(2)
    c2_t = torch.jit._awaitable_wait(aw)
    return _a + c2_t + x


class C3:
    __slots__ = ["_a", "_b"]

    def __init__(self, a: Tensor, b: Tensor):
        self._a = a
        self._b = b


def C3_wait_impl(self: C3):
    return self._a + self._b


@program(W + "test_awaitable_to_await", (torch.ones(2),))
def awaitable_to_await(x: Tensor):
    aw = torch.jit._awaitable(C3_wait_impl, C3(torch.zeros(2), torch.ones(2)))
    _a = torch.eye(2)
    c_wait_impl_res = torch.jit._awaitable_wait(aw)
    return _a + c_wait_impl_res + x


class C4:
    __slots__ = ["a", "b"]

    def __init__(self, a: Tensor, b: Tensor):
        self.a = a
        self.b = b


def C4_wait_impl(self: C4) -> C4:
    return C4(self.a * 2, self.b * 3)


def fn_arg_C4(x: C4) -> Tensor:
    return x.a + x.b


@program(W + "test_await_class_return", (torch.ones(2),))
def await_class_return(x: Tensor):
    aw: Await[C4] = torch.jit._awaitable(C4_wait_impl, C4(x, x))
    _a = torch.eye(2)
    y = fn_arg_C4(torch.jit._awaitable_wait(aw))
    return _a + y + x


class C5:
    def __init__(self, a: Tensor, b: Tensor):
        self._a = a
        self._b = b

    def b(self):
        return self._b


def C5_wait_impl(self: C5) -> C5:
    return C5(self._a * 2, self._b * 3)


@program(W + "test_await_getattr_implicit_convertion", (torch.ones(2),))
def await_getattr_implicit_convertion(x: Tensor):
    aw: Await[C5] = torch.jit._awaitable(C5_wait_impl, C5(x, x))
    _a = torch.eye(2)
    ai = aw._a
    awb = aw.b()
    c = C5(2 * x, 2 * x)
    return _a + ai + x + c._a + c.b()


def delayed_nested(c: C2) -> Await[Tensor]:
    return torch.jit._awaitable_nowait(3 * c.a())


def make_nested(x: Tensor) -> Await[Await[Tensor]]:
    return torch.jit._awaitable(delayed_nested, C2(2 * x, x))


@program(W + "test_await_nested", (torch.eye(2),))
def await_nested(x: Tensor) -> Tensor:
    awaw = make_nested(x)
    return torch.jit._awaitable_wait(torch.jit._awaitable_wait(awaw))
