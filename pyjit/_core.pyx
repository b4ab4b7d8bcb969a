"""The run loop, compiled: the fast twin of ``pyjit._pure``.

Same names, signatures, docstrings and semantics as ``pyjit._pure`` (read that one
first: it is the reference); one test suite runs against both.  What is different
here is only how it is made fast:

* the table is read through raw C pointers into private read-only arrays, which
  ``pyjit.validate`` proved well-formed once, so the loop does no bounds checks;
* object registers and the value stack are C arrays of ``PyObject*`` with manual
  reference counting (a NULL register is empty); scalar registers are a C array
  of 64-bit slots, each an ``int64_t`` or a ``double`` (a bool is 0 or 1), which
  the typed tier reads and writes with no Python object at all;
* the columns are packed, once per Program, into one 32-byte record per
  instruction (opcode, operand, counts, a pointer to its operands and, for a
  CALL, one to how its operator is called), with each input's register and move
  flag folded into one word; the loop walks a pointer to the current record, so
  the C compiler can keep its few live values in machine registers;
* dispatch is one C ``switch`` on the opcode, whose numbers are the enum that
  setup.py generates from ``pyjit.opcodes`` (checked against it at import);
* CALL passes its inputs straight from the registers to the operator's C entry
  point (no tuple, no extra reference for a copied input: the register keeps it
  alive), and the entry point is chosen once per callback when the Program is
  built, as CPython's specialising interpreter does for ``CALL``: a builtin with
  ``METH_FASTCALL`` (``operator.add``) is called through its C function, anything
  else through its own vectorcall slot;
* the common shapes have fast paths: CALL with one or two inputs and one output,
  and a Loop's ASSIGN, which runs the conditional jump that follows it (the
  validator guarantees it is there) without a second dispatch;
* an intrinsic computes in C exactly what its library operator computes, and
  calls the operator itself only off its common case (a division by zero, a
  float power that overflows), so errors are the operator's own;
* at backward jumps, every ``TICK`` of them, the loop checks signals and gives
  up the GIL: the instructions that touch no Python object (the typed tier's
  scalar work) then run without it, in parallel with other threads, until an
  instruction needs Python again and takes it back.  A loop of scalar work thus
  never starves other threads, and one that calls Python operators lets them run
  at least every ``TICK`` iterations, as CPython's own loop does;
* a run counts as a level of Python recursion (``Py_EnterRecursiveCall``) and
  refuses to start when the thread's C stack is nearly full, so an operator that
  runs its own graph again ends in RecursionError, not a crash, however high
  ``sys.setrecursionlimit`` is;
* an activation's value stack and registers are one C block that never moves (a
  returned call's block is kept for the next call at that depth, and a small
  Frame's block by its Program, for its next Frame), and ``_run``
  runs one activation only, returning to a small driver at an ``INVOKE`` and at
  the end, so that nothing in the dispatch loop changes which registers it reads
  (the C compiler keeps them in machine registers) and a call costs no C stack;
* the dispatch loop and the helpers it calls are ``_run_loop.pxi``, included
  here for plain runs and compiled again, with the timing in, by
  ``pyjit._timed`` for profiled ones (a fused ``RunMode`` with one member in
  each), so the normal loop's C is what it would be without a profiler, in a C
  file of its own; ``_core.pxd`` declares what the two share.  The pure twin
  gets the same by compiling its ``_execute`` twice from one source;
* the files run from cold to hot (Lua's ``lvm.c`` habit): the out-of-line
  helpers that can raise or call back into Python come first, the dispatch loop
  last.  An exception from anywhere inside the loop lands in its one ``except``
  clause, which releases the frame's values.  The rare paths' checks and
  messages are ``pyjit._slowpath``'s, shared with the pure loop.
"""

cimport cython
from cpython.dict cimport PyDict_GetItem
from cpython.object cimport PyObject
from libc.stdint cimport int32_t, int64_t, uint8_t, uint16_t, uint32_t, uint64_t
from libc.string cimport memcpy, memset
from libc.math cimport floor, fmod, copysign, pow, fabs, isfinite

import numpy as np

from pyjit import _slowpath as _slow
from pyjit import opcodes as _op
from pyjit.validate import validate_table

include "_opcodes.pxi"

if _GENERATED_FROM != {d.name: d.code for d in _op.OPCODES}:
    raise ImportError("pyjit._core was built from another pyjit/opcodes.py: rebuild it "
                      "(python setup.py build_ext --inplace, or reinstall pyjit)")

cdef extern from *:
    # Defined by setup.py: the Cython that generated this module.
    const char* PYJIT_CYTHON_VERSION

#: The version of Cython this module was compiled with (``pyjit info`` shows it).
CYTHON_VERSION = PYJIT_CYTHON_VERSION.decode("ascii")

