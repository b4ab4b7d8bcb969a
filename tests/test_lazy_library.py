"""What importing pyjit loads, and the operator library loaded on a registry's
first lookup: the IR, the passes and the code generator load none of the
library, the archive, the frontend, the interpreter or a loop; every public name
is still ``pyjit.X``; which overload runs a node follows the registry's rule,
not the order anything was declared or imported in."""

import json
import operator
import subprocess
import sys
import textwrap

import pytest

import pyjit
from pyjit import registry
from pyjit.ir import types as T
from pyjit.registry import Registry, library

#: What the lower layers must not load.
ABOVE = ("pyjit.ops", "pyjit.archive", "pyjit.frontend", "pyjit.interpreter", "pyjit._core",
         "pyjit._pure", "pyjit._timed", "pyjit.torch_bridge", "pyjit.benchmarks",
         "pyjit.profiler", "pyjit.cli")


def _loaded_after(code: str) -> list:
    """The pyjit modules in sys.modules after running ``code`` in a new process."""
    script = textwrap.dedent(code) + textwrap.dedent("""
        import json, sys
        print(json.dumps(sorted(m for m in sys.modules if m.split(".")[0] == "pyjit")))
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          check=True)
    return json.loads(done.stdout.splitlines()[-1])


@pytest.mark.parametrize("module", ["pyjit.ir", "pyjit.ir.types", "pyjit.ir.parser",
                                    "pyjit.passes", "pyjit.codegen.typed", "pyjit.code",
                                    "pyjit.validate"])
def test_the_lower_layers_load_nothing_above_them(module):
    loaded = _loaded_after(f"import {module}")
    assert module in loaded
    assert [m for m in loaded if m.startswith(ABOVE)] == []


def test_import_pyjit_loads_pyjit_alone():
    assert _loaded_after("import pyjit") == ["pyjit"]


def test_the_interpreter_loads_no_operator():
    loaded = _loaded_after("import pyjit.interpreter")
    assert not [m for m in loaded if m.startswith(("pyjit.ops", "pyjit.archive",
                                                   "pyjit.frontend"))]


@pytest.mark.parametrize("name", [n for n in pyjit.__all__ if n != "__version__"])
def test_every_public_name_is_an_attribute_and_importable(name):
    module, attr = pyjit._LAZY[name]
    defined = sys.modules.get(module) or __import__(module, fromlist=["_"])
    expected = defined if attr is None else getattr(defined, attr)
    assert getattr(pyjit, name) is expected
    namespace: dict = {}
    exec(f"from pyjit import {name}", namespace)
    assert namespace[name] is expected
    assert name in dir(pyjit)


def test_the_lazy_names_are_the_public_ones():
    assert set(pyjit._LAZY) == set(pyjit.__all__) - {"__version__"}


def test_an_unknown_attribute_says_so():
    with pytest.raises(AttributeError, match=r"^module 'pyjit' has no attribute 'nope'$"):
        pyjit.nope


def test_the_default_registry_loads_the_library_on_its_first_lookup():
    loaded = _loaded_after("""
        import sys
        from pyjit.ir import types as T
        from pyjit.registry import default_registry
        assert "pyjit.ops" not in sys.modules
        op = default_registry.find("aten::add", [T.INT, T.INT])
        assert op.library and op.intrinsic == "ADD_I", op
    """)
    assert "pyjit.ops.scalars" in loaded and "pyjit.frontend" not in loaded


def test_a_kind_is_registered_when_it_is_first_looked_up():
    r = Registry(library=True)
    r.load_library()
    assert not r._ops and "aten::relu" in r._lazy and "aten::relu" in r.kinds()
    assert r.find("aten::relu", [T.TENSOR]) is not None
    assert "aten::relu" in r._ops and "aten::relu" not in r._lazy
    assert len(r._ops) < 10   # relu and what its derivers looked up
    r.register_library()
    assert not r._lazy
    assert set(r._ops) == set(r.kinds())
    # ... in the order declared: the same overloads, in the same order, as a
    # registry that takes every declaration at once
    for kind in ("aten::add", "aten::sum", "aten::__getitem__"):
        assert [o.signature() for o in r.overloads(kind)] == \
            [o.signature() for o in Registry(library=True).overloads(kind)]


# -- the rule ----------------------------------------------------------------------

def _mine(a, b):
    return a * 100 + b


ADD = """graph(%a : int, %b : int):
  %c : int = aten::add(%a, %b)
  return (%c)
"""


@pytest.mark.parametrize("when", ["before the library loads", "after it loaded"])
def test_a_registration_of_your_own_overrides_the_library_whenever_it_was_made(when):
    r = Registry(library=True)
    if when == "after it loaded":
        assert r.find("aten::add", [T.INT, T.INT]).fn is not _mine
        r.register("aten::add", _mine, types=["int", "int"])
    else:
        r.register("aten::add", _mine, types=["int", "int"])
        assert r._library_pending  # nothing looked up yet
    found = r.find("aten::add", [T.INT, T.INT])
    assert found.fn is _mine and not found.library
    # Yours wins at equal specificity only: a more specific library overload stays.
    r.register("aten::mul", _mine, types=["t", "t"])
    assert r.find("aten::mul", [T.INT, T.INT]).library
    assert r.find("aten::mul", [T.STR, T.STR]).fn is _mine


def test_register_operator_before_first_use_overrides_in_a_run():
    loaded = _loaded_after("""
        import pyjit
        pyjit.register_operator("aten::add", lambda a, b: a * 100 + b, types=["int", "int"])
        g = pyjit.parse_ir('''graph(%a : int, %b : int):
          %c : int = aten::add(%a, %b)
          return (%c)
        ''')
        for optimize in (False, True):
            assert pyjit.Function(pyjit.Code(g, optimize=optimize))(2, 3) == 203
    """)
    assert "pyjit.ops" in loaded


def test_a_family_that_looks_up_while_the_library_loads_is_refused(monkeypatch):
    r = Registry(library=True)
    monkeypatch.setattr(registry.library, "declarations",
                        lambda: r.find("aten::add", [T.INT, T.INT]) or [])
    with pytest.raises(RuntimeError, match="looked an operator up while the library was "
                                           "loading"):
        r.load_library()


def test_the_library_declares_no_two_overloads_alike():
    seen: dict = {}
    for kind, fn, options in library.declarations():
        key = (kind, options.get("schema") or str(options.get("types")),
               options.get("varargs", False))
        assert key not in seen, f"{key} declared twice"
        seen[key] = fn


def test_overload_choice_does_not_depend_on_declaration_order():
    forward = Registry(library=True)
    backward = Registry(derived=True)   # the out= forms derived there too
    for kind, fn, options in reversed(library.declarations()):
        backward.register(kind, fn, _library=True, **options)
    ops = [op for kind in forward.kinds() for op in forward.overloads(kind)
           if op.types is not None and not op.varargs]
    differ = []
    for op in ops:
        a = forward.find(op.kind, op.types)
        b = backward.find(op.kind, op.types)
        if a is None and b is None:  # a pattern of type variables: no type is one
            continue
        # a derived out= form is made in each registry, around the same function
        if (getattr(a.fn, "__wrapped__", a.fn), a.factory, a.types) != \
                (getattr(b.fn, "__wrapped__", b.fn), b.factory, b.types):
            differ.append(op.signature())
    assert differ == []
    assert len(ops) > 1500


def _named(kind: str) -> str:
    """The name a family's list gives a kind: in-place forms (``abs_``,
    ``__iand__``) are their operator's."""
    name = kind.split("::")[1]
    if name.startswith("__i") and name.endswith("__"):
        return "__" + name[3:]
    return name[:-1] if name.endswith("_") and not name.endswith("__") else name


