"""Indexing: the one place ``x[i]`` and ``x[a:b]`` are read and ``x[i] = v`` is
written, for every indexable type.

=======================  ===================================================
Python                   graph
=======================  ===================================================
``xs[i]``, ``d[k]``      ``aten::__getitem__(xs, i)``
``xs[1:3]``, ``s[::-1]``  ``aten::slice(xs, 1, 3, 1)`` (None for a bound left out)
``t[0]`` (a tuple)       ``prim::TupleIndex(t, 0)``: constant indices only
``x[1:3, 2]`` (array)    ``aten::slice(x, 0, 1, 3, 1)`` then ``aten::select(_, 1, 2)``
``xs[i] = v``            ``aten::_set_item(xs, i, v)``
=======================  ===================================================
"""

from __future__ import annotations

import ast
from typing import List, Optional

from ..ir import Value
from ..ir import types as T
from .context import Emitter
from .environment import Env
from .operators import is_tensor

__all__ = ["SubscriptEmitter"]


class SubscriptEmitter(Emitter):
    """``x[i]`` (:class:`~.interfaces.Items`)."""

    # -- the interface ----------------------------------------------------------------------
    def load(self, node: ast.Subscript, env: Env) -> Value:
        exprs = self.ctx.exprs
        base = exprs.emit(node.value, env)
        t = base.type
        if isinstance(t, T.TupleType):
            return self._tuple(base, node)
        if is_tensor(t):
            return self._tensor(base, node, env)
        if isinstance(node.slice, ast.Slice):
            if not (isinstance(t, T.ListType) or t == T.STR):
                self.src.fail(node, f"slicing is not supported on {t}")
            start, end, step = self._slice_args(node.slice, env, node)
            return self.b.emit1("aten::slice", [base, start, end, step], t, node)
        index = exprs.emit(node.slice, env)
        return self.get(base, index, node)

    def get(self, base: Value, index: Value, at: ast.AST) -> Value:
        b = self.b
        t = base.type
        if isinstance(t, T.ListType) and index.type == T.INT:
            return b.emit1("aten::__getitem__", [base, index], t.elem, at)
        if t == T.STR and index.type == T.INT:
            return b.emit1("aten::__getitem__", [base, index], T.STR, at)
        if isinstance(t, T.DictType) and index.type == t.key:
            return b.emit1("aten::__getitem__", [base, index], t.value, at)
        self.src.fail(at, f"cannot index {t} with {index.type}")

    def set(self, container: Value, index: Value, value: Value, at: ast.AST) -> None:
        ops = self.ctx.ops
        t = container.type
        if isinstance(t, T.ListType):
            if index.type != T.INT:
                self.src.fail(at, f"list indices must be int, not {index.type}")
            value = ops.coerce(value, t.elem, at, f"cannot store {value.type} in {t}")
        elif isinstance(t, T.DictType):
            if index.type != t.key:
                self.src.fail(at, f"keys of {t} must be {t.key}, not {index.type}")
            value = ops.coerce(value, t.value, at, f"cannot store {value.type} in {t}")
        else:
            self.src.fail(at, f"item assignment is not supported on {t}")
        self.b.emit("aten::_set_item", [container, index, value], [], at)

    # -- slices and tuples ---------------------------------------------------------------------
    def _slice_args(self, s: ast.Slice, env: Env, at: ast.AST) -> List[Value]:
        """``start, end, step`` of a slice as torch passes them to ``aten::slice``
        (``None`` for an absent bound, ``1`` for an absent step)."""
        out = []
        for part, default in ((s.lower, None), (s.upper, None), (s.step, 1)):
            if part is None:
                out.append(self.b.const(default, at))
                continue
            v = self.ctx.exprs.emit(part, env)
            if v.type != T.INT:
                self.src.fail(part, f"slice bounds must be int, not {v.type}")
            out.append(v)
        return out

    def _tuple(self, base: Value, node: ast.Subscript) -> Value:
        """Tuples are indexed by constants only (each element has its own type)."""
        b = self.b
        elems = base.type.elems
        s = node.slice
        if isinstance(s, ast.Slice):
            bounds = [self._constant_int(p) for p in (s.lower, s.upper, s.step)]
            picked = list(range(len(elems)))[slice(*bounds)]
            values = [b.emit1("prim::TupleIndex", [base, b.const(i, node)], elems[i], node)
                      for i in picked]
            return b.tuple_value(values, node)
        i = self._constant_int(s)
        if i is None or not -len(elems) <= i < len(elems):
            self.src.fail(s, f"tuple index out of range: a tuple of {len(elems)} elements "
                          f"indexed with {i}")
        i %= len(elems)
        return b.emit1("prim::TupleIndex", [base, b.const(i, node)], elems[i], node)

    def _constant_int(self, node: Optional[ast.expr]) -> Optional[int]:
        if node is None:
            return None
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            inner = self._constant_int(node.operand)
            return None if inner is None else -inner
        if isinstance(node, ast.Constant) and type(node.value) is int:
            return node.value
        self.src.fail(node, "tuples can only be indexed or sliced by integer constants")

    # -- arrays ----------------------------------------------------------------------------------
    def _tensor(self, x: Value, node: ast.Subscript, env: Env) -> Value:
        """Basic indexing: ints select (dropping a dimension), slices slice, one
        dimension after another."""
        b = self.b
        parts = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        dim = 0
        for part in parts:
            d = b.const(dim, node)
            if isinstance(part, ast.Slice):
                start, end, step = self._slice_args(part, env, node)
                x = b.emit1("aten::slice", [x, d, start, end, step], T.TENSOR, node)
                dim += 1
                continue
            i = self.ctx.exprs.emit(part, env)
            if i.type != T.INT:
                self.src.fail(part, f"arrays can be indexed by ints and slices, not {i.type}")
            x = b.emit1("aten::select", [x, d, i], T.TENSOR, node)
        return x
