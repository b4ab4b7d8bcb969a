"""Strings: TorchScript's text form of values, ``aten::str``/``format``, and ``str`` methods.

:func:`torch_str` is how TorchScript writes any value (IValue's ``operator<<``),
which is not Python's ``str``:

* floats always show a dot and up to 17 significant digits: ``2.``, ``0.10000000000000001``,
  ``1e+20`` (``-0.0`` prints ``0.``);
* strings inside containers are not quoted: ``[a, b]``, ``(1, b, 2.)``, ``{a: 1.}``;
* tensors use ATen's C++ printer (:mod:`pyjit.ops.tensor_format`).

Strings are UTF-8 bytes to TorchScript: ``len``, indexing and slicing count bytes
(``len("日本") == 6``).

``aten::format`` replaces each literal ``{}`` in turn with ``torch_str`` of the next
argument (no format specs, no indices: ``"{0}"`` stays as it is); too few
arguments raise ``Too few arguments for format string: ...``, extra ones are ignored.

Registered here: ``aten::str``, ``aten::format``, ``aten::add(str, str)``, comparisons
and ``__contains__`` on strings, ``aten::len(str)``, ``__getitem__``/``slice`` on
strings, and the string methods TorchScript exposes (``lower upper strip split
join startswith endswith replace find count isdigit ...``).
"""

from __future__ import annotations

import math
import operator
from typing import Any, List, Optional

import numpy as np

from ..registry import default_registry as R
from .tensor_format import format_tensor

__all__ = ["torch_str", "format_float", "torch_format"]


def format_float(x: float) -> str:
    """A float as TorchScript's ``str`` writes it: integral values below 1e10 as
    ``2.`` (``-0.0`` too prints ``0.``), others with 17 significant digits and a dot
    when they would look like an int (``10000000000000000.``)."""
    if not math.isfinite(x):
        return "nan" if x != x else ("inf" if x > 0 else "-inf")
    if abs(x) < 1e10 and x == int(x):
        return f"{int(x)}."
    text = "%.17g" % x
    return text if "." in text or "e" in text else text + "."


def torch_str(v: Any) -> str:
    """The text TorchScript's ``str(v)``, ``"{}".format(v)`` and ``print(v)`` give."""
    if isinstance(v, str):
        return v
    if v is None:
        return "None"
    if isinstance(v, bool):
        return "True" if v else "False"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        return format_float(v)
    if isinstance(v, (np.ndarray, np.generic)):
        return format_tensor(v)
    if isinstance(v, list):
        return "[" + ", ".join(map(torch_str, v)) + "]"
    if isinstance(v, tuple):
        if len(v) == 1:
            return "(" + torch_str(v[0]) + ",)"
        return "(" + ", ".join(map(torch_str, v)) + ")"
    if isinstance(v, dict):
        return "{" + ", ".join(f"{torch_str(k)}: {torch_str(x)}" for k, x in v.items()) + "}"
    return str(v)


def torch_format(fmt: str, *args: Any) -> str:
    """``aten::format``: each ``{}`` takes the next argument's :func:`torch_str`."""
    pieces = fmt.split("{}")
    if len(pieces) - 1 > len(args):
        raise RuntimeError(f"Too few arguments for format string: {fmt}")
    out = [pieces[0]]
    for piece, arg in zip(pieces[1:], args):
        out.append(torch_str(arg))
        out.append(piece)
    return "".join(out)


def string_len(s: str) -> int:
    """``len(s)``: torch strings are UTF-8 bytes, so ``len("é") == 2``."""
    return len(s) if s.isascii() else len(s.encode("utf-8"))


def string_getitem(s: str, i: int) -> str:
    """``s[i]``: byte ``i`` of the UTF-8 text (a negative index counts from the end);
    out of range fails as ``std::string::at`` does, with its message, and a byte
    that is not a whole character fails to decode, as in torch."""
    data = s.encode("utf-8")
    n = i + len(data) if i < 0 else i
    if not 0 <= n < len(data):
        raise IndexError(f"basic_string::at: __n (which is {n % 2 ** 64}) >= this->size() "
                         f"(which is {len(data)})")
    return s[n] if s.isascii() else data[n:n + 1].decode("utf-8")


def string_slice(s: str, start: Optional[int], end: Optional[int], step: int) -> str:
    if s.isascii():
        return s[start:end:step]
    return s.encode("utf-8")[start:end:step].decode("utf-8")


