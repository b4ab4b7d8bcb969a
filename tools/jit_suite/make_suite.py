# -*- coding: utf-8 -*-
"""Record the JIT-suite corpus (tests/fixtures/jit_suite/) with real PyTorch.

Run by hand from the repository root, with a Python that has torch (never by the
tests, which only read what this writes):

    python tools/jit_suite/make_suite.py            # rewrite tests/fixtures/jit_suite/
    python tools/jit_suite/make_suite.py --check    # regenerate elsewhere and compare

The programs are the functions marked ``@program`` (and the classes marked
``@module_program``) in the modules beside this file, taken from PyTorch's own JIT
test suite.  For each program it scripts the function and writes, under
``tests/fixtures/jit_suite/<group>/`` (``<group>`` is the module's name):

* ``<name>.ir``                 the inlined graph (``torch._C._jit_pass_inline``, which
                                does not enter ``prim::fork``/``prim::awaitable``
                                subgraphs): what the issue's corpus runs;
* ``<name>.graph.ir``           ``fn.graph`` as torch stores it, when it calls
                                other functions or methods (``prim::CallFunction``,
                                ``prim::CallMethod``), and a module's ``forward`` graph;
* ``<name>.callee.<f>.ir``      the graph of every function it calls, directly or not;
* ``<name>.deep.ir``            the inlined graph with fork/awaitable subgraphs inlined
                                too, when that differs from ``<name>.ir``;
* ``<name>.class.<C>.<m>.ir``   each method of each TorchScript class it uses;
* ``<name>.method.<path>.ir``   for a module: each method of each (sub)module;
* ``<name>.json``               source, origin, the enum classes it uses, cases and
                                torch's results (below).

Every ``.ir`` is ``str(graph)`` byte for byte except that absolute paths in the
``# file:line:col`` comments are made relative (this directory's files to
``tools/jit_suite/...``, torch's own to ``torch/...``).  Output is deterministic.
"""
import argparse
import contextlib
import copy
import enum
import importlib
import inspect
import json
import os
import sys
import tempfile

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(REPO, "tools", "fixtures"))
import make_fixtures  # noqa: E402  (the JSON value encoding and torch's path prefixes)
from make_fixtures import encode  # noqa: E402

#: The program modules, in the order the corpus lists them; a module's group name
#: drops the trailing underscore that keeps it from shadowing a standard module.
MODULES = ["lists", "dicts", "strings", "unicode_strings", "formatting", "builtins_",
           "slices", "exceptions", "unions", "async_", "await_", "enums", "modules", "classes", "with_", "module_containers"]
OUT = os.path.join("tests", "fixtures", "jit_suite")


def group_of(module_name):
    return module_name.rstrip("_")


# ----------------------------------------------------------------------------------
# Graph text
# ----------------------------------------------------------------------------------

def relative_paths(text):
    """This directory's files as ``tools/jit_suite/...`` and torch's as
    ``torch/...``; nothing else changes."""
    for here in {HERE, os.path.realpath(HERE)}:
        text = text.replace(here + os.sep, "tools/jit_suite/")
    for parent in make_fixtures.TORCH_PARENTS:
        text = text.replace(parent, "")
    assert REPO not in text and os.path.realpath(REPO) not in text, \
        "absolute path left in:\n" + text
    return text


def nodes_in(graph):
    """Every node of ``graph``, in nested blocks and in fork/awaitable subgraphs too."""
    pending = [graph.block()]
    while pending:
        for node in pending.pop(0).nodes():
            yield node
            if node.hasAttribute("Subgraph"):
                pending.append(node.g("Subgraph").block())
            pending.extend(node.blocks())


def called_names(graph):
    """The names of the functions ``graph`` calls (``prim::Constant[name=...]`` of
    type Function), in its subgraphs too, in order of appearance."""
    return list(dict.fromkeys(
        node.s("name") for node in nodes_in(graph)
        if node.kind() == "prim::Constant" and node.hasAttribute("name")
        and node.output().type().kind() == "FunctionType"))


