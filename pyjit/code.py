"""The code generator: a preprocessed graph becomes an instruction table.

``Code(graph)`` reproduces the seed's ``CodeImpl``.  It preprocesses a copy of the
graph (``pyjit.passes.preprocess``: trip counts desugared, inputs and outputs turned
into ``prim::Load``/``prim::Store``, ``prim::Drop`` for unused values, move flags at
last uses), then walks it once, emitting one instruction per node and lowering
control flow to jumps exactly as the seed does::

    x = If c: <then> -> (vt)          JUMPNZ c -> then
        else: <else> -> (vf)          <else>
                                      x = ASSIGN vf
                                      JUMP -> end
                                then: <then>
                                      x = ASSIGN vt
                                 end:

    o = Loop c i0: (l) <body>         l = ASSIGN c, i0     (c stays on the stack)
                   -> (c', v)         JUMPZ -> end
                               body:  <body>
                                      l = ASSIGN c', v
                                      JUMPNZ -> body
                                end:  (o shares l's register)

The table is struct-of-arrays: one int32 column per field, plus the seed's two
arenas (``int_data`` for register numbers, ``bool_data`` for move flags) that
instructions point into with (start, size) handles.  Registers are allocated on a
value's first definition (``getOrAllocateRegister``); a Loop's outputs share the
registers of its body's inputs (``aliasRegistersTo``).

A Code is immutable once built and may be run by any number of
:class:`~pyjit.interpreter.InterpreterState` at once, from several threads.
"""

from __future__ import annotations

import functools
import threading
from types import MappingProxyType, ModuleType
from typing import Dict, Iterator, List, Optional, Sequence

import numpy as np

from . import opcodes as op
from ._backend import loop as _default_loop
from .errors import PyjitError
from .ir import Graph, IRError, Node, Value
from .ir.printer import format_attr_value, node_header
from .ir.symbols import aten, prim
from .ir.traversal import walk_blocks
from .passes import preprocess
from .registry import Registry, default_registry

__all__ = ["Code"]

_INT32_MAX = 2**31 - 1


