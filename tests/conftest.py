"""Fixtures shared by the whole suite: the two run loops at the two optimisation
levels, so one suite tests all four.

Only fixtures and hooks live here; helpers live in ``tests/helpers`` (see its
``__init__``), because a test module cannot import ``conftest`` under
``--import-mode=importlib``.
"""

import pytest

from helpers.backends import BACKENDS, import_backend
from helpers.levels import LEVELS, at_level


@pytest.fixture(params=[(b, level) for b in BACKENDS for level in LEVELS],
                ids=[f"{b}-{level}" for b in BACKENDS for level in LEVELS])
def loop(request):
    """``pyjit._pure`` or ``pyjit._core``: the module with Program and Frame.  Each
    is given twice, once with every Code of the test built unoptimised (``O0``:
    the seed's table) and once optimised (``O1``)."""
    name, level = request.param
    module = import_backend(name)
    with at_level(level):
        yield module


@pytest.fixture(scope="session")
def backends():
    """Both loop modules, ``(pure, compiled)``, for tests that compare them."""
    return import_backend("pure"), import_backend("compiled")
