"""The graph IR: :class:`Graph`, :class:`Block`, :class:`Node`, :class:`Value`, :class:`Use`.

The same structure as PyTorch's IR, which the seed's passes rewrite::

    graph(%x : int, %n : int):              Graph: a top-level Block
      %c : bool = prim::Constant[value=1]()    Node, with one output Value
      %r : int = prim::Loop(%n, %c, %x)        Node with a sub-Block
        block0(%i : int, %acc : int):          the Block's inputs
          %acc.2 : int = aten::add(%acc, %i)
          -> (%c, %acc.2)                      the Block's outputs
      return (%r)

Values are in SSA form: each is defined by exactly one node (a block's inputs are
the outputs of its ``prim::Param`` node, its outputs the inputs of its
``prim::Return`` node) and records every :class:`Use` of it.  The mutators keep the
use lists right by themselves, so passes never touch them; :meth:`Graph.lint`
checks that everything still holds.

Nodes of a block form a circular doubly linked list closed by the block's return
node, so iterating a block stays valid while nodes are inserted (as in torch, a node
inserted after the current one is visited).  New nodes go to the graph's insertion
point, which ``with graph.inserting_before(node):`` moves for a while (the seed's
``WithInsertPoint``).

Names follow torch: a value without a debug name prints as its unique id (``%5``);
giving a value a name that another value holds renames the other one with a ``.N``
suffix.
"""

from __future__ import annotations

import contextlib
from typing import Any, Dict, Iterator, List, NamedTuple, Optional, Sequence

from . import types as T
from .source import SourceLocation
from .symbols import is_qualified, prim
from ..errors import PyjitError

__all__ = ["Graph", "Block", "Node", "Value", "Use", "IRError"]


class IRError(PyjitError, ValueError):
    """A mutation that would break the IR's invariants, or a failed lint check."""


class Use(NamedTuple):
    """One use of a value: ``user.inputs[offset] is value``."""

    user: "Node"
    offset: int


def _is_numeric(name: str) -> bool:
    return name.isdigit()


class Value:
    """An SSA value: output number ``offset`` of the node that defines it."""

    __slots__ = ("_node", "_offset", "_unique", "_type", "_uses", "_name", "__weakref__")

    def __init__(self, node: "Node", offset: int, unique: int, type: T.Type) -> None:
        self._node = node
        self._offset = offset
        self._unique = unique
        self._type = type
        self._uses: List[Use] = []
        self._name: Optional[str] = None

    # -- identity ------------------------------------------------------------
    @property
    def node(self) -> "Node":
        """The node that defines this value (a ``prim::Param`` for block inputs)."""
        return self._node

    @property
    def offset(self) -> int:
        """Which output of :attr:`node` this value is."""
        return self._offset

    @property
    def unique(self) -> int:
        """An id unique within the owning graph (the seed's ``Value::unique()``)."""
        return self._unique

    @property
    def owning_graph(self) -> "Graph":
        return self._node._graph

    # -- type ----------------------------------------------------------------
    @property
    def type(self) -> T.Type:
        return self._type

    @type.setter
    def type(self, t: T.Type) -> None:
        if not isinstance(t, T.Type):
            raise TypeError(f"a value's type must be a pyjit.ir.types.Type, not {t!r}")
        self._type = t

    def set_type(self, t: T.Type) -> "Value":
        """Set the type and return the value, for chaining (``setType``)."""
        self.type = t
        return self

    # -- names ---------------------------------------------------------------
    @property
    def debug_name(self) -> str:
        """The name printed after ``%``: the debug name, or the unique id."""
        return self._name if self._name is not None else str(self._unique)

    @debug_name.setter
    def debug_name(self, name: Optional[str]) -> None:
        self.set_debug_name(name)

    def has_debug_name(self) -> bool:
        return self._name is not None

    def set_debug_name(self, name: Optional[str]) -> "Value":
        """Name this value; torch's rules.

        A purely numeric name is refused (it would read as another value's id).  If
        another value of the graph already holds ``name``, that value is renamed to
        ``base.N`` with the next free suffix N, where a name ``x.3`` has base ``x``.
        ``None`` or ``""`` clears the name.
        """
        graph = self._node._graph
        names = graph._names
        if name and _is_numeric(name):
            raise IRError(f"invalid debug name {name!r}: names cannot be numbers")
        if self._name is not None:
            del names[self._name]
            self._name = None
        if not name:
            return self
        other = names.get(name)
        if other is not None:
            base, suffix = name, 1
            head, dot, tail = name.rpartition(".")
            if dot and tail.isdigit() and head:
                base, suffix = head, int(tail)
            suffix = max(suffix, graph._name_suffix.get(base, 0) + 1)
            while True:
                candidate = f"{base}.{suffix}"
                if candidate not in names:
                    break
                suffix += 1
            graph._name_suffix[base] = suffix
            other.set_debug_name(candidate)
        names[name] = self
        self._name = name
        return self

    # -- uses ----------------------------------------------------------------
    @property
    def uses(self) -> List[Use]:
        """A copy of the use list, safe to iterate while rewriting."""
        return list(self._uses)

    def has_uses(self) -> bool:
        return bool(self._uses)

    def replace_all_uses_with(self, other: "Value") -> None:
        """Make every user of this value use ``other`` instead."""
        if other is self:
            return
        for user, offset in list(self._uses):
            user._set_input(offset, other)

    def __repr__(self) -> str:
        return f"%{self.debug_name} : {self._type}"


