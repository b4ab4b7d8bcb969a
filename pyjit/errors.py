"""The exceptions pyjit raises.  Every one names what went wrong and where.

=========================  ==============================================================
``PyjitError``             base of all of them
``ParseError``             malformed IR text (a ``ValueError``), with line, column, caret
``CompileError``           Python source outside what ``@pyjit.script`` supports
``OperatorNotFoundError``  a node whose kind/types have no operator, found at Code build
``InterpreterError``       an operator failed while a graph ran (a ``RuntimeError``);
                           the original exception is chained as ``__cause__``
``GraphRecursionError``    calls between graphs nested beyond the limit (also a
                           ``RecursionError``)
``JITException``           a ``prim::RaiseException`` in the graph (the user's ``raise``)
``TorchConversionError``   a torch object ``pyjit.from_torch`` cannot turn into a Function
``ArchiveError``           a saved archive ``pyjit.load`` cannot read (a ``ValueError``)
``ArchiveCompileError``    an archive's code pyjit cannot compile: both of the above
=========================  ==============================================================
"""

from __future__ import annotations

import pickle
from typing import NamedTuple, Optional, Sequence, Tuple

__all__ = ["PyjitError", "ParseError", "CompileError", "OperatorNotFoundError",
           "InterpreterError", "JITException", "GraphRecursionError", "TorchConversionError",
           "ArchiveError", "ArchiveCompileError",
           "TraceFrame", "format_frames", "repeated_note", "caret_snippet"]


def caret_snippet(line_text: str, col: int) -> str:
    """The offending line and a caret under column ``col`` (0-based), indented."""
    return f"    {line_text}\n    {' ' * max(col, 0)}^"


class PyjitError(Exception):
    """Base class of pyjit's own errors.

    Every one pickles whole, so that an error raised in a worker process comes
    back as it was: its class, message and attributes (a location, the frames
    of a run), and the exception it was raised from (``__cause__``, which pickle
    leaves out of exceptions), unless that one cannot be pickled, when a
    ``RuntimeError`` with its class and message stands in for it.
    """

    def __reduce__(self):
        cause = self.__cause__
        if cause is not None:
            try:
                pickle.dumps(cause)
            except Exception:
                cause = RuntimeError(f"{type(cause).__qualname__}: {cause}")
        return (_unpickled_error, (type(self), self.args, self.__dict__, cause))


def _unpickled_error(cls: type, args: tuple, state: dict,
                     cause: Optional[BaseException]) -> PyjitError:
    # Made without __init__, whose arguments (a location's parts, keywords) are
    # not what ``args`` holds: the attributes come back as they were.
    err = cls.__new__(cls, *args)
    err.args = args
    err.__dict__.update(state)
    err.__cause__ = cause
    return err


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


class TraceFrame(NamedTuple):
    """One activation in the traceback of a failed run: the graph it ran (its
    ``function`` name, None for a graph of its own) and the node it was at (the
    call, for all but the innermost), with that node's location."""

    function: Optional[str]
    node: str
    location: object = None     # a SourceLocation, or None


#: Identical frames in a row shown before the rest are summed up (Python's
#: traceback shows three of a recursion's repeated frames).
REPEATED_FRAMES_SHOWN = 3


def format_frames(frames: Sequence[TraceFrame], verb: str = "while running") -> str:
    """The traceback lines of ``frames``, outermost first, each frame as::

          at f.py:3:11, in helper         (the location and the function's name,
            return s // y                  when known; the source line and a
                   ^                       caret when the file is readable)
          while running: %q : int = aten::floordiv(%s, %y) # f.py:3:11

    the innermost frame's node introduced by ``verb``, the calls' by "while
    running"; the functions are named when there are calls (one frame is the
    failing node alone, as ever).  Of identical frames in a row (a recursion),
    the first :data:`REPEATED_FRAMES_SHOWN` show, then ``[Previous frame repeated
    N more times]``, as Python's traceback cuts them."""
    named = len(frames) > 1
    out = []
    i = 0
    while i < len(frames):
        run = 1
        while i + run < len(frames) and frames[i + run] == frames[i]:
            run += 1
        for j in range(min(run, REPEATED_FRAMES_SHOWN)):
            last = i + run == len(frames) and j == min(run, REPEATED_FRAMES_SHOWN) - 1
            out.append(_format_frame(frames[i], verb if last else "while running", named))
        if run > REPEATED_FRAMES_SHOWN:
            out.append(repeated_note(run - REPEATED_FRAMES_SHOWN))
        i += run
    return "".join(out)


def repeated_note(n: int) -> str:
    """The line standing for ``n`` more copies of the identical frame above it."""
    return f"\n  [Previous frame repeated {n} more time{'s' if n > 1 else ''}]"


def _format_frame(frame: TraceFrame, verb: str, named: bool) -> str:
    loc = frame.location
    function = frame.function if named else None
    line = ""
    if loc is not None:
        line = f"\n  at {loc}"
        if function:
            line += f", in {function}"
        text = loc.source_line()
        if text is not None:
            line += "\n" + caret_snippet(text, loc.col)
    elif function:
        line = f"\n  in {function}"
    return f"{line}\n  {verb}: {frame.node}"


class InterpreterError(PyjitError, RuntimeError):
    """An operator failed while a graph ran.

    Attributes: ``node`` (the failing node's one-line text), ``location`` (its
    :class:`~pyjit.ir.SourceLocation` or None), ``frames`` (the traceback: a
    :class:`TraceFrame` per activation, outermost first; the failing node's is
    the last); the original exception is ``__cause__``.
    """

    def __init__(self, message: str, *, node: Optional[str] = None, location=None,
                 frames: Sequence[TraceFrame] = ()) -> None:
        super().__init__(message)
        self.node = node
        self.location = location
        self.frames: Tuple[TraceFrame, ...] = tuple(frames)


class JITException(InterpreterError):
    """The graph raised an exception itself (``prim::RaiseException``, the user's
    ``raise`` or a failed ``assert``).  ``python_class`` is the exception's class name
    as the graph gave it (e.g. ``builtins.ValueError``), ``msg`` its message."""

    def __init__(self, message: str, *, msg: str = "", python_class: Optional[str] = None,
                 node: Optional[str] = None, location=None,
                 frames: Sequence[TraceFrame] = ()) -> None:
        super().__init__(message, node=node, location=location, frames=frames)
        self.msg = msg
        self.python_class = python_class


class GraphRecursionError(InterpreterError, RecursionError):
    """Graphs called one another deeper than the interpreter allows
    (:func:`pyjit.set_recursion_limit`); the message names the limit."""


class TorchConversionError(PyjitError, ValueError):
    """:func:`pyjit.from_torch` met something pyjit cannot run yet (a module attribute
    read or written at run time, a method call) or cannot convert (a tensor constant
    of a dtype numpy lacks).  The message names it, with its ``file:line:col``."""


class ArchiveError(PyjitError, ValueError):
    """:func:`pyjit.load` cannot read a ``torch.jit.save`` archive: not a zip, a
    part missing or unreadable, a format version it does not know, a pickle naming
    a global outside the allow-list (refused before anything runs), or a file
    asking for more than :class:`pyjit.archive.Limits` allows.  The message names
    the archive part and what was wrong with it.  Every failure to load an
    archive is one (``docs/security.md``)."""


class ArchiveCompileError(CompileError, ArchiveError):
    """The code of an archive that pyjit cannot read or compile: a
    :class:`CompileError` at ``code/...py:line:col`` of the archive (with the
    line), and an :class:`ArchiveError` like every other failure of an archive."""
