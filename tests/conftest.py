"""Fixtures shared by the whole suite: the two run loops, so one suite tests both.

Only fixtures and hooks live here; helpers live in ``tests/helpers`` (see its
``__init__``), because a test module cannot import ``conftest`` under
``--import-mode=importlib``.
"""

import pytest

from helpers.backends import BACKENDS, import_backend


@pytest.fixture(params=list(BACKENDS))
def loop(request):
    """``pyjit._pure`` or ``pyjit._core``: the module with Program and Frame."""
    return import_backend(request.param)


@pytest.fixture(scope="session")
def backends():
    """Both loop modules, ``(pure, compiled)``, for tests that compare them."""
    return import_backend("pure"), import_backend("compiled")
