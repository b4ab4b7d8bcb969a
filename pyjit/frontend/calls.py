"""Calls: builtins, ``math``, methods of lists, dicts and strings, and other scripted
functions (inlined).

Methods and ``math`` functions are looked up in the tables of :mod:`.signatures`
(the node kind torch emits, the parameters with the defaults torch fills in,
the result type).  Names resolve the way Python resolves them (locals, then the
function's closure and globals, then builtins), and builtins are recognised by
identity, so a user function named ``len`` is called, not replaced.
"""

from __future__ import annotations

import ast
import builtins
import inspect
import math
import types as _pytypes
from typing import Any, List, Optional, Sequence

import numpy as np

from ..ir import Value
from ..ir import types as T
from .environment import Env
from .operators import is_number, is_tensor
from .signatures import (DICT_METHODS, LIST_METHODS, MATH, MATH_CONSTANTS, MATH_INT_ONLY,
                         REQUIRED, STR_METHODS, Spec)
from ..ir.type_relation import is_subtype
from .typing_rules import type_of_constant

__all__ = ["CallEmitter"]

class CallEmitter:
    """Mixin of the function compiler: name resolution and calls."""

    # -- globals ------------------------------------------------------------------------
    def resolve_global(self, name: str, node: ast.AST) -> Any:
        """The Python object ``name`` denotes outside the function (closure, then
        globals, then builtins)."""
        for scope in (self.closure, self.fn_globals):
            if name in scope:
                return scope[name]
        if hasattr(builtins, name):
            return getattr(builtins, name)
        self.src.fail(node, f"undefined name '{name}'")

    def global_value(self, name: str, node: ast.AST) -> Value:
        """A global used as a value: constants (and tuples of them) only."""
        obj = self.resolve_global(name, node)
        value = self.constant_from_python(obj, node)
        if value is None:
            what = "a module" if isinstance(obj, _pytypes.ModuleType) else \
                f"a {type(obj).__name__}"
            self.src.fail(node, f"'{name}' is {what}, which cannot be used as a value in a "
                          "scripted function (only int, float, bool, str, None and tuples "
                          "of them can)")
        return value

    def constant_from_python(self, obj: Any, node: ast.AST) -> Optional[Value]:
        if type_of_constant(obj) is not None:
            return self.const(obj, node)
        if isinstance(obj, tuple):
            elems = [self.constant_from_python(o, node) for o in obj]
            if all(e is not None for e in elems):
                return self.tuple_value(elems, node)
        return None

    def _module_of(self, node: ast.expr, env: Env) -> Optional[Any]:
        """The module ``node`` names (``math``, ``np``...), or None if it names a value."""
        if isinstance(node, ast.Name) and node.id not in env.vars and node.id not in env.undefined:
            obj = self.resolve_global(node.id, node)
            if isinstance(obj, _pytypes.ModuleType):
                return obj
        if isinstance(node, ast.Attribute):
            parent = self._module_of(node.value, env)
            if parent is not None:
                obj = getattr(parent, node.attr, None)
                if isinstance(obj, _pytypes.ModuleType):
                    return obj
        return None

    # -- attributes ----------------------------------------------------------------------
    def expr_Attribute(self, node: ast.Attribute, env: Env, expected) -> Value:
        module = self._module_of(node.value, env)
        if module is math:
            if node.attr in MATH_CONSTANTS:
                return self.const(MATH_CONSTANTS[node.attr], node)
            self.src.fail(node, f"math.{node.attr} is not supported as a value")
        if module is not None:
            obj = getattr(module, node.attr, None)
            value = self.constant_from_python(obj, node) if obj is not None else None
            if value is None:
                self.src.fail(node, f"{module.__name__}.{node.attr} cannot be used as a value "
                              "in a scripted function")
            return value
        base = self.emit_expr(node.value, env)
        if is_tensor(base.type):
            return self.tensor_attribute(base, node)
        self.src.fail(node, f"attribute '{node.attr}' of {base.type} is not supported")

    # -- calls ------------------------------------------------------------------------------
    def expr_Call(self, node: ast.Call, env: Env, expected) -> Value:
        for a in node.args:
            if isinstance(a, ast.Starred):
                self.src.fail(a, "*args in calls are not supported")
        for k in node.keywords:
            if k.arg is None:
                self.src.fail(k.value, "**kwargs in calls are not supported")
        func = node.func
        if isinstance(func, ast.Attribute):
            module = self._module_of(func.value, env)
            if module is math:
                return self._call_math(func.attr, node, env)
            if module is np:
                return self.call_numpy(func.attr, node, env)
            if module is not None:
                return self._call_python(getattr(module, func.attr, None),
                                         f"{module.__name__}.{func.attr}", node, env)
            receiver = self.emit_expr(func.value, env)
            return self._call_method(receiver, func.attr, node, env)
        if isinstance(func, ast.Name):
            if func.id in env.vars:
                self.src.fail(func, f"'{func.id}' is a {env.vars[func.id].value.type} "
                              "variable, not a function")
            obj = self.resolve_global(func.id, func)
            return self._call_python(obj, func.id, node, env)
        self.src.fail(func, "only calls of named functions and methods are supported")

    def _call_python(self, obj: Any, name: str, node: ast.Call, env: Env) -> Value:
        handler = _BUILTIN_HANDLERS.get(id(obj))
        if handler is not None and _BUILTIN_OBJECTS[id(obj)] is obj:
            return getattr(self, handler)(node, env)
        from .script_function import ScriptFunction
        if isinstance(obj, ScriptFunction):
            return self.inline_call(obj, name, node, env)
        if isinstance(obj, _pytypes.FunctionType):
            return self.inline_call(self.script_callee(obj, node), name, node, env)
        if obj is range:
            self.src.fail(node, "range() is only supported as the iterable of a for loop "
                          "or a comprehension")
        if obj in (enumerate, zip):
            self.src.fail(node, f"{name}() is only supported as the iterable of a for loop")
        if isinstance(obj, type) and issubclass(obj, BaseException):
            self.src.fail(node, "exceptions can only be created in a raise statement")
        self.src.fail(node, f"calling '{name}' ({type(obj).__name__}) is not supported in a "
                      "scripted function")

    # -- generic spec-driven emission ------------------------------------------------------------
    def bind_args(self, spec_params, node: ast.Call, env: Env, what: str,
                  first: Optional[Value] = None, hints: Sequence[Optional[T.Type]] = ()
                  ) -> List[Optional[Value]]:
        """Evaluate the call's arguments in source order and match them to
        ``spec_params``; an omitted parameter with a default becomes None here
        (filled in by the caller).  ``first`` is the receiver of a method."""
        params = list(spec_params)
        slots: List[Any] = [REQUIRED] * len(params)
        offset = 0
        if first is not None:
            slots[0] = first
            offset = 1
        positional = node.args
        if len(positional) > len(params) - offset:
            self.src.fail(node, f"{what} takes at most {len(params) - offset} arguments, "
                          f"{len(positional)} given")
        for i, a in enumerate(positional):
            hint = hints[offset + i] if offset + i < len(hints) else None
            slots[offset + i] = self.emit_expr(a, env, hint)
        names = [n for n, _ in params]
        for k in node.keywords:
            if k.arg not in names[offset:]:
                self.src.fail(k, f"{what} has no parameter '{k.arg}'")
            i = names.index(k.arg)
            if slots[i] is not REQUIRED:
                self.src.fail(k, f"{what} got two values for '{k.arg}'")
            hint = hints[i] if i < len(hints) else None
            slots[i] = self.emit_expr(k.value, env, hint)
        out: List[Optional[Value]] = []
        for (pname, default), slot in zip(params, slots):
            if slot is REQUIRED:
                if default is REQUIRED:
                    out.append(None)
                    continue
                slot = self.const(default, node)
            out.append(slot)
        return out

    def emit_spec(self, spec: Spec, args: List[Optional[Value]], node: ast.AST,
                  what: str) -> Value:
        """Emit ``spec`` with ``args`` (None entries are dropped: optional parameters
        without a default, such as ``d.get(k)``'s default)."""
        inputs = [a for a in args if a is not None]
        types = [a.type for a in inputs]
        self._require(spec.params, args, node, what)
        try:
            result = spec.result(types)
        except TypeError as exc:
            self.src.fail(node, f"{what}: {exc}")
        if result is None:
            self.emit(spec.kind, inputs, [], node)
            return self.const(None, node)
        out = self.emit1(spec.kind, inputs, result, node)
        return self.const(None, node) if spec.returns_none else out

    def _require(self, params, args, node: ast.AST, what: str) -> None:
        """Every parameter without a default got an argument (``default`` of
        ``dict.get``/``dict.pop`` is optional without one)."""
        for (pname, default), a in zip(params, args):
            if a is None and default is REQUIRED and pname != "default":
                self.src.fail(node, f"{what} is missing its argument '{pname}'")

    # -- methods -------------------------------------------------------------------------------
    def _call_method(self, receiver: Value, name: str, node: ast.Call, env: Env) -> Value:
        t = receiver.type
        if is_tensor(t):
            return self.call_tensor_method(receiver, name, node, env)
        table = (LIST_METHODS if isinstance(t, T.ListType) else
                 DICT_METHODS if isinstance(t, T.DictType) else
                 STR_METHODS if t == T.STR else None)
        if t == T.STR and name == "format":
            args = [self.emit_expr(a, env) for a in node.args]
            if node.keywords:
                self.src.fail(node, "str.format() with keyword arguments is not supported")
            return self.emit1("aten::format", [receiver, *args], T.STR, node)
        spec = table.get(name) if table is not None else None
        if spec is None:
            self.src.fail(node.func, f"{t} has no method '{name}' that pyjit.script supports")
        what = f"{t}.{name}()"
        hints = self._method_hints(t, name)
        args = self.bind_args(spec.params, node, env, what, first=receiver, hints=hints)
        self._require(spec.params, args, node, what)
        self._check_method_args(t, name, spec, args, node, what)
        if isinstance(t, T.DictType) and name in ("get", "pop") and args[2] is None:
            if name == "get":
                return self.emit1("aten::get", args[:2], T.OptionalType(t.value), node)
            return self.emit1("aten::pop", args[:2], t.value, node)
        return self.emit_spec(spec, args, node, what)

    def _method_hints(self, t: T.Type, name: str) -> List[Optional[T.Type]]:
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
            for i, (pname, _) in enumerate(spec.params[1:], start=1):
                want = T.INT if pname in ("start", "end", "max", "width") else (
                    T.ListType(T.STR) if pname == "values" else
                    T.OptionalType(T.STR) if pname == "separator" else T.STR)
                need(i, want, f"'{pname}'")

    # -- math --------------------------------------------------------------------------------
    def _call_math(self, name: str, node: ast.Call, env: Env) -> Value:
        spec = MATH.get(name)
        if spec is None:
            self.src.fail(node.func, f"math.{name} is not supported")
        args = self.bind_args(spec.params, node, env, f"math.{name}()")
        for a in args:
            if a is None:
                self.src.fail(node, f"math.{name}() is missing an argument")
            ok = a.type == T.INT if name in MATH_INT_ONLY else is_number(a.type)
            if not ok:
                self.src.fail(node, f"math.{name}() takes "
                              f"{'int' if name in MATH_INT_ONLY else 'int or float'} "
                              f"arguments, not {a.type}")
        return self.emit_spec(spec, args, node, f"math.{name}()")

    # -- builtins -----------------------------------------------------------------------------
    def _one_arg(self, node: ast.Call, env: Env, name: str) -> Value:
        if len(node.args) != 1 or node.keywords:
            self.src.fail(node, f"{name}() takes exactly one positional argument here")
        return self.emit_expr(node.args[0], env)

    def builtin_len(self, node: ast.Call, env: Env) -> Value:
        v = self._one_arg(node, env, "len")
        if not (v.type == T.STR or is_tensor(v.type) or
                isinstance(v.type, (T.ListType, T.DictType))):
            self.src.fail(node, f"len() of {v.type} is not supported")
        return self.emit1("aten::len", [v], T.INT, node)

    def _min_max(self, node: ast.Call, env: Env, which: str) -> Value:
        if node.keywords:
            self.src.fail(node, f"{which}() with keyword arguments is not supported")
        args = [self.emit_expr(a, env) for a in node.args]
        kind = "prim::" + which
        if len(args) == 1:
            t = args[0].type
            if isinstance(t, T.ListType) and t.elem in (T.INT, T.FLOAT, T.BOOL):
                return self.emit1(kind, args, t.elem, node)
            self.src.fail(node, f"{which}() of one {t} argument is not supported "
                          "(use a list of int or float)")
        if len(args) < 2:
            self.src.fail(node, f"{which}() needs at least one argument")
        acc = args[0]
        for v in args[1:]:
            if not (is_number(acc.type) and is_number(v.type)):
                self.src.fail(node, f"{which}() of {acc.type} and {v.type} is not supported")
            t = T.INT if acc.type == v.type == T.INT else T.FLOAT
            acc = self.emit1(kind, [acc, v], t, node)
        return acc

    def builtin_min(self, node, env):
        return self._min_max(node, env, "min")

    def builtin_max(self, node, env):
        return self._min_max(node, env, "max")

    def builtin_abs(self, node: ast.Call, env: Env) -> Value:
        v = self._one_arg(node, env, "abs")
        if is_number(v.type):
            return self.emit1("prim::abs", [v], v.type, node)
        if is_tensor(v.type):
            return self.emit1("aten::abs", [v], T.TENSOR, node)
        self.src.fail(node, f"abs() of {v.type} is not supported")

    def _convert(self, node: ast.Call, env: Env, name: str, kind: str, target: T.Type,
                 accepts) -> Value:
        if not node.args and not node.keywords:
            return self.const({"int": 0, "float": 0.0, "bool": False, "str": ""}[name], node)
        v = self._one_arg(node, env, name)
        if v.type == target:
            return v
        if not (accepts(v.type) or is_tensor(v.type)):
            self.src.fail(node, f"{name}() of {v.type} is not supported")
        return self.emit1(kind, [v], target, node)

    def builtin_int(self, node, env):
        return self._convert(node, env, "int", "aten::Int", T.INT,
                             lambda t: t in (T.FLOAT, T.BOOL, T.STR))

    def builtin_float(self, node, env):
        return self._convert(node, env, "float", "aten::Float", T.FLOAT,
                             lambda t: t in (T.INT, T.BOOL, T.STR))

    def builtin_bool(self, node, env):
        if len(node.args) == 1 and not node.keywords:
            v = self.emit_expr(node.args[0], env)
            return self.to_bool(v, node)
        return self._convert(node, env, "bool", "aten::Bool", T.BOOL, lambda t: False)

    def builtin_str(self, node, env):
        if not node.args:
            return self.const("", node)
        v = self._one_arg(node, env, "str")
        return v if v.type == T.STR else self.emit1("aten::str", [v], T.STR, node)

    def builtin_sum(self, node: ast.Call, env: Env) -> Value:
        v = self._one_arg(node, env, "sum")
        if isinstance(v.type, T.ListType) and v.type.elem in (T.INT, T.FLOAT):
            return self.emit1("aten::sum", [v], v.type.elem, node)
        self.src.fail(node, f"sum() of {v.type} is not supported (a list of int or float is)")

    def builtin_sorted(self, node: ast.Call, env: Env) -> Value:
        v = self._one_arg(node, env, "sorted")
        if isinstance(v.type, T.ListType) and v.type.elem in (T.INT, T.FLOAT, T.STR, T.BOOL):
            return self.emit1("aten::sorted", [v], v.type, node)
        self.src.fail(node, f"sorted() of {v.type} is not supported")

    def builtin_list(self, node: ast.Call, env: Env) -> Value:
        v = self._one_arg(node, env, "list")
        if isinstance(v.type, T.ListType):
            return self.emit1("aten::list", [v], v.type, node)
        if v.type == T.STR:
            return self.emit1("aten::list", [v], T.ListType(T.STR), node)
        self.src.fail(node, f"list() of {v.type} is not supported")

    def builtin_any(self, node, env):
        return self._any_all(node, env, "any")

    def builtin_all(self, node, env):
        return self._any_all(node, env, "all")

    def _any_all(self, node: ast.Call, env: Env, name: str) -> Value:
        v = self._one_arg(node, env, name)
        if isinstance(v.type, T.ListType) and v.type.elem in (T.BOOL, T.INT, T.FLOAT, T.STR):
            return self.emit1("aten::" + name, [v], T.BOOL, node)
        self.src.fail(node, f"{name}() of {v.type} is not supported")

    def builtin_ord(self, node, env):
        v = self._one_arg(node, env, "ord")
        if v.type != T.STR:
            self.src.fail(node, f"ord() of {v.type} is not supported")
        return self.emit1("aten::ord", [v], T.INT, node)

    def builtin_chr(self, node, env):
        v = self._one_arg(node, env, "chr")
        if v.type != T.INT:
            self.src.fail(node, f"chr() of {v.type} is not supported")
        return self.emit1("aten::chr", [v], T.STR, node)

    def builtin_print(self, node: ast.Call, env: Env) -> Value:
        if node.keywords:
            self.src.fail(node, "print() with keyword arguments is not supported")
        args = [self.emit_expr(a, env) for a in node.args]
        self.emit("prim::Print", args, [], node)
        return self.const(None, node)

    def builtin_isinstance(self, node, env):
        self.src.fail(node, "isinstance() is not supported; types are static in a scripted "
                      "function")

    # -- other scripted functions ---------------------------------------------------------------
    def script_callee(self, fn, node: ast.AST):
        """A plain Python function called from scripted code is scripted too (and
        cached on the function), as torch does."""
        from .script_function import script
        if fn in self.compiling:
            self.src.fail(node, f"recursive call of '{fn.__name__}': recursion is not "
                          "supported by pyjit.script")
        return script(fn, _compiling=self.compiling)

    def inline_call(self, callee, name: str, node: ast.Call, env: Env) -> Value:
        """Bind the arguments to the callee's parameters (defaults filled in, ints
        converted for float parameters) and splice its graph in."""
        from .inlining import inline_graph
        if callee.function in self.compiling:
            self.src.fail(node, f"recursive call of '{name}': recursion is not supported "
                          "by pyjit.script")
        params = [(p, REQUIRED if d is inspect.Parameter.empty else d)
                  for p, d in callee.param_defaults]
        hints = list(callee.param_types)
        args = self.bind_args(params, node, env, f"{name}()", hints=hints)
        inputs: List[Value] = []
        for (pname, _), a, want in zip(params, args, callee.param_types):
            if a is None:
                self.src.fail(node, f"{name}() is missing its argument '{pname}'")
            if a.type == T.INT and want == T.FLOAT:
                a = self.emit1("aten::Float", [a], T.FLOAT, node)
            if not is_subtype(a.type, want):
                self.src.fail(node, f"argument '{pname}' of {name}() must be {want}, "
                              f"not {a.type}")
            inputs.append(a)
        outputs = inline_graph(self.graph, callee.graph, inputs)
        return outputs[0]


_BUILTIN_NAMES = ("len", "min", "max", "abs", "int", "float", "bool", "str", "sum", "sorted",
                  "list", "any", "all", "ord", "chr", "print", "isinstance")
_BUILTIN_OBJECTS = {id(getattr(builtins, n)): getattr(builtins, n) for n in _BUILTIN_NAMES}
_BUILTIN_HANDLERS = {id(getattr(builtins, n)): "builtin_" + n for n in _BUILTIN_NAMES}