class _Builder:
    """The mutable state of one code generation; the seed's CodeImpl fields."""

    def __init__(self, move_flags: Dict[Node, List[bool]], registry: Registry) -> None:
        self.move_flags = move_flags
        self.registry = registry
        # struct-of-arrays columns, one entry per instruction
        self.op: List[int] = []
        self.in_start: List[int] = []
        self.in_size: List[int] = []
        self.flag_start: List[int] = []
        self.out_start: List[int] = []
        self.out_size: List[int] = []
        self.arg: List[int] = []
        self.names: List[str] = []          # debug name printed by the listing
        self.nodes: List[Node] = []         # the node each instruction came from
        # the arenas
        self.int_data: List[int] = []
        self.bool_data: List[int] = []
        self.callbacks: List[object] = []
        self.constants: List[object] = []
        self.reg_of: Dict[int, int] = {}    # Value.unique -> register
        self.register_size = 0

    # -- registers --------------------------------------------------------------
    def register(self, v: Value, required: bool = False) -> int:
        """``getOrAllocateRegister``: a use (``required``) must find one."""
        r = self.reg_of.get(v.unique)
        if r is not None:
            return r
        if required:
            raise ValueError(f"%{v.debug_name} is used before any instruction defines it "
                             "(run graph.lint() to find the ill-formed node)")
        r = self.register_size
        self.register_size += 1
        self.reg_of[v.unique] = r
        return r

    def alias(self, new: Sequence[Value], existing: Sequence[Value]) -> None:
        """``aliasRegistersTo``: ``new`` values live in the registers of ``existing``."""
        assert len(new) == len(existing)
        for n, e in zip(new, existing):
            assert e.unique in self.reg_of and n.unique not in self.reg_of
            self.reg_of[n.unique] = self.reg_of[e.unique]

    # -- instructions -----------------------------------------------------------
    def emit(self, opcode: int, name: str, node: Node, inputs: Sequence[Value],
             flags: Sequence[bool], outputs: Sequence[Value], arg: int = 0) -> int:
        if len(flags) != len(inputs):
            raise AssertionError(f"{name}: {len(inputs)} inputs but {len(flags)} move flags")
        self.op.append(opcode)
        self.names.append(name)
        self.nodes.append(node)
        self.arg.append(arg)
        self.in_start.append(len(self.int_data))
        self.in_size.append(len(inputs))
        self.int_data.extend(self.register(v, required=True) for v in inputs)
        self.flag_start.append(len(self.bool_data))
        self.bool_data.extend(1 if f else 0 for f in flags)
        self.out_start.append(len(self.int_data))
        self.out_size.append(len(outputs))
        self.int_data.extend(self.register(v) for v in outputs)
        return len(self.op) - 1

    def flags(self, node: Node) -> List[bool]:
        return self.move_flags[node]

    def emit_node(self, node: Node) -> None:
        kind = node.kind
        ins, outs, flags = node.inputs, node.outputs, self.flags(node)
        if kind == prim.Constant:
            from .ops.constants import constant_value
            if len(outs) != 1:
                raise _ill_formed(node, f"prim::Constant has one output, not {len(outs)}")
            try:
                value = constant_value(node)
            except (ValueError, TypeError, OverflowError) as exc:
                raise _ill_formed(node, f"bad constant: {exc}") from exc
            name = prim.Constant
            if node.attrs:
                name += "[" + ", ".join(f"{k}={format_attr_value(v)}"
                                        for k, v in node.attrs.items()) + "]"
            copier = _fresh_copy(value)
            if copier is not None:
                # A mutable constant is copied on every load: a graph that appends
                # to it must not change what the next run sees.
                self.callbacks.append(copier)
                self.emit(op.CALL, name, node, ins, flags, outs, len(self.callbacks) - 1)
                return
            if isinstance(value, np.ndarray):
                # Shared by every run, as torch shares tensor constants: read-only,
                # so an operator writing into it fails instead of changing it.
                value = value.view()
                value.flags.writeable = False
            self.constants.append(value)
            self.emit(op.CONST, name, node, ins, flags, outs, len(self.constants) - 1)
        elif kind == prim.Load:
            self.emit(op.LOAD, kind, node, ins, flags, outs)
        elif kind == prim.Store:
            self.emit(op.STORE, kind, node, ins, flags, outs)
        elif kind == prim.Drop:
            self.emit(op.DROP, kind, node, ins, flags, outs)
        elif kind == aten.wait:
            if len(ins) != 1 or len(outs) != 1:
                raise _ill_formed(node, f"aten::wait takes one future and has one output, not "
                                        f"{len(ins)} input(s) and {len(outs)} output(s)")
            self.emit(op.WAIT, kind, node, ins, flags, outs)
        else:
            try:
                resolved = self.registry.lookup(node)
            except PyjitError:
                raise
            except Exception as exc:  # a factory refusing the node (bad attribute, arity)
                raise _ill_formed(node, str(exc)) from exc
            self.callbacks.append(resolved.fn)
            opcode = op.STACKCALL if resolved.stack else op.CALL
            self.emit(opcode, kind, node, ins, flags, outs, len(self.callbacks) - 1)

    def emit_block(self, block) -> Iterator:
        """Emit a block's instructions; a generator for
        :func:`~pyjit.ir.traversal.walk_blocks`: where the seed's
        ``insertNodesFromBlock`` recurses into a nested block, this yields it."""
        for node in block.nodes():
            if node.kind == prim.If:
                yield from self.emit_if(node)
            elif node.kind == prim.Loop:
                yield from self.emit_loop(node)
            else:
                self.emit_node(node)

    def emit_if(self, node: Node) -> Iterator:
        then_block, else_block = node.blocks
        cond = self.emit(op.JUMPNZ, prim.JumpNZ, node, node.inputs, self.flags(node), ())
        yield else_block
        self.emit(op.ASSIGN, prim.Assign, node, else_block.outputs,
                  self.flags(else_block.return_node), node.outputs)
        jump = self.emit(op.JUMP, prim.Jump, node, (), (), ())
        then_start = len(self.op)
        yield then_block
        self.emit(op.ASSIGN, prim.Assign, node, then_block.outputs,
                  self.flags(then_block.return_node), node.outputs)
        self.arg[jump] = len(self.op)
        self.arg[cond] = then_start

    def emit_loop(self, node: Node) -> Iterator:
        (body,) = node.blocks
        # Leaves the condition on the stack for the JUMPZ.
        self.emit(op.ASSIGN, prim.Assign, node, node.inputs, self.flags(node), body.inputs)
        cond = self.emit(op.JUMPZ, prim.JumpZ, node, (), (), ())
        entry = len(self.op)
        yield body
        self.emit(op.ASSIGN, prim.Assign, node, body.outputs,
                  self.flags(body.return_node), body.inputs)
        self.emit(op.JUMPNZ, prim.JumpNZ, node, (), (), (), arg=entry)
        self.alias(node.outputs, body.inputs)
        self.arg[cond] = len(self.op)


