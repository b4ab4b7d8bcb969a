"""``pyjit bench --compile``: how compile time and memory grow with the graph.

Compiling is reading the graph text (:func:`~pyjit.ir.parser.parse_ir`) and
building its instruction table (:class:`~pyjit.code.Code`: lint, copy, the
seed's passes, code generation).  Both must take time and memory linear in the
graph, whatever its shape; these are the shapes, each a function of its size n:

===========  =====================================================  ============
shape        the graph                                               n counts
===========  =====================================================  ============
``chain``    ``%v.{i+1} = aten::neg(%v.{i})``: each value used once  nodes
``fanout``   ``%x.{i+1} = aten::add(%x.{i}, %y)``: %y used n times   nodes
``width``    n graph inputs into one ``prim::ListConstruct``        inputs
``nesting``  n ``prim::If`` nested in one another, each reading a    levels
             value of the top block
===========  =====================================================  ============

Each case is compiled two ways, the ``graph`` column of the report:

``given``  as ``pyjit run FILE`` compiles: the parsed graph is handed over,
           ``Code(graph, copy=False)``, and rewritten in place;
``kept``   as a program that keeps its graph compiles: ``Code(graph)`` copies
           it, and both the graph and the copy stay alive.

Each runs in a child process of its own, which reads the text from a
file, so that its peak resident memory is the compile's: the report gives the
parse and build times (wall clock; CPU time too in ``--json``), the time per
unit of n, and the peak memory above what the process held before it read the
text, per unit of n.  Run it as ``pyjit bench --compile`` or
``python -m pyjit.benchmarks.compile_scaling``; ``--quick`` skips the million
node chain.  ``bench/test_compile_scaling.py`` times the same cases under
pytest-benchmark, and ``tests/test_compile_scaling.py`` checks that the growth
is linear on small sizes.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from typing import Any, Callable, Dict, Iterator, List, Optional, Sequence, TextIO, Tuple

__all__ = ["SHAPES", "CASES", "QUICK_CASES", "WAYS", "graph_lines", "graph_text", "example",
           "compile_text", "measure", "run", "main", "bench"]


# -- the shapes ---------------------------------------------------------------------

def _chain(n: int) -> Iterator[str]:
    yield "graph(%v.0 : int):\n"
    for i in range(n):
        yield f"  %v.{i + 1} : int = aten::neg(%v.{i})\n"
    yield f"  return (%v.{n})\n"


def _fanout(n: int) -> Iterator[str]:
    yield "graph(%x.0 : int,\n      %y : int):\n"
    for i in range(n):
        yield f"  %x.{i + 1} : int = aten::add(%x.{i}, %y)\n"
    yield f"  return (%x.{n})\n"


def _width(n: int) -> Iterator[str]:
    yield "graph("
    yield ",\n      ".join(f"%a.{i} : int" for i in range(n))
    yield "):\n"
    yield "  %list : int[] = prim::ListConstruct("
    yield ", ".join(f"%a.{i}" for i in range(n))
    yield ")\n"
    yield "  %len : int = aten::len(%list)\n"
    yield "  return (%len)\n"


def _nesting(n: int) -> Iterator[str]:
    # Level k (1..n) is an If whose then-branch holds level k+1 and whose
    # else-branch returns %x; the innermost then-branch negates %x.  Every If
    # reads %c, defined at the top: its last use is n levels deep.
    yield "graph(%c : bool,\n      %x : int):\n"
    for k in range(1, n + 1):
        pad = " " * (4 * k - 2)
        yield f"{pad}%r.{k} : int = prim::If(%c)\n"
        yield f"{pad}  block0():\n"
    yield f"{' ' * (4 * n + 2)}%r.{n + 1} : int = aten::neg(%x)\n"
    for k in range(n, 0, -1):
        pad = " " * (4 * k - 2)
        yield f"{pad}    -> (%r.{k + 1})\n"
        yield f"{pad}  block1():\n"
        yield f"{pad}    -> (%x)\n"
    yield "  return (%r.1)\n"


#: shape -> (text generator, what n counts)
SHAPES: Dict[str, Tuple[Callable[[int], Iterator[str]], str]] = {
    "chain": (_chain, "nodes"),
    "fanout": (_fanout, "nodes"),
    "width": (_width, "inputs"),
    "nesting": (_nesting, "levels"),
}

#: What ``pyjit bench --compile`` measures: issue 14's sizes, and the other
#: shapes at sizes where their text stays small (a nesting's text grows with
#: the square of its depth: each line is indented by it).
CASES: Tuple[Tuple[str, int], ...] = (
    ("chain", 10_000), ("chain", 100_000), ("chain", 1_000_000),
    ("fanout", 10_000), ("fanout", 20_000), ("fanout", 100_000),
    ("width", 10_000), ("width", 100_000),
    ("nesting", 1_000), ("nesting", 2_000),
)
QUICK_CASES = tuple(c for c in CASES if c[1] < 1_000_000)


def graph_lines(shape: str, n: int) -> Iterator[str]:
    """The text of the graph ``shape`` of size ``n``, in pieces."""
    if shape not in SHAPES:
        raise ValueError(f"unknown shape {shape!r}; choose from {', '.join(SHAPES)}")
    if n < 1:
        raise ValueError(f"a graph size must be at least 1, got {n}")
    return SHAPES[shape][0](n)


def graph_text(shape: str, n: int) -> str:
    return "".join(graph_lines(shape, n))


def example(shape: str, n: int) -> Tuple[tuple, int]:
    """Arguments for the graph ``shape`` of size ``n`` and what it returns on
    them, to check that a compiled case computes what it should."""
    if shape == "chain":
        return (5,), 5 if n % 2 == 0 else -5
    if shape == "fanout":
        return (1, 2), 1 + 2 * n
    if shape == "width":
        return tuple(range(n)), n
    if shape == "nesting":
        return (True, 5), -5
    raise ValueError(f"unknown shape {shape!r}; choose from {', '.join(SHAPES)}")


#: The two ways a case is compiled (see the module docstring): whether Code()
#: is given the graph or copies it.
WAYS: Tuple[str, ...] = ("given", "kept")


def compile_text(text: str, way: str = "given") -> Tuple[Any, float, float]:
    """Parse and build ``text``, the graph handed over (``"given"``) or copied
    (``"kept"``); returns (the Code, parse seconds, build seconds), wall clock."""
    from ..code import Code
    from ..ir.parser import parse_ir
    copy = _copies(way)
    t0 = time.perf_counter()
    graph = parse_ir(text)
    t1 = time.perf_counter()
    code = Code(graph, copy=copy)
    return code, t1 - t0, time.perf_counter() - t1


def _copies(way: str) -> bool:
    if way not in WAYS:
        raise ValueError(f"a way to compile is one of {', '.join(WAYS)}, not {way!r}")
    return way == "kept"


# -- one case in a child process ---------------------------------------------------

def _peak_rss() -> Optional[int]:
    """The process's peak resident memory in bytes, where the platform says.

    On Linux from ``VmHWM``: ``getrusage``'s ``ru_maxrss`` would also count the
    parent's memory at the moment it forked this process."""
    try:
        with open("/proc/self/status", encoding="ascii") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    try:
        import resource
    except ImportError:  # pragma: no cover - Windows
        return None
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak if sys.platform == "darwin" else peak * 1024


