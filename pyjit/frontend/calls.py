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
``obj.bump(1)``, ``obj(x)``     METHOD,   here, for an object of a scripted class
                                LOCAL     (:mod:`.classes`): ``prim::CallMethod``
                                          (``forward`` when the object is called)
``Scale(2.0)``                  OTHER     here, in ``__init__`` only: the attribute's
                                          type
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
from typing import List, Optional

import numpy as np

from ..ir import Value
from ..ir import types as T
from ..ir.type_relation import Conversion, widens
from .arguments import bind, typed_arguments
from .builtin_calls import BuiltinCalls
from .classes import ScriptClass, find_class
from .context import Compilation, Emitter
from .environment import Env
from .intrinsics import is_tolist, tolist_value
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

    def call(self, node: ast.Call, env: Env, expected: Optional[T.Type] = None) -> Value:
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
            return self._method(callee, node, env, expected)
        if kind == FUNCTION:
            return self._call_function(callee, node, env)
        if kind == LOCAL:
            value = self.ctx.exprs.lookup(callee.name, node.func, env)
            cls = find_class(value.type)
            if cls is None:
                self.src.fail(node.func, f"'{callee.name}' is a {value.type} variable, not a "
                              "function")
            return self.call_method(cls, value, "forward", node, env)
        if kind == OTHER and inspect.isclass(callee.obj) and \
                not issubclass(callee.obj, BaseException):
            return self._construct(callee.obj, node)
        return self._unsupported(callee, node)

    # -- methods ------------------------------------------------------------------------------
    def _method(self, callee: Callee, node: ast.Call, env: Env,
                expected: Optional[T.Type] = None) -> Value:
        """A method call, found by the receiver's type."""
        receiver = self.ctx.exprs.emit(callee.receiver, env)
        if is_tolist(receiver, callee.name, node):   # typed by where it goes, as in archives
            return tolist_value(self.b, receiver, expected, node, self.src.fail)
        if is_tensor(receiver.type):
            return self.ctx.tensors.call_method(receiver, callee.name, node, env)
        cls = find_class(receiver.type)
        if cls is not None:
            if callee.name in cls.attributes:  # self.sub(x): the attribute's forward
                assert isinstance(node.func, ast.Attribute)
                attr = self.ctx.attrs.get(cls, receiver, node.func)
                inner = find_class(attr.type)
                if inner is None:
                    self.src.fail(node.func, f"attribute '{callee.name}' of "
                                  f"{cls.cls.__name__} is a {attr.type}, not a method")
                return self.call_method(inner, attr, "forward", node, env)
            return self.call_method(cls, receiver, callee.name, node, env)
        return self._specs.method(receiver, callee.name, node, env)

    def call_method(self, cls: ScriptClass, receiver: Value, name: str, node: ast.Call,
                    env: Env) -> Value:
        """Method ``name`` of ``receiver``, an object of ``cls``, called by name:
        ``prim::CallMethod[name=...]`` with the receiver first (compiling the
        method if it was not yet)."""
        fn = vars(cls.cls).get(name)
        if fn is not None and fn in self.ctx.compiling:
            self.src.fail(node, f"recursive call of method '{name}' of {cls.cls.__name__}: "
                          "recursion is not supported by pyjit.script")
        try:
            sf = cls.method(name, self.ctx.compiling)
        except LookupError as exc:
            self.src.fail(node.func, str(exc))
        inputs = self._arguments(sf, node, env, f"{cls.cls.__name__}.{name}()", skip=1)
        call = self.b.emit("prim::CallMethod", [receiver] + inputs, [sf.return_type], node)
        call.attrs["name"] = name
        self._record(sf, node)
        return call.output()

    def _construct(self, cls: type, node: ast.Call) -> Value:
        """``Scale(2.0)``: in ``__init__`` (which Python runs), an object of that
        scripted class, for the type of the attribute it is assigned to."""
        if not self.ctx.declaring:
            self.src.fail(node, f"creating a {cls.__name__} in a scripted function is not "
                          "supported: create it in Python (or in __init__, which Python "
                          "runs) and pass it in")
        sc = vars(self.ctx.compile_class(cls))["__pyjit_class__"]
        return self.b.emit1("prim::CreateObject", [], sc.type, node)

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
        inputs = self._arguments(compiled, node, env, f"{name}()")
        self._record(compiled, node)
        fn_value = self.b.function_constant(compiled.__name__)
        return self.b.emit1("prim::CallFunction", [fn_value] + inputs, compiled.return_type,
                            node)

    def _arguments(self, sf: ScriptFunction, node: ast.Call, env: Env, label: str,
                   skip: int = 0) -> List[Value]:
        """The call's arguments bound to ``sf``'s parameters (after the first
        ``skip``): defaults filled in, ints converted for float parameters."""
        params = [Param(p, REQUIRED if d is inspect.Parameter.empty else d)
                  for p, d in sf.param_defaults[skip:]]
        types = sf.param_types[skip:]
        hints = dict(zip(sf.param_names[skip:], types))
        exprs = self.ctx.exprs
        args = bind(self.b, params, node, label,
                    lambda p, a: exprs.emit(a, env, hints[p.name])).in_order()
        return typed_arguments(self.b, params, args, types, label, node, _int_to_float)

    def _record(self, sf: ScriptFunction, node: ast.Call) -> None:
        """Put what ``sf`` needs in this function's unit: the functions it reaches,
        once their names agree with this unit's (a name stands for one function,
        as in torch's printed calls), and the methods."""
        own = None if self.ctx.owner is not None else self.src.tree.name
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
        self.ctx.methods.update(sf.methods)

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


def _int_to_float(actual: T.Type, declared: T.Type) -> Optional[Conversion]:
    """The one conversion a call of a scripted function makes: an int passed for
    a float parameter (``aten::Float``)."""
    return Conversion("aten::Float", T.FLOAT) if widens(actual, declared) else None
