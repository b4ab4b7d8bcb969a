"""The benchmark workloads: each one a graph in torch's IR text, the same
computation as plain Python written naturally (also the TorchScript source), and
as plain Python calling the graph's operator callables by name.

=============  ==========================================================  =========
name           what one call computes                                      operators
=============  ==========================================================  =========
``fib``        ``a, b = b, (a + b) % 1000003``, 100,000 times (a Loop)     200,000
``collatz``    the steps of collatz(27), 200 times (a while loop with an    ~133,000
               If inside, in a Loop)
``chain``      1,000 dependent int additions ``x = x + y`` (straight line)   1,000
``numpy-16``   200 elementwise ops (+ * - /) on float64 arrays of 16          200
``numpy-1m``   the same on arrays of 1,000,000 (compute-bound)                200
``memory``     50 elementwise ops over 8 MB arrays, each intermediate used    50
               once; tracemalloc's peak is reported too
=============  ==========================================================  =========

"Operators" are the operator calls the graph's own nodes make per call (the
Loop's trip-count bookkeeping that pyjit adds is not counted): the unit of the
"ns per operator" the benchmarks print, the same for every system.  Every size
is a parameter, so the tests can run each workload tiny.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Tuple

import numpy as np

from ..ir import Graph
from ..ir.parser import parse_ir

__all__ = ["Workload", "fib", "collatz", "chain", "numpy_chain", "memory", "WORKLOADS",
           "default_workloads"]

_INT64_MAX = 2 ** 63 - 1


@dataclass(frozen=True)
class Workload:
    """One computation, spelled for every system.

    ``python`` is natural Python, annotated so that TorchScript compiles the
    same text; ``python_ops`` calls the operators by the names in
    ``pyjit.benchmarks.operators`` (``add(x, y)``).  Both define a function
    called ``entry``.
    """

    name: str
    title: str
    ir: str                      # the graph, as torch prints it
    python: str
    python_ops: str
    entry: str
    make_args: Callable[[], Tuple[Any, ...]]
    n_ops: int                   # operator calls per call of the graph
    straight_line: bool          # no control flow: the generated-code target applies
    tensors: bool = False        # inputs and result are numpy arrays
    measure_memory: bool = False
    params: Dict[str, Any] = field(default_factory=dict)

    def graph(self) -> Graph:
        return parse_ir(self.ir, file=f"<benchmark {self.name}>")

    def same(self, a: Any, b: Any) -> bool:
        """Whether two results are the same: ints exactly (type included), arrays
        element for element with the same shape and dtype."""
        if self.tensors:
            return (isinstance(a, np.ndarray) and isinstance(b, np.ndarray)
                    and a.shape == b.shape and a.dtype == b.dtype
                    and bool(np.array_equal(a, b)))
        return type(a) is type(b) and a == b


# -- fib --------------------------------------------------------------------------

def fib(n: int = 100_000) -> Workload:
    """``a, b = b, (a + b) % 1000003`` n times; returns a."""
    ir = """\
graph(%n : int):
  %true : bool = prim::Constant[value=1]()
  %a.1 : int = prim::Constant[value=0]()
  %b.1 : int = prim::Constant[value=1]()
  %m : int = prim::Constant[value=1000003]()
  %a : int, %b : int = prim::Loop(%n, %true, %a.1, %b.1)
    block0(%i : int, %a.2 : int, %b.2 : int):
      %s : int = aten::add(%a.2, %b.2)
      %b.3 : int = aten::remainder(%s, %m)
      -> (%true, %b.2, %b.3)
  return (%a)
"""
    python = """\
def fib(n: int) -> int:
    a, b = 0, 1
    for _ in range(n):
        a, b = b, (a + b) % 1000003
    return a
"""
    python_ops = """\
def fib(n):
    a, b = 0, 1
    for _ in range(n):
        a, b = b, remainder(add(a, b), 1000003)
    return a
"""
    return Workload("fib", f"fib loop: a, b = b, (a + b) % 1000003; n = {n:,}", ir, python,
                    python_ops, "fib", lambda: (n,), 2 * n, straight_line=False,
                    params={"n": n})


# -- collatz ----------------------------------------------------------------------

def collatz_ops(x: int) -> int:
    """Operator calls the collatz graph makes for one start value ``x``."""
    calls = 1                                  # the first y != 1
    while x != 1:
        calls += 2                             # y % 2, == 0
        calls += 1 if x % 2 == 0 else 2        # y // 2, or y * 3 and + 1
        calls += 2                             # steps + 1, y != 1
        x = x // 2 if x % 2 == 0 else 3 * x + 1
    return calls + 1                           # total + steps


def collatz(x: int = 27, reps: int = 200) -> Workload:
    """The number of collatz steps from ``x`` to 1, counted ``reps`` times; returns
    their sum."""
    ir = f"""\
graph(%x : int, %reps : int):
  %true : bool = prim::Constant[value=1]()
  %zero : int = prim::Constant[value=0]()
  %one : int = prim::Constant[value=1]()
  %two : int = prim::Constant[value=2]()
  %three : int = prim::Constant[value=3]()
  %forever : int = prim::Constant[value={_INT64_MAX}]()
  %total : int = prim::Loop(%reps, %true, %zero)
    block0(%r : int, %acc : int):
      %more : bool = aten::ne(%x, %one)
      %steps : int, %last : int = prim::Loop(%forever, %more, %zero, %x)
        block0(%j : int, %s : int, %y : int):
          %rem : int = aten::remainder(%y, %two)
          %even : bool = aten::eq(%rem, %zero)
          %y.1 : int = prim::If(%even)
            block0():
              %half : int = aten::floordiv(%y, %two)
              -> (%half)
            block1():
              %t : int = aten::mul(%y, %three)
              %t.1 : int = aten::add(%t, %one)
              -> (%t.1)
          %s.1 : int = aten::add(%s, %one)
          %more.1 : bool = aten::ne(%y.1, %one)
          -> (%more.1, %s.1, %y.1)
      %acc.1 : int = aten::add(%acc, %steps)
      -> (%true, %acc.1)
  return (%total)
