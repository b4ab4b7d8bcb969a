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
from typing import Any, List

__all__ = ["print_graph", "node_header", "format_attr_value", "quote_string", "format_float"]

SUBGRAPH = "Subgraph"


def format_float(x: float) -> str:
    """A float as torch prints it: 17 significant digits, integral values ending in a
    dot (``3.``), and ``inf``/``-inf``/``nan`` spelled so."""
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    text = "%.17g" % x
    if "." not in text and "e" not in text:
        text += "."
    return text


_ESCAPES = {
    "\\": "\\\\", "'": "\\'", '"': '\\"', "\a": "\\a", "\b": "\\b", "\f": "\\f",
    "\n": "\\n", "\r": "\\r", "\t": "\\t", "\v": "\\v",
}


def quote_string(s: str) -> str:
    """A string literal as torch's ``printQuotedString`` writes it: C escapes for the
    usual control characters, three-digit octal escapes for every other byte of
    the UTF-8 encoding that is not printable ASCII."""
    out = ['"']
    for ch in s:
        esc = _ESCAPES.get(ch)
        if esc is not None:
            out.append(esc)
        elif " " <= ch <= "~":
            out.append(ch)
        else:
            out.extend("\\%03o" % b for b in ch.encode("utf-8"))
    out.append('"')
    return "".join(out)


def format_attr_value(value: Any) -> str:
    """An attribute value as it appears between ``[name=`` and ``]``."""
    from .graph import Graph
    from .types import Type

    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return format_float(value)
    if isinstance(value, str):
        return quote_string(value)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(format_attr_value(v) for v in value) + "]"
    if isinstance(value, Type):
        return str(value)
    if isinstance(value, Graph):
        return "<Graph>"
    text = getattr(value, "text", None)  # literals kept verbatim, e.g. tensors
    if isinstance(text, str):
        return text
    raise TypeError(f"cannot print attribute value of type {type(value).__name__}")


def _value_refs(values) -> str:
    return ", ".join("%" + v.debug_name for v in values)


def _typed_refs(values, sep: str = ", ") -> str:
    return sep.join(f"%{v.debug_name} : {v.type}" for v in values)


def _node_line(node, groups: List) -> str:
    parts = [_typed_refs(node._outputs), " = "]
    attrs = node.attrs
    if SUBGRAPH in attrs and groups is not None:
        parts.append(f"{node.kind}_{len(groups)}")
        groups.append(node)
        shown = [(k, v) for k, v in attrs.items() if k != SUBGRAPH]
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
    messages: ``%z : int = aten::add(%x, %y) # f.py:3:8``."""
    return _node_line(node, [])


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