def class_names(graph):
    """The qualified names of the TorchScript classes whose objects ``graph`` (or a
    subgraph of it) makes or takes, in order of appearance."""
    values = list(graph.inputs()) + [v for node in nodes_in(graph) for v in node.outputs()]
    return list(dict.fromkeys(v.type().qualified_name() for v in values
                              if v.type().kind() == "ClassType"))


def class_method_files(name, graphs):
    """``{"<name>.class.<Class>.<method>.ir": text}`` for every method of every
    TorchScript class the graphs of a function use: what a class's
    ``prim::CallMethod`` runs (a module's methods are recorded apart)."""
    cu = torch.jit._state._python_cu
    files = {}
    pending, seen = list(graphs), set()
    while pending:
        for qualified in class_names(pending.pop(0)):
            cls = cu.get_class(qualified)
            if cls is None or qualified in seen:
                continue
            seen.add(qualified)
            for method in cls.method_names():
                short = qualified.split(".")[-1]
                method_graph = cu.find_function(qualified + "." + method).graph
                files["%s.class.%s.%s.ir" % (name, short, method)] = str(method_graph)
                pending.append(method_graph)  # the classes its methods use, too
    return files


def enum_classes_in(graphs, values):
    """The Python enum classes a program uses: those of its graphs' values (their
    types, and the types inside list, tuple, optional... types) and of the Python
    values it is run on or returns, in order of appearance."""
    names = []
    pending = [v.type() for graph in graphs
               for v in list(graph.inputs()) + [o for n in nodes_in(graph) for o in n.outputs()]]
    while pending:
        t = pending.pop(0)
        if t.kind() == "EnumType":
            names.append(str(t))
        pending.extend(t.containedTypes())
    found = {}
    for name in names:
        module_name, _, cls_name = name[len("__torch__."):].rpartition(".")
        found.setdefault(name, getattr(importlib.import_module(module_name), cls_name))
    pending = list(values)
    while pending:
        v = pending.pop(0)
        if isinstance(v, enum.Enum):
            found.setdefault(torch._jit_internal._qualified_name(type(v)), type(v))
        elif isinstance(v, (list, tuple)):
            pending.extend(v)
        elif isinstance(v, dict):
            pending.extend(v.items())
    return found


def enum_definitions(classes):
    """``[[qualified name, [[member, value], ...]], ...]``: what pyjit needs to
    make the enum classes whose members the graphs name but whose values they do
    not print (``prim::Constant[value=__torch__.enums.Color.RED]``)."""
    return [[name, [[m.name, encode(m.value)] for m in cls]] for name, cls in classes.items()]


def inlined(graph):
    g = graph.copy()
    torch._C._jit_pass_inline(g)
    return g


def deep_inlined(graph):
    """Inlined, with every fork/awaitable subgraph inlined as well."""
    return make_fixtures.inline_all(graph.copy())


def called_functions(graph):
    """``{name: qualified name}`` of the functions ``graph`` calls (see
    :func:`called_names`): a Function constant's type names it in full."""
    return {node.s("name"): str(node.output().type()) for node in nodes_in(graph)
            if node.kind() == "prim::Constant" and node.hasAttribute("name")
            and node.output().type().kind() == "FunctionType"}


def callees(module, *graphs):
    """{name: scripted function} of everything the graphs call, transitively: the
    program module's own functions, scripted, and torch's (``F.relu``, which
    ``nn.ReLU.forward`` calls) from torch's compilation unit."""
    found = {}
    pending = [item for g in graphs for item in called_functions(g).items()]
    while pending:
        name, qualified = pending.pop(0)
        if name in found:
            continue
        target = getattr(module, name, None)
        found[name] = torch.jit.script(target) if target is not None \
            else torch.jit._state._python_cu.find_function(qualified)
        pending.extend(called_functions(found[name].graph).items())
    return found


# ----------------------------------------------------------------------------------
# Running a case
# ----------------------------------------------------------------------------------

