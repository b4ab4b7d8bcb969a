"""Where each value of an optimised Code lives: a scalar register or an object one.

A value of static type ``int``, ``float`` or ``bool`` need not be a Python object:
an intrinsic instruction reads and writes it as a raw int64, double or bool in a
scalar register.  Whether it *should* live there depends on who produces and who
consumes it, and on the values it is moved to and from:

* **webs.**  An ``ASSIGN``/``MOVE`` carries values from block outputs to If outputs
  and between a Loop's inputs, body inputs, body outputs and outputs.  The values
  it connects, when they have the same type, form a *web* that shares one home,
  so those moves never box or unbox.
* **native** producers and consumers work on raw scalars: intrinsics (a node the
  registry resolves to a library operator declared with an intrinsic
  instruction), a Loop's counter, trip count and conditions, an If's condition.
* a web of ``int``, ``float`` or ``bool`` values with at least one native producer
  or consumer lives in scalar registers (one per value); any other web lives in
  object registers, exactly as without optimisation.  Where an object-register
  consumer (a generic call, a list, ``STORE``) meets a scalar value, the code
  generator boxes it; where a generic producer (a call, ``LOAD``) makes a value
  that lives in a scalar register, it unboxes it.  Constants are neither: each
  use reads one from whichever file it needs, preloaded when a run starts.

For example, in ``for i in range(n): acc = acc + i`` the counter, ``n``, both
``acc`` and the addition are scalar; only ``LOAD`` (unbox ``n`` and ``acc``) and
``STORE`` (box the result) touch objects.
"""

from __future__ import annotations

from typing import Dict, List, Optional, Tuple

from .. import opcodes as op
from ..errors import PyjitError
from ..ir import Block, Graph, Node, Value
from ..ir import types as T
from ..ir.calls import CALL_KINDS
from ..ir.symbols import prim
from ..registry import Registry, Resolved

__all__ = ["Homes", "SCALAR_KINDS", "COMPARISONS", "is_constant"]

#: The kind letter (``pyjit.opcodes``) of each scalar type.
SCALAR_KINDS = {T.INT: "I", T.FLOAT: "F", T.BOOL: "B"}
_KIND_OF_NAME = {t.name: k for t, k in SCALAR_KINDS.items()}  # type: ignore[attr-defined]


_NAMED = T.NamedType


def scalar_kind(t: T.Type) -> Optional[str]:
    """``SCALAR_KINDS.get(t)`` without hashing ``t``: a Type's hash and equality
    are Python code, and this is asked several times per node."""
    return _KIND_OF_NAME.get(t.name) if type(t) is T.NamedType else None  # type: ignore[attr-defined]

#: The comparison intrinsics a branch can absorb, by name, without the suffix.
COMPARISONS = frozenset({"LT", "LE", "GT", "GE", "EQ", "NE"})
# Their instructions on ints and doubles, which a branch may fold.
_COMPARISON_INSTRUCTIONS = frozenset(f"{c}_{k}" for c in COMPARISONS for k in ("I", "F"))

# Nodes the lowering handles itself, never through the registry.
_INSTRUCTION_KINDS = frozenset({prim.Constant, prim.If, prim.Loop, prim.Load, prim.Store,
                                prim.Drop, "aten::wait", prim.fork, prim.awaitable}) | CALL_KINDS
_INT64_MAX = 2 ** 63 - 1


def is_constant(v: Value) -> bool:
    """A value every run can preload: a constant, or the placeholder torch uses for a
    variable not yet assigned (``prim::Uninitialized``, never read)."""
    node = v._node  # asked for every operand: no properties
    return node._kind in _CONSTANT_KINDS and not node._inputs


_CONSTANT_KINDS = (prim.Constant, "prim::Uninitialized")


