"""The node-making layer under the emitter: typed nodes at the insertion point, each
stamped with the source location of the Python code it came from."""

from __future__ import annotations

import ast
import contextlib
from typing import Any, Callable, Iterator, List, Optional, Sequence

from ..ir import Block, Graph, Node, Value
from ..ir import types as T
from ..ir.graph import constant_type
from .source_map import FunctionSource
from ..ir.type_relation import unify

__all__ = ["GraphBuilder", "INT_MAX"]

#: The trip count of a ``while`` loop: torch's "no limit".
INT_MAX = 2**63 - 1


class GraphBuilder:
    """A graph being filled, and the source it is filled from.

    Everything the emitter inserts goes through :meth:`emit`, so every node gets
    typed outputs and a :class:`~pyjit.ir.SourceLocation`.
    """

    def __init__(self, src: FunctionSource, graph: Optional[Graph] = None) -> None:
        self.src = src
        self.graph = graph if graph is not None else Graph()

    # -- nodes ------------------------------------------------------------------------
    def emit(self, kind: str, inputs: Sequence[Value], out_types: Sequence[T.Type],
             at: ast.AST) -> Node:
        """Insert a ``kind`` node with ``inputs`` and outputs of ``out_types``."""
        n = self.graph.create(kind, inputs, num_outputs=len(out_types))
        for v, t in zip(n.outputs, out_types):
            v.set_type(t)
        n.source_location = self.src.location(at)
        self.graph.insert_node(n)
        return n

    def emit1(self, kind: str, inputs: Sequence[Value], out_type: T.Type, at: ast.AST) -> Value:
        """:meth:`emit` for the usual one-output node; returns the output."""
        return self.emit(kind, inputs, [out_type], at).output()

    def const(self, value: Any, at: ast.AST, type: Optional[T.Type] = None) -> Value:
        """A ``prim::Constant`` of ``value``."""
        return self.graph.insert_constant(value, type or constant_type(value),
                                          loc=self.src.location(at))

    def uninitialized(self, t: T.Type, at: ast.AST) -> Value:
        """A ``prim::Uninitialized`` of type ``t``: the value a variable holds on a
        path where it is never read (the branch that returned or raised)."""
        return self.emit1("prim::Uninitialized", [], t, at)

    @contextlib.contextmanager
    def at_end_of(self, block: Block) -> Iterator[None]:
        """Insert at the end of ``block`` for the duration."""
        with self.graph.inserting_before(block):
            yield

    # -- structured control flow for expressions ----------------------------------------
    def value_if(self, cond: Value, then_fn: Callable[[], Value], else_fn: Callable[[], Value],
                 at: ast.AST, what: str = "the two branches") -> Value:
        """``prim::If`` computing one value: each callback fills its branch and
        returns the branch's value.  The two types must unify."""
        node = self.emit("prim::If", [cond], [], at)
        b_then, b_else = node.add_block(), node.add_block()
        with self.at_end_of(b_then):
            v_then = then_fn()
        with self.at_end_of(b_else):
            v_else = else_fn()
        t = unify(v_then.type, v_else.type)
        if t is None:
            self.src.fail(at, f"{what} have different types: {v_then.type} and {v_else.type}")
        b_then.register_output(v_then)
        b_else.register_output(v_else)
        return node.add_output(t)

    def any_of(self, flags: List[Value], at: ast.AST) -> Value:
        """The logical or of boolean values (``aten::__or__``)."""
        acc = flags[0]
        for f in flags[1:]:
            acc = self.emit1("aten::__or__", [acc, f], T.BOOL, at)
        return acc
