"""Grad mode: ``torch.is_grad_enabled()`` and ``torch.set_grad_enabled(b)``.

pyjit computes no gradients (``prim::requires_grad`` is false for every tensor),
but graphs read and set the mode: ``with torch.no_grad():`` compiles to a
``no_grad`` object whose ``__enter__`` saves ``aten::is_grad_enabled()`` and
calls ``aten::set_grad_enabled(False)``, and whose ``__exit__`` restores it.
As in torch, the mode is per thread and starts enabled.
"""

from __future__ import annotations

import threading

from ..registry import default_registry as R

__all__ = ["is_grad_enabled", "set_grad_enabled"]

_state = threading.local()


def is_grad_enabled() -> bool:
    """``aten::is_grad_enabled``: this thread's grad mode (True until set)."""
    return getattr(_state, "enabled", True)


def set_grad_enabled(enabled: bool) -> None:
    """``aten::set_grad_enabled``: set this thread's grad mode."""
    _state.enabled = bool(enabled)


R.register("aten::is_grad_enabled", is_grad_enabled, types=[])
R.register("aten::set_grad_enabled", set_grad_enabled, types=["bool"])
