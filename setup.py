"""Build script: compiles the run loop ``pyjit/_core.pyx`` and the library's C int
operators ``pyjit/ops/_int64.pyx`` unless PYJIT_PUREPYTHON=1.

A failed compile is an error: pyjit never falls back silently to the pure-Python
loop at build time.  Set PYJIT_PUREPYTHON=1 to build without a compiler.
"""

import os
import sys

from setuptools import setup

ext_modules = []
if os.environ.get("PYJIT_PUREPYTHON", "") not in ("1", "true", "yes"):
    import Cython
    from Cython.Build import cythonize
    from setuptools import Extension

    # -fno-plt: the run loop calls into libpython (Py_DECREF's _Py_Dealloc) for
    # nearly every instruction; through the GOT directly rather than a PLT stub
    # that is one indirect jump less per call (~10% on a chain of int additions).
    extra = ["-fno-plt"] if sys.platform.startswith("linux") else []
    ext_modules = cythonize(
        [Extension("pyjit._core", ["pyjit/_core.pyx"],
                   define_macros=[("PYJIT_CYTHON_VERSION", f'"{Cython.__version__}"')],
                   extra_compile_args=extra),
         Extension("pyjit.ops._int64", ["pyjit/ops/_int64.pyx"], extra_compile_args=extra)],
        compiler_directives={"language_level": "3"},
    )

setup(ext_modules=ext_modules)
