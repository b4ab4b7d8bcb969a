"""``pyjit.script`` on a class: attributes declared by ``__init__``, methods compiled
to graphs on ``self`` (``prim::GetAttr``/``SetAttr``/``CallMethod``), instances
called; on both loops at both levels (``loop``).

The ``Net`` below is the numpy spelling of ``tools/fixtures/call_programs.py``'s
torch module of the same name: pyjit's scripted class gives torch's recorded
results and leaves the object's attributes as torch left the module's.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from pyjit import CompileError, InterpreterError
from pyjit.frontend import script

from helpers.source_files import load_function, short_paths
from helpers.values import assert_same, decode

COUNTER = '''
from typing import List

import pyjit


@pyjit.script
class Counter:
    def __init__(self, start: int, step: int = 1):
        self.count = start
        self.step = step
        self.seen: List[int] = []

    def bump(self, by: int) -> int:
        self.count += by * self.step
        self.seen.append(self.count)
        return self.count

    def forward(self, n: int) -> int:
        for _ in range(n):
            self.bump(1)
        return self.count


@pyjit.script
def total(c: Counter, n: int) -> int:
    return c(n) + c.bump(100)
'''

NET = '''
from typing import List

import numpy as np
import pyjit


@pyjit.script
class Scale:
    def __init__(self, k: float):
        self.w: np.ndarray = np.linspace(-1.0, 1.0, 4).astype(np.float32) * np.float32(k)
        self.k = k
        self.calls = 0

    def forward(self, x: np.ndarray) -> np.ndarray:
        self.calls += 1
        return x * self.w + self.k

    def shift(self, x: np.ndarray, by: float) -> np.ndarray:
        return x + by * self.k


@pyjit.script
class Net:
    bias: np.ndarray

    def __init__(self):
        self.first = Scale(2.0)
        self.layers = [Scale(0.5), Scale(-1.5)]
        self.offsets: List[int] = [1, 2, 3]
        self.count = 0
        self.bias = np.array([0.25, -0.5, 1.0, 0.0], dtype=np.float32)

    def combine(self, x: np.ndarray, i: int) -> np.ndarray:
        return x * self.offsets[i % len(self.offsets)] + self.bias

    def forward(self, x: np.ndarray) -> np.ndarray:
        y = self.first(x)
        i = 0
        for layer in self.layers:
            y = self.combine(layer(y), i)
            i += 1
        self.count += 1
        self.offsets.append(self.count)
        return self.first.shift(y, float(self.count))
'''


def module(source: str, tmp_path, name: str):
    return load_function(source, tmp_path, name, module_name=name.lower())


def test_attributes_and_methods(tmp_path):
    Counter = module(COUNTER, tmp_path, "Counter")
    sc = Counter.__pyjit_class__
    assert sc.name.startswith("__torch__.counter") and sc.name.endswith(".Counter")
    assert {k: str(t) for k, t in sc.attributes.items()} == {
        "count": "int", "step": "int", "seen": "int[]"}
    assert sc.method_names == ["bump", "forward"]
    c = Counter(10, 2)                 # Python runs __init__
    assert c(3) == 16 and c.bump(5) == 26 and c.seen == [12, 14, 16, 26]
    assert Counter.forward.owner is sc and Counter.__call__ is Counter.forward
    assert Counter.bump(c, 1) == 28    # unbound, self first


def test_pinned_method_graph(tmp_path):
    Counter = module(COUNTER, tmp_path, "Counter")
    name = Counter.__pyjit_class__.name
    assert short_paths(str(Counter.forward.graph), tmp_path) == (
        f"graph(%self : {name},\n"
        "      %n : int):\n"
        "  %2 : bool = prim::Constant[value=1]() # counter.py:20:8\n"
        "  %4 : int = prim::Constant[value=1]() # counter.py:21:22\n"
        "   = prim::Loop(%n, %2) # counter.py:20:8\n"
        "    block0(%3 : int):\n"
        "      %5 : int = prim::CallMethod[name=\"bump\"](%self, %4) # counter.py:21:12\n"
        "      -> (%2)\n"
        "  %7 : int = prim::GetAttr[name=\"count\"](%self) # counter.py:22:15\n"
        "  return (%7)\n")
    assert short_paths(str(Counter.bump.graph), tmp_path) == (
        f"graph(%self : {name},\n"
        "      %by : int):\n"
        "  %2 : int = prim::GetAttr[name=\"count\"](%self) # counter.py:15:8\n"
        "  %3 : int = prim::GetAttr[name=\"step\"](%self) # counter.py:15:27\n"
        "  %4 : int = aten::mul(%by, %3) # counter.py:15:22\n"
        "  %5 : int = aten::add(%2, %4) # counter.py:15:8\n"
        "   = prim::SetAttr[name=\"count\"](%self, %5) # counter.py:15:8\n"
        "  %6 : int[] = prim::GetAttr[name=\"seen\"](%self) # counter.py:16:8\n"
        "  %7 : int = prim::GetAttr[name=\"count\"](%self) # counter.py:16:25\n"
        "  %8 : int[] = aten::append(%6, %7) # counter.py:16:8\n"
        "  %10 : int = prim::GetAttr[name=\"count\"](%self) # counter.py:17:15\n"
        "  return (%10)\n")


def test_methods_run_on_both_loops(tmp_path, loop):
    Counter = module(COUNTER, tmp_path, "Counter")
    sc = Counter.__pyjit_class__
    forward = sc.unit.method(sc.name, "forward", loop=loop)
    c = Counter(0)
    assert forward(c, 4) == 4 and c.seen == [1, 2, 3, 4]
    assert sc.unit.code("forward", sc.name).callees() == (sc.unit.code("bump", sc.name),)


def test_a_function_taking_an_object(tmp_path):
    total = module(COUNTER, tmp_path, "total")
    from pyjit.frontend.classes import find_class
    assert find_class(total.param_types[0]).cls.__name__ == "Counter"
    c = total.function.__globals__["Counter"](1)
    assert total(c, 2) == 3 + 103
    assert set(total.unit.classes[find_class(total.param_types[0]).name]) == {"forward", "bump"}
    kinds = [n.kind for n in total.graph.nodes()]
    assert kinds.count("prim::CallMethod") == 2


def test_torch_module_results(tmp_path, loop):
    """The numpy Net computes what torch's scripted Net computed, call after call,
    and leaves the object as torch left the module."""
    doc = json.loads((Path(__file__).parent / "fixtures" / "calls" / "Net.json").read_text())
    Net = module(NET, tmp_path, "Net")
    sc = Net.__pyjit_class__
    assert {k: str(t).rsplit(".", 1)[-1] for k, t in sc.attributes.items()} == {
        "bias": "Tensor", "first": "Scale", "layers": "Scale[]", "offsets": "int[]",
        "count": "int"}
    forward = sc.unit.method(sc.name, "forward", loop=loop)
    net = Net()
    for call in doc["calls"]:
        assert_same(forward(net, *decode(call["args"])), decode(call["expected"]))
        state = call["state"]["module"]
        assert net.count == state["count"] and net.offsets == state["offsets"]
        assert [net.first.calls] + [s.calls for s in net.layers] == [
            state["first"]["module"]["calls"]] + [s["module"]["calls"] for s in state["layers"]]


def class_error(tmp_path, methods: str, before: str = "") -> str:
    """The CompileError of scripting class ``C`` (``x`` its one attribute) with
    ``methods``, after the module-level code ``before``: ``file:line:col: ...``."""
    source = ("import pyjit\n" + before + "\n\n@pyjit.script\nclass C:\n"
              "    def __init__(self):\n        self.x = 1\n" + methods)
    with pytest.raises(CompileError) as info:
        load_function(source, tmp_path, "C", module_name="bad")
    return short_paths(str(info.value), tmp_path)


def test_errors_name_the_line(tmp_path):
    assert class_error(tmp_path, """
    def f(self) -> int:
        return self.y