@contextlib.contextmanager
def captured_stdout():
    """Capture file descriptor 1: torch's ``print`` writes to C++'s ``std::cout``."""
    sys.stdout.flush()
    saved = os.dup(1)
    with tempfile.TemporaryFile(mode="w+b") as tmp:
        os.dup2(tmp.fileno(), 1)
        box = []
        try:
            yield box
        finally:
            sys.stdout.flush()
            os.dup2(saved, 1)
            os.close(saved)
            tmp.seek(0)
            box.append(tmp.read().decode("utf-8"))


def error_record(exc):
    cls = type(exc)
    name = cls.__name__ if cls.__module__ == "builtins" else cls.__module__ + "." + cls.__name__
    return {"type": name, "message": relative_paths(str(exc))}


def complete_args(signature, args):
    """``args`` with the defaults of parameters the test left out filled in: the
    graph takes every parameter positionally."""
    bound = signature.bind(*args)
    bound.apply_defaults()
    return list(bound.args)


def run_case(call, signature, args, want_stdout, results):
    """One case's record; what the call returned is appended to ``results``."""
    args = complete_args(signature, args)
    enc_args = encode(args)
    case = {"args": enc_args}
    fresh = copy.deepcopy(args)  # programs mutate their inputs
    with captured_stdout() as out:
        try:
            result = call(*fresh)
            results.append(result)
            case["expected"] = encode(result)
        except Exception as exc:  # torch.jit.Error, RuntimeError, ...
            case["error"] = error_record(exc)
    message = case.get("error", {}).get("message", "")
    assert "Expected a value of type" not in message and "Expected a member of" not in message, \
        "an argument torch refuses at the call boundary is not an interpreter case: " + message
    if want_stdout:
        case["stdout"] = out[0]
    else:
        assert not out[0], "unexpected output %r: mark the program stdout=True" % out[0]
    return case


# ----------------------------------------------------------------------------------
# Modules
# ----------------------------------------------------------------------------------

def module_state(m):
    """The Python object a module program's ``self`` stands for: its attributes
    (parameters, buffers, plain values, encoded) and its submodules, by name."""
    attrs = {}
    if not isinstance(m, torch.jit.ScriptModule):  # a ScriptModule's own are torch's
        for k, v in vars(m).items():
            if not k.startswith("_") and k != "training":
                attrs[k] = encode(v)
    for k, v in list(m.named_parameters(recurse=False)) + list(m.named_buffers(recurse=False)):
        attrs[k] = encode(v)
    return {"class": type(m).__name__, "attributes": [[k, attrs[k]] for k in sorted(attrs)],
            "modules": [[k, module_state(c)] for k, c in m.named_children()]}


def method_graphs(scripted):
    """``{"<path>.<method>": graph}`` for every method of every (sub)module."""
    out = {}
    for path, sub in scripted.named_modules():
        for name in sub._c._method_names():
            key = (path + "." if path else "") + name
            out[key] = sub._c._get_method(name).graph
    return out


# ----------------------------------------------------------------------------------
# Programs
# ----------------------------------------------------------------------------------

def marked(module):
    """(name, object) of the module's marked functions and classes, in source order."""
    items = [(n, o) for n, o in vars(module).items()
             if hasattr(o, "__suite__") and getattr(o, "__module__", None) == module.__name__]
    return sorted(items, key=lambda no: inspect.getsourcelines(no[1])[1])


def source_with_callees(module, obj, names):
    # The program module's own callees (torch's own, such as F.relu, are torch's).
    parts = [inspect.getsource(getattr(module, n)) for n in names if hasattr(module, n)]
    return "\n\n".join(parts + [inspect.getsource(obj)])


def callee_files(name, called):
    return {"%s.callee.%s.ir" % (name, callee): str(sfn.graph) for callee, sfn in called.items()}


