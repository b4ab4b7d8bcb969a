# Declarations shared by pyjit._core, which defines them, and pyjit._timed,
# which compiles the profiled run loop in a C file of its own (see _run_loop.pxi).
#
# The C-level interface only: the types the loop reads (an instruction record,
# an activation, a Program's and a Frame's fields), the C helpers it calls and
# the enums it dispatches on.  Implementations live in _core.pyx.

cimport cython
from libc.stdint cimport int32_t, int64_t, uint8_t, uint16_t, uint32_t, uint64_t

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
    static inline long long pyjit_now_ns(void) {
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
    PyObject* pyjit_call(const pyjit_callee* c, PyObject** args, Py_ssize_t n) noexcept

    PyObject* PyErr_Occurred()


# The packed forms a Program's records may hold in place of its table's opcodes
# (CALL1, CALL2, FLOORDIV_POW2, ..., REM_POW2_JNEZ) are OpDefs like the others:
# their numbers are in _opcodes.pxi, their meaning in pyjit/opcodes.py.

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


@cython.final
cdef class Program:
    cdef object _table        # the validated copies: keeps the arrays below alive
    cdef tuple _callbacks     # owns what F borrows
    cdef tuple _constants     # owns what K borrows
    cdef tuple _preload_values  # owns what _preload_objs borrows
    cdef object _future_type
    cdef Py_ssize_t _n, _register_size, _max_stack, _scalar_size, _n_preload
    cdef Py_ssize_t _scalar_set   # scalar registers [_scalar_set:] start at 0
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
    # A Frame's block, released, that the next Frame of this Program takes instead
    # of allocating one (small blocks only: see Frame.__dealloc__), or NULL.
    cdef PyObject** _spare
    cdef Py_ssize_t _spare_cap

    cdef int _pack(self, t) except -1
    cdef void _fuse(self, const int32_t* ints, const int32_t* in_start,
                    const int32_t* out_start, const uint8_t* written) noexcept
    cdef Program _callee(self, int arg)


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


# A run's mode: the loop in _run_loop.pxi is compiled for one of these in each
# module that includes it (_core: PlainRun, _timed: TimedRun).

cdef struct Untimed:
    char unused            # C has no empty struct; nothing reads it

# A profiled run's clock: when the instruction being timed started, and the
# tallies (set_profile's dict, held by _execute for the run).
cdef struct Timed:
    long long t
    PyObject* tallies

ctypedef Untimed* PlainRun
ctypedef Timed* TimedRun

@cython.final
cdef class Frame:
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

    cdef inline Activation* _innermost(self) noexcept:
        return &self._callees[self._depth - 1] if self._depth else &self._top

    cdef Activation* _invoke(self, Program callee, Py_ssize_t pc,
                             Py_ssize_t sp) except NULL
    cdef void _unwind(self, Py_ssize_t sp) noexcept
    cdef int _fail(self, Py_ssize_t sp) except -1
    cdef int _load(self, PyObject** vs, Py_ssize_t k) except -1
    cdef int _store(self, PyObject** vs, Py_ssize_t k) except -1
    cdef object _execute(self, list caller)
    cdef int _return(self) except -1

# How _core hands a profiled run to pyjit._timed: its driver, given the frame, the
# caller's stack list and the tallies (see set_profile).  _timed installs it when
# it is imported, which set_profile does before a profile starts.
ctypedef object (*TimedDrive)(Frame frame, list caller, object tallies)
cdef int install_timed_loop(TimedDrive drive) except -1
