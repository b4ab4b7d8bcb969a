"""Re-entry: an operator that runs the same Function again (issue 14, item 2).

Graphs calling graphs (``prim::CallFunction``, ``INVOKE``) never recurse in C and
stop at :func:`pyjit.set_recursion_limit`; ``test_calls.py`` and
``test_calls_loop.py`` pin that (``GraphRecursionError``, "a run may hold N
activations").  This file is about the other road into a run: a Python
operator calling the Function that is running it, so every level is a Python
call, a loop run and a Python call again.  With ``sys.setrecursionlimit(20000)``
that used to overflow the compiled loop's C stack (a segfault at depth ~5,000)
and, on both loops, to print one "while running" line per level and one chained
exception per level.  Now, on both loops and both levels:

* the run that would start too deep raises RecursionError (the compiled loop
  when its thread's C stack is nearly full, the pure loop when Python's
  recursion limit is nearly reached), and the error is a RecursionError;
* the message shows three of the repeated levels and counts the rest, as
  Python's traceback does, and the counted levels are left out of the chain
  (the outermost error is chained to the innermost failure), so ``str(exc)``
  and ``traceback.format_exception`` stay short.

The deep case runs in a child process, so that a crash fails the test instead of
killing pytest.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import traceback

import pytest

import pyjit
from pyjit import Function, InterpreterError
from pyjit.ir.parser import parse_ir
from pyjit.registry import Registry

from helpers.subprocesses import checkout_env

AGAIN = """\
graph(%n : int):
  %r : int = checks::again(%n)
  return (%r)
"""

# The child: the same graph, an operator that calls its Function again until the
# recursion gives out, and what the error looked like, as JSON.
CHILD = """\
import json, sys, traceback
import pyjit
from pyjit import _backend
from pyjit.registry import Registry

loop = getattr(_backend, sys.argv[1])()
registry = Registry()
f = None
registry.register("checks::again", lambda n: f(n + 1), types=["int"])
f = pyjit.Function(pyjit.parse_ir(sys.argv[3]), loop=loop, registry=registry,
                   optimize=sys.argv[2] == "O1")
sys.setrecursionlimit(20000)
try:
    f(0)
except BaseException as exc:
    print(json.dumps({"types": [c.__name__ for c in type(exc).__mro__],
                      "str": str(exc),
                      "printed": "".join(traceback.format_exception(exc)),
                      "cause": type(exc.__cause__).__name__,
                      "cause_of_cause": repr(exc.__cause__.__cause__)}))
