"""The seed's lowering (``optimize=False``): one instruction per node.

The graph has been through :func:`pyjit.passes.preprocess` (trip counts
desugared, ``prim::Load``/``prim::Store``, Drops, move flags).  This walks it once,
emitting one instruction per node and lowering control flow to jumps exactly as
the seed's ``CodeImpl`` does::

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

Registers are allocated on a value's first definition (``getOrAllocateRegister``);
a Loop's outputs share the registers of its body's inputs (``aliasRegistersTo``).
"""

from __future__ import annotations

from typing import Callable, Dict, Iterator, List, Sequence, Tuple

from .. import opcodes as op
from ..ir import Block, Node, Value
from ..ir.symbols import aten, prim
from ..registry import Registry
from . import constants
from .calls import CALL_KINDS, CallSite, call_operands, is_call_constant, resolve_call
from .table import TableBuilder, listing_name

__all__ = ["SeedLowering", "SubgraphSite", "ForkSite", "AwaitableSite", "SUBGRAPH_SITES",
           "subgraph_site"]


class SubgraphSite:
    """The callback slot of a node that runs a subgraph (``prim::fork``,
    ``prim::awaitable``): the subgraph's Code, which the runtime links to the
    callable that runs it (:func:`pyjit.interpreter.program_of`).  The code
    generator knows what such a node runs, not how runs are started."""

    __slots__ = ("code",)
    kind = ""

    def __init__(self, code) -> None:
        self.code = code

    def __repr__(self) -> str:
        return f"<{self.kind} site of {self.code!r}>"


class ForkSite(SubgraphSite):
    """A ``prim::fork``: linked to a callable that starts a run of the subgraph
    and returns the run's Future."""

    __slots__ = ()
    kind = prim.fork


class AwaitableSite(SubgraphSite):
    """A ``prim::awaitable``: linked to a callable that returns an Await, which
    runs the subgraph when it is first waited for."""

    __slots__ = ()
    kind = prim.awaitable


#: The site of each kind of node that runs a subgraph.
SUBGRAPH_SITES = {prim.fork: ForkSite, prim.awaitable: AwaitableSite}


def subgraph_site(node: Node, compile_subgraph: Callable) -> SubgraphSite:
    """The site of a ``prim::fork``/``prim::awaitable`` node: its ``Subgraph``
    attribute (the ``with prim::fork_N = graph(...)`` section torch prints),
    checked against the node and compiled."""
    from ..ir import Graph
    sub = node.attrs.get("Subgraph") if node.attrs else None
    if not isinstance(sub, Graph):
        raise ValueError(f"{node.kind} needs its subgraph as a Subgraph attribute "
                         f"(the `with {node.kind}_N = graph(...)` section torch prints)")
    if len(sub.inputs) != len(node.inputs):
        raise ValueError(f"{node.kind} passes {len(node.inputs)} inputs to a subgraph "
                         f"that takes {len(sub.inputs)}")
    return SUBGRAPH_SITES[node.kind](compile_subgraph(sub))


class SeedLowering:
    """The seed's CodeImpl: one code generation, from a preprocessed graph.

    Args:
        move_flags: from :func:`~pyjit.passes.find_last_uses.find_last_uses`.
        registry: where operators are looked up.
        compile_subgraph: makes the Code of a fork's or an awaitable's subgraph
            (at the same level).
        unit: where calls find their callees (:mod:`.calls`), or None.
    """

    # The seed's table has no scalar registers and preloads nothing.
    scalar_kinds: Tuple[str, ...] = ()
    scalar_init: Tuple[int, ...] = ()
    preload: Tuple[Tuple[int, object], ...] = ()
    scalar_constants: Tuple[Tuple[int, object], ...] = ()

    def __init__(self, move_flags: Dict[Node, List[bool]], registry: Registry,
                 compile_subgraph: Callable, unit=None) -> None:
        self.unit = unit
        self.move_flags = move_flags
        self.registry = registry
        self.compile_subgraph = compile_subgraph
        self.table = TableBuilder()
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
        return self.table.emit(opcode, name, node,
                               [self.register(v, required=True) for v in inputs], flags,
                               [self.register(v) for v in outputs], arg)

    def emit_node(self, node: Node) -> None:
        kind = node.kind
        ins, outs, flags = node.inputs, node.outputs, self.move_flags[node]
        t = self.table
        if kind == prim.Constant and outs and is_call_constant(outs[0]):
            return  # stands for its callee: resolved below, never a value
        if kind == prim.Constant:
            value = constants.value_of(node, self.unit)
            name = listing_name(node)
            if constants.is_mutable(value):
                self.emit(op.CALL, name, node, ins, flags, outs,
                          t.callback(constants.fresh_copy(value)))
            else:
                self.emit(op.CONST, name, node, ins, flags, outs,
                          t.constant(constants.shared(value)))
        elif kind == prim.Load:
            self.emit(op.LOAD, kind, node, ins, flags, outs)
        elif kind == prim.Store:
            self.emit(op.STORE, kind, node, ins, flags, outs)
        elif kind == prim.Drop:
            keep = [(v, f) for v, f in zip(ins, flags) if not is_call_constant(v)]
            if keep:
                self.emit(op.DROP, kind, node, [v for v, _ in keep], [f for _, f in keep], outs)
        elif kind == aten.wait:
            constants.check_wait(node)
            self.emit(op.WAIT, kind, node, ins, flags, outs)
        elif kind in SUBGRAPH_SITES:
            site = subgraph_site(node, self.compile_subgraph)
            self.emit(op.CALL, kind, node, ins, flags, outs, t.callback(site))
        elif kind in CALL_KINDS:
            callee = resolve_call(node, self.unit)
            args, arg_flags = call_operands(node, flags)
            self.emit(op.INVOKE, listing_name(node, callee.qualified_name), node, args,
                      arg_flags, outs, t.callback(CallSite(callee, optimize=False)))
        else:
            resolved = self.registry.lookup(node)
            opcode = op.STACKCALL if resolved.stack else op.CALL
            self.emit(opcode, listing_name(node), node, ins, flags, outs,
                      t.callback(resolved.fn))

    def emit_block(self, block: Block) -> Iterator[Block]:
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

    def emit_if(self, node: Node) -> Iterator[Block]:
        then_block, else_block = node.blocks
        t = self.table
        cond = self.emit(op.JUMPNZ, prim.JumpNZ, node, node.inputs, self.move_flags[node], ())
        yield else_block
        self.emit(op.ASSIGN, prim.Assign, node, else_block.outputs,
                  self.move_flags[else_block.return_node], node.outputs)
        jump = self.emit(op.JUMP, prim.Jump, node, (), (), ())
        then_start = len(t)
        yield then_block
        self.emit(op.ASSIGN, prim.Assign, node, then_block.outputs,
                  self.move_flags[then_block.return_node], node.outputs)
        t.arg[jump] = len(t)
        t.arg[cond] = then_start

    def emit_loop(self, node: Node) -> Iterator[Block]:
        (body,) = node.blocks
        t = self.table
        # Leaves the condition on the stack for the JUMPZ.
        self.emit(op.ASSIGN, prim.Assign, node, node.inputs, self.move_flags[node], body.inputs)
        cond = self.emit(op.JUMPZ, prim.JumpZ, node, (), (), ())
        entry = len(t)
        yield body
        self.emit(op.ASSIGN, prim.Assign, node, body.outputs,
                  self.move_flags[body.return_node], body.inputs)
        self.emit(op.JUMPNZ, prim.JumpNZ, node, (), (), (), arg=entry)
        self.alias(node.outputs, body.inputs)
        t.arg[cond] = len(t)
