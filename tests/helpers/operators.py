"""Operators as the code generator finds them: by a node's kind and input types.

:func:`node_of` builds a one-node graph and returns its node; :func:`op` looks
that node up in the default registry and returns the callable pyjit would call,
so operator tests call it directly and a failure points at the operator, not at
the interpreter.
"""

from __future__ import annotations

from pyjit.ir.parser import parse_ir
from pyjit.registry import default_registry

__all__ = ["node_of", "op"]


def node_of(kind: str, *types: str, out: str = "Tensor", n_out: int = 1, attrs: str = "",
            consts: dict = None):
    """The ``kind`` node of a one-node graph with inputs of ``types``; ``consts``
    maps an input position to a constant's text (e.g. ``{2: "int=1"}``)."""
    consts = consts or {}
    params, args, lines = [], [], []
    for i, t in enumerate(types):
        if i in consts:
            ct, value = consts[i].split("=", 1)
            lines.append(f"  %c{i} : {ct} = prim::Constant[value={value}]()")
            args.append(f"%c{i}")
        else:
            params.append(f"%a{i} : {t}")
            args.append(f"%a{i}")
    outs = ", ".join(f"%o{j} : {out}" for j in range(n_out))
    lines.append(f"  {outs} = {kind}{attrs}({', '.join(args)}) # f.py:3:4")
    rets = ", ".join(f"%o{j}" for j in range(n_out))
    text = f"graph({', '.join(params)}):\n" + "\n".join(lines) + f"\n  return ({rets})\n"
    graph = parse_ir(text)
    return [n for n in graph.nodes() if n.kind == kind][0]


def op(kind: str, *types: str, **kw):
    """The callable the registry picks for ``kind`` with inputs of ``types``."""
    return default_registry.lookup(node_of(kind, *types, **kw)).fn
