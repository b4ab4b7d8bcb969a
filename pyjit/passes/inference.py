"""``optimize_for_inference``: the inference passes, chained, as torch's
``torch.jit.freeze`` and ``optimize_for_inference`` chain theirs.

The optimising level (O1, the default) runs them on the copy of every graph a
Code is built from, before the seed's preprocessing (:func:`.preprocess`):

1. :func:`~.fold_constants.fold_constants` -- pure transforms of constant
   weights (``w.t()``, ``w.reshape(...)``, ``w * s``) computed once;
2. :func:`~.fold_batch_norm.fold_batch_norm` -- an inference batch norm with
   constant statistics folded into the convolution before it;
3. :func:`~.fuse_batch_norm.fuse_batch_norm` -- an inference batch norm whose
   statistics are read at run time, the convolution before it and the
   activation after it, made one node;
4. :func:`~.fuse_activations.fuse_activations` -- an activation made one node
   with the convolution or linear before it.

When they apply.  Each pass rewrites only what its conditions prove (each
module's docstring says them), so running them on every graph is safe: a
graph with no constant tensors -- a ``@pyjit.script`` function, or a module
loaded by :func:`pyjit.load` whose weights are attributes, read by
``prim::GetAttr`` at every run, and which Python may reassign -- meets only 3
and 4, which hold for any tensors.  1 and 2 need the weights to be constants of
the graph: a module that ``torch.jit.freeze`` froze before it was saved (the
module's ``training`` is then a constant too, so a batch norm's mode is
known).  3 needs a batch norm's ``training`` to be a constant: a frozen
module's, or a loaded module's method specialised for the object it runs on
(:mod:`pyjit.archive.specialize`).  1 and 4 are exact, bit for bit; 2 and 3
round differently (see their docstrings: the difference is within float32's
own error, and torch's freezing makes the same one).  O0, the seed's level, runs none of them: its
table is the seed's, exactly.

:func:`disabled` turns them off, for comparing with and without.
"""

from __future__ import annotations

import contextlib
from typing import Any, Dict

from ..ir.graph import Graph
from .fold_batch_norm import fold_batch_norm
from .fold_constants import fold_constants
from .fuse_activations import fuse_activations
from .fuse_batch_norm import fuse_batch_norm

__all__ = ["optimize_for_inference", "disabled", "enabled"]

_off = 0   # how many disabled() blocks are open


def enabled() -> bool:
    """Whether Codes built now run the inference passes (at O1)."""
    return _off == 0


@contextlib.contextmanager
def disabled():
    """Within it, Codes are built without the inference passes (for measuring
    and comparing; it holds for every thread, blocks nest, and a Code built
    before keeps its table)."""
    global _off
    _off += 1
    try:
        yield
    finally:
        _off -= 1


#: The kinds the passes start from: a graph with none of them is left at once.
_STARTS = frozenset({"aten::conv1d", "aten::conv2d", "aten::conv3d", "aten::linear",
                     "aten::batch_norm", "prim::Constant"})


def optimize_for_inference(graph: Graph, registry: Any) -> Dict[str, int]:
    """Run the inference passes on ``graph`` (rewritten in place), in their
    order; returns how many nodes each rewrote, by the pass's name.
    ``registry`` gives the operators :func:`fold_constants` runs."""
    if not any(n.kind in _STARTS for n in graph.all_nodes()):
        return {}
    return {"fold_constants": fold_constants(graph, registry),
            "fold_batch_norm": fold_batch_norm(graph),
            "fuse_batch_norm": fuse_batch_norm(graph),
            "fuse_activations": fuse_activations(graph)}
