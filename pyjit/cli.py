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
    pyjit info --ops             ... and the operators by family, op_db coverage, and
                                 coverage of torch's schema list (by kind, by overload)
    pyjit bench [--quick]        benchmarks against the alternatives (see bench/)
    pyjit bench --compile        compile time and memory by graph shape and size
    pyjit bench --models         real models against torch eager and TorchScript

Bad input (a missing file, malformed IR, an unknown operator, a corrupted or
truncated archive, a failing graph) prints one line, ``pyjit: error: ...``, and
exits with status 1, never a traceback.  A file is an archive if it starts like
a zip (``PK\\x03\\x04``), whatever its name; anything else is read as IR text.
Output cut short by its reader (``pyjit info | head -1``) ends the command
quietly, with status 141 as a process killed by SIGPIPE has.
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import os
import re
import sys
import zipfile
from typing import Any, Callable, Iterator, List, Optional

__all__ = ["main"]


class CLIError(Exception):
    """A user error: reported on one line, exit status 1."""


def _read_graph(path: str, read_sources: bool = False):
    """The graph in the IR text file ``path``.  Building its Code later may still
    fail on an operator: see :func:`_in_ir_file`."""
    from .ir.parser import parse_ir
    return parse_ir(_read_text(path), file=path, read_sources=read_sources)


def _read_text(path: str) -> str:
    try:
        with open(path, encoding="utf-8") as f:
            return f.read()
    except OSError as exc:
        raise CLIError(f"cannot read {path}: {exc.strerror or exc}") from exc
    except UnicodeDecodeError as exc:
        raise CLIError(f"cannot read {path}: not UTF-8 text (byte 0x{exc.object[exc.start]:02x} "
                       f"at offset {exc.start})") from exc


@contextlib.contextmanager
def _in_ir_file(path: str) -> Iterator[None]:
    """Report an operator that the Code built from ``path`` lacks at its place in
    the file, ``path:line:col``: the parser keeps no text positions, so the node
    is found again in the text by the header the error quotes."""
    from .errors import OperatorNotFoundError
    try:
        yield
    except OperatorNotFoundError as exc:
        where = _find_node(_read_text(path), str(exc))
        if where is None:
            raise
        line, col = where
        raise CLIError(f"{path}:{line}:{col}: {str(exc).splitlines()[0]}") from exc


def _find_node(text: str, message: str) -> Optional[tuple]:
    """The 1-based line and 0-based column of the operator name of the node that
    ``message`` (an OperatorNotFoundError's, ending ``in: <node header>``) quotes,
    or None if the text has no such node."""
    header = re.search(r"\bin: (.*)$", message, re.M)
    if header is None:
        return None
    head = header.group(1)
    kind = re.search(r"(?:^|= )([\w.]+::[\w.]+)", head)
    if kind is None:
        return None
    outputs = head.split(" = ", 1)[0].split(", ")[0].split(" :")[0] if " = " in head else ""
    pattern = re.compile(r"(?<![\w:.])" + re.escape(kind.group(1)) + r"(?=[\[(])")
    for number, line in enumerate(text.splitlines(), 1):
        m = pattern.search(line)
        if m and (not outputs or line.lstrip().startswith(outputs)):
            return number, m.start()
    return None


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


#: How a zip file starts: a local file header (a torch.jit.save archive always has
#: one), or for an empty zip the end of its central directory.
ZIP_MAGIC = (b"PK\x03\x04", b"PK\x05\x06")

def _is_archive(path: str) -> bool:
    """Whether ``path`` starts like a zip file: its content says, not its name, so a
    truncated archive (no central directory left) is still reported as one."""
    try:
        with open(path, "rb") as f:
            return f.read(4) in ZIP_MAGIC
    except OSError:
        return False  # reading it as text says what is wrong


def _one_line(exc: BaseException) -> str:
    """The first line of ``str(exc)``, or the exception's class name if it is empty."""
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


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
        return _run_archive(ns)   # a damaged archive is an ArchiveError: one line
    graph = _read_graph(ns.file, ns.sources)
    with _in_ir_file(ns.file):
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
    graph = _read_graph(ns.file, ns.sources)
    with _in_ir_file(ns.file):
        code = Code(graph, optimize=ns.optimize, copy=False)
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
        with _in_ir_file(ns.file):
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
    from .ops import FAMILIES, family_operators
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
        names = sorted({name for m in modules for name in family_operators(m)})
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
    _print_surface()


