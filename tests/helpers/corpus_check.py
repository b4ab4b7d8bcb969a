"""One recorded case of a torch-made corpus, run by pyjit and checked against torch.

Shared by the corpus suites (``test_corpus.py``, ``test_jit_suite.py``); the case
format is the one tests/fixtures/README.md describes:

* ``expected``: the result must be the same value (:func:`values.assert_same`);
* ``error``: pyjit must raise a ``RuntimeError`` (a ``JITException`` where torch
  raised ``torch.jit.Error``, the program's own ``raise``/``assert``) whose message
  holds the interpreter's own line of torch's message and the ``file:line:`` of
  the statement torch's traceback points at last.  Where torch's error is a
  ``UnicodeDecodeError`` the interpreter did not fail: torch could not convert a
  result that is not UTF-8 into a Python ``str``.  pyjit returns such bytes as a
  ``str`` with surrogate escapes, and decoding them strictly must fail as torch did;
* ``stdout``: what the program printed, exactly.
"""

from __future__ import annotations

import copy
import re
from typing import Any, Callable, Dict, Mapping, Optional

import pytest

from pyjit.errors import JITException
from helpers.values import assert_same, decode

__all__ = ["check_case", "expected_text"]

# The last "File ..., line N" of torch's TorchScript traceback: the failing statement.
_TRACE_LINE = re.compile(r'File "([^"]+)", line (\d+)')


def expected_text(message: str) -> str:
    """The interpreter's own message: the last line of torch's, without the
    ``RuntimeError: `` that torch adds to every one."""
    last = message.strip().splitlines()[-1]
    return last[len("RuntimeError: "):] if last.startswith("RuntimeError: ") else last


def _first_undecodable(value: Any) -> Optional[UnicodeDecodeError]:
    """The error torch's conversion of ``value`` to Python meets first: a string
    whose bytes are not UTF-8, in the order torch converts (depth first)."""
    if isinstance(value, str):
        try:
            value.encode("utf-8", "surrogateescape").decode("utf-8")
        except UnicodeDecodeError as exc:
            return exc
        return None
    if isinstance(value, dict):
        value = [x for item in value.items() for x in item]
    if isinstance(value, (list, tuple)):
        for item in value:
            found = _first_undecodable(item)
            if found is not None:
                return found
    return None


def check_case(fn: Callable, case: Dict[str, Any], where: str, capsys=None,
               self_arg: Any = None, enums: Optional[Mapping[str, type]] = None) -> None:
    """Run ``fn`` on the case's arguments (after ``self_arg``, when a module
    program has one) and assert that it does what torch did; enum members are of
    the classes ``enums`` names (:func:`values.enum_classes`)."""
    args = [decode(a, enums) for a in case["args"]]
    if self_arg is not None:
        args.insert(0, self_arg)
    args = copy.deepcopy(args)
    err = case.get("error")
    if err is not None and err["type"] == "UnicodeDecodeError":
        found = _first_undecodable(fn(*args))
        assert found is not None, f"{where}: every string of the result is UTF-8"
        assert str(found) == err["message"], f"{where}: {found}"
    elif err is not None:
        with pytest.raises(RuntimeError) as info:
            fn(*args)
        message = str(info.value)
        assert expected_text(err["message"]) in message, f"{where}: {message}"
        if err["type"] == "torch.jit.Error":
            assert isinstance(info.value, JITException), where
        traced = _TRACE_LINE.findall(err["message"])
        if traced:
            file, line = traced[-1]
            assert f"{file}:{line}:" in message, f"{where}: no {file}:{line} in {message}"
    else:
        assert_same(fn(*args), decode(case["expected"], enums), where)
    if "stdout" in case:
        assert capsys is not None, f"{where}: the case records stdout"
        assert capsys.readouterr().out == case["stdout"], where
