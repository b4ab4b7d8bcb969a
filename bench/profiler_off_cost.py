"""What the profiler's timed loop costs runs that are not profiled (issue 13).

    python bench/profiler_off_cost.py            # build the variant, compare, print
    python bench/profiler_off_cost.py --runs 200

``pyjit._core`` compiles its dispatch loop twice from one source (``Frame._run``
takes a fused ``RunMode``: a plain loop and a timed one, see
``docs/architecture.md``).  The plain loop's source has no trace of timing, but
its machine code is not the one GCC makes when the plain loop is alone in the C
file.  This script measures the difference:

1. it copies ``pyjit/_core.pyx`` to a temporary directory and makes the fused
   type ``PlainRun`` only (a profiled run there raises), then builds that with
   the same compiler flags as ``setup.py`` (Cython and a C compiler needed);
2. it loads the variant beside the installed ``pyjit._core`` in this process,
   builds each scalar workload's Program for both, and runs them alternately on
   the loop alone (``Frame(program).run(stack)``, no ``Function`` call around
   it), so that both see the same machine state;
3. it prints each loop's median and the ratio: shipped / variant, 1.00 when
   the timed loop costs the plain one nothing.

Only a measurement: it never changes the installed pyjit.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import statistics
import subprocess
import sys
import tempfile
import time
from types import ModuleType
from typing import List

import pyjit
from pyjit import _backend
from pyjit.benchmarks import workloads as W
from pyjit.code import Code
from pyjit.interpreter import program_of

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.join(os.path.dirname(HERE), "pyjit")

# The edits that leave one instantiation: each must be found exactly once.
EDITS = [
    ("ctypedef fused RunMode:\n    PlainRun\n    TimedRun\n",
     "ctypedef fused RunMode:\n    PlainRun\n"),
    ("        return self._drive[TimedRun](caller, &clock)\n",
     "        raise RuntimeError('this build has no timed loop: it only measures')\n"),
]

SETUP = """
import sys
from setuptools import setup, Extension
from Cython.Build import cythonize
import Cython
extra = ["-fno-plt"] if sys.platform.startswith("linux") else []
setup(name="variant", script_args=["build_ext", "--inplace", "-q"],
      ext_modules=cythonize([Extension("_core", ["_core.pyx"],
          define_macros=[("PYJIT_CYTHON_VERSION", f'"{Cython.__version__}"')],
          extra_compile_args=extra)],
          compiler_directives={"language_level": "3"}, quiet=True))
"""


def build_variant(workdir: str) -> str:
    """The loop without its timed instantiation, built in ``workdir``; returns
    the path of the extension."""
    with open(os.path.join(SOURCE, "_core.pyx"), encoding="utf-8") as f:
        text = f.read()
    for old, new in EDITS:
        if text.count(old) != 1:
            raise SystemExit(f"pyjit/_core.pyx has changed: cannot find {old.strip()!r} "
                             "once; update EDITS in this script")
        text = text.replace(old, new)
    with open(os.path.join(workdir, "_core.pyx"), "w", encoding="utf-8") as f:
        f.write(text)
    for name in os.listdir(SOURCE):  # what _core.pyx includes
        if name.endswith((".pxi", ".pxd")):
            with open(os.path.join(SOURCE, name), encoding="utf-8") as src, \
                    open(os.path.join(workdir, name), "w", encoding="utf-8") as dst:
                dst.write(src.read())
    with open(os.path.join(workdir, "setup.py"), "w", encoding="utf-8") as f:
        f.write(SETUP)
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
    ns = p.parse_args()
    shipped = _backend.compiled()
    print(f"pyjit {pyjit.__version__}, shipped loop: {shipped.__file__}", file=sys.stderr)
    with tempfile.TemporaryDirectory() as workdir:
        print("building the loop without its timed instantiation...", file=sys.stderr)
        variant = load(build_variant(workdir))
        print("\n".join(compare(shipped, variant, ns.runs)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