cdef const int32_t* _ints(const int32_t[::1] a):
    # The array outlives the view: Program keeps it, read-only, for its lifetime.
    return &a[0] if a.shape[0] else NULL


cdef const uint8_t* _bytes(const uint8_t[::1] a):
    return &a[0] if a.shape[0] else NULL


cdef const int64_t* _int64s(const int64_t[::1] a):
    return &a[0] if a.shape[0] else NULL


cdef extern from *:
    """
    /* Whether this thread's C stack is nearly used up.  Py_EnterRecursiveCall
       counts levels, not bytes: a run reached through an operator that runs its
       graph again (Python calling the loop calling Python...) costs several
       kilobytes of C stack a level, so a raised sys.setrecursionlimit lets it
       overflow the stack long before the count runs out.  CPython 3.12+ checks
       the stack pointer itself for the same reason; here the bounds of the
       thread's stack are read once per thread (pthread_getattr_np), and a run
       refuses to start within PYJIT_STACK_MARGIN bytes of its end, leaving room
       for raising and reporting the error.  Where the bounds cannot be read,
       only the count guards. */
    #if defined(__linux__) && defined(__GLIBC__)
    #include <pthread.h>
    #define PYJIT_STACK_MARGIN (256 * 1024)
    static __thread char *pyjit_stack_floor = NULL;  /* NULL: not read yet */

    static int pyjit_stack_exhausted(void) {
        char here;
        if (pyjit_stack_floor == NULL) {
            pthread_attr_t attr;
            void *low = NULL;
            size_t size = 0;
            pyjit_stack_floor = (char *)1;  /* unknown: never exhausted */
            if (pthread_getattr_np(pthread_self(), &attr) == 0) {
                if (pthread_attr_getstack(&attr, &low, &size) == 0 &&
                        size > 2 * PYJIT_STACK_MARGIN)
                    pyjit_stack_floor = (char *)low + PYJIT_STACK_MARGIN;
                pthread_attr_destroy(&attr);
            }
        }
        return &here < pyjit_stack_floor;
    }
    #else
    static int pyjit_stack_exhausted(void) { return 0; }
    #endif
    """
    bint pyjit_stack_exhausted()

# How a CALL reaches its operator (see pyjit_callee in _core.pxd): decided here,
# once per callback, when a Program is built.
cdef extern from *:
    """
    static void pyjit_resolve(PyObject *f, pyjit_callee *c) {
        c->callable = f;
        c->fast = NULL;
        c->self = NULL;
        c->vcall = NULL;
        if (PyCFunction_CheckExact(f)) {
            int flags = PyCFunction_GET_FLAGS(f);
            if ((flags & (METH_VARARGS | METH_FASTCALL | METH_NOARGS | METH_O |
                          METH_KEYWORDS | METH_METHOD)) == METH_FASTCALL) {
                c->fast = (pyjit_fastcall)(void (*)(void))PyCFunction_GET_FUNCTION(f);
                c->self = PyCFunction_GET_SELF(f);
                return;
            }
        }
        c->vcall = PyVectorcall_Function(f);
    }
    """
    void pyjit_resolve(PyObject* f, pyjit_callee* c)


