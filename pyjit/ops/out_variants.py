"""The ``out=`` overloads of torch's schema list, derived from the functional ones.

torch declares most operators twice: ``aten::cumsum(Tensor self, int dim, *,
ScalarType? dtype=None)`` and ``aten::cumsum.out(..., *, Tensor(a!) out)``,
which computes the same and writes it into ``out`` (torch resizes ``out`` when
its shape differs and refuses a result it cannot cast to ``out``'s dtype).  A
graph calls the second for ``torch.cumsum(x, 0, out=y)``.  So rather than each
family declaring both, this module, imported after every other family, reads
``torch_schemas.txt``: for each ``out=`` overload that nothing declared yet, it
finds the functional overload with the same arguments (names and types, the
writable outputs left out) and, where a family declared that one with a plain
function, declares the ``out=`` overload as that function followed by
:func:`pointwise.out_form`'s write into each output, in order.

An operator declared by a factory, or with the seed's stack protocol, gets no
derived form: its callable is chosen per node, when the Code is built.
"""

from __future__ import annotations

from typing import Callable, Dict, List, Optional, Set, Tuple  # noqa: F401

import numpy as np

from ..ir import torch_schemas, types as T
from ..ir.schema import REQUIRED, Schema
from ..registry import Registry, library as R
from .coverage import implementation
from .dtypes import code_of, meta_name
from .tensor_shapes import resize_as_

__all__ = ["out_outputs", "functional_of", "write_out", "derived", "FAMILY"]


def out_outputs(schema: Schema) -> List[int]:
    """The positions of the arguments an ``out=`` overload writes its results
    into: keyword-only tensors annotated as written (``Tensor(a!) out``)."""
    return [i for i, a in enumerate(schema.arguments)
            if a.kwarg_only and a.writes and isinstance(a.type, T.TensorType)]


def functional_of(schema: Schema, others: List[Schema]) -> Optional[Schema]:
    """The overload among ``others`` (of the same kind) that takes ``schema``'s
    arguments but its outputs, by name and type, and returns as many tensors;
    it may take more, keyword-only with defaults after them (a factory's
    ``dtype``, ``layout``, ``device``, ``pin_memory``, which ``out`` decides)."""
    outs = set(out_outputs(schema))
    want = [(a.name, a.type) for i, a in enumerate(schema.arguments) if i not in outs]
    for other in others:
        if other is schema or out_outputs(other):
            continue
        args = other.arguments
        if [(a.name, a.type) for a in args[:len(want)]] == want and \
                all(a.kwarg_only and a.default is not REQUIRED for a in args[len(want):]) and \
                len(other.returns) == len(outs) and \
                all(isinstance(r.type, T.TensorType) for r in other.returns):
            return other
    return None


def write_out(result, out):
    """torch's write of an operator's result into ``out``: the same dtype (a
    kernel that is not elementwise casts nothing), ``out`` resized to the
    result's shape where it differs (in place: numpy can for an array that owns
    its data), then the values copied."""
    if result.dtype != out.dtype:
        raise RuntimeError(f"Expected out tensor to have dtype {meta_name(result.dtype)}, but "
                           f"got {meta_name(out.dtype)} instead")
    if out.shape != result.shape:
        resize_as_(out, result)
    np.copyto(out, result)
    return out


def _writer(fn: Callable, functional: Schema, n_in: int, n_out: int) -> Callable:
    """``fn`` on the first ``n_in`` arguments (and the defaults of the
    functional's further ones), its results written into the ``n_out`` outputs
    after them by :func:`write_out`, which are returned, as torch returns them.
    A ``dtype`` argument left None is the first output's dtype, as torch's
    kernels take it (``torch.cumsum(x, 0, out=y)`` sums in ``y``'s dtype)."""
    names = [a.name for a in functional.arguments]
    extra = [a.default for a in functional.arguments[n_in:]]
    dtype_at = names.index("dtype") if "dtype" in names else None

    def op(*args):
        inputs = list(args[:n_in]) + extra
        outs = args[n_in:]
        if dtype_at is not None and inputs[dtype_at] is None:
            inputs[dtype_at] = code_of(outs[0].dtype)
        results = fn(*inputs)
        if n_out == 1:
            return write_out(results, outs[0])
        return tuple(write_out(r, o) for r, o in zip(results, outs))
    return op


def derived() -> List[Tuple[str, Callable, Tuple[T.Type, ...]]]:
    """``(kind, callable, input types)`` for every ``out=`` overload the library
    lacks and can derive, from the declarations made so far."""
    scratch = Registry()
    for kind, fn, options in R.declarations():
        scratch.register(kind, fn, **options)
    # Only the kinds the families declared are parsed, by the shared reader
    # (the archive's frontend parses the same ones again for nothing).
    by_kind = {kind: torch_schemas.schemas_of(kind) for kind in sorted(scratch.kinds())}
    out: List[Tuple[str, Callable, Tuple[T.Type, ...]]] = []
    made: Set[Tuple[str, Tuple[T.Type, ...]]] = set()
    for kind, schemas in by_kind.items():
        for s in schemas:
            outs = out_outputs(s)
            if not outs or outs != list(range(len(s.arguments) - len(outs), len(s.arguments))):
                continue   # outputs not last: no such overload in torch's list today
            functional = functional_of(s, schemas)
            if functional is None or implementation(scratch, s) is not None:
                continue
            op = implementation(scratch, functional)
            if op is None or op.fn is None or op.stack or op.varargs or op.types is None or \
                    len(op.types) != len(functional.arguments):
                continue
            n_in = len(s.arguments) - len(outs)
            types = op.types[:n_in] + tuple(s.arguments[i].type for i in outs)
            if (kind, types) in made:
                continue
            made.add((kind, types))
            out.append((kind, _writer(op.fn, functional, n_in, len(outs)), types))
    return out


for _kind, _fn, _types in derived():
    R.register(_kind, _fn, types=list(_types))

#: No operator of its own: the ``out=`` forms are their families' operators'.
FAMILY: List[str] = []
