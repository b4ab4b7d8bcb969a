"""Operators on ``str``, with the byte model TorchScript's strings follow.

A TorchScript ``str`` is a C++ ``std::string``: the UTF-8 bytes of its text.  Every
operator works on those bytes (checked against torch 2.13):

* lengths, indices, slices and offsets count bytes: ``len("日本") == 6``, and
  ``s[s.find("語"):]`` is the tail of ``s`` from that character on;
* ``s[i]``, slices, ``list(s)`` and iteration may cut a character into pieces,
  which stay bytes until joined again (``s[0] + s[1:]`` is ``s``);
* character classes and case mappings are C's ``<cctype>`` in the "C" locale, so
  ASCII only: ``"straße é".upper()`` is ``"STRAßE é"``, ``"١٢٣".isdigit()`` is
  False, and ``split()`` splits on the bytes of torch's own whitespace list.

pyjit keeps Python ``str`` objects.  A str stands for its bytes
``s.encode("utf-8", "surrogateescape")``: a byte that is not part of a valid UTF-8
character is a lone surrogate ``U+DC80..U+DCFF``, so no byte is ever lost.  Every
str an operator returns is *canonical*, the ``surrogateescape`` decoding of its
bytes (:func:`from_bytes`), so that the pieces of a character, joined, are that
character again, and equal bytes are equal (and equally hashed) strs.  ASCII strs
are their own bytes and take fast paths.

Where torch hands Python a result that is not UTF-8 it raises
``UnicodeDecodeError``; pyjit returns the str with its surrogate escapes (encode
it with ``surrogateescape`` to get torch's bytes).  Where torch's algorithm never
ends (``replace`` or ``count`` with an empty pattern and no limit, ``rsplit`` on an
empty separator) pyjit raises a ``ValueError`` saying so instead of hanging.

Registered here: ``aten::len add mul __getitem__ slice __contains__ list ord chr``,
the comparisons, and every ``str`` method TorchScript has.  ``str()``, ``format``
and ``%`` are in :mod:`pyjit.ops.formatting`.
"""

from __future__ import annotations

import operator
from typing import List, Optional, Tuple

from ..registry import library as R
from .slicing import torch_slice

__all__ = ["to_bytes", "from_bytes", "canonical", "string_len", "string_getitem",
           "string_slice", "concat", "WHITESPACE", "LINE_BREAKS"]

#: The bytes ``split()`` splits on: torch's list ``" \t\n\r\v\f\x1c\x1d\x1e\x85"``
#: plus U+2028 and U+2029 written in UTF-8 -- searched byte by byte, so each byte
#: of those two characters is a separator of its own.
WHITESPACE = frozenset(b" \t\n\r\x0b\x0c\x1c\x1d\x1e\x85" + "\u2028\u2029".encode())
#: The bytes ``splitlines()`` splits on, one at a time (``"\r\n"`` is two breaks).
LINE_BREAKS = frozenset(b"\n\r\x0b\x0c\x1c\x1d\x1e\x85" + "\u2028\u2029".encode())


def to_bytes(s: str) -> bytes:
    """The bytes a str stands for."""
    return s.encode("utf-8", "surrogateescape")


def from_bytes(data: bytes) -> str:
    """The canonical str of some bytes (invalid UTF-8 kept as surrogate escapes)."""
    return data.decode("utf-8", "surrogateescape")


def canonical(s: str) -> str:
    """``s`` made canonical, after pieces were joined: bytes of a character cut
    apart and put back together are that character again."""
    return s if s.isascii() else from_bytes(to_bytes(s))


def _substr_error(pos: int, size: int) -> IndexError:
    """``std::string::substr``'s ``out_of_range`` when ``pos`` is past the end."""
    return IndexError(f"basic_string::substr: __pos (which is {pos}) > "
                      f"this->size() (which is {size})")


def _window(size: int, start: int, end: int) -> Tuple[int, int]:
    """torch's reading of ``start``/``end`` offsets: negative ones count from the
    end and stop at 0, and ``end=-1`` is the end itself."""
    if start < 0:
        start = max(0, size + start)
    if end < 0:
        end = max(0, size + end + 1)
    return start, end


# -- size, indexing, slicing, joining ---------------------------------------------

def string_len(s: str) -> int:
    """``len(s)``: bytes, so ``len("é") == 2``."""
    return len(s) if s.isascii() else len(to_bytes(s))