class Node:
    """An operation: a kind, inputs, outputs, attributes and nested blocks.

    Create nodes with :meth:`Graph.create` and place them with
    :meth:`Graph.insert_node`, :meth:`insert_before` or :meth:`insert_after`.
    """

    __slots__ = ("_kind", "_graph", "_inputs", "_outputs", "_blocks", "_block",
                 "_next", "_prev", "attrs", "source_location", "scope", "__weakref__")

    def __init__(self, graph: "Graph", kind: str) -> None:
        if not is_qualified(kind):
            raise IRError(f"node kind must be qualified as 'namespace::name', got {kind!r}")
        self._kind = kind
        self._graph = graph
        self._inputs: List[Value] = []
        self._outputs: List[Value] = []
        self._blocks: List[Block] = []
        self._block: Optional[Block] = None  # owning block, once inserted
        self._next: Optional[Node] = None
        self._prev: Optional[Node] = None
        #: Attributes in the order they were set (the order they print in).
        self.attrs: Dict[str, Any] = {}
        self.source_location: Optional[SourceLocation] = None
        #: The tracer's module scope (``scope: __module.fc1``), kept for printing.
        self.scope: Optional[str] = None

    # -- structure -----------------------------------------------------------
    @property
    def kind(self) -> str:
        return self._kind

    @property
    def owning_graph(self) -> "Graph":
        return self._graph

    @property
    def owning_block(self) -> Optional["Block"]:
        """The block whose node list holds this node (None until inserted)."""
        return self._block

    @property
    def inputs(self) -> tuple:
        return tuple(self._inputs)

    @property
    def outputs(self) -> tuple:
        return tuple(self._outputs)

    @property
    def blocks(self) -> tuple:
        return tuple(self._blocks)

    def input(self, i: int = 0) -> Value:
        return self._inputs[i]

    def output(self, i: int = 0) -> Value:
        """Output ``i``; without an argument the node must have exactly one output."""
        if i == 0 and len(self._outputs) != 1:
            raise IRError(f"{self._kind} has {len(self._outputs)} outputs, not exactly one")
        return self._outputs[i]

    @property
    def next(self) -> Optional["Node"]:
        return self._next

    @property
    def prev(self) -> Optional["Node"]:
        return self._prev

    def is_inserted(self) -> bool:
        return self._next is not None

    # -- inputs --------------------------------------------------------------
    def _check_value(self, v: Value) -> None:
        if not isinstance(v, Value):
            raise TypeError(f"node inputs must be Values, got {type(v).__name__}")
        if v._node._graph is not self._graph:
            raise IRError(f"value %{v.debug_name} belongs to another graph")

    def _set_input(self, i: int, v: Value) -> None:
        old = self._inputs[i]
        old._uses.remove(Use(self, i))
        self._inputs[i] = v
        v._uses.append(Use(self, i))

    def _shift_uses(self, start: int, delta: int) -> None:
        for j in range(start, len(self._inputs)):
            uses = self._inputs[j]._uses
            uses[uses.index(Use(self, j))] = Use(self, j + delta)

    def add_input(self, v: Value) -> Value:
        """Append an input (``addInput``)."""
        self._check_value(v)
        self._inputs.append(v)
        v._uses.append(Use(self, len(self._inputs) - 1))
        return v

    def insert_input(self, i: int, v: Value) -> Value:
        """Insert an input at position ``i``, shifting the later ones (``insertInput``)."""
        self._check_value(v)
        if not 0 <= i <= len(self._inputs):
            raise IndexError(f"insert_input({i}) on a node with {len(self._inputs)} inputs")
        self._shift_uses(i, 1)
        self._inputs.insert(i, v)
        v._uses.append(Use(self, i))
        return v

    def replace_input(self, i: int, v: Value) -> Value:
        """Make input ``i`` be ``v``; returns the old input (``replaceInput``)."""
        self._check_value(v)
        old = self._inputs[i]
        self._set_input(i, v)
        return old

    def replace_input_with(self, old: Value, new: Value) -> None:
        """Replace every occurrence of ``old`` among the inputs (``replaceInputWith``)."""
        self._check_value(new)
        for i, v in enumerate(self._inputs):
            if v is old:
                self._set_input(i, new)

    def remove_input(self, i: int) -> None:
        """Remove input ``i``, shifting the later ones (``removeInput``)."""
        v = self._inputs[i]
        v._uses.remove(Use(self, i))
        self._shift_uses(i + 1, -1)
        del self._inputs[i]

    def remove_all_inputs(self) -> None:
        for i, v in enumerate(self._inputs):
            v._uses.remove(Use(self, i))
        self._inputs.clear()

    # -- outputs -------------------------------------------------------------
    def add_output(self, type: T.Type = T.TENSOR) -> Value:
        """Append a new output value (``addOutput``)."""
        return self.insert_output(len(self._outputs), type)

    def insert_output(self, i: int, type: T.Type = T.TENSOR) -> Value:
        """Insert a new output at position ``i`` (``insertOutput``)."""
        if not 0 <= i <= len(self._outputs):
            raise IndexError(f"insert_output({i}) on a node with {len(self._outputs)} outputs")
        v = Value(self, i, self._graph._new_unique(), type)
        self._outputs.insert(i, v)
        for j in range(i + 1, len(self._outputs)):
            self._outputs[j]._offset = j
        return v

    def erase_output(self, i: int) -> None:
        """Remove output ``i``, which must have no uses (``eraseOutput``)."""
        v = self._outputs[i]
        if v._uses:
            raise IRError(f"cannot erase output %{v.debug_name} of {self._kind}: it still has "
                          f"{len(v._uses)} use(s)")
        v.set_debug_name(None)
        del self._outputs[i]
        for j in range(i, len(self._outputs)):
            self._outputs[j]._offset = j

    # -- blocks --------------------------------------------------------------
    def add_block(self) -> "Block":
        b = Block(self._graph, self)
        self._blocks.append(b)
        return b

    # -- placement -----------------------------------------------------------
    def _link_after(self, anchor: "Node") -> None:
        if self._next is not None:
            raise IRError(f"{self._kind} node is already in a block")
        if anchor._next is None:
            raise IRError("cannot insert next to a node that is not in a block")
        self._block = anchor._block
        self._prev = anchor
        self._next = anchor._next
        anchor._next._prev = self
        anchor._next = self

    def insert_after(self, n: "Node") -> "Node":
        """Place this (not yet inserted) node right after ``n`` (``insertAfter``)."""
        if n._kind == prim.Return:
            raise IRError("cannot insert a node after a block's return node")
        self._link_after(n if n._kind != prim.Param else n._block._return)
        return self

    def insert_before(self, n: "Node") -> "Node":
        """Place this (not yet inserted) node right before ``n`` (``insertBefore``)."""
        if n._kind == prim.Param:
            raise IRError("cannot insert a node before a block's param node")
        if n._prev is None:
            raise IRError("cannot insert next to a node that is not in a block")
        self._link_after(n._prev)
        return self

    def _unlink(self) -> None:
        self._prev._next = self._next
        self._next._prev = self._prev
        self._next = self._prev = None
        self._block = None

    def move_before(self, n: "Node") -> None:
        self._unlink()
        self.insert_before(n)

    def move_after(self, n: "Node") -> None:
        self._unlink()
        self.insert_after(n)

    def destroy(self) -> None:
        """Remove this node and its blocks from the graph (``destroy``).

        Refused while any output still has uses: replace them first.
        """
        for v in self._outputs:
            if v._uses:
                users = ", ".join(u.user.kind for u in v._uses)
                raise IRError(f"cannot destroy {self._kind}: output %{v.debug_name} is still "
                              f"used by {users}")
        stack = [self]
        while stack:
            node = stack.pop()
            node.remove_all_inputs()
            for b in node._blocks:
                b._return.remove_all_inputs()
                for inner in b.nodes():
                    stack.append(inner)
            for v in node._outputs:
                v.set_debug_name(None)
            if node._next is not None and node._kind not in (prim.Param, prim.Return):
                node._unlink()
        self._blocks.clear()

    # -- queries -------------------------------------------------------------
    def is_before(self, other: "Node") -> bool:
        """Whether this node comes before ``other`` in the same block."""
        if self._block is not other._block:
            raise IRError("is_before compares nodes of one block")
        n = self._next
        while n is not None and n._kind != prim.Return:
            if n is other:
                return True
            n = n._next
        return False

    def __repr__(self) -> str:
        from .printer import node_header
        return node_header(self)


