"""The ``prim`` operators that are ordinary calls: tuples, casts, raise, print, isinstance.

(``prim::If``, ``Loop``, ``Constant``, ``Load``, ``Store``, ``Drop`` and
``aten::wait`` are instructions of the interpreter, not operators; the code
generator compiles the subgraphs of ``prim::fork`` and ``prim::awaitable`` and the
runtime runs them; lists and dicts are built in :mod:`pyjit.ops.lists` and
:mod:`pyjit.ops.dicts`.)

Most of these are specialised on the node when the Code is built, so the run
loop does no counting or attribute reading:

=========================  ===================================================
``prim::TupleConstruct``   n inputs -> a tuple of them
``prim::TupleUnpack``      n outputs -> ``tuple`` itself (it returns a tuple
                           unchanged, from C) or ``itemgetter(0)`` for one output
``prim::TupleIndex``       ``operator.getitem`` (negative indices as Python)
``prim::TupleSlice``       ``itemgetter(slice(beg, end))`` from the node's attributes
``prim::Uninitialized``    ``NoneType()`` -- a placeholder torch never reads
``prim::unchecked_cast``   the identity
``aten::_unwrap_optional`` the value of an Optional; None is "Unwrapping null optional"
``prim::RaiseException``   raises :class:`pyjit.errors.JITException`
``prim::Print``            prints its inputs as TorchScript does, space separated
``prim::isinstance``       tests the runtime value against the ``types`` attribute
                           (:func:`~pyjit.ir.type_relation.instance_check`)
``prim::Enter``/``Exit``   calls ``__enter__``/``__exit__`` of the object, if any;
                           of torch's ``no_grad``/``enable_grad``, sets the grad mode
=========================  ===================================================
"""

from __future__ import annotations

import operator
import sys
from typing import Any, Callable, Dict, List, Optional

from ..errors import JITException
from ..ir import types as T
from ..ir.type_relation import instance_check
from ..ir.types import class_type_name
from .grad_mode import GRAD_MODE_CLASSES, enter_grad_mode, exit_grad_mode
from .objects import ScriptObject
from ..registry import library as R

__all__ = ["tuple_construct", "raise_exception", "print_values", "isinstance_check"]

_NoneType = type(None)


def tuple_construct(n: int) -> Callable:
    """The ``prim::TupleConstruct`` operator for ``n`` inputs."""
    if n == 0:
        return tuple  # tuple() is (), from C
    def construct(*items):
        return items
    construct.__name__ = "tuple_construct"
    return construct


def _tuple_unpack(node) -> Callable:
    n = len(node.outputs)
    # Several outputs: the loop unpacks the tuple itself; ``tuple(t) is t``.
    return operator.itemgetter(0) if n == 1 else tuple


def _tuple_slice(node) -> Callable:
    beg = node.attrs.get("beg", 0)
    end = node.attrs.get("end")
    return operator.itemgetter(slice(beg, end))


def identity(x: Any) -> Any:
    return x


def object_id(x: Any) -> int:
    """``prim::id``: an object's identity as an int (its address, as torch's is
    the object's pointer), 0 for None."""
    return 0 if x is None else id(x)


def unwrap_optional(x: Any) -> Any:
    """``aten::_unwrap_optional``: the value of an Optional that is not None."""
    if x is None:
        raise ValueError("Unwrapping null optional")
    return x


def raise_exception(msg: str, python_class: Optional[str] = None) -> None:
    """``prim::RaiseException``: the user's ``raise`` or a failed ``assert``."""
    raise JITException(msg, msg=msg, python_class=python_class)


