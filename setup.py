"""Build script: compiles the Cython modules of EXTENSIONS (the run loop
``pyjit/_core.pyx``, its profiled twin ``pyjit/_timed.pyx``, the C int operators
``pyjit/ops/_int64.pyx``, the direct ufunc calls ``pyjit/ops/_ufunc_direct.pyx``
and the float32 tensor kernels ``pyjit/ops/_kernels.pyx``) unless
PYJIT_PUREPYTHON=1.

A failed compile is an error: pyjit never falls back silently to the pure-Python
loop at build time.  Set PYJIT_PUREPYTHON=1 to build without a compiler.

How the build is kept short (``pip install .`` compiles about 4 MB of generated
C; on the 2-core development machine it takes well under 90 s):

* Cython runs only when extensions are built (``build_ext``), never for the
  sdist or the metadata, and on as many files at once as there are CPUs; the C
  compiles run in parallel too (``build_ext -j``, default: every CPU).
* Only the hot modules of EXTENSIONS (the dispatch loop, and kernels that the
  loop calls per instruction) get ``-O3`` and the layout flags; the cold ones
  get ``-O2``.
* No debug information (``-g0``) and stripped symbols (``-s`` at link): the
  wheel is 0.8 MB instead of 2.2 MB, and without ``-g`` the compiler's output
  does not depend on the directory it runs in, so ccache hits across trees.
* A second build of the same sources (the editable install after ``pip install
  .``, a CI worker after another, in another directory or virtualenv) takes
  seconds: Cython's cache keeps the generated C, and ccache, where it is
  installed, wraps the compiler unless ``CC`` is set.  PYJIT_BUILD_CACHE=0 turns
  both off.
"""

import importlib.util
import os
import sys

from setuptools import setup


def write_opcode_enum() -> None:
    """``pyjit/_opcodes.pxi`` (the opcode numbers as a C enum) and
    ``pyjit/_run_loop_expanded.pxi`` (the dispatch loop with the cases that are
    data generated), from their one definition in ``pyjit/opcodes.py``, by
    ``pyjit/_loop_cases.py`` (both read by path: the package itself cannot be
    imported before it is built)."""
    here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "pyjit")
    modules = []
    for name in ("opcodes", "_loop_cases"):
        spec = importlib.util.spec_from_file_location(f"_pyjit_{name}",
                                                      os.path.join(here, f"{name}.py"))
        modules.append(importlib.util.module_from_spec(spec))
        spec.loader.exec_module(modules[-1])
    opcodes, loop_cases = modules
    loop_cases.generate(here, opcodes)

# Flags used where the compiler takes them (a test compile says), else left out.
#
# The run loop's speed depends on how the rest of the file is compiled and where
# its code falls in memory: with its own source unchanged, it moved by 5-19% on
# fib, collatz and the float loop between builds of sources that differ
# elsewhere (bench/profiler_off_cost.py measures it).  Two flags narrow that:
# -mbranches-within-32B-boundaries (GNU as, x86) pads the code so that no jump
#   crosses or ends at a 32-byte boundary; builds of one source then take
#   0.83-0.89x the time of unpadded ones on those three workloads;
# -falign-functions=64 starts every function, the loop's among them, on a cache
#   line, so that what comes before it in the file cannot shift it.  With both,
#   builds of four different sources ran within 8% of each other (21% apart
#   with the padding alone).
OPTIONAL_FLAGS = ["-Wa,-mbranches-within-32B-boundaries", "-falign-functions=64"]


def accepted_flags(compiler, flags):
    """The ``flags`` that ``compiler`` (a distutils CCompiler) compiles a small C
    file with, each tried alone."""
    import tempfile
    taken = []
    with tempfile.TemporaryDirectory() as tmp:
        source = os.path.join(tmp, "probe.c")
        with open(source, "w") as f:
            f.write("int pyjit_probe(int x) { while (x > 1) x = x & 1 ? 3 * x + 1 : x / 2;"
                    " return x; }\n")
        for flag in flags:
            try:
                compiler.compile([source], output_dir=tmp, extra_postargs=[flag])
            except Exception:  # CompileError, or a compiler that cannot run at all
                continue
            taken.append(flag)
    return taken


from setuptools.command.build_ext import build_ext as _build_ext


#: The compiled modules, one line each: its name, its source, and whether it is
#: hot (the dispatch loop, or kernels the loop calls per instruction: optimised
#: for speed, with the layout flags), a tensor kernel (optimised for speed) or
#: cold (built quicker).  A new Cython module is a line here.
EXTENSIONS = [
    ("pyjit._core", "pyjit/_core.pyx", "hot"),
    # The profiled loop, in a C file of its own (see pyjit/_timed.pyx).  Only
    # profiled runs use it, whose time per instruction is the clock's.
    ("pyjit._timed", "pyjit/_timed.pyx", "cold"),
    ("pyjit.ops._int64", "pyjit/ops/_int64.pyx", "hot"),
    ("pyjit.ops._ufunc_direct", "pyjit/ops/_ufunc_direct.pyx", "hot"),
    # The float32 tensor kernels (see pyjit/ops/kernels.py).
    ("pyjit.ops._kernels", "pyjit/ops/_kernels.pyx", "kernel"),  # and its five .pxi
]

