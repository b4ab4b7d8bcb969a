"""The emitter core both dialects share (pyjit/frontend/core.py): what one fix
there gives both, and what the archive dialect still refuses.

``isinstance`` against a bare ``list``/``tuple`` and ``Tensor.tolist()``, in a
Python function (``@pyjit.script``) and in serialized code (the archive
fixture ``tolist_isinstance``, made by tools/archives/make_archives.py, whose
calls test_archives.py runs against torch's results).  The Python function's
expected values are torch's: the same function scripted by torch 2.14 gave
``([[1.0, 1.0], [1.0, 1.0]], True, False, -1, 7)`` and ``([[0.0, 0.0]], True,
False, 1, 0)``, and the two messages below."""

import io
import os
from typing import List, Optional, Tuple

import numpy as np
import pytest

import pyjit
from pyjit.errors import ArchiveCompileError, CompileError

from helpers.archive_cases import HERE
from helpers.crafted import MODULE_CODE, archive


@pyjit.script
def _tolist_isinstance(x: np.ndarray, o: Optional[List[int]], p: Optional[Tuple[int, int]]
                       ) -> Tuple[List[List[float]], bool, bool, int, int]:
    rows: List[List[float]] = x.tolist()
    a = isinstance(rows, list)
    b = isinstance(rows, tuple)
    m = -1
    if isinstance(o, list):
        m = len(o)
    n = 0 if not isinstance(p, tuple) else p[0] + p[1]
    return rows, a, b, m, n


def test_python_dialect_runs_tolist_and_isinstance_as_torch(loop):
    f = pyjit.Function(_tolist_isinstance.graph, loop=loop)
    assert f(np.ones((2, 2)), None, (3, 4)) == ([[1.0, 1.0], [1.0, 1.0]], True, False, -1, 7)
    assert f(np.zeros((1, 2), np.float32), [1], None) == ([[0.0, 0.0]], True, False, 1, 0)
    with pytest.raises(pyjit.InterpreterError, match="Output annotation list dimension and "
                       "runtime tensor dimension must match for tolist()"):
        f(np.ones(3), None, None)
    with pytest.raises(pyjit.InterpreterError, match="Output annotation element type and runtime "
                       "tensor element type must match for tolist\\(\\): Float vs Long"):
        f(np.ones((1, 1), np.int64), None, None)


def test_isinstance_is_decided_statically_where_the_type_decides():
    graph = str(_tolist_isinstance.graph)
    # rows is a float[][]: both tests are constants; o and p are tested when run,
    # and refined in the branch where the test held.
    assert "%a : bool = prim::Constant[value=1]()" in graph
    assert "%b : bool = prim::Constant[value=0]()" in graph
    assert "prim::isinstance[types=[list]](%o)" in graph
    assert "prim::isinstance[types=[tuple]](%p)" in graph
    assert "int[] = prim::unchecked_cast(%o)" in graph
    assert "(int, int) = prim::unchecked_cast(%p)" in graph
    assert "prim::tolist(%x, %3, %4)" in graph


def test_tolist_needs_its_type_from_an_annotation():
    def untyped(x: np.ndarray) -> int:
        xs = x.tolist()
        return len(xs)

    with pytest.raises(CompileError, match=r"test_emitter_core.py:\d+:\d+: tolist\(\) needs "
                       r"the type of its result from an annotation"):
        pyjit.script(untyped)


def test_archive_dialect_compiles_tolist_and_bare_isinstance():
    m = pyjit.load(os.path.join(HERE, "tolist_isinstance.pt"))
    graph = str(m.graph)
    assert "%rows : float[][] = prim::tolist(%x, %4, %5)" in graph
    assert "prim::isinstance[types=[list]](%u)" in graph
    assert "prim::isinstance[types=[tuple]](%a)" in graph
    assert "prim::isinstance[types=[Dict(str, int)]](%a)" in graph


@pytest.mark.parametrize("kind, value, want", [
    ("list", [1], True), ("list", (1,), False), ("tuple", (1, 2), True),
    ("tuple", [1], False), ("dict", {"a": 1}, True), ("dict", [], False)])
def test_a_graph_testing_for_a_bare_container_runs(loop, kind, value, want):
    # torch prints the test for any list as types=[list]; Code() used to refuse it.
    g = pyjit.parse_ir(f"graph(%a : Any):\n  %b : bool = prim::isinstance[types=[{kind}]](%a)\n"
                       "  return (%b)\n")
    assert pyjit.Function(g, loop=loop)(value) is want