# no_gc_clear: the raw pointers in a Program (see _core.pxd) point into the
# tuples and arrays it owns, so the collector must never empty them under a live
# Program (it breaks a cycle through a Program by clearing the cycle's other
# objects).
@cython.final
@cython.no_gc_clear
cdef class Program:
    """An immutable, validated instruction table, shared by any number of Frames.

    The table is a struct of arrays, one entry per instruction ``i``: ``op[i]`` (an
    opcode from ``pyjit.opcodes``), ``arg[i]`` (its operand: a callback, constant or
    jump target), and three list handles into two arenas, as in the seed's
    ``CodeImpl``::

        inputs   int_data [in_start[i]   : in_start[i]   + in_size[i]]   registers
        flags    bool_data[flag_start[i] : flag_start[i] + in_size[i]]   1 = move
        outputs  int_data [out_start[i]  : out_start[i]  + out_size[i]]  registers

    A set flag marks the input's last use: the value is moved out of its register
    instead of copied, so it is freed as early as possible.  Which register file an
    operand's number refers to (objects or scalars) is its opcode's to say.

    Args:
        op, in_start, in_size, flag_start, out_start, out_size, arg: 1-D numpy
            int32 arrays of length n, the instruction columns.
        int_data: 1-D numpy int32 array, the register-number arena.
        bool_data: 1-D numpy uint8 array, the free-flag arena (0 or 1).
        callbacks: tuple of callables ``F``, for CALL, STACKCALL and intrinsics.
        constants: tuple ``K``, for CONST.
        register_size: number of object registers a Frame allocates.
        future_type: the class of futures WAIT accepts; it must have ``done()``
            and ``value()`` (which returns the result or raises the stored error).
        scalar_kinds: one letter per scalar register a Frame allocates, what it
            holds: ``I`` an int64, ``F`` a double, ``B`` a bool.
        scalar_init: 1-D numpy int64 array, the scalar registers' values when a run
            starts (a double's bits for a float register); zeros by default.
        preload: ``(register, value)`` pairs: object registers that hold ``value``
            when a run starts (the constants of an optimised Code).

    The arrays are copied (so later changes by the caller have no effect) and the
    whole table is validated once, by ``pyjit.validate.validate_table``.

    Raises:
        ValueError: the table is invalid; the message names the instruction.
    """

    # __cinit__, not __init__: it runs exactly once, so a Program cannot be
    # re-initialised under a Frame that holds its pointers.
    def __cinit__(self, op, in_start, in_size, flag_start, out_start, out_size, arg,
                  int_data, bool_data, callbacks, constants, register_size, future_type,
                  scalar_kinds="", scalar_init=None, preload=()):
        t = validate_table(op, in_start, in_size, flag_start, out_start, out_size, arg,
                           int_data, bool_data, callbacks, constants, register_size,
                           future_type, scalar_kinds, scalar_init, preload)
        self._table = t
        self._callbacks = t.callbacks
        self._constants = t.constants
        self._future_type = t.future_type
        self._n = len(t.op)
        self._register_size = t.register_size
        self._max_stack = t.max_stack
        self._scalar_size = len(t.scalar_kinds)
        self._scalar_init = _int64s(t.scalar_init)
        # Past the last constant, every scalar register starts at 0: a fresh block
        # (calloc'd) needs only the registers before it copied.  A straight line
        # of 1,000 int additions has 1,002 scalar registers and no constant.
        nonzero = np.flatnonzero(t.scalar_init)
        self._scalar_set = nonzero[-1] + 1 if len(nonzero) else 0
        self._op = _ints(t.op)
        self._in_size = _ints(t.in_size)
        self._out_size = _ints(t.out_size)
        self._arg = _ints(t.arg)
        self._F = PySequence_Fast_ITEMS(self._callbacks)
        self._K = PySequence_Fast_ITEMS(self._constants)
        self._preload_values = tuple(value for _, value in t.preload)
        self._n_preload = len(t.preload)
        self._preload_objs = PySequence_Fast_ITEMS(self._preload_values)
        self._linked = [None] * len(self._callbacks)
        self._pack(t)

    def __dealloc__(self):
        PyMem_Free(self._spare)
        PyMem_Free(self._code)
        PyMem_Free(self._operands)
        PyMem_Free(self._callees)
        PyMem_Free(self._preload_regs)
        PyMem_Free(self._divisors)

    cdef int _pack(self, t) except -1:
        """Build the per-instruction records and resolve how to call each operator.

        Callables are resolved once each, however many instructions call them
        (the code generator gives every node its own callback slot).
        """
        cdef const int32_t* in_start = _ints(t.in_start)
        cdef const int32_t* flag_start = _ints(t.flag_start)
        cdef const int32_t* out_start = _ints(t.out_start)
        cdef const int32_t* ints = _ints(t.int_data)
        cdef const uint8_t* flags = _bytes(t.bool_data)
        cdef const uint8_t* written = _bytes(t.scalar_written)
        cdef int64_t divisor
        cdef int power
        cdef list divisors = []
        cdef Py_ssize_t i, j, total = 0, pos = 0
        cdef dict seen = {}
        # needs[i]: instructions before i that need Python (pyjit.opcodes'
        # needs_python), so a loop [target, i] touches no object when the count
        # does not grow over it.
        cdef list python = [d.code for d in _op.OPCODES if d.needs_python]
        needs = np.concatenate(([0], np.cumsum(np.isin(t.op, python)))).tolist()
        for i in range(self._n):
            total += self._in_size[i] + self._out_size[i]
        # +1 each: a zero-size PyMem_Calloc may return NULL.
        self._code = <Instr*>PyMem_Calloc(self._n + 1, sizeof(Instr))
        self._operands = <Word*>PyMem_Calloc(total + 1, sizeof(Word))
        self._callees = <pyjit_callee*>PyMem_Calloc(len(self._callbacks) + 1,
                                                    sizeof(pyjit_callee))
        self._preload_regs = <int32_t*>PyMem_Calloc(self._n_preload + 1, sizeof(int32_t))
        if (self._code == NULL or self._operands == NULL or self._callees == NULL
                or self._preload_regs == NULL):
            raise MemoryError()
        for j, (reg, _) in enumerate(t.preload):
            self._preload_regs[j] = reg
        for i in range(self._n):
            self._code[i].op = self._op[i]
            self._code[i].arg = self._arg[i]
            self._code[i].words = self._operands + pos
            self._code[i].n_in = <uint16_t>min(self._in_size[i], BIG)
            self._code[i].n_out = <uint16_t>min(self._out_size[i], BIG)
            for j in range(self._in_size[i]):
                self._operands[pos] = ((<Word>ints[in_start[i] + j]) << 1) | \
                    flags[flag_start[i] + j]
                pos += 1
            for j in range(self._out_size[i]):
                self._operands[pos] = <Word>ints[out_start[i] + j]
                pos += 1
            if self._op[i] == OP_CALL:
                key = id(<object>self._F[self._arg[i]])
                j = seen.get(key, -1)
                if j < 0:
                    j = seen[key] = len(seen)
                    pyjit_resolve(self._F[self._arg[i]], &self._callees[j])
                self._code[i].callee = &self._callees[j]
                if self._out_size[i] == 1 and self._in_size[i] == 1:
                    self._code[i].op = OP_CALL1
                elif self._out_size[i] == 1 and self._in_size[i] == 2:
                    self._code[i].op = OP_CALL2
            if self._op[i] in _op.JUMPS and 0 <= self._arg[i] <= i:
                self._code[i].gil_free = needs[i + 1] == needs[self._arg[i]]
            if self._op[i] == OP_FLOORDIV_I or self._op[i] == OP_REM_I:
                j = ints[in_start[i] + 1]          # the divisor's register
                divisor = self._scalar_init[j]
                if written[j] or divisor <= 0:
                    continue
                if divisor & (divisor - 1) == 0:
                    power = 0
                    while (<int64_t>1 << power) != divisor:
                        power += 1
                    self._code[i].arg = power
                    self._code[i].op = (OP_FLOORDIV_POW2 if self._op[i] == OP_FLOORDIV_I
                                        else OP_REM_POW2)
                else:
                    self._code[i].arg = len(divisors)
                    divisors.append(divisor)
                    self._code[i].op = (OP_FLOORDIV_K if self._op[i] == OP_FLOORDIV_I
                                        else OP_REM_K)
        self._fuse(ints, in_start, out_start, written)
        self._divisors = <Divisor*>PyMem_Calloc(len(divisors) + 1, sizeof(Divisor))
        if self._divisors == NULL:
            raise MemoryError()
        for j, d in enumerate(divisors):
            # Python ints: the numerator has up to 126 bits.
            l = (d - 1).bit_length()                    # ceil(log2 d)
            self._divisors[j].d = d
            self._divisors[j].m = -(-(1 << (63 + l)) // d)
            self._divisors[j].shift = l - 1
        return 0

    cdef void _fuse(self, const int32_t* ints, const int32_t* in_start,
                    const int32_t* out_start, const uint8_t* written) noexcept:
        """Fuse REM_POW2 with the zero test that follows it (see OP_REM_POW2_JEQZ)."""
        cdef Py_ssize_t i
        cdef int32_t r, a, b
        cdef uint8_t* target = <uint8_t*>PyMem_Calloc(self._n + 1, 1)
        if target == NULL:
            return  # no fusion: correct, a little slower
        for i in range(self._n):
            if _op.BY_CODE[self._op[i]].jumps and 0 <= self._arg[i] <= self._n:
                target[self._arg[i]] = 1
        for i in range(self._n - 1):
            if self._code[i].op != OP_REM_POW2 or target[i + 1]:
                continue
            if self._op[i + 1] != OP_JEQ_I and self._op[i + 1] != OP_JNE_I:
                continue
            r = ints[out_start[i]]
            a = ints[in_start[i + 1]]
            b = ints[in_start[i + 1] + 1]
            if a != r:
                a, b = b, a
            if a == r and b != r and not written[b] and self._scalar_init[b] == 0:
                self._code[i].op = (OP_REM_POW2_JEQZ if self._op[i + 1] == OP_JEQ_I
                                    else OP_REM_POW2_JNEZ)
        PyMem_Free(target)

    @property
    def n_instructions(self):
        """Number of instructions n; pc runs over [0, n], n meaning finished."""
        return self._n

    @property
    def register_size(self):
        """Number of object registers in each Frame's register file."""
        return self._register_size

    @property
    def scalar_size(self):
        """Number of scalar registers in each Frame."""
        return self._scalar_size

    @property
    def max_stack(self):
        """Value-stack slots a run needs (the deepest push of any instruction)."""
        return self._max_stack

    def __repr__(self):
        return (f"<Program n_instructions={self._n} register_size={self._register_size} "
                f"scalar_size={self._scalar_size} max_stack={self._max_stack}>")

    cdef Program _callee(self, int arg):
        """INVOKE's callee: ``F[arg]()``, called the first time and kept (a list
        the collector sees: a graph that calls itself makes a cycle)."""
        cdef object p
        if arg < PyList_GET_SIZE(self._linked):  # emptied only by the collector
            p = <object>PyList_GET_ITEM(self._linked, arg)
            if p is not None:
                return <Program>p
        p = _slow.link(<object>self._F[arg], Program, arg)
        self._linked[arg] = p
        return <Program>p

    def _takes_condition_at(self, Py_ssize_t i):
        # A JUMPZ/JUMPNZ without inputs pops the condition its ASSIGN left.
        return _op.BY_CODE[self._op[i]].stack_condition and self._in_size[i] == 0

    def packed_opcodes(self):
        """The opcode each instruction runs as: the table's, or the packed form
        (``CALL1``, ``REM_POW2``... of :mod:`pyjit.opcodes`) that the loop runs
        in its place.  A list of n ints."""
        return [self._code[i].op for i in range(self._n)]


def guards_hold(list same, list tensors):
    """Whether a specialised method's guards hold: every ``(fields, name, value)``
    of ``same`` has ``fields[name] is value``, every ``(fields, name)`` of
    ``tensors`` a ``fields[name]`` that is not None
    (:meth:`pyjit.archive.specialize.Guards.hold`, whose loop this is, run
    before every call: in Python, 35-55 ns a guard, and a MobileNet has 1,300).
    ``fields`` are dicts, ``name`` strs."""
    cdef object t
    cdef PyObject* v
    for t in same:
        v = PyDict_GetItem(<dict>(<tuple>t)[0], (<tuple>t)[1])
        if v is NULL or v is not <PyObject*>(<tuple>t)[2]:
            return False
    for t in tensors:
        v = PyDict_GetItem(<dict>(<tuple>t)[0], (<tuple>t)[1])
        if v is NULL or <object>v is None:
            return False
    return True


# How many activations a Frame may hold at once (set_max_depth).
cdef Py_ssize_t _max_depth = _slow.DEFAULT_MAX_DEPTH


def set_max_depth(n):
    """Set how many activations a Frame may hold at once: one for the run, plus one
    per INVOKE in progress.  An INVOKE beyond it raises RecursionError."""
    global _max_depth
    _max_depth = _slow.check_max_depth(n)


def get_max_depth():
    """How many activations a Frame may hold at once (see ``set_max_depth``)."""
    return _max_depth


# ---- Profiling: the same loop, compiled twice, in two C files ----
#
# _run_loop.pxi's _run and _drive take a fused `RunMode`.  This module compiles
# them for PlainRun, where every `if RunMode is TimedRun:` block is left out at
# compile time; pyjit._timed compiles them for TimedRun, which reads the clock at
# every instruction.  Frame._execute picks one per run.  Two C files, not two
# instantiations in this one, so that nothing about the timed copy can change
# how the C compiler treats the plain one (see docs/architecture.md).
ctypedef fused RunMode:
    PlainRun

# The profiled loop's driver, installed by pyjit._timed when set_profile imports it.
cdef TimedDrive _timed_drive = NULL


cdef int install_timed_loop(TimedDrive drive) except -1:
    global _timed_drive
    _timed_drive = drive
    return 0

# The tallies of the profile in progress (see set_profile), or None.
cdef object _profile = None


def set_profile(tallies):
    """Profile the runs that start (or resume) from now on into ``tallies``, a dict
    the loop fills with ``{program: (counts, times)}``: per instruction ``pc`` of
    ``program``, ``counts[pc]`` its executions and ``times[pc]`` the nanoseconds
    from its start to the next instruction's start (``perf_counter_ns``), and at
    ``[n_instructions]`` the time between activations (a run's start and resumes,
    calls and returns).  ``None`` stops profiling.  :mod:`pyjit.profiler` is the
    interface; a run that is not profiled runs the loop with no profiling in it."""
    global _profile
    tallies = _slow.check_profile(tallies)
    if tallies is not None and _timed_drive == NULL:
        from pyjit import _timed   # installs the timed loop (install_timed_loop)
    _profile = tallies


def get_profile():
    """The tallies runs are profiled into (see ``set_profile``), or None."""
    return _profile


cdef int _enter(Activation* a, Program p) except -1:
    """Start an activation of ``p`` in ``a``: its block (the one ``a`` kept, when it
    is big enough), empty registers, the preloaded constants, pc 0.  The caller
    sets ``a.program``."""
    cdef Py_ssize_t need = p._max_stack + 1 + p._register_size + p._scalar_size
    cdef Py_ssize_t j
    cdef PyObject* v
    cdef bint zeroed = a.cap < need
    if zeroed:
        if a.mem != NULL:
            PyMem_Free(a.mem)
        a.cap = 0
        # Never empty (the spare slot), so calloc cannot return NULL for size 0.
        a.mem = <PyObject**>PyMem_Calloc(need, sizeof(PyObject*))
        if a.mem == NULL:
            raise MemoryError()
        a.cap = need
        a.regs = a.mem + 1 + p._max_stack
    else:
        # A kept block was released (its registers are empty), but under another
        # program's layout its stack slots may sit where these registers are.
        a.regs = a.mem + 1 + p._max_stack
        memset(a.regs, 0, p._register_size * sizeof(PyObject*))
    a.stack = a.mem + 1
    a.nregs = p._register_size
    a.scalars = <Scalar*>(a.regs + a.nregs)
    if p._scalar_set:
        memcpy(a.scalars, p._scalar_init, p._scalar_set * sizeof(Scalar))
    if not zeroed and p._scalar_size > p._scalar_set:
        memset(a.scalars + p._scalar_set, 0, (p._scalar_size - p._scalar_set) * sizeof(Scalar))
    for j in range(p._n_preload):
        v = p._preload_objs[j]
        Py_INCREF(v)
        a.regs[p._preload_regs[j]] = v
    a.pc = 0
    a.sp = 0
    return 0


cdef void _release(Activation* a, Py_ssize_t sp) noexcept:
    """Release an activation's value stack below ``sp`` (top first), then every
    register.

    Each slot is cleared before its value is released, so code run by a
    finaliser never sees a dangling pointer.
    """
    cdef PyObject* v
    cdef PyObject** regs = a.regs    # never reallocated: safe across finalisers
    cdef PyObject** stack = a.stack
    cdef Py_ssize_t i = a.nregs
    while sp:
        sp -= 1
        v = stack[sp]
        stack[sp] = NULL
        Py_XDECREF(v)   # NULL: moved into a STACKCALL list
    while i:
        # After a run most registers are empty already (moved or dropped):
        # skip them four at a time.  A 1,000-register frame is freed on
        # every call of a 1,000-node graph.
        if i >= 4 and (<size_t>regs[i - 1] | <size_t>regs[i - 2] |
                       <size_t>regs[i - 3] | <size_t>regs[i - 4]) == 0:
            i -= 4
            continue
        i -= 1
        v = regs[i]
        if v != NULL:
            regs[i] = NULL
            Py_DECREF(v)


cdef int _move_values(PyObject** src, Py_ssize_t k, PyObject** dst) noexcept:
    # The references move with the pointers: no count changes.
    if k:
        memcpy(dst, src, k * sizeof(PyObject*))
    return 0


# The largest block a Program keeps for its next Frame (Frame.__dealloc__): 64 KiB.
cdef enum:
    SPARE_SLOTS = 8192


@cython.final
cdef class Frame:
    """The register file and value stack of one run of a Program.

    A Frame runs once, from pc 0 to the end; it may suspend at a WAIT and be
    resumed any number of times.  After an error it is unusable.  Frames are
    cheap: make one per run.  A Frame is not meant to be shared between threads
    (its Program is).

    An INVOKE runs its callee in a new *activation* of the same frame: its own
    registers and value stack, on a stack of activations that the loop walks
    without recursing.  The run's own activation is the outermost.

    Args:
        program: the Program to run.
    """

    def __cinit__(self, program):
        if not isinstance(program, Program):
            raise TypeError(f"Frame() expects a Program, got {type(program).__name__}")
        cdef Program p = <Program>program
        self._program = p
        self._ticks = TICK
        if p._spare != NULL:   # the block of a Frame that ended (see __dealloc__)
            self._top.mem, self._top.cap = p._spare, p._spare_cap
            p._spare = NULL
        _enter(&self._top, p)
        self._top.program = <PyObject*>p   # borrowed: the field holds it

    def __dealloc__(self):
        cdef Py_ssize_t d
        cdef Program p = self._program
        self._unwind(0)
        # A small graph called in a loop would spend a good part of each call
        # allocating and freeing its block: the Program keeps one for the next
        # Frame (released: every slot empty).  Not a big one, which would hold
        # its memory between calls for a saving too small to see.
        if p is not None and p._spare == NULL and self._top.mem != NULL and \
                self._top.cap <= SPARE_SLOTS:
            p._spare, p._spare_cap = self._top.mem, self._top.cap
            self._top.mem = NULL
        PyMem_Free(self._top.mem)
        if self._callees != NULL:
            for d in range(self._ncallees):
                PyMem_Free(self._callees[d].mem)
            PyMem_Free(self._callees)

    cdef Activation* _invoke(self, Program callee, Py_ssize_t pc,
                             Py_ssize_t sp) except NULL:
        """Start a call of ``callee``: the running activation waits at its INVOKE
        ``pc`` with ``sp`` values on its stack (the inputs).  Returns the callee's
        activation, now the innermost."""
        cdef Activation* caller = self._innermost()
        cdef Activation* grown
        cdef Py_ssize_t n
        if self._depth + 1 >= _max_depth:
            raise _slow.too_deep(_max_depth)
        caller.pc = pc
        caller.sp = sp
        if self._depth == self._ncallees:
            n = 2 * self._ncallees + 4
            grown = <Activation*>PyMem_Calloc(n, sizeof(Activation))
            if grown == NULL:
                raise MemoryError()
            if self._ncallees:
                memcpy(grown, self._callees, self._ncallees * sizeof(Activation))
            PyMem_Free(self._callees)
            self._callees = grown
            self._ncallees = n
        _enter(&self._callees[self._depth], callee)
        Py_INCREF(<PyObject*>callee)
        self._callees[self._depth].program = <PyObject*>callee
        self._depth += 1
        return &self._callees[self._depth - 1]

    cdef void _unwind(self, Py_ssize_t sp) noexcept:
        """Release every activation, the innermost (with ``sp`` values on its stack)
        first; the calls in progress end."""
        cdef Activation* a
        cdef PyObject* p
        while self._depth:
            a = &self._callees[self._depth - 1]
            _release(a, sp)
            p = a.program
            a.program = NULL
            self._depth -= 1
            Py_XDECREF(p)
            sp = self._innermost().sp
        if self._top.mem != NULL:
            _release(&self._top, sp)

    cdef int _fail(self, Py_ssize_t sp) except -1:
        """An error unwinds the run: keep every activation's pc, then release it all."""
        self._failed = True
        self._unwound = self._depth
        self._unwind(sp)
        return 0

    @property
    def pc(self):
        """The next instruction of the outermost activation: a suspended WAIT (or the
        INVOKE whose callee is suspended), the failed instruction (or the INVOKE
        whose callee failed), or n."""
        return self._top.pc

    @property
    def pcs(self):
        """The pc of every activation, outermost first: each caller's is the INVOKE
        that runs the next one.  After an error, the activations it unwound."""
        cdef Py_ssize_t d
        cdef Py_ssize_t n = self._unwound if self._failed else self._depth
        return (self._top.pc,) + tuple(self._callees[d].pc for d in range(n))

    @property
    def depth(self):
        """How many activations the frame holds: 1, plus one per call in progress
        (while suspended, or unwound by the error that failed the frame)."""
        return (self._unwound if self._failed else self._depth) + 1

    @property
    def failed(self):
        """True once a run raised; the frame has released everything and cannot run."""
        return self._failed

    @property
    def finished(self):
        """True once the run reached the end (pc == n)."""
        return self._top.pc >= self._program._n

    @property
    def program(self):
        """The Program this frame runs."""
        return self._program

    def registers(self):
        """A copy of the outermost activation's object registers, None for an empty
        register (for debugging)."""
        cdef Py_ssize_t i
        return [None if self._top.regs[i] == NULL else <object>self._top.regs[i]
                for i in range(self._top.nregs)]

    def scalars(self):
        """A copy of the outermost activation's scalar registers, each as its kind
        reads it (for debugging)."""
        kinds = self._program._table.scalar_kinds
        cdef Py_ssize_t i
        cdef Scalar* S = self._top.scalars
        return [S[i].f if kinds[i] == "F" else (S[i].i != 0 if kinds[i] == "B" else S[i].i)
                for i in range(self._program._scalar_size)]

    def run(self, stack):
        """Run from ``self.pc`` until the end or until a WAIT meets a pending future.

        LOAD pops the graph's inputs off the end of ``stack``; STORE appends its
        outputs: inputs on the list before, outputs on it after (the seed's
        contract).  Running a finished frame does nothing.

        Args:
            stack: the caller's value list, changed in place.

        Returns:
            None when the run reached the end; otherwise the future a WAIT found
            not done.  The frame then keeps its pc at the WAIT: once the future is
            done, call ``run([])`` again to resume.

        Raises:
            Exception: whatever an instruction raised, the original object.  The
                frame's pc stays at the failing instruction, every register and
                stack value is released, and the frame is marked failed.
            RuntimeError: the frame failed earlier, or is already running (a
                callback called ``run`` on its own frame).
            TypeError: ``stack`` is not a list.
        """
        if type(stack) is not list or self._failed or self._running:
            _slow.refuse_run(stack, self._failed, self._running, self._top.pc)
        if pyjit_stack_exhausted():
            raise _slow.stack_used_up("the thread's C stack")
        Py_EnterRecursiveCall(" while running a pyjit graph")
        self._running = True
        try:
            return self._execute(<list>stack)
        finally:
            self._running = False
            Py_LeaveRecursiveCall()

    cdef int _load(self, PyObject** vs, Py_ssize_t k) except -1:
        """A callee's LOAD: move the ``k`` values on its caller's stack (all it
        holds) to ``vs[0:k]``."""
        cdef Activation* caller = &self._top if self._depth == 1 else \
            &self._callees[self._depth - 2]
        if caller.sp != k:  # a callee takes all its INVOKE pushed
            raise _slow.load_short(k, caller.sp) if caller.sp < k else \
                _slow.load_mismatch(k, caller.sp)
        caller.sp -= k
        return _move_values(caller.stack + caller.sp, k, vs)

    cdef int _store(self, PyObject** vs, Py_ssize_t k) except -1:
        """A callee's STORE: move ``vs[0:k]`` onto its caller's stack, which holds no
        more than its INVOKE takes."""
        cdef Activation* caller = &self._top if self._depth == 1 else \
            &self._callees[self._depth - 2]
        cdef Program p = <Program>caller.program
        if caller.sp + k > p._out_size[caller.pc]:
            raise _slow.store_too_many(k, p._out_size[caller.pc] - caller.sp)
        _move_values(vs, k, caller.stack + caller.sp)
        caller.sp += k
        return 0

    cdef object _execute(self, list caller):
        """Run the frame, profiled when a profile is on (read once: it may end while
        the run goes on)."""
        cdef object tallies = _profile
        if tallies is None:
            return _drive(self, caller, <PlainRun>NULL)
        return _timed_drive(self, caller, tallies)

    cdef int _return(self) except -1:
        """The innermost call ended (its stack is empty): release it, pop its
        outputs into the caller's INVOKE's registers, and go on after the INVOKE."""
        cdef Activation* a = &self._callees[self._depth - 1]
        cdef PyObject* p = a.program
        cdef Activation* caller
        cdef Program prog
        cdef const Instr* ins
        cdef const Word* words
        cdef Py_ssize_t nin, k, sp
        cdef PyObject* old
        self._depth -= 1
        _release(a, 0)   # what the callee left: its preloaded constants
        a.program = NULL
        Py_DECREF(p)
        caller = self._innermost()
        prog = <Program>caller.program
        ins = prog._code + caller.pc
        sp = caller.sp
        nin = ins.n_in
        if nin == BIG:
            nin = prog._in_size[caller.pc]
        k = ins.n_out
        if k == BIG:
            k = prog._out_size[caller.pc]
        if sp != k:
            self._fail(sp)
            raise _slow.bad_return(ins.arg, sp, k)
        words = ins.words + nin
        while k:  # the INVOKE's outputs, last first
            k -= 1
            sp -= 1
            old = caller.regs[words[k]]
            caller.regs[words[k]] = caller.stack[sp]
            Py_XDECREF(old)
        caller.sp = 0
        caller.pc += 1
        return 0


# ---- The dispatch loop, and the out-of-line helpers it calls ----
#
# In a file of its own, which pyjit._timed compiles too: see "Profiling" above.

include "_run_loop_expanded.pxi"  # _run_loop.pxi, its cases generated


# ---- The garbage collector sees the registers ----
#
# Cython's generated tp_traverse only knows the object fields (the program), not
# the C register array.  Without the two slots below, a cycle through a register
# (a suspended frame holding a future whose callback holds the frame) could
# never be collected, while the pure twin's list of registers would be.  The
# value stack needs neither: it is empty whenever the frame is not running, and
# a running frame is referenced from the C stack anyway.

cdef traverseproc _generated_traverse = (<PyTypeObject*>Frame).tp_traverse


cdef int _visit_activation(Activation* a, Py_ssize_t sp, visitproc visit,
                           void* arg) noexcept:
    cdef Py_ssize_t i
    cdef int r
    if a.mem == NULL:
        return 0
    for i in range(sp):
        if a.stack[i] != NULL:
            r = visit(a.stack[i], arg)
            if r:
                return r
    for i in range(a.nregs):
        if a.regs[i] != NULL:
            r = visit(a.regs[i], arg)
            if r:
                return r
    return 0


cdef int _frame_traverse(PyObject* o, visitproc visit, void* arg) noexcept:
    # Every activation: the calls' programs, the callers' stacks (their calls'
    # inputs or outputs, in flight) and all registers.
    cdef Frame f = <Frame>o
    cdef Py_ssize_t d
    cdef Activation* a
    cdef int r = _generated_traverse(o, visit, arg)
    if r == 0:
        r = _visit_activation(&f._top, f._top.sp if f._depth else 0, visit, arg)
    for d in range(f._depth):
        if r:
            break
        a = &f._callees[d]
        r = visit(a.program, arg)
        if r == 0:
            r = _visit_activation(a, a.sp if d + 1 < f._depth else 0, visit, arg)
    return r


cdef int _frame_clear(PyObject* o) noexcept:
    # Breaks a cycle by emptying the registers and ending the calls in progress;
    # the program stays, so every property of a frame the collector cleared still
    # works.  Running it again fails at the first read of a register (it reads as
    # empty), not before.
    (<Frame>o)._unwind(0)
    return 0


(<PyTypeObject*>Frame).tp_traverse = _frame_traverse
(<PyTypeObject*>Frame).tp_clear = _frame_clear
