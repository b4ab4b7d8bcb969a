"""The corpus's JSON value encoding (tests/fixtures/README.md), and exact comparison.

=======================  =====================================================
JSON                     Python value
=======================  =====================================================
number, bool, str, null  int, bool, str, None
``{"float": "3.0"}``     float (``"nan"``, ``"inf"``, ``"-inf"`` too)
``{"tuple": [...]}``     tuple
array                    list
``{"dict": [[k, v]]}``   dict, in that insertion order
``{"tensor": ...}``      numpy array of ``dtype`` and ``shape``
``{"enum": "Color"...}`` a member of the Python enum class ``Color``
=======================  =====================================================

Graphs name enum members but not their values, so a program that uses enums
records its classes (``"enums"`` in tests/fixtures/jit_suite):
:func:`enum_classes` makes them, as Python ``enum.Enum`` classes named as torch
named the originals (``__torch__.enums.Color`` is class ``Color`` of module
``enums``), and :func:`decode` takes them to decode members.

A module program's ``self`` (``"module"`` in tests/fixtures/jit_suite) decodes with
:func:`decode_module` to a plain object holding the attributes and submodules.

:func:`assert_same` compares a pyjit result with a decoded expected value: types
exactly (an int is not a float, a list not a tuple), floats exactly (NaN equals
NaN; only a float that is itself a float32 value, as read from a float32 tensor,
may differ by a few float32 ulps), arrays by dtype, shape and values (exactly for integers and bools, within a
tight relative tolerance for floating point, whose last bits depend on the order
in which numpy and ATen sum).
"""

from __future__ import annotations

import enum
import math
import types
from typing import Any, Dict, Mapping, Optional

import numpy as np

__all__ = ["decode", "decode_module", "enum_classes", "assert_same", "assert_same_kind_of_array"]


def enum_classes(definitions: Any) -> Dict[str, type]:
    """``{class name: enum class}`` from a program's ``"enums"`` record
    (``[[qualified name, [[member, value], ...]], ...]``): each class made in the
    module its qualified name says, so pyjit names it as torch named the original."""
    classes = {}
    for qualified, members in definitions or ():
        module, _, name = qualified[len("__torch__."):].rpartition(".")
        classes[name] = enum.Enum(name, [(m, decode(v)) for m, v in members],
                                  module=module, qualname=name)
    return classes

_SPECIAL = {"nan": math.nan, "inf": math.inf, "-inf": -math.inf}


def _element(x: Any) -> Any:
    return _SPECIAL[x] if isinstance(x, str) else x


def _elements(x: Any) -> Any:
    return [_elements(e) for e in x] if isinstance(x, list) else _element(x)


def decode(v: Any, enums: Optional[Mapping[str, type]] = None) -> Any:
    """The Python value of a JSON-encoded corpus value; enum members are of the
    classes ``enums`` names (:func:`enum_classes`)."""
    if isinstance(v, list):
        return [decode(x, enums) for x in v]
    if isinstance(v, dict):
        if "float" in v:
            return float(v["float"])
        if "tuple" in v:
            return tuple(decode(x, enums) for x in v["tuple"])
        if "dict" in v:
            return {decode(k, enums): decode(x, enums) for k, x in v["dict"]}
        if "tensor" in v:
            return np.array(_elements(v["tensor"]), dtype=v["dtype"]).reshape(v["shape"])
        if "enum" in v:
            if not enums or v["enum"] not in enums:
                raise ValueError(f"no definition of enum {v['enum']}: give enum_classes(...)")
            member = enums[v["enum"]][v["name"]]
            assert member.value == decode(v["value"]), f"{member}: recorded {v['value']}"
            return member
        raise ValueError(f"unknown encoded value {v!r}")
    return v


def decode_module(state: dict, enums: Optional[Mapping[str, type]] = None
                  ) -> types.SimpleNamespace:
    """The object a module program's ``self`` stands for: its attributes and, by
    name, its submodules, as attributes of a plain object."""
    obj = types.SimpleNamespace(**{k: decode(v, enums) for k, v in state["attributes"]})
    for name, sub in state["modules"]:
        setattr(obj, name, decode_module(sub, enums))
    return obj


def _is_float32(x: float) -> bool:
    return math.isfinite(x) and float(np.float32(x)) == x


def assert_same_kind_of_array(actual: Any, expected: np.ndarray, path: str) -> None:
    """``actual`` is an array of ``expected``'s dtype and shape."""
    assert isinstance(actual, np.ndarray), \
        f"{path}: expected a tensor, got {type(actual).__name__} {actual!r}"
    assert actual.dtype == expected.dtype, \
        f"{path}: dtype {actual.dtype}, expected {expected.dtype}"
    assert actual.shape == expected.shape, \
        f"{path}: shape {actual.shape}, expected {expected.shape}"


def assert_same(actual: Any, expected: Any, path: str = "result") -> None:
    """Raise AssertionError naming ``path`` where ``actual`` and ``expected`` differ."""
    if isinstance(expected, np.ndarray):
        assert_same_kind_of_array(actual, expected, path)
        if expected.dtype.kind == "f":
            np.testing.assert_allclose(actual, expected, rtol=2e-6, atol=1e-6, equal_nan=True,
                                       err_msg=path)
        else:
            np.testing.assert_array_equal(actual, expected, err_msg=path)
        return
    assert type(actual) is type(expected), \
        f"{path}: {type(actual).__name__} {actual!r}, expected " \
        f"{type(expected).__name__} {expected!r}"
    if isinstance(expected, float):
        if actual == expected or (math.isnan(actual) and math.isnan(expected)):
            return
        # A float read out of a float32 tensor (``float(t.mean())``) carries float32
        # rounding: a few float32 ulps are allowed there, and nowhere else.
        assert _is_float32(expected) and math.isclose(actual, expected, rel_tol=5e-7), \
            f"{path}: {actual!r}, expected {expected!r}"
    elif isinstance(expected, (list, tuple)):
        assert len(actual) == len(expected), \
            f"{path}: {len(actual)} elements, expected {len(expected)}: {actual!r}"
        for i, (a, e) in enumerate(zip(actual, expected)):
            assert_same(a, e, f"{path}[{i}]")
    elif isinstance(expected, dict):
        assert list(actual) == list(expected), \
            f"{path}: keys {list(actual)!r}, expected {list(expected)!r}"
        for k in expected:
            assert_same(actual[k], expected[k], f"{path}[{k!r}]")
    else:
        assert actual == expected, f"{path}: {actual!r}, expected {expected!r}"