#: Compiler flags by kind of module, after Python's own CFLAGS (a later -O wins).
#: -g0: no debug information (Python's CFLAGS have -g).  -fno-plt: the run loop
#: calls into libpython (Py_DECREF's _Py_Dealloc) for nearly every instruction;
#: through the GOT directly rather than a PLT stub that is one indirect jump less
#: per call (~10% on a chain of int additions).  -fno-asynchronous-unwind-tables:
#: no .eh_frame for this C, which no C++ exception crosses and nothing unwinds
#: but a debugger (25 KB less in a wheel: the kernels' 24 KB, the loop's 18).
COMMON_FLAGS = ["-g0"] + (["-fno-plt", "-fno-asynchronous-unwind-tables"]
                          if sys.platform.startswith("linux") else [])
#: Kernels: their loops select (clamp, x < 0 ? -r : r) where the compiler must
#: otherwise keep a branch in case a comparison traps; pyjit never enables FP
#: traps, and -fno-trapping-math changes no result, only lets GCC vectorise them
#: (4-8x on gelu, silu, sigmoid and softmax).
#: Cold (the profiled loop, which only profiled runs use): for size, -Os: its
#: wheel's share is 57 KB rather than 81 (the 1.2 MB limit), and a profile's
#: own overhead, the "interpreter" row, 1.12 ms of mobilenet_v2's 21.8 rather
#: than 0.95 at -O2; the operators' times are the clock's either way.
FLAGS = {"hot": ["-O3"], "cold": ["-Os"],
         "kernel": ["-O3"] + (["-fno-trapping-math"] if sys.platform.startswith("linux")
                              else [])}
#: The OPTIONAL_FLAGS (above) apply to hot modules only.
LINK_FLAGS = ["-s"] if sys.platform.startswith("linux") else []


def cython_extensions():
    """EXTENSIONS as setuptools Extensions, still naming their .pyx sources."""
    import Cython
    from setuptools import Extension
    made = []
    for name, source, kind in EXTENSIONS:
        macros = [("PYJIT_CYTHON_VERSION", f'"{Cython.__version__}"')] \
            if name == "pyjit._core" else []
        made.append(Extension(name, [source], define_macros=macros,
                              extra_compile_args=COMMON_FLAGS + FLAGS[kind],
                              extra_link_args=LINK_FLAGS))
    return made


def build_caches_wanted() -> bool:
    """Whether to reuse earlier builds of the same sources: Cython's cache of
    generated C (in ~/.cython) and ccache.  PYJIT_BUILD_CACHE=0 turns both off."""
    return os.environ.get("PYJIT_BUILD_CACHE", "") not in ("0", "false", "no")


def with_ccache(compiler) -> None:
    """Put ccache in front of ``compiler``'s C compiler, when ccache is installed,
    CC is not set (a CC names its own wrapper, or none) and build caches are
    wanted."""
    import shutil
    if os.environ.get("CC") or not build_caches_wanted():
        return
    if shutil.which("ccache") is None or not hasattr(compiler, "compiler_so"):
        return
    if os.path.basename(compiler.compiler_so[0]) != "ccache":
        compiler.compiler_so = ["ccache"] + list(compiler.compiler_so)


def holds_files(directory: str) -> bool:
    """Whether ``directory`` exists and has a file somewhere below it."""
    return any(files for _, _, files in os.walk(directory))


class build_ext(_build_ext):
    """setuptools' build_ext: Cython first (only now, so that an sdist or the
    metadata never runs it), every CPU by default, and the OPTIONAL_FLAGS that
    the compiler accepts on the hot modules."""

    def finalize_options(self):
        super().finalize_options()
        if self.parallel is None:
            self.parallel = os.cpu_count() or 1
        # A virtualenv's include directory is empty, and its path differs from
        # one virtualenv to the next: on the command line, it would make ccache
        # miss a compile it has already made in another one.
        self.include_dirs = [d for d in self.include_dirs if holds_files(d)]

    def run(self):
        from Cython.Build import cythonize
        write_opcode_enum()
        generated = cythonize(self.extensions, nthreads=self.parallel or 1,
                              cache=build_caches_wanted(),
                              compiler_directives={"language_level": "3"})
        # The Extensions that finalize_options prepared stay: only their sources
        # change, from .pyx to the generated .c.
        sources = {ext.name: ext.sources for ext in generated}
        for ext in self.extensions:
            ext.sources = sources[ext.name]
        super().run()

    def build_extensions(self):
        if self.compiler.compiler_type == "unix":
            with_ccache(self.compiler)
            extra = accepted_flags(self.compiler, OPTIONAL_FLAGS)
            hot = {name for name, _, kind in EXTENSIONS if kind == "hot"}
            for ext in self.extensions:
                if ext.name in hot:
                    ext.extra_compile_args = list(ext.extra_compile_args or []) + extra
        super().build_extensions()


if __name__ == "__main__":  # as pip and `python setup.py` run it (bench/ imports it)
    pure = os.environ.get("PYJIT_PUREPYTHON", "") in ("1", "true", "yes")
    setup(ext_modules=[] if pure else cython_extensions(), cmdclass={"build_ext": build_ext})
