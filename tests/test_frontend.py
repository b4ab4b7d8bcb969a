"""The Python frontend: pinned graphs for small functions, the ScriptFunction API,
source locations, and the errors (compile time and run time).

Graphs are pinned exactly as ``str(f.graph)`` prints them: each op is the kind
torch's scripting emits for the same code, with the same arguments (checked
against torch 2.x when the pins were written); the sources are written to a file
``prog.py`` so the locations are stable.
"""

from __future__ import annotations

from typing import Optional

import numpy as np
import pytest

import pyjit
from pyjit import CompilationUnit, CompileError, InterpreterError, JITException
from pyjit.frontend import ScriptFunction, script
from pyjit.ir.parser import parse_ir
from pyjit.interpreter import Function

from helpers.source_files import load_function, short_paths


def scripted(source: str, tmp_path, name: Optional[str] = None) -> ScriptFunction:
    return script(load_function(source, tmp_path, name))


def compile_error(source: str, tmp_path) -> CompileError:
    fn = load_function(source, tmp_path)
    with pytest.raises(CompileError) as info:
        script(fn)
    return info.value


def error_text(err: Exception, tmp_path) -> str:
    return short_paths(str(err), tmp_path)


PINNED = [
    # straight
    ('straight',
     """
def f(x: int, y: float) -> float:
    z = x * y + 1
    return z / 2
""",
     """\
graph(%x : int,
      %y : float):
  %3 : int = prim::Constant[value=1]() # prog.py:3:16
  %5 : int = prim::Constant[value=2]() # prog.py:4:15
  %2 : float = aten::mul(%x, %y) # prog.py:3:8
  %z : float = aten::add(%2, %3) # prog.py:3:8
  %6 : float = aten::div(%z, %5) # prog.py:4:11
  return (%6)
"""),
    # ifelse
    ('ifelse',
     """
def f(c: bool, x: int) -> int:
    if c:
        y = x + 1
    else:
        y = x - 1
    return y
""",
     """\
graph(%c : bool,
      %x : int):
  %2 : int = prim::Constant[value=1]() # prog.py:4:16
  %y : int = prim::If(%c) # prog.py:3:4
    block0():
      %y.1 : int = aten::add(%x, %2) # prog.py:4:12
      -> (%y.1)
    block1():
      %y.3 : int = aten::sub(%x, %2) # prog.py:6:12
      -> (%y.3)
  return (%y)
"""),
    # while_exits
    ('while_exits',
     """
def f(n: int) -> int:
    s = 0
    i = 0
    while i < n:
        i += 1
        if i % 3 == 0:
            continue
        if s > 10:
            break
        s += i
    return s
""",
     """\
graph(%n : int):
  %s.1 : int = prim::Constant[value=0]() # prog.py:3:8
  %4 : int = prim::Constant[value=9223372036854775807]() # prog.py:5:4
  %8 : int = prim::Constant[value=1]() # prog.py:6:13
  %10 : int = prim::Constant[value=3]() # prog.py:7:15
  %27 : bool = prim::Constant[value=0]() # prog.py:5:4
  %15 : int = prim::Constant[value=10]() # prog.py:9:15
  %17 : bool = prim::Constant[value=1]() # prog.py:10:12
  %3 : bool = aten::lt(%s.1, %n) # prog.py:5:10
  %i : int, %s : int = prim::Loop(%4, %3, %s.1, %s.1) # prog.py:5:4
    block0(%5 : int, %i.3 : int, %s.3 : int):
      %i.5 : int = aten::add(%i.3, %8) # prog.py:6:8
      %11 : int = aten::remainder(%i.5, %10) # prog.py:7:11
      %13 : bool = aten::eq(%11, %s.1) # prog.py:7:11
      %s.9 : int, %26 : bool = prim::If(%13) # prog.py:7:8
        block0():
          -> (%s.3, %27)
        block1():
          %16 : bool = aten::gt(%s.3, %15) # prog.py:9:11
          %s.7 : int, %21 : bool = prim::If(%16) # prog.py:9:8
            block0():
              -> (%s.3, %17)
            block1():
              %s.5 : int = aten::add(%s.3, %i.5) # prog.py:11:8
              -> (%s.5, %27)
          -> (%s.7, %21)
      %29 : bool = prim::If(%26) # prog.py:5:4
        block0():
          -> (%27)
        block1():
          %28 : bool = aten::lt(%i.5, %n) # prog.py:5:10
          -> (%28)
      -> (%29, %i.5, %s.9)
  return (%s)
"""),
    # early_return
    ('early_return',
     """
def f(n: int) -> int:
    for i in range(n):
        for j in range(i):
            if i * j == 6:
                return i
    return -1
""",
     """\
graph(%n : int):
  %1 : bool = prim::Constant[value=1]() # prog.py:3:4
  %2 : bool = prim::Constant[value=0]() # prog.py:3:4
  %3 : int = prim::Uninitialized() # prog.py:3:4
  %27 : int = prim::Constant[value=-1]() # prog.py:7:11
  %12 : int = prim::Constant[value=6]() # prog.py:5:24
  %25 : bool, %26 : int = prim::Loop(%n, %1, %2, %3) # prog.py:3:4
    block0(%4 : int, %5 : bool, %6 : int):
      %20 : bool, %21 : int = prim::Loop(%4, %1, %5, %6) # prog.py:4:8
        block0(%8 : int, %9 : bool, %10 : int):
          %11 : int = aten::mul(%4, %8) # prog.py:5:15
          %13 : bool = aten::eq(%11, %12) # prog.py:5:15
          %15 : bool, %16 : int = prim::If(%13) # prog.py:5:12
            block0():
              -> (%1, %4)
            block1():
              -> (%9, %10)
          %19 : bool = prim::If(%15) # prog.py:4:8
            block0():
              -> (%2)
            block1():
              -> (%1)
          -> (%19, %15, %16)
      %24 : bool = prim::If(%20) # prog.py:3:4
        block0():
          -> (%2)
        block1():
          -> (%1)
      -> (%24, %20, %21)
  %30 : int = prim::If(%25) # prog.py:7:4
    block0():
      -> (%26)
    block1():
      -> (%27)
  return (%30)
"""),
    # optional
    ('optional',
     """
from typing import Optional

def f(x: Optional[int]) -> int:
    if x is None:
        return 0
    return x + 1
""",
     """\
graph(%x : int?):
  %1 : NoneType = prim::Constant() # prog.py:5:12
  %3 : int = prim::Constant[value=0]() # prog.py:6:15
  %6 : int = prim::Constant[value=1]() # prog.py:7:15
  %2 : bool = aten::__is__(%x, %1) # prog.py:5:7
  %9 : int = prim::If(%2) # prog.py:5:4
    block0():
      -> (%3)
    block1():
      %5 : int = prim::unchecked_cast(%x) # prog.py:7:11
      %7 : int = aten::add(%5, %6) # prog.py:7:11
      -> (%7)
  return (%9)
"""),
    # boolops
    ('boolops',
     """
def f(a: int, b: int, c: int) -> bool:
    return a < b < c or not a == 3
""",
     """\
graph(%a : int,
      %b : int,
      %c : int):
  %7 : bool = prim::Constant[value=1]() # prog.py:3:11
  %8 : int = prim::Constant[value=3]() # prog.py:3:33
  %5 : bool = prim::Constant[value=0]() # prog.py:3:11
  %3 : bool = aten::lt(%a, %b) # prog.py:3:11
  %6 : bool = prim::If(%3) # prog.py:3:11
    block0():
      %4 : bool = aten::lt(%b, %c) # prog.py:3:15
      -> (%4)
    block1():
      -> (%5)
  %11 : bool = prim::If(%6) # prog.py:3:11
    block0():
      -> (%7)
    block1():
      %9 : bool = aten::eq(%a, %8) # prog.py:3:28
      %10 : bool = aten::__not__(%9) # prog.py:3:24
      -> (%10)
  return (%11)
"""),
    # listcomp
    ('listcomp',
     """
from typing import List

def f(xs: List[int]) -> List[int]:
    return [x * 2 for x in xs if x > 0]
""",
     """\
graph(%xs : int[]):
  %3 : bool = prim::Constant[value=1]() # prog.py:5:11
  %6 : int = prim::Constant[value=0]() # prog.py:5:37
  %8 : int = prim::Constant[value=2]() # prog.py:5:16
  %1 : int[] = prim::ListConstruct() # prog.py:5:11
  %2 : int = aten::len(%xs) # prog.py:5:27
   = prim::Loop(%2, %3) # prog.py:5:11
    block0(%4 : int):
      %x : int = aten::__getitem__(%xs, %4) # prog.py:5:27
      %7 : bool = aten::gt(%x, %6) # prog.py:5:33
       = prim::If(%7) # prog.py:5:33
        block0():
          %9 : int = aten::mul(%x, %8) # prog.py:5:12
          %10 : int[] = aten::append(%1, %9) # prog.py:5:11
          -> ()
        block1():
          -> ()
      -> (%3)
  return (%1)
"""),
    # fstring
    ('fstring',
     """
def f(name: str, n: int) -> str:
    return f"{name}: {n}"
""",
     """\
graph(%name : str,
      %n : int):
  %2 : str = prim::Constant[value="{}: {}"]() # prog.py:3:11
  %3 : str = aten::format(%2, %name, %n) # prog.py:3:11
  return (%3)
"""),
    # raise_assert
    ('raise_assert',
     """
def f(n: int) -> int:
    assert n != 0, "zero"
    if n < 0:
        raise ValueError("negative")
    return 100 // n
""",
     """\
graph(%n : int):
  %1 : int = prim::Constant[value=0]() # prog.py:3:16
  %9 : int = prim::Constant[value=100]() # prog.py:6:11
  %7 : str = prim::Constant[value="negative"]() # prog.py:5:25
  %8 : str = prim::Constant[value="builtins.ValueError"]() # prog.py:5:14
  %3 : str = prim::Constant[value="AssertionError: zero"]() # prog.py:3:4
  %4 : NoneType = prim::Constant() # prog.py:3:4
  %2 : bool = aten::ne(%n, %1) # prog.py:3:11
   = prim::If(%2) # prog.py:3:4
    block0():
      -> ()
    block1():
       = prim::RaiseException(%3, %4) # prog.py:3:4
      -> ()
  %6 : bool = aten::lt(%n, %1) # prog.py:4:7
   = prim::If(%6) # prog.py:4:4
    block0():
       = prim::RaiseException(%7, %8) # prog.py:5:8
      -> ()
    block1():
      -> ()
  %10 : int = aten::floordiv(%9, %n) # prog.py:6:11
  return (%10)
"""),
    # tuples
    ('tuples',
     """
from typing import Tuple

def f(t: Tuple[int, float]) -> float:
    a, b = t
    s = 0.0
    for x in t:
        s += x
    return s + a * b
""",
     """\
graph(%t : (int, float)):
  %s.1 : float = prim::Constant[value=0.]() # prog.py:6:8
  %a : int, %b : float = prim::TupleUnpack(%t) # prog.py:5:4
  %x.1 : int, %x : float = prim::TupleUnpack(%t) # prog.py:7:13
  %s.3 : float = aten::add(%s.1, %x.1) # prog.py:8:8
  %s : float = aten::add(%s.3, %x) # prog.py:8:8
  %8 : float = aten::mul(%a, %b) # prog.py:9:15
  %9 : float = aten::add(%s, %8) # prog.py:9:11
  return (%9)
"""),
    # numpy
    ('numpy',
     """
import numpy as np

def f(x: np.ndarray, w: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.tanh(x @ w + b) * 2.0
""",
     """\
graph(%x : Tensor,
      %w : Tensor,
      %b : Tensor):
  %4 : int = prim::Constant[value=1]() # prog.py:5:19
  %7 : float = prim::Constant[value=2.]() # prog.py:5:32
  %3 : Tensor = aten::matmul(%x, %w) # prog.py:5:19
  %5 : Tensor = aten::add(%3, %b, %4) # prog.py:5:19
  %6 : Tensor = aten::tanh(%5) # prog.py:5:11
  %8 : Tensor = aten::mul(%6, %7) # prog.py:5:11
  return (%8)
"""),
    # inline
    # a call of another function, as torch prints it (torch 2.13: the same nodes,
    # the constant printed without a location, the call at the callee's name)
    ('inline',
     """
def double(a: int) -> int:
    return a * 2

def f(x: int) -> int:
    return double(x) + 1
""",
     """\
graph(%x : int):
  %1 : Function = prim::Constant[name="double"]()
  %3 : int = prim::Constant[value=1]() # prog.py:6:23
  %2 : int = prim::CallFunction(%1, %x) # prog.py:6:11
  %4 : int = aten::add(%2, %3) # prog.py:6:11
  return (%4)
"""),
    # range_step
    ('range_step',
     """
def f(a: int, b: int) -> int:
    s = 0
    for i in range(a, b, 2):
        s += i
    return s
""",
     """\
graph(%a : int,
      %b : int):
  %s.1 : int = prim::Constant[value=0]() # prog.py:3:8
  %3 : int = prim::Constant[value=2]() # prog.py:4:25
  %5 : bool = prim::Constant[value=1]() # prog.py:4:4
  %4 : int = aten::__range_length(%a, %b, %3) # prog.py:4:13
  %s : int = prim::Loop(%4, %5, %s.1) # prog.py:4:4
    block0(%6 : int, %s.3 : int):
      %i : int = aten::__derive_index(%6, %a, %3) # prog.py:4:13
      %s.5 : int = aten::add(%s.3, %i) # prog.py:5:8
      -> (%5, %s.5)
  return (%s)
"""),
    # dict_loop
    ('dict_loop',
     """
from typing import Dict, List

def f(words: List[str]) -> Dict[str, int]:
    d: Dict[str, int] = {}
    for w in words:
        d[w] = d.get(w, 0) + 1
    return d
""",
     """\
graph(%words : str[]):
  %3 : bool = prim::Constant[value=1]() # prog.py:6:4
  %6 : int = prim::Constant[value=0]() # prog.py:7:24
  %8 : int = prim::Constant[value=1]() # prog.py:7:29
  %d : Dict(str, int) = prim::DictConstruct() # prog.py:5:24
  %2 : int = aten::len(%words) # prog.py:6:13
   = prim::Loop(%2, %3) # prog.py:6:4
    block0(%4 : int):
      %w : str = aten::__getitem__(%words, %4) # prog.py:6:13
      %7 : int = aten::get(%d, %w, %6) # prog.py:7:15
      %9 : int = aten::add(%7, %8) # prog.py:7:15
       = aten::_set_item(%d, %w, %9) # prog.py:7:8
      -> (%3)
  return (%d)
"""),
]


