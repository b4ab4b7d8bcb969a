"""The run loop, compiled: the fast twin of ``pyjit._pure``.

Same names, signatures, docstrings and semantics as ``pyjit._pure`` (read that one
first: it is the reference); one test suite runs against both.  What is different
here is only how it is made fast:

* the table is read through raw C pointers into private read-only arrays, which
  ``pyjit.validate`` proved well-formed once, so the loop does no bounds checks;
* registers and the value stack are C arrays of ``PyObject*`` with manual
  reference counting; a NULL register is empty;
* the columns are packed, once per Program, into one 32-byte record per
  instruction (opcode, operand, counts, a pointer to its operands and, for a
  CALL, one to how its operator is called), with each input's register and move
  flag folded into one word; the loop walks a pointer to the current record, so
  the C compiler can keep its few live values in machine registers;
* CALL passes its inputs straight from the registers to the operator's C entry
  point (no tuple, no extra reference for a copied input: the register keeps it
  alive), and the entry point is chosen once per callback when the Program is
  built, as CPython's specialising interpreter does for ``CALL``: a builtin with
  ``METH_FASTCALL`` (``operator.add``) is called through its C function, anything
  else through its own vectorcall slot, so no call goes through the generic
  ``PyObject_Vectorcall`` and its result checks;
* the common shapes have fast paths ahead of the generic one: CALL with one or
  two inputs and one output, CONST, and a Loop's ASSIGN, which runs the
  conditional jump that follows it (the validator guarantees it is there)
  without a second dispatch;
* the file runs from cold to hot (Lua's ``lvm.c`` habit): the out-of-line helpers
  that can raise or call back into Python come first, the dispatch loop, which
  holds only the fast paths, last.  An exception from anywhere inside the loop
  lands in its one ``except`` clause, which releases the frame's values.
"""

cimport cython
from libc.stdint cimport int32_t, uint8_t, uint16_t, uint32_t

from pyjit import opcodes as _op
from pyjit.validate import validate_table

from operator import index as _index

cdef extern from *:
    # Defined by setup.py: the Cython that generated this module.
    const char* PYJIT_CYTHON_VERSION

#: The version of Cython this module was compiled with (``pyjit info`` shows it).
CYTHON_VERSION = PYJIT_CYTHON_VERSION.decode("ascii")

