"""The ``pyjit`` command line.

::

    pyjit run FILE.ir ARG...     run a graph; ARGs are Python literals or .npy files
                                 (--profile: and print where its time went; --json: as data)
    pyjit run MODEL.pt ARG...    run a torch.jit.save archive's forward (--method NAME)
    pyjit dump FILE.ir           the preprocessed graph and its instruction listing
    pyjit dump MODEL.pt          every method's and function's, as compiled from it
    pyjit dot FILE.ir [-o OUT]   the graph as a picture (DOT text, or .svg/.png/.pdf
                                 drawn by Graphviz's dot); --code: the instruction table
    pyjit info                   version, active backend, Cython version
    pyjit info --ops             ... and the operators by family, and op_db coverage
    pyjit bench [--quick]        benchmarks against the alternatives (see bench/)
    pyjit bench --compile        compile time and memory by graph shape and size
    pyjit bench --models         real models against torch eager and TorchScript

Bad input (a missing file, malformed IR, an unknown operator, a failing graph)
prints one line, ``pyjit: error: ...``, and exits with status 1, never a traceback.
"""

from __future__ import annotations

import argparse
import ast
import os
import sys
import zipfile
from typing import Any, List, Optional

__all__ = ["main"]


class CLIError(Exception):
    """A user error: reported on one line, exit status 1."""


def _read_graph(path: str, read_sources: bool = False):
    from .ir.parser import parse_ir
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except OSError as exc:
        raise CLIError(f"cannot read {path}: {exc.strerror or exc}") from exc
    except UnicodeDecodeError as exc:
        raise CLIError(f"cannot read {path}: not UTF-8 text (byte 0x{exc.object[exc.start]:02x} "
                       f"at offset {exc.start})") from exc
    return parse_ir(text, file=path, read_sources=read_sources)


def _parse_arg(text: str) -> Any:
    """A Python literal, or the array stored in a ``.npy`` file."""
    if text.endswith(".npy"):
        import numpy as np
        try:
            # An empty file: said here, as numpy's words for it vary (numpy 1.24
            # says it holds pickled data).
            if os.path.getsize(text) == 0:
                raise CLIError(f"cannot load array {text}: the file is empty")
            value = np.load(text, allow_pickle=False)
        # np.load also raises EOFError (an empty file) and, for a file that
        # starts like a zip, zipfile.BadZipFile: still the user's bad file.
        except (OSError, ValueError, EOFError, zipfile.BadZipFile) as exc:
            raise CLIError(f"cannot load array {text}: {exc}") from exc
        if not isinstance(value, np.ndarray):  # an .npz archive under a .npy name
            value.close()
            raise CLIError(f"{text} holds several arrays (an .npz archive), not one array")
        return value
    try:
        return ast.literal_eval(text)
    # A deeply nested literal exhausts the recursion limit (RecursionError) or
    # the parser's stack (MemoryError): still not a literal we can read.
    except (ValueError, SyntaxError, RecursionError, MemoryError) as exc:
        raise CLIError(f"argument {text!r} is not a Python literal or a .npy path") from exc


def _show(value: Any) -> str:
    import numpy as np
    if isinstance(value, np.ndarray):
        return np.array2string(value, separator=", ") + f"  # {value.dtype}{list(value.shape)}"
    return repr(value) if isinstance(value, str) else str(value)


def _is_archive(path: str) -> bool:
    return os.path.isfile(path) and zipfile.is_zipfile(path)


def _run_archive(ns: argparse.Namespace) -> int:
    from .archive import load
    model = load(ns.file)
    method = ns.method or "forward"
    if method not in model._program.cls(type(model)._qualified_name).methods:
        raise CLIError(f"{ns.file}: the module has no method {method!r}")
    fn = getattr(model, method).function(optimize=ns.optimize)
    args = [_parse_arg(a) for a in ns.args]
    if len(args) + 1 != fn.code.n_inputs:
        raise CLIError(f"{ns.file}: {fn.signature.arity_error(len(args) + 1)}")
    try:
        args = fn.signature.check(model, *args)
    except TypeError as exc:
        raise CLIError(f"{ns.file}: {exc}") from None
    if ns.profile or ns.json:
        return _run_profiled(ns, fn, args)
    result = fn(*args)
    outputs = result if isinstance(result, tuple) else (result,)
    for out in outputs:
        print(_show(out))
    return 0


