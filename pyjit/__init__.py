"""pyjit: the register interpreter of the early PyTorch JIT, as a Python package.

pyjit runs TorchScript without torch.  Its three ways in:

* ``@pyjit.script`` compiles a type-annotated Python function (or class) into
  a graph of the form TorchScript's frontend emits, and calling it runs that
  graph: ``collatz_steps(27)``, ``collatz_steps.graph``, ``collatz_steps.code``.
* ``pyjit.Function(pyjit.parse_ir(text))`` runs a graph that torch printed
  (``torch.jit.script(f).graph``); ``CompilationUnit`` holds several that call
  one another, and the methods of classes.
* ``pyjit.load("model.pt")`` reads a ``torch.jit.save`` archive, parameters as
  numpy arrays, and runs its methods.

Every graph is preprocessed by the seed's passes and compiled into an
instruction table (``Code``; ``print(code)`` lists it), which a dispatch loop
runs: compiled Cython, or its pure-Python twin where no compiler was available
(``HAS_CEXT`` says which).  Operators are Python callables found by kind and
input types (``register_operator`` adds your own); tensors are numpy arrays
with torch's dtypes.  ``pyjit.profile()`` times a run per node and source
line.  Every error pyjit raises is a ``PyjitError`` that names what failed and where
(``ParseError``, ``CompileError``, ``InterpreterError``, ``ArchiveError``...).

From the shell: ``pyjit run examples/fib.ir 30`` prints 832040; ``pyjit --help``
lists the rest.  The README has a tour, ``docs/architecture.md`` the map.
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
    "freeze": ("pyjit.archive", "freeze"),
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
    if name == "__version__":
        globals()[name] = value = _version()
        return value
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
    return sorted(set(globals()) | set(_LAZY) | {"__version__"})


if TYPE_CHECKING:  # what a type checker reads for each of them: _LAZY, written as imports
    from . import ir
    from ._backend import HAS_CEXT
    from .archive import freeze, load
    from .code import Code
    from .compilation_unit import CompilationUnit
    from .errors import (ArchiveCompileError, ArchiveError, CompileError, GraphRecursionError,
                         InterpreterError, JITException, OperatorNotFoundError, ParseError,
                         PyjitError, TorchConversionError)
    from .frontend import ScriptFunction, script
    from .futures import Future
    from .interpreter import Function, InterpreterState, get_recursion_limit, set_recursion_limit
    from .ir import Graph
    from .ir.parser import parse_ir
    from .profiler import Profile, profile
    from .registry import register_operator
    from .torch_bridge import TorchFunction, from_torch


def _version() -> str:
    """``pyjit.__version__``, looked up on first use (importlib.metadata costs an
    import of pyjit a tenth more): the installed distribution's version, which is
    pyproject.toml's, the one place it is written.  A source tree imported without
    being installed reads that file."""
    from importlib.metadata import PackageNotFoundError, version
    try:
        return version("pyjit")
    except PackageNotFoundError:
        import os
        import tomllib
        path = os.path.join(os.path.dirname(os.path.dirname(__file__)), "pyproject.toml")
        try:
            with open(path, "rb") as f:
                return tomllib.load(f)["project"]["version"]
        except (OSError, KeyError, tomllib.TOMLDecodeError):
            return "0+unknown"


__all__ = [
    "script", "ScriptFunction", "parse_ir", "Graph", "Code", "InterpreterState", "Function", "Future",
    "CompilationUnit", "set_recursion_limit", "get_recursion_limit",
    "register_operator", "profile", "Profile", "HAS_CEXT", "ir", "from_torch", "TorchFunction",
    "PyjitError", "ParseError", "CompileError", "OperatorNotFoundError",
    "InterpreterError", "JITException", "GraphRecursionError", "TorchConversionError",
    "load", "freeze", "ArchiveError", "ArchiveCompileError",
    "__version__",
]
