"""Calls: the one place a call target is resolved, and the calls of scripted
functions.

:meth:`CallEmitter.resolve` says what the function part of a call denotes (a
:class:`~.interfaces.Callee`) without emitting anything; :meth:`CallEmitter.call`
emits the call through the emitter that owns that kind of callee:

==============================  ========  =============================================
callee                          kind      emitted by
==============================  ========  =============================================
``len(x)``, ``int(s)`` ...      BUILTIN   :class:`~.builtin_calls.BuiltinCalls`
``math.sqrt(x)``                MATH      :class:`~.spec_calls.SpecCalls` (``MATH``)
``np.sum(x, axis=1)``           NUMPY     ``ctx.tensors`` (:mod:`.numpy_api`'s table)
``xs.append(1)``, ``x.sum()``   METHOD    by the receiver's type: ``ctx.tensors`` for
                                          Tensors, :class:`~.spec_calls.SpecCalls` for
                                          lists, dicts and strings
``helper(x)``                   FUNCTION  here: a ``prim::CallFunction`` of the
                                          scripted callee, by name
==============================  ========  =============================================

A call of another function is a call in the graph, as torch prints it::

    %f : Function = prim::Constant[name="helper"]()
    %y : int = prim::CallFunction(%f, %x)

and the callee's graph goes into the caller's compilation unit
(:attr:`~.script_function.ScriptFunction.unit`), which the interpreter runs by
``INVOKE``; :attr:`~.script_function.ScriptFunction.inlined_graph` is the
one-graph form.  As in torch, a function may not call itself, directly or
through others.

Names resolve the way Python resolves them (locals, then the function's closure
and globals, then builtins: ``ctx.scope``), and builtins are recognised by
identity, so a user function named ``len`` is called, not replaced.
"""

from __future__ import annotations

import ast
import inspect
import math
import types as _pytypes
from typing import List

import numpy as np

from ..ir import Value
from ..ir import types as T
from ..ir.type_relation import is_subtype
from .arguments import bind
from .builtin_calls import BuiltinCalls
from .context import Compilation, Emitter
from .environment import Env
from .interfaces import BUILTIN, FUNCTION, LOCAL, MATH, METHOD, NUMPY, OTHER, Callee
from .operators import is_tensor
from .script_function import ScriptFunction
from .signatures import REQUIRED, Param
from .spec_calls import SpecCalls

__all__ = ["CallEmitter"]


