"""``freeze_graph``: a method of one object made a graph of its own, the object's
attributes constants in it, as ``torch.jit.freeze`` makes of a module.

A loaded module's method reads its weights at every run (``prim::GetAttr`` on
``self``, then on each submodule), and calls its submodules' methods, each a
graph of its own shared by every object of the class.  Nothing there is a
constant, so the inference passes (:mod:`.inference`) find nothing to fold:
a batch norm's statistics, its ``training`` flag, even which branch of
``if self.training:`` runs, are known only when the code runs.  Freezing fixes
them, for one object, at the time it is frozen:

1. every call is inlined (:func:`~.inline_calls.inline_calls`): one graph;
2. every ``prim::GetAttr`` chain from ``self`` is followed to the object's
   value, and one that reads an attribute nothing in the graph sets
   (``prim::SetAttr`` of that name) becomes a constant: a submodule is followed
   on, a number, string, bool or None is a constant at once, a tensor once
   nothing in the graph writes into it (an in-place operator: the tensor
   would be the object's state, which freezing may not copy);
3. branches on constants are taken (``prim::If`` of a constant condition is its
   block's nodes), operators on constant scalars computed (``not``, ``is
   None``, ``==``), and what nothing uses any more goes: repeated until
   nothing changes, since a folded branch can make a tensor's only writer
   disappear (``num_batches_tracked.add_(1)`` under ``if self.training:``).

The result is exact for the object as it is when frozen, and only then: a
frozen function does not see a later assignment to the module's attributes
(``m.training = True``, new weights) -- freezing is asked for by name
(:func:`pyjit.freeze`), never done behind a module's back.  A tensor constant
is a read-only view of the module's own array, not a copy (a frozen model
would otherwise hold its weights twice), so writing into the module's arrays
in place after freezing is writing into the frozen constants: freeze again
after changing weights, as torch asks of ``torch.jit.freeze``.  Attributes the
graph writes, and tensors it writes into, stay ``prim::GetAttr`` reads of
``self``, which stays the graph's first input.
"""

from __future__ import annotations

from typing import Any, Callable, Dict, Optional, Set

import numpy as np

from ..ir import types as T
from ..ir.graph import Graph, Node, Value
from ..ir.literals import TensorValue
from ..ir.symbols import prim
from .constant_values import NOT_CONSTANT, constant_of, may_write
from .inline_calls import inline_calls

__all__ = ["freeze_graph", "NOT_NONE", "SAME"]

#: Scalar operators computed when their inputs are constants (non-tensor in and out).
_SCALAR_FOLDS = frozenset(f"aten::{k}" for k in (
    "__not__", "__is__", "__isnot__", "eq", "ne", "lt", "le", "gt", "ge", "__and__", "__or__",
    "add", "sub", "mul", "neg", "len", "Int", "Float", "Bool"))

#: Kinds that have no effect but their outputs: dropped when these are unused.
_PURE = frozenset({prim.Constant, "prim::ListConstruct", "prim::TupleConstruct", prim.GetAttr,
                   "prim::unchecked_cast", "aten::dim", "aten::size"}) | _SCALAR_FOLDS


#: What ``watch`` is told of a tensor left to be read at run time: the graph
#: relies on its being a tensor (``x is None`` folded to False).
NOT_NONE = "not None"

#: ... and of an attribute whose value the graph took: it relies on the value
#: staying that one (``is``).
SAME = "same"


def freeze_graph(graph: Graph, root: Any, unit: Any, registry: Any,
                 attribute: Callable[[Any, str], Any], is_object: Callable[[Any], bool],
                 *, tensors: bool = True,
                 watch: Optional[Callable[[Any, str, Any, str], None]] = None) -> Graph:
    """A frozen copy of ``graph``, a method whose first input is ``self``, for
    object ``root`` (see the module docstring).

    Args:
        unit: holds the callees (``find_function``/``find_method``), compiled.
        registry: computes the scalar operators folded on constants.
        attribute: ``attribute(obj, name)``: the value of ``obj``'s attribute.
        is_object: whether a value is an object whose attributes are followed
            (a submodule) rather than a constant.
        tensors: whether tensor attributes become constants too; if not, each
            stays a ``prim::GetAttr``, read at every run, and only its being a
            tensor is relied on (``self.running_mean is None`` folds to False).
        watch: told ``watch(obj, name, value, how)`` of every attribute the
            result relies on: ``how`` :data:`SAME` (its value, a constant or an
            object followed, must stay ``value``) or :data:`NOT_NONE` (it must
            stay a tensor); what the caller checks before running the result
            again (:mod:`pyjit.archive.specialize`).
    """
    g = graph.copy()
    inline_calls(g, unit)
    written = {n.attrs["name"] for n in g.all_nodes() if n.kind == prim.SetAttr}
    objects: Dict[Value, Any] = {g.inputs[0]: root}
    tensor_reads: Set[Value] = set()
    changed = True
    while changed:
        changed = _fold_attributes(g, objects, written, attribute, is_object, tensors, watch,
                                   tensor_reads)
        changed |= _fold_branches(g, registry, tensor_reads)
        changed |= _drop_unused(g)
    if not tensors and HOIST:
        _hoist_reads(g, objects, tensor_reads)
    return g


#: Whether :func:`_hoist_reads` runs (False: for measuring what it is worth).
HOIST = True


