"""What the emitters of one function share: the :class:`Compilation`.

:mod:`.compiler` creates one per function, fills in the emitters, and hands it to
each of them; an emitter keeps it and reaches the others as ``ctx.exprs``,
``ctx.calls``... through the interfaces of :mod:`.interfaces`.
"""

from __future__ import annotations

import ast
import builtins
from typing import Any, Callable, Dict, FrozenSet, List, Optional, Tuple

from ..ir import types as T
from .builder import GraphBuilder
from .core import PENDING_RETURN, Dialect, Emitter, StatementHandler
from .interfaces import Tensors
from .intrinsics import BARE_CONTAINERS
from .operators import OperatorEmitter
from .scope import PythonScope
from .source_map import FunctionSource

__all__ = ["Compilation", "Emitter", "PENDING_RETURN"]


class Compilation(Dialect):
    """One function being compiled: the Python dialect of the emitter core
    (:class:`~.core.Dialect`).

    Attributes:
        src: its source, positions and errors (``ctx.src.fail(node, msg)``).
        b: the :class:`~.builder.GraphBuilder` every node goes through.
        scope: what names outside the function and annotations denote.
        compiling: the functions whose compilation is in progress, this one
            included: calling one of them is recursion.
        compile_callee: ``compile_callee(fn)`` is the
            :class:`~.script_function.ScriptFunction` a call of ``fn`` compiles
            against (``fn`` itself if it is one; a plain function is scripted,
            once).
        functions: the scripted functions this one calls, and those they call,
            by the names their calls print (``prim::Constant[name=...]``): what
            its compilation unit holds besides itself.
        methods: the methods it calls, and those they call, by
            ``(class name, method name)``.
        owner: the scripted class (:mod:`.classes`) of a method, else None;
            ``self_name`` its first parameter's name.
        declaring: compiling ``__init__``, whose assignments to ``self``'s
            attributes declare them.
        compile_class: ``compile_class(cls)`` scripts a class (as ``pyjit.script``
            does), for the objects ``__init__`` creates.
        return_type: the declared return type, or the type the returns emitted
            so far unify to (None before the first).
        return_annotated: whether ``return_type`` was declared.

    The emitters, each used only through its interface (:mod:`.interfaces`;
    ``ops`` through its public methods): ``ops`` operators on computed values,
    ``exprs`` expressions, ``stmts`` statements, ``loops`` loops and
    comprehensions, ``calls`` call targets and calls, ``attrs`` ``x.name``,
    ``items`` ``x[i]``, ``tensors`` numpy functions and array methods.
    """

    tensors: Tensors      # the others are declared by Dialect

    def __init__(self, src: FunctionSource, scope: PythonScope, compiling: FrozenSet,
                 compile_callee: Callable[[Any], Any], owner: Any = None,
                 declaring: bool = False,
                 compile_class: Optional[Callable[[type], type]] = None) -> None:
        self.src = src
        self.b = GraphBuilder(src)
        self.scope = scope
        self.compiling = compiling
        self.compile_callee = compile_callee
        self.compile_class = compile_class
        self.functions: Dict[str, Any] = {}
        self.methods: Dict[Tuple[str, str], Any] = {}
        self.owner = owner
        self.self_name: Optional[str] = None
        self.declaring = declaring
        self.return_type: Optional[T.Type] = None
        self.return_annotated = False
        self.ops = OperatorEmitter(self.b)
        self.statement_handlers: Dict[type, StatementHandler] = {}

    def pending_return_type(self) -> T.Type:
        """The type ``$retval`` is carried with through loops: the declared return
        type, or :data:`PENDING_RETURN` until every return has been seen."""
        return self.return_type if self.return_annotated else PENDING_RETURN

    def unpack_types(self, t: T.Type) -> Optional[List[T.Type]]:
        """Python's values unpack as tuples and lists only."""
        return None

    def isinstance_types(self, node: ast.Call) -> List[T.Type]:
        """The types ``isinstance(x, types)`` tests for: annotations, or a bare
        ``list``/``tuple``/``dict`` (the builtin classes themselves)."""
        if len(node.args) != 2 or node.keywords:
            self.src.fail(node, "isinstance() takes a value and a type (or a tuple of types)")
        spec = node.args[1]
        wants = []
        for t in spec.elts if isinstance(spec, ast.Tuple) else [spec]:
            obj = self.scope.resolve(t.id, t) if isinstance(t, ast.Name) else None
            bare = next((name for name in BARE_CONTAINERS if obj is getattr(builtins, name)),
                        None)
            wants.append(T.NamedType(bare) if bare is not None else self.scope.annotation(t, t))
        return wants