class CallEmitter(Emitter):
    """Call targets and calls (:class:`~.interfaces.Calls`)."""

    def __init__(self, ctx: Compilation) -> None:
        super().__init__(ctx)
        self._builtins = BuiltinCalls(ctx)
        self._specs = SpecCalls(ctx)

    # -- the interface ----------------------------------------------------------------------
    def resolve(self, func: ast.expr, env: Env) -> Callee:
        if isinstance(func, ast.Attribute):
            module = self.ctx.scope.module_of(func.value, env)
            if module is None:
                return Callee(METHOD, func.attr, receiver=func.value)
            if module is math:
                return Callee(MATH, func.attr)
            if module is np:
                return Callee(NUMPY, func.attr)
            return self._python(getattr(module, func.attr, None),
                                f"{module.__name__}.{func.attr}")
        if isinstance(func, ast.Name):
            if func.id in env.vars:
                return Callee(LOCAL, func.id)
            return self._python(self.ctx.scope.resolve(func.id, func), func.id)
        return Callee(OTHER, "")

    def _python(self, obj, name: str) -> Callee:
        """The callee a Python object is."""
        if self._builtins.handles(obj):
            return Callee(BUILTIN, name, obj)
        if isinstance(obj, (ScriptFunction, _pytypes.FunctionType)):
            return Callee(FUNCTION, name, obj)
        return Callee(OTHER, name, obj)

    def call(self, node: ast.Call, env: Env) -> Value:
        for a in node.args:
            if isinstance(a, ast.Starred):
                self.src.fail(a, "*args in calls are not supported")
        for k in node.keywords:
            if k.arg is None:
                self.src.fail(k.value, "**kwargs in calls are not supported")
        callee = self.resolve(node.func, env)
        kind = callee.kind
        if kind == BUILTIN:
            return self._builtins.call(callee.obj, node, env)
        if kind == MATH:
            return self._specs.math(callee.name, node, env)
        if kind == NUMPY:
            return self.ctx.tensors.call_function(callee.name, node, env)
        if kind == METHOD:
            return self._method(callee, node, env)
        if kind == FUNCTION:
            return self._call_function(callee, node, env)
        if kind == LOCAL:
            self.src.fail(node.func, f"'{callee.name}' is a {env.vars[callee.name].value.type} "
                          "variable, not a function")
        return self._unsupported(callee, node)

    # -- methods ------------------------------------------------------------------------------
    def _method(self, callee: Callee, node: ast.Call, env: Env) -> Value:
        """A method call, found by the receiver's type."""
        receiver = self.ctx.exprs.emit(callee.receiver, env)
        if is_tensor(receiver.type):
            return self.ctx.tensors.call_method(receiver, callee.name, node, env)
        return self._specs.method(receiver, callee.name, node, env)

    # -- scripted functions ---------------------------------------------------------------------
    def _call_function(self, callee: Callee, node: ast.Call, env: Env) -> Value:
        """A call of a scripted function (a plain function is scripted first, as torch
        does): bind the arguments to its parameters (defaults filled in, ints
        converted for float parameters) and call it by name."""
        fn = callee.obj
        if isinstance(fn, _pytypes.FunctionType) and fn in self.ctx.compiling:
            self.src.fail(node, f"recursive call of '{fn.__name__}': recursion is not "
                          "supported by pyjit.script")
        compiled = self.ctx.compile_callee(fn)
        name = callee.name
        if compiled.function in self.ctx.compiling:
            self.src.fail(node, f"recursive call of '{name}': recursion is not supported "
                          "by pyjit.script")
        params = [Param(p, REQUIRED if d is inspect.Parameter.empty else d)
                  for p, d in compiled.param_defaults]
        hints = dict(zip(compiled.param_names, compiled.param_types))
        exprs = self.ctx.exprs
        args = bind(self.b, params, node, f"{name}()",
                    lambda p, a: exprs.emit(a, env, hints[p.name])).in_order()
        inputs: List[Value] = []
        for p, a, want in zip(params, args, compiled.param_types):
            if a.type == T.INT and want == T.FLOAT:
                a = self.b.emit1("aten::Float", [a], T.FLOAT, node)
            if not is_subtype(a.type, want):
                self.src.fail(node, f"argument '{p.name}' of {name}() must be {want}, "
                              f"not {a.type}")
            inputs.append(a)
        fn_value = self.b.function_constant(self._unit_name(compiled, node))
        return self.b.emit1("prim::CallFunction", [fn_value] + inputs, compiled.return_type,
                            node)

    def _unit_name(self, sf: ScriptFunction, node: ast.Call) -> str:
        """The name ``sf`` is called by, once its unit and this function's agree:
        a name stands for one function in a unit, as in torch's printed calls."""
        own = self.src.tree.name
        known = self.ctx.functions
        for name, other in sf.functions.items():
            have = known.get(name)
            if name == own or (have is not None and have.function is not other.function):
                first = "this function" if name == own else \
                    f"{have.function.__module__}.{have.function.__qualname__}"
                self.src.fail(node, f"two functions are both named '{name}' here ({first} "
                              f"and {other.function.__module__}."
                              f"{other.function.__qualname__}): calls name their callee, so "
                              "one of them needs another name")
        known.update(sf.functions)
        return sf.__name__

    # -- everything else ------------------------------------------------------------------------
    def _unsupported(self, callee: Callee, node: ast.Call) -> Value:
        obj, name = callee.obj, callee.name
        if callee.kind == OTHER and not name:
            self.src.fail(node.func, "only calls of named functions and methods are supported")
        if obj is range:
            self.src.fail(node, "range() is only supported as the iterable of a for loop "
                          "or a comprehension")
        if obj is enumerate or obj is zip:
            self.src.fail(node, f"{name}() is only supported as the iterable of a for loop")
        if isinstance(obj, type) and issubclass(obj, BaseException):
            self.src.fail(node, "exceptions can only be created in a raise statement")
        self.src.fail(node, f"calling '{name}' ({type(obj).__name__}) is not supported in a "
                      "scripted function")
