"""The expressions of serialized code: the core's expression emitter
(:class:`~pyjit.frontend.expressions.ExpressionEmitter`) with the archive's
leaves.

The core walks the expression (tuple, list and dict displays, conditional
expressions, and hands calls, attributes and subscripts to the dialect's
``calls``, ``attrs`` and ``items``: :class:`.compiler._Compiler`); this module
says what the leaves mean in serialized code and refuses, at each expression
before the core emits it, every kind torch does not write
(:func:`check_expression`), so an archive reaches no more of Python than it did
with an expression emitter of its own:

=========================  ==============================================
serialized                 graph
=========================  ==============================================
``None`` under a type      a ``prim::Constant`` of that type
``-1.5``, ``-inf``, ``nan``  a constant (how torch prints floats)
``_0``                     a function named earlier (``_0 = __torch__.f``)
``[a, b]``, ``{k: v}``     typed by ``annotate(T, ...)`` or their items,
                           unchecked (torch checked them when it compiled)
``x if c else y``          ``prim::If``; ``c`` must be a bool
=========================  ==============================================
"""

from __future__ import annotations

import ast
import math
from typing import Any, List, Optional

from ..frontend.environment import Condition, Env
from ..frontend.expressions import ExpressionEmitter
from ..ir import Value
from ..ir import types as T
from ..ir.type_relation import unify

__all__ = ["ArchiveExpressions", "FunctionRef", "check_expression"]

#: How torch prints the floats that have no literal.
FLOAT_NAMES = {"inf": math.inf, "nan": math.nan}

#: The expressions serialized code is made of (beside ``-constant``).
_EXPRESSIONS = (ast.Name, ast.Constant, ast.Call, ast.Attribute, ast.Tuple, ast.List,
                ast.Dict, ast.Subscript, ast.IfExp)


class FunctionRef:
    """A function of the archive named as a value (``_0 = __torch__...softmax``),
    which serialized code then calls (``_0(x, 1, 3, None)``)."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name


def check_expression(e: ast.expr, env: Env, file: Any) -> None:
    """Refuse an expression torch does not serialize (the expression-level
    counterpart of :func:`.compiler._check_syntax`): only names, constants, a
    negated number (``-2``, ``-inf``), calls, attributes, displays, subscripts
    and conditional expressions reach the core."""
    if isinstance(e, ast.Constant):
        if isinstance(e.value, bytes) or e.value is Ellipsis:
            file.fail(e, "unsupported constant")
        return
    if isinstance(e, ast.UnaryOp) and isinstance(e.op, ast.USub) and _negated_literal(e, env):
        return
    if not isinstance(e, _EXPRESSIONS):
        file.fail(e, f"unsupported expression ({type(e).__name__}) in serialized code")


def _negated_literal(e: ast.UnaryOp, env: Env) -> bool:
    operand = e.operand
    return (isinstance(operand, ast.Constant) and isinstance(operand.value, (int, float))) or \
        (isinstance(operand, ast.Name) and operand.id in FLOAT_NAMES and operand.id not in env)


class ArchiveExpressions(ExpressionEmitter):
    """The core's expressions over serialized code (``ctx`` the archive dialect,
    :class:`.compiler._Compiler`)."""

    def raw(self, e: ast.expr, env: Env, expected: Optional[T.Type] = None) -> Any:
        """What an expression computes, as the dialect's calls return it: a
        Value, a tuple of an operator's outputs, None for an operator of none
        (a call made for its effect), or a :class:`FunctionRef`."""
        check_expression(e, env, self.src)
        return super().emit(e, env, expected)

    def emit(self, e: ast.expr, env: Env, expected: Optional[T.Type] = None) -> Any:
        """An expression's value: one Value, or a list of them for an operator
        of several outputs (which an assignment unpacks, no tuple in between)."""
        v = self.raw(e, env, expected)
        return list(v) if isinstance(v, tuple) else self.ctx.value(v, e)

    def condition(self, e: ast.expr, env: Env, strict: bool = False) -> Condition:
        """A bool, as torch's code tests only bools (no refinements: its casts
        are explicit, ``unchecked_cast``)."""
        v = self.value(e, env)
        if v.type != T.BOOL:
            self.src.fail(e, f"a condition must be a bool, not {v.type}")
        return Condition(v, {}, {})

    # -- leaves ---------------------------------------------------------------------------
    def _constant(self, e: ast.Constant, env: Env, expected) -> Value:
        return self.b.const(e.value, e, expected if e.value is None and expected else None)

    def _unaryop(self, e: ast.UnaryOp, env: Env, expected) -> Value:
        operand = e.operand      # a negated literal (check_expression)
        value = operand.value if isinstance(operand, ast.Constant) else FLOAT_NAMES[operand.id]
        return self.b.const(-value, e)

    def _global_value(self, name: str, at: ast.AST) -> Any:
        ref = self.ctx.refs.get(name)
        if ref is not None:
            return ref
        if name in FLOAT_NAMES:
            return self.b.const(FLOAT_NAMES[name], at)
        self.src.fail(at, f"undefined name '{name}'")

    # -- displays: typed as torch typed them --------------------------------------------------
    def _list_element(self, values: List[Value], hint: Optional[T.Type],
                      node: ast.List) -> T.Type:
        if hint is not None:
            return hint
        if not values:
            self.src.fail(node, "an empty list needs annotate(List[T], [])")
        elem = values[0].type
        for v in values[1:]:
            elem = unify(elem, v.type)
            if elem is None:
                self.src.fail(node, "a list of values of different types")
        return elem

    def _dict_item(self, kt, vt, kv: Value, vv: Value, hint, k: ast.expr, v: ast.expr):
        return (kt or kv.type), (vt if vt is not None else vv.type)

    def _dict_type(self, kt, vt, hint, node: ast.Dict) -> T.Type:
        if hint is not None:
            return hint
        if kt is None:
            self.src.fail(node, "an empty dict needs annotate(Dict[K, V], {})")
        return T.DictType(kt, vt)
