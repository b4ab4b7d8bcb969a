"""Awaitables: ``torch.jit._awaitable(f, *args)`` runs ``f`` when it is waited for.

torch prints the call to ``f`` as a subgraph, as it does for a fork::

    %aw : Await(int) = prim::awaitable_0(%x)
    ...
    %y : int = prim::awaitable_wait(%aw)
    with prim::awaitable_0 = graph(%x : int):
      ...

Unlike a fork, nothing runs until the first ``prim::awaitable_wait``: the
awaitable is *lazy*.  The first wait runs the subgraph to completion, in the
waiting thread and on the waiting run's loop, and keeps its output for every
later wait; a failure is raised by that wait (and the next wait tries again, as
torch's ``Await`` does).  ``prim::awaitable_nowait(v)`` is an awaitable already
holding ``v``.  The subgraph is compiled once, with the Code holding the node
(:func:`~pyjit.ops.fork.subgraph_code`), which lists it among its subcodes.
"""

from __future__ import annotations

import threading
from typing import Any, Optional, Sequence

from ..code import Code
from ..interpreter import run_inline
from ..registry import Registry, default_registry
from .fork import SubgraphOperator, subgraph_code

__all__ = ["Await", "Awaitable", "register_awaitables"]

_PENDING = object()


class Await:
    """A value computed on first :meth:`wait` (torch's ``torch.jit._Await``).

    Args:
        code: the subgraph to run, on ``args``; None for an awaitable made from
            its value (``nowait``).
        args: the subgraph's inputs.
        value: the value of a ``nowait`` awaitable.
    """

    __slots__ = ("_code", "_args", "_value", "_lock")

    def __init__(self, code: Optional[Code] = None, args: Sequence[Any] = (),
                 value: Any = _PENDING) -> None:
        if (code is None) == (value is _PENDING):
            raise TypeError("an Await runs a code or holds a value, exactly one of them")
        self._code = code
        self._args = tuple(args)
        self._value = value
        self._lock = threading.Lock()

    def done(self) -> bool:
        """Whether the value is there (the awaitable ran, or never had to)."""
        return self._value is not _PENDING

    def wait(self) -> Any:
        """The value: computed by the first call, kept for the others."""
        if self._value is _PENDING:
            with self._lock:  # one computation, even when threads wait together
                if self._value is _PENDING:
                    self._value = run_inline(self._code, self._args)
                    self._args = ()
        return self._value

    def __repr__(self) -> str:
        state = f"done: {self._value!r}" if self.done() else f"pending: {self._code!r}"
        return f"<pyjit Await {state}>"


class Awaitable(SubgraphOperator):
    """The operator of one ``prim::awaitable`` node: ``Awaitable(code)(*inputs)``
    is a pending :class:`Await` of the subgraph on those inputs."""

    __slots__ = ()
    kind = "prim::awaitable"

    def __call__(self, *inputs: Any) -> Await:
        return Await(self.code, inputs)


def awaitable_nowait(value: Any) -> Await:
    return Await(value=value)


def awaitable_wait(aw: Await) -> Any:
    return aw.wait()


def register_awaitables(registry: Registry) -> None:
    """Register the awaitable operators in ``registry``, compiling subgraphs
    against it."""
    registry.register("prim::awaitable",
                      factory=lambda node: Awaitable(subgraph_code(node, registry)))
    registry.register("prim::awaitable_nowait", awaitable_nowait, types=["t"])
    registry.register("prim::awaitable_wait", awaitable_wait, types=["t"])


register_awaitables(default_registry)