cdef extern from "Python.h":
    ctypedef struct PyObject
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
    """
    # Build with CFLAGS=-DPYJIT_DEBUG=1 to check the loop's stack invariants;
    # in the release build the checks are constant-folded away.
    bint PYJIT_DEBUG

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

# The opcodes, bound once at import into C globals: the dispatch compares ints,
# never looks anything up.
cdef int OP_CALL = _op.CALL
cdef int OP_STACKCALL = _op.STACKCALL
cdef int OP_CONST = _op.CONST
cdef int OP_LOAD = _op.LOAD
cdef int OP_STORE = _op.STORE
cdef int OP_DROP = _op.DROP
cdef int OP_ASSIGN = _op.ASSIGN
cdef int OP_JUMP = _op.JUMP
cdef int OP_JUMPZ = _op.JUMPZ
cdef int OP_JUMPNZ = _op.JUMPNZ
cdef int OP_WAIT = _op.WAIT
# CALL specialised by shape when a Program is built (CPython's habit: a cheap
# guard, here none at all, plus an action; the generic CALL stays as it is).
# They live only in Program._code, never in a table: negative, so they cannot
# clash with an opcode.
cdef int OP_CALL1 = -1      # one input, one output:   neg, not, len, ufuncs...
cdef int OP_CALL2 = -2      # two inputs, one output:  add, lt, getitem...


cdef const int32_t* _ints(const int32_t[::1] a):
    # The array outlives the view: Program keeps it, read-only, for its lifetime.
    return &a[0] if a.shape[0] else NULL


cdef const uint8_t* _bytes(const uint8_t[::1] a):
    return &a[0] if a.shape[0] else NULL


# An operand as the loop reads it: an input is (register << 1) | move, an output
# its register.  Registers are int32, so both fit.
ctypedef uint32_t Word

# The count that does not fit in an Instr's 16 bits: read the table's column.
cdef enum:
    BIG = 0xFFFF

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
    instead of copied, so it is freed as early as possible.

    Args:
        op, in_start, in_size, flag_start, out_start, out_size, arg: 1-D numpy
            int32 arrays of length n, the instruction columns.
        int_data: 1-D numpy int32 array, the register-number arena.
        bool_data: 1-D numpy uint8 array, the free-flag arena (0 or 1).
        callbacks: tuple of callables ``F``, for CALL and STACKCALL.
        constants: tuple ``K``, for CONST.
        register_size: number of registers a Frame allocates.
        future_type: the class of futures WAIT accepts; it must have ``done()``
            and ``value()`` (which returns the result or raises the stored error).

    The arrays are copied (so later changes by the caller have no effect) and the
    whole table is validated once, by ``pyjit.validate.validate_table``.

    Raises:
        ValueError: the table is invalid; the message names the instruction.
    """

    cdef object _table        # the validated copies: keeps the arrays below alive
    cdef tuple _callbacks     # owns what F borrows
    cdef tuple _constants     # owns what K borrows
    cdef object _future_type
    cdef Py_ssize_t _n, _register_size, _max_stack
    cdef const int32_t* _op
    cdef const int32_t* _in_start
    cdef const int32_t* _in_size
    cdef const int32_t* _flag_start
    cdef const int32_t* _out_start
    cdef const int32_t* _out_size
    cdef const int32_t* _arg
    cdef const int32_t* _ints
    cdef const uint8_t* _flags
    cdef PyObject** _F
    cdef PyObject** _K
    cdef Instr* _code           # n records, built from the columns above
    cdef Word* _operands        # the operands of all instructions, in order
    cdef pyjit_callee* _callees # one per distinct callable of CALL instructions

    # __cinit__, not __init__: it runs exactly once, so a Program cannot be
    # re-initialised under a Frame that holds its pointers.
    def __cinit__(self, op, in_start, in_size, flag_start, out_start, out_size, arg,
                  int_data, bool_data, callbacks, constants, register_size, future_type):
        t = validate_table(op, in_start, in_size, flag_start, out_start, out_size, arg,
                           int_data, bool_data, callbacks, constants, register_size,
                           future_type)
        self._table = t
        self._callbacks = t.callbacks
        self._constants = t.constants
        self._future_type = t.future_type
        self._n = len(t.op)
        self._register_size = t.register_size
        self._max_stack = t.max_stack
        self._op = _ints(t.op)
        self._in_start = _ints(t.in_start)
        self._in_size = _ints(t.in_size)
        self._flag_start = _ints(t.flag_start)
        self._out_start = _ints(t.out_start)
        self._out_size = _ints(t.out_size)
        self._arg = _ints(t.arg)
        self._ints = _ints(t.int_data)
        self._flags = _bytes(t.bool_data)
        self._F = PySequence_Fast_ITEMS(self._callbacks)
        self._K = PySequence_Fast_ITEMS(self._constants)
        self._pack()

    def __dealloc__(self):
        PyMem_Free(self._code)
        PyMem_Free(self._operands)
        PyMem_Free(self._callees)

    cdef int _pack(self) except -1:
        """Build the per-instruction records and resolve how to call each operator.

        Callables are resolved once each, however many instructions call them
        (the code generator gives every node its own callback slot).
        """
        cdef Py_ssize_t i, j, total = 0, pos = 0
        cdef dict seen = {}
        for i in range(self._n):
            total += self._in_size[i] + self._out_size[i]
        # +1 each: a zero-size PyMem_Calloc may return NULL.
        self._code = <Instr*>PyMem_Calloc(self._n + 1, sizeof(Instr))
        self._operands = <Word*>PyMem_Calloc(total + 1, sizeof(Word))
        self._callees = <pyjit_callee*>PyMem_Calloc(len(self._callbacks) + 1,
                                                    sizeof(pyjit_callee))
        if self._code == NULL or self._operands == NULL or self._callees == NULL:
            raise MemoryError()
        for i in range(self._n):
            self._code[i].op = self._op[i]
            self._code[i].arg = self._arg[i]
            self._code[i].words = self._operands + pos
            self._code[i].n_in = <uint16_t>min(self._in_size[i], BIG)
            self._code[i].n_out = <uint16_t>min(self._out_size[i], BIG)
            for j in range(self._in_size[i]):
                self._operands[pos] = ((<Word>self._ints[self._in_start[i] + j]) << 1) | \
                    self._flags[self._flag_start[i] + j]
                pos += 1
            for j in range(self._out_size[i]):
                self._operands[pos] = <Word>self._ints[self._out_start[i] + j]
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
        return 0

    @property
    def n_instructions(self):
        """Number of instructions n; pc runs over [0, n], n meaning finished."""
        return self._n

    @property
    def register_size(self):
        """Number of registers in each Frame's register file."""
        return self._register_size

    @property
    def max_stack(self):
        """Value-stack slots a run needs (the deepest push of any instruction)."""
        return self._max_stack

    def __repr__(self):
        return (f"<Program n_instructions={self._n} register_size={self._register_size} "
                f"max_stack={self._max_stack}>")

    cdef bint _takes_condition(self, Py_ssize_t i) noexcept:
        # A JUMPZ/JUMPNZ without inputs pops the condition its ASSIGN left.
        return (self._op[i] == OP_JUMPZ or self._op[i] == OP_JUMPNZ) and self._in_size[i] == 0