@pytest.mark.parametrize("name, source, expected", PINNED, ids=[p[0] for p in PINNED])
def test_pinned_graph(name, source, expected, tmp_path):
    f = scripted(source, tmp_path)
    assert short_paths(str(f.graph), tmp_path) == expected
    f.graph.lint()


# -- running what was compiled ------------------------------------------------------------------

RUNS = {
    "straight": [((3, 2.0), 3.5)],
    "ifelse": [((True, 5), 6), ((False, 5), 4)],
    "while_exits": [((0,), 0), ((3,), 3), ((5,), 12), ((40,), 12)],
    "early_return": [((3,), -1), ((4,), 3), ((10,), 3)],
    "optional": [((None,), 0), ((41,), 42)],
    "boolops": [((1, 2, 3), True), ((3, 2, 1), False), ((2, 2, 5), True)],
    "listcomp": [(([3, -1, 0, 5],), [6, 10])],
    "fstring": [(("n", 3), "n: 3")],
    "raise_assert": [((7,), 14), ((-4,), None), ((0,), None)],
    "tuples": [(((2, 1.5),), 6.5)],
    "inline": [((4,), 9)],
    "range_step": [((1, 8), 16), ((5, 5), 0), ((3, 0), 0)],
    "dict_loop": [((["a", "b", "a"],), {"a": 2, "b": 1})],
}


