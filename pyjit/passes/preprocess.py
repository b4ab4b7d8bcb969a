"""``preprocess``: the seed's ``PreprocessGraph``, run once per graph before code
generation."""

from __future__ import annotations

from typing import Any, Optional

from ..ir.graph import Graph
from .context_methods import call_context_methods
from .desugar_trip_counts import desugar_trip_counts
from .drop_unused import drop_unused
from .find_last_uses import MoveFlags, find_last_uses
from .flatten_io import flatten_io
from .inference import enabled as inference_enabled
from .inference import optimize_for_inference

__all__ = ["Preprocessed", "preprocess"]


class Preprocessed:
    """The outputs of :func:`preprocess`.

    Attributes:
        graph: the rewritten graph: a copy of the user's, or the user's own when
            it was handed over (no inputs or outputs, a
            ``prim::Load`` first and a ``prim::Store`` last, Drops inserted,
            trip counts desugared).
        move_flags: ``{node: (bool per input)}``, True where the use moves the
            value out of its register (see :func:`find_last_uses`); a
            :class:`MoveFlags`, in which a node moving every input has no entry.
        n_outputs: how many outputs the graph had before :func:`flatten_io` (the
            interpreter needs it to return one value or a tuple).
    """

    __slots__ = ("graph", "move_flags", "n_outputs")

    def __init__(self, graph: Graph, move_flags: MoveFlags,
                 n_outputs: int) -> None:
        self.graph = graph
        self.move_flags = move_flags
        self.n_outputs = n_outputs

    def __repr__(self) -> str:
        return (f"<Preprocessed graph with {len(self.move_flags)} nodes copying an input, "
                f"{self.n_outputs} outputs>")


def preprocess(graph: Graph, desugar_loops: bool = True, unit=None,
               copy: bool = True, inference: Optional[Any] = None) -> Preprocessed:
    """Copy ``graph`` and bring the copy into the form the code generator
    translates one node at a time; ``graph`` itself is not changed.

    ``copy=False`` rewrites ``graph`` itself, for a caller that hands it over
    and will not use it again (``pyjit run`` reading a file): on a big graph
    the copy is a fifth of the build time and, kept alive beside the original,
    a third of its memory.

    ``desugar_loops=False`` skips step 1: the optimising code generator keeps a
    Loop's trip count and counter in instructions of their own.

    ``inference``, a registry (the optimising level gives its own), first runs
    the inference passes (:func:`~.inference.optimize_for_inference`) with it,
    unless they are :func:`~.inference.disabled`.

    With a ``unit``, :func:`call_context_methods` first makes the ``with``
    statements on objects of its classes call their ``__enter__``/``__exit__``.
    The passes then run in the seed's order, each relying on the previous ones:

    1. :func:`desugar_trip_counts` -- loop counters become carried ints;
    2. :func:`flatten_io` -- inputs/outputs become ``prim::Load``/``prim::Store``
       (so the Load's outputs and the Store's inputs take part in 3 and 4);
    3. :func:`drop_unused` -- a ``prim::Drop`` for every unused value;
    4. :func:`find_last_uses` -- move flags, plus Drops after If/Loop nodes whose
       blocks hold the last use of an outer value.

    Example::

        graph(%x : int, %unused : int):        graph():
          %y : int = aten::add(%x, %x)    ->     %x : int, %unused : int = prim::Load()
          return (%y)                              = prim::Drop(%unused)   # M
                                                 %y : int = aten::add(%x, %x)  # c, M
                                                   = prim::Store(%y)        # M
                                                 return ()
    """
    g = graph.copy() if copy else graph
    if inference is not None and inference_enabled():
        optimize_for_inference(g, inference)
    if unit is not None:
        call_context_methods(g, unit)
    n_outputs = len(g.outputs)
    if desugar_loops:
        desugar_trip_counts(g.block)
    flatten_io(g)
    drop_unused(g.block)
    move_flags = find_last_uses(g)
    return Preprocessed(g, move_flags, n_outputs)
