"""Shared fixtures: the two run loops, so one suite tests both."""

import importlib
import importlib.util
import os
import sys

import pytest

BACKENDS = {"pure": "pyjit._pure", "compiled": "pyjit._core"}


def import_backend(name):
    """The loop module ``name``; skip "compiled" only for a PYJIT_PUREPYTHON build.

    Anywhere else a missing extension is a broken build, so the import error
    fails the test instead of hiding behind a skip.
    """
    try:
        return importlib.import_module(BACKENDS[name])
    except ImportError as exc:
        if name == "compiled" and os.environ.get("PYJIT_PUREPYTHON", "") in ("1", "true", "yes"):
            pytest.skip(f"pyjit._core is not built (PYJIT_PUREPYTHON is set): {exc}")
        raise


@pytest.fixture(params=list(BACKENDS))
def loop(request):
    """``pyjit._pure`` or ``pyjit._core``: the module with Program and Frame."""
    return import_backend(request.param)


@pytest.fixture(scope="session")
def backends():
    """Both loop modules, ``(pure, compiled)``, for tests that compare them."""
    return import_backend("pure"), import_backend("compiled")


def traced_growth(run, times, warmup=0):
    """Bytes still allocated (tracemalloc: objects and raw allocations alike) after
    ``run(times)``, relative to before it; ``run(warmup)`` fills caches first.
    tracemalloc makes every allocation slow, so callers give modest counts."""
    import gc
    import tracemalloc
    tracemalloc.start()
    try:
        if warmup:
            run(warmup)
        gc.collect()
        before = tracemalloc.get_traced_memory()[0]
        run(times)
        gc.collect()
        return tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()


def torch_installed() -> bool:
    """Whether torch can be imported, found without importing it (a second or two);
    ``sys.modules['torch'] = None`` hides it, as the tests of running without it do."""
    if "torch" in sys.modules:
        return sys.modules["torch"] is not None
    return importlib.util.find_spec("torch") is not None


CHECKOUT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def checkout_env(**overrides: str) -> dict:
    """The environment for a subprocess that must import this checkout's pyjit, as
    the test session does: the checkout first on ``PYTHONPATH``."""
    path = [CHECKOUT] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    return dict(os.environ, PYTHONPATH=os.pathsep.join(path), **overrides)
