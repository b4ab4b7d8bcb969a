"""Which run loop is active: the compiled ``pyjit._core`` or the pure ``pyjit._pure``.

``PYJIT_PUREPYTHON=1`` in the environment selects the pure-Python twin.  Otherwise
the compiled core is used when it was built; a core that was built but fails to
import is an error, never a silent fallback.  A package installed without the
extension (``PYJIT_PUREPYTHON=1`` at build time) runs the twin.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
from types import ModuleType

__all__ = ["loop", "HAS_CEXT", "pure", "compiled", "want_pure", "loop_named"]


def want_pure() -> bool:
    """Whether the environment asks for the pure-Python loop."""
    return os.environ.get("PYJIT_PUREPYTHON", "").strip().lower() in ("1", "true", "yes", "on")


def compiled() -> ModuleType:
    """The compiled loop module (raises ImportError when it was not built)."""
    return importlib.import_module("pyjit._core")


def pure() -> ModuleType:
    """The pure-Python loop module."""
    return importlib.import_module("pyjit._pure")


def _select() -> ModuleType:
    if want_pure():
        return pure()
    if importlib.util.find_spec("pyjit._core") is None:
        return pure()
    return compiled()


#: The active loop module: provides ``Program`` and ``Frame``.
loop: ModuleType = _select()
HAS_CEXT: bool = loop.__name__ == "pyjit._core"


def loop_named(name: str) -> ModuleType:
    """The loop module a pickle names (``pyjit._core`` or ``pyjit._pure``).

    Raises:
        ImportError: the compiled loop is named but was not built here.
    """
    if name == "pyjit._pure":
        return pure()
    if name == "pyjit._core":
        try:
            return compiled()
        except ImportError as exc:
            raise ImportError("the pickle asks for the compiled loop (pyjit._core), which "
                              "this installation of pyjit does not have") from exc
    raise ValueError(f"{name!r} is not one of pyjit's loops")
