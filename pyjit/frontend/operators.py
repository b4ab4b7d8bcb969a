"""Python operators to torch's node kinds, with the result type of each overload.

The kinds, argument orders and result types are the ones ``torch.jit.script``
emits (checked against torch 2.x), because pyjit's operator library picks its
implementation from the kind and the input types:

=================  ===========================  ===================================
Python             kind                         notes
=================  ===========================  ===================================
``a + b``          ``aten::add``                Tensor: ``add(a, b, alpha=1)``
``a - b``          ``aten::sub``                Tensor: ``sub(a, b, alpha=1)``
``a * b``          ``aten::mul``                ``list * int`` repeats
``a / b``          ``aten::div``                int / int is a float
``a // b``         ``aten::floordiv``
``a % b``          ``aten::remainder``
``a ** b``         ``aten::pow``                int ** int is a float (as in torch)
``a @ b``          ``aten::matmul``
``<< >> & | ^``    ``aten::__lshift__`` ...     ``& | ^`` also on bools
``== != < ...``    ``aten::eq`` ...
``x in c``         ``aten::__contains__(c, x)`` ``str in str``: ``find(...) != -1``
``-a``             ``aten::neg``
``not a``          ``aten::__not__``
=================  ===========================  ===================================

A number on the left of a Tensor is swapped where the operator commutes
(``2 * x`` is ``mul(x, 2)``) and spelled as torch spells it otherwise
(``1 - x`` is ``add(neg(x), 1, 1)``, ``2 / x`` is ``mul(reciprocal(x), 2)``).

:class:`OperatorEmitter` emits them on values already computed, with Python's
truthiness and torch's implicit conversions (a bool returned as a float): it
needs only the builder, never another emitter.
"""

from __future__ import annotations

import ast
from typing import Optional

from ..ir import Value
from ..ir import types as T
from ..ir.type_relation import implicit_conversion, is_subtype, unify
from .builder import GraphBuilder

__all__ = ["BINARY_KINDS", "COMPARE_KINDS", "INPLACE_KINDS", "binary_result", "compare_result",
           "is_number", "is_tensor", "OP_SYMBOLS", "OperatorEmitter"]

BINARY_KINDS = {
    ast.Add: "aten::add", ast.Sub: "aten::sub", ast.Mult: "aten::mul", ast.Div: "aten::div",
    ast.FloorDiv: "aten::floordiv", ast.Mod: "aten::remainder", ast.Pow: "aten::pow",
    ast.LShift: "aten::__lshift__", ast.RShift: "aten::__rshift__",
    ast.BitOr: "aten::__or__", ast.BitAnd: "aten::__and__", ast.BitXor: "aten::__xor__",
    ast.MatMult: "aten::matmul",
}

#: ``x op= y`` on a Tensor or a list is in place in Python and in torch.
INPLACE_KINDS = {
    ast.Add: "aten::add_", ast.Sub: "aten::sub_", ast.Mult: "aten::mul_", ast.Div: "aten::div_",
}

COMPARE_KINDS = {
    ast.Eq: "aten::eq", ast.NotEq: "aten::ne", ast.Lt: "aten::lt", ast.LtE: "aten::le",
    ast.Gt: "aten::gt", ast.GtE: "aten::ge",
}

OP_SYMBOLS = {
    ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "//", ast.Mod: "%",
    ast.Pow: "**", ast.LShift: "<<", ast.RShift: ">>", ast.BitOr: "|", ast.BitAnd: "&",
    ast.BitXor: "^", ast.MatMult: "@", ast.Eq: "==", ast.NotEq: "!=", ast.Lt: "<",
    ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=", ast.Is: "is", ast.IsNot: "is not",
    ast.In: "in", ast.NotIn: "not in",
}


def is_number(t: T.Type) -> bool:
    return t in (T.INT, T.FLOAT)


def is_tensor(t: T.Type) -> bool:
    return isinstance(t, T.TensorType)


def binary_result(op: type, a: T.Type, b: T.Type) -> Optional[T.Type]:
    """The result type of ``a <op> b`` on non-Tensor operands (bools already turned
    into ints by the caller, except for ``& | ^`` on two bools), or None when torch
    has no such overload."""
    if is_number(a) and is_number(b):
        both_int = a == T.INT and b == T.INT
        if op in (ast.Add, ast.Sub, ast.Mult, ast.FloorDiv, ast.Mod):
            return T.INT if both_int else T.FLOAT
        if op in (ast.Div, ast.Pow):
            return T.FLOAT
        if op in (ast.LShift, ast.RShift, ast.BitOr, ast.BitAnd, ast.BitXor):
            return T.INT if both_int else None
        return None
    if a == T.BOOL and b == T.BOOL and op in (ast.BitOr, ast.BitAnd, ast.BitXor):
        return T.BOOL
    if op is ast.Add:
        if a == T.STR and b == T.STR:
            return T.STR
        if isinstance(a, T.ListType) and a == b:
            return a
    if op is ast.Mult:
        if isinstance(a, T.ListType) and b == T.INT:
            return a
        if a == T.INT and isinstance(b, T.ListType):
            return b
    return None


