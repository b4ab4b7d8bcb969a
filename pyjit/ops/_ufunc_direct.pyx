"""The pointwise family's direct path in C: see :mod:`pyjit.ops.ufunc_direct`.

:func:`direct` here has exactly the semantics of ``direct_python`` there, the
reference and what a build without a compiler uses (tests/test_ufunc_direct.py
checks them against each other); being C, the callable it returns adds no Python
frame to the ufunc call it makes, which on a 16-element array is most of what an
operator costs beyond numpy's own work.
"""

cimport cython
from numpy import ndarray as _ndarray


cdef extern from "Python.h":
    ctypedef struct PyObject
    int PyContextVar_Get(object var, PyObject* default_value, PyObject** value) except -1
    void Py_XDECREF(PyObject*)


cdef inline bint _member(object dt, tuple dtypes):
    # By identity: numpy's arrays share one dtype object per builtin type, and an
    # equal dtype that is another object only takes the generic path.
    for d in dtypes:
        if d is dt:
            return True
    return False


cdef inline bint _is_quiet(object var, object quiet) except -1:
    cdef PyObject* cur = NULL
    PyContextVar_Get(var, NULL, &cur)
    cdef bint same = cur == <PyObject*>quiet
    Py_XDECREF(cur)
    return same


def direct(ufunc, generic, same, with_number, var, quiet, bint into_first):
    """The operator computing ``generic(a, b)`` that calls ``ufunc(a, b)`` itself
    (``ufunc(a, b, out=a)`` if ``into_first``) when numpy's floating-point errors
    are ignored already (``var``, numpy's context variable, holds ``quiet``) and
    the operands are two arrays of one dtype in ``same`` (None: any dtype) or an
    array of a dtype in ``with_number`` and a Python int or float.  A 0-dim
    result comes back as a 0-dim array, as from ``ufunc(a, b, out=...)``;
    anything the ufunc refuses, and every other case, is ``generic``'s."""
    cdef tuple same_dtypes = same
    cdef tuple number_dtypes = with_number
    cdef bint any_same = same is None

    def op(a, b, alpha=None):
        # alpha: the constant 1 of an aten::add/sub node, resolved when the Code
        # was built (the registry chose this callable for that node).
        if type(a) is _ndarray:
            dt = a.dtype
            if type(b) is _ndarray:
                ok = b.dtype is dt and (any_same or _member(dt, same_dtypes))
            else:
                ok = (type(b) is float or type(b) is int) and _member(dt, number_dtypes)
            if ok and _is_quiet(var, quiet):
                try:
                    if into_first:
                        return ufunc(a, b, out=a)
                    r = ufunc(a, b)
                except Exception:
                    return generic(a, b)  # says it as torch does
                if type(r) is _ndarray:
                    return r
                return ufunc(a, b, out=...)  # 0-dim operands: a numpy scalar came back
        return generic(a, b)
    op.__name__ = op.__qualname__ = generic.__name__
    op.__doc__ = generic.__doc__
    return op
