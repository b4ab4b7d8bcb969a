"""The grammar of types as torch prints them, read by one small reader.

Both the graph parser (a value's ``%x : T``, a type-valued attribute) and
:func:`parse_type` (the registry's operator patterns, ``"Dict(str, t[])"``) read
types here, so neither the registry nor anything else that only needs a type
has to import the graph parser.  The forms, from :mod:`pyjit.ir.types`::

    int  float  str  Tensor  Any  __torch__.M         a name
    T[]  T?                                           postfix, any number of times
    (T1, T2)                                          a tuple
    Dict(K, V)  Union(T1, ...)  Future(T)  Await(T)   parameterised by parentheses
    Future[T]  RRef[T]                                ... or by brackets
    Float(2, 3, strides=[3, 1])  NamedTuple(...)      kept as text
    Enum<__torch__.Color>                             an enum class's members

Annotations, Python's spelling of the same types (``Optional[List[int]]``), are
read here too (:func:`annotation_type`), once for both dialects that write them.

A reader works on a text and a position and reports errors through the ``fail``
callback it is given, so the graph parser's errors keep its own line and column
and :func:`parse_type` can report on a one-line text.
"""

from __future__ import annotations

import re
from typing import Any, Callable, Dict, List, NoReturn, Optional, Sequence, Tuple

from . import types as T
from ..errors import ParseError

__all__ = ["Cursor", "TypeReader", "parse_type", "balanced", "describe_token", "annotation_type",
           "ANNOTATION_NAMES", "DICT_KEYS"]

#: How deeply types may nest inside one another (tuples, Dict, Union..., and
#: each postfix ``[]`` or ``?``).
MAX_DEPTH = 100

_WS = re.compile(r"[ \t\r\n]*")
_SPACES = re.compile(r"[ \t]*")
_TOKEN = re.compile(r"\S+")
_DOTTED = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*", re.ASCII)

Fail = Callable[[str, int], NoReturn]


def describe_token(text: str, pos: int) -> str:
    """What is at ``pos`` (after blanks), for messages: ``'foo'``, ``end of line``,
    ``end of input``; a long token is cut at 20 characters."""
    pos = _SPACES.match(text, pos).end()
    if pos >= len(text):
        return "end of input"
    if text[pos] in "\r\n":
        return "end of line"
    m = _TOKEN.match(text, pos)
    tok = m.group() if m else text[pos]
    if len(tok) > 20:
        tok = tok[:20] + "..."
    return repr(tok)


def balanced(text: str, pos: int, fail: Fail) -> int:
    """The position after the bracket that closes the one at ``pos``: ``)`` for
    ``(``, which may nest ``()`` and ``[]``; ``>`` for ``<``.  It must close on the
    same line."""
    open_ = text[pos]
    closing = {"(": ")", "[": "]"} if open_ == "(" else {"<": ">"}
    stack = [closing[open_]]
    i, n = pos + 1, len(text)
    while i < n:
        c = text[i]
        if c == "\n":
            break
        if c in closing:
            stack.append(closing[c])
        elif c in closing.values():
            if c != stack[-1]:
                fail(f"unbalanced '{c}'", i)
            stack.pop()
            if not stack:
                return i + 1
        i += 1
    fail(f"'{open_}' is never closed", pos)


class Cursor:
    """A position (``pos``) in a text (``text``), and the moves over it that the
    readers of torch's text share: this module's :class:`TypeReader` and the
    graph parser, :mod:`pyjit.ir.parser`."""

    __slots__ = ("text", "pos")

    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0

    def _ws(self) -> None:
        """Skip blanks, newlines included."""
        self.pos = _WS.match(self.text, self.pos).end()

    def _spaces(self) -> None:
        """Skip blanks on this line."""
        self.pos = _SPACES.match(self.text, self.pos).end()

    def _at(self, s: str) -> bool:
        return self.text.startswith(s, self.pos)

    def _eat(self, s: str) -> bool:
        """Skip blanks, then ``s`` if it is there."""
        self._ws()
        if self._at(s):
            self.pos += len(s)
            return True
        return False


