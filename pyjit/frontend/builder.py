"""The node-making layer under the emitters: typed nodes at the insertion point, each
stamped with the source location of the Python code it came from.

Every emitter holds the one :class:`GraphBuilder` of the function being compiled
and inserts through it; the builder knows nothing about Python's statements or
expressions, only nodes, constants and the value-producing ``prim::If``.
"""

from __future__ import annotations

import ast
import contextlib
from typing import Any, Callable, Iterator, List, NoReturn, Optional, Protocol, Sequence

from ..ir import Block, Graph, Node, Value
from ..ir import types as T
from ..ir.graph import constant_type
from ..ir.type_relation import unify
from ..ir.source import SourceLocation
from .typing_rules import type_of_constant

__all__ = ["GraphBuilder", "INT_MAX", "Source"]

#: The trip count of a ``while`` loop: torch's "no limit".
INT_MAX = 2**63 - 1


class Source(Protocol):
    """The source a graph is built from, as the builder and the emitters use it:
    a Python function's (:class:`~.source_map.FunctionSource`) or a file of an
    archive's serialized code (:class:`pyjit.archive.source.CodeFile`)."""

    def location(self, node: ast.AST) -> SourceLocation:
        """Where ``node`` is, for the nodes made from it."""

    def fail(self, node: ast.AST, message: str) -> NoReturn:
        """Raise the dialect's compile error at ``node``."""

    def line_of(self, node: ast.AST) -> int:
        """The line of ``node`` (for messages naming two places)."""

    def col_of(self, node: ast.AST) -> int:
        """The column of ``node``."""


class GraphBuilder:
    """A graph being filled, and the source it is filled from.

    Everything the emitter inserts goes through :meth:`emit`, so every node gets
    typed outputs and a :class:`~pyjit.ir.SourceLocation`.
    """

    def __init__(self, src: Source, graph: Optional[Graph] = None) -> None:
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

    def function_constant(self, name: str) -> Value:
        """The ``Function`` constant a ``prim::CallFunction`` calls: the callee by
        name, as torch prints it (``prim::Constant[name="helper"]()``, no
        location)."""
        n = self.graph.create("prim::Constant")
        n.attrs["name"] = name
        n.output().set_type(T.FUNCTION)
        self.graph.insert_node(n)
        return n.output()

    def tuple_value(self, values: List[Value], at: ast.AST) -> Value:
        """A ``prim::TupleConstruct`` of ``values``."""
        return self.emit1("prim::TupleConstruct", values, T.TupleType(v.type for v in values), at)

    def python_constant(self, obj: Any, at: ast.AST) -> Optional[Value]:
        """A Python object as graph constants: a scalar (or None) as a
        ``prim::Constant``, a tuple of them as a ``prim::TupleConstruct``; None for
        anything else (the caller says why it is not usable)."""
        if type_of_constant(obj) is not None:
            return self.const(obj, at)
        if isinstance(obj, tuple):
            elems = [self.python_constant(o, at) for o in obj]
            if all(e is not None for e in elems):
                return self.tuple_value(elems, at)
        return None

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
