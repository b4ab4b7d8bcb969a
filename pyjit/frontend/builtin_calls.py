"""Python's builtin functions, as torch's scripting spells them.

=====================  ==============================================
Python                 graph
=====================  ==============================================
``len(x)``             ``aten::len``
``min(a, b)``          ``prim::min`` (pairwise, or of one list)
``abs(x)``             ``prim::abs``; ``aten::abs`` on a Tensor
``int(x)`` ...         ``aten::Int``, ``aten::Float``, ``aten::Bool``
``str(x)``             ``aten::str``
``sum(xs)``            ``aten::sum`` of an int or float list
``print(...)``         ``prim::Print``
``isinstance(x, T)``   a constant, or ``prim::isinstance`` (:mod:`.intrinsics`)
=====================  ==============================================

A builtin is recognised by identity (``ctx.calls.resolve`` asks
:meth:`BuiltinCalls.handles`), so a user function named ``len`` is called, not
replaced.  ``range``, ``enumerate`` and ``zip`` are not here: only a loop can
use them (:mod:`.loops`).
"""

from __future__ import annotations

import ast
import builtins
from typing import Any, Callable, Dict, List

from ..ir import Value
from ..ir import types as T
from .context import Compilation, Emitter
from .environment import Env
from .intrinsics import BARE_CONTAINERS, isinstance_value
from .operators import is_number, is_tensor

__all__ = ["BuiltinCalls"]

Handler = Callable[[ast.Call, Env], Value]