def _dump_archive(ns: argparse.Namespace) -> int:
    from .archive import load
    model = load(ns.file)
    program = model._program
    root = type(model)._qualified_name
    for name in program.cls(root).methods:
        program.graph(root, name)
    unit = program.unit
    for cls, names in unit.classes.items():
        for name in names:
            print(f"# {cls}.{name}")
            sys.stdout.write(str(unit.code(name, cls, optimize=ns.optimize)) + "\n")
    for name in unit.functions:
        print(f"# {name}")
        sys.stdout.write(str(unit.code(name, optimize=ns.optimize)) + "\n")
    return 0


def cmd_run(ns: argparse.Namespace) -> int:
    from .interpreter import Function
    if _is_archive(ns.file):
        return _run_archive(ns)
    graph = _read_graph(ns.file, ns.sources)
    fn = Function(graph, optimize=ns.optimize, copy=False)  # read only to run
    args = [_parse_arg(a) for a in ns.args]
    if len(args) != fn.code.n_inputs:
        raise CLIError(f"{ns.file}: {fn.signature.arity_error(len(args))}")
    try:
        args = fn.signature.check(*args)
    except TypeError as exc:  # an argument the graph's input type does not take
        raise CLIError(f"{ns.file}: {exc}") from None
    if not (ns.profile or ns.json):
        _print_outputs(fn, fn(*args))
        return 0
    return _run_profiled(ns, fn, args)


def _run_profiled(ns: argparse.Namespace, fn, args) -> int:
    """``run --profile``/``--json``: run ``fn`` under a profile, then print the
    outputs and the table, or one JSON document."""
    from .profiler import profile
    prof = profile()
    try:
        result = prof.call(fn, *args)
    except Exception:
        # What ran until the error is still worth seeing; the error follows.
        _print_profile(prof, ns.json, None)
        raise
    if ns.json:
        _print_profile(prof, True, result if fn.code.n_outputs != 1 else (result,))
    else:
        _print_outputs(fn, result)
        print()
        _print_profile(prof, False, None)
    return 0


def _print_outputs(fn, result: Any) -> None:
    outputs = result if fn.code.n_outputs != 1 else (result,)
    for out in outputs or ():
        print(_show(out))


def _print_profile(prof, as_json: bool, outputs: Any) -> None:
    """The table, or with ``as_json`` one JSON document: the profile's data
    (:meth:`pyjit.Profile.to_json`) and ``outputs``, as ``run`` prints them (null
    when the run failed)."""
    if not as_json:
        prof.print()
        return
    import json
    data = prof.to_json()
    data["outputs"] = None if outputs is None else [_show(out) for out in outputs]
    print(json.dumps(data, indent=1))


def cmd_dump(ns: argparse.Namespace) -> int:
    from . import opcodes
    from .code import Code
    if _is_archive(ns.file):
        return _dump_archive(ns)
    code = Code(_read_graph(ns.file, ns.sources), optimize=ns.optimize, copy=False)
    sys.stdout.write(str(code))
    if ns.opcodes:
        print("\n" + opcodes.describe())
    return 0


