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
  returned call's block is kept for the next call at that depth), and
  ``Frame._run`` runs one activation only, returning to a small driver at an
  ``INVOKE`` and at the end, so that nothing in the dispatch loop changes which
  registers it reads (the C compiler keeps them in machine registers) and a
  call costs no C stack;
* the profiled loop is a second instantiation of the same ``_run`` (a fused
  type whose two members select, at compile time, whether the timing is there),
  so the normal loop's C is what it would be without a profiler; the pure twin
  gets the same by compiling its ``_execute`` twice from one source;
* the file runs from cold to hot (Lua's ``lvm.c`` habit): the out-of-line helpers
  that can raise or call back into Python come first, the dispatch loop last.
  An exception from anywhere inside the loop lands in its one ``except`` clause,
  which releases the frame's values.  The rare paths' checks and messages are
  ``pyjit._slowpath``'s, shared with the pure loop.
"""

cimport cython
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

cdef extern from "Python.h":
    ctypedef struct PyObject
    ctypedef struct PyThreadState
    PyObject* Py_True_ "Py_True"
    PyObject* Py_False_ "Py_False"
    void Py_INCREF(PyObject*)
    void Py_DECREF(PyObject*)
    void Py_XDECREF(PyObject*)
    void* PyMem_Calloc(size_t nelem, size_t elsize)
    void PyMem_Free(void*)
    PyObject** PySequence_Fast_ITEMS(object)
    Py_ssize_t PyList_GET_SIZE(object)
    PyObject* PyList_GET_ITEM(object, Py_ssize_t)
    int PyList_SetSlice(object, Py_ssize_t, Py_ssize_t, PyObject*) except -1
    int PyList_Append(object, PyObject*) except -1
    # Declared `except NULL` / `except -1`: Cython turns a failure into a jump to
    # the enclosing `except` clause, while the hot path keeps the raw pointer.
    PyObject* PyObject_Vectorcall(PyObject*, PyObject**, size_t, PyObject*) except NULL
    size_t PY_VECTORCALL_ARGUMENTS_OFFSET
    int PyObject_IsTrue(PyObject*) except -1
    int PyErr_CheckSignals() except -1
    int Py_EnterRecursiveCall(const char*) except -1
    void Py_LeaveRecursiveCall()
    PyThreadState* PyEval_SaveThread()
    void PyEval_RestoreThread(PyThreadState*)
    bint PyLong_CheckExact(PyObject*)
    bint PyFloat_CheckExact(PyObject*)
    double PyFloat_AS_DOUBLE(PyObject*)
    long long PyLong_AsLongLongAndOverflow(PyObject*, int*)
    PyObject* PyLong_FromLongLong(long long) except NULL
    PyObject* PyFloat_FromDouble(double) except NULL
    ctypedef int (*visitproc)(PyObject*, void*)
    ctypedef int (*traverseproc)(PyObject*, visitproc, void*)
    ctypedef int (*inquiry)(PyObject*)
    ctypedef struct PyTypeObject:
        traverseproc tp_traverse
        inquiry tp_clear

cdef extern from *:
    """
    #ifndef PYJIT_DEBUG
    #define PYJIT_DEBUG 0
    #endif
    #include <time.h>
    /* Milliseconds on a clock that is cheap to read (the coarse monotonic clock
       where there is one): the loop reads it once every TICK backward jumps. */
    static long long pyjit_now_ms(void) {
    #ifdef CLOCK_MONOTONIC_COARSE
        struct timespec t;
        clock_gettime(CLOCK_MONOTONIC_COARSE, &t);
        return (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
    #elif defined(CLOCK_MONOTONIC)
        struct timespec t;
        clock_gettime(CLOCK_MONOTONIC, &t);
        return (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
    #else
        return (long long)clock() * 1000 / CLOCKS_PER_SEC;
    #endif
    }
    /* Nanoseconds on the clock time.perf_counter_ns reads (the profiler's). */
    static long long pyjit_now_ns(void) {
    #ifdef CLOCK_MONOTONIC
        struct timespec t;
        clock_gettime(CLOCK_MONOTONIC, &t);
        return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
    #else
        return (long long)clock() * (1000000000LL / CLOCKS_PER_SEC);
    #endif
    }
    """
    # Build with CFLAGS=-DPYJIT_DEBUG=1 to check the loop's stack invariants;
    # in the release build the checks are constant-folded away.
    bint PYJIT_DEBUG
    long long pyjit_now_ms() nogil
    long long pyjit_now_ns() nogil

cdef extern from *:
    """
    /* The high 64 bits of a 64 x 64-bit unsigned product. */
    static inline uint64_t pyjit_mulhi(uint64_t a, uint64_t b) {
    #ifdef __SIZEOF_INT128__
        return (uint64_t)(((unsigned __int128)a * b) >> 64);
    #else
        uint64_t a0 = (uint32_t)a, a1 = a >> 32, b0 = (uint32_t)b, b1 = b >> 32;
        uint64_t p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
        uint64_t mid = (p00 >> 32) + (uint32_t)p01 + (uint32_t)p10;
        return p11 + (p01 >> 32) + (p10 >> 32) + (mid >> 32);
    #endif
    }
    """
    uint64_t pyjit_mulhi(uint64_t a, uint64_t b) nogil

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

cdef extern from *:
    """
    /* How a CALL reaches its operator, decided once per callback when the
       Program is built.  A builtin whose only calling convention is
       METH_FASTCALL (operator.add, math.fmod, ...) is called through its C
       function, exactly as CPython's PRECALL_BUILTIN_FAST does; anything else
       with a vectorcall slot (Python functions, bound methods, numpy ufuncs,
       types) through that slot; the rest through PyObject_Vectorcall, which
       falls back to tp_call.  Either way the callee returns a new reference, or
       NULL with an exception set (pyjit_call_failed covers a callee that forgets
       to set one). */
    typedef PyObject *(*pyjit_fastcall)(PyObject *, PyObject *const *, Py_ssize_t);

    typedef struct {
        PyObject *callable;     /* borrowed: Program._callbacks owns it */
        pyjit_fastcall fast;    /* a METH_FASTCALL builtin's C function, or NULL */
        PyObject *self;         /* its self (the module, for operator.add) */
        vectorcallfunc vcall;   /* otherwise the callable's vectorcall slot, or NULL */
    } pyjit_callee;

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

    /* args[-1] must be writable: that is what lets a bound method prepend its
       self in place instead of copying the arguments. */
    static inline PyObject *pyjit_call(const pyjit_callee *c, PyObject **args,
                                       Py_ssize_t n) {
        if (c->fast)
            return c->fast(c->self, args, n);
        if (c->vcall)
            return c->vcall(c->callable, args,
                            (size_t)n | PY_VECTORCALL_ARGUMENTS_OFFSET, NULL);
        return PyObject_Vectorcall(c->callable, args,
                                   (size_t)n | PY_VECTORCALL_ARGUMENTS_OFFSET, NULL);
    }
    """
    ctypedef struct pyjit_callee:
        PyObject* callable
    void pyjit_resolve(PyObject* f, pyjit_callee* c)
    PyObject* pyjit_call(const pyjit_callee* c, PyObject** args, Py_ssize_t n) noexcept

    PyObject* PyErr_Occurred()

# Bound once: the Python function _tick calls (CPython runs signal handlers and
# hands the GIL over on entering it).
cdef object _checkpoint = _slow.checkpoint

# CALL specialised by shape when a Program is built (CPython's habit: a cheap
# guard, here none at all, plus an action; the generic CALL stays as it is).
# They live only in Program._code, never in a table: negative, so they cannot
# clash with an opcode.
cdef enum:
    OP_CALL1 = -1      # one input, one output:   neg, not, len, ufuncs...
    OP_CALL2 = -2      # two inputs, one output:  add, lt, getitem...
    # And so are FLOORDIV_I and REM_I by a constant power of two (n // 2, n % 2),
    # a shift and a mask in place of a division; arg: the power.
    OP_FLOORDIV_POW2 = -3
    OP_REM_POW2 = -4
    # By any other constant divisor d > 2: a multiplication by a precomputed
    # reciprocal where the dividend is non-negative, the division otherwise;
    # arg: the index of d's Divisor record.
    OP_FLOORDIV_K = -5
    OP_REM_K = -6
    # REM_POW2 followed by JEQ_I or JNE_I of its result against a constant 0, the
    # test of ``if n % 2 == 0``, when nothing jumps to the JEQ_I or JNE_I: one
    # dispatch for both (the jump's record stays, and is stepped over).
    OP_REM_POW2_JEQZ = -7
    OP_REM_POW2_JNEZ = -8

# Backward jumps between two looks at signals and at the GIL.  A scalar loop
# iteration takes a few nanoseconds, so this is tens of microseconds of it; a loop
# that calls Python takes longer per iteration, and CPython's own eval loop looks
# at every call it makes anyway.
cdef enum:
    TICK = 4096
    SIGNAL_MS = 5      # while running without the GIL: how often signals are seen

# How Frame._run leaves the activation it runs.
cdef enum:
    ENDED = 0          # it reached its end
    SUSPENDED = 1      # a WAIT met a pending future (given back to Frame._execute)
    CALLED = 2         # an INVOKE made its callee the innermost activation


cdef const int32_t* _ints(const int32_t[::1] a):
    # The array outlives the view: Program keeps it, read-only, for its lifetime.
    return &a[0] if a.shape[0] else NULL


cdef const uint8_t* _bytes(const uint8_t[::1] a):
    return &a[0] if a.shape[0] else NULL


cdef const int64_t* _int64s(const int64_t[::1] a):
    return &a[0] if a.shape[0] else NULL


# An operand as the loop reads it: an input is (register << 1) | move, an output
# its register.  Registers are int32, so both fit.  A scalar input's move bit is
# always 0 (the validator saw to it).
ctypedef uint32_t Word

# A scalar register: an int64 (an int, or a bool as 0/1) or a double, as the
# instruction reading it says.
ctypedef union Scalar:
    int64_t i
    double f

# The count that does not fit in an Instr's 16 bits: read the table's column.
cdef enum:
    BIG = 0xFFFF

# A constant divisor d > 2, not a power of two, as FLOORDIV_K and REM_K divide by
# it.  For 0 <= a < 2**63, floor(a / d) = (a * m) >> (63 + l) exactly, where
# l = ceil(log2 d) and m = ceil(2**(63 + l) / d) < 2**64 (Granlund and
# Montgomery, "Division by invariant integers using multiplication", 1994: the
# error m * d - 2**(63 + l) is below d <= 2**l, too small to reach the next
# multiple of d).  The loop takes the high word of the 128-bit product and
# shifts it right by l - 1: one multiplication in place of a division that costs
# tens of cycles.
cdef struct Divisor:
    int64_t d
    uint64_t m
    int shift                    # l - 1

# One instruction as the loop reads it: the seven columns of the table gathered
# into a 32-byte record that points straight at everything the instruction
# needs, its operands (inputs, then outputs, side by side in one stream) and, for
# a CALL, how to call its operator.  The loop then keeps little more than a
# pointer to the current record in the processor's registers.
cdef struct Instr:
    int32_t op
    int32_t arg                  # the table's operand
    const Word* words            # the n_in inputs, then the n_out output registers
    const pyjit_callee* callee   # CALL: how to call F[arg]
    uint16_t n_in                # BIG: see the in_size column
    uint16_t n_out               # BIG: see the out_size column
    uint8_t gil_free             # a backward jump whose loop touches no object


# no_gc_clear: the raw pointers below point into the tuples and arrays this
# object owns, so the collector must never empty them under a live Program (it
# breaks a cycle through a Program by clearing the cycle's other objects).
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

    cdef object _table        # the validated copies: keeps the arrays below alive
    cdef tuple _callbacks     # owns what F borrows
    cdef tuple _constants     # owns what K borrows
    cdef tuple _preload_values  # owns what _preload_objs borrows
    cdef object _future_type
    cdef Py_ssize_t _n, _register_size, _max_stack, _scalar_size, _n_preload
    cdef const int32_t* _op
    cdef const int32_t* _in_size
    cdef const int32_t* _out_size
    cdef const int32_t* _arg
    cdef const int64_t* _scalar_init
    cdef PyObject** _F
    cdef PyObject** _K
    cdef int32_t* _preload_regs
    cdef PyObject** _preload_objs
    cdef Instr* _code           # n records, built from the columns above
    cdef Word* _operands        # the operands of all instructions, in order
    cdef pyjit_callee* _callees # one per distinct callable of CALL instructions
    cdef Divisor* _divisors     # FLOORDIV_K, REM_K: by arg
    cdef list _linked           # INVOKE: F[arg]()'s Program by arg, once linked (or None)

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
        return (self._op[i] == OP_JUMPZ or self._op[i] == OP_JUMPNZ) and self._in_size[i] == 0


# ---- Out-of-line helpers: everything that can raise or call back into Python ----

cdef int _raise_empty(Py_ssize_t reg, Py_ssize_t pc) except -1:
    raise _slow.empty_register(reg, pc)


cdef int _call_input_empty(PyObject** vs, const Word* words, Py_ssize_t j,
                           Py_ssize_t pc) except -1:
    """A CALL found input ``j``'s register empty: release the inputs it had already
    moved out of their registers (``vs[0:j]``; the copied ones are borrowed),
    then raise."""
    cdef Py_ssize_t i
    cdef PyObject* v
    for i in range(j):
        if words[i] & 1:
            v = vs[i]
            vs[i] = NULL
            Py_DECREF(v)
    return _raise_empty(words[j] >> 1, pc)


cdef int _call_failed(Program prog, Py_ssize_t pc) except -1:
    """CALL's operator returned NULL: raise its exception (set already, normally)."""
    if PyErr_Occurred() == NULL:
        raise _slow.call_returned_null(<object>prog._F[prog._arg[pc]])
    return -1


cdef Py_ssize_t _unpack(PyObject* result, PyObject** dst, Py_ssize_t nout,
                        int arg) except -1:
    """Push the ``nout`` values of an operator's tuple or list result.

    Steals ``result`` (also when raising); returns ``nout``.
    """
    cdef object res = <object>result
    Py_DECREF(result)           # `res` holds it now, and drops it on any exit
    cdef Py_ssize_t j
    cdef PyObject** items
    res = _slow.unpack(res, nout, arg)
    items = PySequence_Fast_ITEMS(res)
    for j in range(nout):
        Py_INCREF(items[j])
        dst[j] = items[j]
    return nout


cdef Py_ssize_t _stackcall(Program prog, Py_ssize_t pc, PyObject** vs, Py_ssize_t k,
                           Py_ssize_t nout) except -1:
    """Run a STACKCALL: move the ``k`` inputs into a list, call, return the new pc.

    The inputs' stack slots are NULL once moved (the unwinder skips them); on
    success the ``nout`` outputs are at ``vs[0:nout]``.
    """
    cdef Py_ssize_t j
    cdef int arg = prog._arg[pc]
    lst = [<object>vs[j] for j in range(k)]
    for j in range(k):
        Py_DECREF(vs[j])
        vs[j] = NULL
    target = _slow.stackcall(<object>prog._F[arg], arg, lst, pc, prog._n,
                             prog._takes_condition_at, nout)
    for j in range(nout):
        vs[j] = PyList_GET_ITEM(lst, j)
        Py_INCREF(vs[j])
    return <Py_ssize_t>target


cdef int _wait(Program prog, PyObject** slot) except -1:
    """WAIT on the future in ``*slot``: 1 and its value in ``*slot`` if done, else 0."""
    cdef object fut = <object>slot[0]
    if not isinstance(fut, prog._future_type):
        raise _slow.not_a_future(prog._future_type, fut)
    if not fut.done():
        return 0
    cdef object value = fut.value()
    Py_INCREF(<PyObject*>value)
    slot[0] = <PyObject*>value
    Py_DECREF(<PyObject*>fut)   # the stack's reference; `fut` still holds its own
    return 1


cdef int _load(list caller, PyObject** vs, Py_ssize_t k) except -1:
    """LOAD: move the last ``k`` values of the caller's list to ``vs[0:k]``."""
    cdef Py_ssize_t size = PyList_GET_SIZE(caller), j
    if size < k:
        raise TypeError(f"LOAD takes {k} values but the stack holds {size}")
    for j in range(k):
        vs[j] = PyList_GET_ITEM(caller, size - k + j)
        Py_INCREF(vs[j])
    try:
        PyList_SetSlice(caller, size - k, size, NULL)
    except BaseException:
        for j in range(k):
            Py_DECREF(vs[j])
        raise
    return 0


cdef int _store(list caller, PyObject** vs, Py_ssize_t k) except -1:
    """STORE: append ``vs[0:k]`` to the caller's list, then release them."""
    cdef Py_ssize_t j
    for j in range(k):
        PyList_Append(caller, vs[j])
    while k:
        k -= 1
        Py_DECREF(vs[k])
    return 0


cdef int _unbox(int opc, PyObject* v, Scalar* out) except -1:
    """UNBOX's slow path: anything but an exact int, float or bool."""
    cdef object x
    if opc == OP_UNBOX_I:
        out.i = <int64_t>_slow.unbox_int(<object>v)
    elif opc == OP_UNBOX_F:
        out.f = <double>_slow.unbox_float(<object>v)
    else:
        x = _slow.unbox_bool(<object>v)
        out.i = 1 if x else 0
    return 0


cdef int _intrinsic_slow(Program prog, const Instr* ins, Scalar* S, int kinds) except -1:
    """An intrinsic off its common case: call its library operator on the boxed
    inputs, which raises its own error or returns the result (a float, ``kinds``
    1, or an int).  ``kinds`` 1 reads the inputs as doubles, 0 as int64."""
    cdef const Word* w = ins.words
    fn = <object>prog._F[ins.arg]
    if kinds == 1:
        args = [S[w[j] >> 1].f for j in range(ins.n_in)]
        S[w[ins.n_in]].f = fn(*args)
    else:
        args = [S[w[j] >> 1].i for j in range(ins.n_in)]
        S[w[ins.n_in]].i = fn(*args)
    return 0


cdef inline void _hold_gil(PyThreadState** released) noexcept:
    if released[0] != NULL:
        PyEval_RestoreThread(released[0])
        released[0] = NULL


cdef int _tick(PyThreadState** released, long long* last_signals, bint gil_free) except -1:
    """Every TICK backward jumps (and calls): let signals and other threads in.

    At the back edge of a loop that touches no Python object (``gil_free``), the
    loop gives the GIL up and goes on without it, in parallel with other
    threads, until an instruction needs Python and takes it back; running so, it
    looks at signals every SIGNAL_MS milliseconds.  Anywhere else it runs a
    little Python (:func:`pyjit._slowpath.checkpoint`), which is where CPython's
    own eval loop runs the signal handlers and hands the GIL to a thread that has
    asked for it: other threads get it exactly as they would from a Python loop.
    (Giving it up and taking it back at once would not do: each release wakes a
    waiting thread before it has waited long enough to ask for a switch, and so
    starves it.)
    """
    cdef long long now
    if released[0] == NULL:
        if gil_free:
            PyErr_CheckSignals()
            released[0] = PyEval_SaveThread()
        else:
            _checkpoint()
        return 0
    now = pyjit_now_ms()
    if now - last_signals[0] >= SIGNAL_MS:
        last_signals[0] = now
        PyEval_RestoreThread(released[0])
        released[0] = NULL
        _checkpoint()
        if gil_free:
            released[0] = PyEval_SaveThread()
    return 0


# One run of one Program inside a Frame: the block of memory that holds its value
# stack, object registers and scalar registers, and where it is.  A block never
# moves once allocated (a CALL's borrowed arguments and the collector's traversal
# point into it); the array of activations may, since nothing points into it.
cdef inline const Instr* _jump(const Instr* code, const Instr* ins, int* ticks) noexcept:
    """A jump taken: its target; a backward one counts towards the next _tick,
    which the loop calls when the count runs out (this stays small, so that the
    compiler inlines it at every jump of both instantiations of the loop)."""
    cdef const Instr* target = code + ins.arg
    if target <= ins:
        ticks[0] -= 1
    return target


cdef struct Activation:
    PyObject* program     # a strong reference (the outermost's: Frame._program's)
    PyObject** mem        # the block: 1 spare slot + max_stack, registers, scalars
    Py_ssize_t cap        # slots in mem; a callee's block is kept for the next call
    PyObject** stack      # mem + 1 (see _execute's CALL)
    PyObject** regs       # nregs slots, NULL = empty
    Scalar* scalars       # after the object registers, 8 bytes each too
    Py_ssize_t nregs
    Py_ssize_t pc         # the next instruction; a caller's is its INVOKE
    Py_ssize_t sp         # a caller's value-stack slots in use while its callee runs


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


# ---- Profiling: the same loop, instantiated twice ----
#
# Frame._run and Frame._drive take a fused `RunMode`: Cython compiles each twice,
# once for PlainRun, where every `if RunMode is TimedRun:` block is left out at
# compile time (the normal loop, exactly as fast as without a profiler), and
# once for TimedRun, which reads the clock at every instruction.  Frame._execute
# picks one per run.

cdef struct Untimed:
    char unused            # C has no empty struct; nothing reads it

# A profiled run's clock: when the instruction being timed started, and the
# tallies (set_profile's dict, held by _execute for the run).
cdef struct Timed:
    long long t
    PyObject* tallies

ctypedef Untimed* PlainRun
ctypedef Timed* TimedRun
ctypedef fused RunMode:
    PlainRun
    TimedRun

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
    _profile = _slow.check_profile(tallies)


def get_profile():
    """The tallies runs are profiled into (see ``set_profile``), or None."""
    return _profile


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


cdef int _enter(Activation* a, Program p) except -1:
    """Start an activation of ``p`` in ``a``: its block (the one ``a`` kept, when it
    is big enough), empty registers, the preloaded constants, pc 0.  The caller
    sets ``a.program``."""
    cdef Py_ssize_t need = p._max_stack + 1 + p._register_size + p._scalar_size
    cdef Py_ssize_t j
    cdef PyObject* v
    if a.cap < need:
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
    if p._scalar_size:
        memcpy(a.scalars, p._scalar_init, p._scalar_size * sizeof(Scalar))
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

    cdef Program _program
    cdef Activation _top        # the run's own activation
    cdef Activation* _callees   # the activations of calls: [0, _depth) in use,
    cdef Py_ssize_t _ncallees   # _ncallees allocated (blocks kept for reuse)
    cdef Py_ssize_t _depth      # calls in progress
    cdef Py_ssize_t _unwound    # after an error: how many calls it unwound (their pcs stay)
    cdef int _ticks             # backward jumps and calls until the next _tick
    cdef long long _last_signals
    cdef bint _failed
    cdef bint _running

    def __cinit__(self, program):
        if not isinstance(program, Program):
            raise TypeError(f"Frame() expects a Program, got {type(program).__name__}")
        self._program = <Program>program
        self._ticks = TICK
        _enter(&self._top, self._program)
        self._top.program = <PyObject*>self._program   # borrowed: the field holds it

    def __dealloc__(self):
        cdef Py_ssize_t d
        self._unwind(0)
        PyMem_Free(self._top.mem)
        if self._callees != NULL:
            for d in range(self._ncallees):
                PyMem_Free(self._callees[d].mem)
            PyMem_Free(self._callees)

    cdef inline Activation* _innermost(self) noexcept:
        return &self._callees[self._depth - 1] if self._depth else &self._top

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

    # ---- The dispatch loop: one switch, the typed tier first ----
    #
    # Every case that touches a Python object, or calls one, starts with
    # _hold_gil: after a _tick the loop may be running without the GIL, and
    # takes it back at the first instruction that needs it.  The typed tier's
    # scalar cases (pyjit.opcodes' needs_python is False) never need it, but
    # for an intrinsic's slow path, which takes it first.

    @cython.boundscheck(False)
    @cython.wraparound(False)
    @cython.cdivision(True)
    cdef int _run(self, list caller, PyObject** pending, RunMode mode) except -1:
        """Run the innermost activation until it ends (ENDED), a WAIT suspends it
        (SUSPENDED, a new reference to the future in ``*pending``) or an INVOKE
        starts a callee
        (CALLED: the callee is the innermost now).  Nothing here changes which
        activation runs, so the C compiler keeps the table, the registers and the
        stack in machine registers for the whole loop.  Profiled (``mode`` a
        TimedRun), it also counts and times every instruction into the Program's
        tally, as ``pyjit._pure`` does."""
        cdef Activation* act = self._innermost()
        cdef Program prog = <Program>act.program
        cdef const Instr* code = prog._code
        cdef const Instr* end = code + prog._n
        # The running instruction; its index (the pc) is `ins - code`, worked out
        # only where it is needed: jumps, errors, suspension.
        cdef const Instr* ins = code + act.pc
        cdef const Instr* target
        cdef PyObject** K = prog._K
        cdef PyObject** regs = act.regs
        cdef Scalar* S = act.scalars
        # vs[-1] is a spare slot of our own: that is what lets CALL pass
        # PY_VECTORCALL_ARGUMENTS_OFFSET, so a bound-method callee can prepend
        # `self` in place instead of copying the arguments.  Between
        # instructions the stack is empty, so MOVE borrows it as scratch space.
        cdef PyObject** vs = act.stack
        cdef Scalar* scratch = <Scalar*>vs
        cdef Py_ssize_t sp = 0, k, j, nin
        cdef Word w
        cdef const Word* words
        cdef int opc, truth, overflow
        cdef PyObject* v
        cdef PyObject* old
        cdef int64_t a, b, q
        cdef double x, y
        cdef Scalar t0, t1
        # Not NULL while the loop runs without the GIL (see _tick).
        cdef PyThreadState* released = NULL
        cdef int ticks = self._ticks
        cdef long long last_signals = self._last_signals
        # Profiled: the Program's tally, and the slot the clock runs for (at
        # first [n], the time since the previous activation stopped).
        cdef int64_t* counts = NULL
        cdef int64_t* times = NULL
        cdef int64_t* timing = NULL
        if RunMode is TimedRun:
            counts = _tally(<object>mode.tallies, prog, &times)
            timing = times + prog._n
        try:
            while ins < end:
                if RunMode is TimedRun:
                    # The tallies are written under the GIL only: a _tick that
                    # gave it up for a loop of scalar work gets it back here.
                    _hold_gil(&released)
                    _lap(mode, timing)
                    timing = times + (ins - code)
                    counts[ins - code] += 1
                opc = ins.op
                words = ins.words

                # ---- the typed tier: scalar registers, no stack, no objects ----
                if opc == OP_ADD_I:
                    S[words[2]].i = <int64_t>(<uint64_t>S[words[0] >> 1].i +
                                              <uint64_t>S[words[1] >> 1].i)
                elif opc == OP_SUB_I:
                    S[words[2]].i = <int64_t>(<uint64_t>S[words[0] >> 1].i -
                                              <uint64_t>S[words[1] >> 1].i)
                elif opc == OP_MUL_I:
                    S[words[2]].i = <int64_t>(<uint64_t>S[words[0] >> 1].i *
                                              <uint64_t>S[words[1] >> 1].i)
                elif opc == OP_FLOORDIV_I:
                    a = S[words[0] >> 1].i
                    b = S[words[1] >> 1].i
                    if b == 0:
                        _hold_gil(&released)
                        _intrinsic_slow(prog, ins, S, 0)
                    elif b == -1:
                        S[words[2]].i = <int64_t>(0 - <uint64_t>a)  # INT64_MIN wraps
                    else:
                        q = a / b
                        if q * b != a and (a < 0) != (b < 0):
                            q -= 1
                        S[words[2]].i = q
                elif opc == OP_REM_I:
                    a = S[words[0] >> 1].i
                    b = S[words[1] >> 1].i
                    if b == 0:
                        _hold_gil(&released)
                        _intrinsic_slow(prog, ins, S, 0)
                    elif b == -1:
                        S[words[2]].i = 0  # C's INT64_MIN % -1 would trap
                    else:
                        q = a % b
                        if q != 0 and (q < 0) != (b < 0):
                            q += b
                        S[words[2]].i = q
                elif opc == OP_FLOORDIV_POW2:
                    # floor division by 2**arg: an arithmetic shift rounds down
                    S[words[2]].i = S[words[0] >> 1].i >> ins.arg
                elif opc == OP_REM_POW2:
                    # Python's % by 2**arg, the sign of the (positive) divisor
                    S[words[2]].i = S[words[0] >> 1].i & ((<int64_t>1 << ins.arg) - 1)
                elif opc == OP_FLOORDIV_K or opc == OP_REM_K:
                    a = S[words[0] >> 1].i
                    b = prog._divisors[ins.arg].d
                    if a >= 0:
                        q = <int64_t>(pyjit_mulhi(<uint64_t>a, prog._divisors[ins.arg].m)
                                      >> prog._divisors[ins.arg].shift)
                    else:
                        q = a / b
                        if q * b != a:
                            q -= 1       # b > 0: round toward minus infinity
                    S[words[2]].i = q if opc == OP_FLOORDIV_K else a - q * b
                elif opc == OP_REM_POW2_JEQZ or opc == OP_REM_POW2_JNEZ:
                    a = S[words[0] >> 1].i & ((<int64_t>1 << ins.arg) - 1)
                    S[words[2]].i = a
                    ins += 1     # the jump's record, stepped over unless it is taken
                    if RunMode is TimedRun:
                        counts[ins - code] += 1  # its time is the REM's
                    if (a == 0) == (opc == OP_REM_POW2_JEQZ):
                        target = _jump(code, ins, &ticks)
                        if ticks == 0:
                            ticks = TICK
                            _tick(&released, &last_signals, ins.gil_free)
                        ins = target
                        continue
                elif opc == OP_NEG_I:
                    S[words[1]].i = <int64_t>(0 - <uint64_t>S[words[0] >> 1].i)
                elif opc == OP_ABS_I:
                    a = S[words[0] >> 1].i
                    S[words[1]].i = <int64_t>(0 - <uint64_t>a) if a < 0 else a
                elif opc == OP_MIN_I:
                    a = S[words[0] >> 1].i
                    b = S[words[1] >> 1].i
                    S[words[2]].i = b if b < a else a
                elif opc == OP_MAX_I:
                    a = S[words[0] >> 1].i
                    b = S[words[1] >> 1].i
                    S[words[2]].i = b if b > a else a
                elif opc == OP_AND_I or opc == OP_AND_B:
                    S[words[2]].i = S[words[0] >> 1].i & S[words[1] >> 1].i
                elif opc == OP_OR_I or opc == OP_OR_B:
                    S[words[2]].i = S[words[0] >> 1].i | S[words[1] >> 1].i
                elif opc == OP_XOR_I or opc == OP_XOR_B:
                    S[words[2]].i = S[words[0] >> 1].i ^ S[words[1] >> 1].i
                elif opc == OP_DIV_I:
                    # IEEE: x / 0 is +-inf, 0 / 0 nan, as the operator's result
                    S[words[2]].f = <double>S[words[0] >> 1].i / <double>S[words[1] >> 1].i
                elif opc == OP_LT_I:
                    S[words[2]].i = S[words[0] >> 1].i < S[words[1] >> 1].i
                elif opc == OP_LE_I:
                    S[words[2]].i = S[words[0] >> 1].i <= S[words[1] >> 1].i
                elif opc == OP_GT_I:
                    S[words[2]].i = S[words[0] >> 1].i > S[words[1] >> 1].i
                elif opc == OP_GE_I:
                    S[words[2]].i = S[words[0] >> 1].i >= S[words[1] >> 1].i
                elif opc == OP_EQ_I or opc == OP_EQ_B:
                    S[words[2]].i = S[words[0] >> 1].i == S[words[1] >> 1].i
                elif opc == OP_NE_I or opc == OP_NE_B:
                    S[words[2]].i = S[words[0] >> 1].i != S[words[1] >> 1].i
                elif opc == OP_ADD_F:
                    S[words[2]].f = S[words[0] >> 1].f + S[words[1] >> 1].f
                elif opc == OP_SUB_F:
                    S[words[2]].f = S[words[0] >> 1].f - S[words[1] >> 1].f
                elif opc == OP_MUL_F:
                    S[words[2]].f = S[words[0] >> 1].f * S[words[1] >> 1].f
                elif opc == OP_DIV_F:
                    S[words[2]].f = S[words[0] >> 1].f / S[words[1] >> 1].f
                elif opc == OP_FLOORDIV_F:
                    x = S[words[0] >> 1].f / S[words[1] >> 1].f
                    if isfinite(x):
                        y = floor(x)
                        x = y if y != 0 else copysign(0.0, x)
                    S[words[2]].f = x
                elif opc == OP_REM_F:
                    # Python's float %: fmod, then the sign of the divisor
                    y = S[words[1] >> 1].f
                    if y == 0:
                        x = 0.0 / y  # nan, as the operator returns
                    else:
                        x = fmod(S[words[0] >> 1].f, y)
                        if x != 0:
                            if (y < 0) != (x < 0):
                                x += y
                        else:
                            x = copysign(0.0, y)
                    S[words[2]].f = x
                elif opc == OP_POW_F:
                    x = S[words[0] >> 1].f
                    y = S[words[1] >> 1].f
                    if x > 0 and isfinite(x) and isfinite(y):
                        x = pow(x, y)
                    else:
                        x = -1  # not the common case
                    if x >= 0 and isfinite(x):
                        S[words[2]].f = x
                    else:
                        _hold_gil(&released)
                        _intrinsic_slow(prog, ins, S, 1)
                elif opc == OP_NEG_F:
                    S[words[1]].f = -S[words[0] >> 1].f
                elif opc == OP_ABS_F:
                    S[words[1]].f = fabs(S[words[0] >> 1].f)
                elif opc == OP_MIN_F:
                    x = S[words[0] >> 1].f
                    y = S[words[1] >> 1].f
                    S[words[2]].f = x if x < y else y
                elif opc == OP_MAX_F:
                    x = S[words[0] >> 1].f
                    y = S[words[1] >> 1].f
                    S[words[2]].f = x if x > y else y
                elif opc == OP_LT_F:
                    S[words[2]].i = S[words[0] >> 1].f < S[words[1] >> 1].f
                elif opc == OP_LE_F:
                    S[words[2]].i = S[words[0] >> 1].f <= S[words[1] >> 1].f
                elif opc == OP_GT_F:
                    S[words[2]].i = S[words[0] >> 1].f > S[words[1] >> 1].f
                elif opc == OP_GE_F:
                    S[words[2]].i = S[words[0] >> 1].f >= S[words[1] >> 1].f
                elif opc == OP_EQ_F:
                    S[words[2]].i = S[words[0] >> 1].f == S[words[1] >> 1].f
                elif opc == OP_NE_F:
                    S[words[2]].i = S[words[0] >> 1].f != S[words[1] >> 1].f
                elif opc == OP_NOT_B:
                    S[words[1]].i = not S[words[0] >> 1].i
                elif opc == OP_I2F or opc == OP_B2F:
                    S[words[1]].f = <double>S[words[0] >> 1].i
                elif opc == OP_F2I:
                    # C++'s cast: nan, inf and values outside int64 give INT64_MIN
                    x = S[words[0] >> 1].f
                    if x >= -9223372036854775808.0 and x < 9223372036854775808.0:
                        S[words[1]].i = <int64_t>x
                    else:
                        S[words[1]].i = <int64_t>(<uint64_t>1 << 63)
                elif opc == OP_B2I:
                    S[words[1]].i = S[words[0] >> 1].i
                elif opc == OP_I2B:
                    S[words[1]].i = S[words[0] >> 1].i != 0
                elif opc == OP_F2B:
                    S[words[1]].i = S[words[0] >> 1].f != 0
                elif opc == OP_MOVE:
                    nin = ins.n_in
                    if nin == 1:
                        S[words[1]] = S[words[0] >> 1]
                    elif nin == 2:
                        t0 = S[words[0] >> 1]
                        t1 = S[words[1] >> 1]
                        S[words[2]] = t0
                        S[words[3]] = t1
                    else:
                        if nin == BIG:
                            nin = prog._in_size[ins - code]
                        for j in range(nin):
                            scratch[j] = S[words[j] >> 1]
                        for j in range(nin):
                            S[words[nin + j]] = scratch[j]
                elif opc == OP_LOOP_BACK:
                    a = S[words[0] >> 1].i + 1
                    S[words[3]].i = a
                    if a < S[words[1] >> 1].i and S[words[2] >> 1].i:
                        # The tick reads the back edge's own gil_free: the
                        # target's is always 0 (only jumps have one).
                        ticks -= 1
                        if ticks == 0:
                            ticks = TICK
                            _tick(&released, &last_signals, ins.gil_free)
                        ins = code + ins.arg
                        continue
                elif opc == OP_LOOP_ENTER:
                    S[words[2]].i = 0
                    if not (0 < S[words[0] >> 1].i and S[words[1] >> 1].i):
                        ins = code + ins.arg
                        continue
                # Each conditional jump its own case: a second switch inside a
                # shared case would cost a second indirect branch per jump.
                elif opc == OP_JUMP:
                    target = _jump(code, ins, &ticks)
                    if ticks == 0:
                        ticks = TICK
                        _tick(&released, &last_signals, ins.gil_free)
                    ins = target
                    continue
                elif opc == OP_JT:
                    if S[words[0] >> 1].i != 0:
                        target = _jump(code, ins, &ticks)
                        if ticks == 0:
                            ticks = TICK
                            _tick(&released, &last_signals, ins.gil_free)
                        ins = target
                        continue
                elif opc == OP_JF:
                    if S[words[0] >> 1].i == 0:
                        target = _jump(code, ins, &ticks)
                        if ticks == 0:
                            ticks = TICK
                            _tick(&released, &last_signals, ins.gil_free)
                        ins = target
                        continue
                elif opc == OP_JLT_I:
                    if S[words[0] >> 1].i < S[words[1] >> 1].i:
                        target = _jump(code, ins, &ticks)
                        if ticks == 0:
                            ticks = TICK
                            _tick(&released, &last_signals, ins.gil_free)
                        ins = target
                        continue
                elif opc == OP_JLE_I:
                    if S[words[0] >> 1].i <= S[words[1] >> 1].i:
                        target = _jump(code, ins, &ticks)
                        if ticks == 0:
                            ticks = TICK
                            _tick(&released, &last_signals, ins.gil_free)
                        ins = target
                        continue
                elif opc == OP_JEQ_I:
                    if S[words[0] >> 1].i == S[words[1] >> 1].i:
                        target = _jump(code, ins, &ticks)
                        if ticks == 0:
                            ticks = TICK
                            _tick(&released, &last_signals, ins.gil_free)
                        ins = target
                        continue
                elif opc == OP_JNE_I:
                    if S[words[0] >> 1].i != S[words[1] >> 1].i:
                        target = _jump(code, ins, &ticks)
                        if ticks == 0:
                            ticks = TICK
                            _tick(&released, &last_signals, ins.gil_free)
                        ins = target
                        continue
                elif opc == OP_JLT_F:
                    if S[words[0] >> 1].f < S[words[1] >> 1].f:
                        target = _jump(code, ins, &ticks)
                        if ticks == 0:
                            ticks = TICK
                            _tick(&released, &last_signals, ins.gil_free)
                        ins = target
                        continue
                elif opc == OP_JLE_F:
                    if S[words[0] >> 1].f <= S[words[1] >> 1].f:
                        target = _jump(code, ins, &ticks)
                        if ticks == 0:
                            ticks = TICK
                            _tick(&released, &last_signals, ins.gil_free)
                        ins = target
                        continue
                elif opc == OP_JEQ_F:
                    if S[words[0] >> 1].f == S[words[1] >> 1].f:
                        target = _jump(code, ins, &ticks)
                        if ticks == 0:
                            ticks = TICK
                            _tick(&released, &last_signals, ins.gil_free)
                        ins = target
                        continue
                elif opc == OP_JNE_F:
                    if S[words[0] >> 1].f != S[words[1] >> 1].f:
                        target = _jump(code, ins, &ticks)
                        if ticks == 0:
                            ticks = TICK
                            _tick(&released, &last_signals, ins.gil_free)
                        ins = target
                        continue
                elif opc == OP_JNLT_F:
                    if not (S[words[0] >> 1].f < S[words[1] >> 1].f):
                        target = _jump(code, ins, &ticks)
                        if ticks == 0:
                            ticks = TICK
                            _tick(&released, &last_signals, ins.gil_free)
                        ins = target
                        continue
                elif opc == OP_JNLE_F:
                    if not (S[words[0] >> 1].f <= S[words[1] >> 1].f):
                        target = _jump(code, ins, &ticks)
                        if ticks == 0:
                            ticks = TICK
                            _tick(&released, &last_signals, ins.gil_free)
                        ins = target
                        continue
                elif opc == OP_BOX_I or opc == OP_BOX_F or opc == OP_BOX_B:
                    _hold_gil(&released)
                    if opc == OP_BOX_I:
                        v = PyLong_FromLongLong(S[words[0] >> 1].i)
                    elif opc == OP_BOX_F:
                        v = PyFloat_FromDouble(S[words[0] >> 1].f)
                    else:
                        v = Py_True_ if S[words[0] >> 1].i else Py_False_
                        Py_INCREF(v)
                    j = words[1]
                    old = regs[j]
                    regs[j] = v
                    Py_XDECREF(old)
                elif opc == OP_UNBOX_I or opc == OP_UNBOX_F or opc == OP_UNBOX_B:
                    _hold_gil(&released)
                    w = words[0]
                    v = regs[w >> 1]
                    if v == NULL:
                        _raise_empty(w >> 1, ins - code)
                    if opc == OP_UNBOX_I and PyLong_CheckExact(v):
                        overflow = 0
                        a = PyLong_AsLongLongAndOverflow(v, &overflow)
                        if overflow:
                            _unbox(opc, v, &S[words[1]])
                        else:
                            S[words[1]].i = a
                    elif opc == OP_UNBOX_F and PyFloat_CheckExact(v):
                        S[words[1]].f = PyFloat_AS_DOUBLE(v)
                    elif opc == OP_UNBOX_B and (v == Py_True_ or v == Py_False_):
                        S[words[1]].i = v == Py_True_
                    else:
                        _unbox(opc, v, &S[words[1]])
                    if w & 1:
                        regs[w >> 1] = NULL
                        Py_DECREF(v)

                # ---- the seed's CALL, specialised by shape ----
                # CALL's arguments are read in place: a copied input is borrowed
                # (its register holds it through the call, and nothing the callee
                # can reach writes registers), a moved one leaves its register
                # empty and is released after the call.  sp stays 0, so an error
                # never releases a borrowed argument.
                elif opc == OP_CALL2:
                    _hold_gil(&released)
                    w = words[0]
                    v = regs[w >> 1]
                    if v == NULL:
                        _call_input_empty(vs, words, 0, ins - code)
                    vs[0] = v
                    if w & 1:
                        regs[w >> 1] = NULL
                    w = words[1]
                    v = regs[w >> 1]
                    if v == NULL:
                        _call_input_empty(vs, words, 1, ins - code)
                    vs[1] = v
                    if w & 1:
                        regs[w >> 1] = NULL
                    v = pyjit_call(ins.callee, vs, 2)
                    if words[0] & 1:
                        Py_DECREF(vs[0])
                    if words[1] & 1:
                        Py_DECREF(vs[1])
                    if v == NULL:
                        _call_failed(prog, ins - code)
                    j = words[2]
                    old = regs[j]
                    regs[j] = v
                    Py_XDECREF(old)  # after the store: a finaliser sees a sane frame
                elif opc == OP_CALL1:
                    _hold_gil(&released)
                    w = words[0]
                    v = regs[w >> 1]
                    if v == NULL:
                        _call_input_empty(vs, words, 0, ins - code)
                    vs[0] = v
                    if w & 1:
                        regs[w >> 1] = NULL
                    v = pyjit_call(ins.callee, vs, 1)
                    if w & 1:
                        Py_DECREF(vs[0])
                    if v == NULL:
                        _call_failed(prog, ins - code)
                    j = words[1]
                    old = regs[j]
                    regs[j] = v
                    Py_XDECREF(old)
                elif opc == OP_CONST:
                    # No inputs, one output (the validator saw to it).
                    _hold_gil(&released)
                    v = K[ins.arg]
                    Py_INCREF(v)
                    j = words[0]
                    old = regs[j]
                    regs[j] = v
                    Py_XDECREF(old)

                # ---- the seed's protocol: push, act, pop ----
                else:
                    _hold_gil(&released)
                    nin = ins.n_in
                    if nin == BIG:
                        nin = prog._in_size[ins - code]
                    target = ins + 1
                    if opc == OP_CALL:
                        for j in range(nin):
                            w = words[j]
                            v = regs[w >> 1]
                            if v == NULL:
                                _call_input_empty(vs, words, j, ins - code)
                            vs[j] = v
                            if w & 1:
                                regs[w >> 1] = NULL
                        v = pyjit_call(ins.callee, vs, nin)
                        for j in range(nin):
                            if words[j] & 1:
                                Py_DECREF(vs[j])
                        if v == NULL:
                            _call_failed(prog, ins - code)
                        k = ins.n_out
                        if k == 1:
                            j = words[nin]
                            old = regs[j]
                            regs[j] = v
                            Py_XDECREF(old)
                            ins += 1
                            continue
                        if k == 0:
                            Py_DECREF(v)
                            ins += 1
                            continue
                        if k == BIG:
                            k = prog._out_size[ins - code]
                        sp = _unpack(v, vs, k, ins.arg)
                    else:
                        # Push the inputs; a moved input leaves its register empty.
                        for j in range(nin):
                            w = words[j]
                            v = regs[w >> 1]
                            if v == NULL:
                                _raise_empty(w >> 1, ins - code)
                            if w & 1:
                                regs[w >> 1] = NULL
                            else:
                                Py_INCREF(v)
                            vs[sp] = v
                            sp += 1
                        if PYJIT_DEBUG:
                            assert sp <= prog._max_stack, (ins - code, sp)

                        if opc == OP_ASSIGN:
                            pass  # the pops below do the parallel move; a condition stays
                        elif opc == OP_JUMPNZ or opc == OP_JUMPZ:
                            v = vs[sp - 1]
                            if v == Py_True_:
                                truth = 1
                            elif v == Py_False_:
                                truth = 0
                            else:
                                truth = PyObject_IsTrue(v)
                            sp -= 1
                            Py_DECREF(v)
                            if truth == (opc == OP_JUMPNZ):
                                target = code + ins.arg
                        elif opc == OP_DROP:
                            while sp:
                                sp -= 1
                                Py_DECREF(vs[sp])
                        elif opc == OP_JUMP:
                            target = code + ins.arg
                        elif opc == OP_STACKCALL:
                            k = prog._out_size[ins - code]
                            target = code + _stackcall(prog, ins - code, vs, sp, k)
                            sp = k
                        elif opc == OP_WAIT:
                            if not _wait(prog, vs):
                                # Suspend: nothing stays on the stack; a moved future
                                # goes back to its register, so the resumed WAIT
                                # finds it.
                                sp = 0
                                v = vs[0]
                                result = <object>v
                                if words[0] & 1:
                                    regs[words[0] >> 1] = v
                                else:
                                    Py_DECREF(v)
                                act.pc = ins - code
                                Py_INCREF(<PyObject*>result)
                                pending[0] = <PyObject*>result
                                if RunMode is TimedRun:  # the resume runs it again
                                    _lap(mode, timing)
                                    counts[ins - code] -= 1
                                self._ticks, self._last_signals = ticks, last_signals
                                return SUSPENDED
                        elif opc == OP_INVOKE:
                            # The inputs stay on this activation's stack for the
                            # callee's LOAD; the outputs are popped when it ends.
                            ticks -= 1  # a call counts as a backward jump
                            if ticks == 0:
                                ticks = TICK
                                _tick(&released, &last_signals, False)
                                _hold_gil(&released)
                            # Last: it may move the activations `act` points into.
                            self._invoke(prog._callee(ins.arg), ins - code, sp)
                            if RunMode is TimedRun:
                                _lap(mode, timing)
                            self._ticks, self._last_signals = ticks, last_signals
                            return CALLED
                        elif opc == OP_LOAD:
                            k = prog._out_size[ins - code]
                            if self._depth:
                                self._load(vs, k)
                            else:
                                _load(caller, vs, k)
                            sp = k
                        elif opc == OP_STORE:
                            if self._depth:
                                self._store(vs, sp)
                            else:
                                _store(caller, vs, sp)
                            sp = 0

                    # Pop the outputs into their registers, last first.
                    k = ins.n_out
                    if k == BIG:
                        k = prog._out_size[ins - code]
                    words += nin
                    while k:
                        k -= 1
                        sp -= 1
                        old = regs[words[k]]
                        regs[words[k]] = vs[sp]
                        Py_XDECREF(old)  # after the store: a finaliser sees a sane frame
                    if PYJIT_DEBUG:
                        assert sp == 0 or (sp == 1 and opc == OP_ASSIGN), (ins - code, sp)
                    if sp:
                        # A Loop's ASSIGN left its condition: the JUMPZ/JUMPNZ that
                        # takes it comes next (the validator saw to it), so run it
                        # here rather than through another dispatch.
                        ins += 1
                        if RunMode is TimedRun:
                            counts[ins - code] += 1  # its time is the ASSIGN's: one node's
                        v = vs[0]
                        if v == Py_True_:
                            truth = 1
                        elif v == Py_False_:
                            truth = 0
                        else:
                            truth = PyObject_IsTrue(v)
                        sp = 0
                        Py_DECREF(v)
                        target = ins + 1
                        if truth == (ins.op == OP_JUMPNZ):
                            target = code + ins.arg
                    if target <= ins:
                        ticks -= 1
                        if ticks == 0:
                            ticks = TICK
                            _tick(&released, &last_signals, ins.gil_free)
                    ins = target
                    continue
                ins += 1
        except:
            _hold_gil(&released)
            if RunMode is TimedRun:
                _lap(mode, timing)
            # Still the running activation, but read again: a failed INVOKE may
            # have moved the array it is in (the blocks never move).
            self._innermost().pc = ins - code
            self._fail(sp)
            raise
        _hold_gil(&released)
        if RunMode is TimedRun:
            _lap(mode, timing)
        act.pc = ins - code
        self._ticks, self._last_signals = ticks, last_signals
        return ENDED

    cdef object _execute(self, list caller):
        """Run the frame, profiled when a profile is on (read once: it may end while
        the run goes on)."""
        cdef object tallies = _profile
        cdef Timed clock
        if tallies is None:
            return self._drive[PlainRun](caller, NULL)
        clock.tallies = <PyObject*>tallies
        clock.t = pyjit_now_ns()
        return self._drive[TimedRun](caller, &clock)

    cdef object _drive(self, list caller, RunMode mode):
        """Run activations until the outermost ends or one suspends: the callee an
        INVOKE starts, then its caller again when it ends (popping the INVOKE's
        outputs), as the seed's runImpl would if it had frames."""
        cdef int how
        cdef PyObject* pending = NULL
        cdef object result
        while True:
            how = self._run[RunMode](caller, &pending, mode)
            if how == ENDED:
                if self._depth == 0:
                    return None
                self._return()
            elif how == SUSPENDED:
                result = <object>pending
                Py_DECREF(pending)   # `result` holds it now
                return result

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
