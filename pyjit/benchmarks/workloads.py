"""The benchmark workloads: each one a graph in torch's IR text, the same
computation as natural Python (also the TorchScript source), and as Python
calling the graph's operator callables by name.

==============  =========================================================  ==========
name            what one call computes                                     operators
==============  =========================================================  ==========
``fib``         ``a, b = b, (a + b) % 1000003``, 100,000 times (a Loop)    200,000
``collatz``     the steps of collatz(27), 200 times (a while loop with an  119,600
                If inside, in a Loop)
``chain``       1,000 dependent int additions ``x = x + y`` (straight      1,000
                line)
``float-loop``  ``s = s + x * 1.0001 - 0.25``, then ``if s > 1000.0:       ~400,000
                s = s - 1000.0``, 100,000 times on floats
``numpy-16``    200 elementwise ops (+ * - /) on float32 arrays of 16      200
``numpy-1m``    the same on float64 arrays of 1,000,000 (compute-bound)    200
``memory``      50 elementwise ops over 8 MB arrays, each intermediate     50
                used once; tracemalloc's peak is reported too
==============  =========================================================  ==========

Every graph is the one torch prints for the natural Python, so that pyjit runs
it with its own operator library the way a user's scripted function runs:
``aten::remainder`` for ``%``, ``aten::floordiv`` for ``//``, ``aten::gt`` on
floats, the tensor ``aten::add(Tensor, Tensor, alpha)`` with its constant alpha
of 1.  The loop workloads hold torch's text verbatim, as data beside this module
(``graphs/<name>.ir``: ``str(graph)`` of ``torch.jit.CompilationUnit(w.python)``,
torch 2.13.0; the ``# <string>:4:19`` comments are positions in ``w.python``); the straight-line ones generate it,
names included (torch numbers each new ``x`` four further on), since it runs to
1,000 lines.  ``tests/test_benchmarks.py`` checks both against torch when it is
installed, and always against what :func:`pyjit.script` makes of ``w.python``.

"Operators" are the operator calls the graph's own nodes make per call (the
Loop's trip-count bookkeeping is not counted): the unit of the "ns per
operator" the benchmarks print, the same for every system.  Every size is a
parameter, so the tests can run each workload tiny.
"""

from __future__ import annotations

from pathlib import Path

from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Tuple

import numpy as np

from ..ir import Graph
from ..ir.parser import parse_ir

_GRAPHS = Path(__file__).with_name("graphs")


def _graph_text(name: str) -> str:
    """Torch's text of a loop workload's graph, kept as data (``graphs/``)."""
    return (_GRAPHS / name).read_text(encoding="utf-8")


__all__ = ["Workload", "fib", "collatz", "chain", "float_loop", "numpy_chain", "memory",
           "WORKLOADS", "default_workloads", "collatz_ops", "float_loop_ops"]


@dataclass(frozen=True)
class Workload:
    """One computation, spelled for every system.

    ``python`` is natural Python, annotated so that TorchScript compiles the
    same text; ``python_ops`` calls the operators by the names in
    ``pyjit.benchmarks.operators`` (``add(x, y)``), with the arguments the
    graph's nodes pass them; ``python_numpy`` (tensor workloads only) is the
    computation as bare numpy calls (``np.add(x, y)``), issue 11's reference for
    small tensors.  All define a function called ``entry``.
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
    python_numpy: str = ""

    def graph(self) -> Graph:
        return parse_ir(self.ir, file=f"<benchmark {self.name}>")

    def same(self, a: Any, b: Any) -> bool:
        """Whether two results are the same: scalars exactly (type included),
        arrays element for element with the same shape and dtype."""
        if self.tensors:
            return (isinstance(a, np.ndarray) and isinstance(b, np.ndarray)
                    and a.shape == b.shape and a.dtype == b.dtype
                    and bool(np.array_equal(a, b)))
        return type(a) is type(b) and a == b


# -- fib --------------------------------------------------------------------------

_FIB_PYTHON = """\
def fib(n: int) -> int:
    a, b = 0, 1
    for _ in range(n):
        a, b = b, (a + b) % 1000003
    return a