# ---- Out-of-line helpers: everything that can raise or call back into Python ----

cdef int _raise_empty(Py_ssize_t reg, Py_ssize_t pc) except -1:
    raise RuntimeError(f"register {reg} read at pc {pc} is empty")


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
        raise SystemError(f"{<object>prog._F[prog._arg[pc]]!r} returned NULL without "
                          f"setting an exception")
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
    if not isinstance(res, (tuple, list)):
        raise TypeError(f"operator F[{arg}] returned {type(res).__name__}, "
                        f"expected a tuple or list of {nout} values")
    if type(res) is not tuple and type(res) is not list:
        # A subclass's __len__ may not count what it holds: read it once, as a
        # tuple, so the items copied below are exactly len(res).
        res = tuple(res)
    if len(res) != nout:
        raise TypeError(f"operator F[{arg}] returned {len(res)} values, expected {nout}")
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
    try:
        off = (<object>prog._F[arg])(lst)
        # A Python int until range-checked: any offset is a RuntimeError, not an
        # OverflowError, as in the pure twin.
        target = pc + 1 + (0 if off is None else _index(off))
        if not 0 <= target <= prog._n:
            raise RuntimeError(f"STACKCALL F[{arg}] jumped to {target}, outside [0, {prog._n}]")
        if target < prog._n and prog._takes_condition(target):
            raise RuntimeError(f"STACKCALL F[{arg}] jumped to {target}, a conditional jump "
                               f"that expects a condition on the stack")
        if len(lst) != nout:
            raise TypeError(f"STACKCALL F[{arg}] left {len(lst)} values, expected {nout}")
    except BaseException:
        lst.clear()  # the callback may keep the list: its values are ours to free
        raise
    for j in range(nout):
        vs[j] = PyList_GET_ITEM(lst, j)
        Py_INCREF(vs[j])
    return <Py_ssize_t>target


cdef int _wait(Program prog, PyObject** slot) except -1:
    """WAIT on the future in ``*slot``: 1 and its value in ``*slot`` if done, else 0."""
    cdef object fut = <object>slot[0]
    if not isinstance(fut, prog._future_type):
        raise TypeError(f"WAIT expects a {prog._future_type.__name__}, "
                        f"got {type(fut).__name__}")
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


