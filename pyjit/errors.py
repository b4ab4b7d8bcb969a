"""The exceptions pyjit raises.  Every one names what went wrong and where.

=========================  ==============================================================
``PyjitError``             base of all of them
``ParseError``             malformed IR text (a ``ValueError``), with line, column, caret
``CompileError``           Python source outside what ``@pyjit.script`` supports
``OperatorNotFoundError``  a node whose kind/types have no operator, found at Code build
``InterpreterError``       an operator failed while a graph ran (a ``RuntimeError``);
                           the original exception is chained as ``__cause__``
``JITException``           a ``prim::RaiseException`` in the graph (the user's ``raise``)
``TorchConversionError``   a torch object ``pyjit.from_torch`` cannot turn into a Function
=========================  ==============================================================
"""

from __future__ import annotations

from typing import Optional

__all__ = ["PyjitError", "ParseError", "CompileError", "OperatorNotFoundError",
           "InterpreterError", "JITException", "TorchConversionError", "caret_snippet"]


def caret_snippet(line_text: str, col: int) -> str:
    """The offending line and a caret under column ``col`` (0-based), indented."""
    return f"    {line_text}\n    {' ' * max(col, 0)}^"


class PyjitError(Exception):
    """Base class of pyjit's own errors."""


class _LocatedError(PyjitError):
    """An error at ``file:line:col`` (line 1-based, col 0-based) of some text."""

    def __init__(self, message: str, line: int, col: int, *,
                 file: Optional[str] = None, line_text: Optional[str] = None) -> None:
        self.message = message
        self.file = file
        self.line = line
        self.col = col
        self.line_text = line_text
        where = f"{file or '<string>'}:{line}:{col}"
        text = f"{where}: {message}"
        if line_text is not None:
            text += "\n" + caret_snippet(line_text, col)
        super().__init__(text)


class ParseError(_LocatedError, ValueError):
    """Malformed IR text.  ``str(e)`` is ``file:line:col: message`` followed by the
    offending line and a caret under the column."""


class CompileError(_LocatedError):
    """A Python construct that ``pyjit.script`` cannot compile, located in the user's
    source file."""


class OperatorNotFoundError(PyjitError, LookupError):
    """No registered operator matches a node's kind and input types (raised when a
    Code is built, never at run time)."""


class InterpreterError(PyjitError, RuntimeError):
    """An operator failed while a graph ran.

    Attributes: ``node`` (the failing node's one-line text), ``location`` (its
    :class:`~pyjit.ir.SourceLocation` or None); the original exception is
    ``__cause__``.
    """

    def __init__(self, message: str, *, node: Optional[str] = None, location=None) -> None:
        super().__init__(message)
        self.node = node
        self.location = location


class JITException(InterpreterError):
    """The graph raised an exception itself (``prim::RaiseException``, the user's
    ``raise`` or a failed ``assert``).  ``python_class`` is the exception's class name
    as the graph gave it (e.g. ``builtins.ValueError``), ``msg`` its message."""

    def __init__(self, message: str, *, msg: str = "", python_class: Optional[str] = None,
                 node: Optional[str] = None, location=None) -> None:
        super().__init__(message, node=node, location=location)
        self.msg = msg
        self.python_class = python_class


class TorchConversionError(PyjitError, ValueError):
    """:func:`pyjit.from_torch` met something pyjit cannot run yet (a module attribute
    read or written at run time, a method call) or cannot convert (a tensor constant
    of a dtype numpy lacks).  The message names it, with its ``file:line:col``."""
