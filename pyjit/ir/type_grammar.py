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

A reader works on a text and a position and reports errors through the ``fail``
callback it is given, so the graph parser's errors keep its own line and column
and :func:`parse_type` can report on a one-line text.
"""

from __future__ import annotations

import re
from typing import Callable, List, NoReturn, Optional, Tuple

from . import types as T
from ..errors import ParseError

__all__ = ["TypeReader", "parse_type", "balanced", "describe_token"]

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


class TypeReader:
    """Reads types from ``text``; ``fail(message, pos)`` must raise."""

    __slots__ = ("text", "pos", "fail")

    def __init__(self, text: str, fail: Fail) -> None:
        self.text = text
        self.pos = 0
        self.fail = fail

    def read(self, pos: int, depth: int = 0) -> Tuple[T.Type, int]:
        """The type starting at ``pos`` (blanks first are skipped) and the position
        after it.  ``depth`` is the nesting the caller is already at."""
        self.pos = pos
        return self._type(depth), self.pos

    # -- the grammar -------------------------------------------------------------
    def _ws(self) -> None:
        self.pos = _WS.match(self.text, self.pos).end()

    def _at(self, s: str) -> bool:
        return self.text.startswith(s, self.pos)

    def _eat(self, s: str) -> bool:
        self._ws()
        if self._at(s):
            self.pos += len(s)
            return True
        return False

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
