"""The optimising lowering (the default): the seed's table plus the typed tier.

The graph has been through :func:`pyjit.passes.preprocess` with its loops kept
(their trip counts are not desugared into operators).  Values live where
:class:`~.homes.Homes` puts them: scalar values that flow between intrinsics in
scalar registers (``s3`` in the listing), everything else in object registers as
in the seed's lowering.  What changes, node by node:

* an intrinsic node is one instruction on scalar registers (``s5 = ADD_I s3, s4``),
  with no stack, no call and no object;
* a constant is no instruction at all: every run starts with it in a register
  (scalar, object or both, as its uses need);
* a generic call's scalar inputs are boxed into fresh object registers first
  (``BOX_I``), its scalar outputs unboxed after (``UNBOX_I``): boxing is explicit,
  counted, and only where an object is needed;
* control flow::

    x = If c: <then> -> (vt)          JT c -> then           (or JLT_I a, b -> then
        else: <else> -> (vf)          <else>                  when c = a < b has no
                                      x = MOVE vf             other use)
                                      JUMP -> end
                                then: <then>
                                      x = MOVE vt
                                 end:

    o = Loop n c0 l0: (i, l) <body>          l = MOVE l0
                         -> (c1, l1)         i = LOOP_ENTER n, c0 -> end
                                      body:  <body>
                                             l = MOVE l1
                                             i = LOOP_BACK i, n, c1 -> body
                                       end:  (o shares l's registers)

  A while loop (trip count INT64_MAX, counter unused) has no counter: it enters
  with ``JF c0 -> end`` and goes round with ``JT c1 -> body``, either of which
  absorbs the comparison that computes its condition.  Object values move with
  ``ASSIGN`` as in the seed, beside the ``MOVE`` of the scalar ones.
"""

from __future__ import annotations

import struct
from array import array
from typing import Callable, Dict, Iterator, List, Optional, Sequence, Tuple

from .. import opcodes as op
from ..ir import Block, Graph, Node, Value
from ..ir import types as T
from ..ir.symbols import aten, prim
from ..registry import Registry, Resolved
from . import constants
from .calls import CALL_KINDS, CallSite, call_operands, resolve_call
from .coalesce import coalesce
from .homes import Homes, is_constant
from .seed import SUBGRAPH_SITES, subgraph_site
from .table import TableBuilder, listing_name

__all__ = ["TypedLowering"]

_ZERO = {T.INT: 0, T.FLOAT: 0.0, T.BOOL: False}
_SCALAR_TYPES = {"I": int, "F": float, "B": bool}

# Fused compare-and-branch: comparison -> (opcode, operands swapped), jumping when
# the comparison holds; and when it does not.
_JUMP_IF = op.BRANCHES

def _negated(code: int, swap: bool) -> Tuple[int, bool]:
    name, swap_again = op.NEGATIONS[op.BY_CODE[code].name]
    return op.BY_NAME[name].code, swap != swap_again


_JUMP_UNLESS = {name: _negated(*jump) for name, jump in _JUMP_IF.items()}


# ``d.inputs.fixed`` by opcode, read once per intrinsic node.
_FIXED_INPUTS = {d.code: d.inputs.fixed for d in op.OPCODES}


def scalar_bits(value, kind: str) -> int:
    """A scalar register's int64 contents for ``value`` read as ``kind``."""
    if kind == "F":
        return struct.unpack("<q", struct.pack("<d", float(value)))[0]
    return int(value)


