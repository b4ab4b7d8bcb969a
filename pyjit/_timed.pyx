"""The profiled run loop: ``pyjit._core``'s dispatch loop, compiled again with its
timing in, in a C file of its own.

``_run_loop.pxi`` is the loop's one source.  ``_core`` compiles it for plain runs
and this module for profiled ones (the fused ``RunMode`` has one member in each,
so every ``if RunMode is TimedRun:`` block is in this C file and in no other).
Kept apart, nothing about the timed copy can change how the C compiler treats the
plain one: its inlining budget and its layout are per C file
(``bench/profiler_off_cost.py`` measures the plain loop against a build with no
profiler at all).

Nothing here is public: ``pyjit._core.set_profile`` imports this module, which
hands its driver to ``_core`` (``install_timed_loop``), and from then on
``Frame.run`` gives it every run that starts while a profile is on.
"""

cimport cython
from libc.stdint cimport int32_t, int64_t, uint8_t, uint16_t, uint32_t, uint64_t
from libc.string cimport memcpy, memset
from libc.math cimport floor, fmod, copysign, pow, fabs, isfinite

from pyjit._core cimport *

import numpy as np

from pyjit import _slowpath as _slow
from pyjit import opcodes as _op

include "_opcodes.pxi"

if _GENERATED_FROM != {d.name: d.code for d in _op.OPCODES}:
    raise ImportError("pyjit._timed was built from another pyjit/opcodes.py: rebuild it "
                      "(python setup.py build_ext --inplace, or reinstall pyjit)")

ctypedef fused RunMode:
    TimedRun

cdef int64_t* _tally(object tallies, Program prog, int64_t** times) except NULL:
    """``prog``'s counts (returned) and times (``*times``) in ``tallies``, made on
    its first run: two int64 arrays of n + 1 that the dict keeps alive."""
    pair = tallies.get(prog)
    if pair is None:
        pair = tallies[prog] = (np.zeros(prog._n + 1, np.int64),
                                np.zeros(prog._n + 1, np.int64))
    cdef int64_t[::1] counts = pair[0]
    cdef int64_t[::1] t = pair[1]
    times[0] = &t[0]
    return &counts[0]


cdef inline void _lap(Timed* clock, int64_t* slot) noexcept:
    """Charge the time since ``clock.t`` to ``*slot`` and restart the clock."""
    cdef long long now = pyjit_now_ns()
    slot[0] += now - clock.t
    clock.t = now


include "_run_loop_expanded.pxi"  # _run_loop.pxi, its cases generated


cdef object _drive_timed(Frame frame, list caller, object tallies):
    """Run ``frame`` as ``_core``'s Frame._execute would, counting and timing every
    instruction into ``tallies``, which this run holds until it stops."""
    cdef Timed clock
    clock.tallies = <PyObject*>tallies
    clock.t = pyjit_now_ns()
    return _drive(frame, caller, &clock)


install_timed_loop(_drive_timed)
