"""Where a run's time goes: executions and time per graph node, so per source line.

In the style of ``cProfile``: turn a profile on, run, read the table::

    with pyjit.profile() as prof:
        fib(30)                      # any Function, @pyjit.script function, unit...
    prof.print()                     # the table, slowest node first
    prof.records()                   # the same rows as data (NodeRecord)

or ``pyjit run --profile FILE.ir ARGS`` (``--json`` for the data).  A row is one
node of a Code's preprocessed graph (:attr:`pyjit.Code.graph`), with its
``file:line`` and the source text of that line; a node that has no location of
its own (the ``prim::Load`` of the inputs, the trip count the seed's passes
desugar) shows its enclosing node's.  A callee's nodes (``prim::CallFunction``),
a fork's subgraph's and an awaitable's are rows of their own Codes: times are
*self* times, as cProfile's ``tottime``.

How it measures.  While a profile is on, every run that starts or resumes (on any
thread: forks run on the work queue) runs a second copy of the loop, compiled
from the same source with the timing in it (``pyjit/_run_loop.pxi``, compiled
plain in ``pyjit._core`` and timed in ``pyjit._timed``, and ``_specialise`` in
``pyjit/_pure.py``); runs that are not profiled run the loop with no trace of
it.  At every instruction it reads the
clock (``perf_counter_ns``'s: CLOCK_MONOTONIC) and charges the time since the
previous reading to the previous instruction, so an instruction's time runs from
its start to the next one's and the times of a run add up to the run's wall time
in the loop, timing included.  What is between instructions of no node -- a
run's start, resumes after a WAIT, entering a callee and returning from it -- is
the ``interpreter`` row.  The profiled compiled loop keeps the GIL (the normal one
gives it up in loops of scalar work), so the tallies need no lock.

How instructions map to nodes (both levels, ``Code(optimize=...)``):

* the compiled loop runs two pairs of instructions in one dispatch (a Loop's
  ``ASSIGN`` and the jump after it; ``n % 2**k`` and the ``== 0`` jump after it):
  both are counted, and the second's time is the first's;
* per instruction kind (:meth:`Profile.instructions`), an instruction counts
  under the name of what the loop ran: the packed forms the compiled loop runs
  in place of its table's instructions (``CALL1``, ``REM_POW2_JEQZ``...) under
  theirs;

* time: an instruction's time is its node's (:meth:`pyjit.Code.node_at`): a call's
  and an intrinsic's own node; a box or unbox the node that needed it; the
  moves, jumps and counted-loop instructions (``MOVE``, ``ASSIGN``, ``JUMP``,
  ``LOOP_ENTER``, ``LOOP_BACK``) the ``prim::If`` or ``prim::Loop`` they
  implement, so a Loop's row is its bookkeeping, not its body;
* counts: a node ran once each time its first instruction ran (every node's
  instructions are emitted in one straight line before any of its blocks, so the
  first runs once per execution: the Loop's entry, not its back edge), and a
  comparison folded into a compare-and-branch (``JLT_I``...) once each time that
  instruction ran (:meth:`pyjit.Code.nodes_at`): exact counts at both levels.
  Nodes that compile to no instruction (constants at O1 are preloaded,
  comparisons folded into a branch but for their count) take no time, and rows
  that neither ran nor took time are left out.

Cost.  Off, nothing: the normal loop is compiled without the timing, in a C file
the timed copy is not in (``bench/profiler_off_cost.py`` measures it against a
build with no profiler at all).  On, each
instruction costs a clock reading and two additions more.  Measured on the
development machine (2 shared vCPUs under KVM, the TSC clock source; fib's
example at n = 20,000, best of 12 runs, on 2026-12-01): +29 to +32 ns per
instruction on the compiled loop at O1, where fib's instructions take 2.3 to
3.0 ns without it (a loop of scalar work runs about 11 times as long profiled),
+22 to +25 ns at O0 (16 to 19 ns without), and +0.17 us on the pure loop (0.42
to 0.48 us without).  The clock's cost is most of it, and it depends on the
machine, and on this one it has varied: the same measurement gave 67 ns at O1
in November.  That time is in the rows, about the
same for every instruction, so the cheap ones' shares grow the most: read a
cheap node's mean minus that overhead, and compare expensive nodes (operator
calls on tensors) at face value.  Times with forks running in other threads are
each thread's own: their sum may exceed the wall time.
"""

from __future__ import annotations

import json
import time
from typing import Any, Callable, Dict, IO, List, NamedTuple, Optional, Tuple

from . import _backend
from .code import Code
from .interpreter import _loops, code_of  # _loops: every loop module that imports
from .ir import Node
from .ir.printer import node_header
from .opcodes import BY_CODE

__all__ = ["profile", "Profile", "NodeRecord"]

#: The kind of the row that holds the time between activations.
INTERPRETER = "interpreter"


