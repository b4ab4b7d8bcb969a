"""``fold_constants``: a weight's transform computed once, when the Code is built,
instead of at every run (torch's freezing runs its constant propagation for
the same reason).

Models transform their weights on the way to a kernel: ``x @ w.t()``,
``w.reshape(...)``, ``w.to(dtype)``, ``w * scale``, the slices of
``nn.MultiheadAttention``'s packed ``in_proj_weight``.  When the weight is a
constant (a frozen module's), so is the result, and computing it at every run
is a copy or a pass over the weights each time.  This pass runs such a node
once, with the operator the Code would call (``registry``), and puts its
result in a new ``prim::Constant``: a C-contiguous array, the layout the
float32 kernels read without a copy (``aten::t`` of a constant becomes the
transposed matrix itself, not a strided view of it).

When it applies (the rewrite is exact: the node computes the same thing at
every run, and nothing can tell the constant from the value):

* the node's kind is one of :data:`FOLDABLE`, operators that are pure (no
  state, no randomness) and write into nothing;
* every input is a constant (or a list of constants), one at least a tensor
  that nothing in the graph writes into (:func:`.constant_values.tensor_constant`);
* it has one output, a tensor, and none of its users writes into it (a view
  of a constant that a user then wrote into would write the constant: the
  graph is not folded there).

Before::

    %w : Tensor = prim::Constant[value=<Tensor>]()
    %wt : Tensor = aten::t(%w)
    %y : Tensor = aten::matmul(%x, %wt)

After::

    %wt : Tensor = prim::Constant[value=<Tensor>]()      # w.T, contiguous
    %y : Tensor = aten::matmul(%x, %wt)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..ir.graph import Graph, Node
from ..ir.symbols import prim
from .constant_values import (LIST, NOT_CONSTANT, constant_of, drop_if_unused, insert_value,
                              may_write, tensor_constant)

__all__ = ["fold_constants", "FOLDABLE"]

#: The pure tensor operators folded when their inputs are constants.
FOLDABLE = frozenset(f"aten::{k}" for k in (
    "t", "transpose", "permute", "contiguous", "reshape", "view", "flatten", "unsqueeze",
    "squeeze", "slice", "select", "narrow", "expand", "to", "type_as", "detach", "clone",
    "mul", "div", "add", "sub", "neg", "reciprocal", "sqrt", "rsqrt", "pow", "cat", "stack",
    "flip", "matmul", "mm"))


def fold_constants(graph: Graph, registry: Any) -> int:
    """Fold every node of ``graph`` that may be folded (see the module
    docstring), in order, so that a chain of transforms folds whole; returns
    how many.  ``registry`` picks each node's operator, as the Code would."""
    folded = 0
    for n in list(graph.all_nodes()):
        if n.kind in FOLDABLE and _foldable(n):
            value = _run(n, registry)
            if value is not None:
                _replace(n, value)
                folded += 1
    return folded


def _foldable(n: Node) -> bool:
    if len(n.outputs) != 1 or n.blocks or any(may_write(u.user) for u in n.output().uses):
        return False
    tensors = 0
    for v in n.inputs:
        if v.node.kind == prim.Constant and type(constant_of(v)) is np.ndarray:
            if tensor_constant(v) is None:
                return False
            tensors += 1
        elif v.node.kind == LIST and any(
                i.node.kind != prim.Constant or type(constant_of(i)) is np.ndarray
                for i in v.node.inputs):
            return False   # a list of tensors (cat, stack): folded only of scalars
        elif constant_of(v) is NOT_CONSTANT:
            return False
    return tensors > 0


def _run(n: Node, registry: Any) -> Any:
    """The node's result, computed by its operator, or None when it is not one
    plain call to a tensor (an operator on the stack, an error: left to run)."""
    try:
        resolved = registry.lookup(n)
    except Exception:  # no operator: the Code's build says so, not this pass
        return None
    if resolved.stack:
        return None
    args = [constant_of(v) for v in n.inputs]
    try:
        out = resolved.fn(*args)
    except Exception:  # an error at run time stays one (and where it was)
        return None
    if type(out) is not np.ndarray:
        return None
    return np.ascontiguousarray(out) if out.ndim else out.copy()


def _replace(n: Node, value: np.ndarray) -> None:
    g = n.owning_graph
    with g.inserting_before(n):
        c = insert_value(g, value, n.output().type, n.source_location)
    named = n.output().debug_name if n.output().has_debug_name() else None
    n.output().replace_all_uses_with(c)
    inputs = list(n.inputs)
    n.destroy()
    if named is not None:
        c.set_debug_name(named)
    for v in inputs:
        drop_if_unused(v)
