"""Expressions: one Python expression in, one typed SSA value out.

:class:`ExpressionEmitter` dispatches on the ``ast`` class.  Short-circuit
operators, chained comparisons and conditional expressions become
value-producing ``prim::If`` nodes, as torch emits them::

    a < b and b < 10        %1 : bool = aten::lt(%a, %b)
                            %2 : bool = prim::If(%1)
                              block0():  %3 : bool = aten::lt(%b, %c10)  -> (%3)
                              block1():  -> (%false)

Conditions also report *refinements*: ``x is not None`` narrows an ``Optional``
variable ``x`` in the branch where it holds, and the variable is then read
through ``prim::unchecked_cast``.

What an operator emits on the values is :class:`~.operators.OperatorEmitter`'s;
calls, attributes and indexing are handed to their emitters (``ctx.calls``,
``ctx.attrs``, ``ctx.items``), comprehension loops to ``ctx.loops``.
"""

from __future__ import annotations

import ast
import builtins
import types as _pytypes
from typing import Callable, Dict, List, Optional, Tuple

from ..ir import Value
from ..ir import types as T
from ..ir.type_relation import unify
from .core import Dialect, Emitter
from .intrinsics import refined_type
from .environment import Condition, Env, Refinements
from .lowering import apply_refinements
from .operators import is_number, is_tensor

__all__ = ["ExpressionEmitter"]

_NO_REFINEMENTS: Tuple[Refinements, Refinements] = ({}, {})

Emit = Callable[[ast.expr, Env, Optional[T.Type]], Value]


