"""Small modules (``self`` is an ``nn.Module``): programs of the JIT test suite whose
graphs use ``prim::GetAttr``/``SetAttr``/``CallMethod``, recorded now for the
module work to come."""
# flake8: noqa
from enum import Enum
from typing import Dict, List, NamedTuple, Union

import torch
import torch.nn as nn

from suite import module_program, seeded


class HasA(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.a = 0


class HasB(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.b = 1


@module_program("test/jit/test_builtins.py::TestBuiltins::test_has_attr", ())
class HasAttrMod(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.mods = torch.nn.ModuleList([HasA(), HasB()])

    def forward(self):
        # use a list to encode hasattr results
        l = torch.jit.annotate(List[int], [])
        for mod in self.mods:
            l.append(int(hasattr(mod, "a")))
            l.append(int(hasattr(mod, "b")))
            # actually retrieve the attr to test static refinement
            if hasattr(mod, "a"):
                l.append(mod.a)
            if hasattr(mod, "b"):
                l.append(mod.b)
        return l


@module_program("test/jit/test_union.py::TestUnion::test_union_module_with_union_instance_variable",
                (1,), make=lambda: UnionInstanceM(2))
class UnionInstanceM(torch.nn.Module):
    x: Union[int, str]

    def __init__(self, x: Union[int, str]):
        super().__init__()
        self.x: Union[int, str] = x

    def forward(self, y: Union[int, str]):
        self.x = y
        return self.x


@module_program("test/jit/test_union.py::TestUnion::test_union_module_with_union_class_variable",
                ("foo",), make=lambda: UnionClassM(1))
class UnionClassM(torch.nn.Module):
    x: Union[int, str] = "foo"

    def __init__(self, y: int):
        super().__init__()
        x = y

    def forward(self, z: str):
        x = z
        return x


class Color(Enum):
    RED = 1
    GREEN = 2


@module_program("test/jit/test_enum.py::TestEnum::test_enum_as_module_attribute", (),
                make=lambda: EnumAttrModule(Color.RED))
class EnumAttrModule(torch.nn.Module):
    def __init__(self, e: Color):
        super(EnumAttrModule, self).__init__()
        self.e = e

    def forward(self):
        return self.e.value


class Config(NamedTuple):
    size: int


@module_program("test/jit/test_list_dict.py::TestNamedTuple::test_namedtuple_as_attr",
                (torch.zeros(2),), make=lambda: NamedTupleAttrMod({0: Config(size=16)}))
class NamedTupleAttrMod(nn.Module):
    configs: Dict[int, Config]

    def __init__(self, configs):
        super().__init__()
        self.configs = configs

    def forward(self, x):
        for config in self.configs.values():
            x += config.size
        return x


class BaseModule(torch.nn.Module):
    state: List[int]

    def forward(self, x):
        pass


def do_something_with_list(x: List[int]):
    if x:
        return x[-1]
    return 5


class Submodule(BaseModule):
    def __init__(self, self_x_value):
        super().__init__()
        self.x = self_x_value
        self.state = []

    def forward(self, x):
        return self.x + x + do_something_with_list(self.state)


@module_program("test/jit/test_typing.py::TestTyping::test_inherited_annotations_python_310",
                (torch.tensor([1.0, 2.0]),))
class LowestModule(Submodule):
    def __init__(self):
        super().__init__(123)


def _capture_mod():
    torch.manual_seed(0)
    return AsyncCaptureMod()


@module_program("test/jit/test_async.py::TestAsync::test_async_script_capture",
                (seeded(60, 3, 4), seeded(61, 5, 6)), make=_capture_mod)
class AsyncCaptureMod(torch.jit.ScriptModule):
    __constants__ = ['const']

    def __init__(self):
        super(AsyncCaptureMod, self).__init__()
        self.const = 42
        self.param = nn.Parameter(torch.randn(2, 2))

    @torch.jit.script_method
    def foo(self, x1, x2):
        return torch.neg(x1), self.param, self.const, torch.neg(x2), self.param

    @torch.jit.script_method
    def forward(self, x1, x2):
        fut = torch.jit.fork(self.foo, x1, x2)
        y_hat = self.foo(x1, x2)
        y = torch.jit.wait(fut)
        return y, y_hat
