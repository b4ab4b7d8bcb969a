# cython: boundscheck=False, wraparound=False, initializedcheck=False, cdivision=True
"""The float32 tensor kernels in C: see :mod:`pyjit.ops.kernels`.

One extension module of five parts, each included here: convolution and
pooling (``_kernels_conv.pxi``), normalization (``_kernels_norm.pxi``),
activations and softmax (``_kernels_activations.pxi``), the
recurrent layers' whole recurrence (``_kernels_recurrent.pxi``), and the run
arena, numpy's data allocator during runs (``_kernels_arena.pxi``).  Each
function has the signature and results of its numpy reference in
:mod:`pyjit.ops.kernels` (``<name>_numpy``); tests/test_kernels.py runs one
suite against both.  They are one module, not four, because every module that
takes typed memoryviews carries its own copy of Cython's memoryview support:
one copy is some 60 KB less in a wheel of at most 1.2 MB.
"""

include "_kernels_conv.pxi"
include "_kernels_norm.pxi"
include "_kernels_activations.pxi"
include "_kernels_recurrent.pxi"
include "_kernels_arena.pxi"