@pytest.mark.parametrize("name, source, expected", PINNED, ids=[p[0] for p in PINNED])
def test_pinned_graph_runs_like_python(name, source, expected, tmp_path):
    fn = load_function(source, tmp_path)
    f = script(fn)
    if name == "numpy":
        x, w, b = np.ones((2, 3)), np.full((3, 4), 0.25), np.arange(4.0)
        np.testing.assert_allclose(f(x, w, b), fn(x, w, b))
        return
    for args, want in RUNS[name]:
        if want is None:  # CPython raises: so does the graph
            with pytest.raises(Exception) as py_err:
                fn(*args)
            with pytest.raises(JITException) as jit_err:
                f(*args)
            assert str(py_err.value) in jit_err.value.msg
            continue
        assert fn(*args) == want
        got = f(*args)
        assert got == want and type(got) is type(want)


@pytest.mark.parametrize("name, source, expected", PINNED, ids=[p[0] for p in PINNED])
def test_round_trip_through_the_text_format(name, source, expected, tmp_path):
    """``parse_ir(str(f.graph))`` prints the same text and computes the same (with
    the texts of the functions it calls, in a unit)."""
    f = scripted(source, tmp_path)
    g = parse_ir(str(f.graph))
    assert str(g) == str(f.graph)
    unit = CompilationUnit({n: str(sf.graph) for n, sf in f.functions.items()})
    for args, want in RUNS.get(name, []):
        if want is not None:
            assert unit.function(f.__name__)(*args) == want


