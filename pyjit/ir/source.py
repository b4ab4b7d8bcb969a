"""Source locations: where in the user's program a node came from.

A location names a file, but the file is only read when the location came from
the user's own program (``@pyjit.script`` compiles a function of a file on this
machine).  A location that came from outside -- a ``# file:line:col`` comment in
IR text, or a ``.debug_pkl`` record of a saved archive -- is text somebody else
wrote: it carries the lines pyjit was given with it (:class:`SourceLines`, empty
for IR text), and pyjit never opens the path it names.
"""

from __future__ import annotations

import bisect
import linecache
import os
from dataclasses import dataclass, field
from typing import List, Optional, Tuple

__all__ = ["SourceLocation", "SourceLines", "NO_LINES"]


class SourceLines:
    """Lines of one source file that pyjit was handed (an archive's code, the
    function texts its debug records saved), by line number, never read from disk.

    Stretches are added as ``(first_line, text)``; a line two stretches give is the
    later one's.  Memory is the texts' own: a stretch starting at line 10**9 costs
    what its text costs, not 10**9 empty lines.
    """

    __slots__ = ("_starts", "_spans")

    def __init__(self, text: Optional[str] = None, first_line: int = 1) -> None:
        self._starts: List[int] = []
        self._spans: List[Tuple[int, List[str]]] = []
        if text is not None:
            self.add(first_line, text)

    def add(self, first_line: int, text: str) -> None:
        """Give the lines of ``text`` numbers from ``first_line`` on."""
        i = bisect.bisect_left(self._starts, first_line)
        if i < len(self._starts) and self._starts[i] == first_line:
            lines = text.splitlines()
            if len(self._spans[i][1]) < len(lines):
                self._spans[i] = (first_line, lines)   # else the same text, seen again
            return
        lines = text.splitlines()
        self._starts.insert(i, first_line)
        self._spans.insert(i, (first_line, lines))

    def get(self, line: int) -> Optional[str]:
        """The text of line ``line`` (without its newline), or None."""
        # Stretches are few (one a function); the latest-starting one that
        # reaches the line has it.
        for i in range(bisect.bisect_right(self._starts, line) - 1, -1, -1):
            first, lines = self._spans[i]
            if line - first < len(lines):
                return lines[line - first]
        return None

    def __reduce__(self):
        return (_rebuild_lines, (self._spans,))

    def __repr__(self) -> str:
        return f"<SourceLines: {sum(len(s) for _, s in self._spans)} lines>"


def _rebuild_lines(spans: List[Tuple[int, List[str]]]) -> SourceLines:
    out = SourceLines()
    for first, lines in spans:
        out.add(first, "\n".join(lines))
    return out


#: The lines of a file pyjit must not read: none (the locations of parsed IR text).
NO_LINES = SourceLines()


@dataclass(frozen=True)
class SourceLocation:
    """A position in a source file, printed as torch prints it: ``file:line:col``.

    ``line`` is 1-based and ``col`` 0-based, as in torch's graph comments
    (``# f.py:3:12`` is the thirteenth character of line 3).
    """

    file: str
    line: int
    col: int
    #: Where the line's text comes from when it is not the file on disk: the
    #: lines pyjit was given with the location (see the module docstring).
    lines: Optional[SourceLines] = field(default=None, compare=False, repr=False)

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col}"

    def short(self) -> str:
        """``file:line`` with the file's directory left out (``fib.py:9``), for
        labels that have no room for more."""
        return f"{os.path.basename(self.file)}:{self.line}"

    def source_line(self) -> Optional[str]:
        """The text of the line, or None when the file cannot be read."""
        if self.lines is not None:
            return self.lines.get(self.line)
        # linecache searches every sys.path entry for a relative name it cannot
        # open, which made each error on an unreadable file cost ~0.1 ms.
        if self.file not in linecache.cache and not os.path.isfile(self.file):
            return None
        text = linecache.getline(self.file, self.line)
        return text.rstrip("\n") if text else None

    def highlight(self) -> str:
        """``file:line:col``, then the source line and a caret under the column
        when the file is readable: the form error messages use."""
        text = self.source_line()
        if text is None:
            return str(self)
        return f"{self}\n    {text}\n    {' ' * self.col}^"

    @classmethod
    def parse(cls, text: str) -> "SourceLocation":
        """Read ``file:line:col`` (the file may itself contain colons)."""
        file, line, col = text.rsplit(":", 2)
        return cls(file, int(line), int(col))