"""

_FIB_IR = _graph_text("fib.ir")


def fib(n: int = 100_000) -> Workload:
    """``a, b = b, (a + b) % 1000003`` n times; returns a."""
    python_ops = """\
def fib(n):
    a, b = 0, 1
    for _ in range(n):
        a, b = b, remainder(add(a, b), 1000003)
    return a
"""
    return Workload("fib", f"fib loop: a, b = b, (a + b) % 1000003; n = {n:,}", _FIB_IR,
                    _FIB_PYTHON, python_ops, "fib", lambda: (n,), 2 * n, straight_line=False,
                    params={"n": n})


# -- collatz ----------------------------------------------------------------------

_COLLATZ_PYTHON = """\
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

_COLLATZ_IR = _graph_text("collatz.ir")


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
    return Workload("collatz", f"collatz({x}) steps, repeated {reps} times", _COLLATZ_IR,
                    _COLLATZ_PYTHON, python_ops, "collatz", lambda: (x, reps),
                    reps * collatz_ops(x), straight_line=False, params={"x": x, "reps": reps})


# -- the float loop ---------------------------------------------------------------

_FLOAT_LOOP_PYTHON = """\
def float_loop(x: float, n: int) -> float:
    s = 0.0
    for _ in range(n):
        s = s + x * 1.0001 - 0.25
        if s > 1000.0:
            s = s - 1000.0
    return s
"""

_FLOAT_LOOP_IR = _graph_text("float_loop.ir")


def float_loop_ops(x: float, n: int) -> int:
    """Operator calls the float loop's graph makes: four an iteration (``*``,
    ``+``, ``-``, ``>``), one more when the if is taken.  Counted by running the
    same double arithmetic, so the count is exact."""
    s, taken = 0.0, 0
    for _ in range(n):
        s = s + x * 1.0001 - 0.25
        if s > 1000.0:
            s = s - 1000.0
            taken += 1
    return 4 * n + taken


def float_loop(n: int = 100_000, x: float = 1.5) -> Workload:
    """Issue 11's float loop: ``s`` grows by ``x * 1.0001 - 0.25`` (1.25015 for
    the default x) and is brought back by 1000 when it passes 1000, so the if is
    taken about once in 800 iterations: mostly a not-taken branch, as a bounds
    check is.  Returns the final ``s``."""
    python_ops = """\
def float_loop(x, n):
    s = 0.0
    for _ in range(n):
        s = sub(add(s, mul(x, 1.0001)), 0.25)
        if gt(s, 1000.0):
            s = sub(s, 1000.0)
    return s
"""
    return Workload("float-loop", f"float loop: s = s + x * 1.0001 - 0.25 with an if; "
                    f"n = {n:,}", _FLOAT_LOOP_IR, _FLOAT_LOOP_PYTHON, python_ops,
                    "float_loop", lambda: (x, n), float_loop_ops(x, n), straight_line=False,
                    params={"n": n, "x": x})


# -- straight-line chains -------------------------------------------------------------

#: The tensor chain's cycle: (operator name, Python operator, whether torch gives
#: the node its ``alpha``).
_CYCLE = (("add", "+", True), ("mul", "*", False), ("sub", "-", True), ("div", "/", False))


def _chain_ir(kinds: List[str], type_: str, alpha: List[bool]) -> str:
    """The graph torch prints for ``x = x <op> y`` repeated: its names too (the
    inputs are ``%x.1`` and ``%y.1``, each new ``x`` is numbered four on, the
    alpha constant is ``%4``), so the text compares with torch's as it is."""
    lines = [f"graph(%x.1 : {type_},", f"      %y.1 : {type_}):"]
    if any(alpha):
        lines.append("  %4 : int = prim::Constant[value=1]()")
    x = "%x.1"
    for i, (kind, with_alpha) in enumerate(zip(kinds, alpha)):
        out, args = f"%x.{4 * i + 5}", f"{x}, %y.1, %4" if with_alpha else f"{x}, %y.1"
        lines.append(f"  {out} : {type_} = aten::{kind}({args})")
        x = out
    lines.append(f"  return ({x})")
    return "\n".join(lines) + "\n"