def _child(path: str, way: str) -> Dict[str, Any]:
    """Compile the graph in ``path`` one ``way``: the measurement a child
    process makes."""
    import pyjit  # noqa: F401  (imports, and the operator library, come first)
    from ..code import Code
    from ..ir.parser import parse_ir
    import pyjit.ops  # noqa: F401
    before = _peak_rss()
    with open(path, encoding="utf-8") as f:
        text = f.read()
    w0, c0 = time.perf_counter(), time.process_time()
    graph = parse_ir(text, file=path)
    w1, c1 = time.perf_counter(), time.process_time()
    del text  # as a program would: the text is not needed once parsed
    code = Code(graph, copy=_copies(way))
    w2, c2 = time.perf_counter(), time.process_time()
    peak = _peak_rss()
    return {"parse_s": w1 - w0, "build_s": w2 - w1, "parse_cpu_s": c1 - c0,
            "build_cpu_s": c2 - c1, "instructions": len(code),
            "baseline_bytes": before, "peak_bytes": peak}


def measure(shape: str, n: int, workdir: Optional[str] = None,
            way: str = "given") -> Dict[str, Any]:
    """Compile the graph ``shape`` of size ``n`` one ``way`` (see :data:`WAYS`)
    in a fresh child process and return its numbers (see :func:`_child`) with
    ``shape``, ``n``, ``way``, the unit, the text's size, and per-unit time and
    memory."""
    _copies(way)
    with tempfile.TemporaryDirectory(dir=workdir) as tmp:
        path = os.path.join(tmp, f"{shape}-{n}.ir")
        with open(path, "w", encoding="utf-8") as f:
            f.writelines(graph_lines(shape, n))
        size = os.path.getsize(path)
        # Run from the temporary directory: `-m` puts the working directory first
        # on sys.path, where a source tree's pyjit would shadow this one.
        proc = subprocess.run(
            [sys.executable, "-m", "pyjit.benchmarks.compile_scaling", "--child", path,
             "--way", way],
            capture_output=True, text=True, cwd=tmp,
            env={**os.environ, "PYTHONPATH": _pythonpath()})
    if proc.returncode != 0:
        raise RuntimeError(f"compiling {shape} {n:,} failed:\n{proc.stderr.strip()}")
    res = json.loads(proc.stdout)
    res.update(shape=shape, n=n, way=way, unit=SHAPES[shape][1], text_bytes=size)
    res["us_per_unit"] = (res["parse_s"] + res["build_s"]) * 1e6 / n
    if res["peak_bytes"] is not None and res["baseline_bytes"] is not None:
        res["bytes_per_unit"] = (res["peak_bytes"] - res["baseline_bytes"]) / n
    return res


