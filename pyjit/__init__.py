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

from . import ir
from . import ops  # the one import that fills the default registry with the library
from ._backend import HAS_CEXT
from .code import Code
from .compilation_unit import CompilationUnit
from .archive import load
from .errors import (ArchiveError, CompileError, GraphRecursionError, InterpreterError, JITException,
                     OperatorNotFoundError, ParseError, PyjitError, TorchConversionError)
from .frontend import ScriptFunction, script
from .futures import Future
from .interpreter import Function, InterpreterState, get_recursion_limit, set_recursion_limit
from .ir import Graph
from .ir.parser import parse_ir
from .profiler import Profile, profile
from .registry import register_operator
from .torch_bridge import TorchFunction, from_torch  # imports no torch



def __getattr__(name: str) -> str:
    """``pyjit.__version__``, looked up on first use (importlib.metadata costs an
    import of pyjit a tenth more): the installed distribution's version, which is
    pyproject.toml's, the one place it is written.  A source tree imported without
    being installed reads that file."""
    if name != "__version__":
        raise AttributeError(f"module 'pyjit' has no attribute {name!r}")
    from importlib.metadata import PackageNotFoundError, version
    try:
        found = version("pyjit")
    except PackageNotFoundError:
        import os
        import tomllib
        path = os.path.join(os.path.dirname(os.path.dirname(__file__)), "pyproject.toml")
        try:
            with open(path, "rb") as f:
                found = tomllib.load(f)["project"]["version"]
        except (OSError, KeyError, tomllib.TOMLDecodeError):
            found = "0+unknown"
    globals()["__version__"] = found
    return found

__all__ = [
    "script", "ScriptFunction", "parse_ir", "Graph", "Code", "InterpreterState", "Function", "Future",
    "CompilationUnit", "set_recursion_limit", "get_recursion_limit",
    "register_operator", "profile", "Profile", "HAS_CEXT", "ir", "from_torch", "TorchFunction",
    "PyjitError", "ParseError", "CompileError", "OperatorNotFoundError",
    "InterpreterError", "JITException", "GraphRecursionError", "TorchConversionError",
    "load", "ArchiveError",
    "__version__",
]
