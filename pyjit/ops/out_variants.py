"""The ``out=`` overloads of torch's schema list, derived from the functional ones.

torch declares most operators twice: ``aten::cumsum(Tensor self, int dim, *,
ScalarType? dtype=None)`` and ``aten::cumsum.out(..., *, Tensor(a!) out)``,
which computes the same and writes it into ``out`` (torch resizes ``out`` when
its shape differs and refuses a result it cannot cast to ``out``'s dtype).  A
graph calls the second for ``torch.cumsum(x, 0, out=y)``.  So rather than each
family declaring both, this module declares a deriver (:meth:`Library.derive`):
the first time a registry looks a kind up, it reads the kind's schemas from
torch's list (``ir/torch_schemas``) and, for each ``out=`` overload that nothing
declared, finds the functional overload with the same arguments (names and
types, the writable outputs left out) and, where a family declared that one
with a plain function, registers the ``out=`` overload as that function
followed by a write into each output, in order.  Kind by kind, because a
program names a few dozen kinds: deriving all thousand when the library loaded
was a third of a loaded model's first call.

An operator declared by a factory, or with the seed's stack protocol, gets no
derived form: its callable is chosen per node, when the Code is built.
"""

from __future__ import annotations

from typing import Callable, Dict, List, Optional, Set, Tuple  # noqa: F401

import numpy as np

from ..ir import torch_schemas, types as T
from ..ir.schema import REQUIRED, Schema
from ..registry import Registry, _accepts, library as R
from .coverage import implementation
from .dtypes import code_of, meta_name
from .indexing import copy_
from .tensor_shapes import resize_as_

__all__ = ["out_outputs", "functional_of", "write_out", "write_list_out", "derived"]


def _is_output(a) -> bool:
    return a.kwarg_only and a.writes and (
        isinstance(a.type, T.TensorType) or
        (isinstance(a.type, T.ListType) and isinstance(a.type.elem, T.TensorType)))


def out_outputs(schema: Schema) -> List[int]:
    """The positions of the arguments an ``out=`` overload writes its results
    into: keyword-only tensors annotated as written (``Tensor(a!) out``), or a
    list of them (``Tensor(a!)[] out``, for an operator returning ``Tensor[]``)."""
    return [i for i, a in enumerate(schema.arguments) if _is_output(a)]


def functional_of(schema: Schema, others: List[Schema]) -> Optional[Schema]:
    """The overload among ``others`` (of the same kind) that takes ``schema``'s
    arguments but its outputs, by name and type and in the same order, and
    returns as many tensors (a ``Tensor[]`` for a list output).  It may take
    more, keyword-only with defaults: a factory's ``dtype``, ``layout``,
    ``device``, ``pin_memory``, which ``out`` decides (``zeros_like.out`` has
    ``memory_format`` and ``out`` only)."""
    outs = set(out_outputs(schema))
    want = [(a.name, a.type) for i, a in enumerate(schema.arguments) if i not in outs]
    returns = [schema.arguments[i].type for i in sorted(outs)]
    for other in others:
        if other is schema or out_outputs(other):
            continue
        taken = [(a.name, a.type) for a in other.arguments if (a.name, a.type) in want]
        rest = [a for a in other.arguments if (a.name, a.type) not in want]
        if taken == want and all(a.kwarg_only and a.default is not REQUIRED for a in rest) and \
                [r.type for r in other.returns] == returns:
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


#: How torch refuses a list ``out=`` of the wrong length, by overload (its
#: kernels each word it; the generated ones fail an internal assert).
LIST_COUNT_MESSAGES: Dict[str, str] = {
    "aten::split_copy.Tensor_out": "split_copy_Tensor_out() expected an out= argument of size "
                                   "{want}, got size {got}",
    "aten::split_with_sizes_copy.out": "split_with_sizes_copy_out expected an out= argument of "
                                       "size {want}, got size {got}",
    "aten::unbind_copy.int_out": "unbind_copy_int_out expected an out= argument of size {want}, "
                                 "got size {got}",
}
_GENERATED_COUNT = "dst.size() == src.size() INTERNAL ASSERT FAILED ({got} out= tensors for " \
                   "{want} results)"

#: List ``out=`` overloads whose kernel copies each piece in (``copy_``: cast,
#: broadcast, never resized) rather than writing it as :func:`write_out` does.
COPIED_IN = frozenset({"aten::split_copy.Tensor_out"})