def _print_surface(registry=None) -> None:
    """pyjit against torch's own schema list (``pyjit/ir/torch_schemas.txt.xz``),
    computed now from the list and ``registry`` (the default one): by kind, by
    overload, what is missing, and what is out of scope and why."""
    import textwrap
    from .ops.coverage import surface_coverage
    surface = surface_coverage(registry)

    def wrapped(names):
        return textwrap.fill(" ".join(names), width=88, initial_indent="    ",
                             subsequent_indent="    ", break_on_hyphens=False)

    def share(done, total):
        return f"{done} of {total} ({100 * done / total:.1f}%)" if total else "0 of 0"

    kinds = surface.kinds()
    k_done = sum(v == "implemented" for v in kinds.values())
    k_out = sum(v == "out of scope" for v in kinds.values())
    print(f"torch {surface.torch_version}'s schema list ({len(surface.schemas)} schemas):")
    print(f"  public aten:: kinds (no leading underscore), implemented: "
          f"{share(k_done, len(kinds) - k_out)}; {k_out} more out of scope")
    statuses = [s.status for s in surface.schemas]
    o_done, o_out = statuses.count("implemented"), statuses.count("out of scope")
    print(f"  overloads, every namespace, implemented: {share(o_done, len(statuses) - o_out)}; "
          f"{o_out} more out of scope")
    public = [s for s in surface.schemas
              if s.schema.namespace == "aten" and not s.schema.base.startswith("_")]
    p_done = sum(s.status == "implemented" for s in public)
    p_out = sum(s.status == "out of scope" for s in public)
    print(f"  overloads of public aten:: kinds, implemented: {share(p_done, len(public) - p_out)}")
    missing = sorted(k.split("::")[1] for k, v in kinds.items() if v == "missing")
    if missing:
        print(f"  public aten:: kinds missing ({len(missing)}):")
        print(wrapped(missing))
    else:
        print("  public aten:: kinds missing: none")
    left = [s.schema.name for s in surface.by_status("missing")]
    print(f"  overloads missing (neither implemented nor out of scope): "
          f"{len(left) if left else 'none'}")
    if left:
        print(wrapped(left))
    by_reason = {}
    for s in surface.by_status("out of scope"):
        by_reason.setdefault(s.detail, set()).add(s.schema.kind)
    print(f"  out of scope, by reason (kinds with an overload out of scope):")
    for reason, names in sorted(by_reason.items(), key=lambda kv: -len(kv[1])):
        print(f"   {reason} ({len(names)}):")
        print(wrapped(sorted(names)))
    extensions = surface.extensions
    print(f"  pyjit's own kinds, not in torch's list ({len(extensions)}):")
    by_why = {}
    for kind, why in extensions.items():
        if why.startswith(("the copying form of ", "the in-place form of ")):
            why = why.split(" of ")[0][4:] + "s of torch's operators, from their family's rows"
        by_why.setdefault(why or "unexplained", []).append(kind)
    for why, names in sorted(by_why.items()):
        print(f"   {why} ({len(names)}):")
        print(wrapped(sorted(names)))
    from .ops.coverage import declarations
    decl = declarations(registry)
    count = {how: sum(d.how == how for d in decl) for how in
             ("overload", "schema", "short form", "extension", "own")}
    print(f"  the library's {len(decl)} overloads: {count['overload']} declared by torch's "
          f"overload name, {count['schema']} with a torch schema's types, "
          f"{count['short form']} shorter forms of one (trailing defaults left out), "
          f"{count['extension']} of pyjit's own kinds, {count['own']} pyjit's own overloads:")
    own = {}
    for d in decl:
        if d.how == "own":
            own.setdefault(d.detail or "unexplained", []).append(d.operator.signature())
    for why, names in sorted(own.items()):
        print(textwrap.fill(f"{why} ({len(names)}):", width=88, initial_indent="   ",
                            subsequent_indent="     "))
        print(textwrap.fill("; ".join(sorted(names)), width=88, initial_indent="    ",
                            subsequent_indent="    ", break_on_hyphens=False))


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


def _graph_command_options(p: argparse.ArgumentParser, func: Callable[..., Any], *,
                           levels: bool = True) -> None:
    """What a command that reads a graph file ends with: ``--sources``, the
    optimisation level (unless ``levels`` is false: ``dot`` draws the graph, or
    the table at the default level) and ``func``, the function it runs."""
    _sources_option(p)
    if levels:
        _level_options(p)
    p.set_defaults(func=func)


def _examples(*lines: str) -> str:
    """An epilog of example commands, one per line, for ``--help``."""
    return "examples:\n" + "\n".join("  " + line for line in lines)


def _subcommand(sub, name: str, help: str, examples: List[str], **kwargs: Any):
    """A subcommand whose ``--help`` ends with ``examples``, printed as written."""
    return sub.add_parser(name, help=help, epilog=_examples(*examples),
                          formatter_class=argparse.RawDescriptionHelpFormatter, **kwargs)


