"""Grad mode: ``torch.is_grad_enabled()`` and ``torch.set_grad_enabled(b)``.

pyjit computes no gradients (``prim::requires_grad`` is false for every tensor),
but graphs read and set the mode: ``with torch.no_grad():`` compiles to a
``no_grad`` object whose ``__enter__`` saves ``aten::is_grad_enabled()`` and
calls ``aten::set_grad_enabled(False)``, and whose ``__exit__`` restores it.
As in torch, the mode is per thread and starts enabled.

A graph inlined without its unit still holds ``prim::Enter``/``prim::Exit`` on
torch's ``no_grad``/``enable_grad`` objects; :data:`GRAD_MODE_CLASSES` lets
``prim::Enter`` do what their ``__enter__``/``__exit__`` do
(:func:`enter_grad_mode`, :func:`exit_grad_mode`).
"""

from __future__ import annotations

import threading
from typing import Any

from ..registry import library as R

__all__ = ["is_grad_enabled", "set_grad_enabled", "GRAD_MODE_CLASSES", "enter_grad_mode",
           "exit_grad_mode"]

_state = threading.local()


def is_grad_enabled() -> bool:
    """``aten::is_grad_enabled``: this thread's grad mode (True until set)."""
    return getattr(_state, "enabled", True)


def set_grad_enabled(enabled: bool) -> None:
    """``aten::set_grad_enabled``: set this thread's grad mode."""
    _state.enabled = bool(enabled)


#: torch's own context managers of the grad mode, by TorchScript class name, and
#: the mode each sets on entry (torch/autograd/grad_mode.py).
GRAD_MODE_CLASSES = {"__torch__.torch.autograd.grad_mode.no_grad": False,
                     "__torch__.torch.autograd.grad_mode.enable_grad": True}


def enter_grad_mode(obj: Any, enabled: bool) -> None:
    """``__enter__`` of ``no_grad``/``enable_grad``: keep the mode, set ``enabled``."""
    obj.prev = is_grad_enabled()
    set_grad_enabled(enabled)


def exit_grad_mode(obj: Any) -> None:
    """``__exit__`` of ``no_grad``/``enable_grad``: the mode kept on entry again."""
    set_grad_enabled(obj.prev)


R.implement("aten::is_grad_enabled", is_grad_enabled)
R.implement("aten::set_grad_enabled", set_grad_enabled)
