"""The ``.debug_pkl`` beside each code file: where each stretch of the serialized
code came from in the user's source, so that pyjit's nodes (and so its run-time
errors) name the user's ``file:line:col`` as torch's do.

A debug pickle holds ``(offset, source_range, debug_handle)`` records sorted by
``offset``, a byte offset into the code file from which on the code was printed
for ``source_range``; torch 1.11 and later share the strings through a table::

    ("FORMAT_WITH_STRING_TABLE", strings, records)
    source_range = ((text_indices, file_index, first_line), start, end)

The source text is the concatenation of ``strings[i]`` for the indices (the
lines of the user's function), its file ``strings[file_index]``, its first line
``first_line`` of that file, and ``start``/``end`` byte offsets into the text.
Older archives inline ``(text, file, first_line)`` in each record.
"""

from __future__ import annotations

import bisect
import linecache
import os
from typing import Any, List, Optional, Tuple

from ..errors import ArchiveError
from ..ir import SourceLocation
from .unpickler import ArchiveUnpickler

__all__ = ["DebugRanges"]


class DebugRanges:
    """The source ranges of one code file, looked up by byte offset."""

    def __init__(self, raw: bytes, part: str) -> None:
        def no_storage(key: str) -> bytes:
            raise ArchiveError(f"{part} refers to a tensor storage")

        def no_object(name: str) -> type:
            raise ArchiveError(f"{part} names class {name}")

        data = ArchiveUnpickler(raw, part, no_storage, no_object).load()
        strings: Tuple[Any, ...] = ()
        if isinstance(data, tuple) and len(data) == 3 and data[0] == "FORMAT_WITH_STRING_TABLE":
            _, strings, data = data
        self._offsets: List[int] = []
        self._ranges: List[Optional[Tuple[str, str, int, int]]] = []
        try:
            for offset, rng, *_ in data:
                (text, file, first_line), start, _end = rng
                if strings:
                    text = "".join(strings[i] for i in text)
                    file = strings[file]
                self._offsets.append(offset)
                self._ranges.append((text, file, first_line, start) if file else None)
        except (TypeError, ValueError, IndexError):
            raise ArchiveError(f"{part} is not a table of source ranges") from None

    def original(self, offset: int) -> Optional[SourceLocation]:
        """The user's ``file:line:col`` the code at byte ``offset`` was printed for;
        the function's text is put in :mod:`linecache` for the error messages
        when the file itself is not here."""
        i = bisect.bisect_right(self._offsets, offset) - 1
        if i < 0 or self._ranges[i] is None:
            return None
        text, file, first_line, start = self._ranges[i]
        before = text.encode("utf-8")[:start].decode("utf-8", "replace")
        line = first_line + before.count("\n")
        col = len(before) - (before.rfind("\n") + 1)
        _remember(file, first_line, text)
        return SourceLocation(file, line, col)


def _remember(file: str, first_line: int, text: str) -> None:
    """Give linecache the lines of ``text`` at ``first_line`` of ``file`` when the
    file is not on this machine (torch saved them for that purpose)."""
    if os.path.isfile(file):
        return
    entry = linecache.cache.get(file)
    lines = list(entry[2]) if entry is not None else []
    new = text.splitlines(True)
    need = first_line - 1 + len(new)
    lines.extend("\n" for _ in range(need - len(lines)))
    lines[first_line - 1:need] = new
    linecache.cache[file] = (sum(map(len, lines)), None, lines, file)
