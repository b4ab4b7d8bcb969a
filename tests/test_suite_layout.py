"""The suite's own layout rules (see ``tests/helpers/__init__.py``), checked on
the source so that they cannot quietly regress.

* No test module imports another test module or ``conftest``: shared code lives
  in ``tests/helpers``.
* Which run loops exist is decided in one place, ``helpers/backends.py``: no other
  file imports ``pyjit._core``/``pyjit._pure`` or catches ``ImportError``.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

TESTS = Path(__file__).parent
SOURCES = sorted(TESTS.glob("*.py")) + sorted((TESTS / "helpers").glob("*.py"))
BACKEND_RULE = TESTS / "helpers" / "backends.py"
LOOP_MODULES = {"pyjit._core", "pyjit._pure"}


def _imported_modules(tree: ast.AST):
    """(line, dotted name) of every module an ``import``/``from`` statement names,
    ``from pyjit import _core`` counting as ``pyjit._core``."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom) and node.module:
            yield node.lineno, node.module
            for alias in node.names:
                yield node.lineno, f"{node.module}.{alias.name}"


def _catches_import_error(handler: ast.ExceptHandler) -> bool:
    types = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
    return any(isinstance(t, ast.Name) and t.id in ("ImportError", "ModuleNotFoundError")
               for t in types)


def _parse(path: Path) -> ast.AST:
    return ast.parse(path.read_text(encoding="utf-8"), filename=str(path))


def test_the_rules_have_files_to_check():
    names = {p.name for p in SOURCES}
    assert {"conftest.py", "test_suite_layout.py", "backends.py"} <= names


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(TESTS)))
def test_no_test_module_imports_another(path):
    bad = [f"{path.name}:{line}: {name}" for line, name in _imported_modules(_parse(path))
           if name.split(".")[0] == "conftest" or name.split(".")[0].startswith("test_")]
    assert bad == []


@pytest.mark.parametrize("path", [p for p in SOURCES if p != BACKEND_RULE],
                         ids=lambda p: str(p.relative_to(TESTS)))
def test_only_helpers_backends_decides_which_loops_exist(path):
    tree = _parse(path)
    bad = [f"{path.name}:{line}: imports {name}" for line, name in _imported_modules(tree)
           if name in LOOP_MODULES]
    bad += [f"{path.name}:{node.lineno}: catches ImportError" for node in ast.walk(tree)
            if isinstance(node, ast.ExceptHandler) and node.type is not None
            and _catches_import_error(node)]
    assert bad == []