def print_values(*values: Any) -> None:
    """``prim::Print``: TorchScript's text of each input, separated by spaces.
    torch writes a string's bytes, whole characters or not: so does pyjit where
    the stream has bytes (a text-only stream gets U+FFFD for a cut character)."""
    from .formatting import torch_str
    text = " ".join(map(torch_str, values)) + "\n"
    try:
        sys.stdout.write(text)
    except UnicodeEncodeError:  # bytes of a cut character, kept as surrogate escapes
        from .strings import to_bytes
        data = to_bytes(text)
        buffer = getattr(sys.stdout, "buffer", None)
        if buffer is None:
            sys.stdout.write(data.decode("utf-8", "replace"))
        else:
            sys.stdout.flush()
            buffer.write(data)
            buffer.flush()


# -- isinstance -------------------------------------------------------------------

def isinstance_check(types: List[Any]) -> Callable[[Any], bool]:
    """The ``prim::isinstance[types=[...]]`` operator: true when the value is of
    any of the listed types (pyjit types, or their text), by the type relation's
    test of values (:func:`pyjit.ir.type_relation.instance_check`)."""
    from ..registry import parse_type_spec
    for t in types:
        if not isinstance(t, (str, T.Type)):
            raise TypeError(f"prim::isinstance cannot test for type {str(t)!r}")
    checks = [instance_check(parse_type_spec(t.strip() if isinstance(t, str) else t))
              for t in types]
    if len(checks) == 1:
        return checks[0]
    return lambda v: any(check(v) for check in checks)


def _isinstance_factory(node) -> Callable:
    types = node.attrs.get("types")
    if types is None:
        raise TypeError("prim::isinstance needs a types attribute")
    if not isinstance(types, (list, tuple)):
        types = [types]
    return isinstance_check(list(types))


def _grad_mode_class(obj: Any, kind: str) -> Optional[bool]:
    """For an object a graph made (:class:`~pyjit.ops.objects.ScriptObject`): the
    grad mode it sets if it is torch's ``no_grad``/``enable_grad``; any other
    class's ``__enter__``/``__exit__`` are graphs only its unit can run."""
    name = class_type_name(type(obj))
    if name in GRAD_MODE_CLASSES:
        return GRAD_MODE_CLASSES[name]
    method = "__enter__" if kind == "prim::Enter" else "__exit__"
    raise TypeError(f"{kind} on an object of {name}: its {method} is a method graph of "
                    "the class; run the graph in a pyjit.CompilationUnit that holds the "
                    "class's methods")


def enter(obj: Any) -> Any:
    """``prim::Enter``: the object's ``__enter__()`` (a Python object's own)."""
    if isinstance(obj, ScriptObject):
        enter_grad_mode(obj, _grad_mode_class(obj, "prim::Enter"))
        return None
    method = getattr(obj, "__enter__", None)
    return method() if method is not None else None


def exit_(obj: Any) -> Any:
    """``prim::Exit``: the object's ``__exit__(None, None, None)``."""
    if isinstance(obj, ScriptObject):
        _grad_mode_class(obj, "prim::Exit")
        exit_grad_mode(obj)
        return None
    method = getattr(obj, "__exit__", None)
    return method(None, None, None) if method is not None else None


# -- registrations ------------------------------------------------------------------

R.register("prim::TupleConstruct", factory=lambda node: tuple_construct(len(node.inputs)))
R.register("prim::TupleUnpack", factory=_tuple_unpack)
R.implement("prim::TupleIndex", operator.getitem)
R.register("prim::TupleSlice", factory=_tuple_slice)
R.implement("prim::Uninitialized", _NoneType)
R.implement("prim::unchecked_cast", identity)
# torch's frontend once unwrapped a refined Optional with this: no check, as its name says
R.implement("prim::unchecked_unwrap_optional", identity)
R.implement("prim::id", object_id)
R.implement("aten::_unwrap_optional", unwrap_optional)
R.implement("prim::RaiseException", raise_exception)
R.register("prim::RaiseException", raise_exception, types=["str"])
R.register("prim::Print", print_values)
R.register("prim::isinstance", factory=_isinstance_factory, types=["t"])
R.register("prim::Enter", enter, types=["t"])
R.register("prim::Exit", exit_, types=["t"])
