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

The records are the archive's, so what they name is only text: the file is never
opened (the lines of a message come from the saved function texts, through a
:class:`~pyjit.ir.source.SourceLines` of this archive, never the process-wide
:mod:`linecache`), a text is joined only when a node is located in it, and at most
``Limits.source_chars`` long, all of them at most ``Limits.pickle_expansion`` times
the debug pickle's size.
"""

from __future__ import annotations

import bisect
from typing import Any, Dict, List, Optional, Tuple

from ..errors import ArchiveError
from ..ir import SourceLocation
from ..ir.source import SourceLines
from .limits import DEFAULT_LIMITS, Limits
from .unpickler import ArchiveUnpickler

__all__ = ["DebugRanges"]


class DebugRanges:
    """The source ranges of one code file, looked up by byte offset."""

    def __init__(self, raw: bytes, part: str, limits: Limits = DEFAULT_LIMITS) -> None:
        self._part = part
        self._limits = limits
        self._raw: Optional[bytes] = raw
        self._chars_left = limits.pickle_expansion * len(raw) + limits.source_chars
        self._texts: Dict[int, Tuple[bytes, List[int], str, int, SourceLines]] = {}
        self._lines: Dict[str, SourceLines] = {}

    def _read(self) -> None:
        """Unpickle the records, the first time a node is located (loading a module
        reads none of them: only compiling its code needs them)."""
        data = ArchiveUnpickler(self._raw, self._part, limits=self._limits).load()
        strings: Tuple[Any, ...] = ()
        if type(data) is tuple and len(data) == 3 and data[0] == "FORMAT_WITH_STRING_TABLE":
            _, strings, data = data
            if type(strings) not in (tuple, list) or not all(type(x) is str for x in strings):
                raise self._malformed("its string table holds something other than strings")
        offsets: List[int] = []
        ranges: List[Any] = []
        if type(data) not in (tuple, list):
            raise self._malformed(f"it holds a {type(data).__name__}, not a list of records")
        last = -1
        for record in data:
            if type(record) is not tuple or len(record) < 2 or type(record[0]) is not int:
                raise self._malformed("a record is not (offset, source range, ...)")
            if record[0] < last:
                raise self._malformed("its records are not sorted by offset")
            last = record[0]
            offsets.append(record[0])
            ranges.append(record[1])
        self._strings, self._offsets, self._ranges = strings, offsets, ranges
        self._raw = None    # read: a failure above leaves it to fail again, alike

    def _malformed(self, why: str) -> ArchiveError:
        return ArchiveError(f"{self._part} is not a table of source ranges: {why}")

    def original(self, offset: int) -> Optional[SourceLocation]:
        """The user's ``file:line:col`` the code at byte ``offset`` was printed for,
        carrying the function's saved text for the messages."""
        if self._raw is not None:
            self._read()
        i = bisect.bisect_right(self._offsets, offset) - 1
        if i < 0 or self._ranges[i] is None:
            return None
        rng = self._ranges[i]
        if not (type(rng) is tuple and len(rng) == 3 and type(rng[0]) is tuple
                and len(rng[0]) == 3 and type(rng[1]) is int and rng[1] >= 0):
            raise self._malformed("a source range is not ((text, file, line), start, end)")
        source, start = rng[0], rng[1]
        found = self._texts.get(id(source))
        if found is None:
            found = self._texts[id(source)] = self._source(source)
        encoded, starts, file, first_line, lines = found
        if not file:
            return None
        k = bisect.bisect_right(starts, start) - 1
        col = len(encoded[starts[k]:start].decode("utf-8", "replace"))
        return SourceLocation(file, first_line + k, col, lines)

    def _source(self, source: Tuple[Any, Any, Any]) -> Tuple[bytes, List[int], str, int,
                                                             SourceLines]:
        """A record's source once: its text (joined from the string table within the
        limits) as bytes with its lines' starts, its file, its first line, and the
        archive's lines of that file with the text added."""
        text, file, first_line = source
        if type(first_line) is not int or first_line < 0:
            raise self._malformed(f"a first line of {str(first_line)[:40]}")
        if self._strings:
            strings = self._strings
            if type(text) not in (tuple, list) or type(file) is not int or not all(
                    type(j) is int and 0 <= j < len(strings) for j in text) or \
                    not 0 <= file < len(strings):
                raise self._malformed("a source names strings its table does not have")
            self._spend(sum(len(strings[j]) for j in text))
            text, file = "".join(strings[j] for j in text), strings[file]
        elif type(text) is not str or type(file) is not str:
            raise self._malformed("a source's text or file is not a string")
        else:
            self._spend(len(text))
        file = file[:self._limits.name_chars * 4]
        encoded = text.encode("utf-8")
        starts = [0]
        for line in encoded.splitlines(True):
            starts.append(starts[-1] + len(line))
        lines = self._lines.get(file)
        if lines is None:
            lines = self._lines[file] = SourceLines()
        lines.add(first_line, text)
        return encoded, starts, file, first_line, lines

    def _spend(self, chars: int) -> None:
        if chars > self._limits.source_chars:
            raise ArchiveError(f"{self._part}: a function's saved text of {chars} characters "
                               f"(Limits.source_chars: {self._limits.source_chars})")
        self._chars_left -= chars
        if self._chars_left < 0:
            raise ArchiveError(f"{self._part}: the saved texts of its functions are more than "
                               f"{self._limits.pickle_expansion} times its size "
                               "(Limits.pickle_expansion)")
