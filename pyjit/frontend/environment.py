"""Variables during emission: which SSA value each Python name holds, block by block.

The emitter keeps one :class:`Env` per block it is filling.  A nested block (a
branch of an If, the body of a Loop) starts from a copy of its parent's Env, and
when the block ends its Env is *merged* back (:mod:`.lowering`): a name bound to
different values in the two branches becomes an output of the If, a name assigned
in a loop body becomes a loop-carried value.  That is how a Python variable turns
into SSA values without any Load/Store nodes::

    x = 1                 %x.1 : int = prim::Constant[value=1]()
    if c:                 %x : int = prim::If(%c)
        x = 2               block0():  -> (%x.2)   where %x.2 = 2
                            block1():  -> (%x.1)

Besides the user's names the Env holds the flags that lower ``break``,
``continue`` and ``return`` (see :mod:`.lowering`): they are ordinary boolean
variables named ``$brk``, ``$cont`` and ``$ret`` (a ``$`` cannot start a Python
name), plus ``$retval``, the value being returned.  A flag that is missing means
False.

Each variable remembers the *depth* (block nesting) where it was bound: Python
lets a name change type when it is rebound in the same block, but a nested block
that rebinds a name of an enclosing block with another type would leave the
merged value without a type, which is an error at the assignment (as in torch).
"""

from __future__ import annotations

import ast
from typing import Dict, Iterator, List, NamedTuple, Optional, Union

from ..ir import Value
from ..ir import types as T

__all__ = ["Var", "Env", "Flow", "FALLS", "RAISES", "BRK", "CONT", "RET", "RETVAL",
           "FLAGS", "Refinements", "Condition", "Element", "assigned_names", "contains_return",
           "contains_break"]

BRK = "$brk"        # a break ran: leave the loop
CONT = "$cont"      # a continue ran: skip to the end of the loop body
RET = "$ret"        # a return ran: leave every loop, skip to the end
RETVAL = "$retval"  # the value returned
FLAGS = (BRK, CONT, RET)


class Var(NamedTuple):
    """One binding of a name.

    Attributes:
        value: the SSA value the name holds.
        type: the variable's type: its annotation when declared, otherwise its
            value's type.  Branches and loop iterations must agree on it.
        line, col: where it was bound (for messages naming both places).
        depth: the block depth of the binding.
        declared: bound by an annotated assignment or a parameter annotation, so
            later assignments may store any subtype (``None`` into ``int?``).
        refined: a narrower type known in this block (``int`` for an ``int?``
            after ``x is not None``); uses read it through ``prim::unchecked_cast``.
    """

    value: Value
    type: T.Type
    line: int
    col: int
    depth: int
    declared: bool = False
    refined: Optional[T.Type] = None


class Flow(NamedTuple):
    """How control can leave a statement (or a block).

    ``falls``: it may reach the next statement; ``loop_exit``: a ``break`` or
    ``continue`` may have run (flags set); ``returns``: a ``return`` may have run.
    A ``raise`` is none of the three.
    """

    falls: bool
    loop_exit: bool = False
    returns: bool = False

    @property
    def exits(self) -> bool:
        """Whether a flag may be set, so that the code after must be guarded."""
        return self.loop_exit or self.returns

    def join(self, other: "Flow") -> "Flow":
        """The flow of an If whose branches flow as ``self`` and ``other``."""
        return Flow(self.falls or other.falls, self.loop_exit or other.loop_exit,
                    self.returns or other.returns)


FALLS = Flow(True)
RAISES = Flow(False)

#: Variables known to have a narrower type on one side of a condition
#: (``x: int?`` is ``int`` where ``x is not None`` held).
Refinements = Dict[str, T.Type]


class Condition(NamedTuple):
    """A condition as a bool value, and what holds when it is true and false."""

    value: Value
    if_true: Refinements
    if_false: Refinements


#: What an assignment target receives: one value, or a tuple kept as separate
#: values (``enumerate``/``zip`` elements, an unrolled tuple) so that unpacking
#: them needs no node.
Element = Union[Value, List["Element"]]


class Env:
    """The bindings visible in one block.

    Attributes:
        vars: name -> :class:`Var` (user names and the ``$`` flags).
        undefined: name -> why it is not usable here although it was bound on some
            path (defined in one branch only, or with two types): the message a
            use of it raises.
        casts: name -> a ``prim::unchecked_cast`` already emitted for a refined
            variable in this block or an enclosing one (dominating, so reusable).
        depth: the block depth.
    """

    __slots__ = ("vars", "undefined", "casts", "depth")

    def __init__(self, depth: int = 0) -> None:
        self.vars: Dict[str, Var] = {}
        self.undefined: Dict[str, str] = {}
        self.casts: Dict[str, Value] = {}
        self.depth = depth

    def child(self, depth: Optional[int] = None) -> "Env":
        """A copy for a nested block (one level deeper unless ``depth`` is given)."""
        env = Env(self.depth + 1 if depth is None else depth)
        env.vars = dict(self.vars)
        env.undefined = dict(self.undefined)
        env.casts = dict(self.casts)
        return env

    def get(self, name: str) -> Optional[Var]:
        return self.vars.get(name)

    def bind(self, name: str, var: Var) -> None:
        self.vars[name] = var
        self.undefined.pop(name, None)
        self.casts.pop(name, None)

    def forget(self, name: str) -> None:
        self.vars.pop(name, None)
        self.casts.pop(name, None)

    def user_names(self) -> List[str]:
        return [n for n in self.vars if not n.startswith("$")]

    def __contains__(self, name: str) -> bool:
        return name in self.vars


# -- what a block of statements does, read off its syntax ---------------------------

def _walk_scope(stmts: List[ast.stmt]) -> Iterator[ast.AST]:
    """Every node of ``stmts``, not entering nested scopes (comprehensions, lambdas,
    nested functions and classes, whose names are their own)."""
    stack: List[ast.AST] = list(reversed(stmts))
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda,
                             ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
            continue
        stack.extend(reversed(list(ast.iter_child_nodes(node))))


def assigned_names(stmts: List[ast.stmt]) -> List[str]:
    """The names ``stmts`` bind (assignment targets, for-loop targets), in order of
    first appearance: the candidates for loop-carried values."""
    seen: Dict[str, None] = {}
    for node in _walk_scope(stmts):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            seen.setdefault(node.id, None)
    return list(seen)


def contains_return(stmts: List[ast.stmt]) -> bool:
    return any(isinstance(n, ast.Return) for n in _walk_scope(stmts))


def contains_break(stmts: List[ast.stmt]) -> bool:
    """Whether a ``break`` of *this* loop appears (not one of a nested loop)."""
    stack: List[ast.AST] = list(stmts)
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Break):
            return True
        if isinstance(node, (ast.For, ast.While)):
            stack.extend(node.orelse)  # a nested loop's else belongs to us
            continue
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        stack.extend(ast.iter_child_nodes(node))
    return False
