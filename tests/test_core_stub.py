"""pyjit/_core.pyi, the hand-written stub of the compiled loop, against the real
module: the same public names, the same members, the same parameters (the
compiled constructors' from the source, since a ``__cinit__`` has no signature
to introspect, and the pure twin's, whose API it is)."""

import ast
import inspect
import os
import re

import pytest

from helpers.backends import import_backend

PACKAGE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "pyjit")


def _stub() -> ast.Module:
    with open(os.path.join(PACKAGE, "_core.pyi")) as f:
        return ast.parse(f.read())


def _params(fn: ast.FunctionDef) -> list:
    a = fn.args
    return [p.arg for p in a.posonlyargs + a.args + a.kwonlyargs]


def _stub_members(stub: ast.Module):
    functions = {n.name: n for n in stub.body if isinstance(n, ast.FunctionDef)}
    classes = {n.name: {m.name: m for m in n.body if isinstance(m, ast.FunctionDef)}
               for n in stub.body if isinstance(n, ast.ClassDef)}
    names = {t.target.id for t in stub.body if isinstance(t, ast.AnnAssign)}
    return functions, classes, names


def _public(obj) -> set:
    return {n for n in vars(obj) if not n.startswith("_")}


def test_the_stub_names_what_the_module_defines():
    core = import_backend("compiled")
    functions, classes, names = _stub_members(_stub())
    defined = {n for n in _public(core)
               if getattr(getattr(core, n), "__module__", None) == "pyjit._core"}
    assert set(functions) | set(classes) == defined
    assert names == {n for n in _public(core) if n not in defined
                     and isinstance(getattr(core, n), (str, int))}  # CYTHON_VERSION
    for n, fn in functions.items():
        assert _params(fn) == list(inspect.signature(getattr(core, n)).parameters), n


@pytest.mark.parametrize("cls", ["Program", "Frame"])
def test_the_stub_of_each_class_has_its_members_and_parameters(cls):
    core, pure = import_backend("compiled"), import_backend("pure")
    members = _stub_members(_stub())[1][cls]
    real = getattr(core, cls)
    assert set(members) - {"__init__"} == _public(real)
    for name, fn in members.items():
        if name == "__init__":
            continue
        attr = vars(real)[name]
        if any(isinstance(d, ast.Name) and d.id == "property" for d in fn.decorator_list):
            assert inspect.isdatadescriptor(attr), name
        else:
            assert _params(fn) == list(inspect.signature(attr).parameters), name
    # The constructor: the source's __cinit__, and the pure twin's __init__.
    with open(os.path.join(PACKAGE, "_core.pyx")) as f:
        source = f.read()
    body = source[source.index(f"cdef class {cls}"):]
    cinit = re.search(r"def __cinit__\(([^)]*)\)", body).group(1)
    cinit_params = [p.split("=")[0].strip() for p in cinit.split(",") if p.strip()]
    stub_params = _params(members["__init__"])
    assert stub_params == cinit_params
    assert stub_params[1:] == list(inspect.signature(getattr(pure, cls)).parameters)
    defaults = members["__init__"].args.defaults
    pure_defaults = [p.default for p in inspect.signature(getattr(pure, cls)).parameters.values()
                     if p.default is not inspect.Parameter.empty]
    assert [ast.literal_eval(d) for d in defaults] == pure_defaults


def test_the_stub_declares_nothing_that_lives_elsewhere():
    functions, _, _ = _stub_members(_stub())
    assert not [n for n in functions if n.startswith("int_")]  # pyjit.ops._int64's