def _pythonpath() -> str:
    """The child imports this very pyjit, wherever it was imported from."""
    here = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    rest = os.environ.get("PYTHONPATH")
    return here + (os.pathsep + rest if rest else "")


# -- the report -----------------------------------------------------------------------

def format_results(results: Sequence[Dict[str, Any]]) -> str:
    lines = [f"  {'shape':<8} {'n':>10} {'graph':<6} {'parse s':>8} {'build s':>8} "
             f"{'total s':>8} {'cpu s':>7} {'us/unit':>8}  {'peak MB':>8} {'B/unit':>7}"]
    for r in results:
        peak = r.get("peak_bytes")
        per = r.get("bytes_per_unit")
        lines.append(
            f"  {r['shape']:<8} {r['n']:>10,} {r.get('way', 'given'):<6} "
            f"{r['parse_s']:>8.2f} {r['build_s']:>8.2f} "
            f"{r['parse_s'] + r['build_s']:>8.2f} "
            f"{r['parse_cpu_s'] + r['build_cpu_s']:>7.2f} {r['us_per_unit']:>8.1f}  "
            + (f"{peak / 2**20:>8.0f} {per:>7.0f}" if peak is not None and per is not None
               else f"{'-':>8} {'-':>7}") + f"   per {r['unit'][:-1]}")
    by_shape: Dict[Tuple[str, str], List[Dict[str, Any]]] = {}
    for r in results:
        by_shape.setdefault((r["shape"], r.get("way", "given")), []).append(r)
    growth = []
    for (shape, way), rs in by_shape.items():
        if len(rs) > 1:
            small, big = min(rs, key=lambda r: r["n"]), max(rs, key=lambda r: r["n"])
            growth.append(f"{shape} ({way}) x{big['n'] / small['n']:g} size -> "
                          f"x{big['us_per_unit'] / small['us_per_unit']:.2f} time per unit")
    if growth:
        lines.append("  linearity (1.00 = linear): " + "; ".join(growth))
    return "\n".join(lines)