class _NodeList:
    """The nodes of a block, iterable forwards or (``reversed``) backwards.

    Iteration reads the next node only when it is needed, so inserting nodes after
    the current one during a loop is safe and they are visited too.
    """

    __slots__ = ("_sentinel",)

    def __init__(self, sentinel: Node) -> None:
        self._sentinel = sentinel

    def __iter__(self) -> Iterator[Node]:
        end = self._sentinel
        n = end._next
        while n is not end:
            nxt_owner = n
            yield n
            if nxt_owner._next is None:
                raise IRError(f"{nxt_owner.kind} node was removed while iterating over its block")
            n = nxt_owner._next

    def __reversed__(self) -> Iterator[Node]:
        end = self._sentinel
        n = end._prev
        while n is not end:
            cur = n
            yield n
            if cur._prev is None:
                raise IRError(f"{cur.kind} node was removed while iterating over its block")
            n = cur._prev

    def reverse(self) -> Iterator[Node]:
        """The seed's ``nodes().reverse()``."""
        return reversed(self)

    def __len__(self) -> int:
        return sum(1 for _ in self)

    def __bool__(self) -> bool:
        return self._sentinel._next is not self._sentinel

    def front(self) -> Node:
        return self._sentinel._next

    def back(self) -> Node:
        return self._sentinel._prev


