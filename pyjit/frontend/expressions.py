"""Expressions: one Python expression in, one typed SSA value out.

``emit_expr(node, env)`` dispatches on the ``ast`` class.  Short-circuit operators,
chained comparisons and conditional expressions become value-producing
``prim::If`` nodes, as torch emits them::

    a < b and b < 10        %1 : bool = aten::lt(%a, %b)
                            %2 : bool = prim::If(%1)
                              block0():  %3 : bool = aten::lt(%b, %c10)  -> (%3)
                              block1():  -> (%false)

Conditions also report *refinements*: ``x is not None`` narrows an ``Optional``
variable ``x`` in the branch where it holds, and the variable is then read
through ``prim::unchecked_cast``.
"""

from __future__ import annotations

import ast
from typing import Dict, List, Optional, Tuple

from ..ir import Value
from ..ir import types as T
from .environment import Env
from .lowering import apply_refinements
from .operators import (BINARY_KINDS, COMPARE_KINDS, OP_SYMBOLS, binary_result, compare_result,
                        is_number, is_tensor)
from ..ir.type_relation import unify

__all__ = ["ExpressionEmitter"]

Refinements = Dict[str, T.Type]
_NO_REFINEMENTS: Tuple[Refinements, Refinements] = ({}, {})


class ExpressionEmitter:
    """Mixin of the function compiler: everything that computes a value."""

    # -- entry points -------------------------------------------------------------------
    def emit_expr(self, node: ast.expr, env: Env, expected: Optional[T.Type] = None) -> Value:
        """The value of ``node``.  ``expected`` is the type the context wants (an
        annotation, the return type): it gives empty literals their type."""
        method = getattr(self, "expr_" + type(node).__name__, None)
        if method is None:
            self.src.fail(node, f"{_describe(node)} is not supported by pyjit.script")
        return method(node, env, expected)

    def emit_condition(self, node: ast.expr, env: Env, strict: bool = False
                       ) -> Tuple[Value, Refinements, Refinements]:
        """``node`` as a bool, with the refinements that hold when it is true and
        when it is false.  ``strict`` refuses operands that are not bools (for
        ``and``/``or`` used as values, where Python returns an operand, not its
        truth)."""
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            v, rt, rf = self.emit_condition(node.operand, env)
            return self.emit1("aten::__not__", [v], T.BOOL, node), rf, rt
        if isinstance(node, ast.BoolOp):
            return self._bool_op(node, env, strict)
        if isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(
                node.ops[0], (ast.Is, ast.IsNot)):
            v = self.emit_expr(node, env)
            return (v,) + self._none_refinements(node, env)
        v = self.emit_expr(node, env)
        if strict and v.type != T.BOOL:
            self.src.fail(node, f"'and'/'or' on a {v.type} gives one of its operands in Python, "
                          "not a bool; pyjit.script supports them on bools, or as a condition")
        return self.to_bool(v, node), {}, {}

    def to_bool(self, v: Value, at: ast.AST) -> Value:
        """Python truthiness as torch computes it: ``aten::Bool`` for numbers and
        Tensors, ``len(x) > 0`` for strings, lists and dicts."""
        t = v.type
        if t == T.BOOL:
            return v
        if is_number(t) or is_tensor(t):
            return self.emit1("aten::Bool", [v], T.BOOL, at)
        if t == T.STR or isinstance(t, (T.ListType, T.DictType)):
            n = self.emit1("aten::len", [v], T.INT, at)
            return self.emit1("aten::gt", [n, self.const(0, at)], T.BOOL, at)
        self.src.fail(at, f"a value of type {t} cannot be used as a condition"
                      + ("; compare it with 'is None' / 'is not None'"
                         if isinstance(t, T.OptionalType) or t == T.NONE else ""))

    # -- leaves ---------------------------------------------------------------------------
    def expr_Constant(self, node: ast.Constant, env: Env, expected) -> Value:
        value = node.value
        if value is None or isinstance(value, (bool, float, str)):
            return self.const(value, node)
        if isinstance(value, int):
            if not -2**63 <= value < 2**63:
                self.src.fail(node, f"integer constant {value} does not fit in 64 bits")
            return self.const(value, node)
        self.src.fail(node, f"constants of type {type(value).__name__} are not supported")

    def expr_Name(self, node: ast.Name, env: Env, expected) -> Value:
        return self.lookup(node.id, node, env)

    def lookup(self, name: str, node: ast.AST, env: Env) -> Value:
        """The value ``name`` holds here: a local (read through a cast when
        narrowed), else a global constant."""
        var = env.get(name)
        if var is not None:
            if var.refined is None or var.refined == var.value.type:
                return var.value
            cast = env.casts.get(name)
            if cast is None:
                cast = self.emit1("prim::unchecked_cast", [var.value], var.refined, node)
                env.casts[name] = cast
            return cast
        why = env.undefined.get(name)
        if why is not None:
            self.src.fail(node, why)
        return self.global_value(name, node)

    # -- operators ------------------------------------------------------------------------
    def expr_BinOp(self, node: ast.BinOp, env: Env, expected) -> Value:
        lhs = self.emit_expr(node.left, env)
        rhs = self.emit_expr(node.right, env)
        return self.binary(type(node.op), lhs, rhs, node)

    def binary(self, op: type, lhs: Value, rhs: Value, at: ast.AST) -> Value:
        """``lhs <op> rhs`` with the kind and argument convention torch uses."""
        kind = BINARY_KINDS[op]
        a, b = lhs.type, rhs.type
        if is_tensor(a) or is_tensor(b):
            return self._tensor_binary(op, kind, lhs, rhs, at)
        if op not in (ast.BitOr, ast.BitAnd, ast.BitXor) or not (a == T.BOOL and b == T.BOOL):
            # torch turns bool operands of arithmetic into ints first
            if a == T.BOOL and (is_number(b) or b == T.BOOL):
                lhs, a = self.emit1("aten::Int", [lhs], T.INT, at), T.INT
            if b == T.BOOL and is_number(a):
                rhs, b = self.emit1("aten::Int", [rhs], T.INT, at), T.INT
        result = binary_result(op, a, b)
        if result is None:
            self.src.fail(at, f"unsupported operand types for {OP_SYMBOLS[op]}: {a} and {b}")
        return self.emit1(kind, [lhs, rhs], result, at)

    def _tensor_binary(self, op: type, kind: str, lhs: Value, rhs: Value, at: ast.AST) -> Value:
        a, b = lhs.type, rhs.type
        for t in (a, b):
            if not (is_tensor(t) or is_number(t) or t == T.BOOL):
                self.src.fail(at, f"unsupported operand types for {OP_SYMBOLS[op]}: {a} and {b}")
        if op in (ast.LShift, ast.RShift):
            self.src.fail(at, f"{OP_SYMBOLS[op]} is not supported on Tensors")
        if op is ast.MatMult:
            if not (is_tensor(a) and is_tensor(b)):
                self.src.fail(at, "@ needs two Tensors")
            return self.emit1(kind, [lhs, rhs], T.TENSOR, at)
        if is_tensor(a):
            if op in (ast.Add, ast.Sub):
                return self.emit1(kind, [lhs, rhs, self.const(1, at)], T.TENSOR, at)
            return self.emit1(kind, [lhs, rhs], T.TENSOR, at)
        # a number on the left of a Tensor
        if op in (ast.Add, ast.Mult, ast.BitAnd, ast.BitOr, ast.BitXor):
            extra = [self.const(1, at)] if op is ast.Add else []
            return self.emit1(kind, [rhs, lhs, *extra], T.TENSOR, at)
        if op is ast.Sub:
            neg = self.emit1("aten::neg", [rhs], T.TENSOR, at)
            return self.emit1("aten::add", [neg, lhs, self.const(1, at)], T.TENSOR, at)
        if op is ast.Div:
            rec = self.emit1("aten::reciprocal", [rhs], T.TENSOR, at)
            return self.emit1("aten::mul", [rec, lhs], T.TENSOR, at)
        if op is ast.Pow:
            return self.emit1("aten::pow", [lhs, rhs], T.TENSOR, at)
        self.src.fail(at, f"a number {OP_SYMBOLS[op]} a Tensor is not supported; "
                      "put the Tensor on the left")

    def expr_UnaryOp(self, node: ast.UnaryOp, env: Env, expected) -> Value:
        op = node.op
        if isinstance(op, ast.Not):
            v, _, _ = self.emit_condition(node.operand, env)
            return self.emit1("aten::__not__", [v], T.BOOL, node)
        operand = node.operand
        if isinstance(op, ast.USub) and isinstance(operand, ast.Constant) and isinstance(
                operand.value, (int, float)) and not isinstance(operand.value, bool):
            return self.expr_Constant(ast.copy_location(ast.Constant(-operand.value), node),
                                      env, None)
        v = self.emit_expr(operand, env)
        if isinstance(op, ast.UAdd) and (is_number(v.type) or is_tensor(v.type)):
            return v
        if isinstance(op, ast.USub):
            if v.type == T.BOOL:
                v = self.emit1("aten::Int", [v], T.INT, node)
            if is_number(v.type) or is_tensor(v.type):
                return self.emit1("aten::neg", [v], v.type, node)
        symbol = {ast.USub: "-", ast.UAdd: "+", ast.Invert: "~"}[type(op)]
        self.src.fail(node, f"unary {symbol} is not supported on {v.type}")

    def _bool_op(self, node: ast.BoolOp, env: Env, strict: bool = False
                 ) -> Tuple[Value, Refinements, Refinements]:
        """``a and b`` is ``If(a) -> (b) else -> (False)``; ``a or b`` is
        ``If(a) -> (True) else -> (b)``; the right side sees the left side's
        refinements."""
        is_and = isinstance(node.op, ast.And)
        first, rest = node.values[0], node.values[1:]
        lhs, rt, rf = self.emit_condition(first, env, strict)
        if not rest:
            return lhs, rt, rf
        tail = ast.copy_location(ast.BoolOp(op=node.op, values=rest), rest[0]) \
            if len(rest) > 1 else rest[0]
        inner: List[Tuple[Refinements, Refinements]] = []

        def right() -> Value:
            sub = env.child()
            apply_refinements(sub, rt if is_and else rf)
            v, srt, srf = self.emit_condition(tail, sub, strict)
            inner.append((srt, srf))
            return v

        def short() -> Value:
            return self.const(not is_and, node)

        out = self.value_if(lhs, right, short, node) if is_and else \
            self.value_if(lhs, short, right, node)
        srt, srf = inner[0]
        if is_and:
            return out, {**rt, **srt}, {}
        return out, {}, {**rf, **srf}

    def expr_BoolOp(self, node: ast.BoolOp, env: Env, expected) -> Value:
        return self._bool_op(node, env, strict=True)[0]

    def expr_Compare(self, node: ast.Compare, env: Env, expected) -> Value:
        """``a < b < c`` is ``If(a < b) -> (b < c) else -> (False)``, each operand
        evaluated once, the later ones only when needed."""
        left = self.emit_expr(node.left, env)
        return self._compare_chain(left, node, list(zip(node.ops, node.comparators)), node, env)

    def _compare_chain(self, left: Value, at: ast.AST, pairs, node: ast.Compare,
                       env: Env) -> Value:
        """The comparisons ``pairs`` from ``left`` on; each is located at its left
        operand (the first at the whole expression), as torch locates them."""
        op, right_node = pairs[0]
        right = self.emit_expr(right_node, env)
        result = self.compare(type(op), left, right, at)
        if len(pairs) == 1:
            return result
        return self.value_if(
            result,
            lambda: self._compare_chain(right, right_node, pairs[1:], node, env.child()),
            lambda: self.const(False, node), node)

    def compare(self, op: type, lhs: Value, rhs: Value, at: ast.AST) -> Value:
        a, b = lhs.type, rhs.type
        if op in (ast.Is, ast.IsNot):
            kind = "aten::__is__" if op is ast.Is else "aten::__isnot__"
            return self.emit1(kind, [lhs, rhs], T.BOOL, at)
        if op in (ast.In, ast.NotIn):
            found = self._contains(rhs, lhs, at)
            return found if op is ast.In else self.emit1("aten::__not__", [found], T.BOOL, at)
        if is_tensor(b) and not is_tensor(a):  # 0 < x  is  x > 0
            op = {ast.Lt: ast.Gt, ast.Gt: ast.Lt, ast.LtE: ast.GtE, ast.GtE: ast.LtE}.get(op, op)
            lhs, rhs, a, b = rhs, lhs, b, a
        result = compare_result(op, a, b)
        if result is None:
            self.src.fail(at, f"cannot compare {a} {OP_SYMBOLS[op]} {b}")
        return self.emit1(COMPARE_KINDS[op], [lhs, rhs], result, at)

    def _contains(self, container: Value, item: Value, at: ast.AST) -> Value:
        t = container.type
        if t == T.STR and item.type == T.STR:
            # torch's str.__contains__ is  s.find(sub, 0, len(s)) != -1
            n = self.emit1("aten::len", [container], T.INT, at)
            pos = self.emit1("aten::find", [container, item, self.const(0, at), n], T.INT, at)
            return self.emit1("aten::ne", [pos, self.const(-1, at)], T.BOOL, at)
        if isinstance(t, T.ListType) and unify(t.elem, item.type) == t.elem:
            return self.emit1("aten::__contains__", [container, item], T.BOOL, at)
        if isinstance(t, T.DictType) and item.type == t.key:
            return self.emit1("aten::__contains__", [container, item], T.BOOL, at)
        self.src.fail(at, f"'in' is not supported for {item.type} in {t}")

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

    def expr_IfExp(self, node: ast.IfExp, env: Env, expected) -> Value:
        cond, rt, rf = self.emit_condition(node.test, env)

        def branch(expr: ast.expr, refinements: Refinements):
            def fill() -> Value:
                sub = env.child()
                apply_refinements(sub, refinements)
                return self.emit_expr(expr, sub, expected)
            return fill

        return self.value_if(cond, branch(node.body, rt), branch(node.orelse, rf), node,
                             "the two sides of the conditional expression")

    # -- containers ---------------------------------------------------------------------
    def expr_Tuple(self, node: ast.Tuple, env: Env, expected) -> Value:
        hints = expected.elems if isinstance(expected, T.TupleType) and len(
            expected.elems) == len(node.elts) else [None] * len(node.elts)
        values = [self.emit_expr(e, env, h) for e, h in zip(node.elts, hints)]
        return self.tuple_value(values, node)

    def tuple_value(self, values: List[Value], at: ast.AST) -> Value:
        return self.emit1("prim::TupleConstruct", values, T.TupleType(v.type for v in values), at)

    def expr_List(self, node: ast.List, env: Env, expected) -> Value:
        hint = expected.elem if isinstance(expected, T.ListType) else None
        values = [self.emit_expr(e, env, hint) for e in node.elts]
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
        return self.emit1("prim::ListConstruct", values, T.ListType(elem), node)

    def expr_Dict(self, node: ast.Dict, env: Env, expected) -> Value:
        hint_k = expected.key if isinstance(expected, T.DictType) else None
        hint_v = expected.value if isinstance(expected, T.DictType) else None
        inputs: List[Value] = []
        kt, vt = hint_k, hint_v
        for k, v in zip(node.keys, node.values):
            if k is None:
                self.src.fail(v, "'**' in a dict literal is not supported")
            kv = self.emit_expr(k, env, hint_k)
            vv = self.emit_expr(v, env, hint_v)
            kt = kt or kv.type
            vt = vt if vt is not None else vv.type
            if kv.type != kt:
                self.src.fail(k, f"dict keys have different types: {kt} and {kv.type}")
            joined = unify(vt, vv.type)
            if joined is None or (hint_v is not None and joined != hint_v):
                self.src.fail(v, f"dict values have different types: {vt} and {vv.type}")
            vt = joined
            inputs += [kv, vv]
        if kt is None:
            self.src.fail(node, "cannot tell the key and value types of an empty dict; "
                          "annotate the variable, e.g. 'd: Dict[str, int] = {}'")
        return self.emit1("prim::DictConstruct", inputs, T.DictType(kt, vt), node)

    def expr_JoinedStr(self, node: ast.JoinedStr, env: Env, expected) -> Value:
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
                self.src.fail(part, "format specs and conversions (!r, :3d) in f-strings "
                              "are not supported; use str() or plain {x}")
            pieces.append("{}")
            args.append(self.emit_expr(part.value, env))
        fmt = self.const("".join(pieces), node)
        return self.emit1("aten::format", [fmt, *args], T.STR, node)

    # -- indexing --------------------------------------------------------------------------
    def expr_Subscript(self, node: ast.Subscript, env: Env, expected) -> Value:
        base = self.emit_expr(node.value, env)
        t = base.type
        if isinstance(t, T.TupleType):
            return self._tuple_subscript(base, node)
        if is_tensor(t):
            return self.tensor_subscript(base, node, env)
        if isinstance(node.slice, ast.Slice):
            if not (isinstance(t, T.ListType) or t == T.STR):
                self.src.fail(node, f"slicing is not supported on {t}")
            start, end, step = self._slice_args(node.slice, env, node)
            return self.emit1("aten::slice", [base, start, end, step], t, node)
        index = self.emit_expr(node.slice, env)
        return self.getitem(base, index, node)

    def getitem(self, base: Value, index: Value, at: ast.AST) -> Value:
        t = base.type
        if isinstance(t, T.ListType) and index.type == T.INT:
            return self.emit1("aten::__getitem__", [base, index], t.elem, at)
        if t == T.STR and index.type == T.INT:
            return self.emit1("aten::__getitem__", [base, index], T.STR, at)
        if isinstance(t, T.DictType) and index.type == t.key:
            return self.emit1("aten::__getitem__", [base, index], t.value, at)
        self.src.fail(at, f"cannot index {t} with {index.type}")

    def _slice_args(self, s: ast.Slice, env: Env, at: ast.AST) -> List[Value]:
        """``start, end, step`` of a slice as torch passes them to ``aten::slice``
        (``None`` for an absent bound, ``1`` for an absent step)."""
        out = []
        for part, default in ((s.lower, None), (s.upper, None), (s.step, 1)):
            if part is None:
                out.append(self.const(default, at))
                continue
            v = self.emit_expr(part, env)
            if v.type != T.INT:
                self.src.fail(part, f"slice bounds must be int, not {v.type}")
            out.append(v)
        return out

    def _tuple_subscript(self, base: Value, node: ast.Subscript) -> Value:
        """Tuples are indexed by constants only (each element has its own type)."""
        elems = base.type.elems
        s = node.slice
        if isinstance(s, ast.Slice):
            bounds = [self._constant_int(p) for p in (s.lower, s.upper, s.step)]
            picked = list(range(len(elems)))[slice(*bounds)]
            values = [self.emit1("prim::TupleIndex", [base, self.const(i, node)], elems[i], node)
                      for i in picked]
            return self.tuple_value(values, node)
        i = self._constant_int(s)
        if i is None or not -len(elems) <= i < len(elems):
            self.src.fail(s, f"tuple index out of range: a tuple of {len(elems)} elements "
                          f"indexed with {i}")
        i %= len(elems)
        return self.emit1("prim::TupleIndex", [base, self.const(i, node)], elems[i], node)

    def _constant_int(self, node: Optional[ast.expr]) -> Optional[int]:
        if node is None:
            return None
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            inner = self._constant_int(node.operand)
            return None if inner is None else -inner
        if isinstance(node, ast.Constant) and type(node.value) is int:
            return node.value
        self.src.fail(node, "tuples can only be indexed or sliced by integer constants")

    # -- comprehensions ---------------------------------------------------------------------
    def expr_ListComp(self, node: ast.ListComp, env: Env, expected) -> Value:
        """``[e for x in it if c]`` is an empty ``prim::ListConstruct`` filled by
        ``aten::append`` in a Loop; its element type is known once ``e`` is emitted."""
        out = self.emit1("prim::ListConstruct", [], T.ListType(T.NONE), node)
        hint = expected.elem if isinstance(expected, T.ListType) else None
        state: List[bool] = []

        def body(sub: Env) -> None:
            v = self.emit_expr(node.elt, sub, hint)
            if not state:  # the first (and only) time the element is emitted
                out.type = T.ListType(hint or v.type)
                state.append(True)
            if unify(out.type.elem, v.type) != out.type.elem:
                self.src.fail(node.elt, f"list elements have different types: "
                              f"{out.type.elem} and {v.type}")
            self.emit1("aten::append", [out, v], out.type, node)

        self.emit_comprehension(node.generators, env, body, node)
        return out

    def expr_DictComp(self, node: ast.DictComp, env: Env, expected) -> Value:
        out = self.emit1("prim::DictConstruct", [], T.DictType(T.NONE, T.NONE), node)
        hint = expected if isinstance(expected, T.DictType) else None
        state: List[bool] = []

        def body(sub: Env) -> None:
            k = self.emit_expr(node.key, sub, hint.key if hint else None)
            v = self.emit_expr(node.value, sub, hint.value if hint else None)
            if not state:
                out.type = hint or T.DictType(k.type, v.type)
                state.append(True)
            if k.type != out.type.key or unify(out.type.value, v.type) != out.type.value:
                self.src.fail(node, f"dict comprehension items have types {k.type}: {v.type}, "
                              f"expected {out.type.key}: {out.type.value}")
            self.emit("aten::_set_item", [out, k, v], [], node)

        self.emit_comprehension(node.generators, env, body, node)
        return out

    def expr_GeneratorExp(self, node, env, expected):
        self.src.fail(node, "generator expressions are not supported; use a list "
                      "comprehension")


def _describe(node: ast.AST) -> str:
    names = {
        "Lambda": "a lambda", "NamedExpr": "the walrus operator (:=)", "Await": "await",
        "Yield": "yield", "YieldFrom": "yield from", "Starred": "a starred expression (*x)",
        "Set": "a set literal", "SetComp": "a set comprehension", "Slice": "a slice here",
    }
    return names.get(type(node).__name__, f"the expression '{type(node).__name__}'")
