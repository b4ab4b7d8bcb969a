"""Running the tested pyjit in a child Python, for what a test cannot check in its
own process (an import's side effects, a module hidden, a command's exit)."""

from __future__ import annotations

import os
from pathlib import Path

import pyjit

__all__ = ["CHECKOUT", "PYJIT_HOME", "checkout_env"]

#: The repository root: the directory holding ``pyjit/``, ``tests/`` and the
#: examples the tests read (a checkout, or an unpacked sdist).
CHECKOUT = Path(__file__).resolve().parent.parent.parent

#: The directory the pyjit under test was imported from: the checkout when the
#: suite runs on the source tree, site-packages when it runs an installed pyjit
#: (the suite of an unpacked sdist, whose tree has no compiled extensions).
PYJIT_HOME = Path(pyjit.__file__).resolve().parent.parent


def checkout_env(**overrides: str) -> dict:
    """The environment for a subprocess that must import the same pyjit as the test
    session: its directory first on ``PYTHONPATH``."""
    path = [str(PYJIT_HOME)] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep)
                                if p]
    return dict(os.environ, PYTHONPATH=os.pathsep.join(path), **overrides)