# -- the ScriptFunction API ---------------------------------------------------------------------

GCD = '''
def gcd(a: int, b: int = 18) -> int:
    """Euclid."""
    while b != 0:
        a, b = b, a % b
    return a
'''


def test_script_function_api(tmp_path):
    fn = load_function(GCD, tmp_path)
    f = script(fn)
    assert isinstance(f, ScriptFunction)
    assert isinstance(f.graph, pyjit.Graph)
    assert f.source.startswith("def gcd(a: int, b: int = 18) -> int:\n")
    assert f.__name__ == "gcd" and f.__doc__ == "Euclid." and f.__wrapped__ is fn
    assert f.schema == "gcd(a : int, b : int) -> int"
    assert repr(f) == "<pyjit.ScriptFunction gcd(a : int, b : int) -> int>"
    assert f(12, 18) == 6 and f(12) == 6 and f(b=9, a=6) == 3
    assert str(f.code).startswith(str(f.code.graph))
    assert script(f) is f


def test_decorator_syntax(tmp_path):
    f = load_function('''
        from pyjit.frontend import script

        @script
        def twice(x: float) -> float:
            return x * 2.0
    ''', tmp_path, "twice")
    assert isinstance(f, ScriptFunction)
    assert f(1.25) == 2.5


def test_arguments_are_checked_against_the_annotations(tmp_path):
    f = scripted('''
        from typing import List, Optional, Tuple

        def f(n: int, xs: List[float], t: Tuple[int, str], o: Optional[str]) -> int:
            return n + len(xs) + t[0]
    ''', tmp_path)
    assert f(1, [2.0], (3, "a"), None) == 5
    assert f(1, [], (3, "a"), "s") == 4
    def message(name, t, found, given):
        return (f"f() Expected a value of type '{t}' for argument '{name}' but instead "
                f"found type '{found}' ({given})")

    with pytest.raises(TypeError) as info:
        f("1", [], (3, "a"), None)
    assert str(info.value) == message("n", "int", "str", "'1'")
    with pytest.raises(TypeError) as info:
        f(1, [1, 2], (3, "a"), None)
    assert str(info.value) == message("xs", "float[]", "list[int]", "[1, 2]")
    with pytest.raises(TypeError) as info:
        f(1, [], (3, 4), None)
    assert str(info.value) == message("t", "(int, str)", "tuple[int, int]", "(3, 4)")
    with pytest.raises(TypeError) as info:
        f(1, [], (3, "a"), 5)
    assert str(info.value) == message("o", "str?", "int", "5")
    with pytest.raises(TypeError) as info:
        f(True, [], (3, "a"), None)
    assert str(info.value) == message("n", "int", "bool", "True")
    with pytest.raises(TypeError) as info:
        f(2 ** 70, [], (3, "a"), None)
    assert str(info.value) == message("n", "int", "int",
                                      "1180591620717411303424 is outside int64")
    with pytest.raises(TypeError) as info:  # keywords take the same check
        f(1, [], o=None, t=(2 ** 63, "a"))
    assert str(info.value) == message("t", "(int, str)", "tuple[int, str]",
                                      "9223372036854775808 is outside int64")
    with pytest.raises(TypeError, match=r"^f\(\): missing a required argument: 'o'$"):
        f(1, [], (3, "a"))