def cmd_dot(ns: argparse.Namespace) -> int:
    from . import graphviz
    graph = _read_graph(ns.file, ns.sources)
    name = os.path.splitext(os.path.basename(ns.file))[0]
    if ns.code:
        from .code import Code
        text = Code(graph, copy=False).to_dot(name=name)  # read only to draw
    else:
        text = graph.to_dot(name=name)
    if ns.output is None:
        sys.stdout.write(text)
        return 0
    fmt = os.path.splitext(ns.output)[1].lower().lstrip(".")
    if fmt in ("dot", "gv"):
        data = text.encode("utf-8")
    elif fmt in graphviz.RENDER_FORMATS:
        data = graphviz.render(text, fmt)  # a GraphvizError says how to install dot
    else:
        raise CLIError(f"cannot tell the format of {ns.output}: name it .dot or .gv for DOT "
                       f"text, or .{', .'.join(graphviz.RENDER_FORMATS)} for a picture")
    try:
        with open(ns.output, "wb") as f:
            f.write(data)
    except OSError as exc:
        raise CLIError(f"cannot write {ns.output}: {exc.strerror or exc}") from exc
    return 0


def cmd_info(ns: argparse.Namespace) -> int:
    import numpy
    from . import __version__, _backend
    print(f"pyjit {__version__}")
    if _backend.HAS_CEXT:
        core = _backend.loop
        print(f"backend: compiled ({core.__name__}, {os.path.basename(core.__file__)})")
        print(f"cython: {core.CYTHON_VERSION} (compiled with)")
    else:
        why = "PYJIT_PUREPYTHON is set" if _backend.want_pure() else "the core was not built"
        print(f"backend: pure Python (pyjit._pure; {why})")
    print(f"python: {sys.version.split()[0]}")
    print(f"numpy: {numpy.__version__}")
    if ns.ops:
        print()
        _print_operators()
    return 0


def _print_operators() -> None:
    """The operator library by family, and its measured coverage of torch's
    operator database (``pyjit/ops/opdb.txt``, checked by tests/test_opdb.py)."""
    import textwrap
    from .ops import FAMILIES
    from .ops.coverage import opdb_coverage
    from .registry import default_registry
    kinds = default_registry.kinds()
    spaces = {}
    for kind in kinds:
        ns_name = kind.split("::")[0]
        spaces[ns_name] = spaces.get(ns_name, 0) + 1
    print(f"operators: {len(kinds)} kinds registered (" +
          ", ".join(f"{n}:: {c}" for n, c in sorted(spaces.items())) + ")")
    print("tensor operator families:")
    for title, modules in FAMILIES:
        names = sorted({name for m in modules for name in m.FAMILY})
        print(f"  {title} ({len(names)})")
        print(textwrap.fill(" ".join(names), width=88, initial_indent="    ",
                            subsequent_indent="    ", break_on_hyphens=False))
    cov = opdb_coverage()
    passing, total = len(cov.passing), cov.scriptable
    print(f"torch op_db (torch 2.13, float32, two samples per entry): {passing} of {total} "
          f"entries torch can script pass ({100 * passing / total:.1f}%); "
          f"{len(cov.status) - total} more torch cannot script")
    failing = cov.failing
    print(f"  not passing ({len(failing)}):")
    width = max(map(len, failing), default=0)
    for name, reason in failing.items():
        print(f"    {name.ljust(width)}  {reason}")


def cmd_bench(ns: argparse.Namespace) -> int:
    try:
        from .benchmarks import compile_scaling, main as bench_main
    except ImportError as exc:  # pragma: no cover - depends on the install
        raise CLIError(f"benchmarks are not available: {exc}") from exc
    if ns.models:
        from .benchmarks import models
        try:
            return models.main(ns)
        except ValueError as exc:
            raise CLIError(str(exc)) from exc
    if ns.compile:
        if ns.only:
            raise CLIError("--only names run-time workloads; with --compile give --case")
        return compile_scaling.bench(quick=ns.quick, json_path=ns.json, cases=ns.case)
    if ns.case:
        raise CLIError("--case is for --compile")
    return bench_main(ns)


def _sources_option(p: argparse.ArgumentParser) -> None:
    p.add_argument("--sources", action="store_true",
                   help="show the source lines the graph's '# file:line:col' locations "
                        "name, reading those files (for IR text of your own: IR from "
                        "elsewhere may name any file, so it is off by default)")


