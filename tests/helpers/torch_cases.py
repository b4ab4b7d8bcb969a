"""The torch-recorded tensor fixtures: ``tests/fixtures/opdb`` (torch's operator
database) and ``tests/fixtures/library`` (library-style tensor functions).

Each directory holds ``cases.json`` and ``arrays.npz`` (written by
``tools/fixtures/make_opdb.py`` and ``make_library.py``).  The JSON encoding is
the corpus's (:mod:`helpers.values`), plus:

=========================  ==============================================
JSON                       Python value
=========================  ==============================================
``{"array": "<key>"}``     the array of that key in ``arrays.npz``
``{"dtype": "float32"}``   the dtype's ScalarType code (what pyjit returns
                           for ``x.dtype``)
``{"device": "cpu"}``      the device's string (pyjit's Device values)
``{"enum": ..., "name":}``  a member of the enum class of that name, which
                           the entry's ``enums`` records (its members)
``{"uninitialised": ...}``  an ``empty`` result: only its ``shape`` and
                           ``dtype`` are compared (torch's values are
                           whatever memory held)
=========================  ==============================================

:func:`assert_close` compares a result with torch's: types and dtypes exactly,
integers and bools exactly, floating point (and complex) within torch's own
tolerance for the dtype (``torch.testing.assert_close``'s defaults: float32 and
complex64 ``rtol=1.3e-6, atol=1e-5``, float64 ``1e-7, 1e-7``, float16 ``1e-3,
1e-5``), ``atol`` scaled by the tensor's largest magnitude when that exceeds 1:
numpy and ATen round their libm and their sums differently, and a last-bit
difference grows with the numbers it is computed from (``500 * (x - y)`` of two
cube roots near 1 differs by 3e-5 after a one-ulp difference in ``pow``).
"""

from __future__ import annotations

import copy
import enum
import gzip
import json
import math
from functools import lru_cache
from pathlib import Path
from typing import Any, Dict, List

import numpy as np

from pyjit.ops.dtypes import code_of

from . import values

__all__ = ["FixtureSet", "load", "read_cases", "run_entry", "assert_close", "expected_error_text", "run_case"]

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"

#: torch.testing.assert_close's default (rtol, atol) per dtype.
_TOLERANCES = {"float16": (1e-3, 1e-5), "float32": (1.3e-6, 1e-5), "float64": (1e-7, 1e-7),
               "complex64": (1.3e-6, 1e-5), "complex128": (1e-7, 1e-7)}


class FixtureSet:
    """One fixture directory: its entries and the arrays they name."""

    def __init__(self, directory: Path) -> None:
        meta = read_cases(directory)
        self.torch = meta["torch"]
        self.entries: List[Dict[str, Any]] = meta["entries"]
        with np.load(directory / "arrays.npz") as npz:
            self.arrays = {key: npz[key] for key in npz.files}
        self.by_name = {e["name"]: e for e in self.entries}
        #: enum classes by ``<module>.<class>``, rebuilt from the members the
        #: entries' ``enums`` recorded (the real corpus: kornia's ``CFA``...)
        self.enums: Dict[str, type] = {}
        for e in self.entries:
            for cls in e.get("enums", ()):
                key = f"{cls['module']}.{cls['name']}"
                if key not in self.enums:
                    self.enums[key] = enum.Enum(cls["name"], cls["members"], module=cls["module"],
                                                qualname=cls["name"])

    def decode(self, v: Any) -> Any:
        """The Python value of a JSON-encoded value (arrays are fresh copies)."""
        if isinstance(v, list):
            return [self.decode(x) for x in v]
        if isinstance(v, dict):
            if "array" in v:
                return self.arrays[v["array"]].copy()
            if "enum" in v:
                return self.enums[v["enum"]][v["name"]]
            if "dtype" in v:
                return code_of(np.dtype(v["dtype"]))
            if "device" in v:
                return v["device"]
            if "uninitialised" in v:
                return Uninitialised((tuple(v["uninitialised"]["shape"]),
                                      np.dtype(v["uninitialised"]["dtype"])))
            if "tuple" in v:
                return tuple(self.decode(x) for x in v["tuple"])
            if "dict" in v:
                return {self.decode(k): self.decode(x) for k, x in v["dict"]}
        return values.decode(v)


def read_cases(directory: Path) -> Dict[str, Any]:
    """A directory's ``cases.json``, or its gzipped ``cases.json.gz`` (the real
    library corpus, whose inlined graphs are long)."""
    packed = directory / "cases.json.gz"
    if packed.exists():
        return json.loads(gzip.decompress(packed.read_bytes()))
    return json.loads((directory / "cases.json").read_text())