def test_an_int_for_a_float_parameter_becomes_a_float(tmp_path):
    f = scripted('''
        def half(x: float) -> str:
            return str(x / 2)
    ''', tmp_path)
    assert f(3) == "1.5"
    assert f(np.int64(3)) == "1.5"


def test_unannotated_parameter_typed_by_its_default(tmp_path):
    f = scripted('''
        def f(x: int, scale=3, name="n") -> str:
            return name + str(x * scale)
    ''', tmp_path)
    assert [str(v.type) for v in f.graph.inputs] == ["int", "int", "str"]
    assert f(2) == "n6"


def test_tuple_result_and_list_mutation_are_visible_to_the_caller(tmp_path):
    f = scripted('''
        from typing import List, Tuple

        def f(xs: List[int]) -> Tuple[int, List[int]]:
            xs.append(len(xs))
            return len(xs), xs
    ''', tmp_path)
    xs = [5]
    n, same = f(xs)
    assert n == 2 and same is xs and xs == [5, 1]


def test_plain_helpers_are_scripted_and_called(tmp_path):
    f = scripted('''
        def square(x: int) -> int:
            return x * x

        def f(a: int) -> int:
            return square(a) + square(2)
    ''', tmp_path, "f")
    kinds = [n.kind for n in f.graph.nodes()]
    assert kinds.count("prim::CallFunction") == 2 and "aten::mul" not in kinds
    assert list(f.functions) == ["f", "square"] and f.unit.functions == ("f", "square")
    assert f.functions["square"].graph is f.unit.graph("square")
    inlined = [n.kind for n in f.inlined_graph.nodes()]
    assert "prim::CallFunction" not in inlined and inlined.count("aten::mul") == 2
    assert f(3) == 13 and Function(f.inlined_graph)(3) == 13
    assert [c.name for c in f.code.callees()] == ["square"]