def _ill_formed(node: Node, message: str) -> IRError:
    """The error for a node the code generator cannot compile, naming the node and
    its source location (as :class:`~pyjit.errors.OperatorNotFoundError` does)."""
    where = f" at {node.source_location}" if node.source_location is not None else ""
    return IRError(f"{message}{where}\n  in: {node_header(node).strip()}")


def _holds_mutable(value) -> bool:
    """Whether ``value`` is, or contains at any depth, a list or a dict: something a
    run could change in place.  Tensors are shared read-only, not copied."""
    if isinstance(value, (list, dict)):
        return True
    if isinstance(value, tuple):
        return any(_holds_mutable(v) for v in value)
    return False


def _copy_mutable(value):
    """A copy of ``value`` in which every list and dict is new; everything else (the
    immutable leaves, tensors) is shared.  Constants nest at most 100 deep (the
    parser's limit), so the recursion is bounded."""
    if isinstance(value, list):
        return [_copy_mutable(v) for v in value]
    if isinstance(value, tuple):
        return tuple(_copy_mutable(v) for v in value)
    if isinstance(value, dict):
        return {k: _copy_mutable(v) for k, v in value.items()}
    return value


def _fresh_copy(value):
    """A callable returning a new copy of a constant that holds a list or dict (at
    any depth: ``(1, [2, 3])`` and ``[(1, [2])]`` too) on each call, or None when
    the constant is immutable and can be shared by every run."""
    if not _holds_mutable(value):
        return None
    if isinstance(value, (list, dict)):
        items = value.values() if isinstance(value, dict) else value
        if not any(_holds_mutable(v) for v in items):
            return value.copy  # flat: a bound C method, no Python frame per load
    return functools.partial(_copy_mutable, value)


def _column(values: List[int]) -> np.ndarray:
    a = np.array(values, dtype=np.int64)
    if a.size and (a.min() < 0 or a.max() > _INT32_MAX):
        raise OverflowError("instruction table does not fit in int32")
    a = a.astype(np.int32)
    a.setflags(write=False)
    return a


