"""The call boundary (pyjit.arguments): every argument is checked against the
graph's input type before a run, on both loops, and a wrong one is a one-line
``TypeError`` naming the parameter, its type and what was given."""

from __future__ import annotations

import os

import numpy as np
import pytest

import pyjit
from pyjit import cli
from pyjit.arguments import Signature
from pyjit.futures import Future
from pyjit.interpreter import Function
from pyjit.ir.parser import parse_ir
from pyjit.ir.type_relation import check_value

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def identity(t: str, loop) -> Function:
    return Function(parse_ir(f"graph(%x : {t}):\n  return (%x)\n"), loop=loop)


def message(t: str, found: str, given: str, name: str = "%x") -> str:
    return (f"graph() Expected a value of type '{t}' for argument '{name}' but instead "
            f"found type '{found}' ({given})")


ARRAY = np.arange(3, dtype=np.int64)
FUT = Future()

# (input type, a value it takes, what the run gets) -- converted at the top level only
ACCEPTED = [
    ("int", 3, 3),
    ("int", -2 ** 63, -2 ** 63),
    ("int", 2 ** 63 - 1, 2 ** 63 - 1),
    ("int", np.int32(4), 4),
    ("float", 1.5, 1.5),
    ("float", 3, 3.0),
    ("float", np.float32(0.5), 0.5),
    ("bool", True, True),
    ("bool", np.bool_(False), False),
    ("str", "é", "é"),
    ("NoneType", None, None),
    ("Tensor", ARRAY, ARRAY),
    ("Float(2, 3)", ARRAY, ARRAY),
    ("int?", None, None),
    ("int?", 7, 7),
    ("float?", 2, 2.0),
    ("int[]", [1, 2], [1, 2]),
    ("int[][]", [[1], []], [[1], []]),
    ("(int, float)", (1, 2), (1, 2.0)),
    ("Dict(str, int)", {"a": 1}, {"a": 1}),
    ("Union(int, str)", "s", "s"),
    ("Union(str, float)", 2, 2.0),
    ("Scalar", 2, 2),
    ("Scalar", 2.5, 2.5),
    ("Future[int]", FUT, FUT),
    ("Any", object, object),
    ("Device", "cpu", "cpu"),
]


@pytest.mark.parametrize("t, value, expected", ACCEPTED)
def test_accepted_arguments(loop, t, value, expected):
    got = identity(t, loop)(value)
    assert type(got) is type(expected)
    assert got is expected or got == expected


def test_containers_are_the_callers_own(loop):
    xs, d = [1, 2], {"a": [1]}
    f = Function(parse_ir("graph(%xs : int[], %d : Dict(str, int[])):\n"
                          "  return (%xs, %d)\n"), loop=loop)
    a, b = f(xs, d)
    assert a is xs and b is d


# (input type, a value it refuses, found, given)
REFUSED = [
    ("int", 3.5, "float", "3.5"),
    ("int", "a", "str", "'a'"),
    ("int", True, "bool", "True"),
    ("int", 2 ** 70, "int", "1180591620717411303424 is outside int64"),
    ("int", -2 ** 63 - 1, "int", "-9223372036854775809 is outside int64"),
    ("int", np.int64(1).astype(object) * 2 ** 64, "int", "18446744073709551616 is outside int64"),
    ("float", "1.5", "str", "'1.5'"),
    ("float", None, "NoneType", "None"),
    ("bool", 1, "int", "1"),
    ("str", b"x", "bytes", "b'x'"),
    ("NoneType", 0, "int", "0"),
    ("Tensor", [1.0, 2.0], "list[float]", "[1.0, 2.0]"),
    ("Tensor", 1.5, "float", "1.5"),
    ("int?", 1.5, "float", "1.5"),
    ("int[]", (1, 2), "tuple[int, int]", "(1, 2)"),
    ("int[]", [1, "a"], "list[int | str]", "[1, 'a']"),
    ("int[]", [1.5], "list[float]", "[1.5]"),
    ("int[]", [1, 2 ** 64], "list[int]", "18446744073709551616 is outside int64"),
    ("float[]", [1, 2], "list[int]", "[1, 2]"),
    ("(int, str)", (1, 2), "tuple[int, int]", "(1, 2)"),
    ("(int, str)", (1,), "tuple[int]", "(1,)"),
    ("Dict(str, int)", {1: 1}, "dict", "{1: 1}"),
    ("Dict(str, int)", [("a", 1)], "list[tuple]", "[('a', 1)]"),
    ("Union(int, str)", 1.5, "float", "1.5"),
    ("Scalar", True, "bool", "True"),
    ("Future[int]", 3, "int", "3"),
    ("int", "x" * 100, "str", "'xxxxxxxxxxxxxxxxx...xxxxxxxxxxxxxxxxxx'"),
    ("int", np.zeros((2, 2)), "numpy.ndarray of float64", "shape [2, 2]"),
]