def record_function(module, name, fn):
    spec = fn.__suite__
    scripted = torch.jit.script(fn)
    graph = scripted.graph
    files = {}
    inl = inlined(graph)
    files[name + ".ir"] = str(inl)
    if "prim::CallFunction" in str(graph) or "prim::CallMethod" in str(graph):
        files[name + ".graph.ir"] = str(graph)
    deep = deep_inlined(graph)
    if str(deep) != str(inl):
        files[name + ".deep.ir"] = str(deep)
    called = callees(module, graph)
    files.update(callee_files(name, called))
    files.update(class_method_files(name, [graph] + [f.graph for f in called.values()]))
    signature = inspect.signature(fn)
    results = []
    cases = [run_case(scripted, signature, args, spec.get("stdout", False), results)
             for args in spec["cases"]]
    doc = {"name": name, "origin": spec["origin"],
           "source": source_with_callees(module, fn, list(called)),
           "callees": list(called)}
    enums = enum_classes_in([graph, inl] + [f.graph for f in called.values()],
                            list(spec["cases"]) + results)
    if enums:
        doc["enums"] = enum_definitions(enums)
    doc["cases"] = cases
    return files, doc


def forward_signature(scripted):
    """The parameters of ``forward`` without ``self``, from its schema."""
    schema = scripted._c._get_method("forward").schema
    return inspect.Signature([inspect.Parameter(a.name, inspect.Parameter.POSITIONAL_OR_KEYWORD)
                              for a in schema.arguments[1:]])


def record_module(module, name, cls):
    spec = cls.__suite__
    instance = spec["make"]()
    state = module_state(instance)
    scripted = instance if isinstance(instance, torch.jit.ScriptModule) \
        else torch.jit.script(instance)
    files = {name + ".ir": str(scripted.inlined_graph), name + ".graph.ir": str(scripted.graph)}
    for key, g in method_graphs(scripted).items():
        files["%s.method.%s.ir" % (name, key)] = str(g)
    signature = forward_signature(scripted)
    results = []
    cases = [run_case(scripted, signature, args, False, results) for args in spec["cases"]]
    called = callees(module, *method_graphs(scripted).values())
    files.update(callee_files(name, called))
    doc = {"name": name, "origin": spec["origin"],
           "source": source_with_callees(module, cls, called),
           "callees": list(called), "module": state}
    enums = enum_classes_in(list(method_graphs(scripted).values()),
                            list(spec["cases"]) + results + list(vars(instance).values()))
    if enums:
        doc["enums"] = enum_definitions(enums)
    doc["cases"] = cases
    return files, doc


def dump_json(doc):
    """Stable layout: one key per line, one case per line."""
    dumps = lambda x: json.dumps(x, ensure_ascii=False, allow_nan=False)  # noqa: E731
    lines = ["{"]
    for key in [k for k in doc if k != "cases"]:
        lines.append(" %s: %s," % (dumps(key), dumps(doc[key])))
    lines.append(' "cases": [')
    lines.append(",\n".join("  " + dumps(c) for c in doc["cases"]))
    lines.append(" ]")
    lines.append("}")
    return "\n".join(lines) + "\n"


def generate(root):
    """Write every group's files under ``root``/tests/fixtures/jit_suite; returns the
    number of programs per group."""
    torch.manual_seed(0)
    counts = {}
    out_root = os.path.join(root, OUT)
    for module_name in MODULES:
        module = importlib.import_module(module_name)
        group = group_of(module_name)
        files = {}
        for name, obj in marked(module):
            record = record_module if inspect.isclass(obj) else record_function
            written, doc = record(module, name, obj)
            assert name + ".json" not in files, "two programs named %s in %s" % (name, group)
            files.update({k: relative_paths(v) for k, v in written.items()})
            files[name + ".json"] = relative_paths(dump_json(doc))
        d = os.path.join(out_root, group)
        if os.path.isdir(d):
            for f in os.listdir(d):
                os.remove(os.path.join(d, f))
        os.makedirs(d, exist_ok=True)
        for fname in sorted(files):
            with open(os.path.join(d, fname), "w", encoding="utf-8", newline="\n") as fh:
                fh.write(files[fname])
        counts[group] = sum(1 for f in files if f.endswith(".json"))
    write_readme(root, counts)
    return counts