def write_list_out(results, outs, schema: Schema):
    """A ``Tensor[]`` result written into the list ``out``, piece by piece;
    returns None (such an overload returns ``()``)."""
    if len(results) != len(outs):
        message = LIST_COUNT_MESSAGES.get(schema.name, _GENERATED_COUNT)
        raise RuntimeError(message.format(want=len(results), got=len(outs)))
    for r, o in zip(results, outs):
        if schema.name in COPIED_IN:
            copy_(o, r)
        else:
            write_out(r, o)
    return None


def _writer(fn: Callable, functional: Schema, schema: Schema) -> Callable:
    """``fn`` on the ``out=`` overload's inputs, each passed where the functional
    overload takes the argument of its name (the functional's others at their
    defaults), its results written into the outputs after them by
    :func:`write_out` (or :func:`write_list_out`), which are returned, as torch
    returns them.  A ``dtype`` the ``out=`` overload does not take, or passes as
    None, is the first output's dtype, as torch's kernels take it
    (``torch.cumsum(x, 0, out=y)`` sums in ``y``'s dtype, ``torch.rand(2,
    out=y)`` draws in it)."""
    outs = out_outputs(schema)
    n_in, n_out = len(schema.arguments) - len(outs), len(outs)
    names = [a.name for a in functional.arguments]
    place = [names.index(a.name) for a in schema.arguments[:n_in]]
    defaults = [a.default for a in functional.arguments]
    dtype_at = names.index("dtype") if "dtype" in names else None
    listed = isinstance(schema.arguments[outs[0]].type, T.ListType)

    def op(*args):
        inputs = list(defaults)
        for at, value in zip(place, args[:n_in]):
            inputs[at] = value
        outputs = args[n_in:]
        if dtype_at is not None and (inputs[dtype_at] is None or dtype_at not in place) \
                and not listed:
            inputs[dtype_at] = code_of(outputs[0].dtype)
        results = fn(*inputs)
        if listed:
            return write_list_out(results, outputs[0], schema)
        if n_out == 1:
            return write_out(results, outputs[0])
        return tuple(write_out(r, o) for r, o in zip(results, outputs))
    op.__wrapped__ = fn   # what it writes out: the same in every registry
    return op


#: ``out=`` overloads whose functional form is another kind's: torch made
#: ``normal_functional`` the functional twin of ``normal_``, and its ``out=``
#: overload is ``normal.out``.
FUNCTIONAL_KIND: Dict[str, str] = {"aten::normal.out": "aten::normal_functional"}


@R.derive
def derived(kind: str, registry: Registry) -> List[Tuple[Callable, dict]]:
    """The ``out=`` overloads of ``kind`` that ``registry`` lacks and can
    derive from its functional ones, as ``(callable, {"types": ...})``: run when
    the registry first looks ``kind`` up (:meth:`Library.derive`), so that only
    the kinds a program uses have their schemas parsed and matched."""
    schemas = torch_schemas.schemas_of(kind)
    out: List[Tuple[Callable, dict]] = []
    made: Set[Tuple[T.Type, ...]] = set()
    for s in schemas:
        outs = out_outputs(s)
        if not outs or outs != list(range(len(s.arguments) - len(outs), len(s.arguments))):
            continue   # outputs not last: no such overload in torch's list today
        other = FUNCTIONAL_KIND.get(s.name)
        functional = functional_of(s, torch_schemas.schemas_of(other) if other else schemas)
        if functional is None or implementation(registry, s) is not None:
            continue
        # the operator a node of the functional overload runs (the registry's
        # rule, so the same in any order of declaration), else one found for a
        # probe of its optional arguments
        op = registry.find(functional.kind, functional.input_types()) or \
            implementation(registry, functional)
        if op is None or not op.library or op.fn is None or op.stack or op.varargs or \
                op.types is None or len(op.types) != len(functional.arguments):
            continue
        n_in = len(s.arguments) - len(outs)
        if _accepts(op, functional.input_types()):
            # the schema's own types: the same whichever operator was found first
            types = s.input_types()
        else:   # found for a probe of an optional argument: that operator's types
            names = [a.name for a in functional.arguments]
            types = tuple(op.types[names.index(a.name)] for a in s.arguments[:n_in]) + \
                tuple(s.arguments[i].type for i in outs)
        if types in made:
            continue
        made.add(types)
        out.append((_writer(op.fn, functional, s), {"types": list(types)}))
    return out