class Block:
    """A list of nodes with inputs and outputs: a graph body, or one branch of an If or
    the body of a Loop."""

    __slots__ = ("_graph", "_owning_node", "_param", "_return", "__weakref__")

    def __init__(self, graph: "Graph", owning_node: Optional[Node]) -> None:
        self._graph = graph
        self._owning_node = owning_node
        self._param = Node(graph, prim.Param)
        self._return = Node(graph, prim.Return)
        self._param._block = self._return._block = self
        # The return node closes the circular list (torch's ``output_`` sentinel).
        self._return._next = self._return._prev = self._return
        self._param._next = self._param._prev = self._param  # marks it as placed

    @property
    def owning_graph(self) -> "Graph":
        return self._graph

    @property
    def owning_node(self) -> Optional[Node]:
        """The If/Loop node this block belongs to; None for a graph's top block."""
        return self._owning_node

    @property
    def param_node(self) -> Node:
        return self._param

    @property
    def return_node(self) -> Node:
        return self._return

    @property
    def inputs(self) -> tuple:
        return tuple(self._param._outputs)

    @property
    def outputs(self) -> tuple:
        return tuple(self._return._inputs)

    def nodes(self) -> _NodeList:
        return _NodeList(self._return)

    # -- inputs and outputs ----------------------------------------------------
    def add_input(self, name: Optional[str] = None, type: T.Type = T.TENSOR) -> Value:
        return self.insert_input(len(self._param._outputs), name, type)

    def insert_input(self, i: int, name: Optional[str] = None, type: T.Type = T.TENSOR) -> Value:
        v = self._param.insert_output(i, type)
        if name:
            v.set_debug_name(name)
        return v

    def erase_input(self, i: int) -> None:
        self._param.erase_output(i)

    def register_output(self, v: Value) -> int:
        """Append ``v`` to the block's outputs; returns its index (``registerOutput``)."""
        self._return.add_input(v)
        return len(self._return._inputs) - 1

    add_output = register_output

    def insert_output(self, i: int, v: Value) -> None:
        self._return.insert_input(i, v)

    def erase_output(self, i: int) -> None:
        self._return.remove_input(i)

    # -- nodes -------------------------------------------------------------------
    def append_node(self, n: Node) -> Node:
        """Place ``n`` at the end of the block (``appendNode``)."""
        return n.insert_before(self._return)

    def prepend_node(self, n: Node) -> Node:
        """Place ``n`` at the start of the block (``prependNode``)."""
        n._link_after(self._return)
        return n