""") == ("bad.py:10:15: 'C' has no attribute 'y' (its attributes are those its "
         "__init__ assigns)\n            return self.y\n                   ^")
    assert class_error(tmp_path, """
    def f(self) -> int:
        self.z = 2
        return self.x
""").startswith("bad.py:10:8: 'C' has no attribute 'z': its attributes are declared by "
                "assigning them in __init__")
    assert class_error(tmp_path, """
    def f(self) -> int:
        self.x = "one"
        return self.x
""").startswith("bad.py:10:8: attribute 'x' of C is int, not str")
    assert class_error(tmp_path, """
    def f(self, n: int) -> int:
        return self.g(n)

    def g(self, n: int) -> int:
        return self.f(n)
""").startswith("bad.py:13:15: recursive call of method 'f' of C: recursion is not "
                "supported by pyjit.script")
    assert class_error(tmp_path, """
    def f(self) -> int:
        d = D()
        return self.x
""", before="class D:\n    def __init__(self):\n        self.v = 1\n").startswith(
        "bad.py:13:12: creating a D in a scripted function is not supported")
    assert class_error(tmp_path, """
    def f(self) -> int:
        return self.nope(1)
""").startswith("bad.py:10:15: 'C' has no method 'nope'")


def test_an_annotated_attribute_may_be_anything_python_computes(tmp_path):
    """Python runs __init__: an attribute whose type an annotation gives is not
    compiled (np.linspace is not in pyjit's numpy), one without is."""
    Scale = module(NET, tmp_path, "Scale")
    assert Scale(2.0).w.dtype == np.float32
    with pytest.raises(CompileError, match=r"np\.linspace is not supported by pyjit\.script"):
        load_function(NET.replace("self.w: np.ndarray = ", "self.w = "), tmp_path, "Scale",
                      module_name="scale2")


def test_a_wrong_attribute_value_fails_where_it_is_read(tmp_path, loop):
    Counter = module(COUNTER, tmp_path, "Counter")
    sc = Counter.__pyjit_class__
    c = Counter(1)
    c.step = 1.5            # Python lets it; the graph reads an int
    with pytest.raises(InterpreterError) as info:
        sc.unit.method(sc.name, "bump", loop=loop)(c, 1)
    assert short_paths(str(info.value), tmp_path).startswith(
        "TypeError: attribute 'step': expected int, got float\n"
        "  at counter.py:15:27\n"
        "            self.count += by * self.step\n")
    c.step = np.int64(3)    # an int as numpy holds it is an int
    assert sc.unit.method(sc.name, "bump", loop=loop)(c, 1) == 4


def test_script_refuses_what_is_neither(tmp_path):
    with pytest.raises(TypeError, match="pyjit.script expects a Python function, not int"):
        script(3)