def split(s: str, sep: Optional[str] = None, maxsplit: int = -1) -> List[str]:
    return s.split(sep, maxsplit)


def string_count(s: str, sub: str, start: int = 0, end: int = -1) -> int:
    # torch's end=-1 means "to the end", not "all but the last character".
    return s.count(sub, start, None if end == -1 else end)


def _find(method):
    def find(s: str, sub: str, start: int = 0, end: int = -1) -> int:
        return method(s, sub, start, None if end == -1 else end)
    find.__name__ = method.__name__
    return find


def _affix(method):
    def test(s: str, affix: str, start: int = 0, end: int = -1) -> bool:
        return method(s, affix, start, None if end == -1 else end)
    test.__name__ = method.__name__
    return test


def replace(s: str, old: str, new: str, count: int = -1) -> str:
    return s.replace(old, new, count)


def join(sep: str, parts: List[str]) -> str:
    return sep.join(parts)


def _strip(method):
    def strip(s: str, chars: str = " \n\t\f\v") -> str:
        # torch's default strips exactly these characters, not all Unicode space.
        return method(s, chars)
    strip.__name__ = method.__name__
    return strip


# -- registrations -------------------------------------------------------------

R.register("aten::str", torch_str, types=["t"])
R.register("aten::format", torch_format, types=["str", "t"], varargs=True)
R.register("aten::format", torch_format, types=["str"])
R.register("aten::add", operator.add, types=["str", "str"])
R.register("aten::mul", operator.mul, types=["str", "int"])
R.register("aten::len", string_len, types=["str"])
for _name, _fn in [("eq", operator.eq), ("ne", operator.ne), ("lt", operator.lt),
                   ("le", operator.le), ("gt", operator.gt), ("ge", operator.ge)]:
    R.register(f"aten::{_name}", _fn, types=["str", "str"])
R.register("aten::__contains__", operator.contains, types=["str", "str"])
R.register("aten::__getitem__", string_getitem, types=["str", "int"])
R.register("aten::slice", string_slice, types=["str", "int?", "int?", "int"])
R.register("aten::ord", ord, types=["str"])
R.register("aten::chr", chr, types=["int"])
R.register("aten::split", split, types=["str", "str?", "int"])
R.register("aten::split", split, types=["str", "str?"])
R.register("aten::split", split, types=["str"])
R.register("aten::join", join, types=["str", "str[]"])
R.register("aten::replace", replace, types=["str", "str", "str", "int"])
R.register("aten::count", string_count, types=["str", "str", "int", "int"])
for _name, _method in [("find", str.find), ("rfind", str.rfind)]:
    R.register(f"aten::{_name}", _find(_method), types=["str", "str", "int", "int"])
for _name, _method in [("startswith", str.startswith), ("endswith", str.endswith)]:
    R.register(f"aten::{_name}", _affix(_method), types=["str", "str", "int", "int"])
for _name, _method in [("strip", str.strip), ("lstrip", str.lstrip), ("rstrip", str.rstrip)]:
    R.register(f"aten::{_name}", _strip(_method), types=["str", "str"])
# Methods whose Python meaning is torch's, called straight from C.
for _name in ["lower", "upper", "title", "capitalize", "swapcase", "isdigit", "isalpha",
              "isalnum", "isspace", "islower", "isupper", "istitle", "isdecimal",
              "isnumeric", "isidentifier", "isprintable", "splitlines"]:
    R.register(f"aten::{_name}", getattr(str, _name), types=["str"])
R.register("aten::splitlines", str.splitlines, types=["str", "bool"])
for _name in ["center", "ljust", "rjust"]:
    R.register(f"aten::{_name}", getattr(str, _name), types=["str", "int", "str"])
R.register("aten::zfill", str.zfill, types=["str", "int"])
R.register("aten::expandtabs", str.expandtabs, types=["str", "int"])
R.register("aten::partition", str.partition, types=["str", "str"])
R.register("aten::rpartition", str.rpartition, types=["str", "str"])
R.register("aten::rsplit", str.rsplit, types=["str", "str", "int"])
for _name, _method in [("index", str.index), ("rindex", str.rindex)]:
    R.register(f"aten::{_name}", _find(_method), types=["str", "str", "int", "int"])
R.register("aten::list", list, types=["str"])
