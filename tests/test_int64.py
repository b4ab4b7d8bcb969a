"""The compiled int64 operators of ``pyjit.ops._int64`` against their Python twins in
``pyjit.ops.scalars``: same values, same wrap-around, same errors."""

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from pyjit.ops import scalars

from helpers.backends import import_compiled

INT64_MIN, INT64_MAX = -2**63, 2**63 - 1
EDGES = [0, 1, -1, 2, -2, 7, -7, INT64_MIN, INT64_MAX, INT64_MIN + 1, INT64_MAX - 1]

int64s = st.one_of(st.sampled_from(EDGES), st.integers(INT64_MIN, INT64_MAX))
# What else can reach an int operator: bools, and Python ints beyond int64.
anything = st.one_of(int64s, st.booleans(), st.integers(-2**70, 2**70))

NAMES = ["add", "sub", "mul", "floordiv", "remainder"]


@pytest.fixture(scope="module")
def core():
    return import_compiled("pyjit.ops._int64")


def outcome(fn, a, b):
    try:
        return ("ok", fn(a, b), type(fn(a, b)))
    except ZeroDivisionError as exc:
        return ("raise", type(exc), str(exc))


@pytest.mark.parametrize("name", NAMES)
@given(a=anything, b=anything)
@example(a=INT64_MIN, b=-1)
@example(a=INT64_MAX, b=1)
@example(a=5, b=0)
def test_c_operator_equals_python_twin(core, name, a, b):
    assert outcome(getattr(core, f"int_{name}"), a, b) == \
        outcome(getattr(scalars, f"int_{name}"), a, b)


@pytest.mark.parametrize("name, a, b, expected", [
    ("add", INT64_MAX, 1, INT64_MIN),
    ("sub", INT64_MIN, 1, INT64_MAX),
    ("mul", 2**62, 4, 0),
    ("mul", INT64_MAX, 2, -2),
    ("floordiv", INT64_MIN, -1, INT64_MIN),
    ("floordiv", -7, 2, -4),
    ("remainder", -7, 2, 1),
    ("remainder", 7, -2, -1),
    ("remainder", INT64_MIN, -1, 0),
])
def test_torch_semantics_pinned(core, name, a, b, expected):
    assert getattr(core, f"int_{name}")(a, b) == expected
    assert getattr(scalars, f"int_{name}")(a, b) == expected


def test_zero_division_messages(core):
    with pytest.raises(ZeroDivisionError, match="^division by 0$"):
        core.int_floordiv(1, 0)
    with pytest.raises(ZeroDivisionError, match="^integer modulo by zero$"):
        core.int_remainder(1, 0)


def test_the_registry_calls_c_code_when_it_was_built(core):
    """Whichever loop is active: the operator table does not depend on it."""
    assert scalars.INT64_OPS["add"] is core.int_add
    assert type(core.int_add).__name__ == "builtin_function_or_method"