class BuiltinCalls(Emitter):
    """The builtins scripted code may call: :meth:`handles` and :meth:`call`."""

    def __init__(self, ctx: Compilation) -> None:
        super().__init__(ctx)
        # Keyed by identity: a builtin lives as long as the interpreter, so no
        # other object can have its id (and globals need not be hashable).
        self._handlers: Dict[int, Handler] = {id(fn): handler for fn, handler in [
            (builtins.len, self._len), (builtins.abs, self._abs), (builtins.int, self._int),
            (builtins.min, lambda n, e: self._min_max(n, e, "min")),
            (builtins.max, lambda n, e: self._min_max(n, e, "max")),
            (builtins.float, self._float), (builtins.bool, self._bool), (builtins.str, self._str),
            (builtins.sum, self._sum), (builtins.sorted, self._sorted), (builtins.list, self._list),
            (builtins.any, lambda n, e: self._any_all(n, e, "any")),
            (builtins.all, lambda n, e: self._any_all(n, e, "all")),
            (builtins.ord, self._ord), (builtins.chr, self._chr), (builtins.print, self._print),
            (builtins.isinstance, self._isinstance),
        ]}

    def handles(self, obj: Any) -> bool:
        """Whether ``obj`` is one of the builtins emitted here."""
        return id(obj) in self._handlers

    def call(self, obj: Any, node: ast.Call, env: Env) -> Value:
        """The call ``node`` of the builtin ``obj``."""
        return self._handlers[id(obj)](node, env)

    # -- the builtins -----------------------------------------------------------------------
    def _one_arg(self, node: ast.Call, env: Env, name: str) -> Value:
        if len(node.args) != 1 or node.keywords:
            self.src.fail(node, f"{name}() takes exactly one positional argument here")
        return self.ctx.exprs.emit(node.args[0], env)

    def _len(self, node: ast.Call, env: Env) -> Value:
        v = self._one_arg(node, env, "len")
        if not (v.type == T.STR or is_tensor(v.type) or
                isinstance(v.type, (T.ListType, T.DictType))):
            self.src.fail(node, f"len() of {v.type} is not supported")
        return self.b.emit1("aten::len", [v], T.INT, node)

    def _min_max(self, node: ast.Call, env: Env, which: str) -> Value:
        if node.keywords:
            self.src.fail(node, f"{which}() with keyword arguments is not supported")
        args = [self.ctx.exprs.emit(a, env) for a in node.args]
        kind = "prim::" + which
        if len(args) == 1:
            t = args[0].type
            if isinstance(t, T.ListType) and t.elem in (T.INT, T.FLOAT, T.BOOL):
                return self.b.emit1(kind, args, t.elem, node)
            self.src.fail(node, f"{which}() of one {t} argument is not supported "
                          "(use a list of int or float)")
        if len(args) < 2:
            self.src.fail(node, f"{which}() needs at least one argument")
        acc = args[0]
        for v in args[1:]:
            if not (is_number(acc.type) and is_number(v.type)):
                self.src.fail(node, f"{which}() of {acc.type} and {v.type} is not supported")
            t = T.INT if acc.type == v.type == T.INT else T.FLOAT
            acc = self.b.emit1(kind, [acc, v], t, node)
        return acc

    def _abs(self, node: ast.Call, env: Env) -> Value:
        v = self._one_arg(node, env, "abs")
        if is_number(v.type):
            return self.b.emit1("prim::abs", [v], v.type, node)
        if is_tensor(v.type):
            return self.b.emit1("aten::abs", [v], T.TENSOR, node)
        self.src.fail(node, f"abs() of {v.type} is not supported")

    def _convert(self, node: ast.Call, env: Env, name: str, kind: str, target: T.Type,
                 accepts) -> Value:
        if not node.args and not node.keywords:
            return self.b.const({"int": 0, "float": 0.0, "bool": False, "str": ""}[name], node)
        v = self._one_arg(node, env, name)
        if v.type == target:
            return v
        if not (accepts(v.type) or is_tensor(v.type)):
            self.src.fail(node, f"{name}() of {v.type} is not supported")
        return self.b.emit1(kind, [v], target, node)

    def _int(self, node: ast.Call, env: Env) -> Value:
        return self._convert(node, env, "int", "aten::Int", T.INT,
                             lambda t: t in (T.FLOAT, T.BOOL, T.STR))

    def _float(self, node: ast.Call, env: Env) -> Value:
        return self._convert(node, env, "float", "aten::Float", T.FLOAT,
                             lambda t: t in (T.INT, T.BOOL, T.STR))

    def _bool(self, node: ast.Call, env: Env) -> Value:
        if len(node.args) == 1 and not node.keywords:
            v = self.ctx.exprs.emit(node.args[0], env)
            return self.ctx.ops.truth(v, node)
        return self._convert(node, env, "bool", "aten::Bool", T.BOOL, lambda t: False)

    def _str(self, node: ast.Call, env: Env) -> Value:
        if not node.args:
            return self.b.const("", node)
        v = self._one_arg(node, env, "str")
        return v if v.type == T.STR else self.b.emit1("aten::str", [v], T.STR, node)

    def _sum(self, node: ast.Call, env: Env) -> Value:
        v = self._one_arg(node, env, "sum")
        if isinstance(v.type, T.ListType) and v.type.elem in (T.INT, T.FLOAT):
            return self.b.emit1("aten::sum", [v], v.type.elem, node)
        self.src.fail(node, f"sum() of {v.type} is not supported (a list of int or float is)")

    def _sorted(self, node: ast.Call, env: Env) -> Value:
        v = self._one_arg(node, env, "sorted")
        if isinstance(v.type, T.ListType) and v.type.elem in (T.INT, T.FLOAT, T.STR, T.BOOL):
            return self.b.emit1("aten::sorted", [v], v.type, node)
        self.src.fail(node, f"sorted() of {v.type} is not supported")

    def _list(self, node: ast.Call, env: Env) -> Value:
        v = self._one_arg(node, env, "list")
        if isinstance(v.type, T.ListType):
            return self.b.emit1("aten::list", [v], v.type, node)
        if v.type == T.STR:
            return self.b.emit1("aten::list", [v], T.ListType(T.STR), node)
        self.src.fail(node, f"list() of {v.type} is not supported")

    def _any_all(self, node: ast.Call, env: Env, name: str) -> Value:
        v = self._one_arg(node, env, name)
        if isinstance(v.type, T.ListType) and v.type.elem in (T.BOOL, T.INT, T.FLOAT, T.STR):
            return self.b.emit1("aten::" + name, [v], T.BOOL, node)
        self.src.fail(node, f"{name}() of {v.type} is not supported")

    def _ord(self, node: ast.Call, env: Env) -> Value:
        v = self._one_arg(node, env, "ord")
        if v.type != T.STR:
            self.src.fail(node, f"ord() of {v.type} is not supported")
        return self.b.emit1("aten::ord", [v], T.INT, node)

    def _chr(self, node: ast.Call, env: Env) -> Value:
        v = self._one_arg(node, env, "chr")
        if v.type != T.INT:
            self.src.fail(node, f"chr() of {v.type} is not supported")
        return self.b.emit1("aten::chr", [v], T.STR, node)

    def _print(self, node: ast.Call, env: Env) -> Value:
        if node.keywords:
            self.src.fail(node, "print() with keyword arguments is not supported")
        args = [self.ctx.exprs.emit(a, env) for a in node.args]
        self.b.emit("prim::Print", args, [], node)
        return self.b.const(None, node)

    def _isinstance(self, node: ast.Call, env: Env) -> Value:
        """``isinstance(x, T)``, ``isinstance(x, (A, B))``: constant where the
        type of ``x`` decides (:mod:`.intrinsics`), else tested when it runs;
        ``list``, ``tuple`` and ``dict`` stand for any list, tuple, dict."""
        wants = self.ctx.isinstance_types(node)
        return isinstance_value(self.b, self.ctx.exprs.emit(node.args[0], env), wants, node)
