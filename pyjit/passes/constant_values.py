"""What the inference passes ask of a value: is it a constant, and what is it;
is one node its only user; may anything write into it.

A graph's ``prim::Constant`` values are immutable (``Graph.copy`` shares their
tensors between copies), and a frozen module's weights are such constants
(``torch.jit.freeze`` put them there).  The passes fold and fuse only what these
questions prove: that a tensor is a constant nothing writes into, and that a
result has one user which may take it over.
"""

from __future__ import annotations

from builtins import type as type_of
from typing import Any, Optional

import numpy as np

from ..ir import types as T
from ..ir.constants import constant_value
from ..ir.graph import Node, Value
from ..ir.literals import TensorValue
from ..ir.symbols import prim

__all__ = ["NOT_CONSTANT", "constant_of", "tensor_constant", "only_user", "may_write",
           "replace_constant", "drop_if_unused", "insert_value", "LIST", "SHAPE_QUERIES"]

LIST = "prim::ListConstruct"

#: What :func:`constant_of` returns for a value that is not a constant.
NOT_CONSTANT = object()


def constant_of(v: Value) -> Any:
    """The value ``v`` always has: a ``prim::Constant``'s, or a list of them
    (``prim::ListConstruct`` of constants, as ``stride`` and ``padding`` are);
    :data:`NOT_CONSTANT` for anything else."""
    n = v.node
    if n.kind == prim.Constant:
        return constant_value(n)
    if n.kind == LIST:
        items = [constant_of(i) for i in n.inputs]
        return NOT_CONSTANT if any(i is NOT_CONSTANT for i in items) else items
    return NOT_CONSTANT


#: Non-aten kinds that never write into their inputs.
_READERS = frozenset({LIST, prim.TupleConstruct, "pyjit::conv_act",
                      "pyjit::linear_act", "pyjit::conv_bn_act"})


#: Norms that update their running statistics (inputs 3 and 4) in place unless
#: input 5 (``training``, ``use_input_stats``) is False.
_RUNNING_STATS = frozenset({"aten::batch_norm", "aten::instance_norm", "aten::native_batch_norm",
                            "aten::_native_batch_norm_legit"})


def may_write(node: Node) -> bool:
    """Whether ``node`` may write into a tensor it is given: an in-place
    operator (``aten::relu_``, ``aten::copy_``: a name ending in one ``_``), a
    batch or instance norm that is not known to be in inference (it updates its
    running statistics), or
    anything that is not an operator (a call, a fork, an object's attribute:
    they may hand the tensor on to code that does).

    ``out=`` forms are not told apart: a frozen module's weights never meet
    one, since ``torch.jit.freeze`` keeps as an attribute, not a constant,
    whatever a method writes into."""
    kind = node.kind
    if not kind.startswith("aten::"):
        return kind not in _READERS
    if kind in _RUNNING_STATS:   # training updates the running statistics in place
        return constant_of(node.inputs[5]) is not False
    name = kind[6:]
    return name.endswith("_") and not name.endswith("__")


def tensor_constant(v: Value) -> Optional[np.ndarray]:
    """``v``'s array if ``v`` is a tensor constant that no user may write into
    (:func:`may_write`), else None."""
    if v.node.kind != prim.Constant:
        return None
    value = constant_value(v.node)
    if type(value) is not np.ndarray:
        return None
    if any(may_write(u.user) for u in v.uses):
        return None
    return value


#: Operators that read only a tensor's shape: a use by one of them sees the
#: same thing whether the tensor is the convolution's output or what a batch
#: norm or an activation made of it (both keep the shape).
SHAPE_QUERIES = frozenset({"aten::dim", "aten::size", "aten::len"})


def only_user(v: Value, shapes: bool = False) -> Optional[Node]:
    """The one node using ``v`` (once), or None: several uses, a use by a block's
    return (a graph output or a block's result), or none.  With ``shapes``,
    uses by :data:`SHAPE_QUERIES` (a module's ``_check_input_dim``) do not
    count."""
    uses = [u for u in v.uses if not (shapes and u.user.kind in SHAPE_QUERIES)]
    if len(uses) != 1:
        return None
    user = uses[0].user
    if user.kind == prim.Return:
        return None
    return user


def replace_constant(node: Node, i: int, value: Any, type: Optional[T.Type] = None) -> Value:
    """Make ``node``'s input ``i`` a new constant of ``value``, inserted just
    before ``node`` with the old input's source location and type (or
    ``type``); the old constant goes if nothing else uses it."""
    old = node.inputs[i]
    g = node.owning_graph
    with g.inserting_before(node):
        new = insert_value(g, value, type or old.type, old.node.source_location)
    node.replace_input(i, new)
    drop_if_unused(old)
    return new


def insert_value(g, value: Any, type: T.Type, loc) -> Value:
    """A new ``prim::Constant`` of ``value`` at ``g``'s insertion point; an array
    is kept as the archive's tensor constants are (a read-only
    :class:`~pyjit.ir.literals.TensorValue`, printed ``<Tensor>``), without a
    copy: the passes make their arrays for it (or hand on a view of another
    constant, which is as immutable)."""
    if type_of(value) is np.ndarray:
        value = TensorValue("<Tensor>", value, copy=False)
    return g.insert_constant(value, type=type, loc=loc)


def drop_if_unused(v: Value) -> None:
    """Destroy ``v``'s node if it is a constant (or a list of constants) that
    nothing uses any more."""
    n = v.node
    if n.kind in (prim.Constant, LIST) and not any(o.uses for o in n.outputs):
        inputs = list(n.inputs)
        n.destroy()
        for i in inputs:
            drop_if_unused(i)