@pytest.mark.parametrize("t, value, found, given", REFUSED)
def test_refused_arguments(loop, t, value, found, given):
    f = identity(t, loop)
    with pytest.raises(TypeError) as info:
        f(value)
    assert str(info.value) == message(t, found, given)


def test_the_message_names_the_graphs_parameter(loop):
    """The one-line error names the graph's own input (`%n.1`), as the IR prints it."""
    with open(os.path.join(ROOT, "examples", "fib.ir"), encoding="utf-8") as fh:
        fib = Function(parse_ir(fh.read()), loop=loop)
    assert fib(10) == 55
    with pytest.raises(TypeError) as info:
        fib(3.5)
    assert str(info.value) == message("int", "float", "3.5", name="%n.1")
    with pytest.raises(TypeError) as info:
        fib()
    assert str(info.value) == ("graph() is missing value for argument '%n.1'. "
                               "Declaration: graph(%n.1 : int) -> int")


def test_arity_names_every_missing_parameter(loop):
    f = Function(parse_ir("graph(%a : int, %b : str, %2 : float):\n  return ()\n"), loop=loop)
    with pytest.raises(TypeError) as info:
        f(1)
    assert str(info.value) == ("graph() is missing value for arguments '%b', '%2'. "
                               "Declaration: graph(%a : int, %b : str, %2 : float) -> ()")
    with pytest.raises(TypeError) as info:
        f(1, "", 1.0, 4)
    assert str(info.value) == ("graph() expected at most 3 argument(s) but received 4 "
                               "argument(s). Declaration: graph(%a : int, %b : str, "
                               "%2 : float) -> ()")
    assert f(1, "", 1) is None


def test_a_scripted_function_names_its_python_parameters():
    @pyjit.script
    def scaled(n: int, k: float = 2.0) -> float:
        return n * k

    assert scaled(3) == 6.0 and scaled(3, 1) == 3.0 and scaled(n=2, k=0.5) == 1.0
    with pytest.raises(TypeError) as info:
        scaled(2 ** 64)
    assert str(info.value) == ("scaled() Expected a value of type 'int' for argument 'n' but "
                               "instead found type 'int' (18446744073709551616 is outside "
                               "int64)")
    assert scaled._function().signature.declaration() == "scaled(n : int, k : float) -> float"


def test_a_signature_must_match_the_graph():
    g = parse_ir("graph(%x : int):\n  return (%x)\n")
    with pytest.raises(ValueError, match=r"^the signature f\(x : str\) -> int does not match "
                                         r"the graph's input types$"):
        Function(g, signature=Signature("f", ["x"], [pyjit.ir.types.STR], "int"))


def test_the_fast_path_is_one_guard_per_checked_parameter(monkeypatch):
    """Exact classes never reach the general path; Any is not checked at all."""
    calls = []
    monkeypatch.setattr(Signature, "_slow", lambda self, i, v: calls.append(i) or v)
    sig = Signature.of_graph(parse_ir(
        "graph(%a : int, %b : float, %c : Tensor, %d : str?, %e : Any):\n  return ()\n"))
    assert sig.check(1, 2.0, ARRAY, None, object)[:2] == [1, 2.0]
    assert sig.check(1, 2.0, ARRAY, "s", 5)[3] == "s"
    assert calls == []
    sig.check(True, 2, ARRAY[None], 1, 5)
    assert calls == [0, 1, 3]


