"""What a call node calls: the name torch prints for its callee.

torch prints a call of a TorchScript function as a ``Function`` constant naming
it, which ``prim::CallFunction`` takes first, and a method call as
``prim::CallMethod`` with the method's name, on a receiver whose type is the
class::

    %f : Function = prim::Constant[name="helper"]()
    %y : int = prim::CallFunction(%f, %x)                      -> (None, "helper")
    %z : Tensor = prim::CallMethod[name="forward"](%sub, %x)   -> ("__torch__.Sub", "forward")
                                                                 (%sub : __torch__.Sub)

The code generator (:mod:`pyjit.codegen.calls`) and the inliner
(:mod:`pyjit.passes.inline_calls`) look callees up by these names.
"""

from __future__ import annotations

from typing import Optional, Sequence, Tuple

from .graph import Node, Value
from .symbols import prim

__all__ = ["CALL_KINDS", "call_target", "call_arguments", "describe_target"]

#: The node kinds that call another graph.
CALL_KINDS = frozenset({prim.CallFunction, prim.CallMethod})

Target = Tuple[Optional[str], str]   # (class name, or None for a function; name)


def call_target(node: Node) -> Target:
    """``(class name or None, name)`` of the graph a call node calls.

    Raises:
        ValueError: the node does not say: a ``prim::CallFunction`` whose function
            is not a ``prim::Constant[name=...]``, or a ``prim::CallMethod``
            without a name or a receiver.
    """
    if node.kind == prim.CallFunction:
        fn = node.inputs[0] if node.inputs else None
        if fn is None or fn.node.kind != prim.Constant or \
                not isinstance(fn.node.attrs.get("name"), str):
            raise ValueError("the function called must be a prim::Constant[name=...] "
                             "(a Function constant)")
        return None, fn.node.attrs["name"]
    if node.kind == prim.CallMethod:
        name = node.attrs.get("name")
        if not isinstance(name, str) or not node.inputs:
            raise ValueError("a method call needs its name (prim::CallMethod[name=...]) "
                             "and a receiver")
        return str(node.inputs[0].type), name
    raise ValueError(f"{node.kind} is not a call")


def call_arguments(node: Node) -> Sequence[Value]:
    """The values a call passes to its callee's inputs: a method's receiver
    included, a called function's constant not."""
    return node.inputs[1:] if node.kind == prim.CallFunction else node.inputs


def describe_target(target: Target) -> str:
    """``function 'helper'`` or ``method 'forward' of __torch__.Sub``, for messages."""
    cls, name = target
    return f"function '{name}'" if cls is None else f"method '{name}' of {cls}"
