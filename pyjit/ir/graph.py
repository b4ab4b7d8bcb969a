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

A use list stores the using node once per input that holds the value, not a
``(node, offset)`` pair: a pair per use would be most of a graph's memory, and
inserting or removing an input would have to renumber the pairs of the inputs
after it.  :attr:`Value.uses` finds the offsets when asked.  Most values are
used exactly once, so a value stores its only user directly and makes a list
only for a second one (see :func:`_users`).  Nodes and values have no
``__weakref__`` slot and no empty containers, for the same reason: graphs of a
million nodes must fit in memory twice (the code generator copies them).

Nodes of a block form a circular doubly linked list closed by the block's return
node, so iterating a block stays valid while nodes are inserted (as in torch, a node
inserted after the current one is visited) and while the current node is destroyed.
New nodes go to the graph's insertion point, which ``with
graph.inserting_before(node):`` moves for a while (the seed's ``WithInsertPoint``).

Names follow torch: a value without a debug name prints as its unique id (``%5``);
giving a value a name that another value holds renames the other one with a ``.N``
suffix.

Every walk over nested blocks (copy, destroy, lint, printing, ``all_nodes``) keeps
its own stack, so deep nesting never meets Python's recursion limit.  A tour of the
API, with the seed's C++ name for each call, is in ``docs/ir.md``.
"""

from __future__ import annotations

import contextlib
import operator
from typing import Any, Dict, Iterator, List, NamedTuple, Optional, Sequence

from . import types as T
from .source import SourceLocation
from .symbols import is_qualified, prim
from .traversal import nodes_depth_first
from ..errors import PyjitError

__all__ = ["Graph", "Block", "Node", "Value", "Use", "IRError", "copy_attribute"]


class IRError(PyjitError, ValueError):
    """A mutation that would break the IR's invariants, or a failed lint check."""

    @classmethod
    def at(cls, node: "Node", message: str) -> "IRError":
        """The error for ``node``, which cannot be compiled: the message, the
        node's source location, and the node itself (as OperatorNotFoundError)."""
        from .printer import node_header
        where = f" at {node.source_location}" if node.source_location is not None else ""
        return cls(f"{message}{where}\n  in: {node_header(node).strip()}")


class Use(NamedTuple):
    """One use of a value: ``user.inputs[offset] is value``."""

    user: "Node"
    offset: int


def _is_numeric(name: str) -> bool:
    # torch's isNumber: ASCII digits only ("²" or "٣" are names, not ids); like
    # torch's, true for "" (callers test for an empty name first).
    return not name or (name.isascii() and name.isdigit())


def _split_suffix(name: str) -> "tuple[str, int]":
    """``"x.3"`` -> ``("x", 3)``; a name without a numeric ``.N`` tail -> ``(name, 1)``.

    As torch's ``setDebugName``: the base may be empty (``".5"`` -> ``("", 5)``).
    """
    head, dot, tail = name.rpartition(".")
    if dot and tail and _is_numeric(tail):
        return head, int(tail)
    return name, 1


class Value:
    """An SSA value: output number ``offset`` of the node that defines it."""

    __slots__ = ("_node", "_offset", "_unique", "_type", "_uses", "_name")

    def __init__(self, node: "Node", offset: int, unique: int, type: T.Type) -> None:
        self._node = node
        self._offset = offset
        self._unique = unique
        self._type = type
        # The users, once per input holding this value: None, a Node, or a list
        # of two or more Nodes (see _users).
        self._uses: "None | Node | List[Node]" = None
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
        """Name this value, with torch's rules (``Value::setDebugName``).

        Args:
            name: the new name; ``None`` or ``""`` clears the name.  A purely
                numeric name is refused: it would read as another value's id.

        Returns:
            this value, for chaining.

        Names are unique within a graph.  If another value already holds ``name``,
        that value is renamed ``base.N``: ``x.3`` has base ``x`` and suffix 3, any
        other name has itself as base and suffix 1.  N starts from that suffix, or
        from one more than the graph's record for the base, whichever is larger,
        and skips names in use; the record then becomes N + 1 (torch stores the
        suffix after incrementing it, which is why torch's renamings go ``x.1``,
        ``x.3``, ``x.5``)::

            a.set_debug_name("x")   # a: x
            b.set_debug_name("x")   # a: x.1, b: x
            c.set_debug_name("x")   # b: x.3, c: x
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
            base, suffix = _split_suffix(name)
            suffix = max(suffix, graph._name_suffix.get(base, 0) + 1)
            while f"{base}.{suffix}" in names:
                suffix += 1
            graph._name_suffix[base] = suffix + 1
            other.set_debug_name(f"{base}.{suffix}")
        names[name] = self
        self._name = name
        return self

    # -- uses ----------------------------------------------------------------
    @property
    def uses(self) -> List[Use]:
        """The uses, in the order they were made (a node using the value at
        several inputs gives them in input order); a new list, safe to iterate
        while rewriting."""
        out: List[Use] = []
        after: Dict[Node, int] = {}  # per user, where to look for its next use
        for user in _users(self):
            offset = user._inputs.index(self, after.get(user, 0))
            after[user] = offset + 1
            out.append(Use(user, offset))
        return out

    def has_uses(self) -> bool:
        return self._uses is not None

    def replace_all_uses_with(self, other: "Value") -> None:
        """Make every user of this value use ``other`` instead (``replaceAllUsesWith``).

        ``other`` collects the uses in this value's use order; this value is left
        with none::

            %3 = f(%1, %2)            %3 = f(%1, %2)
            %4 = g(%3)        ->      %4 = g(%6)
            %5 = h(%3, %3)            %5 = h(%6, %6)     (%3.replace_all_uses_with(%6))

        The whole use list moves at once; the cost is the number of inputs of
        the users.  To replace many values used by one wide node, use
        :func:`replace_all_uses`, which reads each user's inputs once.
        """
        replace_all_uses([(self, other)])

    def __repr__(self) -> str:
        return f"%{self.debug_name} : {self._type}"


# A value's users (Value._uses) are kept as None when it has none, the user
# itself when it has one, and a list of two or more otherwise: most values have
# one use, and a list for it would cost 64 bytes.  Only these helpers and lint
# read the field.

def _users(v: Value) -> "List[Node]":
    """``v``'s users, once per input holding it, as a list (the value's own list
    when it has several: do not change it)."""
    u = v._uses
    if u is None:
        return []
    return u if type(u) is list else [u]  # type: ignore[list-item, return-value]


def _set_users(v: Value, users: "List[Node]") -> None:
    v._uses = None if not users else users[0] if len(users) == 1 else users


def replace_all_uses(replacements: "Sequence[tuple[Value, Value]]") -> None:
    """``old.replace_all_uses_with(new)`` for each ``(old, new)`` pair, with each
    user's inputs rewritten in one pass: replacing the n inputs of one node (as
    ``flatten_io`` does with a graph's inputs) costs n, not n * n.

    Each ``old`` must be distinct and no ``new`` may be one of the ``old``
    values (chains of replacements are not followed).
    """
    mapping: Dict[Value, Value] = {}
    for old, new in replacements:
        if new is old:
            continue
        if old in mapping:
            raise IRError(f"replace_all_uses: %{old.debug_name} is replaced twice")
        if old._uses is not None:
            _users(old)[0]._check_value(new)
        mapping[old] = new
    if any(new in mapping for new in mapping.values()):
        raise IRError("replace_all_uses: a replacement is itself replaced")
    users: Dict[Node, None] = {}
    for old, new in mapping.items():
        moved = _users(old)
        if not moved:
            continue
        old._uses = None
        users.update(dict.fromkeys(moved))
        _set_users(new, _users(new) + moved if new._uses is not None else moved)
    for user in users:
        user._inputs = tuple([mapping.get(v, v) for v in user._inputs])


def _add_use(v: Value, user: "Node") -> None:
    """Record a use of ``v`` by ``user``."""
    u = v._uses
    if u is None:
        v._uses = user
    elif type(u) is list:
        u.append(user)  # type: ignore[union-attr]
    else:
        v._uses = [u, user]  # type: ignore[list-item]


def _remove_use(v: Value, user: "Node") -> None:
    """Forget one use of ``v`` by ``user``, which must have been recorded."""
    u = v._uses
    if u is user:
        v._uses = None
    elif type(u) is list:
        u.remove(user)  # type: ignore[union-attr]
        if len(u) == 1:  # type: ignore[arg-type]
            v._uses = u[0]  # type: ignore[index]
    else:
        raise IRError(f"%{v.debug_name} has no recorded use by a {user._kind} node")


_NO_BLOCKS: tuple = ()  # shared by every node without blocks; add_block makes a list


class Node:
    """An operation: a kind, inputs, outputs, attributes and nested blocks.

    Create nodes with :meth:`Graph.create` and place them with
    :meth:`Graph.insert_node`, :meth:`insert_before` or :meth:`insert_after`.
    """

    # Graphs may hold millions of nodes, so a node spends no memory on what it
    # lacks: no dict until an attribute is set, a shared empty tuple until a
    # block is added.
    __slots__ = ("_kind", "_graph", "_inputs", "_outputs", "_blocks", "_block",
                 "_next", "_prev", "_attrs", "source_location", "scope")

    def __init__(self, graph: "Graph", kind: str) -> None:
        if not is_qualified(kind):
            raise IRError(f"node kind must be qualified as 'namespace::name', got {kind!r}")
        self._init(graph, kind)

    @classmethod
    def _trusted(cls, graph: "Graph", kind: str) -> "Node":
        """A new node whose kind is known to be qualified (copied from another
        node, or matched by the parser's kind pattern): no check."""
        n = cls.__new__(cls)
        n._init(graph, kind)
        return n

    def _init(self, graph: "Graph", kind: str) -> None:
        self._kind = kind
        self._graph = graph
        # Inputs and outputs: a tuple as long as they are as made (the parser's
        # and Graph.copy's nodes, most of any big graph: a tuple of one is 24
        # bytes smaller than a list of one, and an empty one is shared), a list
        # once they are changed (see _changing_inputs).
        self._inputs: "Sequence[Value]" = ()
        self._outputs: "Sequence[Value]" = ()
        self._blocks: "Sequence[Block]" = _NO_BLOCKS
        self._block: Optional[Block] = None  # owning block, once inserted
        self._next: Optional[Node] = None
        self._prev: Optional[Node] = None
        self._attrs: Optional[Dict[str, Any]] = None
        self.source_location: Optional[SourceLocation] = None
        #: The tracer's module scope (``scope: __module.fc1``), kept for printing.
        self.scope: Optional[str] = None

    @property
    def attrs(self) -> Dict[str, Any]:
        """Attributes in the order they were set (the order they print in); a
        plain dict, made on first access."""
        if self._attrs is None:
            self._attrs = {}
        return self._attrs

    @attrs.setter
    def attrs(self, value: Dict[str, Any]) -> None:
        if not isinstance(value, dict):
            raise TypeError(f"a node's attributes must be a dict, not {type(value).__name__}")
        self._attrs = value

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

    def input(self, i: Optional[int] = None) -> Value:
        """Input ``i``; without an argument, the only input (torch's ``input()``,
        which refuses a node with zero or several inputs)."""
        if i is None:
            if len(self._inputs) != 1:
                raise IRError(f"input() of a {self._kind} node, which has "
                              f"{len(self._inputs)} inputs: say which one")
            i = 0
        return self._inputs[i]

    def output(self, i: Optional[int] = None) -> Value:
        """Output ``i``; without an argument, the only output (torch's ``output()``,
        which refuses a node with zero or several outputs)."""
        if i is None:
            if len(self._outputs) != 1:
                raise IRError(f"output() of a {self._kind} node, which has "
                              f"{len(self._outputs)} outputs: say which one")
            i = 0
        return self._outputs[i]

    def has_uses(self) -> bool:
        """Whether any output of this node is used."""
        return any(v._uses is not None for v in self._outputs)

    def replace_all_uses_with(self, other: "Node") -> None:
        """Make every use of output ``i`` a use of ``other.outputs[i]``, for each i.

        Both nodes must have the same number of outputs; this node is then unused
        and can be destroyed.
        """
        if len(other._outputs) != len(self._outputs):
            raise IRError(f"replace_all_uses_with: {self._kind} has {len(self._outputs)} "
                          f"outputs but {other._kind} has {len(other._outputs)}")
        for mine, theirs in zip(self._outputs, other._outputs):
            mine.replace_all_uses_with(theirs)

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

    def _changing_inputs(self) -> List[Value]:
        """The inputs as a list to change in place (made one from a tuple)."""
        ins = self._inputs
        if type(ins) is not list:
            self._inputs = ins = list(ins)
        return ins  # type: ignore[return-value]

    def _changing_outputs(self) -> List[Value]:
        """The outputs as a list to change in place (made one from a tuple)."""
        outs = self._outputs
        if type(outs) is not list:
            self._outputs = outs = list(outs)
        return outs  # type: ignore[return-value]

    def _set_input(self, i: int, v: Value) -> None:
        old = self._inputs[i]
        _remove_use(old, self)
        self._changing_inputs()[i] = v
        _add_use(v, self)

    def _index(self, i: int, items: "Sequence[Any]", what: str) -> int:
        """``i`` as an index into ``items``, negative indices counting from the end;
        use lists record offsets >= 0, so they must never see a negative one."""
        try:
            return range(len(items))[i]
        except IndexError:
            raise IndexError(f"{what} {i} of a {self._kind} node with {len(items)}") from None

    def add_input(self, v: Value) -> Value:
        """Append an input (``addInput``)."""
        self._check_value(v)
        if self._inputs:
            self._changing_inputs().append(v)
        else:
            self._inputs = (v,)
        _add_use(v, self)
        return v

    def insert_input(self, i: int, v: Value) -> Value:
        """Insert an input at position ``i``, shifting the later ones (``insertInput``)."""
        self._check_value(v)
        if not 0 <= i <= len(self._inputs):
            raise IndexError(f"insert_input({i}) on a node with {len(self._inputs)} inputs")
        self._changing_inputs().insert(i, v)
        _add_use(v, self)
        return v

    def replace_input(self, i: int, v: Value) -> Value:
        """Make input ``i`` be ``v``; returns the old input (``replaceInput``).

        ``%3 = f(%1, %2)`` -> ``%3 = f(%1, %4)`` for ``replace_input(1, %4)``.
        """
        self._check_value(v)
        i = self._index(i, self._inputs, "input")
        old = self._inputs[i]
        self._set_input(i, v)
        return old

    def replace_input_with(self, old: Value, new: Value) -> None:
        """Replace every occurrence of ``old`` among the inputs (``replaceInputWith``).

        ``%3 = f(%1, %2, %1)`` -> ``%3 = f(%4, %2, %4)`` for ``replace_input_with(%1, %4)``.
        """
        self._check_value(new)
        for i, v in enumerate(self._inputs):
            if v is old:
                self._set_input(i, new)

    def remove_input(self, i: int) -> None:
        """Remove input ``i``, shifting the later ones (``removeInput``).

        ``%3 = f(%1, %2)`` -> ``%3 = f(%1)`` for ``remove_input(1)``.
        """
        i = self._index(i, self._inputs, "input")
        v = self._inputs[i]
        _remove_use(v, self)
        del self._changing_inputs()[i]

    def remove_all_inputs(self) -> None:
        """Remove every input (``removeAllInputs``): one pass over each distinct
        input's use list."""
        for v in dict.fromkeys(self._inputs):
            _set_users(v, [u for u in _users(v) if u is not self])
        self._inputs = ()

    # -- outputs -------------------------------------------------------------
    def add_output(self, type: T.Type = T.TENSOR) -> Value:
        """Append a new output value (``addOutput``)."""
        outs = self._outputs
        v = Value(self, len(outs), self._graph._new_unique(), type)
        if outs:
            self._changing_outputs().append(v)
        else:
            self._outputs = (v,)
        return v

    def insert_output(self, i: int, type: T.Type = T.TENSOR) -> Value:
        """Insert a new output at position ``i`` (``insertOutput``)."""
        if not 0 <= i <= len(self._outputs):
            raise IndexError(f"insert_output({i}) on a node with {len(self._outputs)} outputs")
        v = Value(self, i, self._graph._new_unique(), type)
        outs = self._changing_outputs()
        outs.insert(i, v)
        for j in range(i + 1, len(outs)):
            outs[j]._offset = j
        return v

    def _add_output_with_id(self, type: T.Type, unique: int) -> Value:
        """Append an output whose id is given rather than drawn from the counter.

        For the IR parser: ``%5`` in the text must come back as the value with id 5
        so that it prints as ``%5`` again.  The graph's counter moves past ``unique``;
        the caller makes sure no other value has that id.
        """
        v = Value(self, len(self._outputs), unique, type)
        if self._outputs:
            self._changing_outputs().append(v)
        else:
            self._outputs = (v,)
        if unique >= self._graph._next_unique:
            self._graph._next_unique = unique + 1
        return v

    def erase_output(self, i: int) -> None:
        """Remove output ``i``, which must have no uses (``eraseOutput``); the value
        gives up its debug name."""
        i = self._index(i, self._outputs, "output")
        v = self._outputs[i]
        if v._uses is not None:
            raise IRError(f"cannot erase output %{v.debug_name} of {self._kind}: it still has "
                          f"{len(_users(v))} use(s)")
        v.set_debug_name(None)
        outs = self._changing_outputs()
        del outs[i]
        for j in range(i, len(outs)):
            outs[j]._offset = j

    # -- blocks --------------------------------------------------------------
    def add_block(self) -> "Block":
        """Append a new empty block (``addBlock``): an If has two, a Loop one."""
        b = Block(self._graph, self)
        if self._blocks:
            self._blocks.append(b)  # type: ignore[attr-defined]
        else:
            self._blocks = [b]
        return b

    def erase_block(self, i: int) -> None:
        """Remove block ``i`` and everything in it (``eraseBlock``).

        Refused (nothing changes) if a value defined in the block is used outside it.
        """
        i = self._index(i, self._blocks, "block")
        b = self._blocks[i]
        nodes, blocks = _contents([b])
        _check_unused(nodes, blocks, f"block{i} of {self._kind}")
        _free(nodes, blocks)
        del self._blocks[i]  # type: ignore[attr-defined]
        b._owning_node = None

    # -- placement -----------------------------------------------------------
    def _is_sentinel(self) -> bool:
        """Whether this is a block's own param or return node."""
        b = self._block
        return b is not None and (self is b._param or self is b._return)

    def _link_after(self, anchor: "Node") -> None:
        """Splice this node into ``anchor``'s block right after it, after checking
        that the result is still a tree of blocks in one graph."""
        if self._next is not None:
            raise IRError(f"{self._kind} node is already in a block")
        if anchor._next is None:
            raise IRError(f"cannot insert next to a {anchor._kind} node that is not in a block")
        if anchor._graph is not self._graph:
            raise IRError(f"cannot insert a {self._kind} node into a block of another graph")
        # A node placed inside one of its own blocks would hang off itself.  Only
        # a node with blocks can: the others skip the walk up the nesting, which
        # would make building a deep graph quadratic.
        owner = anchor._block._owning_node if self._blocks else None
        while owner is not None:
            if owner is self:
                raise IRError(f"cannot insert a {self._kind} node into its own block")
            owner = owner._block._owning_node if owner._block is not None else None
        self._block = anchor._block
        self._prev = anchor
        self._next = anchor._next
        anchor._next._prev = self
        anchor._next = self

    def insert_after(self, n: "Node") -> "Node":
        """Place this (not yet inserted) node right after ``n`` (``insertAfter``).

        After a block's param node means first in the block; after its return
        node is refused.  Returns this node::

            %3 = f(%1, %2)            %3 = f(%1, %2)
            %4 = g(%3)        ->      %4 = g(%3)
                                      %5 = h(%1)        (%5.insert_after(%4))
        """
        if n._is_sentinel() and n is n._block._return:
            raise IRError("cannot insert a node after a block's return node")
        self._link_after(n._block._return if n._is_sentinel() else n)
        return self

    def insert_before(self, n: "Node") -> "Node":
        """Place this (not yet inserted) node right before ``n`` (``insertBefore``).

        Before a block's return node means last in the block; before its param
        node is refused.  Returns this node::

            %3 = f(%1, %2)            %3 = f(%1, %2)
            %4 = g(%3)        ->      %5 = h(%1)        (%5.insert_before(%4))
                                      %4 = g(%3)
        """
        if n._is_sentinel() and n is n._block._param:
            raise IRError("cannot insert a node before a block's param node")
        if n._prev is None:
            raise IRError(f"cannot insert next to a {n._kind} node that is not in a block")
        self._link_after(n._prev)
        return self

    def _unlink(self) -> None:
        self._prev._next = self._next
        self._next._prev = self._prev
        self._next = self._prev = None
        self._block = None

    def _move(self, anchor: "Node", place) -> None:
        if self._next is None or self._is_sentinel():
            raise IRError(f"only a node in a block can be moved, not this {self._kind} node")
        if anchor is self:
            raise IRError("cannot move a node next to itself")
        prev = self._prev
        self._unlink()
        try:
            place(anchor)
        except IRError:
            self._link_after(prev)  # leave the graph as it was
            raise

    def move_before(self, n: "Node") -> None:
        """Move this node (already in a block) to right before ``n`` (``moveBefore``).

        Like torch, this does not check that values are still defined before
        their uses: :meth:`Graph.lint` does.
        """
        self._move(n, self.insert_before)

    def move_after(self, n: "Node") -> None:
        """Move this node (already in a block) to right after ``n`` (``moveAfter``)."""
        self._move(n, self.insert_after)

    def destroy(self) -> None:
        """Remove this node, with its blocks and all they hold, from the graph
        (``destroy``).

        Refused while any output is still used (replace or erase the uses first);
        nothing changes then.  The node's inputs are released (their use lists
        drop it), its values give up their debug names, and the node is left
        detached with no inputs, outputs or blocks::

            %2 = f(%1)
            %3 = g(%1)      ->    %3 = g(%1)         (%2's node .destroy())

        A node may be destroyed while iterating over its block: the iteration
        carries on with the node after the one that preceded it.
        """
        if self._is_sentinel():
            raise IRError(f"a block's {self._kind} node cannot be destroyed")
        nodes, blocks = _contents(self._blocks)
        nodes.append(self)
        _check_unused(nodes, blocks, f"{self._kind} node")
        if self._next is not None:
            self._unlink()
        _free(nodes, blocks)

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


def _contents(blocks: Sequence["Block"]) -> "tuple[List[Node], List[Block]]":
    """Every node and block nested in ``blocks`` (the blocks included), found with
    a work list rather than recursion."""
    nodes: List[Node] = []
    found: List[Block] = []
    work = list(blocks)
    while work:
        b = work.pop()
        found.append(b)
        for n in b.nodes():
            nodes.append(n)
            work.extend(n._blocks)
    return nodes, found


def _check_unused(nodes: List["Node"], blocks: List["Block"], what: str) -> None:
    """Refuse to free ``nodes``/``blocks`` while something outside them uses one of
    the values they define."""
    dying = {id(n) for n in nodes}
    dying.update(id(b._return) for b in blocks)
    for owner in [*nodes, *(b._param for b in blocks)]:
        for v in owner._outputs:
            for user in _users(v):
                if id(user) not in dying:
                    from .printer import node_header
                    raise IRError(f"cannot destroy {what}: %{v.debug_name} is still used by "
                                  f"{node_header(user)}")


def _free(nodes: List["Node"], blocks: List["Block"]) -> None:
    """Release everything ``nodes`` and ``blocks`` hold (they are already out of
    their lists, or inside a block that is): uses, debug names, links."""
    returns = [b._return for b in blocks]
    users = nodes + returns
    # Each value they use loses all its dying users in one pass over its list:
    # freeing the n users of one value costs n, not n * n.
    dying = set(users)
    for v in dict.fromkeys(v for n in users for v in n._inputs):
        _set_users(v, [u for u in _users(v) if u not in dying])
    for n in users:
        n._inputs = ()
    for n in nodes + [b._param for b in blocks]:
        for v in n._outputs:
            v.set_debug_name(None)
        n._outputs = ()
    for n in nodes + returns:
        n._next = n._prev = None
        n._block = None
        n._blocks = _NO_BLOCKS


class _NodeList:
    """The nodes of a block: iterate forwards, or backwards with ``reversed()``.

    Iteration reads the next node only when it is needed, as torch's iterators do,
    so the loop body may rewrite the block:

    * nodes inserted after the current one (before it, when going backwards) are
      visited, nodes inserted behind it are not;
    * the current node may be destroyed: iteration carries on from the node that
      preceded it (torch's ``destroyCurrent``);
    * a node moved elsewhere carries the iteration with it.

    ``len()`` counts by walking the list (O(n)); ``bool()`` is O(1).
    """

    __slots__ = ("_sentinel",)

    def __init__(self, sentinel: Node) -> None:
        self._sentinel = sentinel

    def _walk(self, forward: bool) -> Iterator[Node]:
        end = self._sentinel
        n = end._next if forward else end._prev
        while n is not end:
            behind = n._prev if forward else n._next
            yield n
            if n._next is None:  # removed by the loop body
                if behind._next is None:
                    raise IRError(f"{n._kind} node and the node before it were both removed "
                                  "while iterating over their block")
                n = behind
            n = n._next if forward else n._prev

    def __iter__(self) -> Iterator[Node]:
        return self._walk(True)

    def __reversed__(self) -> Iterator[Node]:
        return self._walk(False)

    def reverse(self) -> Iterator[Node]:
        """The seed's ``nodes().reverse()``: the same as ``reversed(nodes)``."""
        return self._walk(False)

    def __len__(self) -> int:
        return sum(1 for _ in self)

    def __bool__(self) -> bool:
        return self._sentinel._next is not self._sentinel

    def front(self) -> Node:
        """The first node (the block's return node when the block is empty)."""
        return self._sentinel._next

    def back(self) -> Node:
        """The last node (the block's return node when the block is empty)."""
        return self._sentinel._prev

    def __repr__(self) -> str:
        return f"<nodes of a block: {len(self)}>"


class Block:
    """A list of nodes with inputs and outputs: a graph body, or one branch of an If or
    the body of a Loop.

    The block's inputs are the outputs of its param node, its outputs the inputs of
    its return node, so block outputs are ordinary uses::

        block0(%i : int, %acc : int):      <- param node's outputs
          %acc.2 : int = aten::add(%acc, %i)
          -> (%c, %acc.2)                  <- return node's inputs: %acc.2 has a
                                              Use(return_node, 1)
    """

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
        """Append a new input value, named ``name`` if given (``addInput``)."""
        return self.insert_input(len(self._param._outputs), name, type)

    def insert_input(self, i: int, name: Optional[str] = None, type: T.Type = T.TENSOR) -> Value:
        """Insert a new input value at position ``i`` (``insertInput``)."""
        v = self._param.insert_output(i, type)
        if name:
            v.set_debug_name(name)
        return v

    def erase_input(self, i: int) -> None:
        """Remove input ``i``, which must be unused (``eraseInput``)."""
        self._param.erase_output(i)

    def register_output(self, v: Value) -> int:
        """Append ``v`` to the block's outputs; returns its index (``registerOutput``)."""
        self._return.add_input(v)
        return len(self._return._inputs) - 1

    add_output = register_output

    def insert_output(self, i: int, v: Value) -> int:
        """Make ``v`` output ``i``, shifting the later ones; returns ``i``
        (``insertOutput``)."""
        self._return.insert_input(i, v)
        return i

    def erase_output(self, i: int) -> None:
        """Remove output ``i`` (``eraseOutput``): only that use of the value goes,
        even if the same value is also another output."""
        self._return.remove_input(i)

    # -- nodes -------------------------------------------------------------------
    def append_node(self, n: Node) -> Node:
        """Place ``n`` at the end of the block (``appendNode``)."""
        return n.insert_before(self._return)

    def prepend_node(self, n: Node) -> Node:
        """Place ``n`` at the start of the block (``prependNode``)."""
        n._link_after(self._return)
        return n

    def _append_trusted(self, n: Node) -> None:
        """``append_node`` without its checks, for a node just made for this
        block's graph, not inserted anywhere, with no blocks of its own (the
        parser's and copy's: millions of them)."""
        ret = self._return
        last = ret._prev
        n._block, n._prev, n._next = self, last, ret
        last._next = ret._prev = n


# A node's blocks as all_nodes walks them (the list itself: no copy per node).
_blocks_of = operator.attrgetter("_blocks")


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
    @property
    def next_unique(self) -> int:
        """The id the next new value gets: every value's :attr:`Value.unique` is
        below it (the seed's ``next_unique_``), so tables indexed by id can be
        sized with it."""
        return self._next_unique

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
        """The nodes of the top block (not those of nested blocks)."""
        return self._block.nodes()

    def all_nodes(self) -> Iterator[Node]:
        """Every node of the graph, nested ones included, depth first in program
        order: a node, then the nodes of its blocks, then the next node.

        Like :meth:`Block.nodes` it may be used while nodes are inserted, and
        nesting depth is not limited by Python's recursion limit
        (:func:`~pyjit.ir.traversal.nodes_depth_first`).
        """
        return nodes_depth_first(self._block, Block.nodes, _blocks_of)

    # The graph's inputs and outputs are its top block's (see Block for each).
    def add_input(self, name: Optional[str] = None, type: T.Type = T.TENSOR) -> Value:
        """Append a graph input (``addInput``)."""
        return self._block.add_input(name, type)

    def insert_input(self, i: int, name: Optional[str] = None, type: T.Type = T.TENSOR) -> Value:
        """Insert a graph input at position ``i`` (``insertInput``)."""
        return self._block.insert_input(i, name, type)

    def erase_input(self, i: int) -> None:
        """Remove graph input ``i``, which must be unused (``eraseInput``)."""
        self._block.erase_input(i)

    def register_output(self, v: Value) -> int:
        """Append ``v`` to the graph's outputs; returns its index (``registerOutput``)."""
        return self._block.register_output(v)

    def insert_output(self, i: int, v: Value) -> int:
        """Make ``v`` graph output ``i``; returns ``i``."""
        return self._block.insert_output(i, v)

    def erase_output(self, i: int) -> None:
        """Remove graph output ``i`` (``eraseOutput``)."""
        self._block.erase_output(i)

    # -- creating and placing nodes ----------------------------------------------
    def create(self, kind: str, inputs: "Sequence[Value] | int" = (),
               num_outputs: int = 1) -> Node:
        """A new node, not yet in any block (``create``).

        Args:
            kind: a qualified kind, e.g. ``"aten::add"`` or ``prim.Drop``.
            inputs: its inputs, all values of this graph.  An int here is the
                number of outputs, as in torch's ``create(kind, num_outputs)``:
                ``g.create(prim.Load, 0)``.
            num_outputs: how many outputs, each typed ``Tensor`` until told
                otherwise (set their types afterwards, as the seed does).

        Returns:
            the node; place it with :meth:`insert_node` or ``Node.insert_*``.
        """
        if isinstance(inputs, int):
            inputs, num_outputs = (), inputs
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
        """Insert before a node, or at the end of a block (``setInsertPoint``)."""
        if isinstance(where, Block):
            where = where._return
        if where._graph is not self:
            raise IRError("insertion point belongs to another graph")
        if where._next is None:
            raise IRError(f"insertion point {where._kind} is not in a block")
        if where._is_sentinel() and where is where._block._param:
            raise IRError("cannot insert before a block's param node")
        self._insert_point = where

    @contextlib.contextmanager
    def inserting_before(self, where: "Node | Block") -> Iterator[None]:
        """``with g.inserting_before(n):`` new nodes go before ``n`` (or at the end of a
        block) for the duration, then the previous insertion point returns, even
        on an exception (the seed's ``WithInsertPoint``).  Nests::

            with g.inserting_before(loop):        # constants before the loop
                zero = g.insert_constant(0)
                with g.inserting_before(body):    # at the end of the body
                    one = g.insert_constant(1)
                two = g.insert_constant(2)        # before the loop again
        """
        saved = self._insert_point
        self.set_insert_point(where)
        try:
            yield
        finally:
            self._insert_point = saved

    def inserting_at_end(self, block: Block):
        """``with g.inserting_at_end(block):`` the same as ``inserting_before(block)``."""
        return self.inserting_before(block)

    def insert_node(self, n: Node) -> Node:
        """Place ``n`` at the insertion point (``insertNode``); returns ``n``."""
        if self._insert_point._next is None:
            raise IRError(f"the insertion point ({self._insert_point._kind} node) is no "
                          "longer in a block")
        return n.insert_before(self._insert_point)

    def append_node(self, n: Node) -> Node:
        """Place ``n`` at the end of the top block (``appendNode``)."""
        return self._block.append_node(n)

    def prepend_node(self, n: Node) -> Node:
        """Place ``n`` at the start of the top block (``prependNode``)."""
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
        """A deep copy (``copy``), which prints exactly as this graph does.

        Every value keeps its unique id, debug name and type; every node its kind,
        attributes, source location and scope; nested blocks are copied, and so are
        graph-valued attributes (fork subgraphs) and the containers holding them.
        Other attribute values (numbers, strings, tensors) are shared, being
        treated as immutable.  Unlike torch, which renumbers the copy, ids are kept:
        the code generator allocates registers by id, and a copy that prints the
        same is easier to compare.  The copy's insertion point is the end of its
        top block.
        """
        new = Graph()
        names = new._names
        # Old value -> new value, through two lists indexed by value id (ids are
        # dense): a fraction of a dict's memory on a graph of millions of values.
        size = self._next_unique
        old_at: List[Optional[Value]] = [None] * size
        new_at: List[Optional[Value]] = [None] * size

        def clone_outputs(src: Node, node: Node) -> None:
            olds = src._outputs  # as for inputs below, an exact-size list
            outs = ((Value(node, 0, olds[0]._unique, olds[0]._type),) if len(olds) == 1
                    else tuple([Value(node, i, old._unique, old._type)
                                for i, old in enumerate(olds)]))
            node._outputs = outs
            for old, v in zip(src._outputs, outs):
                u = old._unique
                if old._name is not None:
                    v._name = old._name
                    names[old._name] = v
                if not 0 <= u < size or old_at[u] is not None:
                    raise IRError(f"copy: value id {u} of %{old.debug_name} is not unique "
                                  "and below the graph's next id (run lint)")
                old_at[u] = old
                new_at[u] = v

        def mapped(v: Value, user: Optional[Node]) -> Value:
            u = v._unique
            if 0 <= u < size and old_at[u] is v:
                return new_at[u]  # type: ignore[return-value]
            if user is None:
                raise IRError(f"copy: block output %{v.debug_name} is not in scope (run lint)")
            raise IRError(f"copy: %{v.debug_name}, an input of {user!r}, is not in scope "
                          "there (run lint)")

        # Blocks are copied with an explicit work list so deep nesting cannot hit
        # the recursion limit.  Nodes are built and linked directly: they are
        # copies of nodes that passed those checks already.
        work = [(self._block, new._block)]
        new_node, init_node = Node.__new__, Node._init
        while work:
            src, dst = work.pop()
            clone_outputs(src._param, dst._param)
            ret = dst._return
            end = src._return
            n = end._next
            while n is not end:
                # The commonest node (one input, one output) has the calls of
                # Node._trusted, _add_use, clone_outputs and _append_trusted
                # written out: a graph of a million nodes is mostly these.
                m = new_node(Node)
                init_node(m, new, n._kind)
                ins = n._inputs  # lists of exact size: most nodes have one input
                if len(ins) == 1:  # mapped(), inlined for the commonest node
                    w = ins[0]
                    u = w._unique
                    w = new_at[u] if 0 <= u < size and old_at[u] is w else mapped(w, n)
                    m._inputs = (w,)
                    users = w._uses
                    if users is None:
                        w._uses = m
                    elif type(users) is list:
                        users.append(m)
                    else:
                        w._uses = [users, m]
                else:
                    m._inputs = ins = tuple([mapped(v, n) for v in ins])
                    for w in ins:
                        _add_use(w, m)
                olds = n._outputs
                if len(olds) == 1:
                    old = olds[0]
                    u = old._unique
                    if not 0 <= u < size or old_at[u] is not None:
                        clone_outputs(n, m)  # which says what is wrong
                    v = Value(m, 0, u, old._type)
                    m._outputs = (v,)
                    if old._name is not None:
                        v._name = old._name
                        names[old._name] = v
                    old_at[u] = old
                    new_at[u] = v
                else:
                    clone_outputs(n, m)
                if n._attrs:
                    m._attrs = {k: copy_attribute(a) for k, a in n._attrs.items()}
                m.source_location = n.source_location
                m.scope = n.scope
                last = ret._prev
                m._block, m._prev, m._next = dst, last, ret
                last._next = ret._prev = m
                for b in n._blocks:
                    work.append((b, m.add_block()))
                n = n._next
            # A block's outputs are in scope at its end, so they are all copied by
            # now (nested blocks, copied later, cannot define them).
            for v in src._return._inputs:
                ret.add_input(mapped(v, None))
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

    def to_dot(self, *, name: str = "graph", show_source: bool = True) -> str:
        """The graph as a picture, in Graphviz's DOT language: nodes, value edges, and
        nested blocks (If branches, Loop bodies, fork subgraphs) as clusters.  See
        :func:`pyjit.ir.dot.graph_to_dot`; ``pyjit dot FILE.ir -o out.svg`` renders it."""
        from .dot import graph_to_dot
        return graph_to_dot(self, name=name, show_source=show_source)

    def _repr_svg_(self) -> Optional[str]:
        """The picture, for Jupyter; None (Jupyter then shows the text) when Graphviz's
        ``dot`` program is not installed."""
        from ..graphviz import dot_program, render
        if dot_program() is None:
            return None
        return render(self.to_dot(), "svg").decode("utf-8")

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:
        # IPython's text form: the graph's text rather than the one-line repr.
        printer.text(str(self))

    def __str__(self) -> str:
        from .printer import print_graph
        return print_graph(self)

    def __repr__(self) -> str:
        return f"<pyjit Graph with {len(self.inputs)} inputs, {len(self.outputs)} outputs>"


def copy_attribute(a: Any) -> Any:
    """An attribute value for a copied node: graphs are copied, containers rebuilt
    (so that mutating the copy's list never shows in the original), the rest
    shared."""
    if isinstance(a, Graph):
        return a.copy()
    if isinstance(a, list):
        return [copy_attribute(x) for x in a]
    if isinstance(a, tuple):
        return tuple(copy_attribute(x) for x in a)
    if isinstance(a, dict):
        return {k: copy_attribute(x) for k, x in a.items()}
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
    if isinstance(value, tuple):
        return T.TupleType(constant_type(v) for v in value)
    if isinstance(value, list):
        return T.ListType(_one_type(value, "list"))
    if isinstance(value, dict):
        return T.DictType(_one_type(value.keys(), "dict key"),
                          _one_type(value.values(), "dict value"))
    if hasattr(value, "dtype") and hasattr(value, "shape"):
        return T.TENSOR
    raise IRError(f"no constant type for {type(value).__name__} value {value!r}")


def _one_type(values, what: str) -> T.Type:
    types = {constant_type(v) for v in values}
    if len(types) == 1:
        return types.pop()
    if not types:
        raise IRError(f"the type of an empty {what.split()[0]} constant must be given")
    raise IRError(f"{what}s of a constant mix types: {sorted(map(str, types))}")