def _chain_python(name: str, steps: List[str], annotation: str) -> str:
    head = f"def {name}(x: {annotation}, y: {annotation}) -> {annotation}:\n"
    return head + "".join(f"    x = {s}\n" for s in steps) + "    return x\n"


def chain(n_ops: int = 1000, x: int = 1, y: int = 3) -> Workload:
    """``x = x + y``, n_ops times, on ints (issue 3's measurement: with the shared
    callables the operator is ``operator.add``, and "Python calling the ops" is
    the function making the same calls, ``x = add(x, y)``, generated as source)."""
    return Workload(
        "chain", f"straight line: {n_ops:,} dependent int additions x = x + y",
        _chain_ir(["add"] * n_ops, "int", [False] * n_ops),
        _chain_python("chain", ["x + y"] * n_ops, "int"),
        _chain_python("chain", ["add(x, y)"] * n_ops, "int"),
        "chain", lambda: (x, y), n_ops, straight_line=True, params={"n_ops": n_ops})


_UFUNCS = {"add": "np.add", "mul": "np.multiply", "sub": "np.subtract", "div": "np.divide"}


def _tensor_chain(name: str, title: str, n_ops: int, size: int, dtype: Any,
                  measure_memory: bool) -> Workload:
    steps = [_CYCLE[i % 4] for i in range(n_ops)]

    def make_args() -> Tuple[np.ndarray, np.ndarray]:
        # y in [1, 2]: each round of + * - / maps x to x + y - 1, so values stay
        # small and finite whatever the length.
        return (np.linspace(0.0, 1.0, size, dtype=dtype),
                np.linspace(1.0, 2.0, size, dtype=dtype))

    return Workload(
        name, title, _chain_ir([k for k, _, _ in steps], "Tensor", [a for _, _, a in steps]),
        _chain_python("chain", [f"x {op} y" for _, op, _ in steps], "Tensor"),
        _chain_python("chain", [f"{k}(x, y, 1)" if a else f"{k}(x, y)" for k, _, a in steps],
                      "Tensor"),
        "chain", make_args, n_ops, straight_line=True, tensors=True,
        measure_memory=measure_memory,
        params={"n_ops": n_ops, "size": size, "dtype": np.dtype(dtype).name},
        python_numpy=_chain_python("chain", [f"{_UFUNCS[k]}(x, y)" for k, _, _ in steps],
                                   "Tensor"))


def numpy_chain(n_ops: int = 200, size: int = 16, name: str = "",
                dtype: Any = np.float64) -> Workload:
    """``n_ops`` elementwise ops (+ * - / in turn) on arrays of ``size``."""
    kind = np.dtype(dtype).name
    return _tensor_chain(name or f"numpy-{_size_name(size)}",
                         f"straight line: {n_ops} numpy elementwise ops on {kind}[{size:,}]",
                         n_ops, size, dtype, measure_memory=False)


def memory(n_ops: int = 50, size: int = 1_000_000) -> Workload:
    """The memory workload: each intermediate is used once, so a system that frees
    values at their last use peaks at a few arrays, not ``n_ops``."""
    mb = size * 8 / 1e6
    return _tensor_chain("memory", f"memory: {n_ops} elementwise ops over {mb:g} MB arrays, "
                         "each intermediate used once", n_ops, size, np.float64,
                         measure_memory=True)


def _size_name(size: int) -> str:
    return f"{size // 1_000_000}m" if size >= 1_000_000 and size % 1_000_000 == 0 else str(size)


#: The workloads ``pyjit bench`` runs, by name, in order, at the issues' sizes.
#: numpy-16 is float32, as issue 11's small-tensor target is stated.
WORKLOADS: Dict[str, Callable[[], Workload]] = {
    "fib": fib,
    "collatz": collatz,
    "chain": chain,
    "float-loop": float_loop,
    "numpy-16": lambda: numpy_chain(200, 16, dtype=np.float32),
    "numpy-1m": lambda: numpy_chain(200, 1_000_000),
    "memory": memory,
}


def default_workloads() -> List[Workload]:
    return [make() for make in WORKLOADS.values()]