@cython.final
cdef class Frame:
    """The register file and value stack of one run of a Program.

    A Frame runs once, from pc 0 to the end; it may suspend at a WAIT and be
    resumed any number of times.  After an error it is unusable.  Frames are
    cheap: make one per run.  A Frame is not meant to be shared between threads
    (its Program is).

    Args:
        program: the Program to run.
    """

    cdef Program _program
    cdef Py_ssize_t _nregs      # a copy: __dealloc__ and the GC need no Program
    cdef PyObject** _regs       # _nregs slots, NULL = empty
    cdef PyObject** _stack_mem  # 1 + max_stack + nregs slots: the block below
    cdef PyObject** _stack      # _stack_mem + 1 (see _execute's CALL)
    cdef Py_ssize_t _pc
    cdef bint _failed
    cdef bint _running

    def __cinit__(self, program):
        if not isinstance(program, Program):
            raise TypeError(f"Frame() expects a Program, got {type(program).__name__}")
        self._program = <Program>program
        self._nregs = self._program._register_size
        # One block: the value stack (with its spare slot in front), then the
        # registers.  Never empty, so calloc cannot return NULL for size 0.
        self._stack_mem = <PyObject**>PyMem_Calloc(
            self._program._max_stack + 1 + self._nregs, sizeof(PyObject*))
        if self._stack_mem == NULL:
            raise MemoryError()
        self._stack = self._stack_mem + 1
        self._regs = self._stack + self._program._max_stack

    def __dealloc__(self):
        if self._stack_mem != NULL:
            self._release(0)
        PyMem_Free(self._stack_mem)

    @property
    def pc(self):
        """The next instruction to run: a suspended WAIT, the failed instruction, or n."""
        return self._pc

    @property
    def failed(self):
        """True once a run raised; the frame has released everything and cannot run."""
        return self._failed

    @property
    def finished(self):
        """True once the run reached the end (pc == n)."""
        return self._pc >= self._program._n

    @property
    def program(self):
        """The Program this frame runs."""
        return self._program

    def registers(self):
        """A copy of the register file, None for an empty register (for debugging)."""
        cdef Py_ssize_t i
        return [None if self._regs[i] == NULL else <object>self._regs[i]
                for i in range(self._nregs)]

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
        if type(stack) is not list:
            raise TypeError(f"run() expects a list, got {type(stack).__name__}")
        if self._failed:
            raise RuntimeError(f"frame is unusable after an error (it failed at pc {self._pc})")
        if self._running:
            raise RuntimeError("frame is already running (run() called from one of its callbacks)")
        self._running = True
        try:
            return self._execute(<list>stack)
        finally:
            self._running = False

    cdef void _release(self, Py_ssize_t sp) noexcept:
        """Release the value stack below ``sp`` (top first), then every register.

        Each slot is cleared before its value is released, so code run by a
        finaliser never sees a dangling pointer.
        """
        cdef PyObject* v
        cdef PyObject** regs = self._regs    # never reallocated: safe across finalisers
        cdef Py_ssize_t i = self._nregs
        while sp:
            sp -= 1
            v = self._stack[sp]
            self._stack[sp] = NULL
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

    # ---- The dispatch loop: fast paths only, ordered by how often they run ----

    @cython.boundscheck(False)
    @cython.wraparound(False)
    @cython.cdivision(True)
    cdef object _execute(self, list caller):
        cdef Program prog = self._program
        cdef const Instr* code = prog._code
        cdef const Instr* end = code + prog._n
        # The running instruction; its index (the pc) is `ins - code`, worked out
        # only where it is needed: jumps, errors, suspension.
        cdef const Instr* ins = code + self._pc
        cdef const Instr* target
        cdef PyObject** K = prog._K
        cdef PyObject** regs = self._regs
        # vs[-1] is a spare slot of our own: that is what lets CALL pass
        # PY_VECTORCALL_ARGUMENTS_OFFSET, so a bound-method callee can prepend
        # `self` in place instead of copying the arguments.
        cdef PyObject** vs = self._stack
        cdef Py_ssize_t sp = 0, k, j, nin
        cdef Word w
        cdef const Word* words
        cdef int opc, truth
        cdef PyObject* v
        cdef PyObject* old
        try:
            while ins < end:
                opc = ins.op
                words = ins.words

                # CALL's arguments are read in place: a copied input is borrowed
                # (its register holds it through the call, and nothing the callee
                # can reach writes registers), a moved one leaves its register
                # empty and is released after the call.  sp stays 0, so an error
                # never releases a borrowed argument.
                if opc == OP_CALL2:
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
                    ins += 1
                    continue
                if opc == OP_CALL1:
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
                    ins += 1
                    continue
                if opc == OP_CONST:
                    # No inputs, one output (the validator saw to it).
                    v = K[ins.arg]
                    Py_INCREF(v)
                    j = words[0]
                    old = regs[j]
                    regs[j] = v
                    Py_XDECREF(old)
                    ins += 1
                    continue

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
                            if target <= ins:
                                PyErr_CheckSignals()
                    elif opc == OP_DROP:
                        while sp:
                            sp -= 1
                            Py_DECREF(vs[sp])
                    elif opc == OP_JUMP:
                        target = code + ins.arg
                        if target <= ins:
                            PyErr_CheckSignals()
                    elif opc == OP_STACKCALL:
                        k = prog._out_size[ins - code]
                        target = code + _stackcall(prog, ins - code, vs, sp, k)
                        sp = k
                        if target <= ins:
                            PyErr_CheckSignals()
                    elif opc == OP_WAIT:
                        if not _wait(prog, vs):
                            # Suspend: nothing stays on the stack; a moved future goes
                            # back to its register, so the resumed WAIT finds it.
                            sp = 0
                            v = vs[0]
                            result = <object>v
                            if words[0] & 1:
                                regs[words[0] >> 1] = v
                            else:
                                Py_DECREF(v)
                            self._pc = ins - code
                            return result
                    elif opc == OP_LOAD:
                        k = prog._out_size[ins - code]
                        _load(caller, vs, k)
                        sp = k
                    elif opc == OP_STORE:
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
                            PyErr_CheckSignals()
                ins = target
        except:
            self._pc = ins - code
            self._failed = True
            self._release(sp)
            raise
        self._pc = ins - code
        return None