class TypedLowering:
    """One optimising code generation, from a preprocessed graph.

    Args:
        graph: the preprocessed graph, loops kept.
        move_flags: from :func:`~pyjit.passes.find_last_uses.find_last_uses`.
        registry: where operators are looked up.
        compile_subgraph: makes the Code of a fork's or an awaitable's subgraph
            (at the same level).
        unit: where calls find their callees (:mod:`.calls`), or None.
    """

    def __init__(self, graph: Graph, move_flags: Dict[Node, List[bool]], registry: Registry,
                 compile_subgraph: Callable, unit=None) -> None:
        self.unit = unit
        self.homes = Homes(graph, registry)
        self.share = coalesce(graph, self.homes)  # value -> the value whose register it uses
        self.move_flags = move_flags
        self.compile_subgraph = compile_subgraph
        self.table = TableBuilder()
        self.reg: Dict[Value, int] = {}       # object registers of object-homed values
        # Scalar registers of scalar-homed values, by value id (-1: none yet): an
        # array, as most values of a scalar graph have one.
        self.sreg = array("i", [-1]) * graph._next_unique
        self.register_size = 0
        self.scalar_kinds: List[str] = []     # one kind letter per scalar register
        self.scalar_init: List[int] = []      # and its int64 contents at the start
        self.preload: List[Tuple[int, object]] = []
        self._const_r: Dict[Value, int] = {}  # constants preloaded in object registers
        self._const_s: Dict[Tuple[Value, str], int] = {}  # ... and in scalar ones, by kind
        self.scalar_constants: List[Tuple[int, object]] = []  # (register, value)

    # -- registers ----------------------------------------------------------------
    def _new_reg(self) -> int:
        self.register_size += 1
        return self.register_size - 1

    def _new_sreg(self, kind: str, bits: int = 0) -> int:
        self.scalar_kinds.append(kind)
        self.scalar_init.append(bits)
        return len(self.scalar_init) - 1

    @property
    def scalar_size(self) -> int:
        return len(self.scalar_init)

    def _constant(self, v: Value):
        if v.node.kind == prim.Constant:
            return constants.value_of(v.node, self.unit)
        return _ZERO.get(v.type)  # Uninitialized: never read; any value of the type

    def r_in(self, node: Node, v: Value, flag: bool) -> Tuple[int, bool]:
        """The object register holding input ``v`` and its move flag: a preloaded
        constant (never moved), the value's own register, or a box of its scalar
        register made just now (moved into the consumer)."""
        if is_constant(v) and not constants.is_mutable(self._constant(v)):
            r = self._const_r.get(v)
            if r is None:
                r = self._const_r[v] = self._new_reg()
                value = self._constant(v) if v.node.kind == prim.Constant else None
                self.preload.append((r, constants.shared(value)))
            return r, False
        k = self.homes.kind(v)
        if k is None:
            return self.reg[v], flag
        tmp = self._new_reg()
        self.table.emit(op.BOX[k], f"BOX_{k}", node, [self.sreg[v._unique]], [False], [tmp])
        return tmp, True

    def s_in(self, node: Node, v: Value, kind: str) -> int:
        """The scalar register holding input ``v`` read as ``kind``: a preloaded
        constant, the value's own register, or an int converted to a double."""
        if is_constant(v):
            r = self._const_s.get((v, kind))
            if r is None:
                value = _SCALAR_TYPES[kind](self._constant(v))
                r = self._const_s[v, kind] = self._new_sreg(kind, scalar_bits(value, kind))
                self.scalar_constants.append((r, value))
            return r
        r = self.sreg[v._unique]
        if r >= 0 and self.scalar_kinds[r] == kind:
            return r  # its register's kind is its home's: no need to ask Homes
        have = self.homes.kind(v)
        if have == kind:
            return r
        assert have == "I" and kind == "F", (v, have, kind)
        tmp = self._new_sreg("F")
        self.table.emit(op.I2F, "I2F", node, [self.sreg[v._unique]], [False], [tmp],
                        self.table.callback(float))
        return tmp

    def s_out(self, v: Value) -> int:
        r = self.sreg[v._unique]
        if r < 0:
            other = self.share.get(v) if self.share else None
            if other is None:
                r = len(self.scalar_init)  # _new_sreg, inlined: once per scalar value
                self.scalar_kinds.append(self.homes.kind(v))
                self.scalar_init.append(0)
            else:
                r = self.s_out(other)
            self.sreg[v._unique] = r
        return r

    def r_out(self, v: Value) -> int:
        r = self.reg.get(v)
        if r is None:
            r = self.reg[v] = self._new_reg()
        return r

    # -- nodes ----------------------------------------------------------------------
    def emit_generic(self, opcode: int, name: str, node: Node, arg: int = 0,
                     operands=None) -> int:
        """A seed-protocol instruction for ``node``: scalar inputs boxed first, scalar
        outputs unboxed after.  ``operands``: the (inputs, move flags) it takes, when
        not all of the node's."""
        inputs, flags = operands or (node.inputs, self.move_flags[node])
        ins = [self.r_in(node, v, f) for v, f in zip(inputs, flags)]
        outs, unbox = [], []
        for v in node.outputs:
            k = self.homes.kind(v)
            if k is None:
                outs.append(self.r_out(v))
            else:
                tmp = self._new_reg()
                outs.append(tmp)
                unbox.append((k, tmp, v))
        at = self.table.emit(opcode, name, node, [r for r, _ in ins], [f for _, f in ins],
                             outs, arg)
        for k, tmp, v in unbox:
            self.table.emit(op.UNBOX[k], f"UNBOX_{k}", node, [tmp], [True], [self.s_out(v)])
        return at

    def emit_node(self, node: Node) -> None:
        homes = self.homes
        known = homes.resolution(node)
        if known is not None and known[1] is not None:
            if node not in homes.folded:  # else emitted by the branch that uses it
                self.emit_intrinsic(node, *known)
            return
        kind = node.kind
        t = self.table
        if kind == prim.Constant and len(node.outputs) != 1:
            constants.value_of(node)  # raises: a constant is one value
        if node.outputs and is_constant(node.outputs[0]):
            value = self._constant(node.outputs[0])
            if constants.is_mutable(value):
                self.emit_generic(op.CALL, listing_name(node), node,
                                  t.callback(constants.fresh_copy(value)))
            return  # preloaded where it is used
        if kind == prim.Load:
            self.emit_generic(op.LOAD, kind, node)
        elif kind == prim.Store:
            self.emit_generic(op.STORE, kind, node)
        elif kind == prim.Drop:
            self.emit_drop(node)
        elif kind == aten.wait:
            constants.check_wait(node)
            self.emit_generic(op.WAIT, kind, node)
        elif kind in SUBGRAPH_SITES:
            site = subgraph_site(node, self.compile_subgraph)
            self.emit_generic(op.CALL, kind, node, t.callback(site))
        elif kind in CALL_KINDS:
            # Scalars are boxed for the callee's LOAD, as for any generic call.
            callee = resolve_call(node, self.unit)
            self.emit_generic(op.INVOKE, listing_name(node, callee.qualified_name), node,
                              t.callback(CallSite(callee, optimize=True)),
                              call_operands(node, self.move_flags[node]))
        else:
            resolved = known[0]  # type: ignore[index]  # Homes looked up every other node
            self.emit_generic(op.STACKCALL if resolved.stack else op.CALL, listing_name(node),
                              node, t.callback(resolved.fn))

    def emit_intrinsic(self, node: Node, resolved: Resolved, d: op.OpDef) -> None:
        """One instruction on scalar registers, with the operator's callable as its
        ``arg`` (the pure loop's fallback and the listing's name)."""
        t = self.table
        s_in = self.s_in
        ins = [s_in(node, v, k) for v, k in zip(node._inputs, _FIXED_INPUTS[d.code])]
        # Homes made it an intrinsic: one output, one input per fixed operand.
        t.emit_scalar(d.code, d.name, node, ins, self.s_out(node._outputs[0]),
                      t.callback(resolved.fn))

    def emit_drop(self, node: Node) -> None:
        """Only object-homed values are released: scalars and preloaded constants
        have nothing to free."""
        keep = [(v, f) for v, f in zip(node.inputs, self.move_flags[node])
                if self.homes.kind(v) is None and not is_constant(v)]
        if keep:
            self.table.emit(op.DROP, node.kind, node, [self.reg[v] for v, _ in keep],
                            [f for _, f in keep], [])

    def emit_block(self, block: Block) -> Iterator[Block]:
        emit_node = self.emit_node
        for node in block.nodes():
            kind = node._kind
            if kind == prim.If:
                yield from self.emit_if(node)
            elif kind == prim.Loop:
                yield from self.emit_loop(node)
            else:
                emit_node(node)

    # -- control flow ---------------------------------------------------------------
    def emit_moves(self, node: Node, sources: Sequence[Value], flags: Sequence[bool],
                   dests: Sequence[Value], extra: Sequence[Tuple[int, int]] = ()) -> None:
        """Block outputs into place: one parallel MOVE of the scalar ones (plus the
        ``extra`` (source, dest) scalar register pairs) and one parallel ASSIGN of
        the object ones, each omitted when empty."""
        s_pairs = list(extra)
        r_ins: List[int] = []
        r_flags: List[bool] = []
        r_outs: List[int] = []
        for v, f, d in zip(sources, flags, dests):
            k = self.homes.kind(d)
            if k is None:
                r, f = self.r_in(node, v, f)
                r_ins.append(r)
                r_flags.append(f)
                r_outs.append(self.r_out(d))
            else:
                src, dst = self.s_in(node, v, k), self.s_out(d)
                if src != dst:  # computed in place (see coalesce)
                    s_pairs.append((src, dst))
        if s_pairs:
            self.table.emit(op.MOVE, "MOVE", node, [a for a, _ in s_pairs],
                            [False] * len(s_pairs), [b for _, b in s_pairs])
        if r_outs:
            self.table.emit(op.ASSIGN, prim.Assign, node, r_ins, r_flags, r_outs)

    def emit_branch(self, node: Node, cond: Value, flag: bool, when: bool) -> int:
        """A jump taken when ``cond`` is ``when``; returns it, to patch its target.
        A comparison folded into this branch becomes a compare-and-branch."""
        t = self.table
        producer = cond.node
        if self.homes.folded.get(producer) is node:
            d = self.homes.resolution(producer)[1]
            code, swap = (_JUMP_IF if when else _JUMP_UNLESS)[d.name]
            a, b = (self.s_in(node, v, k) for v, k in zip(producer.inputs, d.inputs.fixed))
            if swap:
                a, b = b, a
            at = t.emit(code, op.BY_CODE[code].name, node, [a, b], [False, False], [])
            t.absorbed[at] = producer
            return at
        if self.homes.kind(cond) == "B" or is_constant(cond):
            code = op.JT if when else op.JF
            return t.emit(code, op.BY_CODE[code].name, node, [self.s_in(node, cond, "B")],
                          [False], [])
        r, f = self.r_in(node, cond, flag)
        return t.emit(op.JUMPNZ if when else op.JUMPZ, prim.JumpNZ if when else prim.JumpZ,
                      node, [r], [f], [])

    def emit_if(self, node: Node) -> Iterator[Block]:
        """The layout of the module docstring, with its two jumps to the next
        instruction left out: where the else branch comes to nothing (``if c:
        x = x - k`` with ``x`` computed in place), the branch is negated to jump
        over the then branch; where the then branch does, its JUMP is dropped."""
        then_block, else_block = node.blocks
        t = self.table
        cond = self.emit_branch(node, node.inputs[0], self.move_flags[node][0], True)
        yield else_block
        self.emit_moves(node, else_block.outputs, self.move_flags[else_block.return_node],
                        node.outputs)
        if len(t) == cond + 1:
            t.negate_last()
            yield then_block
            self.emit_moves(node, then_block.outputs,
                            self.move_flags[then_block.return_node], node.outputs)
            t.arg[cond] = len(t)
            return
        jump = t.emit(op.JUMP, prim.Jump, node, [], [], [])
        then_start = len(t)
        yield then_block
        self.emit_moves(node, then_block.outputs, self.move_flags[then_block.return_node],
                        node.outputs)
        if len(t) == then_start:
            t.drop_last()
            then_start = jump
        else:
            t.arg[jump] = len(t)
        t.arg[cond] = then_start

    def emit_loop(self, node: Node) -> Iterator[Block]:
        (body,) = node.blocks
        t = self.table
        n, c0 = node.inputs[0], node.inputs[1]
        counter, params = body.inputs[0], body.inputs[1:]
        c1, results = body.outputs[0], body.outputs[1:]
        flags = self.move_flags[node]
        self.emit_moves(node, node.inputs[2:], flags[2:], params)
        counted = self.homes.counted[node]
        if counted:
            enter = t.emit(op.LOOP_ENTER, "LOOP_ENTER", node,
                           [self.s_in(node, n, "I"), self.s_in(node, c0, "B")], [False, False],
                           [self.s_out(counter)])
        else:
            enter = self.emit_branch(node, c0, flags[1], False)
        entry = len(t)
        yield body
        # The back edge reads the body's condition after the moves: a condition
        # the moves overwrite (one of the body's inputs) is copied aside with them.
        extra: List[Tuple[int, int]] = []
        folded = self.homes.folded.get(c1.node) is node
        if not folded and c1 in params and self.homes.kind(c1) == "B":
            tmp = self._new_sreg("B")
            extra.append((self.sreg[c1._unique], tmp))
        self.emit_moves(node, results, self.move_flags[body.return_node][1:], params, extra)
        if counted:
            c = extra[0][1] if extra else self.s_in(node, c1, "B")
            i = self.s_out(counter)
            t.emit(op.LOOP_BACK, "LOOP_BACK", node, [i, self.s_in(node, n, "I"), c],
                   [False] * 3, [i], entry)
        elif extra:
            t.emit(op.JT, "JT", node, [extra[0][1]], [False], [], entry)
        else:
            back = self.emit_branch(node, c1, self.move_flags[body.return_node][0], True)
            t.arg[back] = entry
        for o, p in zip(node.outputs, params):
            if self.homes.kind(o) is None:
                self.reg[o] = self.reg[p]
            else:
                self.sreg[o._unique] = self.sreg[p._unique]
        t.arg[enter] = len(t)
