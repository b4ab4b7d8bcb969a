"""TorchScript's text of values: ``str(v)``, ``"{}".format(...)`` and ``"%d" % x``.

:func:`torch_str` is how TorchScript writes any value (IValue's ``operator<<``),
which is not Python's ``str``:

* floats always show a dot and up to 17 significant digits: ``2.``, ``0.10000000000000001``,
  ``1e+20`` (``-0.0`` prints ``0.``);
* strings inside containers are not quoted: ``[a, b]``, ``(1, b, 2.)``, ``{a: 1.}``;
* tensors use ATen's C++ printer (:mod:`pyjit.ops.tensor_format`).

``aten::format`` replaces each literal ``{}`` in turn with ``torch_str`` of the next
argument (no format specs, no indices: ``"{0}"`` stays as it is); too few
arguments raise ``Too few arguments for format string: ...``, extra ones are ignored.

``aten::percentFormat`` is ``fmt % args`` (:func:`percent_format`): C's conversions,
not Python's, with torch's own checks and messages.  Results are strs of the byte
model of :mod:`pyjit.ops.strings` (``"%c" % 233`` is the single byte 0xE9).

Registered here: ``aten::str``, ``aten::format``, ``aten::percentFormat``.
"""

from __future__ import annotations

import math
from typing import Any, Tuple

import numpy as np

from ..ir.printer import ivalue_text
from ..registry import library as R
from .strings import canonical, from_bytes, to_bytes
from .tensor_format import format_tensor

__all__ = ["torch_str", "format_float", "torch_format", "percent_format", "tag_kind"]


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
    text = ivalue_text(v, torch_str, format_float)
    if text is not None:
        return text
    if isinstance(v, (np.ndarray, np.generic)):
        return format_tensor(v)
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
    return canonical("".join(out))


# -- % formatting ---------------------------------------------------------------------

# IValue's tags for the kinds of values pyjit has, bool before int.
_TAG_KINDS = ((type(None), "None"), (bool, "Bool"), (int, "Int"), (float, "Double"),
              (str, "String"), ((np.ndarray, np.generic), "Tensor"), (tuple, "Tuple"),
              (list, "GenericList"), (dict, "GenericDict"))


def tag_kind(v: Any) -> str:
    """The kind of IValue torch names in its messages (``IValue::tagKind``)."""
    for cls, kind in _TAG_KINDS:
        if isinstance(v, cls):
            return kind
    return type(v).__name__


# ``static_cast<int>`` of a double on x86: out of range, nan and inf give INT_MIN.
_INT_MIN = -2 ** 31


def _c_int(x: float) -> int:
    if math.isfinite(x) and -2 ** 31 - 1 < x < 2 ** 31:
        return int(x)
    return _INT_MIN


def _number(key: str, arg: Any) -> Any:
    if not isinstance(arg, (int, float)):
        raise ValueError(f"%{key} requires a number for formatting, but got {tag_kind(arg)}")
    if isinstance(arg, bool):
        # torch lets a bool through its number check, then fails to read a double
        # out of it: this is its message, internal assertion and all.
        raise ValueError('0 INTERNAL ASSERT FAILED at "/__w/pytorch/pytorch/aten/src/ATen/'
                         'core/ivalue.h":544, please report a bug to PyTorch. expected double')
    return arg


def _convert(key: str, arg: Any) -> str:
    """One conversion of :func:`percent_format`."""
    if key in "di":
        x = _number(key, arg)
        return str(x) if isinstance(x, int) else str(_c_int(x))
    if key in "eEfF":
        # torch prints the value as a C float (1e20 is 100000002004087734272), and
        # its %F is %f (nan and inf stay lower case).
        with np.errstate(over="ignore"):
            x = float(np.float32(_number(key, arg)))
        return ("%f" if key == "F" else "%" + key) % x
    if key == "c":
        if isinstance(arg, int) and not isinstance(arg, bool):
            return from_bytes(bytes((arg & 0xFF,)))
        if isinstance(arg, str) and len(to_bytes(arg)) == 1:
            return arg
        raise ValueError(f"%c requires an int or char for formatting, but got {tag_kind(arg)}")
    if key == "s":
        return torch_str(arg)
    raise ValueError(f"The specifier %{key} is not supported in TorchScript format strings")


def percent_format(fmt: str, args: Any) -> str:
    """``aten::percentFormat``: ``fmt % args``, torch's way.

    A tuple gives one argument per conversion, anything else is one argument.
    Conversions are one character after ``%``: ``%%``, ``d i`` (an int, or a float
    cut to a 32-bit C int), ``e E f F`` (the value as a 32-bit float), ``c`` (an
    int's low byte, or a one-byte str) and ``s`` (:func:`torch_str`); no flags, no
    width, so ``%5d`` is "The specifier %5 is not supported".  Running out of
    arguments is checked before the conversion is read, surplus ones at the end.
    """
    items: Tuple[Any, ...] = args if isinstance(args, tuple) else (args,)
    out, used, begin = [], 0, 0
    while True:
        pos = fmt.find("%", begin)
        if pos < 0:
            out.append(fmt[begin:])
            break
        if pos == len(fmt) - 1:
            raise ValueError("Incomplete format specifier")
        out.append(fmt[begin:pos])
        key = from_bytes(to_bytes(fmt[pos + 1])[:1])  # one byte, as torch reads it
        begin = pos + 2
        if key == "%":
            out.append("%")
            continue
        if used >= len(items):
            raise ValueError("Too few arguments for format string")
        out.append(_convert(key, items[used]))
        used += 1
    if used != len(items):
        raise ValueError("Too many arguments for format string")
    return canonical("".join(out))


R.implement("aten::str", torch_str)
R.register("aten::format", torch_format, types=["str", "t"], varargs=True)
R.register("aten::format", torch_format, types=["str"])
R.register("aten::percentFormat", percent_format, types=["str", "t"])
