"""Attribute values that pyjit keeps as the text torch printed.

Torch prints some attribute values in forms that cannot be read back into the
value itself: a tensor constant prints as ``{1.5}``, as ``at::print`` output with
its newlines turned into spaces (`` 1  2 [ CPULongType{2} ]``) or, when large, as
``<Tensor>``; a graph attribute that is not a fork's subgraph as ``<Graph>``; an
enum constant as its qualified name (``__torch__.Color.RED``).  The IR parser keeps
such values as a :class:`Literal` holding the exact text, and the printer writes
``.text`` back, so a graph survives a print/parse round trip unchanged::

    %c : Float(requires_grad=0, device=cpu) = prim::Constant[value={1.5}]()

parses to a node whose ``attrs["value"]`` is ``TensorLiteral("{1.5}")``, and
``attrs["value"].value()`` is ``numpy.array(1.5)``.
"""

from __future__ import annotations

import re
from typing import List, Optional, Tuple

__all__ = ["Literal", "TensorLiteral", "TensorValue", "AnnotatedList", "AnnotatedDict",
           "annotated", "TENSOR_TRAILER", "is_tensor_print_body"]


class Literal:
    """An attribute value kept verbatim: ``text`` is exactly what torch printed.

    Literals compare by text, so two parses of the same graph compare equal.
    """

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text

    def __eq__(self, other: object) -> bool:
        return type(self) is type(other) and self.text == other.text  # type: ignore[attr-defined]

    def __hash__(self) -> int:
        return hash((type(self).__name__, self.text))

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.text!r})"


# The closing part of ``at::print`` output: ``[ CPUFloatType{2,3} ]``; quantized
# tensors add ``, qscheme: ..., scale: ..., zero_point: ...`` before the bracket.
TENSOR_TRAILER = re.compile(r"\[ (\w*)Type\{([0-9,]*)\}(?:, [^\[\]\n]*)? \]")

_NUMBER = r"-?(?:\d+\.?\d*(?:e[+-]?\d+)?|inf|nan)"
_BODY_TOKEN = re.compile(
    rf"(?:{_NUMBER}|\*|=|Columns?|to|and|\((?:\d+,)+\.,\.\))\Z")
_ONE = re.compile(rf"\{{({_NUMBER}|\(({_NUMBER}),({_NUMBER})\))\}}\Z")


def is_tensor_print_body(body: str) -> bool:
    """Whether ``body`` (the text before the trailer) is made of the tokens that
    ``at::print`` writes: numbers, ``1e-05 *`` scales, ``(1,.,.) =`` slice headers
    and ``Columns 1 to 6`` chunk headers."""
    return all(_BODY_TOKEN.match(tok) for tok in body.split())


# Scalar names as they appear in the trailer's type name (``CPUComplexFloatType``),
# longest first so that ``ComplexFloat`` wins over ``Float``.
_DTYPES = sorted({
    "Float": "float32", "Double": "float64", "Half": "float16", "BFloat16": "float32",
    "Long": "int64", "Int": "int32", "Short": "int16", "Char": "int8", "Byte": "uint8",
    "UInt16": "uint16", "UInt32": "uint32", "UInt64": "uint64", "Bool": "bool",
    "ComplexFloat": "complex64", "ComplexDouble": "complex128", "ComplexHalf": "complex64",
}.items(), key=lambda kv: -len(kv[0]))


def _dtype_of(type_name: str) -> str:
    for scalar, dtype in _DTYPES:
        if type_name.endswith(scalar):
            return dtype
    return "float64"  # quantized and other exotic tensors print dequantized values


class TensorLiteral(Literal):
    """A tensor constant as torch printed it; see the module docstring for the forms.

    :meth:`value` reads the numbers back; the printed digits are all there is, so a
    value torch rounded for display (``1.2346e+04``) comes back rounded.
    """

    __slots__ = ()

    def value(self):
        """The tensor as a numpy array.

        ``{x}`` (torch's form for one-element tensors) gives a 0-d array: int64 for
        an integer, float64 for a float, complex128 for ``{(re,im)}``; torch does not
        print the element type or the shape there.  The ``at::print`` form gives the
        dtype and shape of its trailer.  Raises ValueError for ``<Tensor>``, which
        carries no values.
        """
        import numpy as np

        text = self.text
        one = _ONE.match(text)
        if one:
            if one.group(2) is not None:
                return np.array(complex(float(one.group(2)), float(one.group(3))))
            tok = one.group(1)
            if re.fullmatch(r"-?\d+", tok):
                return np.array(int(tok), dtype=np.int64)
            return np.array(float(tok))
        trailer = TENSOR_TRAILER.search(text)
        if trailer is None or not is_tensor_print_body(text[:trailer.start()]):
            raise ValueError(f"tensor literal {text!r} carries no values")
        dims = tuple(int(d) for d in trailer.group(2).split(",") if d)
        dtype = _dtype_of(trailer.group(1))
        values = _read_print_body(text[:trailer.start()], dims)
        return np.array(values, dtype=np.float64).astype(dtype).reshape(dims)


