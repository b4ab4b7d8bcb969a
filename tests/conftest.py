"""Fixtures shared by the whole suite: the two run loops at the two optimisation
levels, so one suite tests all four.

Only fixtures and hooks live here; helpers live in ``tests/helpers`` (see its
``__init__``), because a test module cannot import ``conftest`` under
``--import-mode=importlib``.
"""

import os

import pytest

from helpers.backends import BACKENDS, import_backend
from helpers.levels import LEVELS, at_level

#: What ``pytest -m "not slow"`` leaves out, by file: the whole file (None), or
#: the tests of those names.  Slow are whole corpora, property tests and fuzzing,
#: stress and measurement, subprocesses; each named test here took seconds in a
#: full run.  ``@pytest.mark.slow`` on a test says the same where it is defined.
SLOW = {
    # corpora: every program, sample or fixture recorded from torch
    "test_jit_suite.py": None, "test_opdb.py": None, "test_corpus.py": None,
    "test_library.py": None, "test_frontend_corpus.py": None, "test_calls_corpus.py": None,
    "test_real_corpus.py": {"test_real_function"},
    # hypothesis and fuzzing
    "test_loop.py": None, "test_random_graphs.py": None, "test_parser_fuzz.py": None,
    "test_frontend_property.py": None,
    # threads under stress, measurements
    "test_async_stress.py": None, "test_gil.py": None, "test_compile_scaling.py": None,
    "test_allocation.py": None, "test_benchmarks.py": None,
    # child processes: the installed command, mypy, the README's scripts
    "test_cli.py": None, "test_typing.py": None, "test_readme.py": None,
    # single tests of seconds each
    "test_archives.py": {"test_archive_runs_as_torch", "test_torch_is_never_imported"},
    "test_intrinsics.py": {"test_intrinsic_equals_its_operator",
                           "test_division_by_a_constant_reciprocal"},
    "test_async.py": {"test_wait_inside_an_if_branch_releases_every_value",
                      "test_wait_inside_a_loop_body_releases_every_value"},
    "test_code.py": {"test_nesting_depth_is_not_limited_by_the_recursion_limit"},
    "test_ufunc_direct.py": {"test_direct_in_place_path_equals_generic_path",
                             "test_direct_path_equals_generic_path"},
    "test_profiler.py": {"test_the_compiled_timed_loop_is_a_module_of_its_own"},
    "test_dot.py": {"test_cli_without_dot_is_one_line"},
    "test_interpreter.py": {"test_failing_graph_leaks_nothing",
                            "test_cli_dump_of_mutated_graphs_is_one_line_or_a_listing"},
    "test_calls_loop.py": {"test_calls_leak_nothing", "test_a_callee_error_path_leaks_nothing",
                           "test_deep_recursion_runs_without_python_recursion"},
    "test_calls.py": {"test_calls_compute_what_the_inlined_graph_computes",
                      "test_random_units_call_functions", "test_deep_recursion_in_both_loops"},
    "test_recursion.py": {"test_deep_reentry_is_a_short_recursion_error"},
    "test_torch_bridge.py": {"test_this_file_skips_cleanly_without_torch",
                             "test_from_torch_without_torch_says_what_it_takes",
                             "test_pyjit_never_imports_torch"},
}


def pytest_ignore_collect(collection_path, config):
    """With ``-m "not slow"`` exactly, the wholly slow files are not even imported
    (their thousands of parametrised tests took a third of the collection)."""
    if config.getoption("markexpr", "").strip() == "not slow" and \
            SLOW.get(collection_path.name, ()) is None:
        return True
    return None


def pytest_collection_modifyitems(config, items):
    for item in items:
        names = SLOW.get(os.path.basename(str(item.path)), ())
        if names is None or getattr(item, "originalname", item.name) in names:
            item.add_marker(pytest.mark.slow)


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


@pytest.fixture(params=["compiled", "numpy"])
def kernel_set(request, monkeypatch):
    """Each set of float32 kernels (pyjit.ops.kernels) in turn, made the one the
    operators use."""
    from pyjit.ops import kernels
    chosen = kernels.COMPILED if request.param == "compiled" else kernels.NUMPY
    if chosen is None:
        pytest.skip("pyjit was built without a compiler: no compiled kernels")
    monkeypatch.setattr(kernels, "ACTIVE", chosen)
    return chosen


@pytest.fixture(scope="session")
def backends():
    """Both loop modules, ``(pure, compiled)``, for tests that compare them."""
    return import_backend("pure"), import_backend("compiled")
