"""What the profiler costs runs that are not profiled (issue 13).

    python bench/profiler_off_cost.py              # against a loop with no profiler
    python bench/profiler_off_cost.py --rev 705b53a  # against the loop as it was there
    python bench/profiler_off_cost.py --runs 200

The dispatch loop has one source, ``pyjit/_run_loop.pxi``, compiled twice:
plain in ``pyjit._core`` and timed in ``pyjit._timed``, each in a C file of its
own (see ``docs/architecture.md``).  The plain loop's source has no trace of
timing; what is left to measure is whether its machine code is as fast as the
one a C compiler makes when there is no profiler at all.  (Until 2026-12 both
loops were instantiations of one fused function in one C file, as 705b53a
built them.  ``--rev`` takes revisions since the loop's cases are generated,
``pyjit/_loop_cases.py``: an older loop has a smaller instruction set, and
refuses to import beside today's ``pyjit.opcodes``; time such a build in a
checkout and a process of its own.)  The loop's speed also depends on where its branches
fall in memory, so a difference of a few percent between two builds of
different sources is not necessarily in their code: ``--same`` builds the
shipped source again, and ``--cflags`` builds the variant with other flags.

1. it copies ``pyjit/_core.pyx`` (with the ``.pxd`` and ``.pxi`` files it reads)
   to a temporary directory and takes the profiled path out of
   ``Frame._execute`` (which then runs every run plain), or, with ``--rev``, takes
   those files as they were at that git revision, unchanged; then builds it with
   the same compiler flags as ``setup.py`` (Cython and a C compiler needed);
2. it loads that variant beside the installed ``pyjit._core`` in this process,
   builds each scalar workload's Program for both, and runs them alternately on
   the loop alone (``Frame(program).run(stack)``, no ``Function`` call around
   it), so that both see the same machine state;
3. it prints each loop's median and the ratio: shipped / variant, 1.00 when
   the profiler costs the plain loop nothing.

Only a measurement: it never changes the installed pyjit.
"""

from __future__ import annotations

import argparse
import ast
import importlib.util
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from types import ModuleType
from typing import Dict, List, Optional

import pyjit
from pyjit import _backend
from pyjit.benchmarks import workloads as W
from pyjit.code import Code
from pyjit.interpreter import program_of

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.join(os.path.dirname(HERE), "pyjit")

# The edit that leaves the profiler out (Frame._execute as it would be without
# one): it must be found exactly once.
EDITS = [
    ("        cdef object tallies = _profile\n"
     "        if tallies is None:\n"
     "            return _drive(self, caller, <PlainRun>NULL)\n"
     "        return _timed_drive(self, caller, tallies)\n",
     "        return _drive(self, caller, <PlainRun>NULL)  # no profiler: it only measures\n"),
]

SETUP = """
import sys
from setuptools import setup, Extension
from Cython.Build import cythonize
import Cython
extra = {flags!r} if sys.platform.startswith("linux") else []
setup(name="variant", script_args=["build_ext", "--inplace", "-q"],
      ext_modules=cythonize([Extension("_core", ["_core.pyx"],
          define_macros=[("PYJIT_CYTHON_VERSION", f'"{Cython.__version__}"')],
          extra_compile_args=extra)],
          compiler_directives={"language_level": "3"}, quiet=True))
"""


def compile_flags() -> List[str]:
    """The extra C compiler flags ``setup.py`` builds the loop with: its ``extra``
    list, and those of its ``OPTIONAL_FLAGS`` this machine's compiler takes (both
    read from its text).  The variant must be built as the shipped loop is."""
    with open(os.path.join(os.path.dirname(HERE), "setup.py"), encoding="utf-8") as f:
        text = f.read()
    lists = [re.search(pattern, text, re.M) for pattern in
             (r"^\s*extra = (\[[^\]]*\]) if ", r"^OPTIONAL_FLAGS = (\[[^\]]*\])")]
    if None in lists:
        raise SystemExit("setup.py has changed: cannot find `extra = [...]` and "
                         "`OPTIONAL_FLAGS = [...]`; update compile_flags in this script")
    extra, optional = (ast.literal_eval(m.group(1)) for m in lists)  # type: ignore[union-attr]
    if not sys.platform.startswith("linux"):
        extra = []
    from setuptools._distutils.ccompiler import new_compiler
    from setuptools._distutils.sysconfig import customize_compiler
    compiler = new_compiler()
    customize_compiler(compiler)
    with tempfile.TemporaryDirectory() as tmp:
        probe = os.path.join(tmp, "probe.c")
        with open(probe, "w", encoding="utf-8") as f:
            f.write("int pyjit_probe(int x) { return x ? x + 1 : 0; }\n")
        for flag in optional:
            try:
                compiler.compile([probe], output_dir=tmp, extra_postargs=[flag])
            except Exception:  # not taken here, so not by setup.py either
                continue
            extra.append(flag)
    return extra


def _module_at(rev: str, name: str) -> Optional[ModuleType]:
    """``pyjit/<name>.py`` as it was at ``rev``, loaded as a module of its own
    (it must import nothing of pyjit), or None where it did not exist."""
    shown = subprocess.run(["git", "show", f"{rev}:pyjit/{name}.py"], cwd=SOURCE,
                           capture_output=True, text=True)
    if shown.returncode != 0:
        return None
    module = ModuleType(f"_rev_{name}")
    exec(compile(shown.stdout, f"{rev}:pyjit/{name}.py", "exec"), module.__dict__)
    return module


