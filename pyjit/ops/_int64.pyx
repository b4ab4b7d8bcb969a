"""TorchScript's int arithmetic in C, for the operator library.

A TorchScript int is an int64: ``9223372036854775807 + 1`` wraps around to
INT64_MIN, as C++ arithmetic does.  :mod:`pyjit.ops.scalars` defines these
operators in Python (the reference, and what a build without a compiler uses);
when this module was built it registers the functions below instead, so a CALL
of an int operator reaches C code with no Python frame, as ``operator.add``
would.  Which loop runs the graph does not matter: both call what the registry
holds.  Each function has exactly the semantics of its Python twin
(tests/test_int64.py checks them against each other): the C fast path covers two
exact ints that fit in 64 bits, anything else (bools, ints beyond int64 handed in
by a caller) takes the Python twin.
"""

cimport cython


cdef extern from "Python.h":
    long long PyLong_AsLongLongAndOverflow(object, int*) except? -1
    object PyLong_FromLongLong(long long)

cdef dict _twins = {}


cdef object _twin(str name):
    """The Python twin ``pyjit.ops.scalars.int_<name>``, for the slow path.

    Imported on first use, not at module import: pyjit.ops.scalars imports this
    module."""
    fn = _twins.get(name)
    if fn is None:
        from pyjit.ops import scalars
        fn = _twins[name] = getattr(scalars, "int_" + name)
    return fn


cdef inline bint _as_int64(object a, object b, long long* x, long long* y) except -1:
    """Both exact ints within int64: store them and return True."""
    cdef int overflow = 0
    if type(a) is not int or type(b) is not int:
        return False
    x[0] = PyLong_AsLongLongAndOverflow(a, &overflow)
    if overflow:
        return False
    y[0] = PyLong_AsLongLongAndOverflow(b, &overflow)
    return not overflow


# Wrapping arithmetic goes through unsigned long long, where overflow is defined
# (modulo 2**64) in C, then back to the two's-complement signed value.

@cython.binding(False)
def int_add(a, b):
    """``aten::add(int, int)``: ``a + b`` wrapped to int64."""
    cdef long long x, y
    if _as_int64(a, b, &x, &y):
        return PyLong_FromLongLong(<long long>(<unsigned long long>x + <unsigned long long>y))
    return _twin("add")(a, b)


@cython.binding(False)
def int_sub(a, b):
    """``aten::sub(int, int)``: ``a - b`` wrapped to int64."""
    cdef long long x, y
    if _as_int64(a, b, &x, &y):
        return PyLong_FromLongLong(<long long>(<unsigned long long>x - <unsigned long long>y))
    return _twin("sub")(a, b)


@cython.binding(False)
def int_mul(a, b):
    """``aten::mul(int, int)``: ``a * b`` wrapped to int64."""
    cdef long long x, y
    if _as_int64(a, b, &x, &y):
        return PyLong_FromLongLong(<long long>(<unsigned long long>x * <unsigned long long>y))
    return _twin("mul")(a, b)


@cython.binding(False)
@cython.cdivision(True)
def int_floordiv(a, b):
    """``aten::floordiv(int, int)``: Python's floor division, wrapped to int64
    (``INT64_MIN // -1`` is INT64_MIN); ``ZeroDivisionError("division by 0")``."""
    cdef long long x, y, q
    if _as_int64(a, b, &x, &y) and y != 0:
        if y == -1:
            # -x, where -INT64_MIN wraps to itself: C's x / -1 would trap.
            return PyLong_FromLongLong(<long long>(0ULL - <unsigned long long>x))
        q = x / y
        if q * y != x and (x < 0) != (y < 0):
            q -= 1
        return PyLong_FromLongLong(q)
    return _twin("floordiv")(a, b)


@cython.binding(False)
@cython.cdivision(True)
def int_remainder(a, b):
    """``aten::remainder(int, int)``: Python's ``%`` (the sign of ``b``);
    ``ZeroDivisionError("integer modulo by zero")``."""
    cdef long long x, y, r
    if _as_int64(a, b, &x, &y) and y != 0:
        if y == -1:
            return 0  # C's INT64_MIN % -1 would trap
        r = x % y
        if r != 0 and (r < 0) != (y < 0):
            r += y
        return PyLong_FromLongLong(r)
    return _twin("remainder")(a, b)
