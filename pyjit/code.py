"""``Code``: a graph compiled into an instruction table, at one of two levels.

``Code(graph)`` preprocesses a copy of the graph with the seed's passes
(:func:`pyjit.passes.preprocess`: inputs and outputs turned into
``prim::Load``/``prim::Store``, ``prim::Drop`` for unused values, move flags at
last uses) and lowers it to the instructions of :mod:`pyjit.opcodes`:

* ``optimize=False`` reproduces the seed's ``CodeImpl`` exactly: trip counts
  desugared into operators, one instruction per node, every value a Python object
  in its register, If and Loop lowered to ``ASSIGN`` and jumps
  (:mod:`pyjit.codegen.seed` has the picture);
* ``optimize=True``, the default, keeps values of type ``int``, ``float`` and
  ``bool`` that flow between the library's scalar operators unboxed in scalar
  registers, runs those operators as intrinsic instructions, preloads constants
  and keeps a Loop's counter in one instruction (:mod:`pyjit.codegen.typed`;
  where each value lives is :mod:`pyjit.codegen.homes`'s to decide).

The table is struct-of-arrays: one int32 column per field, plus the seed's two
arenas (``int_data`` for register numbers, ``bool_data`` for move flags) that
instructions point into with (start, size) handles.

A Code is immutable once built and may be run by any number of
:class:`~pyjit.interpreter.InterpreterState` at once, from several threads.
It pickles as the graph it was compiled from and its options, and is compiled
again where it is unpickled (:mod:`pyjit.code_pickle`).
"""

from __future__ import annotations

import os
import threading
from array import array
from types import MappingProxyType
from typing import Any, Dict, List, Optional, Tuple

import numpy as np

from . import gcpause, opcodes as op
from .codegen.calls import CallSite
from .codegen.seed import AwaitableSite, ForkSite, SeedLowering, SubgraphSite
from .codegen.table import COLUMNS
from .codegen.typed import TypedLowering
from .ir import Graph, Node
from .ir import types as T
from .ir.traversal import walk_blocks
from .fperrors import run_settings, wants_quiet_run
from .passes import preprocess
from .registry import Registry, default_registry

__all__ = ["Code", "SubgraphSite", "ForkSite", "AwaitableSite", "CallSite", "default_optimize"]

_INT32_MAX = 2**31 - 1


def default_optimize() -> bool:
    """The level a Code is built at when none is given: optimised, unless the
    environment says ``PYJIT_OPTIMIZE=0``."""
    return _DEFAULT_OPTIMIZE


_DEFAULT_OPTIMIZE = os.environ.get("PYJIT_OPTIMIZE", "1").strip() not in ("0", "false", "no",
                                                                          "off")


def _holds_tensors(t: T.Type, depth: int = 0) -> bool:
    return isinstance(t, T.TensorType) or (depth < 4 and any(
        _holds_tensors(c, depth + 1) for c in t.contained()))


def _has_tensors(graph: Graph) -> bool:
    """Whether a value of ``graph`` is a tensor, or holds one (a list, an
    optional, a tuple): then its runs allocate arrays, and take the run arena."""
    return any(_holds_tensors(v.type) for n in graph.all_nodes() for v in n.outputs)


def _column(values: "array[int] | np.ndarray") -> np.ndarray:
    """A read-only int32 column from the builder's (an ``array("i")``, which holds
    only int32, or an int64 array of running sums)."""
    if isinstance(values, array):
        a = np.frombuffer(values, dtype=np.int32).copy() if len(values) else \
            np.zeros(0, dtype=np.int32)
    else:
        a = np.asarray(values, dtype=np.int64)
    if a.size and (a.min() < 0 or a.max() > _INT32_MAX):
        raise OverflowError("instruction table does not fit in int32")
    a = a.astype(np.int32, copy=False)
    a.setflags(write=False)
    return a


