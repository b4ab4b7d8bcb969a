"""Module containers (``nn.Sequential``, ``nn.ModuleList``, ``nn.ModuleDict``): the
programs of test/jit/test_module_containers.py, run with ``self`` as a plain
object holding the submodules by name (``"0"``, ``"1"``... for a list)."""
# flake8: noqa
from collections import OrderedDict
from typing import List

import torch
import torch.nn as nn

from suite import module_program

MC = "test/jit/test_module_containers.py::TestModuleContainers::"


class AddThree(torch.nn.Module):
    def forward(self, x):
        return x + 3


class ToDict(torch.nn.Module):
    def forward(self, x):
        return {"1": x}


@module_program(MC + "test_sequential_intermediary_types", (torch.tensor(1),))
class SequentialIntermediary(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.foo = torch.nn.Sequential(AddThree(), ToDict())

    def forward(self, x):
        return self.foo(x)


class AddTen(torch.nn.Module):
    def forward(self, x):
        return x + 10


class Double(torch.nn.Module):
    def forward(self, x):
        return x * 2


class MinusFourTimesThree(torch.nn.Module):
    def forward(self, x):
        return (x - 4) * 3


def _three():
    return OrderedDict([("one", AddTen()), ("two", Double()), ("three", MinusFourTimesThree())])


_SKIPS = [(torch.tensor(1), name) for name in ["", "one", "two", "three"]]


@module_program(MC + "test_moduledict", *_SKIPS)
class ModuleDictLoops(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.moduledict = nn.ModuleDict(_three())

    def forward(self, x, skip_name: str):
        names = torch.jit.annotate(List[str], [])
        values = []
        for name in self.moduledict:
            names.append(name)

        for name, mod in self.moduledict.items():
            if name != skip_name:
                names.append(name)
                x = mod(x)
                values.append(x)

        for mod in self.moduledict.values():
            x = mod(x)
            values.append(x)

        for key in self.moduledict.keys():
            names.append(key)

        return x, names


@module_program(MC + "test_moduledict", *_SKIPS)
class ModuleDictEnumerate(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.moduledict = nn.ModuleDict(_three())

    def forward(self, x, skip_name: str):
        names = torch.jit.annotate(List[str], [])
        values = []
        x2 = x
        iter = 0
        for name in self.moduledict:
            names.append(name)

        for i, (name, mod) in enumerate(self.moduledict.items()):
            iter += i
            if name != skip_name:
                names.append(name)
                x = mod(x)
                values.append(x)

        for i, mod in enumerate(self.moduledict.values()):
            iter += i
            x = mod(x)
            values.append(x)

        for i, key in enumerate(self.moduledict.keys()):
            iter += i
            names.append(key)

        for mod, mod in zip(self.moduledict.values(), self.moduledict.values()):
            iter += i
            x2 = mod(mod(x2))

        return x, x2, names, iter


@module_program(MC + "test_custom_container_forward", (torch.tensor(.5),), (torch.tensor(-4.),))
class CustomSequential(nn.Sequential):
    def __init__(self):
        super().__init__(nn.ReLU(), AddTen())

    def forward(self, x):
        x = x + 3
        for mod in self:
            x = mod(x)
        return x - 5


@module_program(MC + "test_custom_container_forward", (torch.tensor(.5),), (torch.tensor(-4.),))
class CustomModuleList(nn.ModuleList):
    def __init__(self):
        super().__init__([nn.ReLU(), AddTen()])

    def forward(self, x):
        x = x + 3
        for mod in self:
            x = mod(x)
        return x - 5


@module_program(MC + "test_custom_container_forward", (torch.tensor(.5),), (torch.tensor(-4.),))
class CustomModuleDict(nn.ModuleDict):
    def __init__(self):
        super().__init__(OrderedDict([("one", AddTen()), ("two", nn.ReLU()), ("three", AddTen())]))

    def forward(self, x):
        x = x + 3
        names = torch.jit.annotate(List[str], [])
        for name, mod in self.items():
            x = mod(x)
            names.append(name)
        return names, x - 5


class SubtractI(torch.nn.Module):
    def __init__(self, i):
        super().__init__()
        self.i = i

    def forward(self, thing):
        return thing - self.i


@module_program(MC + "test_script_modulelist_index", (torch.tensor(1),))
class ModuleListIndexForward(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.mods = nn.ModuleList([SubtractI(i) for i in range(10)])

    def forward(self, v):
        v = self.mods[4].forward(v)
        v = self.mods[-1].forward(v)
        v = self.mods[-9].forward(v)
        return v


@module_program(MC + "test_script_modulelist_index", (torch.tensor(1),))
class ModuleListIndexCall(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.mods = nn.ModuleList([SubtractI(i) for i in range(10)])

    def forward(self, v):
        v = self.mods[4](v)
        v = self.mods[-1](v)
        v = self.mods[-9](v)
        return v


@module_program(MC + "test_module_interface_special_methods (lengths and membership)",
                (torch.tensor([1.0, -2.0]),))
class ContainerSpecialMethods(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.modulelist = nn.ModuleList([nn.ReLU(), AddTen()])
        self.moduledict = nn.ModuleDict({"submod": nn.ReLU()})

    def forward(self, inputs):
        assert len(self.modulelist) == 2, "__len__ failing for ModuleList"
        assert len(self.moduledict) == 1, "__len__ failing for ModuleDict"
        i = 0
        for key in self.moduledict:
            i += 1
        assert i == len(self.moduledict), "iteration failing for ModuleDict"
        assert "submod" in self.moduledict, "__contains__ fails for ModuleDict"
        assert "other" not in self.moduledict, "__contains__ fails for ModuleDict"
        for key in self.moduledict.keys():
            assert key == "submod", "keys() fails for ModuleDict"
        for module in self.modulelist:
            inputs = module(inputs)
        return inputs


class Named(torch.nn.Module):
    def __init__(self, identifier: str):
        super().__init__()
        self.identifier = identifier

    def forward(self):
        return 0


@module_program("test/jit/test_slice.py::TestSlice::test_module_list_slicing "
                "(the identifiers of the slices)", ())
class ModuleListSlicing(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.test = torch.nn.ModuleList([Named("A"), Named("B"), Named("C"), Named("D"),
                                         Named("E")])

    def forward(self):
        first = torch.jit.annotate(List[str], [])
        for m in self.test[::-2]:
            first.append(m.identifier)
        second = torch.jit.annotate(List[str], [])
        for m in self.test[1:4:]:
            second.append(m.identifier)
        return first, second
