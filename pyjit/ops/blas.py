"""Which kernels numpy's BLAS runs on this CPU, so that pyjit knows whose GEMM
is faster: numpy's, or the compiled one of :mod:`.kernels`.

numpy's wheels link OpenBLAS built for every x86 core it knows
(``DYNAMIC_ARCH``): at load it reads the CPU's family and model and picks a set
of kernels.  A CPU newer than that OpenBLAS gets an older core's: on an AMD
Zen 5 (family 26), numpy 2.4's OpenBLAS 0.3.31 runs its ``Haswell`` kernels,
8 floats a vector, where the CPU has AVX-512; its float32 GEMM then makes
100-110 GFLOP/s on one thread, against 185-205 for its own ``SkylakeX``
kernels on the same CPU (``OPENBLAS_CORETYPE=SkylakeX``) and for pyjit's
AVX-512 GEMM.  :func:`vector_bits` says which it is, and
:func:`prefer_own_gemm` whether pyjit should multiply its float32 matrices
itself.

What is read: the core OpenBLAS says it picked (``openblas_get_corename``,
under the prefixes and suffixes of numpy's bundled build), looked up through
the handles of numpy's own extension modules, which link it.  No file is read
(the first operator of a loaded archive may import this module, and an
archive makes pyjit read no file), nothing is loaded that was not, and where
it cannot be told (another BLAS) the answer is None: numpy's BLAS is trusted,
as before.

``PYJIT_GEMM`` overrides the choice: ``own`` (pyjit's GEMM wherever it has a
body for the CPU), ``blas`` (numpy's), ``auto`` or unset (by the core).
"""

from __future__ import annotations

import ctypes
import functools
import os
from typing import Optional

__all__ = ["core_name", "vector_bits", "prefer_own_gemm", "GEMM_CHOICE"]

# OpenBLAS's names for its cores, by the width of the vectors their kernels use
# (``driver/others/dynamic.c``); a name not here is taken as 256 bits wide, the
# widest a core OpenBLAS knows of and not listed could be trusted to use.
_AVX512_CORES = frozenset({"skylakex", "cooperlake", "sapphirerapids"})
_SYMBOLS = ("scipy_openblas_get_corename64_", "scipy_openblas_get_corename",
            "openblas_get_corename64_", "openblas_get_corename")


def _numpy_extensions():
    """numpy's extension modules that link its BLAS: a symbol of the BLAS is
    found through their handles (dlsym searches a library's dependencies)."""
    from numpy._core import _multiarray_umath
    from numpy.linalg import _umath_linalg
    return [m.__file__ for m in (_multiarray_umath, _umath_linalg)]


@functools.lru_cache(maxsize=None)
def core_name() -> Optional[str]:
    """The name of the core whose kernels numpy's OpenBLAS runs (``Haswell``,
    ``SkylakeX``...), or None when it cannot be told."""
    try:
        paths = _numpy_extensions()
    except (ImportError, AttributeError):
        return None
    for path in paths:
        try:   # already loaded: RTLD_NOLOAD opens no file
            lib = ctypes.CDLL(path, mode=getattr(os, "RTLD_NOLOAD", 0) | os.RTLD_LOCAL)
        except OSError:
            continue
        for symbol in _SYMBOLS:
            fn = getattr(lib, symbol, None)
            if fn is None:
                continue
            fn.restype, fn.argtypes = ctypes.c_char_p, []
            name = fn()
            if name:
                return name.decode("ascii", "replace").strip()
    return None


def vector_bits() -> Optional[int]:
    """The width of the vectors numpy's OpenBLAS kernels use (512 or 256), or
    None when its core cannot be told."""
    name = core_name()
    if name is None:
        return None
    return 512 if name.lower() in _AVX512_CORES else 256


def _choice() -> str:
    value = os.environ.get("PYJIT_GEMM", "auto").strip().lower() or "auto"
    if value not in ("auto", "own", "blas"):
        raise ValueError(f"PYJIT_GEMM={value!r}: expected 'auto', 'own' or 'blas'")
    return value


#: ``PYJIT_GEMM`` as read at import: ``auto``, ``own`` or ``blas``.
GEMM_CHOICE = _choice()


def prefer_own_gemm(own_level: int) -> bool:
    """Whether pyjit's GEMM, whose body for this CPU is ``own_level`` (2
    AVX-512, 1 AVX2, 0 none), should take every float32 product numpy's BLAS
    would: when its vectors are wider than the ones numpy's BLAS uses here
    (or ``PYJIT_GEMM=own``)."""
    if own_level <= 0 or GEMM_CHOICE == "blas":
        return False
    if GEMM_CHOICE == "own":
        return True
    bits = vector_bits()
    return bits is not None and own_level == 2 and bits < 512