def string_getitem(s: str, i: int) -> str:
    """``s[i]``: byte ``i`` (a negative index counts from the end); out of range
    fails as ``std::string::at`` does, with its message."""
    data = s if s.isascii() else to_bytes(s)
    n = i + len(data) if i < 0 else i
    if not 0 <= n < len(data):
        raise IndexError(f"basic_string::at: __n (which is {n % 2 ** 64}) >= this->size() "
                         f"(which is {len(data)})")
    return s[n] if data is s else from_bytes(data[n:n + 1])


def string_slice(s: str, start: Optional[int], end: Optional[int], step: int) -> str:
    """``s[start:end:step]`` on the bytes, with torch's bounds (:func:`torch_slice`)."""
    bounds = torch_slice(start, end, step)
    if s.isascii():
        return s[bounds]
    return from_bytes(to_bytes(s)[bounds])


def string_list(s: str) -> List[str]:
    """``list(s)``: one str per byte."""
    if s.isascii():
        return list(s)
    return [from_bytes(bytes((b,))) for b in to_bytes(s)]


def concat(a: str, b: str) -> str:
    """``a + b``.  Only two non-ASCII pieces can complete a cut character."""
    if a.isascii() or b.isascii():
        return a + b
    return from_bytes(to_bytes(a) + to_bytes(b))


def repeat(s: str, n: int) -> str:
    return canonical(s * n)


def join(sep: str, parts: List[str]) -> str:
    return canonical(sep.join(parts))


def _compare(op):
    def compare(a: str, b: str) -> bool:
        # Code-point order is byte order for valid UTF-8, not for surrogate escapes.
        if a.isascii() and b.isascii():
            return op(a, b)
        return op(to_bytes(a), to_bytes(b))
    compare.__name__ = op.__name__
    return compare


def contains(s: str, sub: str) -> bool:
    return sub in s if s.isascii() else to_bytes(sub) in to_bytes(s)


def string_ord(s: str) -> int:
    """``ord(s)`` of a one-byte string: that byte."""
    data = to_bytes(s)
    if len(data) != 1:
        raise ValueError(f"String for ord() must be 1 character, found {len(data)}")
    return data[0]


def string_chr(i: int) -> str:
    """``chr(i)``: torch checks the range of a code point, then keeps one byte,
    ``i % 256`` (so ``chr(233)`` is the lone byte 0xE9, not ``"é"``)."""
    if not 0 <= i < 1114111:  # sic: torch excludes 0x10FFFF too
        raise ValueError(f"chr() arg not in range(0x110000), found {i}")
    return from_bytes(bytes((i & 0xFF,)))


# -- searching --------------------------------------------------------------------

def _find(s: str, sub: str, start: int, end: int, last: bool) -> int:
    data, pat = to_bytes(s), to_bytes(sub)
    start, end = _window(len(data), start, end)
    if end > start:
        if start > len(data):
            raise _substr_error(start, len(data))
        data = data[start:end]
    else:
        data = b""
    if len(data) < len(pat):
        return -1
    pos = data.rfind(pat) if last else data.find(pat)
    return -1 if pos < 0 else pos + start


def find(s: str, sub: str, start: int = 0, end: int = -1) -> int:
    """``s.find(sub, start, end)``: byte offsets; ``end=-1`` is the end."""
    return _find(s, sub, start, end, last=False)


def rfind(s: str, sub: str, start: int = 0, end: int = -1) -> int:
    return _find(s, sub, start, end, last=True)


def index(s: str, sub: str, start: int = 0, end: int = -1) -> int:
    pos = _find(s, sub, start, end, last=False)
    if pos < 0:
        raise ValueError("ValueError: substring not found")
    return pos


def rindex(s: str, sub: str, start: int = 0, end: int = -1) -> int:
    pos = _find(s, sub, start, end, last=True)
    if pos < 0:
        raise ValueError("ValueError: substring not found")
    return pos


def count(s: str, sub: str, start: int = 0, end: int = -1) -> int:
    """``s.count(sub, start, end)``: the non-overlapping occurrences that *start*
    before ``end`` (torch's rule; Python's must also end before it)."""
    data, pat = to_bytes(s), to_bytes(sub)
    if start > len(data):
        return 0
    start, end = _window(len(data), start, end)
    if not pat:
        if start < end:
            raise ValueError("count() of an empty string never ends in TorchScript")
        return 0
    n, pos = 0, data.find(pat, start)
    while 0 <= pos < end:
        n += 1
        pos = data.find(pat, pos + len(pat))
    return n


def _affix_window(s: str, start: int, end: int) -> bytes:
    """The bytes ``startswith``/``endswith`` look at: ``substr(start, end - start)``,
    where a negative length means the rest of the string."""
    data = to_bytes(s)
    start, end = _window(len(data), start, end)
    if start > len(data):
        raise _substr_error(start, len(data))
    return data[start:] if end < start else data[start:end]


