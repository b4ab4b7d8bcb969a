"""Operators on dicts (``Dict(K, V)``), with TorchScript's semantics and messages.

Dicts are Python dicts; both keep insertion order, as torch's do.  ``keys``,
``values`` and ``items`` return new lists (TorchScript has no views; ``items``
gives a list of tuples).  A missing key fails as torch does, with the key as
TorchScript prints it and no quotes: ``KeyError: b`` (hence this module's own
:class:`KeyError`, a subclass of the builtin one whose text is not ``repr``-quoted).

Registered: ``prim::DictConstruct``, ``aten::dict``, ``__getitem__ _set_item get
setdefault pop popitem Delete keys values items len __contains__ copy clear update``.

Float keys compare with ``==`` in torch, so a nan key never finds an entry, not
even the one it made: ``d[nan] = 1`` twice makes two entries, and ``nan in d`` is
false.  Python's dict would find the same nan object; the float-keyed forms
(:func:`nan_keys`) hand it a fresh nan instead, which finds nothing.
"""

from __future__ import annotations

import builtins
import operator
from typing import Any, Dict

from ..registry import library as R

__all__ = ["KeyError", "getitem", "keys", "values", "items", "dict_pop", "dict_delete",
           "popitem", "dict_construct", "nan_keys"]


class KeyError(builtins.KeyError):
    """A missing key, worded as torch words it: ``str(e)`` is the key's text."""

    def __str__(self) -> str:
        return self.args[0] if self.args else ""


def _missing(key: Any) -> KeyError:
    from .formatting import torch_str
    return KeyError(torch_str(key))


def getitem(d: Dict[Any, Any], key: Any) -> Any:
    # Written out, not one of _keyed's: ``d[key]`` is a third quicker than a call
    # of dict.__getitem__, and this is the dict operator a loop runs most.
    try:
        return d[key]
    except builtins.KeyError:
        raise _missing(key) from None


def _keyed(method: Any, name: str, doc: str) -> Any:
    """The operator ``method(d, key)`` named ``name``, a missing key failing as
    torch says it (``KeyError: b``)."""
    def op(d: Dict[Any, Any], key: Any) -> Any:
        try:
            return method(d, key)
        except builtins.KeyError:
            raise _missing(key) from None
    op.__name__ = op.__qualname__ = name
    op.__doc__ = doc
    return op


dict_pop = _keyed(dict.pop, "dict_pop", "``d.pop(key)`` (``aten::pop``).")
dict_delete = _keyed(dict.__delitem__, "dict_delete", "``del d[key]`` (``aten::Delete``).")


def keys(d: Dict[Any, Any]) -> list:
    return list(d)


def values(d: Dict[Any, Any]) -> list:
    return list(d.values())


def items(d: Dict[Any, Any]) -> list:
    return list(d.items())


def popitem(d: Dict[Any, Any]) -> tuple:
    """Removes and returns the *first* item: torch pops the head of its ordered
    dict, where Python's ``dict.popitem`` pops the last one."""
    for key in d:
        return key, d.pop(key)
    raise KeyError("popitem(): dictionary is empty")


def dict_construct(n_inputs: int):
    """The ``prim::DictConstruct`` operator: inputs are key, value, key, value..."""
    if n_inputs % 2:
        raise ValueError(f"prim::DictConstruct takes key/value pairs, got {n_inputs} inputs")
    if n_inputs == 0:
        return dict

    def construct(*kv):
        return dict(zip(kv[::2], kv[1::2]))
    return construct


def _fresh_if_nan(key: Any) -> Any:
    return key if key == key else float("nan")


def nan_keys(op):
    """``op`` (a dict operator whose second argument is a key) for float-keyed
    dicts: a nan key is a fresh nan object, equal to no key (see above)."""
    def on_float_keys(d: Dict[Any, Any], key: Any, *rest: Any) -> Any:
        return op(d, key if key == key else float("nan"), *rest)
    on_float_keys.__name__ = getattr(op, "__name__", "op") + "_float_keys"
    return on_float_keys


def _construct_factory(node):
    keys_are_floats = str(node.outputs[0].type).startswith("Dict(float,") if node.outputs \
        else False
    construct = dict_construct(len(node.inputs))
    if not keys_are_floats or not node.inputs:
        return construct

    def construct_float_keys(*kv):
        return construct(*[_fresh_if_nan(x) if i % 2 == 0 else x for i, x in enumerate(kv)])
    return construct_float_keys


_D = "Dict(k, v)"
_F = "Dict(float, v)"

R.register("prim::DictConstruct", factory=_construct_factory)
R.implement("aten::dict", dict)
R.register("aten::dict", dict, types=[_D])
R.register("aten::dict", dict, types=["(k, v)[]"])
R.register("aten::__getitem__", getitem, types=[_D, "k"])
R.register("aten::_set_item", operator.setitem, types=[_D, "k", "v"])
R.register("aten::get", dict.get, types=[_D, "k"])
R.register("aten::get", dict.get, types=[_D, "k", "v"])
R.register("aten::setdefault", dict.setdefault, types=[_D, "k", "v"])
R.register("aten::pop", dict_pop, types=[_D, "k"])
R.register("aten::pop", dict.pop, types=[_D, "k", "v"])
R.register("aten::popitem", popitem, types=[_D])
R.register("aten::Delete", dict_delete, types=[_D, "k"])
R.register("aten::keys", keys, types=[_D])
R.register("aten::values", values, types=[_D])
R.register("aten::items", items, types=[_D])
R.register("aten::len", len, types=[_D])
R.register("aten::__contains__", operator.contains, types=[_D, "k"])
R.register("aten::copy", dict.copy, types=[_D])
R.register("aten::clear", dict.clear, types=[_D])
R.register("aten::update", dict.update, types=[_D, _D])

# Float keys: a nan key finds nothing (see the module docstring).
for _kind, _op, _more in (("aten::__getitem__", getitem, []),
                          ("aten::_set_item", operator.setitem, ["v"]),
                          ("aten::get", dict.get, []), ("aten::get", dict.get, ["v"]),
                          ("aten::setdefault", dict.setdefault, ["v"]),
                          ("aten::pop", dict_pop, []), ("aten::pop", dict.pop, ["v"]),
                          ("aten::Delete", dict_delete, []),
                          ("aten::__contains__", operator.contains, [])):
    R.register(_kind, nan_keys(_op), types=[_F, "float"] + _more)
