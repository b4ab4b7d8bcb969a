"""The shared operator callables: the interpreter-only measurement.

pyjit as users run it (the ``pyjit``, ``pyjit-O0`` and ``pyjit-pure`` systems)
resolves every node in its own operator library, whose scalar operators an
optimised Code runs as intrinsic instructions.  The *interpreter-only*
measurement takes the library out: ``pyjit-shared`` and ``pyjit-pure-shared``
run the graph with a :class:`~pyjit.registry.Registry` holding only the plain
callables below, and so do the generated Python and the dictionary walker,
while "Python calling the ops" binds the same callables by name.  Those systems
then run identical operator code, and what differs between them is how each
runs a graph (issue 3's measurement: "the operator callback being
``operator.add``").  An intrinsic is never used for a callable that is not the
library's own, so the shared runs time every operator as a call.

The callables are the C functions themselves where Python has them
(``operator.add``, ``numpy.multiply``).  Where they differ from the library,
the workloads' values make no difference: the library's int ``add``, ``sub``,
``mul``, ``floordiv`` and ``remainder`` wrap around at 64 bits as C++ does,
and the workloads never leave int64 (fib is reduced modulo 1000003,
collatz(27) peaks at 9232, the chain ends at a few thousand); its tensor
arithmetic applies torch's type promotion, and the workloads' two arrays have
one dtype.  numpy has no ``alpha``, so the tensor ``aten::add`` and
``aten::sub`` are the two small Python functions :func:`add` and :func:`sub`.
"""

from __future__ import annotations

import operator
from types import MappingProxyType
from typing import Callable, Mapping

import numpy as np

from ..registry import Registry

__all__ = ["SCALAR_OPS", "TENSOR_OPS", "registry", "add", "sub"]

#: ``aten::<name>`` on ints and on floats for the scalar workloads, with the two
#: operators the trip-count desugaring of an unoptimised Code adds to every Loop
#: (``aten::lt`` and ``aten::__and__``, registered for bools).
SCALAR_OPS: Mapping[str, Callable] = MappingProxyType({
    "add": operator.add,
    "sub": operator.sub,
    "mul": operator.mul,
    "floordiv": operator.floordiv,
    "remainder": operator.mod,
    "eq": operator.eq,
    "ne": operator.ne,
    "lt": operator.lt,
    "gt": operator.gt,
})


def add(x: np.ndarray, y: np.ndarray, alpha: object) -> np.ndarray:
    """``aten::add(Tensor, Tensor, alpha)``: ``x + alpha * y`` with numpy's ufuncs."""
    return np.add(x, y) if alpha == 1 else np.add(x, np.multiply(y, alpha))


def sub(x: np.ndarray, y: np.ndarray, alpha: object) -> np.ndarray:
    """``aten::sub(Tensor, Tensor, alpha)``: ``x - alpha * y`` with numpy's ufuncs."""
    return np.subtract(x, y) if alpha == 1 else np.subtract(x, np.multiply(y, alpha))


#: ``aten::<name>`` on numpy arrays, taking the inputs torch's nodes have:
#: ``add`` and ``sub`` their ``alpha``, ``mul`` and ``div`` the ufuncs themselves.
TENSOR_OPS: Mapping[str, Callable] = MappingProxyType({
    "add": add,
    "sub": sub,
    "mul": np.multiply,
    "div": np.divide,
})

_ALPHA = ("add", "sub")


def registry() -> Registry:
    """A fresh registry holding exactly the shared operators."""
    r = Registry()
    for name, fn in SCALAR_OPS.items():
        r.register(f"aten::{name}", fn, types=["int", "int"])
        r.register(f"aten::{name}", fn, types=["float", "float"])
    r.register("aten::__and__", operator.and_, types=["bool", "bool"])
    for name, fn in TENSOR_OPS.items():
        types = ["Tensor", "Tensor", "Scalar"] if name in _ALPHA else ["Tensor", "Tensor"]
        r.register(f"aten::{name}", fn, types=types)
    return r
