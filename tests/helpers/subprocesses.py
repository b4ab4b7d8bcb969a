"""Running this checkout's pyjit in a child Python, for what a test cannot check in
its own process (an import's side effects, a module hidden, a command's exit)."""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["CHECKOUT", "checkout_env"]

#: The repository root: the directory holding ``pyjit/`` and ``tests/``.
CHECKOUT = Path(__file__).resolve().parent.parent.parent


def checkout_env(**overrides: str) -> dict:
    """The environment for a subprocess that must import this checkout's pyjit, as
    the test session does: the checkout first on ``PYTHONPATH``."""
    path = [str(CHECKOUT)] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    return dict(os.environ, PYTHONPATH=os.pathsep.join(path), **overrides)
