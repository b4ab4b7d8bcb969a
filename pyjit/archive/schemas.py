"""torch's operator schemas, for choosing the overload a serialized call means.

Serialized TorchScript calls operators by name only (``torch.add(count, 1)``,
``torch.linear(input, weight, bias)``), with the overload left to the types of
the arguments and the optional arguments left out.  The graph pyjit builds
needs what torch's graph has: every argument present (the defaults filled in)
and the output's type.  Both come from the schema torch would match, so
:func:`schemas_of` reads them from torch's own list (:mod:`pyjit.ir.torch_schemas`,
the one the registry and the coverage read), and :func:`match`
picks the overload as torch's ``matchSchemas`` does: the first schema, in
torch's order, that the arguments fit exactly, then the first that they fit
with torch's implicit conversions (a ``bool`` where an ``int`` or a ``Scalar`` is
declared, a 0-d Tensor where a ``float`` is...; never an ``int`` where a
``float`` is), each argument by the one relation of operator matching,
:func:`pyjit.ir.type_relation.match_argument`, type variables included::

    aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor
    aten::add.int(int a, int b) -> int
    torch.add(count, 1)     # int, int: aten::add.int, returns int
    torch.add(y, o)         # Tensor, Tensor: aten::add.Tensor, alpha=1 added

The lines are read by the one reader of torch's schema text,
:func:`pyjit.ir.schema.parse`, which also says how schema types become pyjit's
(``Tensor(a!)`` is a Tensor, ``int[2]`` a list, ``SymInt`` and ``ScalarType``,
which serialized code passes as ints, ``int``).
"""

from __future__ import annotations

import threading
from typing import Any, Dict, List, NamedTuple, Optional, Sequence, Tuple

from ..ir import torch_schemas, types as T
from ..ir.schema import REQUIRED, Argument, Schema, parse as parse_schema
from ..ir.type_relation import NO_MATCH, Bindings, Conversion, match_argument, substitute

__all__ = ["Argument", "Schema", "REQUIRED", "schemas_of", "match", "Matched"]

_VISION: Dict[str, List[Schema]] = {}
_lock = threading.Lock()


def schemas_of(kind: str) -> List[Schema]:
    """torch's schemas of ``kind`` (``"aten::add"``), in torch's order: those
    of torch's list (:mod:`pyjit.ir.torch_schemas`, parsed by kind when first
    asked for), and for a ``torchvision::`` kind torchvision's own
    (:data:`pyjit.ops.vision.SCHEMAS`), which torch's list does not hold."""
    if not kind.startswith("torchvision::"):
        return torch_schemas.schemas_of(kind)
    found = _VISION.get(kind)
    if found is None:
        from ..ops.vision import SCHEMAS as VISION
        found = [parse_schema(text) for text in VISION.values()
                 if text.split("(", 1)[0].split(".", 1)[0] == kind]
        with _lock:
            found = _VISION.setdefault(kind, found)
    return found


# -- matching -------------------------------------------------------------------------------
class Matched(NamedTuple):
    """A schema the call fits: the value (or default) for each argument, in order,
    the conversions needed (``{index: the node torch inserts}``) and the return
    types, the schema's type variables substituted."""

    schema: Schema
    inputs: List[Any]          # a caller's argument object, or ("default", value)
    convert: Dict[int, Conversion]
    returns: Tuple[T.Type, ...]


def _bind(schema: Schema, args: Sequence[Tuple[Any, T.Type]],
          kwargs: Dict[str, Tuple[Any, T.Type]], convert: bool) -> Optional[Matched]:
    params = schema.arguments
    positional = [a for a in params if not a.kwarg_only]
    # a "-> ..." schema (prim::TupleUnpack's kin) takes what it is given, too
    if len(args) > len(positional) and not (schema.varargs or schema.varret):
        return None
    env: Bindings = {}
    inputs: List[Any] = []
    conversions: Dict[int, Conversion] = {}
    used = set()
    for i, p in enumerate(params):
        if i < len(args) and not p.kwarg_only:
            obj, t = args[i]
        elif p.name in kwargs:
            obj, t = kwargs[p.name]
            used.add(p.name)
        elif p.default is not REQUIRED:
            inputs.append(("default", p.default, p.type))
            continue
        else:
            return None
        conversion = match_argument(t, p.type, env, conversions=convert)
        if conversion is NO_MATCH:
            return None
        if conversion is not None:
            conversions[len(inputs)] = conversion
        inputs.append(obj)
    if set(kwargs) - used:
        return None
    if schema.varargs or schema.varret:
        inputs.extend(obj for obj, _ in args[len(positional):])
    returns = (T.ANY,) if schema.varret else tuple(substitute(r.type, env)
                                                    for r in schema.returns)
    return Matched(schema, inputs, conversions, returns)


def match(kind: str, args: Sequence[Tuple[Any, T.Type]],
          kwargs: Dict[str, Tuple[Any, T.Type]]) -> Optional[Matched]:
    """The overload of ``kind`` the call takes, as torch chooses it, or None.
    ``args`` and ``kwargs`` pair each argument (any object of the caller's) with
    its type."""
    candidates = schemas_of(kind)
    for convert in (False, True):
        for s in candidates:
            m = _bind(s, args, kwargs, convert)
            if m is not None:
                return m
    return None
