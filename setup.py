"""Build script: compiles the run loop ``pyjit/_core.pyx`` and its profiled twin
``pyjit/_timed.pyx``, the library's C int
operators ``pyjit/ops/_int64.pyx``, its direct ufunc calls
``pyjit/ops/_ufunc_direct.pyx`` and its float32 tensor kernels
``pyjit/ops/_kernels_*.pyx`` unless PYJIT_PUREPYTHON=1.

A failed compile is an error: pyjit never falls back silently to the pure-Python
loop at build time.  Set PYJIT_PUREPYTHON=1 to build without a compiler.
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


class build_ext(_build_ext):
    """setuptools' build_ext, adding the OPTIONAL_FLAGS the compiler accepts."""

    def build_extensions(self):
        if self.compiler.compiler_type == "unix":
            extra = accepted_flags(self.compiler, OPTIONAL_FLAGS)
            for ext in self.extensions:
                ext.extra_compile_args = list(ext.extra_compile_args or []) + extra
        super().build_extensions()


ext_modules = []
if os.environ.get("PYJIT_PUREPYTHON", "") not in ("1", "true", "yes"):
    import Cython
    from Cython.Build import cythonize
    from setuptools import Extension

    write_opcode_enum()

    # -fno-plt: the run loop calls into libpython (Py_DECREF's _Py_Dealloc) for
    # nearly every instruction; through the GOT directly rather than a PLT stub
    # that is one indirect jump less per call (~10% on a chain of int additions).
    extra = ["-fno-plt"] if sys.platform.startswith("linux") else []
    kernel_flags = ["-fno-trapping-math"] if sys.platform.startswith("linux") else []
    ext_modules = cythonize(
        [Extension("pyjit._core", ["pyjit/_core.pyx"],
                   define_macros=[("PYJIT_CYTHON_VERSION", f'"{Cython.__version__}"')],
                   extra_compile_args=extra),
         # The profiled loop, in a C file of its own (see pyjit/_timed.pyx).
         Extension("pyjit._timed", ["pyjit/_timed.pyx"], extra_compile_args=extra),
         Extension("pyjit.ops._int64", ["pyjit/ops/_int64.pyx"], extra_compile_args=extra),
         Extension("pyjit.ops._ufunc_direct", ["pyjit/ops/_ufunc_direct.pyx"],
                   extra_compile_args=extra),
         # The float32 tensor kernels (see pyjit/ops/kernels.py).  Their loops
         # select (clamp, x < 0 ? -r : r) where the compiler must otherwise
         # keep a branch in case a comparison traps; pyjit never enables FP
         # traps, and -fno-trapping-math changes no result, only lets GCC
         # vectorise them (4-8x on gelu, silu, sigmoid and softmax).
         *[Extension(f"pyjit.ops._kernels_{family}", [f"pyjit/ops/_kernels_{family}.pyx"],
                     extra_compile_args=extra + kernel_flags)
           for family in ("conv", "norm", "activations")]],
        compiler_directives={"language_level": "3"},
    )

setup(ext_modules=ext_modules, cmdclass={"build_ext": build_ext})
