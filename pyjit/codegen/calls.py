"""Calls between graphs: what ``prim::CallFunction`` and ``prim::CallMethod`` run.

torch prints a call of another TorchScript function as a ``Function``-typed
constant naming the callee and a ``prim::CallFunction`` taking it first, and a
method call as ``prim::CallMethod`` with the method's name and the receiver
first, whose type names the class::

    %f : Function = prim::Constant[name="helper"]()
    %y : int = prim::CallFunction(%f, %x)
    %z : Tensor = prim::CallMethod[name="forward"](%sub, %x)   # %sub : __torch__.Sub

Both become one ``INVOKE`` (see :mod:`pyjit.opcodes`): the arguments (the
receiver included for a method; never the function constant, which exists only
for the code generator) are pushed, and the callee's Code runs in a new
activation of the same loop.  The callee is resolved when the Code is built, by
a *unit* -- anything with the two methods of :class:`Unit`, such as
:class:`pyjit.CompilationUnit` -- into a :class:`CallSite`: the code generator
knows what a call runs, the runtime how (:func:`pyjit.interpreter.program_of`
links each site, lazily, which is what lets a function call itself).
"""

from __future__ import annotations

from typing import Any, Optional, Protocol, Sequence, Tuple

from ..errors import OperatorNotFoundError
from ..ir import Node, Value
from ..ir import types as T
from ..ir.calls import CALL_KINDS, call_arguments, call_target, describe_target
from ..ir.printer import node_header
from ..ir.symbols import prim

__all__ = ["CALL_KINDS", "CallSite", "Callee", "Unit", "resolve_call", "call_operands",
           "is_call_constant"]

class Callee(Protocol):
    """What a unit resolves a call to."""

    #: The name tracebacks and listings show: ``helper``, ``__torch__.M.forward``.
    qualified_name: str
    #: The callee's graph (its inputs and outputs are the call's).
    graph: Any

    def code(self, optimize: bool) -> Any:
        """The callee's Code at that level (compiled once)."""


class Unit(Protocol):
    """Where calls find their callees (:class:`pyjit.CompilationUnit`)."""

    def find_function(self, name: str) -> Optional[Callee]:
        """The function torch prints as ``prim::Constant[name=...]``, or None."""

    def find_method(self, class_name: str, name: str) -> Optional[Callee]:
        """Method ``name`` of the class torch prints as the receiver's type, or None."""

    def find_enum(self, name: str) -> Optional[type]:
        """The Python enum class torch names ``name``, or None (enum constants)."""


class CallSite:
    """The callback slot of an INVOKE: the callee, and the level its Code is built
    at.  The runtime turns it into the link the loop calls for the callee's
    Program; :attr:`code` compiles the callee's Code on first use (its unit keeps
    it), so a graph may call itself."""

    __slots__ = ("callee", "optimize")

    def __init__(self, callee: Callee, optimize: bool) -> None:
        self.callee = callee
        self.optimize = optimize

    @property
    def name(self) -> str:
        return self.callee.qualified_name

    @property
    def code(self):
        return self.callee.code(self.optimize)

    def __repr__(self) -> str:
        return f"<call site of {self.name}>"


def _located(node: Node, message: str) -> OperatorNotFoundError:
    loc = node.source_location
    where = f" at {loc}" if loc is not None else ""
    return OperatorNotFoundError(f"{node.kind}{where}: {message}\n  in: {node_header(node)}")


def resolve_call(node: Node, unit: Optional[Unit]) -> Callee:
    """The callee of a ``prim::CallFunction``/``prim::CallMethod`` node, checked
    against the call (as many inputs and outputs as the callee's graph).

    Raises:
        OperatorNotFoundError: no unit, no such function or method, the function
            is not a named constant, or the call and the callee disagree; the
            message names the node and its location.
    """
    try:
        target = call_target(node)
    except ValueError as exc:
        raise _located(node, str(exc)) from None
    what = describe_target(target)
    if unit is None:
        raise _located(node, f"calls {what}, but the graph is not compiled in a unit "
                             "that holds it (pyjit.CompilationUnit)")
    cls, name = target
    callee = unit.find_function(name) if cls is None else unit.find_method(cls, name)
    if callee is None:
        raise _located(node, f"calls {what}, which its compilation unit does not hold")
    g = callee.graph
    args = call_arguments(node)
    if len(args) != len(g.inputs) or len(node.outputs) != len(g.outputs):
        raise _located(node, f"passes {len(args)} arguments and takes {len(node.outputs)} "
                             f"results, but {callee.qualified_name} takes "
                             f"{len(g.inputs)} and returns {len(g.outputs)}")
    return callee


def call_operands(node: Node, flags: Sequence[bool]) -> Tuple[Sequence[Value], Sequence[bool]]:
    """The values (with their move flags) a call pushes: its arguments."""
    args = call_arguments(node)
    return args, flags[len(node.inputs) - len(args):]


def is_call_constant(v: Value) -> bool:
    """A ``Function`` constant that calls use as their function, and nothing else
    does (but Drops): it stands for its callee at build time and needs no register
    at run time.  (One that nothing calls, as torch's inliner leaves them, stays
    an ordinary constant.)"""
    if v.type != T.FUNCTION or v.node.kind != prim.Constant:
        return False
    called = [u.user.kind == prim.CallFunction and u.offset == 0 for u in v.uses
              if u.user.kind != prim.Drop]
    return bool(called) and all(called)

