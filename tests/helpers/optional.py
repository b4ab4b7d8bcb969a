"""What the suite uses when it is installed and skips without: torch, Graphviz's dot.

pyjit needs neither (CI has neither): a test that does says so with a skip mark
from here, whose reason is the one line a skipped test shows.
"""

from __future__ import annotations

import importlib.util
import shutil
import sys

import pytest

__all__ = ["torch_installed", "needs_torch", "needs_dot"]


def torch_installed() -> bool:
    """Whether torch can be imported, found without importing it (a second or two);
    ``sys.modules['torch'] = None`` hides it, as the tests of running without it do."""
    if "torch" in sys.modules:
        return sys.modules["torch"] is not None
    return importlib.util.find_spec("torch") is not None


needs_torch = pytest.mark.skipif(not torch_installed(), reason=(
    "torch is not installed: pyjit never needs it, from_torch is tested where it is"))

needs_dot = pytest.mark.skipif(shutil.which("dot") is None,
                               reason="Graphviz's dot program is not installed")
