"""``pyjit.script``, and the function compiler behind it: a type-annotated Python
function in, a :class:`~.script_function.ScriptFunction` out.

:class:`FunctionCompiler` is where the frontend is put together: it creates the
:class:`~.context.Compilation` of the function, one emitter object per part of
the language in it, and drives them.  Compiling a function:

1. parse its source (:class:`~.source_map.FunctionSource`);
2. turn the parameters into graph inputs typed by their annotations (or by
   their default values) and bind them in the top-level Env;
3. emit the body (``ctx.stmts.block``), followed by an implicit ``return None``,
   which is only emitted (and only an error for a function declared to return
   something else) when the end of the body is reachable;
4. make ``$retval`` the graph's output, remove unused flag values and pool the
   constants (:mod:`.cleanup`), lint the graph and check that every operator it
   needs exists (:mod:`.operator_check`).

A scripted function calling a plain Python function scripts that one too, once
(``Compilation.compile_callee``), and calls it by name (``prim::CallFunction``):
the callees' graphs are in the :class:`~.script_function.ScriptFunction`'s unit.
"""

from __future__ import annotations

import ast
import functools
import inspect
import typing
import weakref
from typing import Any, Callable, FrozenSet, Optional, TypeVar, overload

from ..errors import CompileError
from ..ir import Graph
from ..ir import types as T
from ..ir.type_relation import check_value
from .attributes import AttributeEmitter
from .calls import CallEmitter
from .classes import ScriptClass
from .cleanup import cleanup
from .context import PENDING_RETURN, Compilation
from .environment import RETVAL, Env, Var
from .expressions import ExpressionEmitter
from .loops import LoopEmitter
from .operator_check import check_operators
from .scope import PythonScope
from .script_function import CompiledFunction, P, R, ScriptFunction
from .source_map import FunctionSource
from .statements import ImplicitReturn, StatementEmitter
from .subscripts import SubscriptEmitter
from .tensors import TensorEmitter
from .typing_rules import type_from_annotation, type_of_constant

__all__ = ["script", "FunctionCompiler"]

# Plain functions scripted because scripted code called them, so that each is
# compiled once.
_scripted: "weakref.WeakKeyDictionary[Any, ScriptFunction]" = weakref.WeakKeyDictionary()


Cls = TypeVar("Cls", bound=type)


# The overloads say what a type checker sees: a scripted class is still the class;
# a scripted function is a ScriptFunction taking the function's own parameters and
# returning its return type; ``@pyjit.script()`` is ``@pyjit.script``.
@overload
def script(fn: Cls) -> Cls: ...
@overload
def script(fn: Callable[P, R]) -> ScriptFunction[P, R]: ...
@overload
def script(fn: None = None) -> Callable[[Callable[P, R]], ScriptFunction[P, R]]: ...


def script(fn: Any = None) -> Any:
    """Compile ``fn`` into a :class:`ScriptFunction` (usable as ``@pyjit.script``);
    a class's methods into ScriptFunctions in place (:mod:`.classes`).

    Raises :class:`~pyjit.CompileError` for code outside the supported subset.
    """
    if fn is None:
        return script
    if inspect.isclass(fn):
        return script_class(fn)
    return _script(fn, frozenset())


def script_class(cls: type) -> type:
    """``pyjit.script`` of a class (see :mod:`.classes`): declare its attributes,
    compile its methods and return it, its methods now ScriptFunctions."""
    if not isinstance(cls, type):
        raise TypeError(f"expected a class, not {type(cls).__name__}")
    if vars(cls).get("__pyjit_class__") is not None:
        return cls
    sc = ScriptClass(cls, compile_method)
    compile_init(sc)
    methods = {name: sc.method(name) for name in sc.method_names}
    for name, sf in methods.items():
        setattr(cls, name, sf)
    if "forward" in methods and "__call__" not in methods:
        cls.__call__ = methods["forward"]   # calling an instance runs forward, as a module
    cls.__pyjit_class__ = sc
    return cls


def compile_method(owner: ScriptClass, fn, compiling: FrozenSet) -> ScriptFunction:
    """Method ``fn`` of the scripted class ``owner``: ``self`` is an ``owner``."""
    return ScriptFunction(fn, FunctionCompiler(fn, compiling, owner=owner).compile(),
                          owner=owner)


def compile_init(owner: ScriptClass) -> None:
    """Declare ``owner``'s attributes: its class annotations, then ``__init__``,
    compiled for the types of what it assigns (the graph is kept, never run)."""
    cls = owner.cls
    try:
        hints = typing.get_type_hints(cls)
        for name, ann in hints.items():
            owner.attributes[name] = type_from_annotation(ann)
    except Exception as exc:  # unevaluable, or outside the supported types
        file, line = inspect.getsourcefile(cls) or "<unknown>", inspect.getsourcelines(cls)[1]
        raise CompileError(f"the attribute annotations of class {cls.__name__}: {exc}",
                           line, 0, file=file) from None
    init = vars(cls).get("__init__")
    if inspect.isfunction(init):
        owner.init_graph = FunctionCompiler(init, frozenset(), owner=owner,
                                            declaring=True).compile().graph