def startswith(s: str, prefix: str, start: int = 0, end: int = -1) -> bool:
    return _affix_window(s, start, end).startswith(to_bytes(prefix))


def endswith(s: str, suffix: str, start: int = 0, end: int = -1) -> bool:
    return _affix_window(s, start, end).endswith(to_bytes(suffix))


# -- splitting --------------------------------------------------------------------

def _split_bytes(data: bytes, delimiters: frozenset) -> List[bytes]:
    """The pieces between bytes of ``delimiters``, empty ones dropped."""
    pieces, begin = [], 0
    for pos, byte in enumerate(data):
        if byte in delimiters:
            if pos > begin:
                pieces.append(data[begin:pos])
            begin = pos + 1
    if begin < len(data):
        pieces.append(data[begin:])
    return pieces


def split(s: str, sep: Optional[str] = None, maxsplit: int = -1) -> List[str]:
    """``s.split(sep, maxsplit)``.  Without a separator torch splits on every byte
    of :data:`WHITESPACE` and ignores ``maxsplit``."""
    data = to_bytes(s)
    if sep is None:
        return [from_bytes(p) for p in _split_bytes(data, WHITESPACE)]
    if not sep:
        raise ValueError("ValueError: empty separator")
    return [from_bytes(p) for p in data.split(to_bytes(sep), maxsplit)]


def rsplit(s: str, sep: str = " ", maxsplit: int = -1) -> List[str]:
    """``s.rsplit(sep, maxsplit)``: torch's separator defaults to a space."""
    if not sep:
        if maxsplit < 0:
            raise ValueError("rsplit() on an empty separator never ends in TorchScript")
        # Each split finds the empty separator at the end again: empty pieces.
        return [s] + [""] * maxsplit
    return [from_bytes(p) for p in to_bytes(s).rsplit(to_bytes(sep), maxsplit)]


def splitlines(s: str, keepends: bool = False) -> List[str]:
    """``s.splitlines(keepends)``, torch's way: every byte of :data:`LINE_BREAKS`
    ends a line (``"\\r\\n"`` ends two), a final break adds no empty line, and
    ``keepends`` adds each break as an item of its own."""
    data = to_bytes(s)
    lines, begin = [], 0
    for pos, byte in enumerate(data):
        if byte in LINE_BREAKS:
            lines.append(data[begin:pos])
            if keepends:
                lines.append(data[pos:pos + 1])
            begin = pos + 1
    if begin != len(data):
        lines.append(data[begin:])
    return [from_bytes(line) for line in lines]


def partition(s: str, sep: str) -> Tuple[str, str, str]:
    data, pat = to_bytes(s), to_bytes(sep)
    pos = data.find(pat)
    if pos < 0:
        return s, "", ""
    return from_bytes(data[:pos]), sep, from_bytes(data[pos + len(pat):])


def rpartition(s: str, sep: str) -> Tuple[str, str, str]:
    data, pat = to_bytes(s), to_bytes(sep)
    pos = data.rfind(pat)
    if pos < 0:
        return "", "", s
    return from_bytes(data[:pos]), sep, from_bytes(data[pos + len(pat):])


def replace(s: str, old: str, new: str, count: int = -1) -> str:
    """``s.replace(old, new, count)``.  torch searches on after each replacement,
    so an empty ``old`` puts ``new`` ``count`` times in front (and never ends when
    there is no count)."""
    if not old:
        if count < 0:
            raise ValueError("replace() of an empty string never ends in TorchScript")
        return canonical(new * count + s)
    return from_bytes(to_bytes(s).replace(to_bytes(old), to_bytes(new), count))


# -- padding and stripping --------------------------------------------------------

def _fill_byte(fillchar: str) -> bytes:
    fill = to_bytes(fillchar)
    if len(fill) != 1:
        raise TypeError("TypeError: The fill character must be exactly one character long")
    return fill


def center(s: str, width: int, fillchar: str = " ") -> str:
    """torch's ``center``: the odd padding byte goes right, or left when ``width``
    is odd."""
    fill, data = _fill_byte(fillchar), to_bytes(s)
    if len(data) > width:
        return s
    pad = width - len(data)
    left, right = pad // 2, (pad + 1) // 2
    if width % 2:
        left, right = right, left
    return from_bytes(fill * left + data + fill * right)


def ljust(s: str, width: int, fillchar: str = " ") -> str:
    fill, data = _fill_byte(fillchar), to_bytes(s)
    return from_bytes(data + fill * max(0, width - len(data)))


