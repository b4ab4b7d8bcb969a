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

from . import ir
from . import ops  # the one import that fills the default registry with the library
from ._backend import HAS_CEXT
from .code import Code
from .compilation_unit import CompilationUnit
from .archive import load
from .errors import (ArchiveCompileError, ArchiveError, CompileError, GraphRecursionError, InterpreterError, JITException,
                     OperatorNotFoundError, ParseError, PyjitError, TorchConversionError)
from .frontend import ScriptFunction, script
from .futures import Future
from .interpreter import Function, InterpreterState, get_recursion_limit, set_recursion_limit
from .ir import Graph
from .ir.parser import parse_ir
from .profiler import Profile, profile
from .registry import register_operator
from .torch_bridge import TorchFunction, from_torch  # imports no torch

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