"""
    python = """\
def collatz(x: int, reps: int) -> int:
    total = 0
    for _ in range(reps):
        y = x
        steps = 0
        while y != 1:
            if y % 2 == 0:
                y = y // 2
            else:
                y = y * 3 + 1
            steps += 1
        total += steps
    return total
"""
    python_ops = """\
def collatz(x, reps):
    total = 0
    for _ in range(reps):
        y = x
        steps = 0
        more = ne(y, 1)
        while more:
            if eq(remainder(y, 2), 0):
                y = floordiv(y, 2)
            else:
                y = add(mul(y, 3), 1)
            steps = add(steps, 1)
            more = ne(y, 1)
        total = add(total, steps)
    return total
"""
    return Workload("collatz", f"collatz({x}) steps, repeated {reps} times", ir, python,
                    python_ops, "collatz", lambda: (x, reps), reps * collatz_ops(x),
                    straight_line=False, params={"x": x, "reps": reps})


# -- straight-line chains -------------------------------------------------------------

_CYCLE = (("add", "+"), ("mul", "*"), ("sub", "-"), ("div", "/"))


def _chain_ir(kinds: List[str], type_: str) -> str:
    lines = [f"graph(%x.0 : {type_}, %y : {type_}):"]
    for i, kind in enumerate(kinds):
        lines.append(f"  %x.{i + 1} : {type_} = aten::{kind}(%x.{i}, %y)")
    lines.append(f"  return (%x.{len(kinds)})")
    return "\n".join(lines) + "\n"


def _chain_python(name: str, steps: List[str], annotation: str) -> str:
    head = f"def {name}(x: {annotation}, y: {annotation}) -> {annotation}:\n"
    return head + "".join(f"    x = {s}\n" for s in steps) + "    return x\n"


def chain(n_ops: int = 1000, x: int = 1, y: int = 3) -> Workload:
    """``x = x + y``, n_ops times, on ints (issue 3's measurement: the operator is
    ``operator.add``, and "Python calling the ops" is the function making the
    same calls, ``x = add(x, y)``, generated as source)."""
    return Workload(
        "chain", f"straight line: {n_ops:,} dependent int additions x = x + y",
        _chain_ir(["add"] * n_ops, "int"),
        _chain_python("chain", ["x + y"] * n_ops, "int"),
        _chain_python("chain", ["add(x, y)"] * n_ops, "int"),
        "chain", lambda: (x, y), n_ops, straight_line=True, params={"n_ops": n_ops})


def _tensor_chain(name: str, title: str, n_ops: int, size: int,
                  measure_memory: bool) -> Workload:
    kinds = [_CYCLE[i % 4] for i in range(n_ops)]

    def make_args() -> Tuple[np.ndarray, np.ndarray]:
        # y in [1, 2]: each round of + * - / maps x to x + y - 1, so values stay
        # small and finite whatever the length.
        return np.linspace(0.0, 1.0, size), np.linspace(1.0, 2.0, size)

    return Workload(
        name, title, _chain_ir([k for k, _ in kinds], "Tensor"),
        _chain_python("chain", [f"x {op} y" for _, op in kinds], "Tensor"),
        _chain_python("chain", [f"{k}(x, y)" for k, _ in kinds], "Tensor"),
        "chain", make_args, n_ops, straight_line=True, tensors=True,
        measure_memory=measure_memory, params={"n_ops": n_ops, "size": size})


def numpy_chain(n_ops: int = 200, size: int = 16, name: str = "") -> Workload:
    """``n_ops`` elementwise ops (+ * - / in turn) on float64 arrays of ``size``."""
    return _tensor_chain(name or f"numpy-{_size_name(size)}",
                         f"straight line: {n_ops} numpy elementwise ops on float64[{size:,}]",
                         n_ops, size, measure_memory=False)


def memory(n_ops: int = 50, size: int = 1_000_000) -> Workload:
    """The memory workload: each intermediate is used once, so a system that frees
    values at their last use peaks at a few arrays, not ``n_ops``."""
    mb = size * 8 / 1e6
    return _tensor_chain("memory", f"memory: {n_ops} elementwise ops over {mb:g} MB arrays, "
                         "each intermediate used once", n_ops, size, measure_memory=True)


def _size_name(size: int) -> str:
    return f"{size // 1_000_000}m" if size >= 1_000_000 and size % 1_000_000 == 0 else str(size)


#: The workloads ``pyjit bench`` runs, by name, in order, at the issue's sizes.
WORKLOADS: Dict[str, Callable[[], Workload]] = {
    "fib": fib,
    "collatz": collatz,
    "chain": chain,
    "numpy-16": lambda: numpy_chain(200, 16),
    "numpy-1m": lambda: numpy_chain(200, 1_000_000),
    "memory": memory,
}


def default_workloads() -> List[Workload]:
    return [make() for make in WORKLOADS.values()]
