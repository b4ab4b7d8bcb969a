"""pyjit: the register interpreter of the early PyTorch JIT, as a Python package.

Graphs in torch's IR text are parsed (:func:`parse_ir`), preprocessed by the seed's
passes, compiled into an instruction table (:class:`Code`) and run by a compiled
Cython loop, or by its pure-Python twin where no compiler was available
(``HAS_CEXT`` says which)::

    >>> import pyjit
    >>> g = pyjit.parse_ir('''
    ... graph(%a : int, %b : int):
    ...   %c : int = aten::mul(%a, %b)
    ...   return (%c)
    ... ''')
    >>> pyjit.Function(g)(6, 7)
    42
"""

import importlib
from typing import TYPE_CHECKING, Any, List

# The public names, by the module that defines each (PEP 562, as numpy and SciPy
# do): ``import pyjit`` imports none of them, so ``import pyjit.ir`` costs the IR
# alone, and the first ``pyjit.X`` (or ``from pyjit import X``) imports what X
# needs.  The operator library is not among them: the default registry loads it
# on its first lookup (see pyjit.registry).
_LAZY = {
    "ir": ("pyjit.ir", None),
    "HAS_CEXT": ("pyjit._backend", "HAS_CEXT"),
    "Code": ("pyjit.code", "Code"),
    "CompilationUnit": ("pyjit.compilation_unit", "CompilationUnit"),
    "load": ("pyjit.archive", "load"),
    "ArchiveError": ("pyjit.errors", "ArchiveError"),
    "ArchiveCompileError": ("pyjit.errors", "ArchiveCompileError"),
    "CompileError": ("pyjit.errors", "CompileError"),
    "GraphRecursionError": ("pyjit.errors", "GraphRecursionError"),
    "InterpreterError": ("pyjit.errors", "InterpreterError"),
    "JITException": ("pyjit.errors", "JITException"),
    "OperatorNotFoundError": ("pyjit.errors", "OperatorNotFoundError"),
    "ParseError": ("pyjit.errors", "ParseError"),
    "PyjitError": ("pyjit.errors", "PyjitError"),
    "TorchConversionError": ("pyjit.errors", "TorchConversionError"),
    "ScriptFunction": ("pyjit.frontend", "ScriptFunction"),
    "script": ("pyjit.frontend", "script"),
    "Future": ("pyjit.futures", "Future"),
    "Function": ("pyjit.interpreter", "Function"),
    "InterpreterState": ("pyjit.interpreter", "InterpreterState"),
    "get_recursion_limit": ("pyjit.interpreter", "get_recursion_limit"),
    "set_recursion_limit": ("pyjit.interpreter", "set_recursion_limit"),
    "Graph": ("pyjit.ir", "Graph"),
    "parse_ir": ("pyjit.ir.parser", "parse_ir"),
    "Profile": ("pyjit.profiler", "Profile"),
    "profile": ("pyjit.profiler", "profile"),
    "register_operator": ("pyjit.registry", "register_operator"),
    "TorchFunction": ("pyjit.torch_bridge", "TorchFunction"),  # imports no torch
    "from_torch": ("pyjit.torch_bridge", "from_torch"),
}


def __getattr__(name: str) -> Any:
    try:
        module, attr = _LAZY[name]
    except KeyError:
        raise AttributeError(f"module 'pyjit' has no attribute {name!r}") from None
    value = importlib.import_module(module)
    if attr is not None:
        value = getattr(value, attr)
    globals()[name] = value  # the next access is a plain attribute
    return value


def __dir__() -> List[str]:
    return sorted(set(globals()) | set(_LAZY))


if TYPE_CHECKING:  # what a type checker reads for each of them: _LAZY, written as imports
    from . import ir
    from ._backend import HAS_CEXT
    from .archive import load
    from .code import Code
    from .compilation_unit import CompilationUnit
    from .errors import (ArchiveCompileError, ArchiveError, CompileError, GraphRecursionError, InterpreterError,
                         JITException, OperatorNotFoundError, ParseError, PyjitError,
                         TorchConversionError)
    from .frontend import ScriptFunction, script
    from .futures import Future
    from .interpreter import Function, InterpreterState, get_recursion_limit, set_recursion_limit
    from .ir import Graph
    from .ir.parser import parse_ir
    from .profiler import Profile, profile
    from .registry import register_operator
    from .torch_bridge import TorchFunction, from_torch


__version__ = "0.1.0"

__all__ = [
    "script", "ScriptFunction", "parse_ir", "Graph", "Code", "InterpreterState", "Function", "Future",
    "CompilationUnit", "set_recursion_limit", "get_recursion_limit",
    "register_operator", "profile", "Profile", "HAS_CEXT", "ir", "from_torch", "TorchFunction",
    "PyjitError", "ParseError", "CompileError", "OperatorNotFoundError",
    "InterpreterError", "JITException", "GraphRecursionError", "TorchConversionError",
    "load", "ArchiveError", "ArchiveCompileError",
    "__version__",
]
