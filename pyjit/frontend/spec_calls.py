"""Calls described by a :class:`~.signatures.Spec`: the methods of lists, dicts and
strings, and the ``math`` functions.

The arguments are bound to the spec's parameters (:func:`.arguments.bind`),
checked against the receiver's types (an element appended to an ``int[]`` must
be an int), and the spec's node is emitted with the defaults torch fills in::

    s.split()          %r : str[] = aten::split(%s, %none, %minus1)
    d.get(k)           %r : int? = aten::get(%d, %k)
    xs.append(x)       %1 : int[] = aten::append(%xs, %x)    (its value is None)
"""

from __future__ import annotations

import ast
from typing import List, Optional

from ..ir import Value
from ..ir import types as T
from ..ir.type_relation import is_subtype
from .arguments import bind
from .context import Emitter
from .environment import Env
from .operators import is_number
from .signatures import (DICT_METHODS, LIST_METHODS, MATH, MATH_INT_ONLY, STR_METHODS, Param,
                         Spec)

__all__ = ["SpecCalls"]


class SpecCalls(Emitter):
    """List, dict and str methods (:meth:`method`) and math functions (:meth:`math`)."""

    def method(self, receiver: Value, name: str, node: ast.Call, env: Env) -> Value:
        """``receiver.<name>(...)`` for a list, dict or str ``receiver``."""
        b = self.b
        t = receiver.type
        table = (LIST_METHODS if isinstance(t, T.ListType) else
                 DICT_METHODS if isinstance(t, T.DictType) else
                 STR_METHODS if t == T.STR else None)
        if t == T.STR and name == "format":
            args = [self.ctx.exprs.emit(a, env) for a in node.args]
            if node.keywords:
                self.src.fail(node, "str.format() with keyword arguments is not supported")
            return b.emit1("aten::format", [receiver, *args], T.STR, node)
        spec = table.get(name) if table is not None else None
        if spec is None:
            self.src.fail(node.func, f"{t} has no method '{name}' that pyjit.script supports")
        what = f"{t}.{name}()"
        hints = dict(zip((p.name for p in spec.params), _method_hints(t, name)))
        args = self._bind(spec.params, node, env, what, receiver, hints)
        self._check_method_args(t, name, spec, args, node, what)
        if isinstance(t, T.DictType) and name in ("get", "pop") and args[2] is None:
            if name == "get":
                return b.emit1("aten::get", args[:2], T.OptionalType(t.value), node)
            return b.emit1("aten::pop", args[:2], t.value, node)
        return self._emit(spec, args, node, what)

    def math(self, name: str, node: ast.Call, env: Env) -> Value:
        """``math.<name>(...)``."""
        spec = MATH.get(name)
        if spec is None:
            self.src.fail(node.func, f"math.{name} is not supported")
        what = f"math.{name}()"
        args = self._bind(spec.params, node, env, what)
        for a in args:
            ok = a.type == T.INT if name in MATH_INT_ONLY else is_number(a.type)
            if not ok:
                self.src.fail(node, f"{what} takes "
                              f"{'int' if name in MATH_INT_ONLY else 'int or float'} "
                              f"arguments, not {a.type}")
        return self._emit(spec, args, node, what)

    # -- binding and emitting ------------------------------------------------------------------
    def _bind(self, params: List[Param], node: ast.Call, env: Env, what: str,
              receiver: Optional[Value] = None,
              hints: Optional[dict] = None) -> List[Optional[Value]]:
        """The arguments in parameter order (defaults filled in; None for an omitted
        optional parameter), each evaluated with its parameter's type hint."""
        hints = hints or {}
        exprs = self.ctx.exprs

        def read(p: Param, a: ast.expr) -> Value:
            return exprs.emit(a, env, hints.get(p.name))

        return bind(self.b, params, node, what, read, receiver).in_order()

    def _emit(self, spec: Spec, args: List[Optional[Value]], node: ast.AST, what: str) -> Value:
        """Emit ``spec`` with ``args`` (None entries are dropped: optional parameters
        without a default, such as ``d.get(k)``'s default)."""
        b = self.b
        inputs = [a for a in args if a is not None]
        try:
            result = spec.result([a.type for a in inputs])
        except TypeError as exc:
            self.src.fail(node, f"{what}: {exc}")
        if result is None:
            b.emit(spec.kind, inputs, [], node)
            return b.const(None, node)
        out = b.emit1(spec.kind, inputs, result, node)
        return b.const(None, node) if spec.returns_none else out

    def _check_method_args(self, t: T.Type, name: str, spec: Spec, args, node, what) -> None:
        """Argument types of container and string methods: elements must fit the
        container, indices are ints, string arguments strings."""
        def need(i: int, want: T.Type, label: str) -> None:
            a = args[i]
            if a is not None and not is_subtype(a.type, want):
                self.src.fail(node, f"{what}: {label} must be {want}, not {a.type}")

        if isinstance(t, T.ListType):
            if name in ("append", "remove", "index", "count"):
                need(1, t.elem, "the element")
            elif name == "insert":
                need(1, T.INT, "the index")
                need(2, t.elem, "the element")
            elif name == "extend":
                need(1, t, "the argument")
            elif name == "pop":
                need(1, T.INT, "the index")
            elif name == "sort":
                need(1, T.BOOL, "reverse")
                if t.elem not in (T.INT, T.FLOAT, T.STR, T.BOOL):
                    self.src.fail(node, f"{what}: only lists of int, float, str or bool sort")
        elif isinstance(t, T.DictType):
            if name in ("get", "pop", "setdefault"):
                need(1, t.key, "the key")
                if len(args) > 2:
                    need(2, t.value, "the default")
            elif name == "update":
                need(1, t, "the argument")
        elif t == T.STR:
            for i, p in enumerate(spec.params[1:], start=1):
                want = T.INT if p.name in ("start", "end", "max", "width") else (
                    T.ListType(T.STR) if p.name == "values" else
                    T.OptionalType(T.STR) if p.name == "separator" else T.STR)
                need(i, want, f"'{p.name}'")


def _method_hints(t: T.Type, name: str) -> List[Optional[T.Type]]:
    """The types a method's arguments should have, by position (receiver first):
    they give an empty literal argument its type (``xs.extend([])``)."""
    if isinstance(t, T.ListType):
        if name in ("append", "remove", "index", "count"):
            return [None, t.elem]
        if name == "insert":
            return [None, T.INT, t.elem]
        if name == "extend":
            return [None, t]
    if isinstance(t, T.DictType) and name in ("get", "pop", "setdefault"):
        return [None, t.key, t.value]
    if isinstance(t, T.DictType) and name == "update":
        return [None, t]
    if t == T.STR and name == "join":
        return [None, T.ListType(T.STR)]
    return []
