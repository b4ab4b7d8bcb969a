"""``fork``/``wait``: the scripted programs of test/jit/test_async.py.  Forks of
script functions call them from the fork's subgraph, which torch's inliner leaves
alone."""
# flake8: noqa
from typing import Any, List

import torch
from torch import Tensor
from torch.jit import Future

from suite import program, seeded

A = "test/jit/test_async.py::TestAsync::"


def neg_and_t(x: Tensor) -> List[Tensor]:
    return [torch.neg(x), x.t()]


@program(A + "test_async_parsing", (seeded(40, 3, 3),))
def async_parsing_bar(x):
    futures = torch.jit.annotate(List[Future[List[Tensor]]], [])
    for _ in range(3):
        future = torch.jit.annotate(
            Future[List[Tensor]],
            torch.jit.fork(neg_and_t, x)
        )
        futures.append(future)

    output = torch.jit.annotate(List[List[Tensor]], [])
    for i in range(3):
        output.append(torch.jit.wait(futures[i]))
    return output


def neg_pair(x):
    return torch.neg(x), x


@program(A + "test_async_script", (seeded(41, 3, 4),))
def wait_script(x):
    fut = torch.jit.fork(neg_pair, x)
    y_hat = neg_pair(x)
    y = torch.jit.wait(fut)
    return y, y_hat


def wait_script_private(x):
    fut = torch.jit._fork(neg_pair, x)
    y_hat = neg_pair(x)
    y = torch.jit._wait(fut)
    return y, y_hat


@program(A + "test_async_script_nested", (seeded(42, 3, 4),))
def wait_script_nest(x):
    fut = torch.jit._fork(wait_script_private, x)
    return torch.jit._wait(fut)


def neg_t_plus(x):
    return torch.neg(x).t() + x


@program(A + "test_async_script_multi_waits", (seeded(43, 2, 2),))
def wait_script_multi_waits(x):
    fut = torch.jit._fork(neg_t_plus, x)

    # wait twice on the same future
    y1 = torch.jit._wait(fut)
    y2 = torch.jit._wait(fut)
    return y1, y2


def foo1(x):
    return torch.neg(x).t() + x


def foo2(x, y):
    return torch.neg(x).t() + x + torch.neg(y).t()


def foo3(x, y, z):
    return torch.neg(z).t() + y.t() + x


@program(A + "test_async_script_multi_forks",
         (seeded(44, 10, 10), seeded(45, 10, 10), seeded(46, 10, 10)))
def wait_script_multi_forks(x1, x2, x3):
    f1 = torch.jit._fork(foo1, x1)
    f2 = torch.jit._fork(foo2, x1, x2)
    f3 = torch.jit._fork(foo3, x1, x2, x3)
    f4 = torch.jit._fork(foo1, x2)
    f5 = torch.jit._fork(foo2, x2, x3)

    # ignore some forks
    y1 = torch.jit._wait(f1)
    y2 = torch.jit._wait(f2)
    y3 = torch.jit._wait(f3)

    return y1, y2, y3


def kwargs_foo(x1, x2):
    return 2 * x1 + x2


@program(A + "test_async_kwargs", (seeded(47, 3, 4), seeded(48, 3, 4)))
def foo_script_args(x1, x2):
    return torch.jit._wait(torch.jit._fork(kwargs_foo, x1, x2))


@program(A + "test_async_kwargs", (seeded(47, 3, 4), seeded(48, 3, 4)))
def foo_script_kwargs(x1, x2):
    return torch.jit._wait(torch.jit._fork(kwargs_foo, x1=x1, x2=x2))


def t_plus(x):
    # error here
    return x.t() + x


@program(A + "test_async_script_error", (seeded(49, 3, 4),))
def t_plus_direct(x):
    # error here
    return x.t() + x


def wait_t_plus(x):
    fut = torch.jit._fork(t_plus, x)
    return torch.jit._wait(fut)


@program(A + "test_async_script_error", (seeded(49, 3, 4),))
def wait_script_error(x):
    fut = torch.jit._fork(t_plus, x)
    return torch.jit._wait(fut)


@program(A + "test_async_script_error", (seeded(50, 3, 4, 5),))
def wait_script_nest_error(x):
    fut = torch.jit._fork(wait_t_plus, x)
    return torch.jit._wait(fut)


def returns_int(x: int) -> int:
    return x + x + 1


def returns_future_any(x: int) -> torch.jit.Future[Any]:
    return torch.jit._fork(returns_int, (x))


@program(A + "test_future_subtyping", (3,))
def fn_int(x: int) -> Any:
    fut = returns_future_any(x)
    return fut.wait()
