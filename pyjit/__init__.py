"""pyjit: the register interpreter of the early PyTorch JIT, as a Python package.

Graphs in torch's IR text are parsed (:func:`parse_ir`), preprocessed by the seed's
passes, compiled into an instruction table (:class:`Code`) and run by a compiled
Cython loop, or by its pure-Python twin where no compiler was available.
"""

from . import ir
from .errors import (CompileError, InterpreterError, JITException, OperatorNotFoundError,
                     ParseError, PyjitError)
from .ir import Graph

__version__ = "0.1.0"

__all__ = ["ir", "Graph", "PyjitError", "ParseError", "CompileError", "OperatorNotFoundError",
           "InterpreterError", "JITException", "__version__"]