@pytest.mark.parametrize("body, problem", [
    ("    for i in range(x):\n      break\n    return x\n", "unsupported statement \\(Break\\)"),
    ("    x += 1\n    return x\n", "unsupported statement \\(AugAssign\\)"),
    ("    raise ValueError(\"no\")\n", "unsupported statement \\(Raise\\)"),
    ("    assert x\n    return x\n", "unsupported statement \\(Assert\\)"),
    ("    if x:\n      return x\n    return 0\n", "a return before the end of the function"),
    ("    l = [x]\n    l[0] = 1\n    return x\n", "unsupported assignment target"),
    ("    a = b = x\n    return x\n", "chained assignment is not serialized code"),
    ("    for i in [1, 2]:\n      pass\n    return x\n",
     "serialized loops are 'for i in range\\(n\\)'"),
    ("    def g(y: int) -> int:\n      return y\n    return x\n",
     "unsupported statement \\(FunctionDef\\)"),
    # the expressions too, each before the core emits it
    ("    return torch.add(x, x + 1)\n", "unsupported expression \\(BinOp\\)"),
    ("    return torch.add(x, -x)\n", "unsupported expression \\(UnaryOp\\)"),
    ("    return torch.add(x, 1 if x < 2 else 3)\n", "unsupported expression \\(Compare\\)"),
    ("    return len([y for y in [x]])\n", "unsupported expression \\(ListComp\\)"),
    ("    return torch.len({x})\n", "unsupported expression \\(Set\\)"),
    ("    return torch.add(x, *[x])\n", "unsupported expression \\(Starred\\)"),
    ("    return torch.add(x, b'1')\n", "unsupported constant"),
    ("    return x if x else 0\n", "a condition must be a bool, not int"),
    ("    return torch.len([])\n", "an empty list needs annotate\\(List\\[T\\], \\[\\]\\)"),
])
def test_the_archive_dialect_accepts_only_what_torch_writes(body, problem):
    # Python the core knows (break, raise, +=, items, operators, comprehensions...)
    # is still refused in an archive, at its line: a statement before anything of
    # the method is emitted, an expression before the core emits it.
    code = MODULE_CODE + "  def other(self: __torch__.M, x: int) -> int:\n" + body
    m = pyjit.load(archive(code=code))
    with pytest.raises(ArchiveCompileError, match=r"code/__torch__.py:\d+:\d+: " + problem):
        m.other(1)


@pytest.mark.parametrize("call, problem", [
    ("(self).twice(x, 1, 2)", "9:11: __torch__.M.twice\\(\\) takes at most 2 arguments, 3 given"),
    ("(self).twice(k=2)", "9:11: __torch__.M.twice\\(\\) is missing its argument 'x'"),
    ("(self).twice(x, z=2)", "9:27: __torch__.M.twice\\(\\) has no parameter 'z'"),
    ("(self).twice(x, x, k=2)", "9:30: __torch__.M.twice\\(\\) got two values for 'k'"),
    ("(self).twice(\"a\")", "9:11: argument 'x' of __torch__.M.twice\\(\\) must be int, not str"),
])
def test_archive_calls_bind_their_arguments_as_the_core_binds(call, problem):
    # One binding of arguments to parameters for both dialects (frontend/arguments):
    # the archive's calls get Python's rules and the core's messages.
    code = MODULE_CODE + ("  def other(self: __torch__.M, x: int) -> int:\n"
                          f"    return {call}\n"
                          "  def twice(self: __torch__.M, x: int, k: int=2) -> int:\n"
                          "    return torch.mul(x, k)\n")
    m = pyjit.load(archive(code=code))
    with pytest.raises(ArchiveCompileError, match=r"^code/__torch__.py:" + problem):
        m.other(1)


def test_archive_calls_fill_defaults_and_convert_as_torch():
    # a bool for an int parameter is torch's implicit aten::Int; the omitted k its
    # default, 2
    code = MODULE_CODE + ("  def other(self: __torch__.M, x: bool) -> int:\n"
                          "    return (self).twice(x, )\n"
                          "  def twice(self: __torch__.M, x: int, k: int=2) -> int:\n"
                          "    return torch.mul(x, k)\n")
    m = pyjit.load(archive(code=code))
    assert m.other(True) == 2
    graph = str(m.other.graph)
    assert "int = aten::Int(%x)" in graph and 'prim::CallMethod[name="twice"]' in graph