def rjust(s: str, width: int, fillchar: str = " ") -> str:
    fill, data = _fill_byte(fillchar), to_bytes(s)
    return from_bytes(fill * max(0, width - len(data)) + data)


def zfill(s: str, width: int) -> str:
    """Zeros in front, up to ``width`` bytes; unlike Python's, a sign is not moved."""
    return "0" * max(0, width - string_len(s)) + s


def expandtabs(s: str, tabsize: int = 8) -> str:
    """Each tab becomes spaces up to the next multiple of ``tabsize`` bytes from the
    start of the string (torch's column does not restart after a newline); a
    ``tabsize`` of 0 or less drops the tabs."""
    out = bytearray()
    for byte in to_bytes(s):
        if byte != 9:
            out.append(byte)
        elif tabsize > 0:
            out.append(32)
            while len(out) % tabsize:
                out.append(32)
    return from_bytes(bytes(out))


def _stripper(method):
    def strip(s: str, chars: str = " \n\t\f\v") -> str:
        # ``chars`` is a set of bytes: "é" strips 0xC3 and 0xA9 wherever they are.
        if s.isascii() and chars.isascii():
            return method(s, chars)
        return from_bytes(getattr(bytes, method.__name__)(to_bytes(s), to_bytes(chars)))
    strip.__name__ = method.__name__
    return strip


# -- character classes and case: ASCII only ---------------------------------------

def _bytewise(method):
    """A ``bytes`` method applied to the str's bytes: Python's ``bytes`` methods are
    ASCII-only, as C's ``<cctype>`` is in the "C" locale."""
    def op(s: str):
        result = method(to_bytes(s))
        return from_bytes(result) if isinstance(result, bytes) else result
    op.__name__ = method.__name__
    op.__doc__ = f"``str.{method.__name__}`` with ASCII-only character classes."
    return op


def isidentifier(s: str) -> bool:
    """torch's (Python 2's) rule: not empty, not starting with a digit, and only
    letters and digits -- no underscore, no non-ASCII byte."""
    return bool(s) and s.isascii() and not s[0].isdigit() and s.isalnum()


def isprintable(s: str) -> bool:
    """Every byte is printable ASCII (the empty string is printable)."""
    return s.isascii() and all(" " <= c <= "~" for c in s)


# -- registrations -------------------------------------------------------------

R.implement("aten::add.str", concat)
R.register("aten::mul", repeat, types=["str", "int"])
R.implement("aten::len.str", string_len)
R.implement("aten::eq.str", operator.eq)
R.implement("aten::ne.str", operator.ne)
for _name in ("lt", "le", "gt", "ge"):
    R.implement(f"aten::{_name}.str", _compare(getattr(operator, _name)))
R.register("aten::__contains__", contains, types=["str", "str"])
R.implement("aten::__getitem__.str", string_getitem)
# what torch's frontend once emitted for s[i]; the same byte
R.implement("prim::StringIndex", string_getitem)
R.implement("aten::slice.str", string_slice)
R.implement("aten::list", string_list)
R.implement("aten::ord", string_ord)
R.implement("aten::chr", string_chr)
R.implement("aten::split.str", split)
R.register("aten::split", split, types=["str", "str?"])
R.register("aten::split", split, types=["str"])
R.implement("aten::rsplit", rsplit)
R.implement("aten::splitlines", splitlines)
R.register("aten::splitlines", splitlines, types=["str"])
R.implement("aten::join", join)
R.implement("aten::replace", replace)
R.implement("aten::partition", partition)
R.implement("aten::rpartition", rpartition)
for _fn in (find, rfind, index, rindex, count, startswith, endswith):
    R.register(f"aten::{_fn.__name__}", _fn, types=["str", "str", "int", "int"])
for _fn in (center, ljust, rjust):
    R.implement(f"aten::{_fn.__name__}", _fn)
R.implement("aten::zfill", zfill)
R.implement("aten::expandtabs", expandtabs)
for _method in (str.strip, str.lstrip, str.rstrip):
    R.implement(f"aten::{_method.__name__}", _stripper(_method))
for _method in (bytes.lower, bytes.upper, bytes.title, bytes.capitalize, bytes.swapcase,
                bytes.isdigit, bytes.isalpha, bytes.isalnum, bytes.isspace, bytes.islower,
                bytes.isupper, bytes.istitle):
    R.implement(f"aten::{_method.__name__}", _bytewise(_method))
# torch's isdecimal and isnumeric are isdigit.
R.implement("aten::isdecimal", _bytewise(bytes.isdigit))
R.implement("aten::isnumeric", _bytewise(bytes.isdigit))
R.implement("aten::isidentifier", isidentifier)
R.implement("aten::isprintable", isprintable)
