"""Graph -> text, in exactly the format torch prints (``str(torch.jit.script(f).graph)``).

::

    graph(%x.1 : int,
          %n : int):
      %2 : int = prim::Constant[value=1]() # f.py:3:12
      %y : int = prim::Loop(%n, %c, %x.1) # f.py:4:4
        block0(%i : int, %acc : int):
          -> (%c, %acc)
       = prim::RaiseException(%s, %t) # f.py:6:8
      return (%y)
    with prim::fork_0 = graph(%a : Tensor):
      ...

Nodes are indented two spaces per level, a node without outputs starts with
`` = ``, a node carrying a ``Subgraph`` attribute prints as ``kind_N`` and its
graph follows the whole graph as ``with kind_N = graph(...)``.  Printing walks the
graph with an explicit stack, so nesting depth is not limited by Python's
recursion limit.
"""

from __future__ import annotations

import math
from typing import Any, Callable, List, Optional

__all__ = ["print_graph", "node_header", "format_attr_value", "quote_string", "format_float"]

SUBGRAPH = "Subgraph"


def format_float(x: float) -> str:
    """A float as torch prints it (``printDouble`` in ``ivalue.cpp``).

    An integral value below 1e10 in magnitude prints as the integer and a dot
    (``3.``, ``-0.``); anything else with 17 significant digits, C++ stream
    style (``0.10000000000000001``, ``1.0000000000000001e-05``, ``1e+20``, and
    ``10000000000`` for 1e10, without a dot); ``inf``, ``-inf`` and ``nan`` so.
    """
    if math.isnan(x):
        # C's printf shows a NaN's sign bit, and so does torch: float("-nan").
        return "-nan" if math.copysign(1.0, x) < 0 else "nan"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    if abs(x) < 1e10 and x == int(x):
        return ("-" if math.copysign(1.0, x) < 0 else "") + f"{abs(int(x))}."
    return "%.17g" % x


_ESCAPES = {
    "\\": "\\\\", "'": "\\'", '"': '\\"', "\a": "\\a", "\b": "\\b", "\f": "\\f",
    "\n": "\\n", "\r": "\\r", "\t": "\\t", "\v": "\\v",
}


def _octal_escape(byte: int) -> str:
    """torch's three-digit escape of one byte of the UTF-8 text.

    torch computes the digits on a *signed* ``char`` with C's truncating ``/`` and
    ``%``, so bytes >= 0x80 come out as "digits" below ``0``: byte 0xC3 (-61) is
    ``\\0)+`` (0, -7, -5).  The text is still unambiguous (a reader can undo it:
    ``64*d0 + 8*d1 + d2`` with ``di = ord(ci) - ord("0")``, plus 256 if negative),
    and it is what torch prints on x86, so pyjit prints the same.
    """
    s = byte - 256 if byte >= 0x80 else byte
    digits = []
    for _ in range(2):
        digits.append(int(math.fmod(s, 8)))
        s = int(s / 8)
    digits.append(s)
    return "\\" + "".join(chr(ord("0") + d) for d in reversed(digits))


def quote_string(s: str) -> str:
    """A string literal as torch's ``printQuotedString`` writes it.

    C escapes for ``\\ ' " \\a \\b \\f \\n \\r \\t \\v``, printable ASCII as is, and
    a three-digit escape for every other byte of the UTF-8 encoding: octal
    (``\\000``, ``\\177``) below 0x80, torch's signed-char digits above (see
    :func:`_octal_escape`; ``"é"`` prints as ``"\\0)+\\/.)"``).
    """
    out = ['"']
    for ch in s:
        esc = _ESCAPES.get(ch)
        if esc is not None:
            out.append(esc)
        elif " " <= ch <= "~":
            out.append(ch)
        else:
            out.extend(_octal_escape(b) for b in ch.encode("utf-8"))
    out.append('"')
    return "".join(out)


def format_attr_value(value: Any) -> str:
    """An attribute value as it appears between ``[name=`` and ``]``, as torch
    prints each attribute kind::

        3 -> 3      True -> 1 (torch keeps bools as int attributes)
        3.0 -> 3.   "a\\nb" -> "a\\nb"      int -> int (a type)
        [1, 2] -> [1, 2]     [1.0, 2.5] -> [1., 2.5]     [True] -> [True]
        (1, 2.0) -> (1, 2.)  (1,) -> (1,)    {"a": 1} -> {"a": 1}
        a Graph -> <Graph>   a list of graphs -> [<Graphs>]
        a list of tensors -> [<Tensors>]     a tensor -> its ``text``
    """
    from .graph import Graph

    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, Graph):
        return "<Graph>"
    if isinstance(value, list) and value:
        if all(isinstance(v, Graph) for v in value):
            return "[<Graphs>]"
        if all(_is_tensor(v) for v in value):
            return "[<Tensors>]"
    return _repr_value(value)


def _tensor_text(value: Any) -> "str | None":
    text = getattr(value, "text", None)  # literals kept verbatim, e.g. tensors
    return text if isinstance(text, str) else None


def _is_tensor(value: Any) -> bool:
    """Whether ``value`` stands for a tensor: it prints by its ``.text``, and it is not
    one of the parser's other verbatim literals (an enum value such as
    ``__torch__.Color.RED`` prints itself inside a list)."""
    from .literals import Literal, TensorLiteral
    return _tensor_text(value) is not None and (
        isinstance(value, TensorLiteral) or not isinstance(value, Literal))


