"""Awaitables: ``prim::awaitable`` is lazy, ``prim::awaitable_wait`` runs it once.

Graphs are IR text as torch prints them (the ``with prim::awaitable_N = graph``
section holds what ``torch.jit._awaitable(f, ...)`` runs) and run on both loops.
What the subgraph prints shows when it runs.
"""

from __future__ import annotations

import threading

import pytest

from pyjit.code import AwaitableSite, Code
from pyjit.errors import InterpreterError
from pyjit.futures import Await
from pyjit.interpreter import Awaitable, Function
from pyjit.ir.parser import parse_ir

# %x + 1, printing "ran" first; waited for once or twice, or never.
SUBGRAPH = """\
with prim::awaitable_0 = graph(%x : int):
  %m : str = prim::Constant[value="ran"]()
   = prim::Print(%m)
  %one : int = prim::Constant[value=1]()
  %r : int = aten::add(%x, %one) # sub.py:2:4
  return (%r)
"""


def awaiting(body: str, out: str = "%y") -> str:
    return ("graph(%x : int):\n"
            "  %aw : Await(int) = prim::awaitable_0(%x) # main.py:1:4\n"
            '  %b : str = prim::Constant[value="before"]()\n'
            "   = prim::Print(%b)\n"
            f"{body}  return ({out})\n{SUBGRAPH}")


def test_the_subgraph_runs_at_the_first_wait_not_before(loop, capsys):
    f = Function(parse_ir(awaiting("  %y : int = prim::awaitable_wait(%aw) # main.py:3:4\n")),
                 loop=loop)
    assert f(41) == 42
    assert capsys.readouterr().out == "before\nran\n"


def test_a_second_wait_gets_the_kept_value(loop, capsys):
    f = Function(parse_ir(awaiting(
        "  %y1 : int = prim::awaitable_wait(%aw)\n"
        "  %y2 : int = prim::awaitable_wait(%aw)\n"
        "  %y : (int, int) = prim::TupleConstruct(%y1, %y2)\n")), loop=loop)
    assert f(1) == (2, 2)
    assert capsys.readouterr().out == "before\nran\n"


def test_an_awaitable_nobody_waits_for_never_runs(loop, capsys):
    f = Function(parse_ir(awaiting("", out="%x")), loop=loop)
    assert f(5) == 5
    assert capsys.readouterr().out == "before\n"


def test_an_awaitable_returned_runs_when_the_caller_waits(loop, capsys):
    f = Function(parse_ir(awaiting("", out="%aw")), loop=loop)
    aw = f(9)
    assert isinstance(aw, Await) and not aw.done()
    assert capsys.readouterr().out == "before\n"
    assert aw.wait() == 10 and aw.wait() == 10 and aw.done()
    assert capsys.readouterr().out == "ran\n"


def test_nowait_holds_its_value(loop):
    f = Function(parse_ir("""\
graph(%x : str):
  %aw : Await(str) = prim::awaitable_nowait(%x)
  %y : str = prim::awaitable_wait(%aw)
  return (%y)
"""), loop=loop)
    assert f("v") == "v"


def test_a_failing_subgraph_fails_the_wait_with_both_locations(loop, capsys):
    f = Function(parse_ir("""\
graph(%x : int):
  %aw : Await(int) = prim::awaitable_0(%x) # main.py:1:4
  %y : int = prim::awaitable_wait(%aw) # main.py:2:4
  return (%y)
with prim::awaitable_0 = graph(%x : int):
  %zero : int = prim::Constant[value=0]()
  %r : int = aten::floordiv(%x, %zero) # sub.py:7:8
  return (%r)
"""), loop=loop)
    with pytest.raises(InterpreterError) as info:
        f(3)
    text = str(info.value)
    assert "division by 0" in text and "sub.py:7:8" in text and "main.py:2:4" in text
    assert text.index("sub.py:7:8") < text.index("main.py:2:4")


def test_a_failed_wait_runs_the_subgraph_again_next_time(capsys):
    code = Code(parse_ir("""\
graph(%x : int):
  %m : str = prim::Constant[value="try"]()
   = prim::Print(%m)
  %zero : int = prim::Constant[value=0]()
  %r : int = aten::floordiv(%x, %zero)
  return (%r)
"""))
    aw = Awaitable(code)(1)
    for _ in range(2):
        with pytest.raises(InterpreterError):
            aw.wait()
    assert capsys.readouterr().out == "try\ntry\n" and not aw.done()


def test_threads_waiting_together_run_it_once(capsys):
    aw = Function(parse_ir(awaiting("", out="%aw")))(1)
    capsys.readouterr()
    results = []
    threads = [threading.Thread(target=lambda: results.append(aw.wait())) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(10)
    assert results == [2] * 8
    assert capsys.readouterr().out == "ran\n"


@pytest.mark.parametrize("optimize", [False, True])
def test_the_subgraph_is_compiled_once_and_listed_as_a_subcode(optimize):
    code = Code(parse_ir(awaiting("  %y : int = prim::awaitable_wait(%aw)\n")),
                optimize=optimize)
    (sub,) = code.subcodes()
    assert sub.n_inputs == 1 and sub.n_outputs == 1 and sub.optimize == optimize
    (site,) = [cb for cb in code.callbacks if isinstance(cb, AwaitableSite)]
    assert site.code is sub and repr(site) == f"<prim::awaitable site of {sub!r}>"


def test_an_await_computes_its_value_or_holds_one():
    with pytest.raises(TypeError, match="exactly one"):
        Await()
    assert Await(value=3).wait() == 3 and Await(lambda: 4).wait() == 4
