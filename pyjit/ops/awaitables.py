"""Awaitables: ``torch.jit._awaitable(f, *args)`` runs ``f`` when it is waited for.

torch prints the call to ``f`` as a subgraph, as it does for a fork::

    %aw : Await(int) = prim::awaitable_0(%x)
    ...
    %y : int = prim::awaitable_wait(%aw)
    with prim::awaitable_0 = graph(%x : int):
      ...

``prim::awaitable`` itself is compiled like ``prim::fork`` (its subgraph is a
Code of its own, and the runtime's :class:`~pyjit.interpreter.Awaitable` makes
the :class:`~pyjit.futures.Await`); nothing runs until the first wait.  Here:
``prim::awaitable_nowait(v)``, an Await already holding ``v``, and
``prim::awaitable_wait``, which runs the subgraph the first time, in the waiting
thread, and gives the value it keeps.
"""

from __future__ import annotations

from typing import Any

from ..futures import Await
from ..registry import library as R

__all__ = ["awaitable_nowait", "awaitable_wait"]


def awaitable_nowait(value: Any) -> Await:
    return Await(value=value)


def awaitable_wait(aw: Await) -> Any:
    return aw.wait()


R.implement("prim::awaitable_nowait", awaitable_nowait)
R.register("prim::awaitable_wait", awaitable_wait, types=["t"])