def ivalue_text(value: Any, item: Callable[[Any], str],
                float_text: Callable[[float], str]) -> Optional[str]:
    """How torch prints the values every printer of its shares: None, a bool
    (``True``), an int, a float (by ``float_text``: the IR and ``str()`` differ),
    and a list, tuple or dict, each item by ``item``; None for any other value."""
    if value is None:
        return "None"
    if isinstance(value, bool):
        return "True" if value else "False"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return float_text(value)
    if isinstance(value, list):
        return "[" + ", ".join(map(item, value)) + "]"
    if isinstance(value, tuple):
        if len(value) == 1:
            return f"({item(value[0])},)"
        return "(" + ", ".join(map(item, value)) + ")"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{item(k)}: {item(v)}" for k, v in value.items()) + "}"
    return None


def _repr_value(value: Any) -> str:
    """A value as torch's ``IValue::repr`` prints it (inside containers, a bool
    is ``True``/``False``)."""
    from .types import Type

    if isinstance(value, complex):
        # printComplex: real part, the sign, then the imaginary part's magnitude.
        sign = "+" if value.imag >= 0 else "-"
        return f"{format_float(value.real)}{sign}{format_float(abs(value.imag))}j"
    if isinstance(value, str):
        return quote_string(value)
    annotation = getattr(value, "annotation", None)
    if annotation is not None:  # annotate(List[int], []): see ir.literals.AnnotatedList
        return f"annotate({annotation}, {_repr_value(type(value).__mro__[1](value))})"
    text = ivalue_text(value, _repr_value, format_float)
    if text is not None:
        return text
    if isinstance(value, Type):
        return str(value)
    text = _tensor_text(value)
    if text is not None:
        return text
    raise TypeError(f"cannot print attribute value of type {type(value).__name__}")


def _value_refs(values) -> str:
    return ", ".join("%" + v.debug_name for v in values)


def _typed_refs(values, sep: str = ", ") -> str:
    return sep.join(f"%{v.debug_name} : {v.type}" for v in values)


def _node_line(node, groups: Optional[List]) -> str:
    """One node's line; with ``groups`` (whole-graph printing) a node carrying a
    subgraph prints as ``kind_N`` and is appended to ``groups``."""
    parts = [_typed_refs(node._outputs), " = "]
    attrs = node._attrs or {}  # no dict is made for a node without attributes
    if SUBGRAPH in attrs and groups is not None:
        parts.append(f"{node.kind}_{len(groups)}")
        groups.append(node)
        # torch prints no attributes at all for a DifferentiableGraph here.
        shown = [] if node.kind == "prim::DifferentiableGraph" else [
            (k, v) for k, v in attrs.items() if k != SUBGRAPH]
    elif node.kind == "prim::PythonOp" and "name" in attrs:
        # torch's form, ^name[attrs](scalars): a call back into Python (see
        # pyjit.ir.parser's _python_op); it always prints the brackets
        own = ", ".join(f"{k}={format_attr_value(v)}" for k, v in attrs.items()
                        if k not in ("name", "scalars"))
        parts.append(f"^{attrs['name']}[{own}]({attrs.get('scalars', '')})")
        shown = []
    else:
        parts.append(node.kind)
        shown = list(attrs.items())
    if shown:
        parts.append("[" + ", ".join(f"{k}={format_attr_value(v)}" for k, v in shown) + "]")
    parts.append("(" + _value_refs(node._inputs) + ")")
    if node.scope is not None:
        parts.append(f", scope: {node.scope}")
    if node.source_location is not None:
        parts.append(f" # {node.source_location}")
    return "".join(parts)


def node_header(node) -> str:
    """The one line that prints for ``node`` (without its blocks), as used in error
    messages: ``%z : int = aten::add(%x, %y) # f.py:3:8``.  As torch's
    ``operator<<(Node)``, a subgraph attribute shows as ``Subgraph=<Graph>``."""
    return _node_line(node, None)


def print_graph(graph) -> str:
    """The text of ``graph``, ending in a newline, as torch prints it."""
    out: List[str] = []
    groups: List = []
    out.append("graph(" + _typed_refs(graph.inputs, ",\n      ") + "):\n")
    # Work items: a str is emitted as is; (node, indent) prints a node and
    # schedules its blocks.  Items are pushed in reverse so they pop in order.
    stack: List[Any] = [f"  return ({_value_refs(graph.outputs)})\n"]
    stack.extend((n, 2) for n in reversed(list(graph.nodes())))
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            out.append(item)
            continue
        node, indent = item
        out.append(" " * indent + _node_line(node, groups) + "\n")
        pad = " " * (indent + 2)
        inner = " " * (indent + 4)
        for i in reversed(range(len(node._blocks))):
            b = node._blocks[i]
            stack.append(f"{inner}-> ({_value_refs(b.outputs)})\n")
            stack.extend((n, indent + 4) for n in reversed(list(b.nodes())))
            stack.append(f"{pad}block{i}({_typed_refs(b.inputs)}):\n")
    for i, node in enumerate(groups):
        out.append(f"with {node.kind}_{i} = ")
        out.append(print_graph(node.attrs[SUBGRAPH]))
    return "".join(out)
