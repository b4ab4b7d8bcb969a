"""TorchScript classes made and used inside a program: the runnable programs of
test/jit/test_class_type.py (``prim::CreateObject``, methods called by
``prim::CallMethod``), with their classes at module level, as torch needs their
source."""
# flake8: noqa
from typing import List, Optional, Tuple

import torch
from torch import Tensor

from suite import program, seeded

C = "test/jit/test_class_type.py::TestClassType::"


@torch.jit.script
class FooGet(object):
    def __init__(self, x):
        self.foo = x

    def getFooTest(self):
        return self.foo


@program(C + "test_get_with_method", (torch.ones(2, 3),))
def get_with_method(x):
    foo = FooGet(x)
    return foo.getFooTest()


@torch.jit.script
class FooAttr(object):
    def __init__(self, x):
        self.foo = x


@program(C + "test_get_attr", (torch.ones(2, 3),))
def get_attr(x):
    foo = FooAttr(x)
    return foo.foo


@torch.jit.script
class FooIn(object):
    def __init__(self):
        pass

    def __contains__(self, key: str) -> bool:
        return key == "hi"


@program(C + "test_in", ())
def class_in():
    foo = FooIn()
    return "hi" in foo, "no" in foo


@torch.jit.script
class FooInc(object):
    def __init__(self, x: int) -> None:
        self.foo = x

    def incFooTest(self, y: int) -> None:
        self.foo = self.foo + y


@program(C + "test_set_attr_in_method", (1,), (-7,))
def set_attr_in_method(x: int) -> int:
    foo = FooInc(x)
    foo.incFooTest(2)
    return foo.foo


@torch.jit.script
class FooParam(object):
    def __init__(self, x):
        self.attr = x


def read_attr(foo: FooParam) -> Tensor:
    return foo.attr


@program(C + "test_class_type_as_param", (torch.ones(1),))
def class_type_as_param(x):
    foo = FooParam(x)
    return read_attr(foo)


@torch.jit.script
class FooOrder(object):
    def __init__(self, x):
        self.x = x
        self.x = self.get_stuff(x)

    def get_stuff(self, y):
        return self.x + y


@program(C + "test_out_of_order_methods", (torch.ones(1),))
def out_of_order_methods(x):
    f = FooOrder(x)
    return f.x


@torch.jit.script
class FooClone(object):
    def __init__(self, x):
        self.x = x

    def clone(self):
        clone = FooClone(self.x)
        return clone


@program(C + "test_save_load_with_classes_returned", (seeded(3, 2, 3),))
def classes_returned(a):
    foo = FooClone(a)
    foo_clone = foo.clone()
    return foo_clone.x


@torch.jit.script
class FooNested(object):
    def __init__(self, y):
        self.y = y


@torch.jit.script
class FooNested2(object):
    def __init__(self, y):
        self.y = y
        self.nested = FooNested(y)


@torch.jit.script
class FooOuter(object):
    def __init__(self, x):
        self.class_attr = FooNested(x)
        self.class_attr2 = FooNested2(x)
        self.x = self.class_attr.y + self.class_attr2.y


@program(C + "test_save_load_with_classes_nested", (seeded(4, 2, 3),))
def classes_nested(a):
    foo = FooOuter(a)
    return foo.x


@torch.jit.script
class FooOpt(object):
    def __init__(self, x: Optional[int]):
        self.x = x

    def get(self) -> int:
        x = self.x
        if x is None:
            return -1
        return x


@program(C + "test_optional_type_promotion", (3,), (None,))
def optional_attribute(x: Optional[int]) -> int:
    return FooOpt(x).get()


@torch.jit.script
class Counter(object):
    def __init__(self, start: int):
        self.count = start
        self.seen: List[int] = []

    def bump(self, by: int) -> int:
        self.count += by
        self.seen.append(self.count)
        return self.count


@program(C + "test_list_attr_in_method (pyjit: a list attribute)", (3,), (0,))
def list_attribute(n: int) -> Tuple[int, List[int]]:
    c = Counter(10)
    for i in range(n):
        c.bump(i)
    return c.count, c.seen


@torch.jit.script
class Pair(object):
    def __init__(self, a: int, b: int):
        self.a = a
        self.b = b

    def swap(self) -> "Pair":
        return Pair(self.b, self.a)

    def total(self) -> int:
        return self.a + self.b


@program(C + "test_class_returns_itself (pyjit: methods making objects)", (1, 2))
def class_returns_itself(a: int, b: int) -> Tuple[int, int, int]:
    p = Pair(a, b).swap()
    return p.a, p.b, p.total()


@program(C + "test_list_of_objects (pyjit: objects in a list)", (4,))
def list_of_objects(n: int) -> List[int]:
    objs = [Pair(i, i * i) for i in range(n)]
    return [o.total() for o in objs]
