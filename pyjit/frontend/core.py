"""The emitter core: what both compilers of Python syntax share, and what each
dialect must supply.

pyjit compiles two kinds of Python syntax into the same graphs: a live Python
function (``@pyjit.script``, the *Python dialect*: :mod:`.compiler`, with its
closure, globals and annotations) and the serialized TorchScript inside a torch
archive (``pyjit.load``, the *archive dialect*: :mod:`pyjit.archive.compiler`,
with the archive's class table and torch's schemas).  The syntax they share
is emitted once, by the core modules:

=============  ===================================================================
core           what it does
=============  ===================================================================
builder        typed, located nodes (:class:`~.builder.GraphBuilder`)
environment    variables (Var, Env) and control-flow facts (Flow)
lowering       If/Loop construction: merging Envs, loop-carried values
statements     statements and blocks; if; assignments; exits
loops          for/while loops, iteration, comprehensions
expressions    expressions: operators, conditions and their refinements, displays,
               conditional expressions; calls, attributes and subscripts handed
               to the dialect's ``calls``, ``attrs``, ``items``
operators      Python operators on computed values, truthiness, int->float
intrinsics     what both dialects call the same way: ``isinstance`` against a
               type or a bare container, ``Tensor.tolist()`` under its annotation
core           this page: the :class:`Emitter` base, :class:`Dialect`
=============  ===================================================================

The core modules import no dialect (neither :mod:`pyjit.archive` nor the
Python dialect's scope, calls, classes and script functions:
``tests/test_import_layers.py``).  A dialect is the object every emitter holds as
``ctx``: it gives names their meaning and chooses operators' overloads, and it
may narrow the syntax (the archive's accepts only what torch writes: its
statements checked before anything is emitted, each expression before the core
emits it; and it adds ``with obj:``), and it may give the expression emitter's
leaves its own meaning (a subclass: the archive's constants, names and display
types, :mod:`pyjit.archive.expressions`).  What the core asks of it
is :class:`Dialect`.
"""

from __future__ import annotations

import ast
from typing import Any, Callable, Dict, List, Optional, Protocol

from ..ir import types as T
from .builder import GraphBuilder, Source
from .environment import Env, Flow
from .interfaces import Attributes, Calls, Expressions, Items, Loops, Statements
from .operators import OperatorEmitter

__all__ = ["Dialect", "Emitter", "PENDING_RETURN", "StatementHandler"]

#: The type of ``$retval`` while an unannotated function has not returned yet;
#: replaced by the real return type at the end (``compiler._resolve_pending``).
PENDING_RETURN = T.NamedType("$pending_return")

#: A dialect's own emitter of one kind of statement: the statement's Flow, or
#: None to leave it to the core.
StatementHandler = Callable[[ast.stmt, Env], Optional[Flow]]


class Scope(Protocol):
    """What names outside the function denote, as far as the core asks."""

    def annotation(self, ann: Any, node: ast.AST) -> T.Type:
        """The type an annotation expression (``x: List[int] = ...``) denotes."""


class Dialect(Protocol):
    """What the core's emitters ask of the compilation they are part of.

    Attributes:
        src: the source: node locations, and errors at a node (``src.fail``).
        b: the graph being built.
        scope: annotations (and, for the Python dialect, closure and globals).
        exprs, stmts, loops, calls, attrs, items: the emitters, reached through
            their interfaces (:mod:`.interfaces`); ``stmts`` and ``loops`` are
            the core's, the others the dialect's.
        ops: the core's operators on computed values.
        statement_handlers: statement kinds the dialect emits itself, or emits
            before the core does (a handler returning None hands it back).
        return_type, return_annotated: the declared (or so far inferred)
            return type, and whether it was declared.
    """

    src: Source
    b: GraphBuilder
    scope: Scope
    exprs: Expressions
    stmts: Statements
    loops: Loops
    calls: Calls
    attrs: Attributes
    items: Items
    ops: OperatorEmitter
    statement_handlers: Dict[type, StatementHandler]
    return_type: Optional[T.Type]
    return_annotated: bool

    def pending_return_type(self) -> T.Type:
        """The type ``$retval`` is carried with through loops."""

    def unpack_types(self, t: T.Type) -> Optional[List[T.Type]]:
        """The item types a value of the named type ``t`` unpacks into (a
        NamedTuple's fields), or None."""

    def isinstance_types(self, node: ast.Call) -> List[T.Type]:
        """The types ``isinstance(x, types)`` (``node``) tests for, its
        annotations read in this dialect (a bare ``list``/``tuple``/``dict`` is
        the NamedType of that name: :data:`~.intrinsics.BARE_CONTAINERS`)."""


class Emitter:
    """What every emitter keeps: the compilation (``ctx``), and its builder (``b``)
    and source (``src``), which every emitter uses at every step."""

    def __init__(self, ctx: Any) -> None:
        self.ctx = ctx
        self.b = ctx.b
        self.src = ctx.src