class Code:
    """A graph compiled into an instruction table.

    Args:
        graph: the graph to compile; it is copied, never modified, unless
            ``copy=False``.
        registry: where operators are looked up (the default registry, which
            importing pyjit fills with the library, unless given).
        optimize: build the optimised table (the default; see the module
            docstring), or exactly the seed's (False).
        unit: where ``prim::CallFunction`` and ``prim::CallMethod`` find their
            callees (a :class:`pyjit.CompilationUnit`); a graph that calls
            nothing needs none.
        name: the graph's name, for tracebacks (a unit names its functions).
        copy: False hands the graph over: it is checked as always, then the
            passes rewrite it in place instead of a copy, and it becomes
            :attr:`graph`.  For a caller that made the graph only to compile it
            (``pyjit run`` does, for a file): on a graph of a million nodes this
            saves a fifth of the build time and a third of the peak memory.
            The graph stays well-formed whatever happens, but once given it is
            the Code's, and should be neither used as the original nor changed
            (a failed build may leave it part way through the passes).

    Raises:
        IRError: the graph is ill-formed (``graph.lint()`` fails: a value used out
            of scope or before its definition, broken use lists...); checked
            first, because the passes and the run loops rely on a well-formed
            graph.
        OperatorNotFoundError: a node has no operator for its kind and input types,
            or a call no callee (the message names the node and its source
            location).

    Attributes:
        graph: the preprocessed copy of the graph the instructions were made
            from (the graph itself when it was handed over with ``copy=False``).
        optimize: the level it was built at.
        registry: where its operators were looked up.
        name: the graph's name (None for a graph of its own).
        unit: the unit its calls were resolved in (None for a graph of its own).
        n_inputs, n_outputs: of the original graph.
        register_size: the number of object registers a run needs.
        scalar_size: the number of scalar registers (0 unoptimised).
        scalar_kinds: what each holds, one letter per register: ``I`` an int64,
            ``F`` a double, ``B`` a bool.
        scalar_init: their values when a run starts, as int64 (a double's bits).
        preload: ``(register, value)``: object registers holding a constant from
            the start of every run.
        scalar_constants: ``(register, value)``: the scalar registers that hold a
            constant (their ``scalar_init``), for the listing.
    """

    def __init__(self, graph: Graph, *, registry: Optional[Registry] = None,
                 optimize: Optional[bool] = None, unit=None,
                 name: Optional[str] = None, copy: bool = True) -> None:
        if not isinstance(graph, Graph):
            raise TypeError(f"Code() takes a pyjit Graph, not {type(graph).__name__}")
        with gcpause.paused():  # see gcpause: a build makes objects, not garbage
            self._build(graph, registry, optimize, unit, name, copy)

    def _build(self, graph: Graph, registry: Optional[Registry], optimize: Optional[bool],
               unit, name: Optional[str], copy: bool) -> None:
        graph.lint()
        if registry is None:
            registry = default_registry
        self.registry = registry
        self.optimize = default_optimize() if optimize is None else bool(optimize)
        self.n_inputs = len(graph.inputs)
        # The graph's interface, for the checks at the call boundary (the
        # preprocessed graph has its inputs in a prim::Load instead).
        self.input_names: Tuple[str, ...] = tuple(v.debug_name for v in graph.inputs)
        self.input_types: Tuple[T.Type, ...] = tuple(v.type for v in graph.inputs)
        self.output_types: Tuple[T.Type, ...] = tuple(v.type for v in graph.outputs)
        self.name = name
        self.unit = unit

        def compile_subgraph(g: Graph) -> "Code":
            return Code(g, registry=registry, optimize=self.optimize, unit=unit)

        pre = preprocess(graph, desugar_loops=not self.optimize, unit=unit, copy=copy,
                         inference=registry if self.optimize else None)
        lowering: Any
        if self.optimize:
            lowering = TypedLowering(pre.graph, pre.move_flags, registry, compile_subgraph,
                                     unit)
        else:
            lowering = SeedLowering(pre.move_flags, registry, compile_subgraph, unit)
        walk_blocks(pre.graph.block, lowering.emit_block)
        self.scalar_kinds = "".join(lowering.scalar_kinds)
        self.scalar_init = np.array(lowering.scalar_init, dtype=np.int64)
        self.scalar_init.setflags(write=False)
        self.preload: Tuple[Tuple[int, Any], ...] = tuple(lowering.preload)
        self.scalar_constants = tuple(lowering.scalar_constants)
        self.scalar_size = len(self.scalar_kinds)
        t = lowering.table
        self.graph: Graph = pre.graph
        self.n_outputs: int = pre.n_outputs
        self.register_size = lowering.register_size
        # What the lowering knew per node and value (move flags, homes, registers)
        # goes before the table is packed: on a big graph it is most of the memory.
        del lowering, pre
        self._names = tuple(t.names)
        t.names = None
        self._nodes = tuple(t.nodes)
        t.nodes = None
        self._absorbed = dict(t.absorbed)   # comparisons folded into branches (profiler)
        # Read-only arrays in a read-only mapping: a Code is shared between threads.
        self.columns = MappingProxyType({name: _column(getattr(t, name)) for name in COLUMNS})
        self.int_data = _column(t.int_data)
        self.bool_data = np.array(t.bool_data, dtype=np.uint8)
        self.bool_data.setflags(write=False)
        self.callbacks = tuple(t.callbacks)
        #: Whether a run should ignore numpy's floating-point errors once for all
        #: its operators: some of them are faster so (pyjit.fperrors).
        self.quiet_fp = wants_quiet_run(self.callbacks)
        #: What a run sets for its time (pyjit.fperrors): the errors ignored if
        #: quiet_fp, the run arena as numpy's allocator if the graph has tensors.
        self.run_settings = run_settings(self.quiet_fp, _has_tensors(self.graph))
        self.constants = tuple(t.constants)
        # The validated Programs of this table, one per loop module: the
        # runtime's (pyjit.interpreter.program_of), kept with the Code they run.
        self._programs: Dict[str, object] = {}
        self._lock = threading.Lock()

    # -- introspection --------------------------------------------------------------
    def subcodes(self) -> tuple:
        """The Codes this Code's instructions run, in instruction order: the
        subgraphs of its forks and awaitables (the seed's ``grad_executors()``); the Codes nested
        in those are theirs to list.  Each was compiled once, with this Code."""
        return tuple(code for _, code in self.subcode_sites())

    def subcode_sites(self) -> tuple:
        """``(pc, code)`` for each of :meth:`subcodes`: the instruction that runs it."""
        return tuple((pc, self.callbacks[arg].code)
                     for pc, (opcode, arg) in enumerate(zip(self.columns["op"],
                                                            self.columns["arg"]))
                     if opcode == op.CALL and isinstance(self.callbacks[arg], SubgraphSite))

    def callees(self) -> tuple:
        """The Codes this Code's calls run (``prim::CallFunction``,
        ``prim::CallMethod``), in instruction order, each once; the callees of
        those are theirs to list.  Each is its unit's, compiled on first use (a
        function that calls itself is its own callee)."""
        seen: Dict[int, Any] = {}
        for _, code in self.callee_sites():
            seen.setdefault(id(code), code)
        return tuple(seen.values())

    def callee_sites(self) -> tuple:
        """``(pc, code)`` for every call: the INVOKE instruction and the Code it runs."""
        return tuple((pc, site.code) for pc, site in self._call_sites())

    def _call_sites(self) -> List[Tuple[int, CallSite]]:
        ops, args = self.columns["op"], self.columns["arg"]
        return [(int(pc), self.callbacks[int(args[pc])])
                for pc in np.flatnonzero(ops == op.INVOKE)]

    def __len__(self) -> int:
        return len(self._names)

    def node_at(self, pc: int) -> Node:
        """The node instruction ``pc`` was generated from (If/Loop for their jumps and
        moves; the consumer for a box or a conversion), for error messages."""
        return self._nodes[pc]

    def nodes_at(self, pc: int) -> Tuple[Node, ...]:
        """Every node instruction ``pc`` carries out: :meth:`node_at`, then a
        comparison folded into it (a compare-and-branch such as ``JLT_I`` runs
        the ``aten::lt`` and the If or Loop that branches on it), for the
        profiler's counts."""
        folded = self._absorbed.get(pc)
        return (self._nodes[pc],) if folded is None else (self._nodes[pc], folded)

    def boxing(self) -> Dict[str, int]:
        """How many instructions box scalars into objects and unbox them back
        (``{"box": 2, "unbox": 3}``), counted in the table."""
        ops = self.columns["op"]
        return {"box": int(np.isin(ops, list(op.BOX.values())).sum()),
                "unbox": int(np.isin(ops, list(op.UNBOX.values())).sum())}

    def instruction(self, pc: int) -> str:
        """One instruction in the seed's dump format, e.g.
        ``4, 5 = aten::add move(2), 3``; scalar registers print as ``s3``; jumps add
        ``-> target``; an intrinsic names the operator it runs."""
        c = self.columns
        code = int(c["op"][pc])
        d = op.BY_CODE[code]
        ints, flags = self.int_data, self.bool_data
        s, n = int(c["out_start"][pc]), int(c["out_size"][pc])
        outs = ", ".join(_reg(d.outputs.kind(j), r) for j, r in enumerate(ints[s:s + n]))
        s, n, f = int(c["in_start"][pc]), int(c["in_size"][pc]), int(c["flag_start"][pc])
        ins = ", ".join(f"move({r})" if flags[f + j] else _reg(d.inputs.kind(j), r)
                        for j, r in enumerate(ints[s:s + n]))
        line = f"{outs} = {self._names[pc]} {ins}".rstrip()
        if code in op.JUMPS:
            line += f" -> {int(c['arg'][pc])}"
        if d.implements is not None:
            line += f"  # {self._nodes[pc].kind}"
        return line

    def dump(self) -> str:
        """The instruction listing, one numbered line per instruction; an optimised
        Code first lists the constants every run starts with."""
        lines = []
        if self.scalar_constants or self.preload:
            lines.append(f"constants: {self._describe_constants()}\n")
        width = len(str(max(len(self) - 1, 0)))
        lines += [f"{pc:>{width}}  {self.instruction(pc)}\n" for pc in range(len(self))]
        return "".join(lines)

    def _describe_constants(self) -> str:
        parts = [f"s{r} = {value!r}" for r, value in self.scalar_constants]
        parts += [f"{r} = {value!r}" for r, value in self.preload]
        return ", ".join(parts)

    def to_dot(self, *, name: str = "code") -> str:
        """The instruction table as a picture, in Graphviz's DOT language: its basic
        blocks and the jumps between them, fork subgraphs' Codes as clusters.  See
        :func:`pyjit.code_dot.code_to_dot`; ``pyjit dot --code FILE.ir -o out.svg``
        renders it."""
        from .code_dot import code_to_dot
        return code_to_dot(self, name=name)

    def __str__(self) -> str:
        # As the seed's operator<<: the preprocessed graph, a blank line, the listing.
        return f"{self.graph}\n{self.dump()}"

    def __repr__(self) -> str:
        level = "optimised" if self.optimize else "unoptimised"
        return (f"<pyjit Code: {len(self)} instructions, {self.register_size} registers, "
                f"{self.scalar_size} scalar registers, {self.n_inputs} inputs, "
                f"{self.n_outputs} outputs, {level}>")

    # A table holds operators and a lock, and cannot cross to another process: a
    # Code pickles as what it was compiled from (pyjit.code_pickle).
    def __reduce__(self):
        from .code_pickle import reduce_code
        return reduce_code(self)

    def __dask_tokenize__(self) -> str:
        from .code_pickle import code_token
        return code_token(self)


def _reg(kind: str, r: int) -> str:
    return f"s{r}" if kind in op.SCALAR_KINDS else str(r)
