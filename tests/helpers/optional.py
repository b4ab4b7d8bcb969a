"""What the suite uses when it is installed and skips without: torch, Graphviz's dot,
and the engines of ``pyjit[distributed]`` (Dask, Ray, tqdm).

pyjit needs none of them: a test that does says so with a skip mark from here,
whose reason is the one line a skipped test shows.  CI has no torch and no dot;
one of its steps installs ``pyjit[distributed]``, so the tests of the engines
run there.
"""

from __future__ import annotations

import importlib.util
import shutil
import sys

import pytest

__all__ = ["torch_installed", "needs_torch", "needs_dot", "installed", "needs_dask",
           "needs_ray", "needs_tqdm"]


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


def installed(module: str) -> bool:
    """Whether ``module`` can be imported (found, not imported)."""
    return importlib.util.find_spec(module) is not None


def _needs(module: str, what: str):
    return pytest.mark.skipif(not installed(module), reason=(
        f"{what} is not installed: pip install 'pyjit[distributed]' brings it"))


needs_dask = _needs("distributed", "dask.distributed")
needs_ray = _needs("ray", "Ray")
needs_tqdm = _needs("tqdm", "tqdm")