class TypeReader(Cursor):
    """Reads types from ``text``; ``fail(message, pos)`` must raise."""

    __slots__ = ("fail",)

    def __init__(self, text: str, fail: Fail) -> None:
        super().__init__(text)
        self.fail = fail

    def read(self, pos: int, depth: int = 0) -> Tuple[T.Type, int]:
        """The type starting at ``pos`` (blanks first are skipped) and the position
        after it.  ``depth`` is the nesting the caller is already at."""
        self.pos = pos
        return self._type(depth), self.pos

    # -- the grammar -------------------------------------------------------------
    def _type(self, depth: int) -> T.Type:
        if depth > MAX_DEPTH:
            self.fail("type nested too deeply", self.pos)
        self._ws()
        text, pos = self.text, self.pos
        t: T.Type
        if self._at("("):
            self.pos += 1
            t = T.TupleType(self._types(depth, ")"))
        else:
            m = _DOTTED.match(text, pos)
            if not m:
                self.fail(f"expected a type, found {describe_token(text, pos)}", pos)
            name = m.group()
            self.pos = m.end()
            if name == "Enum" and self._at("<"):
                end = balanced(text, self.pos, self.fail)
                inner = _DOTTED.fullmatch(text, self.pos + 1, end - 1)
                if inner is None:
                    self.fail("Enum<...> takes the qualified name of an enum class, found "
                              f"{text[self.pos:end]!r}", self.pos)
                self.pos = end
                t = T.EnumType(inner.group())
            elif self._at("("):
                t = self._call_type(name, pos, depth)
            elif self._at("[") and not self._at("[]"):
                self.pos += 1
                args = self._types(depth, "]")
                if not args:
                    self.fail(f"{name}[...] needs a type inside", pos)
                t = T.GenericType(name, args)
            else:
                t = T.TENSOR if name == "Tensor" else T.NamedType(name)
        while True:
            if self._at("[]"):
                t = T.ListType(t)
            elif self._at("?"):
                t = T.OptionalType(t)
            else:
                return t
            # Each suffix nests one level deeper, like a bracket: printing and
            # comparing types recurse through them (int + 400 "[]" would exhaust
            # the recursion limit there).
            depth += 1
            if depth > MAX_DEPTH:
                self.fail("type nested too deeply", self.pos)
            self.pos += 2 if self._at("[]") else 1

    def _call_type(self, name: str, pos: int, depth: int) -> T.Type:
        """``Name(...)``: ``Dict(K, V)``, ``Union(...)``, ``Future(T)``,
        ``Await(T)``, ``NamedTuple(...)`` or a refined tensor ``Float(2, 3, ...)``."""
        if name == "Dict":
            self.pos += 1
            args = self._types(depth, ")")
            if len(args) != 2:
                self.fail(f"Dict(K, V) takes two types, got {len(args)}", pos)
            return T.DictType(args[0], args[1])
        if name == "Union":
            self.pos += 1
            args = self._types(depth, ")")
            if not args:
                self.fail("Union(...) needs at least one type", pos)
            return T.UnionType(args)
        if name in ("Future", "Await", "RRef"):
            self.pos += 1
            args = self._types(depth, ")")
            if len(args) != 1:
                self.fail(f"{name}(T) takes one type, got {len(args)}", pos)
            return T.GenericType(name, args)
        end = balanced(self.text, self.pos, self.fail)
        if name == "NamedTuple":
            self.pos = end
            return T.NamedType(self.text[pos:end])
        detail = self.text[self.pos + 1:end - 1]
        self.pos = end
        return T.TensorType(None if name == "Tensor" else name, detail)

    def _types(self, depth: int, close: str) -> List[T.Type]:
        """Types separated by commas up to ``close``."""
        items: List[T.Type] = []
        if self._eat(close):
            return items
        while True:
            items.append(self._type(depth + 1))
            if self._eat(close):
                return items
            if not self._eat(","):
                self.fail(f"expected ',' or '{close}' in a type, found "
                          f"{describe_token(self.text, self.pos)}", self.pos)


def parse_type(text: str, file: Optional[str] = None) -> T.Type:
    """A type from its text as torch prints it (``"int[]"``, ``"Dict(str, Tensor)"``).

    Raises:
        ParseError: naming the column of the problem in ``text``.
    """
    if not isinstance(text, str):
        raise TypeError(f"parse_type() needs the type as a str, not {type(text).__name__}")

    def fail(message: str, pos: int) -> NoReturn:
        line = text.count("\n", 0, pos) + 1
        start = text.rfind("\n", 0, pos) + 1
        end = text.find("\n", pos)
        raise ParseError(message, line, pos - start, file=file,
                         line_text=text[start:end if end >= 0 else len(text)])

    t, pos = TypeReader(text, fail).read(0)
    pos = _WS.match(text, pos).end()
    if pos != len(text):
        fail(f"unexpected {describe_token(text, pos)} after the type", pos)
    return t


