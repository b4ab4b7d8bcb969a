"""``prim::fork``: run a subgraph asynchronously; ``aten::wait`` gets its output.

torch prints a fork with its subgraph in a ``with`` section::

    %f : Future[Tensor] = prim::fork_0(%x)
    %y : Tensor = aten::wait(%f)
    ...
    with prim::fork_0 = graph(%x : Tensor):
      ...

and the parser keeps the subgraph as the node's ``Subgraph`` attribute.  The
factory below compiles it into a :class:`~pyjit.code.Code` once, when the Code
holding the fork is built (a fork inside the subgraph is compiled then too, by
the same factory), and returns a :class:`Fork`: called with the node's inputs, it
starts a new run of the subgraph on the forking run's work queue and returns the
run's :class:`~pyjit.Future` (see :func:`pyjit.interpreter.fork`).  A Code finds
its subgraphs' Codes through the ``code`` attribute of its callbacks
(:meth:`~pyjit.code.Code.subcodes`).

A private :class:`~pyjit.registry.Registry` gets ``prim::fork`` with
:func:`register_fork`; the subgraph is then compiled against that registry too.
"""

from __future__ import annotations

from typing import Any

from ..code import Code
from ..futures import Future
from ..interpreter import fork
from ..ir import Graph
from ..registry import Registry, default_registry

__all__ = ["SubgraphOperator", "Fork", "register_fork", "subgraph_code"]


class SubgraphOperator:
    """The operator of a node that runs a subgraph (``prim::fork``,
    ``prim::awaitable``): a callable holding the subgraph's Code.

    Attributes:
        code: the subgraph's Code, compiled once and shared by every run (and
            listed by the holding Code's :meth:`~pyjit.code.Code.subcodes`).
    """

    __slots__ = ("code",)
    kind = "prim::subgraph"

    def __init__(self, code: Code) -> None:
        self.code = code

    def __repr__(self) -> str:
        return f"<{self.kind} of {self.code!r}>"


class Fork(SubgraphOperator):
    """The operator of one ``prim::fork`` node: ``Fork(code)(*inputs) -> Future``."""

    __slots__ = ()
    kind = "prim::fork"

    def __call__(self, *inputs: Any) -> Future:
        return fork(self.code, inputs)


def subgraph_code(node, registry: Registry) -> Code:
    """The Code of the subgraph a ``prim::fork``/``prim::awaitable`` node runs,
    compiled against ``registry``."""
    sub = node.attrs.get("Subgraph") if node.attrs else None
    if not isinstance(sub, Graph):
        raise ValueError(f"{node.kind} needs its subgraph as a Subgraph attribute "
                         f"(the `with {node.kind}_N = graph(...)` section torch prints)")
    if len(sub.inputs) != len(node.inputs):
        raise ValueError(f"{node.kind} passes {len(node.inputs)} inputs to a subgraph "
                         f"that takes {len(sub.inputs)}")
    return Code(sub, registry=registry)


def register_fork(registry: Registry) -> None:
    """Register ``prim::fork`` in ``registry``, compiling subgraphs against it."""
    registry.register("prim::fork", factory=lambda node: Fork(subgraph_code(node, registry)))


register_fork(default_registry)