class Homes:
    """The home of every value of a preprocessed graph (see the module docstring),
    plus what the lowering needs to know about nodes: the operator each node
    resolves to, the intrinsic instruction it becomes, and which comparisons fold
    into the branch that uses them.

    Args:
        graph: the preprocessed graph (loops not desugared).
        registry: where operators are looked up (once per node, here).

    Raises:
        OperatorNotFoundError: a node has no operator.
        PyjitError: a Loop's trip count is not an int or a condition not a bool.
    """

    def __init__(self, graph: Graph, registry: Registry) -> None:
        # What each node looked up resolves to (see resolution): by the key of
        # its kind and types in _memo, which a graph repeats, rather than per
        # node (a dict entry per node is ~50 bytes); per node only for an
        # operator whose factory picks its callable from the node itself.
        self._memo: Dict[tuple, Tuple[Resolved, Optional[op.OpDef]]] = {}
        self._own: Dict[Node, Tuple[Resolved, Optional[op.OpDef]]] = {}
        comparisons: List[Node] = []  # nodes that became compare instructions
        #: Comparison nodes emitted as part of the branch that uses them.
        self.folded: Dict[Node, Node] = {}
        self._parent: Dict[Value, Value] = {}
        # Whether a value is native, by value id (ids are dense and below the
        # graph's next id): a byte per value where a set would take ~40.
        self._native = bytearray(graph._next_unique)
        self._registry = registry
        loops: List[Node] = []
        #: Whether the graph has an If or a Loop (else it has no block outputs,
        #: and nothing for coalesce to do).
        self.control_flow = False
        for node in _all_nodes(graph.block):
            if self._visit(node):
                comparisons.append(node)
            if node._kind == prim.Loop:
                loops.append(node)
                self.control_flow = True
            elif node._kind == prim.If:
                self.control_flow = True
        # A web is native when any member is: its root says so for all (roots are
        # final after _visit; only non-roots have a parent).
        native = self._native
        for v in list(self._parent):
            if native[v._unique]:
                native[self._find(v)._unique] = 1
        self.counted = {loop: self._needs_counter(loop) for loop in loops}
        for node in comparisons:
            user = self._folding_user(node)
            if user is not None:
                self.folded[node] = user

    # -- queries -----------------------------------------------------------------
    def resolution(self, node: Node) -> Optional[Tuple[Resolved, Optional[op.OpDef]]]:
        """``(operator, intrinsic)`` for a node that calls an operator: what it
        resolves to, and the intrinsic instruction it becomes (None if it is
        called); None for a node that is an instruction of its own (control
        flow, Load/Store/Drop, constants...)."""
        key = self._key(node)
        if key is None:
            return None
        known = self._memo.get(key)
        return known if known is not None else self._own.get(node)

    def intrinsic(self, node: Node) -> Optional[op.OpDef]:
        """The intrinsic instruction ``node`` becomes, or None."""
        known = self.resolution(node)
        return None if known is None else known[1]

    def kind(self, v: Value) -> Optional[str]:
        """``"I"``, ``"F"`` or ``"B"`` for a value in a scalar register, None for one
        in an object register (a constant: where its web puts it)."""
        t = v._type
        if type(t) is not _NAMED:
            return None
        k = _KIND_OF_NAME.get(t.name)
        if k is None:
            return None
        # _find, inlined for the commonest case: a value in no web of others.
        parent = self._parent
        root = parent.get(v, v)
        if root is not v:
            root = self._find(v)
        return k if self._native[root._unique] else None

    # -- analysis ------------------------------------------------------------------
    def _find(self, v: Value) -> Value:
        parent = self._parent
        root = v
        while parent.get(root, root) is not root:
            root = parent[root]
        while v is not root:  # path compression
            parent[v], v = root, parent[v]
        return root

    def _union(self, a: Value, b: Value) -> None:
        if scalar_kind(a.type) is not None and a.type == b.type:
            ra, rb = self._find(a), self._find(b)
            if ra is not rb:
                self._parent[ra] = rb

    def _mark(self, v: Value, want: str) -> None:
        if scalar_kind(v.type) == want:
            self._native[v._unique] = 1

    def _visit(self, node: Node) -> bool:
        """Take in ``node``; returns whether it became a compare instruction."""
        kind = node._kind
        if kind == prim.If:
            self._mark(node.inputs[0], "B")
            for block in node.blocks:
                for out, v in zip(node.outputs, block.outputs):
                    self._union(out, v)
        elif kind == prim.Loop:
            self._check_loop(node)
            (body,) = node.blocks
            self._mark(node.inputs[0], "I")
            self._mark(node.inputs[1], "B")
            self._mark(body.inputs[0], "I")
            self._mark(body.outputs[0], "B")
            for a, b, c, d in zip(node.inputs[2:], body.inputs[1:], body.outputs[1:],
                                  node.outputs):
                self._union(a, b)
                self._union(c, b)
                self._union(d, b)
        else:
            key = self._key(node)
            if key is None:
                return False
            # What a node resolves to depends only on its kind and its values'
            # types (unless a factory picks its callable from the node itself):
            # a graph repeats a few of those, so each is looked up once.
            known = self._memo.get(key)
            if known is None:
                resolved = self._registry.lookup(node)
                known = (resolved, self._intrinsic_of(node, resolved))
                if resolved.operator.factory is None:
                    self._memo[key] = known
                else:
                    self._own[node] = known
            d = known[1]
            if d is not None:
                native = self._native
                for v in node._inputs:
                    native[v._unique] = 1  # an int read as a float is converted
                native[node._outputs[0]._unique] = 1
                return d.name in _COMPARISON_INSTRUCTIONS
        return False

    @staticmethod
    def _key(node: Node) -> Optional[tuple]:
        """The memo key of a node that calls an operator (its kind and its
        values' types), None for a node that is an instruction of its own.  The
        types are the graph's, alive while it is, so their ids are keys."""
        kind = node._kind
        if kind in _INSTRUCTION_KINDS or (kind == "prim::Uninitialized" and not node._inputs):
            return None
        ins, outs = node._inputs, node._outputs
        out_type = id(outs[0]._type) if outs else None
        return ((kind, len(outs), out_type, id(ins[0]._type)) if len(ins) == 1
                else (kind, len(outs), out_type, *[id(v._type) for v in ins]))

    def _intrinsic_of(self, node: Node, resolved: Resolved) -> Optional[op.OpDef]:
        """The intrinsic instruction for ``node``, if the registry declared one and
        the node's types are the ones the instruction reads and writes."""
        if resolved.intrinsic is None or resolved.stack:
            return None
        d = op.BY_NAME[resolved.intrinsic]
        if len(node.outputs) != 1 or len(node.inputs) != len(d.inputs.fixed):
            return None
        if scalar_kind(node.outputs[0].type) != d.outputs.fixed:
            return None
        for v, k in zip(node.inputs, d.inputs.fixed):
            have = scalar_kind(v.type)
            if have != k and not (have == "I" and k == "F"):
                return None
        return d

    def _check_loop(self, node: Node) -> None:
        (body,) = node.blocks
        checks = [(node.inputs[0], T.INT, "trip count"), (node.inputs[1], T.BOOL,
                                                         "initial condition"),
                  (body.outputs[0], T.BOOL, "body's condition")]
        for v, want, what in checks:
            if v.type != want:
                where = f" at {node.source_location}" if node.source_location else ""
                raise PyjitError(f"prim::Loop{where}: its {what} %{v.debug_name} is "
                                 f"{v.type}, not {want}")

    def _needs_counter(self, loop: Node) -> bool:
        """A Loop keeps a trip counter unless it is a while loop: its trip count the
        constant INT64_MAX and its counter unused."""
        n = loop.inputs[0]
        counter = loop.blocks[0].inputs[0]
        while_loop = (n.node.kind == prim.Constant and n.node.attrs.get("value") == _INT64_MAX)
        return not (while_loop and all(u.user.kind == prim.Drop for u in counter.uses))

    def _folding_user(self, node: Node) -> Optional[Node]:
        """The If or Loop into whose branch the comparison ``node`` folds, if any: its
        result has one use, which is the condition of an If or of a counter-less
        Loop right in its block, or the condition a counter-less Loop's body
        returns when its operands are not rewritten by the back edge's moves."""
        (out,) = node.outputs
        uses = [u for u in out.uses if u.user.kind != prim.Drop]
        if len(uses) != 1 or len(uses) != len(out.uses):
            return None
        (use,) = uses
        user, block = use.user, node.owning_block
        if user.owning_block is block and user.kind == prim.If and use.offset == 0:
            return user
        if user.owning_block is block and user.kind == prim.Loop and use.offset == 1 \
                and not self.counted[user]:
            return user
        owner = block.owning_node
        if (user is block.return_node and use.offset == 0 and owner is not None
                and owner.kind == prim.Loop and not self.counted[owner]):
            params = set(block.inputs[1:])
            if not any(v in params for v in node.inputs):
                return owner
        return None


def _all_nodes(block: Block):
    """Every node, nested blocks included, in no particular order."""
    stack = [block]
    while stack:
        b = stack.pop()
        for node in b.nodes():
            yield node
            stack.extend(node._blocks)
