"""``fuse_batch_norm``: a convolution, the inference batch norm after it and the
activation after that, made one node (``pyjit::conv_bn_act``, in
:mod:`pyjit.ops.fused`) when the batch norm's statistics are read at run time.

:mod:`.fold_batch_norm` folds a batch norm into its convolution's weights when
they are all constants (a frozen module).  A module that is not frozen reads
its weights and statistics at every run (``prim::GetAttr``), and Python may
reassign them or write into them between runs, so nothing can be computed from
them when the Code is built.  What can be done at run time is what torch's
mkldnn path and onnxruntime do: apply the batch norm's affine map per channel
(``y * scale + shift``, ``scale`` and ``shift`` made from the statistics at
each run, as ``aten::batch_norm`` makes them) and the activation's clamp to the
convolution's sums as they are stored.  Three operators that wrote the output
and read it back twice become one that writes it once (mobilenet_v2: its 52
batch norms were a fifth of its time).  A module is met here with its batch
norm's ``training`` a constant when its calls were specialised for it
(:mod:`pyjit.archive.specialize`).

When it applies:

* ``aten::batch_norm`` with ``training`` a constant False and ``eps`` a
  constant float, its input a convolution (``aten::conv1d``/``conv2d``/
  ``conv3d``, padding a list) whose only user it is (queries of the shape
  aside: they see the fused node's output, of the same shape);
* the batch norm's statistics, weights and the convolution's inputs are
  anything: values read at run time, or constants :mod:`.fold_batch_norm` did
  not fold;
* if the batch norm's only user is an activation of
  :data:`~.fuse_activations.ACTIVATIONS` (``relu``, ``relu6``/``hardtanh(0,
  6)``, ``silu``, ``hardswish``, ``gelu``) on it, that is fused too.

The result is the three operators' up to rounding: the affine map is applied
to the float32 sums with one FMA (``aten::batch_norm`` rounds the sums first,
then multiplies and adds), a difference of an ulp of the output.

Before::

    %y : Tensor = aten::conv2d(%x, %w, %none, %stride, %pad, %dil, %groups)
    %z : Tensor = aten::batch_norm(%y, %gamma, %beta, %mean, %var, %false, %m, %eps, %true)
    %r : Tensor = aten::relu_(%z)

After::

    %r : Tensor = pyjit::conv_bn_act(%x, %w, %none, %stride, %pad, %dil, %groups, %nd,
                                     %gamma, %beta, %mean, %var, %eps, %act)
"""

from __future__ import annotations

from ..ir import types as T
from ..ir.graph import Graph, Node, Value
from .constant_values import constant_of, drop_if_unused, only_user
from .fold_batch_norm import CONVOLUTIONS
from .fuse_activations import activation_name

__all__ = ["fuse_batch_norm"]

_RANK = {"aten::conv1d": 1, "aten::conv2d": 2, "aten::conv3d": 3}


def fuse_batch_norm(graph: Graph) -> int:
    """Fuse every inference batch norm of ``graph`` with the convolution before
    it and the activation after it (see the module docstring); returns how
    many."""
    fused = 0
    for bn in [n for n in graph.all_nodes() if n.kind == "aten::batch_norm"]:
        conv = bn.inputs[0].node
        if conv.kind in CONVOLUTIONS and len(bn.inputs) == 9 and \
                only_user(conv.output(), shapes=True) is bn and \
                constant_of(bn.inputs[5]) is False and type(constant_of(bn.inputs[7])) is float \
                and conv.inputs[4].type == T.ListType(T.INT) and _fuse(conv, bn):
            fused += 1
    return fused


#: Kinds whose nodes may move earlier: they only read (their inputs permitting).
_MOVABLE = frozenset({"prim::Constant", "prim::GetAttr", "prim::unchecked_cast",
                      "prim::ListConstruct", "prim::TupleConstruct"})


def _hoist(v: Value, anchor: Node, depth: int = 0) -> bool:
    """Make ``v`` defined before ``anchor``, moving the reads that make it (an
    attribute read, a constant) up if they come after; False if it cannot be."""
    n = v.node
    outer = anchor
    while outer is not None and outer.owning_block is not n.owning_block:
        block = outer.owning_block
        outer = block.owning_node if block is not None else None
    if n.kind == "prim::Param":   # a block's input: defined in all of its block
        return outer is not None
    if outer is None:
        return False
    if n.is_before(outer):
        return True
    if n.kind not in _MOVABLE or n.blocks or depth > 8 or outer is not anchor:
        return False
    if not all(_hoist(i, anchor, depth + 1) for i in n.inputs):
        return False
    n.move_before(anchor)
    return True


def _fuse(conv: Node, bn: Node) -> bool:
    g = conv.owning_graph
    # the fused node stands where the convolution did (shape queries between
    # it and the batch norm read its output): the batch norm's statistics,
    # read after the convolution, are read before it
    if not all(_hoist(v, conv) for v in list(bn.inputs[1:5]) + [bn.inputs[7]]):
        return False
    act = only_user(bn.output(), shapes=True)
    name = activation_name(act) if act is not None and act.inputs[0] is bn.output() else None
    last = act if name is not None else bn
    with g.inserting_before(conv):
        nd = g.insert_constant(_RANK[conv.kind])
        activation = g.insert_constant(name or "none")
        ins = list(conv.inputs) + [nd] + list(bn.inputs[1:5]) + [bn.inputs[7], activation]
        fused = g.insert_node(g.create("pyjit::conv_bn_act", ins))
    fused.source_location = conv.source_location
    fused.output().set_type(last.output().type)
    named = last.output().debug_name if last.output().has_debug_name() else None
    dropped = [bn.inputs[5], bn.inputs[6], bn.inputs[8]]
    # shape queries of any of the three see the fused output's shape, the same
    for n in (last, bn, conv) if last is not bn else (bn, conv):
        n.output().replace_all_uses_with(fused.output())
    if last is not bn:
        dropped += list(act.inputs[1:])
        act.destroy()
    bn.destroy()
    conv.destroy()
    if named is not None:
        fused.output().set_debug_name(named)
    for v in dropped:
        drop_if_unused(v)
    return True
