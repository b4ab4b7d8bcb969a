"""Build script: compiles ``pyjit/_core.pyx`` unless PYJIT_PUREPYTHON=1.

A failed compile is an error: pyjit never falls back silently to the pure-Python
loop at build time.  Set PYJIT_PUREPYTHON=1 to build without a compiler.
"""

import os

from setuptools import setup

ext_modules = []
if os.environ.get("PYJIT_PUREPYTHON", "") not in ("1", "true", "yes"):
    import Cython
    from Cython.Build import cythonize
    from setuptools import Extension

    ext_modules = cythonize(
        [Extension("pyjit._core", ["pyjit/_core.pyx"],
                   define_macros=[("PYJIT_CYTHON_VERSION", f'"{Cython.__version__}"')])],
        compiler_directives={"language_level": "3"},
    )

setup(ext_modules=ext_modules)
