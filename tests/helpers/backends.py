"""Which run loops a test may use: the suite's one rule for a missing compiled loop.

Every test that names a loop gets it from :func:`import_backend` (directly, or
through the ``loop`` and ``backends`` fixtures of ``conftest.py``), so the rule
is written once:

* ``"pure"`` (``pyjit._pure``) always imports; an error there fails the test.
* ``"compiled"`` (``pyjit._core``) failing to import fails the test, because
  anywhere the extension should have been built a missing one is a broken build,
  not something to hide behind a skip;
* the same for the operator library's compiled module (:func:`import_compiled`);
* unless ``PYJIT_PUREPYTHON`` asks for the pure loop (read by
  :func:`pyjit._backend.want_pure`, the same test the package uses to choose its
  loop): then the compiled half of the suite is skipped, with the import error
  as the reason.

Nothing else in ``tests/`` imports ``pyjit._core``/``pyjit._pure`` or catches
``ImportError`` to decide which loops run (``test_suite_layout.py`` checks it).
"""

from __future__ import annotations

import importlib
from types import ModuleType

import pytest

from pyjit import _backend

__all__ = ["BACKENDS", "import_backend", "import_compiled"]

#: The loops by the names the tests use for them (and their test ids).
BACKENDS = {"pure": _backend.pure, "compiled": _backend.compiled}


def import_backend(name: str) -> ModuleType:
    """The loop module ``name`` (``"pure"`` or ``"compiled"``), under the rule above."""
    try:
        return BACKENDS[name]()
    except ImportError as exc:
        if name == "compiled" and _backend.want_pure():
            pytest.skip(f"pyjit._core is not built (PYJIT_PUREPYTHON is set): {exc}")
        raise


def import_compiled(module: str) -> ModuleType:
    """A compiled module other than the loop (``"pyjit.ops._int64"``), under the
    rule above."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        if _backend.want_pure():
            pytest.skip(f"{module} is not built (PYJIT_PUREPYTHON is set): {exc}")
        raise