# ---- The garbage collector sees the registers ----
#
# Cython's generated tp_traverse only knows the object fields (the program), not
# the C register array.  Without the two slots below, a cycle through a register
# (a suspended frame holding a future whose callback holds the frame) could
# never be collected, while the pure twin's list of registers would be.  The
# value stack needs neither: it is empty whenever the frame is not running, and
# a running frame is referenced from the C stack anyway.

cdef traverseproc _generated_traverse = (<PyTypeObject*>Frame).tp_traverse


cdef int _frame_traverse(PyObject* o, visitproc visit, void* arg) noexcept:
    cdef PyObject** regs = (<Frame>o)._regs
    cdef Py_ssize_t i
    cdef int r = _generated_traverse(o, visit, arg)
    if r == 0 and regs != NULL:
        for i in range((<Frame>o)._nregs):
            if regs[i] != NULL:
                r = visit(regs[i], arg)
                if r:
                    break
    return r


cdef int _frame_clear(PyObject* o) noexcept:
    # Breaks a cycle by emptying the registers; the program stays, so every
    # property of a frame the collector cleared still works.  Running it again
    # fails at the first read of a register (it reads as empty), not before.
    (<Frame>o)._release(0)
    return 0


(<PyTypeObject*>Frame).tp_traverse = _frame_traverse
(<PyTypeObject*>Frame).tp_clear = _frame_clear