class Uninitialised(tuple):
    """An expected ``empty`` tensor: ``(shape, dtype)``, values undefined."""


@lru_cache(maxsize=None)
def load(name: str) -> FixtureSet:
    """``tests/fixtures/<name>``, read once per test session."""
    return FixtureSet(FIXTURES / name)


def assert_close(actual: Any, expected: Any, path: str = "result") -> None:
    """Raise AssertionError naming ``path`` where ``actual`` is not torch's value
    (see the module docstring for the tolerances)."""
    if isinstance(expected, Uninitialised):
        shape, dtype = expected
        assert isinstance(actual, np.ndarray) and actual.shape == shape and \
            actual.dtype == dtype, f"{path}: expected an empty {dtype} tensor of shape " \
                                   f"{shape}, got {actual!r}"
        return
    if isinstance(expected, np.ndarray):
        values.assert_same_kind_of_array(actual, expected, path)
        if expected.dtype.name in _TOLERANCES:
            rtol, atol = _TOLERANCES[expected.dtype.name]
            finite = expected[np.isfinite(expected)]
            scale = float(np.max(np.abs(finite))) if finite.size else 1.0
            np.testing.assert_allclose(actual, expected, rtol=rtol, atol=atol * max(1.0, scale),
                                       equal_nan=True, err_msg=path)
        else:
            np.testing.assert_array_equal(actual, expected, err_msg=path)
        return
    if isinstance(expected, float) and isinstance(actual, float):
        if math.isnan(expected):
            assert math.isnan(actual), f"{path}: {actual!r}, expected nan"
            return
        assert math.isclose(actual, expected, rel_tol=1.3e-6, abs_tol=1e-5), \
            f"{path}: {actual!r}, expected {expected!r}"
        return
    if isinstance(expected, (list, tuple)) and isinstance(actual, type(expected)):
        assert len(actual) == len(expected), \
            f"{path}: {len(actual)} elements, expected {len(expected)}"
        for i, (a, e) in enumerate(zip(actual, expected)):
            assert_close(a, e, f"{path}[{i}]")
        return
    values.assert_same(actual, expected, path)


def expected_error_text(message: str) -> str:
    """The interpreter's own message in torch's error text: its last line, without
    the exception class torch prefixes (``RuntimeError: ``, ``builtins.ValueError: ``)."""
    last = message.strip().splitlines()[-1]
    for prefix in ("RuntimeError: ", "builtins."):
        if last.startswith(prefix):
            last = last[len(prefix):]
            if prefix == "builtins.":
                last = last.split(": ", 1)[1] if ": " in last else last
    return last


def run_case(fn, fixtures: FixtureSet, case: Dict[str, Any], where: str) -> None:
    """Run one recorded case with pyjit's ``fn``: torch's value, or torch's error."""
    args = [fixtures.decode(a) for a in case["args"]]
    if "error" in case:
        error = case["error"]
        message = error["message"] if isinstance(error, dict) else error
        try:
            fn(*copy.deepcopy(args))
        except RuntimeError as exc:
            text = expected_error_text(message)
            assert text in str(exc), f"{where}: raised {str(exc)!r}, expected {text!r}"
            return
        raise AssertionError(f"{where}: no error; torch raised {message.splitlines()[-1]!r}")
    assert_close(fn(*args), fixtures.decode(case["expected"]), where)


def run_entry(fn, fixtures: FixtureSet, entry: Dict[str, Any]) -> None:
    """Run every recorded case of ``entry`` with pyjit's ``fn`` (:func:`run_case`);
    where torch's error was the function's own ``raise`` (a ``torch.jit.Error``),
    pyjit's must be a :class:`~pyjit.errors.JITException`, as torch's is a jit
    Error."""
    from pyjit.errors import JITException
    for i, case in enumerate(entry["cases"]):
        run_case(fn, fixtures, case, f"{entry['name']} case {i}")
        if "error" in case and case["error"]["type"] == "torch.jit.Error":
            try:
                fn(*[fixtures.decode(a) for a in case["args"]])
            except JITException:
                continue
            except Exception as exc:
                raise AssertionError(f"{entry['name']} case {i}: raised {type(exc).__name__}, "
                                     f"not a JITException") from exc
            raise AssertionError(f"{entry['name']} case {i}: no error")