class NodeRecord(NamedTuple):
    """One row of a profile: a node, how often it ran and how long it took.

    Attributes:
        graph: the name of the Code the node is in (a unit's function name), or
            None for a graph of its own.
        kind: the node's kind (``aten::add``), or ``"interpreter"`` for the time
            between activations (see the module docstring).
        node: the node as the graph prints it, without its blocks.
        location: ``file:line:col`` of the node (or of its enclosing node), None
            when it has none.
        source: the text of that line, stripped, when the file can be read.
        count: how many times the node ran (None for the interpreter row).
        total_ns: the time of its instructions, in nanoseconds.
        mean_ns: ``total_ns / count`` (None when it never ran).
        share: ``total_ns`` over the profile's total, from 0 to 1.
    """

    graph: Optional[str]
    kind: str
    node: str
    location: Optional[str]
    source: Optional[str]
    count: Optional[int]
    total_ns: int
    mean_ns: Optional[float]
    share: float

    @property
    def where(self) -> str:
        """``file:line`` (the column left out), or ``-``."""
        return self.location.rsplit(":", 1)[0] if self.location else "-"


class _Tallies(dict):
    """What the loops fill (``{program: (counts, times)}``, see ``set_profile``),
    keeping each Program's Code as its tally is made, while it runs: a Function
    made and dropped inside the profile still has its rows."""

    def __init__(self) -> None:
        super().__init__()
        self.codes: Dict[Any, Optional[Code]] = {}

    def __setitem__(self, program: Any, pair: Tuple[Any, Any]) -> None:
        self.codes[program] = code_of(program)
        super().__setitem__(program, pair)


