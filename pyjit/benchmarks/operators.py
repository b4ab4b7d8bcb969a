"""The operator callables every benchmarked system calls, and the registry that
gives them to pyjit.

The benchmarks measure how each system *runs* a graph, not what its operators
cost, so every system that calls operators calls the very same callables: pyjit
(through a :class:`~pyjit.registry.Registry` filled from the tables below), the
generated Python, the dictionary walker and the plain Python that calls them by
name.  They are the C functions themselves (``operator.add``, ``numpy.add``),
which is also what pyjit's library registers wherever Python already has
TorchScript's semantics.

One difference from the library: pyjit's ``aten::add(int, int)`` (and ``sub``,
``mul``, ``floordiv``, ``remainder``) wraps around at 64 bits as C++ does, so the
library registers its own functions for them (``pyjit.ops.scalars``, in C when
the core is built); here they are ``operator.add`` and friends.  The values in
these workloads never leave int64 (fib is reduced modulo 1000003, collatz(27)
peaks at 9232, the chain ends at a few thousand), so the results are the same,
and what is timed is the interpreter, as issue 3 defines its measurement ("the
operator callback being ``operator.add``").  Likewise the library's tensor
arithmetic applies torch's type promotion around numpy; here the float64 arrays
go straight to the ufuncs.
"""

from __future__ import annotations

import operator
from types import MappingProxyType
from typing import Callable, Mapping

import numpy as np

from ..registry import Registry

__all__ = ["INT_OPS", "TENSOR_OPS", "registry"]

#: ``aten::<name>(int, int)`` for the scalar workloads, and the two the trip-count
#: desugaring adds to every Loop (``aten::lt`` and ``aten::__and__``).
INT_OPS: Mapping[str, Callable] = MappingProxyType({
    "add": operator.add,
    "sub": operator.sub,
    "mul": operator.mul,
    "floordiv": operator.floordiv,
    "remainder": operator.mod,
    "eq": operator.eq,
    "ne": operator.ne,
    "lt": operator.lt,
})

#: ``aten::<name>(Tensor, Tensor)`` on numpy arrays: the ufuncs themselves.
TENSOR_OPS: Mapping[str, Callable] = MappingProxyType({
    "add": np.add,
    "sub": np.subtract,
    "mul": np.multiply,
    "div": np.divide,
})


def registry() -> Registry:
    """A fresh registry holding exactly the benchmark operators."""
    r = Registry()
    for name, fn in INT_OPS.items():
        r.register(f"aten::{name}", fn, types=["int", "int"])
    r.register("aten::__and__", operator.and_, types=["bool", "bool"])
    for name, fn in TENSOR_OPS.items():
        r.register(f"aten::{name}", fn, types=["Tensor", "Tensor"])
    return r