class ExpressionEmitter(Emitter):
    """Everything that computes a value (:class:`~.interfaces.Expressions`)."""

    def __init__(self, ctx: Dialect) -> None:
        super().__init__(ctx)
        self._dispatch: Dict[type, Emit] = {
            ast.Constant: self._constant, ast.Name: self._name, ast.BinOp: self._binop,
            ast.UnaryOp: self._unaryop, ast.BoolOp: self._boolop, ast.Compare: self._compare,
            ast.IfExp: self._ifexp, ast.Tuple: self._tuple, ast.List: self._list,
            ast.Dict: self._dict, ast.JoinedStr: self._joinedstr,
            ast.ListComp: self._listcomp, ast.DictComp: self._dictcomp,
            ast.GeneratorExp: self._generatorexp,
            ast.Call: lambda node, env, expected: ctx.calls.call(node, env, expected),
            ast.Attribute: lambda node, env, expected: ctx.attrs.load(node, env),
            ast.Subscript: lambda node, env, expected: ctx.items.load(node, env),
        }

    # -- the interface ---------------------------------------------------------------------
    def emit(self, node: ast.expr, env: Env, expected: Optional[T.Type] = None) -> Value:
        method = self._dispatch.get(type(node))
        if method is None:
            self.src.fail(node, f"{_describe(node)} is not supported by pyjit.script")
        return method(node, env, expected)

    def value(self, node: ast.expr, env: Env, expected: Optional[T.Type] = None) -> Value:
        """One Value for a part of a larger expression: an expression that
        computed several (an archive operator of several outputs, which an
        assignment unpacks without a tuple) becomes their tuple."""
        v = self.emit(node, env, expected)
        return v if isinstance(v, Value) else self.b.tuple_value(v, node)

    def condition(self, node: ast.expr, env: Env, strict: bool = False) -> Condition:
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            v, rt, rf = self.condition(node.operand, env)
            return Condition(self.b.emit1("aten::__not__", [v], T.BOOL, node), rf, rt)
        if isinstance(node, ast.BoolOp):
            return self._bool_op(node, env, strict)
        if isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(
                node.ops[0], (ast.Is, ast.IsNot)):
            v = self.emit(node, env)
            return Condition(v, *self._none_refinements(node, env))
        if isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Name) \
                and isinstance(node.func, ast.Name) and node.func.id not in env.vars \
                and self.ctx.calls.resolve(node.func, env).obj is builtins.isinstance:
            v = self.emit(node, env)
            return Condition(v, *self._isinstance_refinements(node, env))
        v = self.emit(node, env)
        if strict and v.type != T.BOOL:
            self.src.fail(node, f"'and'/'or' on a {v.type} gives one of its operands in Python, "
                          "not a bool; pyjit.script supports them on bools, or as a condition")
        return Condition(self.ctx.ops.truth(v, node), {}, {})

    def lookup(self, name: str, node: ast.AST, env: Env) -> Value:
        var = env.get(name)
        if var is not None:
            if var.refined is None or var.refined == var.value.type:
                return var.value
            cast = env.casts.get(name)
            if cast is None:
                cast = self.b.emit1("prim::unchecked_cast", [var.value], var.refined, node)
                env.casts[name] = cast
            return cast
        why = env.undefined.get(name)
        if why is not None:
            self.src.fail(node, why)
        return self._global_value(name, node)

    # -- leaves ---------------------------------------------------------------------------
    def _constant(self, node: ast.Constant, env: Env, expected) -> Value:
        value = node.value
        if value is None or isinstance(value, (bool, float, str)):
            return self.b.const(value, node)
        if isinstance(value, int):
            if not -2**63 <= value < 2**63:
                self.src.fail(node, f"integer constant {value} does not fit in 64 bits")
            return self.b.const(value, node)
        self.src.fail(node, f"constants of type {type(value).__name__} are not supported")

    def _name(self, node: ast.Name, env: Env, expected) -> Value:
        return self.lookup(node.id, node, env)

    def _global_value(self, name: str, node: ast.AST) -> Value:
        """A global used as a value: constants (and tuples of them) only."""
        obj = self.ctx.scope.resolve(name, node)
        value = self.b.python_constant(obj, node)
        if value is None:
            what = "a module" if isinstance(obj, _pytypes.ModuleType) else \
                f"a {type(obj).__name__}"
            self.src.fail(node, f"'{name}' is {what}, which cannot be used as a value in a "
                          "scripted function (only int, float, bool, str, None and tuples "
                          "of them can)")
        return value

    # -- operators ------------------------------------------------------------------------
    def _binop(self, node: ast.BinOp, env: Env, expected) -> Value:
        lhs = self.emit(node.left, env)
        rhs = self.emit(node.right, env)
        return self.ctx.ops.binary(type(node.op), lhs, rhs, node)

    def _unaryop(self, node: ast.UnaryOp, env: Env, expected) -> Value:
        b = self.b
        op = node.op
        if isinstance(op, ast.Not):
            v, _, _ = self.condition(node.operand, env)
            return b.emit1("aten::__not__", [v], T.BOOL, node)
        operand = node.operand
        if isinstance(op, ast.USub) and isinstance(operand, ast.Constant) and isinstance(
                operand.value, (int, float)) and not isinstance(operand.value, bool):
            return self._constant(ast.copy_location(ast.Constant(-operand.value), node),
                                  env, None)
        v = self.emit(operand, env)
        if isinstance(op, ast.UAdd) and (is_number(v.type) or is_tensor(v.type)):
            return v
        if isinstance(op, ast.USub):
            if v.type == T.BOOL:
                v = b.emit1("aten::Int", [v], T.INT, node)
            if is_number(v.type) or is_tensor(v.type):
                return b.emit1("aten::neg", [v], v.type, node)
        symbol = {ast.USub: "-", ast.UAdd: "+", ast.Invert: "~"}[type(op)]
        self.src.fail(node, f"unary {symbol} is not supported on {v.type}")

    def _bool_op(self, node: ast.BoolOp, env: Env, strict: bool = False) -> Condition:
        """``a and b`` is ``If(a) -> (b) else -> (False)``; ``a or b`` is
        ``If(a) -> (True) else -> (b)``; the right side sees the left side's
        refinements."""
        is_and = isinstance(node.op, ast.And)
        first, rest = node.values[0], node.values[1:]
        lhs, rt, rf = self.condition(first, env, strict)
        if not rest:
            return Condition(lhs, rt, rf)
        tail = ast.copy_location(ast.BoolOp(op=node.op, values=rest), rest[0]) \
            if len(rest) > 1 else rest[0]
        inner: List[Tuple[Refinements, Refinements]] = []

        def right() -> Value:
            sub = env.child()
            apply_refinements(sub, rt if is_and else rf)
            v, srt, srf = self.condition(tail, sub, strict)
            inner.append((srt, srf))
            return v

        def short() -> Value:
            return self.b.const(not is_and, node)

        out = self.b.value_if(lhs, right, short, node) if is_and else \
            self.b.value_if(lhs, short, right, node)
        srt, srf = inner[0]
        if is_and:
            return Condition(out, {**rt, **srt}, {})
        return Condition(out, {}, {**rf, **srf})

    def _boolop(self, node: ast.BoolOp, env: Env, expected) -> Value:
        return self._bool_op(node, env, strict=True).value

    def _compare(self, node: ast.Compare, env: Env, expected) -> Value:
        """``a < b < c`` is ``If(a < b) -> (b < c) else -> (False)``, each operand
        evaluated once, the later ones only when needed."""
        left = self.emit(node.left, env)
        return self._compare_chain(left, node, list(zip(node.ops, node.comparators)), node, env)

    def _compare_chain(self, left: Value, at: ast.AST, pairs, node: ast.Compare,
                       env: Env) -> Value:
        """The comparisons ``pairs`` from ``left`` on; each is located at its left
        operand (the first at the whole expression), as torch locates them."""
        op, right_node = pairs[0]
        right = self.emit(right_node, env)
        result = self.ctx.ops.compare(type(op), left, right, at)
        if len(pairs) == 1:
            return result
        return self.b.value_if(
            result,
            lambda: self._compare_chain(right, right_node, pairs[1:], node, env.child()),
            lambda: self.b.const(False, node), node)

    def _none_refinements(self, node: ast.Compare, env: Env) -> Tuple[Refinements, Refinements]:
        """For ``x is None`` / ``x is not None`` with ``x`` an Optional local: the
        narrowing each outcome implies."""
        lhs, rhs = node.left, node.comparators[0]
        if isinstance(lhs, ast.Constant) and lhs.value is None:
            lhs, rhs = rhs, lhs
        if not (isinstance(lhs, ast.Name) and isinstance(rhs, ast.Constant) and rhs.value is None):
            return _NO_REFINEMENTS
        var = env.get(lhs.id)
        if var is None:
            return _NO_REFINEMENTS
        t = var.refined or var.value.type
        if not isinstance(t, T.OptionalType):
            return _NO_REFINEMENTS
        narrowed = {lhs.id: t.elem}
        return (narrowed, {}) if isinstance(node.ops[0], ast.IsNot) else ({}, narrowed)

    def _isinstance_refinements(self, node: ast.Call, env: Env
                                ) -> Tuple[Refinements, Refinements]:
        """For ``isinstance(x, T)`` with ``x`` a local of a Union or Optional type:
        what ``x`` is where it held, and where it did not."""
        name = node.args[0].id
        var = env.get(name)
        if var is None:
            return _NO_REFINEMENTS
        t = var.refined or var.value.type
        wants = self.ctx.isinstance_types(node)
        held, failed = refined_type(t, wants), refined_type(t, wants, held=False)
        return ({name: held} if held else {}), ({name: failed} if failed else {})

    def _ifexp(self, node: ast.IfExp, env: Env, expected) -> Value:
        cond, rt, rf = self.condition(node.test, env)

        def branch(expr: ast.expr, refinements: Refinements):
            def fill() -> Value:
                sub = env.child()
                apply_refinements(sub, refinements)
                return self.value(expr, sub, expected)
            return fill

        return self.b.value_if(cond, branch(node.body, rt), branch(node.orelse, rf), node,
                               "the two sides of the conditional expression")

    # -- containers ---------------------------------------------------------------------
    def _tuple(self, node: ast.Tuple, env: Env, expected) -> Value:
        hints = expected.elems if isinstance(expected, T.TupleType) and len(
            expected.elems) == len(node.elts) else [None] * len(node.elts)
        values = [self.value(e, env, h) for e, h in zip(node.elts, hints)]
        return self.b.tuple_value(values, node)

    def _list(self, node: ast.List, env: Env, expected) -> Value:
        hint = expected.elem if isinstance(expected, T.ListType) else None
        values = [self.value(e, env, hint) for e in node.elts]
        elem = self._list_element(values, hint, node)
        return self.b.emit1("prim::ListConstruct", values, T.ListType(elem), node)

    def _list_element(self, values: List[Value], hint: Optional[T.Type],
                      node: ast.List) -> T.Type:
        """The element type of a list display: the one its elements unify to,
        which must be the expected one when a type is expected."""
        elem = hint
        for v in values:
            if elem is None:
                elem = v.type
                continue
            joined = unify(elem, v.type)
            if joined is None or (hint is not None and joined != hint):
                self.src.fail(node, f"list elements have different types: {elem} and {v.type}"
                              if hint is None else
                              f"list element of type {v.type} in a list of {hint}")
            elem = joined
        if elem is None:
            self.src.fail(node, "cannot tell the element type of an empty list; annotate "
                          "the variable, e.g. 'xs: List[int] = []'")
        return elem

    def _dict(self, node: ast.Dict, env: Env, expected) -> Value:
        hint = expected if isinstance(expected, T.DictType) else None
        inputs: List[Value] = []
        kt = vt = None
        for k, v in zip(node.keys, node.values):
            if k is None:
                self.src.fail(v, "'**' in a dict literal is not supported")
            kv = self.value(k, env, hint.key if hint else None)
            vv = self.value(v, env, hint.value if hint else None)
            kt, vt = self._dict_item(kt, vt, kv, vv, hint, k, v)
            inputs += [kv, vv]
        return self.b.emit1("prim::DictConstruct", inputs, self._dict_type(kt, vt, hint, node),
                            node)

    def _dict_item(self, kt: Optional[T.Type], vt: Optional[T.Type], kv: Value, vv: Value,
                   hint: Optional[T.DictType], k: ast.expr, v: ast.expr):
        """The key and value types of a dict display after one more item: keys of
        one type, values that unify (to the expected types, when expected)."""
        kt = kt or (hint.key if hint else kv.type)
        vt = vt if vt is not None else (hint.value if hint else vv.type)
        if kv.type != kt:
            self.src.fail(k, f"dict keys have different types: {kt} and {kv.type}")
        joined = unify(vt, vv.type)
        if joined is None or (hint is not None and joined != hint.value):
            self.src.fail(v, f"dict values have different types: {vt} and {vv.type}")
        return kt, joined

    def _dict_type(self, kt: Optional[T.Type], vt: Optional[T.Type],
                   hint: Optional[T.DictType], node: ast.Dict) -> T.Type:
        if kt is None and hint is None:
            self.src.fail(node, "cannot tell the key and value types of an empty dict; "
                          "annotate the variable, e.g. 'd: Dict[str, int] = {}'")
        return T.DictType(kt or hint.key, vt if vt is not None else hint.value)

    def _joinedstr(self, node: ast.JoinedStr, env: Env, expected) -> Value:
        """An f-string is ``aten::format`` of a format string with one ``{}`` per
        replacement field."""
        pieces: List[str] = []
        args: List[Value] = []
        for part in node.values:
            if isinstance(part, ast.Constant):
                if "{" in part.value or "}" in part.value:
                    self.src.fail(node, "literal braces in f-strings are not supported")
                pieces.append(part.value)
                continue
            assert isinstance(part, ast.FormattedValue)
            if part.conversion != -1 or part.format_spec is not None:
                # At the f-string: before Python 3.12 its parts carry no
                # positions of their own, so only this one is the same on all.
                self.src.fail(node, "format specs and conversions (!r, :3d) in f-strings "
                              "are not supported; use str() or plain {x}")
            pieces.append("{}")
            args.append(self.emit(part.value, env))
        fmt = self.b.const("".join(pieces), node)
        return self.b.emit1("aten::format", [fmt, *args], T.STR, node)

    # -- comprehensions ---------------------------------------------------------------------
    def _listcomp(self, node: ast.ListComp, env: Env, expected) -> Value:
        """``[e for x in it if c]`` is an empty ``prim::ListConstruct`` filled by
        ``aten::append`` in a Loop; its element type is known once ``e`` is emitted."""
        out = self.b.emit1("prim::ListConstruct", [], T.ListType(T.NONE), node)
        hint = expected.elem if isinstance(expected, T.ListType) else None
        state: List[bool] = []

        def body(sub: Env) -> None:
            v = self.emit(node.elt, sub, hint)
            if not state:  # the first (and only) time the element is emitted
                out.type = T.ListType(hint or v.type)
                state.append(True)
            if unify(out.type.elem, v.type) != out.type.elem:
                self.src.fail(node.elt, f"list elements have different types: "
                              f"{out.type.elem} and {v.type}")
            self.b.emit1("aten::append", [out, v], out.type, node)

        self.ctx.loops.comprehension(node.generators, env, body, node)
        return out

    def _dictcomp(self, node: ast.DictComp, env: Env, expected) -> Value:
        out = self.b.emit1("prim::DictConstruct", [], T.DictType(T.NONE, T.NONE), node)
        hint = expected if isinstance(expected, T.DictType) else None
        state: List[bool] = []

        def body(sub: Env) -> None:
            k = self.emit(node.key, sub, hint.key if hint else None)
            v = self.emit(node.value, sub, hint.value if hint else None)
            if not state:
                out.type = hint or T.DictType(k.type, v.type)
                state.append(True)
            if k.type != out.type.key or unify(out.type.value, v.type) != out.type.value:
                self.src.fail(node, f"dict comprehension items have types {k.type}: {v.type}, "
                              f"expected {out.type.key}: {out.type.value}")
            self.b.emit("aten::_set_item", [out, k, v], [], node)

        self.ctx.loops.comprehension(node.generators, env, body, node)
        return out

    def _generatorexp(self, node, env, expected):
        self.src.fail(node, "generator expressions are not supported; use a list "
                      "comprehension")


def _describe(node: ast.AST) -> str:
    names = {
        "Lambda": "a lambda", "NamedExpr": "the walrus operator (:=)", "Await": "await",
        "Yield": "yield", "YieldFrom": "yield from", "Starred": "a starred expression (*x)",
        "Set": "a set literal", "SetComp": "a set comprehension", "Slice": "a slice here",
    }
    return names.get(type(node).__name__, f"the expression '{type(node).__name__}'")
