"""The function compiler: a type-annotated Python function in, a pyjit Graph out.

:class:`FunctionCompiler` is assembled from the mixins that each hold one part
of the language (:mod:`.statements`, :mod:`.loops`, :mod:`.expressions`,
:mod:`.calls`, :mod:`.tensors`) over the node-making :class:`~.builder.GraphBuilder`.  Compiling
a function:

1. parse its source (:class:`~.source_map.FunctionSource`);
2. turn the parameters into graph inputs typed by their annotations (or by
   their default values) and bind them in the top-level Env;
3. emit the body, followed by an implicit ``return None``, which is only
   emitted (and only an error for a function declared to return something else)
   when the end of the body is reachable;
4. make ``$retval`` the graph's output, remove unused flag values and pool the
   constants (:mod:`.cleanup`), and lint the graph.
"""

from __future__ import annotations

import ast
import inspect
from typing import Any, Dict, FrozenSet, List, NamedTuple, Optional, Tuple

from ..ir import Graph
from ..ir import types as T
from .builder import GraphBuilder
from .calls import CallEmitter
from .cleanup import cleanup
from .environment import RETVAL, Env, Var
from .operator_check import check_operators
from .expressions import ExpressionEmitter
from .loops import LoopEmitter
from .source_map import FunctionSource
from .statements import PENDING_RETURN, ImplicitReturn, StatementEmitter
from .tensors import TensorEmitter
from .typing_rules import AnnotationError, type_from_annotation, type_of_constant

__all__ = ["FunctionCompiler", "CompiledFunction"]


class CompiledFunction(NamedTuple):
    """What compiling a function produces."""

    graph: Graph
    source: FunctionSource
    param_names: Tuple[str, ...]
    param_types: Tuple[T.Type, ...]
    param_defaults: Tuple[Tuple[str, Any], ...]   # (name, default or Parameter.empty)
    return_type: T.Type


class FunctionCompiler(StatementEmitter, LoopEmitter, ExpressionEmitter, CallEmitter,
                       TensorEmitter, GraphBuilder):
    """Compiles one Python function.  ``compiling`` holds the functions whose
    compilation is in progress (the callers), to report recursion."""

    def __init__(self, fn, compiling: FrozenSet = frozenset()) -> None:
        GraphBuilder.__init__(self, FunctionSource(fn))
        self.fn = fn
        self.fn_globals: Dict[str, Any] = getattr(fn, "__globals__", {})
        self.closure: Dict[str, Any] = _closure_vars(fn)
        self.compiling = compiling | {fn}
        self.loops: List[str] = []
        self.return_type: Optional[T.Type] = None
        self.return_annotated = False

    # -- annotations -----------------------------------------------------------------------
    def annotation_type(self, node: ast.expr) -> T.Type:
        """The type an annotation expression in the body denotes."""
        try:
            obj = eval(compile(ast.Expression(node), self.src.file, "eval"),  # noqa: S307
                       self.fn_globals, dict(self.closure))
        except Exception as exc:
            self.src.fail(node, f"cannot evaluate the annotation: {exc}")
        return self._type_of(obj, node)

    def _type_of(self, ann: Any, node: ast.AST) -> T.Type:
        if isinstance(ann, str):
            try:
                ann = eval(ann, self.fn_globals, dict(self.closure))  # noqa: S307
            except Exception as exc:
                self.src.fail(node, f"cannot evaluate the annotation {ann!r}: {exc}")
        try:
            return type_from_annotation(ann)
        except AnnotationError as exc:
            self.src.fail(node, str(exc))

    # -- the whole function ------------------------------------------------------------------------
    def compile(self) -> CompiledFunction:
        try:
            return self._compile()
        except RecursionError:
            self.src.fail(self.src.tree, f"'{self.src.tree.name}' is nested too deeply for "
                          "pyjit.script (Python's recursion limit was reached compiling it; "
                          "each early return nests the statements after it one level)")

    def _compile(self) -> CompiledFunction:
        tree = self.src.tree
        args = tree.args
        if args.vararg or args.kwarg:
            self.src.fail(args.vararg or args.kwarg, "*args and **kwargs are not supported")
        if args.kwonlyargs:
            self.src.fail(args.kwonlyargs[0], "keyword-only parameters are not supported")
        annotations = getattr(self.fn, "__annotations__", {})
        signature = inspect.signature(self.fn)
        env = Env(0)
        names, types, defaults = [], [], []
        for a in args.posonlyargs + args.args:
            param = signature.parameters[a.arg]
            if a.arg in annotations:
                t = self._type_of(annotations[a.arg], a.annotation or a)
            elif param.default is not inspect.Parameter.empty and \
                    type_of_constant(param.default) not in (None, T.NONE):
                t = type_of_constant(param.default)
            else:
                self.src.fail(a, f"parameter '{a.arg}' needs a type annotation")
            if param.default is not inspect.Parameter.empty:
                self._check_default(a, param.default, t)
            v = self.graph.add_input(a.arg, t)
            env.bind(a.arg, Var(v, t, self.src.line_of(a), self.src.col_of(a), 0, True))
            names.append(a.arg)
            types.append(t)
            defaults.append((a.arg, param.default))
        if "return" in annotations:
            self.return_type = self._type_of(annotations["return"], tree.returns or tree)
            self.return_annotated = True
        body = list(tree.body) + [ast.copy_location(ImplicitReturn(), tree.body[-1])]
        body[-1].lineno = getattr(tree.body[-1], "end_lineno", body[-1].lineno)
        with self.at_end_of(self.graph.block):
            self.emit_block(body, env)
            ret = env.vars.get(RETVAL)
            if ret is None:  # the function always raises
                out = self.uninitialized(self.return_type or T.NONE, tree) \
                    if self.return_type not in (None, T.NONE) else self.const(None, tree)
            else:
                out = ret.value
        self.graph.register_output(out)
        return_type = self.return_type or T.NONE
        _resolve_pending(self.graph, return_type)
        cleanup(self.graph)
        self.graph.lint()
        check_operators(self.graph)
        return CompiledFunction(self.graph, self.src, tuple(names), tuple(types),
                                tuple(defaults), return_type)

    def _check_default(self, a: ast.arg, default: Any, t: T.Type) -> None:
        from ..arguments import check_argument
        try:
            check_argument(default, t)
        except TypeError as exc:
            self.src.fail(a, f"the default of parameter '{a.arg}' does not match its "
                          f"type: {exc}")


def _closure_vars(fn) -> Dict[str, Any]:
    code = getattr(fn, "__code__", None)
    cells = getattr(fn, "__closure__", None) or ()
    out: Dict[str, Any] = {}
    if code is None:
        return out
    for name, cell in zip(code.co_freevars, cells):
        try:
            out[name] = cell.cell_contents
        except ValueError:  # an empty cell: the name is not bound yet
            pass
    return out


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
