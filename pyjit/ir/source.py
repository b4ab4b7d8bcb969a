"""Source locations: where in the user's program a node came from."""

from __future__ import annotations

import linecache
import os
from dataclasses import dataclass
from typing import Optional

__all__ = ["SourceLocation"]


@dataclass(frozen=True)
class SourceLocation:
    """A position in a source file, printed as torch prints it: ``file:line:col``.

    ``line`` is 1-based and ``col`` 0-based, as in torch's graph comments
    (``# f.py:3:12`` is the thirteenth character of line 3).
    """

    file: str
    line: int
    col: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col}"

    def short(self) -> str:
        """``file:line`` with the file's directory left out (``fib.py:9``), for
        labels that have no room for more."""
        return f"{os.path.basename(self.file)}:{self.line}"

    def source_line(self) -> Optional[str]:
        """The text of the line, or None when the file cannot be read."""
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