"""

# Three levels written out, then the count.  The first level is the run that
# would have started too deep (its LOAD) where pyjit's own check stops it; on
# Python 3.13, whose recursion accounting differs, the pure loop may meet
# Python's own limit first, inside an operator: four levels of the call.
DEEP = re.compile(r"""RecursionError: maximum recursion depth exceeded(?P<why>.*)
(?:  while running: %n : int = prim::Load\(\)
  while running: %r : int = checks::again\(%n\)
  while running: %r : int = checks::again\(%n\)
  while running: %r : int = checks::again\(%n\)
|  while running: %r : int = checks::again\(%n\)
  while running: %r : int = checks::again\(%n\)
  while running: %r : int = checks::again\(%n\)
  while running: %r : int = checks::again\(%n\)
)  \[Previous frame repeated (?P<more>\d+) more times\]""")

#: What stopped the recursion on each loop: the run that would have started
#: too deep.  (Should the compiled loop's Py_EnterRecursiveCall count run out
#: before its stack, on a machine with a bigger stack, its message ends the
#: first line instead: " while running a pyjit graph".)
WHY = {"pure": r"( while running a pyjit graph \(Python's recursion limit is nearly used up\))?",
       "compiled": r"( while running a pyjit graph( \(the thread's C stack is nearly used up\))?)?"}

#: Python 3.13 counts the recursion of C calls apart from Python's, with a limit
#: of its own that sys.setrecursionlimit does not raise: each level of this
#: re-entry makes C calls, so that limit is met first, in Python's code between
#: two runs (an argument's check, a Frame made), with Python's own words.
PYTHON_313_WHY = r"( while calling a Python object| in comparison)?"


def _loop_and_level(request):
    return request.node.callspec.params["loop"]


def test_deep_reentry_is_a_short_recursion_error(loop, request):
    name, level = _loop_and_level(request)
    python_313 = sys.version_info >= (3, 13)
    # -P: not the pyjit of the current directory (an unpacked sdist's, with no
    # compiled core) ahead of the one under test that PYTHONPATH names.
    done = subprocess.run([sys.executable, "-P", "-c", CHILD, name, level, AGAIN],
                          capture_output=True, text=True, env=checkout_env(), timeout=120)
    assert done.returncode == 0, f"the child died ({done.returncode}):\n{done.stderr[-3000:]}"
    error = json.loads(done.stdout)
    assert "RecursionError" in error["types"] and "InterpreterError" in error["types"]
    match = DEEP.fullmatch(error["str"])
    assert match, error["str"][:2000]
    assert re.fullmatch(PYTHON_313_WHY if python_313 else WHY[name], match["why"]), \
        match["why"]
    assert int(match["more"]) > 1000          # it did go deep
    # The chain: the innermost failure, then the outermost error; nothing between.
    assert (error["cause"], error["cause_of_cause"]) == ("RecursionError", "None")
    assert len(error["str"].splitlines()) == 6
    printed = error["printed"].splitlines()
    # On 3.13 the innermost failure's own traceback is two levels long (42 lines
    # printed on the compiled loop, 49 on the pure one): the level that met
    # Python's limit has no room left to describe it, so it goes on up one more
    # (interpreter.located_error) before it is located.
    assert len(printed) < (60 if python_313 else 30), error["printed"]
    assert printed.count("The above exception was the direct cause of the following "
                         "exception:") == 1
    assert "During handling of the above exception" not in error["printed"]


# -- shallow re-entry, in process ------------------------------------------------------

def _reentrant(loop, depth: int, fail: bool = False) -> Function:
    """The graph AGAIN with an operator that runs it again until ``n`` reaches
    ``depth``, where it returns ``n`` (or, with ``fail``, raises)."""
    registry = Registry()
    f = None

    def again(n):
        if n < depth:
            return f(n + 1)
        if fail:
            raise ValueError(f"no deeper than {n}")
        return n

    registry.register("checks::again", again, types=["int"])
    f = Function(parse_ir(AGAIN), loop=loop, registry=registry)
    return f


def test_reentry_computes(loop):
    assert _reentrant(loop, 100)(0) == 100


def test_a_failure_deep_in_a_reentry_is_counted_not_repeated(loop):
    with pytest.raises(InterpreterError) as info:
        _reentrant(loop, 10, fail=True)(0)
    err = info.value
    assert str(err) == (
        "ValueError: no deeper than 10\n"
        "  while running: %r : int = checks::again(%n)\n"     # the failing run's own
        "  while running: %r : int = checks::again(%n)\n"
        "  while running: %r : int = checks::again(%n)\n"
        "  while running: %r : int = checks::again(%n)\n"
        "  [Previous frame repeated 7 more times]")
    assert type(err.__cause__) is ValueError and err.__cause__.__cause__ is None
    assert len(traceback.format_exception(err)) < 30


def test_three_levels_are_written_out_and_chained(loop):
    """Up to three levels nothing is counted: each is a line, each run's error is
    chained to the one it met, as any nesting is."""
    with pytest.raises(InterpreterError) as info:
        _reentrant(loop, 2, fail=True)(0)
    err = info.value
    assert str(err) == "ValueError: no deeper than 2" + \
        "\n  while running: %r : int = checks::again(%n)" * 3
    chain = []
    e = err
    while e is not None:
        chain.append(type(e).__name__)
        e = e.__cause__
    assert chain == ["InterpreterError"] * 3 + ["ValueError"]


def test_reentry_through_different_nodes_is_never_counted(loop):
    """Only the same line again is a recursion: an operator running another graph
    keeps its own line and its own link in the chain."""
    registry = Registry()
    inner = Function(parse_ir("""\
graph(%n : int):
  %z : int = prim::Constant[value=0]()
  %r : int = aten::floordiv(%n, %z)
  return (%r)
"""), loop=loop)
    registry.register("checks::other", lambda n: inner(n), types=["int"])
    outer = Function(parse_ir("""\
graph(%n : int):
  %r : int = checks::other(%n)
  return (%r)
"""), loop=loop, registry=registry)
    with pytest.raises(InterpreterError) as info:
        outer(1)
    err = info.value
    assert str(err) == ("ZeroDivisionError: division by 0\n"
                        "  while running: %r : int = aten::floordiv(%n, %z)\n"
                        "  while running: %r : int = checks::other(%n)")
    assert type(err.__cause__) is InterpreterError
    assert type(err.__cause__.__cause__) is ZeroDivisionError