README = """\
# The JIT-suite corpus

Generated (do not edit by hand) with torch {torch_version} by
`tools/jit_suite/make_suite.py`, run by hand from the repository root with a Python
that has torch (`--check` regenerates elsewhere and compares).  pyjit's tests
(`tests/test_jit_suite.py`) only read these files.

{n_programs} programs, taken unchanged (but for a function name made unique) from
PyTorch's own JIT tests, with the inputs those tests use, one directory per module of
`tools/jit_suite/`:

{groups}

`unicode_strings/` and the `percent_*` programs of `formatting/` are pyjit's own
probes of torch's string operators on non-ASCII text and of `%` formatting on more
kinds of values; `modules/` are `nn.Module`s, run with `self` as a plain object.

## Files of a program `<name>`

* `<name>.ir`: the inlined graph (`torch._C._jit_pass_inline`, which does not enter
  `prim::fork`/`prim::awaitable` subgraphs);
* `<name>.graph.ir`: the graph as torch stores it, when it calls other functions
  or methods (`prim::CallFunction`, `prim::CallMethod`), and a module's `forward`;
* `<name>.callee.<f>.ir`: the graph of each function it calls, directly or not;
* `<name>.deep.ir`: the inlined graph with fork and awaitable subgraphs inlined
  too, where that differs from `<name>.ir`;
* `<name>.class.<C>.<m>.ir`: each method of each TorchScript class it uses;
* `<name>.method.<path>.ir`: for a module, each method of each (sub)module;
* `<name>.json`: `name`, `origin` (the test it comes from), `source` (with its
  callees), `callees`, `module` for a module program (its attributes and
  submodules, encoded), `enums` for a program that uses enums (each class's
  qualified name and its members with their values, which graphs do not print:
  `prim::Constant[value=__torch__.enums.Color.RED]`), and `cases`.

Every `.ir` is `str(graph)` byte for byte, absolute paths made relative
(`tools/jit_suite/...`, torch's own files `torch/...`).  A case is as in
`tests/fixtures/README.md` (`args` with `expected` or `error`), plus `stdout`, what
the program printed, for the programs that print.  Values are encoded as
`tests/fixtures/README.md` says.

## What torch does that Python does not (pinned here)

* Strings are UTF-8 bytes throughout: `len`, indexing, slicing, `find` and the
  other offsets count bytes, character classes and case are ASCII only
  (`"straße é".upper()` is `"STRAßE é"`), `split()` splits on each byte of
  torch's whitespace list (including the bytes of U+2028/U+2029, so
  `"café".split()` cuts `é`), `ord`/`chr` are one byte.  A result that is not
  UTF-8 cannot become a Python `str`: torch raises `UnicodeDecodeError` at the
  end of the call (those cases record it).
* `"%d" % x` cuts a float to a 32-bit C int; `%e %f` print a 32-bit float;
  `"%d" % True` fails with an internal assertion.
* `dict.popitem()` removes the first item.
* Not recorded, because torch never returns: `s.replace("", t)` and
  `s.count("")` with no limit, `s.rsplit("")`.
"""


def write_readme(root, counts):
    origins = {}
    for group in counts:
        module = importlib.import_module(group if group in MODULES else group + "_")
        origins[group] = sorted({o.__suite__["origin"].split("::")[0]
                                 for _, o in marked(module)})
    groups = "\n".join("* `%s/` (%d): %s" % (g, n, ", ".join("`%s`" % o for o in origins[g]))
                       for g, n in counts.items())
    with open(os.path.join(root, OUT, "README.md"), "w", encoding="utf-8", newline="\n") as fh:
        fh.write(README.format(torch_version=torch.__version__, groups=groups,
                               n_programs=sum(counts.values())))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--check", action="store_true",
                    help="regenerate into a temporary directory and compare")
    opts = ap.parse_args()
    if not opts.check:
        counts = generate(REPO)
        print("wrote %d programs: %s" % (sum(counts.values()), counts))
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        groups = list(generate(tmp))
        return make_fixtures.report_differences(os.path.join(REPO, OUT), os.path.join(tmp, OUT),
                                                [""] + groups)


if __name__ == "__main__":
    sys.exit(main())