def test_a_family_lists_what_it_declares():
    """``pyjit info --ops`` lists each family's operators from its declarations
    (``ops.family_operators``): every kind it declares is there, under its name
    or, for an in-place form whose operator it declares too, that operator's; and
    every name listed is one it declares."""
    from pyjit.ops import FAMILIES, family_operators, activations, indexing
    pyjit.registry.default_registry.load_library()
    by = library.kinds_by_family()
    for title, modules in FAMILIES:
        for module in modules:
            listed = set(family_operators(module))
            names = {k.split("::")[1] for k in by.get(module.__name__, [])}
            assert all(n in listed or _named("aten::" + n) in listed for n in names), \
                module.__name__
            assert listed <= names, module.__name__
    assert "aten::relu" in by["pyjit.ops.activations"]  # declared through pointwise's helper
    assert "relu" in family_operators(activations) and "relu_" not in family_operators(activations)
    assert "fill_diagonal_" in family_operators(indexing)   # torch has no fill_diagonal


def test_what_type_checkers_read_is_the_lazy_table():
    """``pyjit/__init__.py``'s ``if TYPE_CHECKING:`` imports (pyjit is typed:
    ``py.typed``) name exactly the modules and attributes of ``_LAZY``."""
    import ast
    import inspect
    tree = ast.parse(inspect.getsource(pyjit))
    (block,) = [n for n in tree.body if isinstance(n, ast.If)
                and getattr(n.test, "id", None) == "TYPE_CHECKING"]
    imported = {}
    for node in block.body:
        base = "pyjit" + ("." + node.module if node.module else "")
        for alias in node.names:
            imported[alias.name] = ((base + "." + alias.name, None) if node.module is None
                                    else (base, alias.name))
    assert imported == pyjit._LAZY