class TensorValue(TensorLiteral):
    """A tensor constant whose values are known exactly, printed as torch printed it.

    The printed text of a tensor constant is rounded (``0.1411``) or carries no
    values at all (``<Tensor>``), so :func:`pyjit.from_torch` reads the values from
    torch's own graph and keeps them here, beside the text that prints.  The array
    is a read-only copy (a read-only view with ``copy=False``); :meth:`value`
    returns it as is, dtype included.
    """

    __slots__ = ("array",)

    def __init__(self, text: str, array, copy: bool = True) -> None:
        import numpy as np

        super().__init__(text)
        # copy=False: a read-only view of the caller's array, which the caller
        # promises not to write (pyjit.freeze: a module's weights, not doubled)
        array = np.array(array, copy=True) if copy else array.view()
        array.flags.writeable = False
        self.array = array

    def value(self):
        return self.array

    def __eq__(self, other: object) -> bool:
        import numpy as np

        return (type(self) is type(other) and self.text == other.text  # type: ignore[attr-defined]
                and self.array.dtype == other.array.dtype  # type: ignore[attr-defined]
                and self.array.shape == other.array.shape  # type: ignore[attr-defined]
                and bool(np.array_equal(self.array, other.array,  # type: ignore[attr-defined]
                                        equal_nan=self.array.dtype.kind in "fc")))

    __hash__ = TensorLiteral.__hash__

    def __repr__(self) -> str:
        return f"TensorValue({self.text!r}, {self.array!r})"


def _read_print_body(body: str, dims: Tuple[int, ...]) -> List[float]:
    """The elements of an ``at::print`` body in row-major order.

    Tensors of more than two dimensions print one matrix per ``(i,j,.,.) =`` header;
    each matrix may start with a scale (``1e-06 *``) and may be split into column
    chunks (``Columns 1 to 6``), each chunk printing all rows for its columns.
    """
    rows = dims[-2] if len(dims) >= 2 else 1
    cols = dims[-1] if dims else 1
    out: List[float] = []
    tokens = body.split()
    i = 0

    def flush(matrix: List[Tuple[Optional[Tuple[int, int]], List[float]]], scale: float) -> None:
        if not matrix:
            return
        if len(dims) < 2:  # a vector: one number per line, no column chunks
            out.extend(v * scale for _, vals in matrix for v in vals)
            return
        grid = [[0.0] * cols for _ in range(rows)]
        for span, vals in matrix:
            first, last = span if span is not None else (1, cols)
            width = last - first + 1
            if len(vals) != rows * width:
                raise ValueError(f"tensor literal has {len(vals)} values in a chunk of "
                                 f"{rows}x{width}")
            for k, v in enumerate(vals):
                grid[k // width][first - 1 + k % width] = v * scale
        for row in grid:
            out.extend(row)

    matrix: List[Tuple[Optional[Tuple[int, int]], List[float]]] = []
    scale = 1.0
    while i < len(tokens):
        tok = tokens[i]
        if tok.startswith("("):  # (i,j,.,.) = : a new matrix
            flush(matrix, scale)
            matrix, scale = [], 1.0
            i += 2
        elif tok in ("Columns", "Column"):
            first = int(tokens[i + 1])
            last = first
            if i + 3 < len(tokens) and tokens[i + 2] in ("to", "and"):
                last = int(tokens[i + 3])
                i += 4
            else:
                i += 2
            matrix.append(((first, last), []))
        elif i + 1 < len(tokens) and tokens[i + 1] == "*":
            scale = float(tok)
            i += 2
        else:
            if not matrix:
                matrix.append((None, []))
            matrix[-1][1].append(float(tok))
            i += 1
    flush(matrix, scale)
    return out


class AnnotatedList(list):
    """A list constant torch printed with its type, ``annotate(List[int], [])`` (an
    empty container's type cannot be read from its elements).  It is the list
    itself; ``annotation`` keeps the type's text so the printer writes it back."""

    __slots__ = ("annotation",)


class AnnotatedDict(dict):
    """``annotate(Dict[str, int], {})``: see :class:`AnnotatedList`."""

    __slots__ = ("annotation",)


def annotated(value, annotation: str):
    """``value`` (a list or dict) carrying torch's ``annotate(<annotation>, ...)``."""
    out = (AnnotatedList if isinstance(value, list) else AnnotatedDict)(value)
    out.annotation = annotation
    return out
