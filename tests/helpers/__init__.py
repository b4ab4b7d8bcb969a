"""Helpers the tests share.  Test files import from here, never from each other.

How the suite imports things (``[tool.pytest.ini_options]`` in pyproject.toml):

* ``--import-mode=importlib``: pytest imports each ``test_*.py`` and
  ``conftest.py`` by its path without putting ``tests/`` on ``sys.path`` first.
  A test file therefore cannot ``import test_code`` or ``from conftest import
  ...``, which is the point: anything two test files need lives here.
* ``pythonpath = ["tests"]``: pytest puts ``tests/`` on ``sys.path`` once, so
  this package imports as ``helpers`` (``from helpers.asm import asm``) with
  no ``__init__.py`` in ``tests/`` and no install step; ``python -m pytest``
  and plain ``pytest`` behave alike.  (It also makes the test files importable
  by name; ``test_suite_layout.py`` fails any test file that does so.)

``conftest.py`` keeps only fixtures and hooks (``loop``, ``backends``).

=====================  =====================================================
module                 holds
=====================  =====================================================
``backends``           ``import_backend(name)``, ``BACKENDS``: the one rule
                       for a missing compiled loop (fail; skip only under
                       ``PYJIT_PUREPYTHON``)
``memory``             ``traced_growth(run, times, warmup)``: leak checks
``asm``                ``asm(instructions, ...)``: instruction tables for
                       ``Program`` written as readable tuples
``code_cases``         ``Case``, ``CASES``: small graphs with their pinned
                       ``str(Code(graph))``
``operators``          ``node_of(kind, *types)``, ``op(kind, *types)``: the
                       registry's pick for a one-node graph
``values``             ``decode``, ``assert_same``: the corpus's JSON value
                       encoding and exact comparison
``corpus_check``       ``check_case``: one recorded case of a torch-made corpus
                       run by pyjit and checked against torch
``frontend_programs``  ``CASES``: the frontend corpus, plain Python functions
                       with the arguments to run them on
``source_files``       ``load_function``, ``short_paths``: functions from
                       source text, written to real files to be scripted
``dot_reader``         ``read_dot``, ``html_text``, ``label_text``: DOT text
                       read back, to account for what a picture holds
``optional``           ``torch_installed``, ``needs_torch``, ``needs_dot``:
                       skip marks for what pyjit does not need
``subprocesses``       ``checkout_env``: a child Python importing this checkout
``torch_programs``     tensor functions and modules written with torch (it
                       imports torch: only tests marked ``needs_torch`` use it)
``random_graphs``      ``graphs()``, ``units()``: hypothesis strategies for random
                       well-formed graphs, and units of them calling one another
``signals``            ``alarm(seconds, raise_)``, ``needs_setitimer``: a SIGALRM
                       whose handler raises, for the tests that stop a run
=====================  =====================================================

The differential tests' oracle is not here: it is the benchmarks' dict walker,
:class:`pyjit.benchmarks.walker.GraphInterpreter` (its docstring says why).
"""