class Graph:
    """A function in the IR: a top-level :class:`Block` with the graph's inputs and
    outputs, plus the bookkeeping that is per graph (unique ids, debug names, the
    insertion point).

    Example::

        g = Graph()
        x = g.add_input("x", T.INT)
        one = g.insert_constant(1)
        s = g.insert_node(g.create("aten::add", [x, one])).output().set_type(T.INT)
        g.register_output(s)
    """

    def __init__(self) -> None:
        self._next_unique = 0
        self._names: Dict[str, Value] = {}
        self._name_suffix: Dict[str, int] = {}
        self._block = Block(self, None)
        self._insert_point: Node = self._block._return

    # -- ids ---------------------------------------------------------------------
    def _new_unique(self) -> int:
        u = self._next_unique
        self._next_unique += 1
        return u

    # -- the top block -----------------------------------------------------------
    @property
    def block(self) -> Block:
        return self._block

    @property
    def inputs(self) -> tuple:
        return self._block.inputs

    @property
    def outputs(self) -> tuple:
        return self._block.outputs

    @property
    def param_node(self) -> Node:
        return self._block._param

    @property
    def return_node(self) -> Node:
        return self._block._return

    def nodes(self) -> _NodeList:
        return self._block.nodes()

    def add_input(self, name: Optional[str] = None, type: T.Type = T.TENSOR) -> Value:
        return self._block.add_input(name, type)

    def insert_input(self, i: int, name: Optional[str] = None, type: T.Type = T.TENSOR) -> Value:
        return self._block.insert_input(i, name, type)

    def erase_input(self, i: int) -> None:
        self._block.erase_input(i)

    def register_output(self, v: Value) -> int:
        return self._block.register_output(v)

    def insert_output(self, i: int, v: Value) -> None:
        self._block.insert_output(i, v)

    def erase_output(self, i: int) -> None:
        self._block.erase_output(i)

    # -- creating and placing nodes ----------------------------------------------
    def create(self, kind: str, inputs: Sequence[Value] = (), num_outputs: int = 1) -> Node:
        """A new node, not yet in any block, with ``num_outputs`` Tensor-typed outputs
        (set their types afterwards, as the seed does)."""
        n = Node(self, kind)
        for v in inputs:
            n.add_input(v)
        for _ in range(num_outputs):
            n.add_output()
        return n

    @property
    def insert_point(self) -> Node:
        """New nodes are inserted before this node."""
        return self._insert_point

    def set_insert_point(self, where: "Node | Block") -> None:
        """Insert before a node, or at the end of a block."""
        if isinstance(where, Block):
            where = where._return
        if where._graph is not self:
            raise IRError("insertion point belongs to another graph")
        self._insert_point = where

    @contextlib.contextmanager
    def inserting_before(self, where: "Node | Block") -> Iterator[None]:
        """``with g.inserting_before(n):`` new nodes go before ``n`` (or at the end of a
        block) for the duration, then the previous insertion point returns (the
        seed's ``WithInsertPoint``)."""
        saved = self._insert_point
        self.set_insert_point(where)
        try:
            yield
        finally:
            self._insert_point = saved

    def inserting_at_end(self, block: Block):
        return self.inserting_before(block)

    def insert_node(self, n: Node) -> Node:
        """Place ``n`` at the insertion point (``insertNode``)."""
        return n.insert_before(self._insert_point)

    def append_node(self, n: Node) -> Node:
        return self._block.append_node(n)

    def prepend_node(self, n: Node) -> Node:
        return self._block.prepend_node(n)

    def insert_constant(self, value: Any, type: Optional[T.Type] = None,
                        loc: Optional[SourceLocation] = None) -> Value:
        """Insert a ``prim::Constant`` at the insertion point and return its output.

        The type is inferred from the Python value unless given; booleans are stored
        as the integer attributes 0/1 with a ``bool`` output, as torch stores them.
        """
        n = self.create(prim.Constant)
        if type is None:
            type = constant_type(value)
        if isinstance(value, bool):
            value = int(value)
        if value is not None:
            n.attrs["value"] = value
        n.output().set_type(type)
        n.source_location = loc
        self.insert_node(n)
        return n.output()

    # -- whole-graph operations ---------------------------------------------------
    def copy(self) -> "Graph":
        """A deep copy: same value ids, names, types, attributes and source locations.

        Graph-valued attributes (fork subgraphs) are copied too.
        """
        new = Graph()
        env: Dict[Value, Value] = {}

        def clone_value(old: Value, node: Node) -> Value:
            v = Value(node, len(node._outputs), old._unique, old._type)
            node._outputs.append(v)
            if old._name is not None:
                v._name = old._name
                new._names[old._name] = v
            env[old] = v
            return v

        # Blocks are copied with an explicit work list so deep nesting cannot hit
        # the recursion limit.
        work = [(self._block, new._block)]
        while work:
            src, dst = work.pop()
            for v in src.inputs:
                clone_value(v, dst._param)
            for n in src.nodes():
                m = Node(new, n._kind)
                for v in n._inputs:
                    m.add_input(env[v])
                for v in n._outputs:
                    clone_value(v, m)
                m.attrs = {k: _copy_attr(a) for k, a in n.attrs.items()}
                m.source_location = n.source_location
                m.scope = n.scope
                dst.append_node(m)
                for b in n._blocks:
                    nb = m.add_block()
                    work.append((b, nb))
            # A block's outputs are in scope at its end, so they are all copied by
            # now (nested blocks, copied later, cannot define them).
            for v in src.outputs:
                dst._return.add_input(env[v])
        new._next_unique = self._next_unique
        new._name_suffix = dict(self._name_suffix)
        return new

    def lint(self) -> None:
        """Check the graph's invariants; raises :class:`IRError` naming the first
        violation.

        Checked: every node sits in the block it claims, with consistent links;
        outputs know their node and offset; every input is a live value of this
        graph, defined before its use in the same block or an enclosing one
        (scoping); use lists match the inputs exactly; value ids are unique and
        the name table matches the values' names.
        """
        from .lint import lint_graph
        lint_graph(self)

    def __str__(self) -> str:
        from .printer import print_graph
        return print_graph(self)

    def __repr__(self) -> str:
        return f"<pyjit Graph with {len(self.inputs)} inputs, {len(self.outputs)} outputs>"


def _copy_attr(a: Any) -> Any:
    if isinstance(a, Graph):
        return a.copy()
    if isinstance(a, list):
        return [_copy_attr(x) for x in a]
    return a


def constant_type(value: Any) -> T.Type:
    """The type torch gives a constant of this Python value."""
    if value is None:
        return T.NONE
    if isinstance(value, bool):
        return T.BOOL
    if isinstance(value, int):
        return T.INT
    if isinstance(value, float):
        return T.FLOAT
    if isinstance(value, str):
        return T.STR
    if isinstance(value, (list, tuple)):
        elems = {constant_type(v) for v in value}
        if isinstance(value, tuple):
            return T.TupleType(constant_type(v) for v in value)
        if len(elems) == 1:
            return T.ListType(elems.pop())
        if not value:
            raise IRError("the type of an empty list constant must be given")
        raise IRError(f"list constant mixes types: {sorted(map(str, elems))}")
    if hasattr(value, "dtype") and hasattr(value, "shape"):
        return T.TENSOR
    raise IRError(f"no constant type for {type(value).__name__} value {value!r}")