def build_parser() -> argparse.ArgumentParser:
    from . import __version__
    p = argparse.ArgumentParser(
        prog="pyjit", formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Run graphs in torch's IR text, and torch.jit.save archives, with the "
        "register interpreter of the early PyTorch JIT.",
        epilog=_examples("pyjit run examples/fib.ir 30            # prints 832040",
                         "pyjit run examples/small_cnn.pt x.npy    # a saved model's forward",
                         "pyjit dump examples/fib.ir               # graph and instructions",
                         "pyjit info                               # version and backend",
                         "pyjit COMMAND --help                     # one command's options")
        + "\n\nBad input is reported on one line (pyjit: error: ...) with exit status 1.")
    p.add_argument("--version", action="version", version=f"pyjit {__version__}")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")
    r = _subcommand(sub, "run", "run a graph and print its output(s)", [
        "pyjit run examples/fib.ir 30                 # arguments are Python literals",
        "pyjit run -O0 examples/fib.ir 30             # on the seed's instruction table",
        "pyjit run --profile examples/fib.ir 100000   # and where the time went",
        "pyjit run model.pt x.npy                     # an archive's forward, on an array",
        "pyjit run --method encode model.pt '[1, 2]'  # another of its methods"])
    r.add_argument("file", help="graph text (.ir) as torch prints it, or a torch.jit.save "
                   "archive (.pt; told apart by content, not by name)")
    r.add_argument("args", nargs="*", help="inputs: Python literals, or .npy files for tensors")
    r.add_argument("--profile", action="store_true",
                   help="then print a table of executions and time per node and source line")
    r.add_argument("--json", action="store_true",
                   help="print the outputs and the profile as one JSON document instead")
    r.add_argument("--method", help="the archive's method to run (default: forward)")
    _graph_command_options(r, cmd_run)
    d = _subcommand(sub, "dump", "print the preprocessed graph and its instructions", [
        "pyjit dump examples/fib.ir              # at -O1, the default",
        "pyjit dump -O0 examples/fib.ir          # the seed's table",
        "pyjit dump --opcodes examples/fib.ir    # and the instruction set",
        "pyjit dump examples/small_cnn.pt        # every method of a saved model"])
    d.add_argument("file", help="graph text (.ir), or a torch.jit.save archive (.pt)")
    d.add_argument("--opcodes", action="store_true", help="also print the instruction set")
    _graph_command_options(d, cmd_dump)
    g = _subcommand(sub, "dot", "draw the graph (or with --code its instruction table)", [
        "pyjit dot examples/fib.ir > fib.dot          # DOT text",
        "pyjit dot examples/fib.ir -o fib.svg         # a picture (needs Graphviz)",
        "pyjit dot --code examples/fib.ir -o code.svg # the instruction table's blocks"],
        description="Write the graph as Graphviz DOT text, or draw it with "
        "Graphviz's dot program when -o names a .svg, .png or .pdf file.")
    g.add_argument("file", help="graph text (.ir) as torch prints it")
    g.add_argument("-o", "--output", metavar="OUT",
                   help="OUT.dot/.gv: DOT text; OUT.svg/.png/.pdf: a picture (needs "
                   "Graphviz); default: DOT text on standard output")
    g.add_argument("--code", action="store_true",
                   help="draw the instruction table's basic blocks and jumps instead")
    _graph_command_options(g, cmd_dot, levels=False)
    i = _subcommand(sub, "info", "version and backend", [
        "pyjit info          # version, active backend, Cython, Python and numpy versions",
        "pyjit info --ops    # and the operator library, its op_db coverage and its "
        "coverage of torch's schema list"])
    i.add_argument("--ops", action="store_true",
                   help="also the operator library by family, and its coverage of torch's "
                        "operator database and of torch's schema list")
    i.set_defaults(func=cmd_info)
    b = _subcommand(sub, "bench", "benchmarks against the alternatives", [
        "pyjit bench --quick                 # every workload, rough numbers",
        "pyjit bench --only fib --only chain # some workloads",
        "pyjit bench --json bench.json       # the README's table, saved as JSON",
        "pyjit bench --compile --quick       # compile time and memory"])
    b.add_argument("--quick", action="store_true", help=QUICK_HELP)
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


#: ``pyjit bench --quick``, as the README says it too.
QUICK_HELP = ("three to five rounds: a few minutes, rough numbers (with --compile: "
              "without the million-node chain)")

#: The exit status of a command whose reader went away (``pyjit info | head -1``):
#: a process killed by SIGPIPE has 128 + 13, and shells and pipefail read it so.
BROKEN_PIPE_STATUS = 141


def main(argv: Optional[List[str]] = None) -> int:
    from .errors import PyjitError
    try:
        ns = build_parser().parse_args(argv)
        try:
            status = ns.func(ns)
        except (CLIError, PyjitError, TypeError, ValueError) as exc:
            first = _one_line(exc)
            location = getattr(exc, "location", None)
            if location is not None and str(location) not in first:
                first += f" (at {location})"
            print(f"pyjit: error: {first}", file=sys.stderr)
            return 1
        # What is still buffered is written here, where a broken pipe is caught,
        # not at exit, where Python would print it as an ignored exception.
        sys.stdout.flush()
        return status
    except BrokenPipeError:
        # Later writes, and the flush at exit, go nowhere (the reader is gone).
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
        return BROKEN_PIPE_STATUS
    except KeyboardInterrupt:
        print("pyjit: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