def test_every_node_is_located_in_the_users_file(tmp_path):
    f = scripted('''
        from typing import List

        def f(xs: List[int], k: int) -> int:
            total = 0
            for i, x in enumerate(xs):
                if x > k:
                    break
                total += x * i
            return total
    ''', tmp_path)
    path = str(tmp_path / "prog.py")
    stack = [f.graph.block]
    count = 0
    while stack:
        for n in stack.pop().nodes():
            count += 1
            assert n.source_location is not None and n.source_location.file == path
            stack.extend(n.blocks)
    assert count > 10
    mul = next(n for n in _all_nodes(f.graph) if n.kind == "aten::mul")
    assert (mul.source_location.line, mul.source_location.col) == (9, 17)
    assert mul.source_location.source_line() == "        total += x * i"


def _all_nodes(graph):
    stack = [graph.block]
    while stack:
        for n in stack.pop().nodes():
            yield n
            stack.extend(n.blocks)


def test_indented_function_locations_point_into_the_file(tmp_path):
    f = load_function('''
        def outer():
            def inner(x: int) -> int:
                return x + 1
            return inner
    ''', tmp_path, "outer")()
    g = script(f).graph
    add = next(n for n in g.nodes() if n.kind == "aten::add")
    assert (add.source_location.line, add.source_location.col) == (4, 15)
    assert add.source_location.source_line() == "        return x + 1"


def test_closure_and_global_constants_become_constants(tmp_path):
    f = load_function('''
        LIMIT = 10
        PAIR = (2, "x")

        def make(k):
            def f(n: int) -> int:
                return n * k + LIMIT + PAIR[0]
            return f
    ''', tmp_path, "make")(7)
    sf = script(f)
    assert sf(1) == 19
    values = sorted(n.attrs["value"] for n in sf.graph.nodes() if n.kind == "prim::Constant"
                    and isinstance(n.attrs.get("value"), int))
    assert values == [0, 2, 7, 10]


# -- compile errors ------------------------------------------------------------------------------

@pytest.mark.parametrize("body, message, col", [
    ("    f = lambda y: y\n    return 0", "a lambda is not supported by pyjit.script", 8),
    ("    with open('x') as fh:\n        pass\n    return 0",
     "the with statement is not supported by pyjit.script", 4),
    ("    try:\n        pass\n    except Exception:\n        pass\n    return 0",
     "try/except is not supported by pyjit.script", 4),
    ("    def g() -> int:\n        return 1\n    return 0",
     "a nested function definition is not supported by pyjit.script", 4),
    ("    if (y := x) > 1:\n        return y\n    return 0",
     "the walrus operator (:=) is not supported by pyjit.script", 8),
    ("    s = {1, 2}\n    return 0", "a set literal is not supported by pyjit.script", 8),
    ("    del x\n    return 0", "the del statement is not supported by pyjit.script", 4),
    ("    return sum(i for i in range(x))",
     "generator expressions are not supported; use a list comprehension", 14),
    ("    return len(f'{x:3d}')",
     "format specs and conversions (!r, :3d) in f-strings are not supported; use str() or "
     "plain {x}", 15),
    ("    for i in range(x):\n        pass\n    else:\n        pass\n    return 0",
     "'for ... else' is not supported", 4),
    ("    xs = []\n    return 0",
     "cannot tell the element type of an empty list; annotate the variable, e.g. "
     "'xs: List[int] = []'", 9),
    ("    return x.bit_length()", "int has no method 'bit_length' that pyjit.script supports",
     11),
    ("    return undefined_thing + x", "undefined name 'undefined_thing'", 11),
    ("    return x + 'a'", "unsupported operand types for +: int and str", 11),
    ("    import math\n    return 0", "import is not supported by pyjit.script", 4),
    ("    d = {'a': x}\n    return d.get()", "Dict(str, int).get() is missing its argument 'key'",
     11),
    ("    return [1, 2].index(x, 0)", "int[].index() takes at most 1 arguments, 2 given", 11),
    ("    return len(x, x)", "len() takes exactly one positional argument here", 11),
    ("    return x and 2", "'and'/'or' on a int gives one of its operands in Python, not a "
     "bool; pyjit.script supports them on bools, or as a condition", 11),
])
def test_unsupported_code_is_a_compile_error_with_a_caret(body, message, col, tmp_path):
    err = compile_error("def f(x: int) -> int:\n" + body + "\n", tmp_path)
    assert err.message == message
    assert err.col == col
    assert err.file == str(tmp_path / "prog.py")
    line_text = (tmp_path / "prog.py").read_text().splitlines()[err.line - 1]
    assert err.line_text == line_text
    assert error_text(err, tmp_path) == (f"prog.py:{err.line}:{col}: {message}\n"
                                         f"    {line_text}\n    {' ' * col}^")