def compare_result(op: type, a: T.Type, b: T.Type) -> Optional[T.Type]:
    """The result type of ``a <op> b`` for ``== != < <= > >=``, or None."""
    if is_tensor(a) or is_tensor(b):
        return T.TENSOR if (is_tensor(a) or is_number(a) or a == T.BOOL) and (
            is_tensor(b) or is_number(b) or b == T.BOOL) else None
    if is_number(a) and is_number(b):
        return T.BOOL
    if a == b and a in (T.STR, T.BOOL):
        return T.BOOL
    if op in (ast.Eq, ast.NotEq):
        if a == b and isinstance(a, (T.ListType, T.TupleType, T.DictType)):
            return T.BOOL
        if a == T.NONE or b == T.NONE:
            return T.BOOL
    if op in (ast.Lt, ast.LtE, ast.Gt, ast.GtE) and a == b and isinstance(a, T.ListType) \
            and a.elem in (T.INT, T.FLOAT, T.STR, T.BOOL):
        return T.BOOL
    return None


class OperatorEmitter:
    """Operators on computed values: ``binary``, ``augmented``, ``compare``, ``truth``
    and ``coerce``."""

    def __init__(self, b: GraphBuilder) -> None:
        self.b = b
        self.src = b.src

    def binary(self, op: type, lhs: Value, rhs: Value, at: ast.AST) -> Value:
        """``lhs <op> rhs`` with the kind and argument convention torch uses."""
        b = self.b
        kind = BINARY_KINDS[op]
        ta, tb = lhs.type, rhs.type
        if is_tensor(ta) or is_tensor(tb):
            return self._tensor_binary(op, kind, lhs, rhs, at)
        if op not in (ast.BitOr, ast.BitAnd, ast.BitXor) or not (ta == T.BOOL and tb == T.BOOL):
            # torch turns bool operands of arithmetic into ints first
            if ta == T.BOOL and (is_number(tb) or tb == T.BOOL):
                lhs, ta = b.emit1("aten::Int", [lhs], T.INT, at), T.INT
            if tb == T.BOOL and is_number(ta):
                rhs, tb = b.emit1("aten::Int", [rhs], T.INT, at), T.INT
        result = binary_result(op, ta, tb)
        if result is None:
            self.src.fail(at, f"unsupported operand types for {OP_SYMBOLS[op]}: {ta} and {tb}")
        return b.emit1(kind, [lhs, rhs], result, at)

    def _tensor_binary(self, op: type, kind: str, lhs: Value, rhs: Value, at: ast.AST) -> Value:
        b = self.b
        ta, tb = lhs.type, rhs.type
        for t in (ta, tb):
            if not (is_tensor(t) or is_number(t) or t == T.BOOL):
                self.src.fail(at, f"unsupported operand types for {OP_SYMBOLS[op]}: {ta} and {tb}")
        if op in (ast.LShift, ast.RShift):
            self.src.fail(at, f"{OP_SYMBOLS[op]} is not supported on Tensors")
        if op is ast.MatMult:
            if not (is_tensor(ta) and is_tensor(tb)):
                self.src.fail(at, "@ needs two Tensors")
            return b.emit1(kind, [lhs, rhs], T.TENSOR, at)
        if is_tensor(ta):
            if op in (ast.Add, ast.Sub):
                return b.emit1(kind, [lhs, rhs, b.const(1, at)], T.TENSOR, at)
            return b.emit1(kind, [lhs, rhs], T.TENSOR, at)
        # a number on the left of a Tensor
        if op in (ast.Add, ast.Mult, ast.BitAnd, ast.BitOr, ast.BitXor):
            extra = [b.const(1, at)] if op is ast.Add else []
            return b.emit1(kind, [rhs, lhs, *extra], T.TENSOR, at)
        if op is ast.Sub:
            neg = b.emit1("aten::neg", [rhs], T.TENSOR, at)
            return b.emit1("aten::add", [neg, lhs, b.const(1, at)], T.TENSOR, at)
        if op is ast.Div:
            rec = b.emit1("aten::reciprocal", [rhs], T.TENSOR, at)
            return b.emit1("aten::mul", [rec, lhs], T.TENSOR, at)
        if op is ast.Pow:
            return b.emit1("aten::pow", [lhs, rhs], T.TENSOR, at)
        self.src.fail(at, f"a number {OP_SYMBOLS[op]} a Tensor is not supported; "
                      "put the Tensor on the left")

    def augmented(self, op: type, old: Value, rhs: Value, at: ast.AST) -> Value:
        """``old <op>= rhs`` for a variable: in place on lists (``+=``) and Tensors,
        as Python and torch do it, otherwise ``old <op> rhs``."""
        b = self.b
        if isinstance(old.type, T.ListType) and op is ast.Add:
            if rhs.type != old.type:
                self.src.fail(at, f"cannot extend {old.type} with {rhs.type}")
            return b.emit1("aten::add_", [old, rhs], old.type, at)
        if is_tensor(old.type) and op in INPLACE_KINDS:
            extra = [b.const(1, at)] if op in (ast.Add, ast.Sub) else []
            if not (is_tensor(rhs.type) or rhs.type in (T.INT, T.FLOAT, T.BOOL)):
                self.src.fail(at, f"unsupported operand types for augmented assignment: "
                              f"{old.type} and {rhs.type}")
            return b.emit1(INPLACE_KINDS[op], [old, rhs, *extra], T.TENSOR, at)
        return self.binary(op, old, rhs, at)

    def compare(self, op: type, lhs: Value, rhs: Value, at: ast.AST) -> Value:
        """``lhs <op> rhs`` for a comparison operator (``is``, ``in`` included)."""
        b = self.b
        ta, tb = lhs.type, rhs.type
        if op in (ast.Is, ast.IsNot):
            kind = "aten::__is__" if op is ast.Is else "aten::__isnot__"
            return b.emit1(kind, [lhs, rhs], T.BOOL, at)
        if op in (ast.In, ast.NotIn):
            found = self._contains(rhs, lhs, at)
            return found if op is ast.In else b.emit1("aten::__not__", [found], T.BOOL, at)
        if is_tensor(tb) and not is_tensor(ta):  # 0 < x  is  x > 0
            op = {ast.Lt: ast.Gt, ast.Gt: ast.Lt, ast.LtE: ast.GtE, ast.GtE: ast.LtE}.get(op, op)
            lhs, rhs, ta, tb = rhs, lhs, tb, ta
        result = compare_result(op, ta, tb)
        if result is None:
            self.src.fail(at, f"cannot compare {ta} {OP_SYMBOLS[op]} {tb}")
        return b.emit1(COMPARE_KINDS[op], [lhs, rhs], result, at)

    def _contains(self, container: Value, item: Value, at: ast.AST) -> Value:
        b = self.b
        t = container.type
        if t == T.STR and item.type == T.STR:
            # torch's str.__contains__ is  s.find(sub, 0, len(s)) != -1
            n = b.emit1("aten::len", [container], T.INT, at)
            pos = b.emit1("aten::find", [container, item, b.const(0, at), n], T.INT, at)
            return b.emit1("aten::ne", [pos, b.const(-1, at)], T.BOOL, at)
        if isinstance(t, T.ListType) and unify(t.elem, item.type) == t.elem:
            return b.emit1("aten::__contains__", [container, item], T.BOOL, at)
        if isinstance(t, T.DictType) and item.type == t.key:
            return b.emit1("aten::__contains__", [container, item], T.BOOL, at)
        self.src.fail(at, f"'in' is not supported for {item.type} in {t}")

    def truth(self, v: Value, at: ast.AST) -> Value:
        """Python truthiness as torch computes it: ``aten::Bool`` for numbers and
        Tensors, ``len(x) > 0`` for strings, lists and dicts."""
        b = self.b
        t = v.type
        if t == T.BOOL:
            return v
        if is_number(t) or is_tensor(t):
            return b.emit1("aten::Bool", [v], T.BOOL, at)
        if t == T.STR or isinstance(t, (T.ListType, T.DictType)):
            n = b.emit1("aten::len", [v], T.INT, at)
            return b.emit1("aten::gt", [n, b.const(0, at)], T.BOOL, at)
        self.src.fail(at, f"a value of type {t} cannot be used as a condition"
                      + ("; compare it with 'is None' / 'is not None'"
                         if isinstance(t, T.OptionalType) or t == T.NONE else ""))

    def coerce(self, v: Value, want: T.Type, at: ast.AST, message: str,
               conversions: bool = False) -> Value:
        """``v`` as a ``want``: a subtype as it is; with ``conversions`` (a returned
        value, as torch converts it), through torch's implicit conversion
        (:func:`~pyjit.ir.type_relation.implicit_conversion`: ``aten::Float`` of a
        bool for a ``float``; never of an int, which torch refuses as it refuses
        ``x: float = 1``); anything else is ``message`` at ``at``."""
        if is_subtype(v.type, want):
            return v
        conversion = implicit_conversion(v.type, want) if conversions else None
        if conversion is not None:
            return self.b.emit1(conversion.kind, [v], conversion.type, at)
        self.src.fail(at, message)