class Profile:
    """A profile of the runs made while it is on: counts and times per node.

    Use it as a context manager (``with pyjit.profile() as prof:``), or
    :meth:`enable` and :meth:`disable` it, or :meth:`call` a function under it; it
    may be turned on again to add more runs.  One profile can be on at a time in
    a process.  Runs on both loops are profiled, and a run suspended at a WAIT is
    profiled for the part it runs while the profile is on.

    Attributes:
        wall_ns: the wall time it has been on, in nanoseconds.
    """

    def __init__(self) -> None:
        self._tallies = _Tallies()
        self.wall_ns = 0
        self._started: Optional[int] = None

    # -- on and off ---------------------------------------------------------------
    def enable(self) -> None:
        """Profile every run that starts or resumes from now on.

        Raises:
            RuntimeError: this or another profile is on already.
        """
        for loop in _loops():
            if loop.get_profile() is not None:
                raise RuntimeError("a pyjit profile is on already: one at a time")
        for loop in _loops():
            loop.set_profile(self._tallies)
        self._started = time.perf_counter_ns()

    def disable(self) -> None:
        """Stop profiling (runs in progress finish their current stretch profiled)."""
        if self._started is None:
            return
        for loop in _loops():
            if loop.get_profile() is self._tallies:
                loop.set_profile(None)
        self.wall_ns += time.perf_counter_ns() - self._started
        self._started = None

    def __enter__(self) -> "Profile":
        self.enable()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.disable()

    def call(self, fn: Callable, *args: Any, **kwargs: Any) -> Any:
        """``fn(*args, **kwargs)`` with the profile on; returns what it returns (and
        raises what it raises, the profile keeping what ran until then)."""
        with self:
            return fn(*args, **kwargs)

    # -- the data -------------------------------------------------------------------
    def records(self) -> List[NodeRecord]:
        """The rows, the slowest first (ties by count, then by location)."""
        rows: Dict[Tuple[int, Node], List[Any]] = {}   # (code id, node) -> [code, count, ns]
        between = 0
        for program, (counts, times) in list(self._tallies.items()):
            counts, times = list(map(int, counts)), list(map(int, times))
            between += times[-1]
            code = self._tallies.codes.get(program)
            if code is None:  # a Program made by hand: no nodes to name
                continue
            counted = _counted_nodes(code)
            for pc in range(len(counts) - 1):
                if not counts[pc] and not times[pc]:
                    continue
                node = code.node_at(pc)
                row = rows.setdefault((id(code), node), [code, 0, 0])
                row[2] += times[pc]
                for n in counted.get(pc, ()):
                    rows.setdefault((id(code), n), [code, 0, 0])[1] += counts[pc]
        total = between + sum(ns for _, _, ns in rows.values())
        out = [_record(code, node, count, ns, total)
               for (_, node), (code, count, ns) in rows.items()]
        if between:
            out.append(NodeRecord(None, INTERPRETER, "(runs, resumes, calls and returns)",
                                  None, None, None, between, None, between / total))
        out.sort(key=lambda r: (-r.total_ns, -(r.count or 0), r.location or "", r.node))
        return out

    def instructions(self) -> Dict[str, Tuple[int, int]]:
        """Executions and time per instruction kind, over every Program that ran:
        ``{name: (count, total_ns)}``, the most time first.  An instruction is
        named by what the loop ran: the compiled loop's packed forms
        (``CALL1``, ``REM_POW2``, ``REM_POW2_JEQZ``...; see
        :data:`pyjit.opcodes.PACKED`) under their own names, not the table's."""
        kinds: Dict[str, List[int]] = {}
        for program, (counts, times) in list(self._tallies.items()):
            for pc, code in enumerate(program.packed_opcodes()):
                if counts[pc] or times[pc]:
                    row = kinds.setdefault(BY_CODE[code].name, [0, 0])
                    row[0] += int(counts[pc])
                    row[1] += int(times[pc])
        return {name: (count, ns) for name, (count, ns) in
                sorted(kinds.items(), key=lambda item: (-item[1][1], item[0]))}

    @property
    def total_ns(self) -> int:
        """The time of every row, in nanoseconds."""
        return sum(r.total_ns for r in self.records())

    def to_json(self) -> Dict[str, Any]:
        """The profile as JSON-ready data: ``loop``, ``wall_ns``, ``total_ns``,
        ``records`` (each :class:`NodeRecord` as an object with its fields) and
        ``instructions`` (:meth:`instructions`, each as ``[count, total_ns]``)."""
        records = self.records()
        return {"loop": _backend.loop.__name__, "wall_ns": self.wall_ns,
                "total_ns": sum(r.total_ns for r in records),
                "records": [r._asdict() for r in records],
                "instructions": {k: list(v) for k, v in self.instructions().items()}}

    def format(self, limit: Optional[int] = None) -> str:
        """The table: a header line with the totals, then one row per node, the
        slowest first (the first ``limit`` rows when given): count, total and mean
        time, share, ``file:line``, the node's kind and the source line."""
        records = self.records()
        total = sum(r.total_ns for r in records)
        wall = self.wall_ns
        head = (f"pyjit profile: {total / 1e6:.3f} ms in the loop, {wall / 1e6:.3f} ms wall"
                + (f" ({100 * total / wall:.1f}%)" if wall else "")
                + f", {len(records)} rows")
        shown = records if limit is None else records[:limit]
        table = [("count", "total ms", "mean ns", "share", "file:line", "node", "source")]
        for r in shown:
            table.append((f"{r.count:,}" if r.count is not None else "-",
                          f"{r.total_ns / 1e6:.3f}",
                          f"{r.mean_ns:,.0f}" if r.mean_ns is not None else "-",
                          f"{100 * r.share:.1f}%", r.where, r.kind, r.source or ""))
        widths = [max(len(row[j]) for row in table) for j in range(6)]
        lines = [head]
        for row in table:
            cells = [row[j].rjust(widths[j]) if j < 4 else row[j].ljust(widths[j])
                     for j in range(6)]
            lines.append("  ".join(cells + [row[6]]).rstrip())
        if limit is not None and len(records) > limit:
            lines.append(f"... {len(records) - limit} more rows")
        return "\n".join(lines) + "\n"

    def print(self, limit: Optional[int] = None, file: Optional[IO[str]] = None) -> None:
        """Print :meth:`format`'s table (to stdout unless ``file`` is given)."""
        print(self.format(limit), end="", file=file)

    def dumps(self) -> str:
        """:meth:`to_json` as JSON text."""
        return json.dumps(self.to_json(), indent=1)

    def __repr__(self) -> str:
        state = "on" if self._started is not None else "off"
        return f"<pyjit Profile ({state}): {len(self._tallies)} programs, {self.wall_ns} ns wall>"


def profile() -> Profile:
    """A new :class:`Profile`, to use as a context manager::

        with pyjit.profile() as prof:
            f(x)
        prof.print()
    """
    return Profile()


def _counted_nodes(code: Code) -> Dict[int, Tuple[Node, ...]]:
    """Per instruction, the nodes one execution of it counts as running: its node
    when it is that node's first instruction, and a comparison folded into it."""
    first: Dict[Node, int] = {}
    counted: Dict[int, Tuple[Node, ...]] = {}
    for pc in range(len(code)):
        own, *folded = code.nodes_at(pc)
        nodes = tuple(folded)
        if own not in first:
            first[own] = pc
            nodes = (own,) + nodes
        if nodes:
            counted[pc] = nodes
    return counted


def _located(node: Node):
    """The node's source location, or its nearest enclosing node's."""
    n: Optional[Node] = node
    while n is not None:
        if n.source_location is not None:
            return n.source_location
        block = n.owning_block
        n = block.owning_node if block is not None else None
    return None


def _record(code: Code, node: Node, count: int, ns: int, total: int) -> NodeRecord:
    loc = _located(node)
    source = loc.source_line() if loc is not None else None
    return NodeRecord(code.name, node.kind, node_header(node).split(" # ")[0].strip(),
                      str(loc) if loc is not None else None,
                      source.strip() if source else None,
                      count, ns, ns / count if count else None,
                      ns / total if total else 0.0)
