"""The one-way import order that docs/architecture.md states, checked: every
import of a pyjit module, at module level or inside a function, goes to its own
layer or one below it.  The one exception the page names is no import statement:
the registry loads pyjit.ops with importlib on its first lookup."""

import ast
import os

import pytest

ROOT = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "pyjit")

#: The layers, bottom first, by the top-level module or package of pyjit.
LAYERS = [
    {"errors", "gcpause", "opcodes", "workqueue", "fperrors", "_slowpath", "_loop_cases"},
    {"graphviz", "futures"},
    {"ir"},
    {"passes", "registry", "arguments", "pickling"},
    {"ops", "codegen", "validate"},
    {"code", "code_dot", "code_pickle"},
    {"_pure", "_core", "_timed", "_backend"},
    {"interpreter"},
    {"compilation_unit", "profiler", "torch_bridge", "benchmarks"},
    {"frontend"},
    {"archive"},
    {"cli", "__main__", "__init__"},
]
LAYER = {name: i for i, names in enumerate(LAYERS) for name in names}


def _modules():
    for folder, _, files in os.walk(ROOT):
        for f in files:
            if f.endswith((".py", ".pyx")):
                yield os.path.join(folder, f)


def _component(path_parts):
    """``["ops", "scalars"]`` -> ``"ops"``; ``["__init__"]`` -> ``"__init__"``."""
    return path_parts[0]


def _imports(path):
    """(component imported, line) for each import of pyjit in ``path``."""
    rel = os.path.relpath(path, ROOT).rsplit(".", 1)[0].split(os.sep)
    package = rel[:-1]
    with open(path) as f:
        text = f.read()
    if path.endswith(".pyx"):  # the Python-level imports of a Cython module
        text = "\n".join(line for line in text.splitlines()
                         if line.startswith(("import ", "from ")) and " cimport " not in line)
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[:len(package) - node.level + 1]
                target = base + (node.module.split(".") if node.module else [])
            elif (node.module or "").split(".")[0] == "pyjit":
                target = node.module.split(".")[1:]
            else:
                continue
            if not target:  # from . import x, y
                for alias in node.names:
                    yield alias.name, node.lineno
            else:
                yield _component(target), node.lineno
        elif isinstance(node, ast.Import):
            for alias in node.names:
                parts = alias.name.split(".")
                if parts[0] == "pyjit" and len(parts) > 1:
                    yield parts[1], node.lineno


def test_every_module_is_in_a_layer():
    components = {os.path.relpath(p, ROOT).split(os.sep)[0].rsplit(".", 1)[0]
                  for p in _modules()}
    assert components - set(LAYER) == set()


@pytest.mark.parametrize("path", sorted(_modules()), ids=lambda p: os.path.relpath(p, ROOT))
def test_imports_go_down(path):
    own = os.path.relpath(path, ROOT).split(os.sep)[0].rsplit(".", 1)[0]
    upward = [(target, line) for target, line in _imports(path)
              if target in LAYER and LAYER[target] > LAYER[own]]
    assert upward == [], f"{own} (layer {LAYER[own]}) imports a layer above it"


#: The emitter core inside the frontend (pyjit/frontend/core.py): what both
#: dialects, the Python function's and the archive's, compile through.
CORE = {"core", "builder", "environment", "lowering", "statements", "loops", "expressions",
        "arguments", "operators", "intrinsics", "interfaces", "typing_rules"}


def _frontend_imports(path):
    """(frontend module, line) for each import of a module of pyjit.frontend, and
    ("archive", line) for each of pyjit.archive, in ``path`` (in pyjit/frontend)."""
    with open(path) as f:
        tree = ast.parse(f.read())
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            module = node.module or ""
            if node.level == 1:
                names = [module.split(".")[0]] if module else [a.name for a in node.names]
            elif node.level == 2 or module.startswith("pyjit."):
                parts = module.split(".")[1:] if module.startswith("pyjit.") else \
                    module.split(".")
                if parts[:1] == ["archive"]:
                    yield "archive", node.lineno
                names = [parts[1]] if parts[:1] == ["frontend"] and len(parts) > 1 else []
            else:
                names = []
            for name in names:
                yield name, node.lineno


@pytest.mark.parametrize("name", sorted(CORE))
def test_the_emitter_core_imports_no_dialect(name):
    path = os.path.join(ROOT, "frontend", f"{name}.py")
    outside = [(target, line) for target, line in _frontend_imports(path)
               if target not in CORE]
    assert outside == [], f"frontend/{name}.py imports a dialect (the Python scope, calls, " \
                          "classes..., or the archive)"
