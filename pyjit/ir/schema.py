"""torch's operator schemas as objects: one reader of the text torch prints.

A schema line is what ``str(torch._C.FunctionSchema)`` prints, and what
``pyjit/ir/torch_schemas.txt.xz`` holds one a line::

    aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor
    aten::add_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)
    aten::max.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)
    aten::format(str self, ...) -> str

:func:`parse` keeps everything the line says: the kind and overload name, each
argument's name, its type as torch wrote it (``type_text``) and as pyjit's type
(``type``), its alias annotation (``a!`` for a tensor written in place), its
default (the Python value; :data:`REQUIRED` for none) and whether it comes
after the ``*`` (keyword-only); each return's type, alias and name; and a
trailing ``...`` among the arguments (``varargs``) or as the return
(``varret``).

torch's types become pyjit's (:mod:`pyjit.ir.types`) as graphs carry them:
alias annotations are not types (``Tensor(a!)`` is a ``Tensor``), a list of a
fixed size is a list (``int[2]``), and ``SymInt``, ``ScalarType``, ``Layout``,
``MemoryFormat`` and ``QScheme``, which graphs pass as ints (``dtype=6``), are
``int``.
"""

from __future__ import annotations

import ast
import re
from functools import lru_cache
from typing import Any, List, NamedTuple, Optional, Tuple

from . import types as T
from .type_grammar import parse_type

__all__ = ["Argument", "Return", "Schema", "REQUIRED", "parse", "pyjit_type"]


class _Required:
    """The default of an argument that has none."""

    def __repr__(self) -> str:
        return "REQUIRED"


#: The default of an argument that has none.
REQUIRED: Any = _Required()


class Argument(NamedTuple):
    name: str
    type: T.Type
    type_text: str              # as torch wrote it, alias annotation included
    alias: Optional[str]        # "a", "a!", "*", "a -> *", "b|a"; None: no annotation
    default: Any                # REQUIRED, or the Python value
    kwarg_only: bool

    @property
    def writes(self) -> bool:
        """The operator writes into this argument (``Tensor(a!)``)."""
        return self.alias is not None and self.alias.endswith("!")


class Return(NamedTuple):
    name: str                   # "" for an unnamed return
    type: T.Type
    type_text: str
    alias: Optional[str]


class Schema(NamedTuple):
    kind: str                   # "aten::add"
    overload: str               # "Tensor"; "" for the default overload
    arguments: Tuple[Argument, ...]
    returns: Tuple[Return, ...]
    varargs: bool               # "..." among the arguments: any more, of any type
    varret: bool                # "-> ...": any number of results
    text: str

    @property
    def name(self) -> str:
        """The overload's full name, as torch names it: ``aten::add.Tensor``."""
        return f"{self.kind}.{self.overload}" if self.overload else self.kind

    @property
    def namespace(self) -> str:
        return self.kind.split("::", 1)[0]

    @property
    def base(self) -> str:
        """The kind without its namespace: ``add``."""
        return self.kind.split("::", 1)[1]

    def input_types(self) -> Tuple[T.Type, ...]:
        """Every argument's type in order: what a graph's node of this overload
        passes (graphs pass every argument, positionally)."""
        return tuple(a.type for a in self.arguments)


_HEAD = re.compile(r"(?P<kind>[A-Za-z_]\w*::\w+)(?:\.(?P<overload>\w+))?\(")
#: An alias annotation, right after the type it annotates: (a) (a!) (*) (a -> *) (b|a).
_ALIAS = re.compile(r"\((?P<set>[a-z]\w*(?:\|[a-z]\w*)*!?|\*|[a-z]\w* -> \*)\)(?P<bang>!?)")
#: Names whose parentheses hold a type, never an alias set.
_PARAMETERISED = ("Await", "Future", "RRef", "Dict", "Union", "Optional", "List", "Tuple")
_SIZED = re.compile(r"\[\d+\]")
_AS_INT = re.compile(r"\b(?:SymInt|ScalarType|Layout|MemoryFormat|QScheme)\b")


@lru_cache(maxsize=1024)
def _split_alias(text: str) -> Tuple[str, Optional[str]]:
    """``"Tensor(a!)[]"`` -> ``("Tensor[]", "a!")``: the type without its alias
    annotation, and the annotation (the first, where a list's elements and the
    list are both annotated)."""
    alias: Optional[str] = None
    out: List[str] = []
    pos = 0
    for m in _ALIAS.finditer(text):
        before = text[:m.start()]
        if before.endswith(_PARAMETERISED) or not before or not (before[-1].isalnum() or
                                                                  before[-1] in "_]?)"):
            continue
        out.append(text[pos:m.start()])
        pos = m.end()
        if alias is None:
            alias = m.group("set") + m.group("bang")
    out.append(text[pos:])
    return "".join(out), alias


@lru_cache(maxsize=1024)
def pyjit_type(type_text: str) -> T.Type:
    """A schema's type text (alias annotations allowed) as a pyjit type (types
    are values: one object serves every schema that writes the same text)."""
    text, _ = _split_alias(type_text.strip())
    return parse_type(_AS_INT.sub("int", _SIZED.sub("[]", text)))