def _load() -> str:
    """The 1-minute load average, which says how far wall clock times can be
    trusted on a shared machine."""
    try:
        return f"{os.getloadavg()[0]:.2f}"
    except (AttributeError, OSError):  # pragma: no cover - Windows
        return "unknown"


def run(cases: Sequence[Tuple[str, int]] = CASES, out: Optional[TextIO] = None,
        progress: Optional[TextIO] = None) -> Dict[str, Any]:
    """Measure every case, print the table to ``out``, return everything as a
    JSON-able dict."""
    from .runner import machine_info
    out = out if out is not None else sys.stdout
    progress = progress if progress is not None else sys.stderr
    info = machine_info(torch=False)
    print(f"pyjit bench --compile: {info['cpu']}, {info['cpus']} CPUs, {info['python']}, "
          f"numpy {info['numpy']}", file=out)
    print("Each case in a child process: parse_ir and Code() of the text, wall clock "
          "(cpu s: the child's CPU time, which other processes inflate less); peak MB is "
          "the child's peak resident memory, B/unit what the compile added to it, per "
          "unit of n.  graph: given = handed over to Code (copy=False), as pyjit run "
          "does; kept = copied by Code, both alive, as a program keeping its graph.  "
          f"Load average at the start: {_load()}.", file=out, flush=True)
    results = []
    start = time.perf_counter()
    for shape, n in cases:
        for way in WAYS:
            print(f"compiling {shape} {n:,} ({way})", file=progress, flush=True)
            results.append(measure(shape, n, way=way))
    print(format_results(results), file=out, flush=True)
    print(f"Load average at the end: {_load()}.", file=out, flush=True)
    return {"machine": info, "seconds": time.perf_counter() - start, "cases": results}


def main(argv: Optional[Sequence[str]] = None) -> int:
    p = argparse.ArgumentParser(prog="python -m pyjit.benchmarks.compile_scaling",
                                description="Compile time and memory per node, by graph "
                                "shape and size.")
    p.add_argument("--quick", action="store_true", help="skip the million-node chain")
    p.add_argument("--json", metavar="FILE", help="save the numbers as JSON")
    p.add_argument("--case", metavar="SHAPE:N", action="append",
                   help=f"measure only these cases (shapes: {', '.join(SHAPES)})")
    p.add_argument("--child", metavar="FILE", help=argparse.SUPPRESS)
    p.add_argument("--way", choices=WAYS, default="given", help=argparse.SUPPRESS)
    ns = p.parse_args(argv)
    if ns.child:
        print(json.dumps(_child(ns.child, ns.way)))
        return 0
    return bench(quick=ns.quick, json_path=ns.json, cases=ns.case)


def bench(quick: bool = False, json_path: Optional[str] = None,
          cases: Optional[Sequence[str]] = None) -> int:
    """The command: ``pyjit bench --compile`` and this module's ``main``."""
    chosen: Sequence[Tuple[str, int]] = QUICK_CASES if quick else CASES
    if cases:
        chosen = []
        for c in cases:
            shape, _, size = c.partition(":")
            if shape not in SHAPES or not size.replace("_", "").isdigit():
                raise ValueError(f"a case is SHAPE:N with SHAPE one of {', '.join(SHAPES)}, "
                                 f"got {c!r}")
            chosen.append((shape, int(size)))
    report = run(chosen)
    if json_path:
        with open(json_path, "w", encoding="utf-8") as f:
            json.dump(report, f, indent=2)
            f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