def _level_options(p: argparse.ArgumentParser) -> None:
    """``-O0``/``-O1``: the Code's optimisation level (see :class:`pyjit.Code`)."""
    g = p.add_mutually_exclusive_group()
    g.add_argument("-O0", dest="optimize", action="store_false",
                   help="the seed's instruction table: every value a Python object")
    g.add_argument("-O1", dest="optimize", action="store_true",
                   help="unboxed scalar registers and intrinsics (the default)")
    p.set_defaults(optimize=None)


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="pyjit", description="Run graphs in torch's IR text "
                                "with the register interpreter of the early PyTorch JIT.")
    sub = p.add_subparsers(dest="command", required=True)
    r = sub.add_parser("run", help="run a graph and print its output(s)")
    r.add_argument("file", help="graph text (.ir) as torch prints it, or a torch.jit.save "
                   "archive (.pt)")
    r.add_argument("args", nargs="*", help="inputs: Python literals, or .npy files for tensors")
    r.add_argument("--profile", action="store_true",
                   help="then print a table of executions and time per node and source line")
    r.add_argument("--json", action="store_true",
                   help="print the outputs and the profile as one JSON document instead")
    r.add_argument("--method", help="the archive's method to run (default: forward)")
    _sources_option(r)
    _level_options(r)
    r.set_defaults(func=cmd_run)
    d = sub.add_parser("dump", help="print the preprocessed graph and its instructions")
    d.add_argument("file")
    d.add_argument("--opcodes", action="store_true", help="also print the instruction set")
    _sources_option(d)
    _level_options(d)
    d.set_defaults(func=cmd_dump)
    g = sub.add_parser("dot", help="draw the graph (or with --code its instruction table)",
                       description="Write the graph as Graphviz DOT text, or draw it with "
                       "Graphviz's dot program when -o names a .svg, .png or .pdf file.")
    g.add_argument("file", help="graph text (.ir) as torch prints it")
    g.add_argument("-o", "--output", metavar="OUT",
                   help="OUT.dot/.gv: DOT text; OUT.svg/.png/.pdf: a picture (needs "
                   "Graphviz); default: DOT text on standard output")
    g.add_argument("--code", action="store_true",
                   help="draw the instruction table's basic blocks and jumps instead")
    _sources_option(g)
    g.set_defaults(func=cmd_dot)
    i = sub.add_parser("info", help="version and backend")
    i.add_argument("--ops", action="store_true",
                   help="also the operator library by family, and its coverage of torch's "
                        "operator database")
    i.set_defaults(func=cmd_info)
    b = sub.add_parser("bench", help="benchmarks against the alternatives")
    b.add_argument("--quick", action="store_true",
                   help="three to five rounds: a few minutes, rough numbers")
    b.add_argument("--json", metavar="FILE", nargs="?", const="-",
                   help="save the numbers as JSON in FILE; without FILE, print them on "
                   "standard output (and the tables on standard error)")
    b.add_argument("--only", metavar="NAME", action="append", help="run only these workloads")
    b.add_argument("--compile", action="store_true",
                   help="measure compile time and memory instead (parse_ir and Code, by "
                   "graph shape and size)")
    b.add_argument("--case", metavar="SHAPE:N", action="append",
                   help="with --compile: only these cases, e.g. chain:100000")
    b.add_argument("--models", action="store_true",
                   help="real models saved by torch instead (bench/models/), against torch "
                   "eager and TorchScript, single-threaded; --only names models")
    b.add_argument("--profile", action="store_true",
                   help="with --models: then the operators taking pyjit's time per model")
    b.set_defaults(func=cmd_bench)
    return p


def main(argv: Optional[List[str]] = None) -> int:
    from .errors import PyjitError
    ns = build_parser().parse_args(argv)
    try:
        return ns.func(ns)
    except (CLIError, PyjitError, TypeError, ValueError) as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        location = getattr(exc, "location", None)
        if location is not None and str(location) not in first:
            first += f" (at {location})"
        print(f"pyjit: error: {first}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("pyjit: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
