"""torch's operator schemas, for choosing the overload a serialized call means.

Serialized TorchScript calls operators by name only (``torch.add(count, 1)``,
``torch.linear(input, weight, bias)``), with the overload left to the types of
the arguments and the optional arguments left out.  The graph pyjit builds
needs what torch's graph has: every argument present (the defaults filled in)
and the output's type.  Both come from the schema torch would match, so
:data:`schemas.txt <SCHEMAS>` holds torch's schemas for the kinds pyjit's
registry runs (written by ``tools/archives/make_schemas.py``), and :func:`match`
picks the overload as torch's ``matchSchemas`` does: the first schema, in
torch's order, that the arguments fit exactly, then the first that they fit
with its implicit conversions (an ``int`` where a ``float`` is declared)::

    aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor
    aten::add.int(int a, int b) -> int
    torch.add(count, 1)     # int, int: aten::add.int, returns int
    torch.add(y, o)         # Tensor, Tensor: aten::add.Tensor, alpha=1 added

Schema types become pyjit's (:mod:`pyjit.ir.types`): alias annotations are
dropped (``Tensor(a!)`` is a Tensor), fixed-size lists are lists (``int[2]``),
``SymInt`` is ``int``, and ``ScalarType``, ``Layout`` and ``MemoryFormat``,
which serialized code passes as ints (``dtype=6``), are ``int``.
"""

from __future__ import annotations

import ast
import os
import re
import threading
from typing import Any, Dict, List, NamedTuple, Optional, Sequence, Tuple

from ..ir import types as T
from ..ir.type_grammar import parse_type
from ..ir.type_relation import is_subtype
from ..registry import _split_top

__all__ = ["Argument", "Schema", "REQUIRED", "schemas_of", "match", "Matched"]

SCHEMAS = os.path.join(os.path.dirname(__file__), "schemas.txt")

#: The default of an argument that has none.
REQUIRED = object()

_LINE = re.compile(r"^(?P<kind>\w+::\w+)(?:\.(?P<overload>\w+))?\((?P<args>.*)\) -> (?P<ret>.*)$")
_ALIAS = re.compile(r"\((?:[a-z]!?|\*|[a-z]\|[a-z]|[a-z]+ -> \*)\)!?")
_NAMED = re.compile(r"^(.*\S)\s+[A-Za-z_]\w*$")   # a named return: "Tensor values"
_SIZED = re.compile(r"\[\d+\]")
_AS_INT = re.compile(r"\b(?:SymInt|ScalarType|Layout|MemoryFormat|QScheme)\b")


class Argument(NamedTuple):
    name: str
    type: T.Type
    default: Any          # REQUIRED, or the Python value
    kwarg_only: bool


class Schema(NamedTuple):
    kind: str
    overload: str
    arguments: Tuple[Argument, ...]
    returns: Tuple[T.Type, ...]
    varargs: bool
    text: str


def schema_type(text: str) -> T.Type:
    """A schema's type text as a pyjit type."""
    text = _ALIAS.sub("", text.strip())
    text = _SIZED.sub("[]", text)
    text = _AS_INT.sub("int", text)
    return parse_type(text)


def _default(text: str, t: T.Type, type_text: str) -> Any:
    """An argument's default from its schema text: a Python literal (torch's
    table prints none by name), a list for a list type (``int[2] stride=1`` is
    ``[1, 1]``), a float for a float."""
    try:
        value = ast.literal_eval(text)
    except (ValueError, SyntaxError):
        raise ValueError(f"a default pyjit cannot read: {text!r}") from None
    if isinstance(t, T.ListType) and not isinstance(value, (list, tuple)):
        sized = _SIZED.search(type_text)
        value = [value] * (int(sized.group()[1:-1]) if sized else 1)
    if isinstance(value, tuple):
        return list(value)
    if t == T.FLOAT and isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    return value


def parse_schema(line: str) -> Schema:
    m = _LINE.match(line.strip())
    if not m:
        raise ValueError(f"malformed schema {line!r}")
    args: List[Argument] = []
    kwarg_only = varargs = False
    for part in _split_top(m.group("args")):
        if part == "*":
            kwarg_only = True
            continue
        if part == "...":
            varargs = True
            continue
        decl, _, default = part.partition("=")
        type_text, _, name = decl.strip().rpartition(" ")
        t = schema_type(type_text)
        d = _default(default.strip(), t, type_text) if default else REQUIRED
        args.append(Argument(name, t, d, kwarg_only))
    ret = m.group("ret").strip()
    if ret == "()":
        returns: Tuple[T.Type, ...] = ()
    elif ret == "...":
        returns, varargs = (T.ANY,), True
    elif ret.startswith("(") and not ret.startswith("(("):
        returns = tuple(schema_type(_NAMED.sub(r"\1", _ALIAS.sub("", r)))
                        for r in _split_top(ret[1:-1]))
    else:
        if ret.startswith("((") and ret.endswith("])"):
            ret = ret[1:-1]
        returns = (schema_type(ret),)
    return Schema(m.group("kind"), m.group("overload") or "", tuple(args), returns, varargs,
                  line.strip())


#: schemas.txt's lines by kind, unparsed (read once), and the kinds parsed so far.
_LINES: Optional[Dict[str, List[str]]] = None
_PARSED: Dict[str, List[Schema]] = {}
_lock = threading.Lock()


