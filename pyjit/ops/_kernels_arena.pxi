"""The run arena (``_kernels_arena.h``): numpy's data allocator for pyjit's runs,
which keeps the blocks of big arrays for the next arrays of their size.

:mod:`pyjit.ops.kernels` installs it in numpy for the time of each run of a
graph that computes on tensors (:func:`pyjit.fperrors.run_enter`), through
numpy's ``PyDataMem_SetHandler`` (NEP 49), which sets the policy of the
current context only: numpy's allocations elsewhere, and in other threads, keep
their handler.  An array remembers the handler that made its data, so one made
in a run is given back here whenever it is freed.
"""

from cpython.pycapsule cimport PyCapsule_New, PyCapsule_GetPointer
from cpython.ref cimport PyObject, Py_DECREF

cdef extern from "_kernels_arena.h" nogil:
    ctypedef struct pj_data_handler:
        pass
    pj_data_handler pj_arena_handler
    int pj_arena_set_base(const pj_data_handler* base)
    size_t pj_arena_cached
    size_t pj_arena_limit
    size_t pj_arena_reused
    size_t pj_arena_release()

ctypedef PyObject* (*_set_handler_t)(PyObject*)

#: numpy's PyDataMem_SetHandler: slot 304 of its C API table, and its default
#: handler, slot 306 (numpy 1.22 on; the table's slots never move).
cdef _set_handler_t _numpy_set_handler = NULL

#: The arena's handler capsule, as numpy's handlers are named.
ARENA_HANDLER = PyCapsule_New(<void*>&pj_arena_handler, "mem_handler", NULL)


def link_numpy_handler(api_capsule):
    """Find numpy's ``PyDataMem_SetHandler`` and its default handler in its C API
    table (the capsule ``numpy._core._multiarray_umath._ARRAY_API``): the arena
    takes its blocks from the default handler and gives them back to it."""
    global _numpy_set_handler
    cdef void** api = <void**>PyCapsule_GetPointer(api_capsule, NULL)
    cdef PyObject* default = (<PyObject**>api[306])[0]
    cdef void* base = PyCapsule_GetPointer(<object>default, "mem_handler")
    if pj_arena_set_base(<const pj_data_handler*>base) != 0:
        raise RuntimeError("numpy's default data handler is not of version 1")
    _numpy_set_handler = <_set_handler_t>api[304]


def set_data_handler(handler):
    """numpy's ``PyDataMem_SetHandler(handler)`` for this context: returns the
    handler it replaces (``None``: numpy's default)."""
    if _numpy_set_handler == NULL:
        raise RuntimeError("the run arena is not linked to numpy")
    cdef PyObject* old = _numpy_set_handler(<PyObject*>handler if handler is not None else NULL)
    if old == NULL:
        raise RuntimeError("numpy refused the data handler")
    result = <object>old
    Py_DECREF(result)   # <object> took a reference of its own
    return result


def arena_info():
    """``(cached bytes, limit, blocks reused)`` of the run arena."""
    return pj_arena_cached, pj_arena_limit, pj_arena_reused


def set_arena_limit(size_t limit):
    """Keep at most ``limit`` bytes of freed blocks (0: keep none)."""
    global pj_arena_limit
    pj_arena_limit = limit


def release_arena():
    """Give every kept block back to numpy's allocator; returns how many bytes."""
    return pj_arena_release()
