"""What a scripted function's names denote besides its locals, and what its
annotations denote.

Python looks a name that is not local up in the function's closure, then in its
module's globals, then in builtins; :class:`PythonScope` does the same at compile
time, so that the emitters work with the objects the names stand for (``np``,
``math``, ``len``, a helper function, a constant) and never look at a module
dictionary themselves.  A frontend with other names (TorchScript's serialized
source, whose code says ``torch.add`` and ``ops.prim.unchecked_cast``) gives the
emitters another scope with the same three methods.
"""

from __future__ import annotations

import ast
import builtins
import types as _pytypes
from typing import Any, Dict, Optional

from ..ir import types as T
from .environment import Env
from .source_map import FunctionSource
from .typing_rules import AnnotationError, type_from_annotation

__all__ = ["PythonScope"]


class PythonScope:
    """The closure, globals and builtins of one Python function.

    Attributes:
        src: the function's source (for errors).
        globals: the function's module globals.
        closure: the function's free variables that are bound.
    """

    def __init__(self, fn, src: FunctionSource) -> None:
        self.src = src
        self.globals: Dict[str, Any] = getattr(fn, "__globals__", {})
        self.closure: Dict[str, Any] = _closure_vars(fn)

    def resolve(self, name: str, node: ast.AST) -> Any:
        """The Python object ``name`` denotes outside the function (closure, then
        globals, then builtins); an undefined name is a CompileError at ``node``."""
        for scope in (self.closure, self.globals):
            if name in scope:
                return scope[name]
        if hasattr(builtins, name):
            return getattr(builtins, name)
        self.src.fail(node, f"undefined name '{name}'")

    def module_of(self, node: ast.expr, env: Env) -> Optional[Any]:
        """The module ``node`` names (``math``, ``np``, ``os.path``...), or None if it
        names a value."""
        if isinstance(node, ast.Name) and node.id not in env.vars and node.id not in env.undefined:
            obj = self.resolve(node.id, node)
            if isinstance(obj, _pytypes.ModuleType):
                return obj
        if isinstance(node, ast.Attribute):
            parent = self.module_of(node.value, env)
            if parent is not None:
                obj = getattr(parent, node.attr, None)
                if isinstance(obj, _pytypes.ModuleType):
                    return obj
        return None

    def annotation(self, ann: Any, node: ast.AST) -> T.Type:
        """The type an annotation denotes: ``ann`` is an annotation expression of
        the body (an ``ast.expr``), or an evaluated one from ``__annotations__``
        (a string when the module postpones them)."""
        if isinstance(ann, ast.expr):
            try:
                ann = eval(compile(ast.Expression(ann), self.src.file, "eval"),  # noqa: S307
                           self.globals, dict(self.closure))
            except Exception as exc:
                self.src.fail(node, f"cannot evaluate the annotation: {exc}")
        if isinstance(ann, str):
            try:
                ann = eval(ann, self.globals, dict(self.closure))  # noqa: S307
            except Exception as exc:
                self.src.fail(node, f"cannot evaluate the annotation {ann!r}: {exc}")
        try:
            return type_from_annotation(ann)
        except AnnotationError as exc:
            self.src.fail(node, str(exc))


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
