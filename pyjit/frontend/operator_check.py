"""Every operator a scripted function needs must exist when it is decorated.

The Code builder would find a missing overload too, but only at the first call
and in terms of graph types; checking right after compiling turns it into a
:class:`~pyjit.CompileError` at the user's own line, naming the operation.
"""

from __future__ import annotations

import linecache

from ..errors import CompileError
from ..ir import Graph
from ..ir.calls import CALL_KINDS
from ..registry import default_registry

__all__ = ["check_operators"]

#: Kinds the interpreter runs itself rather than through the registry.
_BUILTIN_KINDS = frozenset({"prim::If", "prim::Loop", "prim::Constant", "prim::fork"}) | CALL_KINDS


def check_operators(graph: Graph) -> None:
    """Raise :class:`CompileError` at the first node whose kind and input types
    have no registered operator."""
    stack = [graph.block]
    while stack:
        block = stack.pop()
        for node in block.nodes():
            stack.extend(node.blocks)
            if node.kind in _BUILTIN_KINDS:
                continue
            types = [v.type for v in node.inputs]
            if default_registry.find(node.kind, types) is not None:
                continue
            signature = f"{node.kind}({', '.join(map(str, types))})"
            loc = node.source_location
            if loc is None:  # pragma: no cover - the emitter locates every node
                raise CompileError(f"no operator implements {signature}", 0, 0)
            text = linecache.getline(loc.file, loc.line).rstrip("\n") or None
            raise CompileError(f"this operation needs {signature}, which pyjit's operator "
                               "library does not provide", loc.line, loc.col, file=loc.file,
                               line_text=text)