def _lines() -> Dict[str, List[str]]:
    global _LINES
    if _LINES is None:
        with _lock:
            if _LINES is None:
                table: Dict[str, List[str]] = {}
                with open(SCHEMAS, encoding="utf-8") as f:
                    for line in f:
                        if line.strip() and not line.startswith("#"):
                            head = line.split("(", 1)[0]
                            table.setdefault(head.split(".", 1)[0], []).append(line)
                _LINES = table
    return _LINES


def schemas_of(kind: str) -> List[Schema]:
    """torch's schemas of ``kind`` (``"aten::add"``), in torch's order.

    The table holds some 2,400 schemas and a model names a few dozen kinds, so
    a kind's lines are parsed the first time it is asked for: parsing them all
    was a quarter of resnet18's first call (issue 25)."""
    parsed = _PARSED.get(kind)
    if parsed is None:
        lines = _lines().get(kind, ())
        parsed = [parse_schema(line) for line in lines]
        for s in parsed:
            if s.kind != kind:
                raise ValueError(f"schemas.txt: {s.text!r} is filed under {kind}")
        with _lock:
            parsed = _PARSED.setdefault(kind, parsed)
    return parsed


# -- matching -------------------------------------------------------------------------------
class Matched(NamedTuple):
    """A schema the call fits: the value (or default) for each argument, in order,
    the conversions needed (``{index: target type}``) and the return types."""

    schema: Schema
    inputs: List[Any]          # a caller's argument object, or ("default", value)
    convert: Dict[int, T.Type]
    returns: Tuple[T.Type, ...]


def _is_var(t: T.Type) -> bool:
    """A schema's type variable: ``t``, ``k``, ``t1``."""
    return isinstance(t, T.NamedType) and re.fullmatch(r"[a-z]\d?", t.name) is not None


def _fits(actual: T.Type, want: T.Type, env: Dict[str, T.Type], convert: bool) -> bool:
    """Whether a value of type ``actual`` may be passed for ``want``, binding the
    type variables in ``env``; with ``convert``, torch's implicit conversions."""
    if _is_var(want):
        have = env.get(want.name)
        if have is None:
            env[want.name] = actual
            return True
        if _fits(actual, have, env, convert):
            return True
        if _fits(have, actual, {}, False):   # the wider of the two binds the variable
            env[want.name] = actual
            return True
        return False
    if want == T.ANY:
        return True
    if isinstance(want, T.OptionalType):
        return actual == T.NONE or (isinstance(actual, T.OptionalType) and
                                    _fits(actual.elem, want.elem, env, convert)) or \
            _fits(actual, want.elem, env, convert)
    if isinstance(want, T.TensorType):
        return isinstance(actual, T.TensorType)
    if want == T.NUMBER:
        return actual in (T.INT, T.FLOAT, T.COMPLEX, T.NUMBER)
    if isinstance(want, T.ListType):
        if not isinstance(actual, T.ListType):
            return False
        return _fits(actual.elem, want.elem, env, False) or \
            (isinstance(want.elem, T.OptionalType) and
             _fits(actual.elem, want.elem.elem, env, False))
    if isinstance(want, T.TupleType):
        return isinstance(actual, T.TupleType) and len(actual.elems) == len(want.elems) and \
            all(_fits(a, w, env, convert) for a, w in zip(actual.elems, want.elems))
    if isinstance(want, T.DictType):
        return isinstance(actual, T.DictType) and _fits(actual.key, want.key, env, False) \
            and _fits(actual.value, want.value, env, False)
    if is_subtype(actual, want):
        return True
    if convert:
        if want == T.FLOAT and actual == T.INT:
            return True
        if want in (T.INT, T.FLOAT) and isinstance(actual, T.TensorType):
            return True
    return False


def _substitute(t: T.Type, env: Dict[str, T.Type]) -> T.Type:
    if _is_var(t):
        return env.get(t.name, T.ANY)
    if isinstance(t, T.ListType):
        return T.ListType(_substitute(t.elem, env))
    if isinstance(t, T.OptionalType):
        return T.OptionalType(_substitute(t.elem, env))
    if isinstance(t, T.TupleType):
        return T.TupleType(_substitute(e, env) for e in t.elems)
    if isinstance(t, T.DictType):
        return T.DictType(_substitute(t.key, env), _substitute(t.value, env))
    return t


def _bind(schema: Schema, args: Sequence[Tuple[Any, T.Type]],
          kwargs: Dict[str, Tuple[Any, T.Type]], convert: bool) -> Optional[Matched]:
    params = schema.arguments
    positional = [a for a in params if not a.kwarg_only]
    if len(args) > len(positional) and not schema.varargs:
        return None
    env: Dict[str, T.Type] = {}
    inputs: List[Any] = []
    conversions: Dict[int, T.Type] = {}
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
        if not _fits(t, p.type, env, False):
            if not (convert and _fits(t, p.type, env, True)):
                return None
            conversions[len(inputs)] = p.type
        inputs.append(obj)
    if set(kwargs) - used:
        return None
    if schema.varargs:
        inputs.extend(obj for obj, _ in args[len(positional):])
    return Matched(schema, inputs, conversions,
                   tuple(_substitute(r, env) for r in schema.returns))


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