def _hoist_reads(g: Graph, objects: Dict[Value, Any], tensor_reads: Set[Value]) -> None:
    """Move the reads of the graph's top level that only follow submodules or
    read tensor attributes to its start, in their order.

    Why: such a read is a dictionary lookup, but run between two kernels it
    finds the interpreter's objects evicted by the kernel's megabytes and costs
    a microsecond of cache misses (a MobileNet's 400 reads: 5-8% of its run);
    run one after another at the start, they are warm.  Moving them changes
    nothing a run sees: none of their attributes is written by the graph (a
    written one is never followed nor its read recorded), and each reads an
    object the graph does not replace."""
    defined = {g.inputs[0]}   # what the reads moved so far need: self, then theirs
    anchor = g.param_node
    for n in list(g.nodes()):
        if n.kind == prim.GetAttr and n.inputs[0] in defined and \
                (n.output() in tensor_reads or n.output() in objects):
            n.move_after(anchor)
            anchor = n
            defined.add(n.output())


def _fold_attributes(g: Graph, objects: Dict[Value, Any], written, attribute,
                     is_object, tensors: bool, watch, tensor_reads: Set[Value]) -> bool:
    changed = False
    for n in list(g.all_nodes()):
        if n.kind != prim.GetAttr or n.inputs[0] not in objects or n.output() in tensor_reads:
            continue
        name = n.attrs["name"]
        if name in written:
            continue
        owner = objects[n.inputs[0]]
        try:
            value = attribute(owner, name)
        except AttributeError:   # never set: left to be read, and to fail, at run time
            continue
        if is_object(value):
            if n.output() not in objects:
                objects[n.output()] = value
                if watch is not None:
                    watch(owner, name, value, SAME)
            continue
        if type(value) is np.ndarray:
            if not tensors:
                tensor_reads.add(n.output())
                if watch is not None:
                    watch(owner, name, value, NOT_NONE)
                continue
            if any(may_write(u.user) for u in n.output().uses):
                continue
            value = TensorValue("<Tensor>", value, copy=False)   # shared, not copied
        elif not (value is None or type(value) in (int, float, bool, str)):
            continue   # a list, a tuple, an object of no class: read at run time
        elif watch is not None:
            watch(owner, name, value, SAME)
        with g.inserting_before(n):
            c = g.insert_constant(value, type=n.output().type, loc=n.source_location)
        n.output().replace_all_uses_with(c)
        n.destroy()
        changed = True
    return changed


def _fold_branches(g: Graph, registry: Any, tensor_reads: Set[Value]) -> bool:
    changed = False
    for n in list(g.all_nodes()):
        if not n.is_inserted():
            continue
        if n.kind == "prim::If":
            cond = constant_of(n.inputs[0])
            if type(cond) is bool:
                _take(n, 0 if cond else 1)
                changed = True
        elif n.kind in ("aten::__is__", "aten::__isnot__") and len(n.inputs) == 2 and \
                _is_none_of_a_tensor(n, tensor_reads):
            with g.inserting_before(n):
                c = g.insert_constant(n.kind == "aten::__isnot__", loc=n.source_location)
            n.output().replace_all_uses_with(c)
            n.destroy()
            changed = True
        elif n.kind in _SCALAR_FOLDS and n.outputs and _fold_scalar(n, registry):
            changed = True
    return changed


def _is_none_of_a_tensor(n: Node, tensor_reads: Set[Value]) -> bool:
    """Whether ``n`` compares a tensor attribute read at run time with None."""
    a, b = n.inputs
    return (a in tensor_reads and constant_of(b) is None) or \
        (b in tensor_reads and constant_of(a) is None)


def _take(n: Node, which: int) -> None:
    """Replace ``prim::If`` node ``n`` by the nodes of its block ``which``."""
    block = n.blocks[which]
    for m in list(block.nodes()):
        m.move_before(n)
    for out, v in zip(n.outputs, block.outputs):
        out.replace_all_uses_with(v)
    n.destroy()


def _fold_scalar(n: Node, registry: Any) -> bool:
    args = [constant_of(v) for v in n.inputs]
    if any(a is NOT_CONSTANT or type(a) is np.ndarray for a in args) or len(n.outputs) != 1:
        return False
    try:
        resolved = registry.lookup(n)
        if resolved.stack:
            return False
        value = resolved.fn(*args)
    except Exception:  # left to run, and fail where it would have
        return False
    if not (value is None or type(value) in (int, float, bool, str)):
        return False
    g = n.owning_graph
    with g.inserting_before(n):
        c = g.insert_constant(value, type=n.output().type, loc=n.source_location)
    n.output().replace_all_uses_with(c)
    n.destroy()
    return True


def _drop_unused(g: Graph) -> bool:
    """Destroy the nodes of :data:`_PURE` whose outputs nothing uses; a scalar
    operator only on scalars (``aten::Int`` of a tensor may raise, and stays)."""
    changed = False
    for n in reversed(list(g.all_nodes())):
        if n.kind in _PURE and n.is_inserted() and not any(o.uses for o in n.outputs) and \
                not (n.kind in _SCALAR_FOLDS and
                     any(isinstance(v.type, T.TensorType) for v in n.inputs)):
            n.destroy()
            changed = True
    return changed


