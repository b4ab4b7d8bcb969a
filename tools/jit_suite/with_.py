"""With statements: the programs of test/jit/test_with.py, their context managers
made inside the program (``prim::Enter``/``prim::Exit`` call a TorchScript class's
``__enter__``/``__exit__``)."""
# flake8: noqa
from typing import Any, List

import torch
from torch import Tensor

from suite import program, seeded

W = "test/jit/test_with.py::TestWith::"
X = (seeded(11, 2, 2),)


@torch.jit.script
class Context(object):
    def __init__(self, start: int):
        self.count = torch.tensor([start], dtype=torch.double)

    def __enter__(self):
        self.count.add_(0.3)
        return self.count

    def __exit__(self, type: Any, value: Any, tb: Any):
        self.count.sub_(0.3)


@program(W + "test_with_as", X)
def with_as_basic(x: Tensor) -> Tensor:
    c = Context(1)
    with c as mult:
        y = x + mult
    y *= c.count
    return y


@program(W + "test_with_as", X)
def with_as_pass(x: Tensor) -> Tensor:
    c = Context(1)
    with c as mult:
        pass
    x *= c.count
    return x


@program(W + "test_with_as", X)
def with_as_serial(x: Tensor) -> Tensor:
    c = Context(1)
    with c as mult:
        y = x + mult
    with c as mult:
        y *= mult
    return y


@program(W + "test_with_as", X)
def with_as_nested(x: Tensor) -> Tensor:
    c = Context(1)
    with c as m:
        with c as n:
            y = x + n
        y *= m
    return y


@program(W + "test_with_as", X)
def with_as_combined(x: Tensor) -> Tensor:
    c = Context(1)
    d = Context(2)
    with c as m, d as n:
        y = x + (m + n)
    return y


@program(W + "test_with_as (the context made inside)", (seeded(12, 2, 2), [2, 0, 1, 3, 0, 2]))
def with_as_break(x: Tensor, l: List[int]) -> Tensor:
    c = Context(2)
    with c as mult:
        for a in l:
            if a == 0:
                break
            x += a * mult
    return x


@program(W + "test_with_as (the context made inside)", (seeded(13, 2, 2), [2, 0, 1, 3, 0, 2]))
def with_as_continue(x: Tensor, l: List[int]) -> Tensor:
    c = Context(2)
    with c as mult:
        for a in l:
            if a == 0:
                continue
            x += a * mult
    return x


@program(W + "test_with_as (the context made inside)", (seeded(14, 2, 2),))
def with_as_early_return(x: Tensor) -> Tensor:
    c = Context(2)
    with c as mult:
        y = x + mult
        return y
    x = y + y
    return x


@program(W + "test_with_no_as", X)
def with_no_as_basic(x: Tensor) -> Tensor:
    c = Context(1)
    with c:
        y = x + c.count
    y *= c.count
    return y


@program(W + "test_with_no_as", X)
def with_no_as_combined(x: Tensor) -> Tensor:
    c = Context(1)
    d = Context(2)
    with c, d:
        y = x + (c.count + d.count)
    return y


def method_that_raises() -> Tensor:
    raise Exception()


@program(W + "test_with_exceptions (the context made inside)", (seeded(15, 2),))
def with_exception(x: Tensor) -> Tensor:
    c = Context(1)
    with c as _:
        x += method_that_raises()
    return x


@program(W + "test_with_no_grad", (seeded(16, 5, 5), seeded(17, 5, 5)))
def with_no_grad(x: Tensor, y: Tensor) -> Tensor:
    with torch.no_grad():
        w = x + y
    return w
