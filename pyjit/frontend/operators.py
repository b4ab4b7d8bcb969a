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
"""

from __future__ import annotations

import ast
from typing import Optional

from ..ir import types as T

__all__ = ["BINARY_KINDS", "COMPARE_KINDS", "INPLACE_KINDS", "binary_result", "compare_result",
           "is_number", "is_tensor", "OP_SYMBOLS"]

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