class Code:
    """A graph compiled into an instruction table.

    Args:
        graph: the graph to compile; it is copied, never modified.
        registry: where operators are looked up (the default registry, filled by
            ``pyjit.ops``, unless given).

    Raises:
        IRError: the graph is ill-formed (``graph.lint()`` fails: a value used out
            of scope or before its definition, broken use lists...); checked
            first, because the passes and the run loops rely on a well-formed
            graph.
        OperatorNotFoundError: a node has no operator for its kind and input types
            (the message names the node and its source location).
        IRError: a node the table cannot hold: a constant that is not a value of
            its type (``<Tensor>``), an ``aten::wait`` or ``prim::Constant`` with
            the wrong number of inputs or outputs, an operator's factory refusing
            the node (``prim::DictConstruct`` with an odd number of inputs); the
            message names the node and its source location.

    Attributes:
        graph: the preprocessed copy of the graph the instructions were made from.
        n_inputs, n_outputs: of the original graph.
        register_size: the number of registers a run needs.
    """

    def __init__(self, graph: Graph, *, registry: Optional[Registry] = None) -> None:
        if not isinstance(graph, Graph):
            raise TypeError(f"Code() takes a pyjit Graph, not {type(graph).__name__}")
        graph.lint()
        if registry is None:
            import pyjit.ops  # noqa: F401  (fills the default registry)
            registry = default_registry
        self.n_inputs = len(graph.inputs)
        pre = preprocess(graph)
        b = _Builder(pre.move_flags, registry)
        walk_blocks(pre.graph.block, b.emit_block)
        self.graph: Graph = pre.graph
        self.n_outputs: int = pre.n_outputs
        self._names = tuple(b.names)
        self._nodes = tuple(b.nodes)
        self.register_size = b.register_size
        # Read-only arrays in a read-only mapping: a Code is shared between threads.
        self.columns = MappingProxyType({name: _column(getattr(b, name)) for name in (
            "op", "in_start", "in_size", "flag_start", "out_start", "out_size", "arg")})
        self.int_data = _column(b.int_data)
        self.bool_data = np.array(b.bool_data, dtype=np.uint8)
        self.bool_data.setflags(write=False)
        self.callbacks = tuple(b.callbacks)
        self.constants = tuple(b.constants)
        self._programs: Dict[str, object] = {}
        self._lock = threading.Lock()

    # -- the validated table a loop runs ------------------------------------------
    def program(self, loop: Optional[ModuleType] = None):
        """The table as a ``Program`` of the given loop module (the active backend by
        default), validated once and cached."""
        loop = loop or _default_loop
        prog = self._programs.get(loop.__name__)
        if prog is None:
            from .futures import Future
            with self._lock:
                prog = self._programs.get(loop.__name__)
                if prog is None:
                    c = self.columns
                    prog = loop.Program(c["op"], c["in_start"], c["in_size"], c["flag_start"],
                                        c["out_start"], c["out_size"], c["arg"],
                                        self.int_data, self.bool_data, self.callbacks,
                                        self.constants, self.register_size, Future)
                    self._programs[loop.__name__] = prog
        return prog

    # -- introspection --------------------------------------------------------------
    def subcodes(self) -> tuple:
        """The Codes this Code's instructions run, in instruction order: the
        subgraphs of its forks (the seed's ``grad_executors()``).  Any callback with
        a ``code`` attribute holding a Code counts; the Codes nested in those are
        theirs to list.  Each was compiled once, with this Code."""
        return tuple(cb.code for cb in self.callbacks
                     if isinstance(getattr(cb, "code", None), Code))

    def __len__(self) -> int:
        return len(self._names)

    def node_at(self, pc: int) -> Node:
        """The node instruction ``pc`` was generated from (If/Loop for their jumps and
        assigns), for error messages."""
        return self._nodes[pc]

    def instruction(self, pc: int) -> str:
        """One instruction in the seed's dump format, e.g.
        ``4, 5 = aten::add move(2), 3``; jumps add ``-> target``."""
        c = self.columns
        ints, flags = self.int_data, self.bool_data
        s, n = int(c["out_start"][pc]), int(c["out_size"][pc])
        outs = ", ".join(str(r) for r in ints[s:s + n])
        s, n, f = int(c["in_start"][pc]), int(c["in_size"][pc]), int(c["flag_start"][pc])
        ins = ", ".join(f"move({r})" if flags[f + i] else str(r)
                        for i, r in enumerate(ints[s:s + n]))
        line = f"{outs} = {self._names[pc]} {ins}".rstrip()
        if int(c["op"][pc]) in (op.JUMP, op.JUMPZ, op.JUMPNZ):
            line += f" -> {int(c['arg'][pc])}"
        return line

    def dump(self) -> str:
        """The instruction listing, one numbered line per instruction."""
        width = len(str(max(len(self) - 1, 0)))
        return "".join(f"{pc:>{width}}  {self.instruction(pc)}\n" for pc in range(len(self)))

    def __str__(self) -> str:
        # As the seed's operator<<: the preprocessed graph, a blank line, the listing.
        return f"{self.graph}\n{self.dump()}"

    def __repr__(self) -> str:
        return (f"<pyjit Code: {len(self)} instructions, {self.register_size} registers, "
                f"{self.n_inputs} inputs, {self.n_outputs} outputs>")