def test_and_or_as_values_need_bools(tmp_path):
    err = compile_error('''
        def f(a: int, b: int) -> int:
            c = a or b
            return c
    ''', tmp_path)
    assert (err.line, err.col) == (3, 8)
    assert err.message == ("'and'/'or' on a int gives one of its operands in Python, not a bool; "
                           "pyjit.script supports them on bools, or as a condition")
    f = scripted('''
        def f(a: int, b: int) -> bool:
            if a or b:
                return a > 0 and b > 0
            return False
    ''', tmp_path)
    assert f(0, 0) is False and f(1, 2) is True and f(0, 2) is False


def test_same_block_rebinding_may_change_type(tmp_path):
    f = scripted('''
        from typing import List

        def f(n: int) -> str:
            x = n
            x = str(x) + "!"
            ys = [1, 2]
            ys = [0.5]
            return x + str(len(ys))
    ''', tmp_path)
    assert f(3) == "3!1"


def test_type_change_in_a_branch_names_both_places(tmp_path):
    err = compile_error('''
        def f(c: bool) -> int:
            x = 1
            if c:
                x = "one"
            return x
    ''', tmp_path)
    assert error_text(err, tmp_path) == (
        "prog.py:5:8: variable 'x' previously had type int (assigned at line 3) but is now "
        "assigned a value of type str\n"
        "            x = \"one\"\n"
        "            ^")


def test_branches_with_different_types_error_at_the_use(tmp_path):
    src = '''
        def f(c: bool) -> str:
            if c:
                y = 1
            else:
                y = "one"
            return str(y)
    '''
    err = compile_error(src, tmp_path)
    assert (err.line, err.col) == (7, 15)
    assert err.message == ("variable 'y' has type int where it is assigned at line 4 but type "
                           "str where it is assigned at line 6; a variable must keep one type "
                           "on every path that reaches its use")


def test_unused_conflicting_branches_compile(tmp_path):
    f = scripted('''
        def f(c: bool) -> int:
            if c:
                y = 1
            else:
                y = "one"
            return 0
    ''', tmp_path)
    assert f(True) == 0


def test_variable_defined_in_one_branch(tmp_path):
    err = compile_error('''
        def f(c: bool) -> int:
            if c:
                y = 1
            return y
    ''', tmp_path)
    assert (err.line, err.col) == (5, 11)
    assert err.message == ("'y' is not defined in the false branch of the if at line 3 (it is "
                           "assigned at line 4 only)")


def test_variable_defined_in_a_loop_is_local_to_it(tmp_path):
    err = compile_error('''
        def f(n: int) -> int:
            for i in range(n):
                y = i
            return y
    ''', tmp_path)
    assert err.message == "undefined name 'y'"


def test_loop_carried_type_change(tmp_path):
    err = compile_error('''
        def f(n: int) -> float:
            s = 0
            for i in range(n):
                s = s + 0.5
            return s
    ''', tmp_path)
    assert (err.line, err.col, err.message) == (
        5, 8, "variable 's' previously had type int (assigned at line 3) but is now assigned "
              "a value of type float")


def test_none_then_value_suggests_optional(tmp_path):
    err = compile_error('''
        def f(n: int) -> int:
            best = None
            for i in range(n):
                best = i
            return 0
    ''', tmp_path)
    assert err.message.endswith("annotate it where it is first assigned, e.g. 'best: "
                                "Optional[int] = None'")


def test_return_type_mismatch(tmp_path):
    err = compile_error('''
        def f(n: int) -> int:
            if n > 0:
                return "positive"
            return n
    ''', tmp_path)
    assert (err.line, err.col) == (4, 8)
    assert err.message == ("the function returns int (the type of its annotation) but this "
                           "return gives str")


def test_missing_return(tmp_path):
    err = compile_error('''
        def f(n: int) -> int:
            if n > 0:
                return 1
    ''', tmp_path)
    assert (err.line, err.col) == (2, 0)
    assert err.message == ("function 'f' is declared to return int but can reach the end of "
                           "its body without a return statement")


def test_missing_annotation(tmp_path):
    err = compile_error('''
        def f(n, m: int) -> int:
            return m
    ''', tmp_path)
    assert (err.line, err.col, err.message) == (2, 6,
                                                "parameter 'n' needs a type annotation")


def test_unsupported_annotation(tmp_path):
    err = compile_error('''
        from typing import Union

        def f(n: Union[int, str]) -> int:
            return 0
    ''', tmp_path)
    assert err.message == "Union types other than Optional[T] are not supported: " \
                          "typing.Union[int, str]"


