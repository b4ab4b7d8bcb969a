"""The interfaces the emitters call each other through.

Each part of the language has one emitter object (see the package docstring for
who holds what).  An emitter reaches another only through the
:class:`~.context.Compilation` they share and only through the methods listed
here, so that each can be read, tested and replaced on its own: a new
construct adds a method to the emitter that owns it, and the others see it only
if it is added here.

Every method emits at the builder's insertion point, locates its nodes at the
``ast`` node it was given (``at``), and raises :class:`~pyjit.CompileError` at
that node for code outside the supported subset.
"""

from __future__ import annotations

import ast
from typing import Any, Callable, List, NamedTuple, Optional, Protocol, Sequence

from ..ir import Value
from ..ir import types as T
from .environment import Condition, Element, Env, Flow

__all__ = ["Expressions", "Statements", "Loops", "Calls", "Attributes", "Items", "Tensors",
           "Callee", "BUILTIN", "MATH", "NUMPY", "METHOD", "FUNCTION", "LOCAL", "OTHER"]


class Expressions(Protocol):
    """Expressions (:mod:`.expressions`): one Python expression, one SSA value."""

    def emit(self, node: ast.expr, env: Env, expected: Optional[T.Type] = None) -> Value:
        """The value of ``node``.  ``expected`` is the type the context wants (an
        annotation, the return type): it gives empty literals their type."""

    def condition(self, node: ast.expr, env: Env, strict: bool = False) -> Condition:
        """``node`` as a bool (Python's truthiness), with the refinements that hold
        when it is true and when it is false.  ``strict`` refuses ``and``/``or``
        on operands that are not bools (where Python returns an operand)."""

    def lookup(self, name: str, node: ast.AST, env: Env) -> Value:
        """The value ``name`` holds at ``node``: a local, else a global constant."""


class Statements(Protocol):
    """Statements and blocks (:mod:`.statements`)."""

    def block(self, stmts: Sequence[ast.stmt], env: Env) -> Flow:
        """Emit ``stmts``, updating ``env``; returns how the block can end."""

    def assign(self, target: ast.expr, value: Element, env: Env, at: ast.AST) -> None:
        """Bind an assignment target (a name, a tuple of targets, an item) to
        ``value``, with the typing rules of torch."""


class Loops(Protocol):
    """Loops and comprehensions (:mod:`.loops`)."""

    def while_loop(self, stmt: ast.While, env: Env) -> Flow:
        """A ``while`` statement: a ``prim::Loop`` without a trip count."""

    def for_loop(self, stmt: ast.For, env: Env) -> Flow:
        """A ``for`` statement: a trip-counted ``prim::Loop``, or the body unrolled
        once per element of a tuple."""

    def comprehension(self, generators: List[ast.comprehension], env: Env,
                      body: Callable[[Env], None], node: ast.AST) -> None:
        """The loops of a comprehension, the innermost calling ``body(env)``."""

    def innermost(self) -> Optional[str]:
        """The kind of the innermost loop being emitted (``"loop"``,
        ``"unrolled"``, ``"comprehension"``), None outside loops."""


class Callee(NamedTuple):
    """What the function part of a call denotes, found without emitting anything.

    Attributes:
        kind: one of the constants below.
        name: the callable as the user spelled it, for messages.
        obj: the Python object called (BUILTIN, FUNCTION, OTHER).
        receiver: the object expression of a METHOD, evaluated when the call is
            emitted.
    """

    kind: str
    name: str
    obj: Any = None
    receiver: Optional[ast.expr] = None


BUILTIN = "builtin"      # a builtin pyjit emits (len, min, int...), known by identity
MATH = "math"            # math.<name>
NUMPY = "numpy"          # np.<name>
METHOD = "method"        # <value>.<name>, the method found by the value's type
FUNCTION = "function"    # a ScriptFunction, or a plain Python function to script
LOCAL = "local"          # a local variable, which scripted code cannot call
OTHER = "other"          # any other Python object (range outside a for, a class...)


class Calls(Protocol):
    """Calls (:mod:`.calls`): the one place a call target is resolved."""

    def resolve(self, func: ast.expr, env: Env) -> Callee:
        """What the function part of a call denotes."""

    def call(self, node: ast.Call, env: Env, expected: Optional[T.Type] = None) -> Value:
        """The value of the call ``node`` (None for a call without one);
        ``expected`` as for :meth:`Expressions.emit` (it types ``t.tolist()``)."""


class Attributes(Protocol):
    """Attribute access (:mod:`.attributes`): the one place ``x.name`` is read or
    written."""

    def load(self, node: ast.Attribute, env: Env) -> Value:
        """The value of ``node`` (a module constant, an array attribute, an
        object's attribute)."""

    def store(self, node: ast.Attribute, value: Value, env: Env,
              declared: Optional[T.Type] = None) -> None:
        """``node = value`` (``node: declared = value``)."""

    def declare(self, node: ast.Attribute, declared: Optional[T.Type]) -> bool:
        """In ``__init__``, ``self.x = ...`` where ``x``'s type is given
        (``declared``, or a class annotation): declare it, emit nothing (Python
        runs ``__init__``) and return True; False for anything else."""

    def get(self, cls: Any, obj: Value, node: ast.Attribute) -> Value:
        """Attribute ``node.attr`` of ``obj``, an object of the scripted class
        ``cls``, already evaluated."""


class Items(Protocol):
    """Indexing (:mod:`.subscripts`): the one place ``x[i]`` is read or written."""

    def load(self, node: ast.Subscript, env: Env) -> Value:
        """The value of ``node`` (an index or a slice of any indexable type)."""

    def get(self, base: Value, index: Value, at: ast.AST) -> Value:
        """``base[index]`` for an already evaluated index."""

    def set(self, container: Value, index: Value, value: Value, at: ast.AST) -> None:
        """``container[index] = value``."""


class Tensors(Protocol):
    """numpy on Tensors (:mod:`.tensors`), driven by the table of :mod:`.numpy_api`."""

    def call_function(self, name: str, node: ast.Call, env: Env) -> Value:
        """``np.<name>(...)``."""

    def call_method(self, array: Value, name: str, node: ast.Call, env: Env) -> Value:
        """``array.<name>(...)``."""

    def attribute(self, array: Value, node: ast.Attribute) -> Value:
        """``array.<attr>`` (``shape``, ``T``...)."""
