"""How TorchScript turns a tensor into text: ``str(t)``, ``"{}".format(t)``, ``print(t)``.

Inside a graph these go through ATen's C++ printer (``at::print`` in
``ATen/core/Formatting.cpp``), not Python's ``repr``: one element per line for a
vector, a column-aligned matrix, ``(i,.,.) =`` headers for higher dimensions, and
a ``[ CPUFloatType{2,3} ]`` trailer::

    torch.tensor([1.5, 2.0])  ->  " 1.5000\\n 2.0000\\n[ CPUFloatType{2} ]"
    torch.tensor(7)           ->  "7\\n[ CPULongType{} ]"

The number format is chosen once per matrix, as ATen does: integers when every
finite value is integral, otherwise fixed with 4 decimals (scaled by a common
power of ten when the values are large), or scientific when magnitudes differ by
more than four orders.
"""

from __future__ import annotations

import math
from typing import List, Tuple

import numpy as np

__all__ = ["format_tensor"]

_TYPE_NAMES = {
    "float32": "Float", "float64": "Double", "float16": "Half", "int64": "Long",
    "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte", "bool": "Bool",
    "complex64": "ComplexFloat", "complex128": "ComplexDouble",
}

_LINESIZE = 80


def _print_format(values: np.ndarray) -> Tuple[float, int, str]:
    """ATen's ``__printFormat``: (scale, field width, printf conversion)."""
    flat = values.ravel()
    if flat.size == 0:
        return 1.0, 0, "g"
    finite = flat[np.isfinite(flat)]
    int_mode = bool(np.all(finite == np.ceil(finite)))
    exp_min = exp_max = 1.0
    if finite.size:
        exp_min = exp_max = abs(float(finite[0]))
        for x in finite.tolist():
            z = abs(x)
            if z < exp_min:
                exp_min = z
            if x > exp_max:  # ATen compares the signed value here
                exp_max = z
        exp_min = math.floor(math.log10(exp_min)) + 1 if exp_min != 0 else 1
        exp_max = math.floor(math.log10(exp_max)) + 1 if exp_max != 0 else 1
    if int_mode:
        if exp_max > 9:
            return 1.0, 11, ".4e"
        return 1.0, int(exp_max) + 1, "g"
    if exp_max - exp_min > 4:
        size = 12 if abs(exp_max) > 99 or abs(exp_min) > 99 else 11
        return 1.0, size, ".4e"
    if exp_max > 5 or exp_max < 0:
        return 10.0 ** (exp_max - 1), 7, ".4f"
    return 1.0, (7 if exp_max == 0 else int(exp_max) + 6), ".4f"


def _scale_line(scale: float) -> str:
    # ATen prints the power of ten with all its digits (1000000, not 1e+06).
    return "%.17g *\n" % scale


def _matrix(m: np.ndarray, indent: int, out: List[str]) -> None:
    """ATen's ``__printMatrix``."""
    scale, size, conv = _print_format(m)
    rows, cols = m.shape
    per_line = (_LINESIZE - indent) // (size + 1)
    pad = " " * indent
    first = 0
    while first < cols:
        last = first + per_line - 1 if first + per_line <= cols else cols - 1
        if per_line < cols:
            if first != 0:
                out.append("\n")
            out.append(f"Columns {first + 1} to {last + 1}{pad}")
        if scale != 1:
            out.append(_scale_line(scale) + pad)
        for r in range(rows):
            for c in range(first, last + 1):
                out.append(("%" + str(size) + conv) % (m[r, c] / scale))
                if c == last:
                    out.append("\n")
                    if r != rows - 1:
                        out.append(pad + " " if scale != 1 else pad)
                else:
                    out.append(" ")
        first = last + 1


def format_tensor(t, torch_type_name: bool = False) -> str:
    """The text TorchScript's ``str`` gives tensor ``t`` (a numpy array).

    ``torch_type_name``: the trailer names the type as ``at::Tensor``'s ``<<``
    does in torch's error messages, ``[ torch.LongTensor{} ]``, rather than as
    ``str`` does, ``[ CPULongType{} ]``."""
    a = np.asarray(t)
    scalar = _TYPE_NAMES.get(a.dtype.name, a.dtype.name)
    name = f"torch.{scalar}Tensor" if torch_type_name else f"CPU{scalar}Type"
    d = a.astype(np.float64)
    out: List[str] = []
    if a.ndim == 0:
        out.append("%g\n" % float(d))
    elif a.ndim == 1:
        if a.size:
            scale, size, conv = _print_format(d)
            if scale != 1:
                out.append(_scale_line(scale))
            fmt = "%" + str(size) + conv + "\n"
            out.extend(fmt % (x / scale) for x in d.tolist())
    elif a.size:
        if a.ndim == 2:
            _matrix(d, 0, out)
        else:
            first = True
            for index in np.ndindex(*a.shape[:-2]):
                if not first:
                    out.append("\n")
                first = False
                out.append("(" + "".join(f"{i + 1}," for i in index) + ".,.) = \n")
                _matrix(d[index], 1, out)
    out.append("[ " + name + "{" + ",".join(map(str, a.shape)) + "} ]")
    return "".join(out)