#: What the splitting looks at: a string literal (skipped whole), a bracket, a comma.
_STRUCTURE = re.compile(r"\"(?:[^\"\\]|\\.)*\"|'(?:[^'\\]|\\.)*'|[()\[\],]")


def _outside_strings(text: str, start: int = 0):
    """``(index, char, depth)`` for each bracket and comma of ``text`` from
    ``start`` that is outside a string literal, ``depth`` the brackets open
    before it (a closing bracket's own is counted out)."""
    depth = 0
    for m in _STRUCTURE.finditer(text, start):
        ch = m.group()
        if len(ch) > 1 or ch in "\"'":
            continue
        if ch in ")]":
            depth -= 1
        yield m.start(), ch, depth
        if ch in "([":
            depth += 1


def _split(text: str) -> List[str]:
    """Split on the commas outside brackets and string literals."""
    parts: List[str] = []
    start = 0
    for i, ch, depth in _outside_strings(text):
        if ch == "," and depth == 0:
            parts.append(text[start:i].strip())
            start = i + 1
    last = text[start:].strip()
    if last:
        parts.append(last)
    return parts


def _closing(text: str, pos: int) -> int:
    """The index of the ``)`` closing the ``(`` just before ``pos``."""
    for i, ch, depth in _outside_strings(text, pos):
        if ch == ")" and depth == -1:
            return i
    raise ValueError("its argument list is not closed")


def _default(text: str, t: T.Type, type_text: str) -> Any:
    value = _literal(text, t, type_text)
    return list(value) if isinstance(value, tuple) else value


@lru_cache(maxsize=1024)
def _literal(text: str, t: T.Type, type_text: str) -> Any:
    """An argument's default: a Python literal (torch prints every default as
    one), a list for a list type (``int[2] stride=1`` is ``[1, 1]``), a float for
    a float (``float p=2`` is 2.0)."""
    try:
        value = ast.literal_eval(text)
    except (ValueError, SyntaxError):
        raise ValueError(f"a default that is not a literal: {text!r}") from None
    if isinstance(t, T.ListType) and not isinstance(value, (list, tuple)):
        sized = _SIZED.search(type_text)
        value = [value] * (int(sized.group()[1:-1]) if sized else 1)
    if isinstance(value, list):
        value = tuple(value)      # cached: a fresh list per schema, made by _default
    if t == T.FLOAT and isinstance(value, int) and not isinstance(value, bool):
        value = float(value)
    return value


def _typed_name(decl: str) -> Tuple[str, str]:
    """``"Tensor(a!) self"`` -> ``("Tensor(a!)", "self")``; a declaration with no
    name (a return) -> ``(decl, "")``."""
    type_text, _, name = decl.rpartition(" ")
    if type_text and re.fullmatch(r"[A-Za-z_]\w*", name) and not type_text.endswith(("->", "|")):
        return type_text.strip(), name
    return decl, ""


def _returns(text: str) -> Tuple[Tuple[Return, ...], bool]:
    """``"(Tensor values, Tensor indices)"``, ``"Tensor(a!)"``, ``"()"``, ``"..."``;
    a single return of a tuple type is in a second pair of parentheses
    (``"((int, t)[])"``)."""
    text = text.strip()
    if text == "...":
        return (), True
    if text.startswith("(") and _closing(text, 1) == len(text) - 1:
        items = _split(text[1:-1])
    else:
        items = [text]
    out = []
    for item in items:
        type_text, name = _typed_name(item)
        _, alias = _split_alias(type_text)
        out.append(Return(name, pyjit_type(type_text), type_text, alias))
    return tuple(out), False


def parse(line: str) -> Schema:
    """One schema line as a :class:`Schema`; ``ValueError`` naming the line and
    what is wrong with it."""
    text = line.strip()
    m = _HEAD.match(text)
    if not m:
        raise ValueError(f"malformed schema {text!r}: expected 'ns::name[.overload](...)'")
    try:
        close = _closing(text, m.end())
        rest = text[close + 1:].strip()
        if not rest.startswith("->"):
            raise ValueError("no '->' after its arguments")
        arguments: List[Argument] = []
        kwarg_only = varargs = False
        for part in _split(text[m.end():close]):
            if part == "*":
                kwarg_only = True
                continue
            if part == "...":
                varargs = True
                continue
            decl, eq, default = part.partition("=")
            type_text, name = _typed_name(decl.strip())
            if not name:
                raise ValueError(f"argument {part!r} has no name")
            t = pyjit_type(type_text)
            _, alias = _split_alias(type_text)
            value = _default(default.strip(), t, type_text) if eq else REQUIRED
            arguments.append(Argument(name, t, type_text, alias, value, kwarg_only))
        returns, varret = _returns(rest[2:])
    except Exception as exc:
        raise ValueError(f"malformed schema {text!r}: {exc}") from None
    return Schema(m.group("kind"), m.group("overload") or "", tuple(arguments), returns,
                  varargs, varret, text)