def test_check_value_is_the_frontends_check_too():
    assert check_value(np.int64(3), pyjit.ir.types.FLOAT) == 3.0
    with pytest.raises(TypeError, match=r"^expected int\[\], got list\[str\]$"):
        check_value(["a"], pyjit.ir.types.ListType(pyjit.ir.types.INT))
    with pytest.raises(TypeError, match=r"^expected int, got int \(18446744073709551616 is "
                                        r"outside int64\)$"):
        check_value(2 ** 64, pyjit.ir.types.INT)


# -- pyjit run ------------------------------------------------------------------------

@pytest.fixture
def cli_loop(loop, monkeypatch):
    import pyjit.interpreter
    monkeypatch.setattr(pyjit.interpreter, "_default_loop", loop)
    monkeypatch.chdir(ROOT)
    return loop


@pytest.mark.parametrize("args, error", [
    (["3.5"], message("int", "float", "3.5", name="%n.1")),
    (["'a'"], message("int", "str", "'a'", name="%n.1")),
    (["1180591620717411303424"],
     message("int", "int", "1180591620717411303424 is outside int64", name="%n.1")),
    ([], "graph() is missing value for argument '%n.1'. Declaration: graph(%n.1 : int) -> int"),
    (["1", "2"], "graph() expected at most 1 argument(s) but received 2 argument(s). "
                 "Declaration: graph(%n.1 : int) -> int"),
])
def test_cli_run_refuses_a_wrong_argument_on_one_line(cli_loop, capsys, args, error):
    assert cli.main(["run", "examples/fib.ir", *args]) == 1
    out, err = capsys.readouterr()
    assert (out, err) == ("", f"pyjit: error: examples/fib.ir: {error}\n")


# -- keywords: the inputs' names ---------------------------------------------------------

SUB = "graph(%a.1 : int, %b : int):\n  %c : int = aten::sub(%a.1, %b)\n  return (%c)\n"


def test_keywords_name_the_graphs_inputs(loop):
    f = Function(parse_ir(SUB), loop=loop)
    assert f(10, 3) == f(10, b=3) == f(b=3, a=10) == f(**{"a.1": 10, "b": 3}) == 7


@pytest.mark.parametrize("args, kwargs, error", [
    ((), {"c": 1, "a": 2, "b": 3}, "graph() got an unexpected keyword argument 'c'"),
    ((1,), {"a": 2, "b": 3}, "graph() got multiple values for argument '%a.1'"),
    ((), {"a": 2, "a.1": 3, "b": 1}, "graph() got multiple values for argument '%a.1'"),
    ((1, 2), {"b": 3}, "graph() got multiple values for argument '%b'"),
    ((), {"b": 3}, "graph() is missing value for argument '%a.1'"),
    ((1, 2, 3), {"b": 3}, "graph() expected at most 2 argument(s) but received 4 argument(s)"),
])
def test_a_wrong_keyword_is_a_type_error_in_torchs_words(loop, args, kwargs, error):
    f = Function(parse_ir(SUB), loop=loop)
    with pytest.raises(TypeError) as info:
        f(*args, **kwargs)
    assert str(info.value) == f"{error}. Declaration: graph(%a.1 : int, %b : int) -> int"


def test_a_shared_base_name_is_no_keyword(loop):
    """``%x.1`` and ``%x.2`` are both ``x`` in Python: only their full names say which."""
    f = Function(parse_ir("graph(%x.1 : int, %x.2 : int):\n  %y : int = aten::sub(%x.1, %x.2)\n"
                          "  return (%y)\n"), loop=loop)
    assert f(**{"x.2": 1, "x.1": 5}) == 4
    with pytest.raises(TypeError, match="unexpected keyword argument 'x'"):
        f(1, x=2)


def test_keywords_are_checked_as_positional_arguments_are(loop):
    f = Function(parse_ir(SUB), loop=loop)
    with pytest.raises(TypeError) as info:
        f(a="x", b=1)
    assert str(info.value) == message("int", "str", "'x'", "%a.1")
