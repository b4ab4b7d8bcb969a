# The dispatch loop (_run, and _drive, which runs activations until the run ends
# or suspends) and the out-of-line helpers it calls.  One source, compiled twice,
# each time in a C file of its own: _core.pyx includes it for plain runs, and
# _timed.pyx for profiled ones -- as _run_loop_expanded.pxi, which setup.py
# makes from this file by replacing its `# @cases ...` and `# @jump` markers
# with the cases pyjit/opcodes.py declares (pyjit/_loop_cases.py says how).
# The includer cimports _core.pxd's declarations,
# imports numpy as np and pyjit._slowpath as _slow, includes _opcodes.pxi, and
# defines the fused type RunMode with one member, PlainRun or TimedRun; every
# `if RunMode is TimedRun:` block below is then in the timed C file only.  The
# timed one also defines _tally and _lap, which only those blocks call.

# Bound once: the Python function _tick calls (CPython runs signal handlers and
# hands the GIL over on entering it).
cdef object _checkpoint = _slow.checkpoint


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
    compiler inlines it at every jump of the loop, in _core and in _timed)."""
    cdef const Instr* target = code + ins.arg
    if target <= ins:
        ticks[0] -= 1
    return target


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
cdef int _run(Frame self, list caller, PyObject** pending, RunMode mode) except -1:
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
            # The instructions whose action is one line (OpDef.c), generated;
            # then those that need more.
            # @cases if scalar ADD_I-MUL_I
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
            # @cases elif scalar FLOORDIV_POW2-REM_POW2
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
                    # @jump
            # @cases elif scalar NEG_I-DIV_F
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
            # @cases elif scalar NEG_F-I2F
            elif opc == OP_F2I:
                # C++'s cast: nan, inf and values outside int64 give INT64_MIN
                x = S[words[0] >> 1].f
                if x >= -9223372036854775808.0 and x < 9223372036854775808.0:
                    S[words[1]].i = <int64_t>x
                else:
                    S[words[1]].i = <int64_t>(<uint64_t>1 << 63)
            # @cases elif scalar B2I-F2B
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
            # Each jump its own case, generated from its OpDef.c: a second
            # switch inside a shared case would cost a second indirect branch
            # per jump.
            # @cases elif jumps
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

cdef object _drive(Frame self, list caller, RunMode mode):
    """Run activations until the outermost ends or one suspends: the callee an
    INVOKE starts, then its caller again when it ends (popping the INVOKE's
    outputs), as the seed's runImpl would if it had frames."""
    cdef int how
    cdef PyObject* pending = NULL
    cdef object result
    while True:
        how = _run(self, caller, &pending, mode)
        if how == ENDED:
            if self._depth == 0:
                return None
            self._return()
        elif how == SUSPENDED:
            result = <object>pending
            Py_DECREF(pending)   # `result` holds it now
            return result