def _script(fn, compiling: FrozenSet) -> ScriptFunction:
    """``script(fn)`` on behalf of the functions ``compiling`` (empty at the top)."""
    if isinstance(fn, ScriptFunction):
        return fn
    if not inspect.isfunction(fn):
        raise TypeError(f"pyjit.script expects a Python function, not {type(fn).__name__}")
    cached = _scripted.get(fn)
    if cached is not None:
        return cached
    sf = ScriptFunction(fn, FunctionCompiler(fn, compiling).compile())
    if compiling:  # scripted on behalf of a caller: remember it for other callers
        _scripted[fn] = sf
    return sf


class FunctionCompiler:
    """Compiles one Python function.  ``compiling`` holds the functions whose
    compilation is in progress (the callers), to report recursion; a method has
    the scripted class it belongs to as ``owner`` (its first parameter is
    ``self``), and ``__init__`` is compiled ``declaring`` the attributes."""

    def __init__(self, fn, compiling: FrozenSet = frozenset(),
                 owner: Optional[ScriptClass] = None, declaring: bool = False) -> None:
        self.fn = fn
        src = FunctionSource(fn)
        compiling = compiling | {fn}
        ctx = Compilation(src, PythonScope(fn, src), compiling,
                          functools.partial(_script, compiling=compiling), owner, declaring,
                          script_class)
        ctx.exprs = ExpressionEmitter(ctx)
        ctx.stmts = StatementEmitter(ctx)
        ctx.loops = LoopEmitter(ctx)
        ctx.calls = CallEmitter(ctx)
        ctx.attrs = AttributeEmitter(ctx)
        ctx.items = SubscriptEmitter(ctx)
        ctx.tensors = TensorEmitter(ctx)
        self.ctx = ctx
        self.src = src
        self.graph: Graph = ctx.b.graph

    def compile(self) -> CompiledFunction:
        try:
            return self._compile()
        except RecursionError:
            self.src.fail(self.src.tree, f"'{self.src.tree.name}' is nested too deeply for "
                          "pyjit.script (Python's recursion limit was reached compiling it; "
                          "each early return nests the statements after it one level)")

    def _compile(self) -> CompiledFunction:
        ctx, src = self.ctx, self.src
        tree = src.tree
        args = tree.args
        if args.vararg or args.kwarg:
            src.fail(args.vararg or args.kwarg, "*args and **kwargs are not supported")
        if args.kwonlyargs:
            src.fail(args.kwonlyargs[0], "keyword-only parameters are not supported")
        annotations = getattr(self.fn, "__annotations__", {})
        signature = inspect.signature(self.fn)
        env = Env(0)
        names, types, defaults = [], [], []
        for i, a in enumerate(args.posonlyargs + args.args):
            param = signature.parameters[a.arg]
            if i == 0 and ctx.owner is not None:
                t = ctx.owner.type          # self
                ctx.self_name = a.arg
            elif a.arg in annotations:
                t = ctx.scope.annotation(annotations[a.arg], a.annotation or a)
            elif param.default is not inspect.Parameter.empty and \
                    type_of_constant(param.default) not in (None, T.NONE):
                t = type_of_constant(param.default)
            else:
                src.fail(a, f"parameter '{a.arg}' needs a type annotation")
            if param.default is not inspect.Parameter.empty:
                self._check_default(a, param.default, t)
            v = self.graph.add_input(a.arg, t)
            env.bind(a.arg, Var(v, t, src.line_of(a), src.col_of(a), 0, True))
            names.append(a.arg)
            types.append(t)
            defaults.append((a.arg, param.default))
        if "return" in annotations:
            ctx.return_type = ctx.scope.annotation(annotations["return"], tree.returns or tree)
            ctx.return_annotated = True
        body = list(tree.body) + [ast.copy_location(ImplicitReturn(), tree.body[-1])]
        body[-1].lineno = getattr(tree.body[-1], "end_lineno", body[-1].lineno)
        b = ctx.b
        with b.at_end_of(self.graph.block):
            ctx.stmts.block(body, env)
            ret = env.vars.get(RETVAL)
            if ret is None:  # the function always raises
                out = b.uninitialized(ctx.return_type or T.NONE, tree) \
                    if ctx.return_type not in (None, T.NONE) else b.const(None, tree)
            else:
                out = ret.value
        self.graph.register_output(out)
        return_type = ctx.return_type or T.NONE
        _resolve_pending(self.graph, return_type)
        cleanup(self.graph)
        self.graph.lint()
        if not ctx.declaring:  # __init__'s graph is never run: only its types matter
            check_operators(self.graph)
        return CompiledFunction(self.graph, src, tuple(names), tuple(types),
                                tuple(defaults), return_type, dict(ctx.functions),
                                dict(ctx.methods))

    def _check_default(self, a: ast.arg, default: Any, t: T.Type) -> None:
        try:
            check_value(default, t)
        except TypeError as exc:
            self.src.fail(a, f"the default of parameter '{a.arg}' does not match its "
                          f"type: {exc}")


def _resolve_pending(graph: Graph, return_type: T.Type) -> None:
    """Give the values typed before the return type was known their real type."""
    stack = [graph.block]
    while stack:
        block = stack.pop()
        for v in block.inputs:
            if v.type == PENDING_RETURN:
                v.type = return_type
        for n in block.nodes():
            for v in n.outputs:
                if v.type == PENDING_RETURN:
                    v.type = return_type
            stack.extend(n.blocks)
