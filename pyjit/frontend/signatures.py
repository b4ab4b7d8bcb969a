"""The signatures of the methods and ``math`` functions scripted code may call.

Each is a :class:`Spec`: the node kind torch emits, the parameters with the
defaults torch fills in (``s.split()`` is ``aten::split(s, None, -1)``,
``s.strip()`` is ``aten::strip(s, " \\n\\t\\f\\v")``), and the result type as a
function of the argument types.  :mod:`.spec_calls` emits them, binding the
arguments with :mod:`.arguments`.

:class:`~.arguments.Param` (defined with the calling rules, in :mod:`.arguments`)
is the vocabulary every table of callables shares (this one and
:mod:`.numpy_api`): a parameter's name, its default, and how it may be passed.
"""

from __future__ import annotations

import math
from typing import Any, Callable, Dict, List, NamedTuple, Optional, Tuple

from ..ir import types as T
from .arguments import OPTIONAL, REQUIRED, UNSUPPORTED, Param

__all__ = ["Param", "Spec", "REQUIRED", "OPTIONAL", "UNSUPPORTED", "LIST_METHODS",
           "DICT_METHODS", "STR_METHODS", "MATH", "MATH_INT_ONLY", "MATH_CONSTANTS"]

WHITESPACE = " \n\t\f\v"

ResultFn = Callable[[List[T.Type]], Optional[T.Type]]


class Spec(NamedTuple):
    """One callable: ``kind(args...)`` with ``params`` as ``(name, default)`` pairs
    (``REQUIRED`` for no default) and ``result(arg_types)`` giving the output type
    (None: the node has no output), or raising TypeError with a message."""

    kind: str
    params: Tuple[Param, ...]
    result: ResultFn
    returns_none: bool = False   # Python's value of the call is None (list.append...)


def _p(*names: str, **defaults: Any) -> Tuple[Param, ...]:
    return tuple(Param(n) for n in names) + tuple(Param(n, d) for n, d in defaults.items())


def _fixed(t: Optional[T.Type]) -> ResultFn:
    return lambda types: t


def _first(types: List[T.Type]) -> T.Type:
    return types[0]


def _elem(types: List[T.Type]) -> T.Type:
    return types[0].elem


def _dict_value(types):
    return types[0].value


# -- methods, by receiver ----------------------------------------------------------------
LIST_METHODS: Dict[str, Spec] = {
    "append": Spec("aten::append", _p("self", "el"), _first, True),
    "insert": Spec("aten::insert", _p("self", "idx", "el"), _fixed(None), True),
    "extend": Spec("aten::extend", _p("self", "other"), _fixed(None), True),
    "pop": Spec("aten::pop", _p("self", idx=-1), _elem),
    "remove": Spec("aten::remove", _p("self", "el"), _fixed(None), True),
    "index": Spec("aten::index", _p("self", "el"), _fixed(T.INT)),
    "count": Spec("aten::count", _p("self", "el"), _fixed(T.INT)),
    "sort": Spec("aten::sort", _p("self", reverse=False), _fixed(None), True),
    "reverse": Spec("aten::reverse", _p("self"), _fixed(None), True),
    "copy": Spec("aten::copy", _p("self"), _first),
    "clear": Spec("aten::clear", _p("self"), _fixed(None), True),
}

DICT_METHODS: Dict[str, Spec] = {
    "keys": Spec("aten::keys", _p("self"), lambda ts: T.ListType(ts[0].key)),
    "values": Spec("aten::values", _p("self"), lambda ts: T.ListType(ts[0].value)),
    "items": Spec("aten::items", _p("self"),
                  lambda ts: T.ListType(T.TupleType([ts[0].key, ts[0].value]))),
    "get": Spec("aten::get", _p("self", "key", default=OPTIONAL), _dict_value),
    "pop": Spec("aten::pop", _p("self", "key", default=OPTIONAL), _dict_value),
    "setdefault": Spec("aten::setdefault", _p("self", "key", "default_value"), _dict_value),
    "update": Spec("aten::update", _p("self", "to_add"), _fixed(None), True),
    "copy": Spec("aten::copy", _p("self"), _first),
    "clear": Spec("aten::clear", _p("self"), _fixed(None), True),
}

STR_METHODS: Dict[str, Spec] = {
    **{m: Spec("aten::" + m, _p("self"), _fixed(T.STR))
       for m in ("upper", "lower", "capitalize", "title", "swapcase")},
    **{m: Spec("aten::" + m, _p("self"), _fixed(T.BOOL))
       for m in ("isdigit", "isalpha", "isalnum", "isspace", "islower", "isupper", "istitle",
                 "isdecimal", "isnumeric", "isidentifier", "isprintable")},
    **{m: Spec("aten::" + m, _p("self", chars=WHITESPACE), _fixed(T.STR))
       for m in ("strip", "lstrip", "rstrip")},
    "split": Spec("aten::split", _p("self", separator=None, max=-1), _fixed(T.ListType(T.STR))),
    "join": Spec("aten::join", _p("self", "values"), _fixed(T.STR)),
    "startswith": Spec("aten::startswith", _p("self", "prefix", start=0, end=-1), _fixed(T.BOOL)),
    "endswith": Spec("aten::endswith", _p("self", "suffix", start=0, end=-1), _fixed(T.BOOL)),
    "find": Spec("aten::find", _p("self", "substr", start=0, end=-1), _fixed(T.INT)),
    "rfind": Spec("aten::rfind", _p("self", "substr", start=0, end=-1), _fixed(T.INT)),
    "count": Spec("aten::count", _p("self", "substr", start=0, end=-1), _fixed(T.INT)),
    "replace": Spec("aten::replace", _p("self", "old", "new", max=-1), _fixed(T.STR)),
    "zfill": Spec("aten::zfill", _p("self", "width"), _fixed(T.STR)),
}

# -- math ---------------------------------------------------------------------------------
MATH_FLOAT = ("sqrt", "exp", "log", "log10", "log1p", "expm1", "sin", "cos", "tan", "asin",
               "acos", "atan", "sinh", "cosh", "tanh", "asinh", "acosh", "atanh", "erf",
               "erfc", "fabs", "gamma", "lgamma", "degrees", "radians")
MATH: Dict[str, Spec] = {
    **{f: Spec("aten::" + f, _p("x"), _fixed(T.FLOAT)) for f in MATH_FLOAT},
    "floor": Spec("aten::floor", _p("x"), _fixed(T.INT)),
    "ceil": Spec("aten::ceil", _p("x"), _fixed(T.INT)),
    "pow": Spec("aten::pow", _p("x", "y"), _fixed(T.FLOAT)),
    "atan2": Spec("aten::atan2", _p("y", "x"), _fixed(T.FLOAT)),
    "copysign": Spec("aten::copysign", _p("x", "y"), _fixed(T.FLOAT)),
    "fmod": Spec("aten::fmod", _p("x", "y"), _fixed(T.FLOAT)),
    "gcd": Spec("aten::gcd", _p("a", "b"), _fixed(T.INT)),
    "factorial": Spec("aten::factorial", _p("x"), _fixed(T.INT)),
    "isnan": Spec("aten::isnan", _p("x"), _fixed(T.BOOL)),
    "isinf": Spec("aten::isinf", _p("x"), _fixed(T.BOOL)),
    "isfinite": Spec("aten::isfinite", _p("x"), _fixed(T.BOOL)),
}
MATH_INT_ONLY = {"gcd", "factorial"}
MATH_CONSTANTS = {"pi": math.pi, "e": math.e, "tau": math.tau, "inf": math.inf,
                   "nan": math.nan}
