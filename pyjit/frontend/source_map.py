"""Where a scripted function's code lives: its parsed source and the map back to
the user's file.

``inspect.getsource`` hands back the function's lines, which ``textwrap.dedent``
shifts left so that ``ast`` can parse a method or a nested function on its own.
Every position ``ast`` reports is then relative to that snippet; this module adds
the two offsets back (the first line's number in the file, and the indentation
that dedent removed), so that node locations and error carets point into the real
file::

    # file.py, line 10 (indented 4):        snippet line 1, col 0
    #     @pyjit.script                     -> file.py:10:4
    #     def f(x: int) -> int:
"""

from __future__ import annotations

import ast
import inspect
import linecache
import textwrap
from typing import NoReturn, Optional

from ..errors import CompileError
from ..ir import SourceLocation

__all__ = ["FunctionSource"]


class FunctionSource:
    """The source of one Python function, parsed, with the offsets into its file.

    Attributes:
        file: the file name (``fn.__code__.co_filename``), as linecache knows it.
        text: the dedented source of the function (decorators included).
        lines: the source as the file has it, line by line.
        tree: the ``ast.FunctionDef`` of the function.
        first_line: the file's line number of the snippet's first line.
        indent: the number of columns ``textwrap.dedent`` removed.
    """

    def __init__(self, fn) -> None:
        self.name = getattr(fn, "__qualname__", getattr(fn, "__name__", "<function>"))
        code = getattr(fn, "__code__", None)
        if code is None:
            raise TypeError(f"pyjit.script expects a Python function, not {type(fn).__name__}")
        self.file = code.co_filename
        try:
            lines, first_line = inspect.getsourcelines(fn)
        except (OSError, TypeError) as exc:
            raise CompileError(f"cannot read the source of {self.name!r} ({exc}); pyjit.script "
                               "needs functions defined in a file", code.co_firstlineno, 0,
                               file=self.file) from None
        self.lines = tuple(lines)   # as the file has them, for a pickle by value
        raw = "".join(lines)
        self.text = textwrap.dedent(raw)
        self.first_line = max(first_line, 1)
        first_raw = next((ln for ln in lines if ln.strip()), "")
        first_new = next((ln for ln in self.text.splitlines(True) if ln.strip()), "")
        self.indent = len(first_raw) - len(first_new)
        try:
            module = ast.parse(self.text)
        except SyntaxError as exc:  # e.g. a lambda whose line holds more than itself
            raise CompileError(f"cannot parse the source of {self.name!r}: {exc.msg}",
                               self.first_line + (exc.lineno or 1) - 1,
                               (exc.offset or 1) - 1 + self.indent, file=self.file,
                               line_text=self.line_text(self.first_line + (exc.lineno or 1) - 1)
                               ) from None
        defs = [n for n in module.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
        if len(defs) != 1 or isinstance(defs[0], ast.AsyncFunctionDef):
            raise CompileError(f"pyjit.script compiles plain 'def' functions; {self.name!r} "
                               "is not one (a lambda or an async function?)",
                               self.first_line, self.indent, file=self.file,
                               line_text=self.line_text(self.first_line))
        self.tree: ast.FunctionDef = defs[0]

    # -- positions ---------------------------------------------------------------
    def line_of(self, node: ast.AST) -> int:
        """The file's (1-based) line number of ``node``."""
        return self.first_line + getattr(node, "lineno", 1) - 1

    def col_of(self, node: ast.AST) -> int:
        """The file's (0-based) column of ``node``."""
        return getattr(node, "col_offset", 0) + self.indent

    def location(self, node: ast.AST) -> SourceLocation:
        """The :class:`SourceLocation` that nodes emitted for ``node`` carry."""
        return SourceLocation(self.file, self.line_of(node), self.col_of(node))

    def line_text(self, line: int) -> Optional[str]:
        text = linecache.getline(self.file, line)
        return text.rstrip("\n") if text else None

    # -- errors --------------------------------------------------------------------
    def error(self, node: ast.AST, message: str) -> CompileError:
        """A :class:`CompileError` at ``node``, with the line and a caret."""
        line = self.line_of(node)
        return CompileError(message, line, self.col_of(node), file=self.file,
                            line_text=self.line_text(line))

    def fail(self, node: ast.AST, message: str) -> NoReturn:
        raise self.error(node, message)

    def where(self, node: ast.AST) -> str:
        """``line N`` for messages that name a second place."""
        return f"line {self.line_of(node)}"