def test_recursion_is_refused(tmp_path):
    err = compile_error('''
        def helper(n: int) -> int:
            return n if n < 2 else helper(n - 1)

        def f(n: int) -> int:
            return helper(n)
    ''', tmp_path)
    assert err.message == ("recursive call of 'helper': recursion is not supported by "
                           "pyjit.script")


def test_break_in_a_tuple_loop_is_refused(tmp_path):
    err = compile_error('''
        from typing import Tuple

        def f(t: Tuple[int, int]) -> int:
            for x in t:
                if x > 0:
                    break
            return 0
    ''', tmp_path)
    assert err.message.startswith("'break' in a for loop over a tuple is not supported")


# -- run-time errors point at the user's line ------------------------------------------------------

def test_index_error_names_the_source_line(tmp_path):
    f = scripted('''
        from typing import List

        def f(xs: List[int], i: int) -> int:
            total = 0
            total += xs[i]
            return total
    ''', tmp_path)
    assert f([4, 5], 1) == 5
    with pytest.raises(InterpreterError) as info:
        f([4, 5], 7)
    text = error_text(info.value, tmp_path)
    assert "IndexError" in text
    assert "prog.py:6:13\n        total += xs[i]\n                 ^" in text
    assert info.value.location.line == 6


def test_raise_and_assert_become_jit_exceptions(tmp_path):
    f = scripted('''
        def f(n: int) -> int:
            assert n != 3, "not three"
            if n < 0:
                raise ValueError(f"bad {n}")
            return n
    ''', tmp_path)
    with pytest.raises(JITException) as info:
        f(-2)
    assert info.value.msg == "bad -2"
    assert info.value.python_class == "builtins.ValueError"
    assert "prog.py:5:8\n            raise ValueError(f\"bad {n}\")\n            ^" in \
        error_text(info.value, tmp_path)
    with pytest.raises(JITException) as info:
        f(3)
    assert info.value.msg == "AssertionError: not three"
    assert "prog.py:3:4" in error_text(info.value, tmp_path)


def test_errors_in_a_helper_list_the_call_and_the_helper(tmp_path):
    f = scripted('''
        from typing import List

        def pick(xs: List[int], i: int) -> int:
            return xs[i] * 2

        def f(xs: List[int]) -> int:
            return pick(xs, 0) + pick(xs, 5)
    ''', tmp_path, "f")
    with pytest.raises(InterpreterError) as info:
        f([1, 2])
    assert info.value.location.line == 5
    assert error_text(info.value, tmp_path) == (
        "IndexError: list index out of range\n"
        "  at prog.py:8:25, in f\n"
        "        return pick(xs, 0) + pick(xs, 5)\n"
        "                             ^\n"
        "  while running: %6 : int = prim::CallFunction(%2, %xs, %4) # prog.py:8:25\n"
        "  at prog.py:5:11, in pick\n"
        "        return xs[i] * 2\n"
        "               ^\n"
        "  while running: %2 : int = aten::__getitem__(%xs, %i) # prog.py:5:11")
    assert [(fr.function, fr.location.line) for fr in info.value.frames] == [
        ("f", 8), ("pick", 5)]
    # inlined, the helper's nodes keep its locations: one frame, in the helper
    with pytest.raises(InterpreterError) as info:
        Function(f.inlined_graph)([1, 2])
    assert error_text(info.value, tmp_path).startswith(
        "IndexError: list index out of range\n  at prog.py:5:11\n        return xs[i] * 2\n")


def test_division_by_zero(tmp_path):
    f = scripted('''
        def f(a: int, b: int) -> int:
            return a // b
    ''', tmp_path)
    with pytest.raises(InterpreterError, match="ZeroDivisionError") as info:
        f(1, 0)
    assert "return a // b" in str(info.value)


def test_a_missing_operator_is_a_compile_error_at_the_line(tmp_path):
    """Operators are checked against the registry when the function is decorated
    (here on a graph with an operator nobody registered)."""
    from pyjit.frontend.operator_check import check_operators
    from pyjit.ir import SourceLocation, types

    f = scripted('''
        def f(x: int) -> int:
            return x + 1
    ''', tmp_path)
    g = f.graph.copy()
    add = next(n for n in g.nodes() if n.kind == "aten::add")
    with g.inserting_before(add):
        n = g.insert_node(g.create("myns::nothing", [add.input(0)]))
        n.output().set_type(types.INT)
        n.source_location = SourceLocation(str(tmp_path / "prog.py"), 3, 11)
    check_operators(f.graph)
    with pytest.raises(CompileError) as info:
        check_operators(g)
    assert error_text(info.value, tmp_path) == (
        "prog.py:3:11: this operation needs myns::nothing(int), which pyjit's operator library "
        "does not provide\n"
        "        return x + 1\n"
        "               ^")