# -- annotations: the Python spelling of types ------------------------------------------

#: The types an annotation names by a bare name in TorchScript's spelling
#: (serialized code writes ``Tensor``, ``Optional[int]``, ``number``...).  A
#: dialect that resolves names otherwise (a scripted function's live globals)
#: maps its objects to these names.
ANNOTATION_NAMES: Dict[str, T.Type] = {
    "Tensor": T.TENSOR, "int": T.INT, "float": T.FLOAT, "bool": T.BOOL, "str": T.STR,
    "NoneType": T.NONE, "None": T.NONE, "Any": T.ANY, "complex": T.COMPLEX,
    "number": T.NUMBER, "Scalar": T.NUMBER, "Device": T.NamedType("Device"),
}

#: The key types a dict annotation may have: torch's, but ``Tensor`` (pyjit's
#: dicts hash their keys, and an array has no hash).
DICT_KEYS = (T.INT, T.FLOAT, T.COMPLEX, T.STR, T.BOOL, T.NamedType("Device"))


def annotation_type(head: str, args: Sequence[Any], text: str, *,
                    unions: bool = True) -> T.Type:
    """The type of the annotation ``head[args]`` (``List[int]``, ``Optional[T]``),
    given the types of its arguments: the one reading of the generic forms that
    both dialects of annotations share, a scripted function's (evaluated
    ``typing`` objects) and serialized TorchScript's (``ast`` nodes).  Each
    resolves the names and finds the head and arguments its own way, then calls
    this.  ``args`` holds types, and ``...`` (Python's Ellipsis) where the
    annotation wrote one; ``text`` is the annotation, for messages.

    ==========================  ================================================
    ``List[T]``                 ``T[]``
    ``Dict[K, V]``              ``Dict(K, V)``, ``K`` one of :data:`DICT_KEYS`
    ``Tuple[A, B]``             ``(A, B)``; ``Tuple[()]`` is ``()``; no ``...``
    ``Optional[T]``             ``T?`` (``T`` if it is optional already)
    ``Union[T, None]``          ``T?``; any other union is a ``Union(...)``, if
                                ``unions`` (the frontend has none)
    ``Final[T]``                ``T`` (a class's constant)
    ``Future[T]``               ``Future[T]``
    ==========================  ================================================

    Raises:
        ValueError: what is wrong, naming ``text`` where it helps.
    """
    if any(a is Ellipsis for a in args) and head != "Tuple":
        raise ValueError(f"'...' is no type, in {text}")
    if head in ("List", "Optional", "Final", "Future") and len(args) != 1:
        raise ValueError(f"{head} takes one type, e.g. {head}[int], not {text}")
    if head == "List":
        return T.ListType(args[0])
    if head == "Optional":
        return args[0] if isinstance(args[0], T.OptionalType) else T.OptionalType(args[0])
    if head == "Final":
        return args[0]
    if head == "Future":
        return T.FutureType(args[0])
    if head == "Dict":
        if len(args) != 2:
            raise ValueError("Dict needs a key and a value type, e.g. Dict[str, int]")
        if args[0] not in DICT_KEYS:
            raise ValueError("dict keys must be " + ", ".join(map(str, DICT_KEYS[:-1]))
                             + f" or {DICT_KEYS[-1]}, not {args[0]}")
        return T.DictType(args[0], args[1])
    if head == "Tuple":
        if len(args) == 2 and args[1] is Ellipsis:
            raise ValueError("variable-length tuples (Tuple[T, ...]) are not supported; "
                             "use a List")
        if list(args) == [T.TupleType(())]:  # Tuple[()], the empty tuple
            return T.TupleType(())
        return T.TupleType(args)
    if head == "Union":
        rest = [a for a in args if a != T.NONE]
        if len(rest) == 1 and len(args) == 2:
            return annotation_type("Optional", rest, text)
        if not unions:
            raise ValueError(f"Union types other than Optional[T] are not supported: {text}")
        return T.UnionType(args)
    raise ValueError(f"unsupported type annotation {text!r}")