def variant_sources(rev: Optional[str]) -> Dict[str, str]:
    """The loop's source files by name: the working tree's with ``EDITS`` made,
    or, given ``rev``, those that existed at that git revision, unchanged, with
    the generated ``_opcodes.pxi`` and ``_run_loop_expanded.pxi`` made from that
    revision's ``opcodes.py`` and ``_loop_cases.py``."""
    names = [n for n in os.listdir(SOURCE)
             if n == "_core.pyx" or n.endswith((".pxi", ".pxd"))]
    files: Dict[str, str] = {}
    for name in names:
        if rev is None:
            with open(os.path.join(SOURCE, name), encoding="utf-8") as f:
                files[name] = f.read()
            continue
        shown = subprocess.run(["git", "show", f"{rev}:pyjit/{name}"], cwd=SOURCE,
                               capture_output=True, text=True)
        if shown.returncode == 0:
            files[name] = shown.stdout
        elif name == "_core.pyx":
            raise SystemExit(f"git show {rev}:pyjit/{name} failed: {shown.stderr.strip()}")
    if rev is not None:
        opcodes, loop_cases = _module_at(rev, "opcodes"), _module_at(rev, "_loop_cases")
        if loop_cases is None:
            # Its _core would refuse to import beside today's pyjit.opcodes (the
            # instruction set grew with the generated loop): time the two builds
            # in two processes instead.
            raise SystemExit(f"{rev} is older than pyjit/_loop_cases.py: its loop cannot be "
                             "loaded beside this one")
        files[loop_cases.EXPANDED] = loop_cases.expand_loop(files[loop_cases.TEMPLATE], opcodes)
        files[loop_cases.ENUM] = loop_cases.opcode_enum(opcodes, files[loop_cases.EXPANDED])
    if rev is None:
        text = files["_core.pyx"]
        for old, new in EDITS:
            if text.count(old) != 1:
                raise SystemExit(f"pyjit/_core.pyx has changed: cannot find {old.strip()!r} "
                                 "once; update EDITS in this script")
            text = text.replace(old, new)
        files["_core.pyx"] = text
    return files


def build_variant(workdir: str, rev: Optional[str],
                  flags: Optional[List[str]] = None) -> str:
    """The variant's ``_core`` built in ``workdir`` (with ``flags``, by default
    setup.py's); returns the extension's path."""
    for name, text in variant_sources(rev).items():
        with open(os.path.join(workdir, name), "w", encoding="utf-8") as f:
            f.write(text)
    with open(os.path.join(workdir, "setup.py"), "w", encoding="utf-8") as f:
        f.write(SETUP.replace("{flags!r}", repr(flags if flags is not None
                                                   else compile_flags())))
    done = subprocess.run([sys.executable, "setup.py"], cwd=workdir, capture_output=True,
                          text=True)
    built = [n for n in os.listdir(workdir) if n.startswith("_core.") and
             n.endswith((".so", ".pyd"))]
    if done.returncode != 0 or not built:
        raise SystemExit(f"building the variant failed:\n{done.stderr[-3000:]}")
    return os.path.join(workdir, built[0])


def load(path: str) -> ModuleType:
    """The extension at ``path`` as a second ``pyjit._core`` module object."""
    spec = importlib.util.spec_from_file_location("pyjit._core", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module


def compare(shipped: ModuleType, variant: ModuleType, runs: int) -> List[str]:
    lines = [f"  {'workload':<12} {'shipped':>12} {'variant':>12}  shipped / variant"]
    for wl in (W.fib(), W.collatz(), W.chain(), W.float_loop()):
        args = list(wl.make_args())
        # A Code each: Programs are kept per loop module name, which both share.
        codes = [Code(wl.graph()), Code(wl.graph())]
        programs = [program_of(codes[0], shipped), program_of(codes[1], variant)]
        loops = [shipped, variant]

        def run(k: int) -> list:
            stack = list(args)
            loops[k].Frame(programs[k]).run(stack)
            return stack

        if run(0) != run(1):
            raise SystemExit(f"{wl.name}: the two loops disagree")
        times: List[List[int]] = [[], []]
        n = runs * 4 if wl.name == "chain" else runs
        for _ in range(n):
            for k in (0, 1):
                t = time.perf_counter_ns()
                run(k)
                times[k].append(time.perf_counter_ns() - t)
        a, b = statistics.median(times[0]), statistics.median(times[1])
        lines.append(f"  {wl.name:<12} {a / 1000:>9.2f} us {b / 1000:>9.2f} us  {a / b:.3f}")
    return lines


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--runs", type=int, default=60,
                   help="runs of each loop per workload, alternating (x4 for chain)")
    p.add_argument("--rev", help="compare with the loop as it was at this git revision "
                   "(default: the working tree's, without its profiler)")
    p.add_argument("--same", action="store_true",
                   help="build the variant from the working tree's loop, unchanged: a "
                   "check of the harness (expect 1.00), or, with --cflags, of flags alone")
    p.add_argument("--cflags", help="the variant's extra C compiler flags, space-separated "
                   "(default: setup.py's)")
    ns = p.parse_args()
    shipped = _backend.compiled()
    print(f"pyjit {pyjit.__version__}, shipped loop: {shipped.__file__}", file=sys.stderr)
    with tempfile.TemporaryDirectory() as workdir:
        what = f"the loop at {ns.rev}" if ns.rev else "the loop without a profiler"
        if ns.same:
            EDITS.clear()
            what = "the same loop"
        flags = ns.cflags.split() if ns.cflags is not None else None
        print(f"building {what}, flags {flags or compile_flags()}...", file=sys.stderr)
        variant = load(build_variant(workdir, ns.rev, flags))
        print("\n".join(compare(shipped, variant, ns.runs)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
