"""``fuse_activations``: an activation after a convolution or a linear layer made
one node with it (``pyjit::conv_act``, ``pyjit::linear_act``, in
:mod:`pyjit.ops.fused`), as torch's ``optimize_for_inference`` fuses them into
its mkldnn convolutions.

A CNN is mostly ``conv -> (batch norm, folded away by fold_batch_norm) ->
activation``.  Run apart, the activation is an instruction of its own and,
written out of place (``torch.relu(x)``, ``F.silu(x)``), a second array the
size of the convolution's output and a second pass over it.  Fused, the
activation writes into the convolution's output while it is fresh, with the
kernel the in-place operator uses (``relu_``, ``silu_``...): the same values,
bit for bit, as the two nodes computed.

When it applies (the rewrite is exact):

* the producer is ``aten::conv1d``/``conv2d``/``conv3d`` with its padding a
  list (not ``"same"``/``"valid"``), or ``aten::linear``;
* its output has exactly one use, the activation's first input, and is not a
  block's output: nothing else sees the value before the activation (but
  queries of its shape, ``aten::dim`` and ``aten::size``, which see the same
  shape in the fused node's output: they are given that);
* the activation is one of :data:`ACTIVATIONS` -- ``relu``, ``relu6``,
  ``hardtanh`` with constant bounds 0 and 6, ``silu``, ``hardswish``, ``gelu``
  with a constant ``approximate`` -- or its in-place form, whose result is the
  tensor it wrote into: the fused node's output stands for both.

Before::

    %y : Tensor = aten::conv2d(%x, %w, %b, %stride, %pad, %dil, %groups)
    %z : Tensor = aten::relu_(%y)

After::

    %nd : int = prim::Constant[value=2]()
    %act : str = prim::Constant[value="relu"]()
    %z : Tensor = pyjit::conv_act(%x, %w, %b, %stride, %pad, %dil, %groups, %nd, %act)
"""

from __future__ import annotations

from typing import Optional

from ..ir import types as T
from ..ir.graph import Graph, Node
from .constant_values import NOT_CONSTANT, constant_of, drop_if_unused, only_user

__all__ = ["fuse_activations", "ACTIVATIONS", "activation_name"]

#: The activation kinds that fuse (in-place forms too), by the name the fused
#: node's ``activation`` input gives (``hardtanh`` and ``gelu`` are read by
#: :func:`activation_name`).
ACTIVATIONS = {"aten::relu": "relu", "aten::relu_": "relu", "aten::relu6": "relu6",
               "aten::relu6_": "relu6", "aten::silu": "silu", "aten::silu_": "silu",
               "aten::hardswish": "hardswish", "aten::hardswish_": "hardswish"}

_CONVOLUTIONS = {"aten::conv1d": 1, "aten::conv2d": 2, "aten::conv3d": 3}


def fuse_activations(graph: Graph) -> int:
    """Fuse every activation of ``graph`` that may be fused into the convolution
    or linear before it (see the module docstring); returns how many."""
    fused = 0
    for producer in [n for n in graph.all_nodes()
                     if n.kind in _CONVOLUTIONS or n.kind == "aten::linear"]:
        act = only_user(producer.output(), shapes=True)
        if act is None or act.inputs[0] is not producer.output():
            continue
        name = activation_name(act)
        if name is not None and _fuse(producer, act, name):
            fused += 1
    return fused


def activation_name(act: Node) -> Optional[str]:
    """The fused name of activation node ``act``, or None if it does not fuse."""
    name = ACTIVATIONS.get(act.kind)
    if name is not None:
        return name if len(act.inputs) == 1 else None
    if act.kind in ("aten::hardtanh", "aten::hardtanh_") and len(act.inputs) == 3:
        lo, hi = constant_of(act.inputs[1]), constant_of(act.inputs[2])
        return "relu6" if lo is not NOT_CONSTANT and hi is not NOT_CONSTANT and (lo, hi) == (0, 6) \
            else None
    if act.kind in ("aten::gelu", "aten::gelu_"):
        if len(act.inputs) == 1:
            return "gelu"
        approximate = constant_of(act.inputs[1])
        return {"none": "gelu", "tanh": "gelu_tanh"}.get(approximate) \
            if type(approximate) is str else None
    return None


def _fuse(producer: Node, act: Node, name: str) -> bool:
    g = producer.owning_graph
    ins = list(producer.inputs)
    nd = _CONVOLUTIONS.get(producer.kind)
    if nd is not None and ins[4].type != T.ListType(T.INT):
        return False   # padding="same"/"valid": the string overload
    with g.inserting_before(producer):
        if nd is not None:
            ins.append(g.insert_constant(nd))
            kind = "pyjit::conv_act"
        else:
            if len(ins) == 2:
                ins.append(g.insert_constant(None))
            kind = "pyjit::linear_act"
        ins.append(g.insert_constant(name))
        fused = g.insert_node(g.create(kind, ins))
    fused.source_location = producer.source_location
    fused.output().set_type(act.output().type)
    act.output().replace_all_uses_with(fused.output())
    producer.output().replace_all_uses_with(fused.output())   # shape queries: the same shape
    extra = list(act.inputs[1:])
    named = act.output().debug_name if act.output().has_debug_name() else None
    act.destroy()
    producer.destroy()
    if named is not None:
        fused.output().set_debug_name(named)   # the listing keeps the user's name
    for v in extra:
        drop_if_unused(v)
    return True
