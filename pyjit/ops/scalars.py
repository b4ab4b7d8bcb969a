"""Operators on ``int``, ``float``, ``bool`` and ``None`` with TorchScript's semantics.

Where Python's operator already does what TorchScript does, the C function itself
is registered (``aten::add(int, int)`` is ``operator.add``, ``aten::lt`` is
``operator.lt``, ``aten::floor(float)`` is ``math.floor``...), so the run loop calls
it with no Python frame.  Wrappers exist only where TorchScript differs from Python
(checked against torch 2.13):

=============================  ====================================================
``a / b``, ``a // b`` (floats)  IEEE results instead of ZeroDivisionError: ``1/0`` is
                                ``inf``, ``0/0`` is ``nan``; float ``//`` is
                                ``floor(a / b)`` (``1.0 // 0.1 == 10.0``)
``a // 0`` (ints)               ZeroDivisionError("division by 0")
``a % 0``                       ``nan`` for floats; ints: ZeroDivisionError (torch dies
                                of SIGFPE here, so there is no message to copy)
``a ** b`` (float result)       ``nan`` instead of a complex number, ``inf`` on
                                overflow; ``0.0 ** -1`` keeps Python's message, which
                                is torch's
``min``/``max`` (floats)        ``a if a < b else b``: with a NaN the result depends on
                                the order, as in torch
``int(x)`` of nan/inf/huge      INT64_MIN, what the C++ cast gives
``math.floor/ceil`` of nan/inf  "Cannot convert float nan to integer" (beyond int64
                                too); ``abs``, ``math.gcd``, ``math.factorial`` of
                                ints wrap to int64
``math.*`` domain errors        IEEE values (``sqrt(-1)`` is nan, ``log(0)`` is -inf,
                                ``exp(1000)`` is inf) where Python raises
``round``                       a float, ties to even (``round(2.5) == 2.0``)
``int(str)``/``float(str)``     C's ``stoll``/``stod``: leading white space only; no
                                number at all is "stoll"/"stod"
``x == x``                      True even for nan: torch's CSE and peephole passes
                                fold it (see ``same_scalar_expression``)
=============================  ====================================================

Registered for ``int``/``float`` (and ``Scalar``): ``add sub mul div floordiv
remainder pow neg``, ``lt le gt ge eq ne``, ``__and__ __or__ __xor__ __not__
__lshift__ __rshift__``, ``__is__``/``__isnot__`` on anything, casts ``Int Float
Bool``, ``prim::abs``/``min``/``max`` of two scalars, ``__range_length``,
``__derive_index`` and the ``math`` functions TorchScript exposes.
"""

from __future__ import annotations

import cmath
import math
import operator
import re

import numpy as np

from .. import opcodes
from ..registry import Intrinsic, library as R

__all__ = ["int_abs", "true_divide", "int_floordiv", "float_floordiv", "int_remainder",
           "float_remainder", "float_pow", "float_min", "float_max", "to_int", "str_to_int",
           "str_to_float", "range_length", "derive_index"]

_INT64_MIN = -2 ** 63
_INT64_MAX = 2 ** 63 - 1
_NAN = float("nan")
_INF = float("inf")
_TWO_63 = 2.0 ** 63

_INT_FLOAT_PAIRS = [("int", "int"), ("float", "float"), ("int", "float"), ("float", "int")]
_MIXED = [("int", "float"), ("float", "int"), ("float", "float")]


def wrap_int64(r: int) -> int:
    """``r`` reduced to int64 the way C++'s arithmetic wraps around."""
    return ((r + 2 ** 63) & (2 ** 64 - 1)) - 2 ** 63


def int_add(a, b):
    r = a + b
    if r.__class__ is int and not _INT64_MIN <= r <= _INT64_MAX:
        return wrap_int64(r)
    return r


def int_sub(a, b):
    r = a - b
    if r.__class__ is int and not _INT64_MIN <= r <= _INT64_MAX:
        return wrap_int64(r)
    return r


def int_mul(a, b):
    r = a * b
    if r.__class__ is int and not _INT64_MIN <= r <= _INT64_MAX:
        return wrap_int64(r)
    return r


def int_neg(a):
    r = -a
    return r if r.__class__ is not int or r <= _INT64_MAX else wrap_int64(r)


def int_abs(a):
    """``prim::abs(int)``: ``abs(INT64_MIN)`` wraps to INT64_MIN, as in torch."""
    r = abs(a)
    return r if r.__class__ is not int or r <= _INT64_MAX else wrap_int64(r)


def int_pow(a: int, b: int) -> int:
    """``aten::pow.int_to_int``."""
    if b < 0:
        return float_pow(a, b)  # not an int; torch's result is unspecified here
    return wrap_int64(pow(a, b, 2 ** 64)) if a.__class__ is int else a ** b


def _divide_by_zero(a, b) -> float:
    """``a / ±0`` in IEEE arithmetic."""
    if a == 0 or a != a:
        return _NAN
    return math.copysign(_INF, a) * math.copysign(1.0, b)


def true_divide(a, b) -> float:
    """``aten::div`` on numbers: always a float, computed on doubles as torch does
    (``9007199254740993 / 1`` is ``9007199254740992.0``); ``x / 0`` is inf or nan."""
    a, b = float(a), float(b)
    try:
        return a / b
    except ZeroDivisionError:
        return _divide_by_zero(a, b)


def int_floordiv(a: int, b: int) -> int:
    try:
        return int_add(a // b, 0)
    except ZeroDivisionError:
        raise ZeroDivisionError("division by 0") from None


def float_floordiv(a, b) -> float:
    """torch's float ``//``: ``floor(a / b)`` in IEEE arithmetic."""
    q = true_divide(a, b)
    if q != q or q in (_INF, -_INF):
        return q
    r = float(math.floor(q))
    return r if r else math.copysign(0.0, q)


def int_remainder(a: int, b: int) -> int:
    try:
        return a % b
    except ZeroDivisionError:
        raise ZeroDivisionError("integer modulo by zero") from None


def float_remainder(a, b) -> float:
    try:
        return float(a % b)
    except ZeroDivisionError:
        return _NAN


def float_pow(a, b) -> float:
    """``aten::pow`` with a float result (``2 ** 3`` is ``8.0`` in TorchScript), on
    doubles as torch computes it: ``(-2) ** (2**53 + 1)`` is ``+inf``, the exponent
    having rounded to an even double."""
    a, b = float(a), float(b)
    try:
        r = a ** b
    except OverflowError:
        return _INF if a > 0 or b % 2 == 0 else -_INF
    return _NAN if isinstance(r, complex) else r


def float_min(a, b) -> float:
    """``prim::min`` of numbers, on doubles as torch does."""
    a, b = float(a), float(b)
    return a if a < b else b


def float_max(a, b) -> float:
    """``prim::max`` of numbers, on doubles as torch does."""
    a, b = float(a), float(b)
    return a if a > b else b


def _on_doubles(compare):
    """A comparison of an int with a float, made as torch makes it: on doubles
    (``9007199254740993 == 9007199254740992.0`` is True)."""
    def op(a, b):
        return compare(float(a), float(b))
    op.__name__ = f"{compare.__name__}_on_doubles"
    op.__doc__ = f"``{compare.__name__}`` of two numbers converted to doubles."
    return op


_COMPARISONS = {name: (getattr(operator, name), _on_doubles(getattr(operator, name)))
                for name in ("lt", "le", "gt", "ge", "eq", "ne")}


def to_int(x) -> int:
    """``int(x)`` of a float or number as C++'s cast: nan, inf and values outside
    int64 give INT64_MIN."""
    try:
        r = int(x)
    except (ValueError, OverflowError):
        return _INT64_MIN
    return r if _INT64_MIN <= r <= _INT64_MAX else _INT64_MIN


# What C's strtoll/strtod read: leading white space, then a number.
_C_INT = re.compile(r"[ \t\n\v\f\r]*[+-]?[0-9]+")
_C_FLOAT = re.compile(r"[ \t\n\v\f\r]*[+-]?(?:(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?"
                      r"|inf(?:inity)?|nan)", re.IGNORECASE)


def str_to_int(s: str) -> int:
    """``int(s)`` as torch does it, with ``std::stoll``: "stoll" when no number
    starts the string or it is out of range, Python's message when it is
    followed by anything else."""
    m = _C_INT.match(s)
    if m is None or not _INT64_MIN <= int(m.group()) <= _INT64_MAX:
        raise ValueError("stoll")
    if m.end() != len(s):
        raise ValueError(f"invalid literal for int() with base 10: {s!r}")
    return int(m.group())


def str_to_float(s: str) -> float:
    """``float(s)`` as torch does it, with ``std::stod``."""
    m = _C_FLOAT.match(s)
    if m is None:
        raise ValueError("stod")
    x = float(m.group())
    if x in (_INF, -_INF) and "inf" not in m.group().lower():
        raise ValueError("stod")  # out of range
    if m.end() != len(s):
        raise ValueError(f"could not convert string to float: {s!r}")
    return x


def _to_integral(fn):
    def op(x):
        # torch's checkDoubleInRange: nan, inf and values beyond int64 are refused
        # (2.0 ** 63 itself passes, and C++'s cast of it wraps to INT64_MIN).
        if x != x or not -_TWO_63 <= x <= _TWO_63:
            raise ValueError(f"Cannot convert float {_c_float_text(x)} to integer")
        r = fn(x)
        return r if r <= _INT64_MAX else wrap_int64(r)
    op.__name__ = fn.__name__
    op.__doc__ = (f"``math.{fn.__name__}`` of a float into int64, failing with torch's "
                  "message on nan, inf and values beyond int64.")
    return op


def _c_float_text(x: float) -> str:
    """``x`` as C++'s ``std::to_string(double)`` writes it (``printf("%f")``):
    ``1000000000000000019884624838656.000000``, ``inf``, ``-nan``."""
    if x != x:
        return "-nan" if math.copysign(1.0, x) < 0 else "nan"
    return f"{x:f}"


def int_gcd(a: int, b: int) -> int:
    """``math.gcd`` in int64: ``gcd(-2**63, 0)`` is ``-2**63``, as torch's."""
    return wrap_int64(math.gcd(a, b))


def int_factorial(n: int) -> int:
    """``math.factorial`` as torch's int64 loop computes it: wrapped, and 0 from 66
    on (66! is the first with 64 factors of two), so a large ``n`` is instant."""
    if n < 0:
        raise ValueError("factorial() not defined for negative values")
    return 0 if n >= 66 else wrap_int64(math.factorial(n))


def round_half_even(x) -> float:
    """TorchScript's ``round``: ``std::nearbyint``, a float, ties to even."""
    if x != x or x in (_INF, -_INF):
        return float(x)
    return math.copysign(float(round(x)), x)


def range_length(lo: int, hi: int, step: int) -> int:
    """``aten::__range_length``: the trip count of ``for i in range(lo, hi, step)``."""
    if step == 0:
        raise ValueError("range() arg 3 must not be zero")
    return len(range(lo, hi, step))


def derive_index(index: int, start: int, step: int) -> int:
    """``aten::__derive_index``: the loop variable of trip ``index`` of a range."""
    return start + index * step


def _ieee(fn, np_fn):
    """``fn`` from ``math``, falling back to numpy's IEEE result where Python raises
    (domain error or overflow) and C's ``std::`` function returns nan/inf."""
    def op(*args):
        try:
            return fn(*args)
        except (ValueError, OverflowError):
            with np.errstate(all="ignore"):
                return float(np_fn(*(np.float64(a) for a in args)))
    op.__name__ = fn.__name__
    op.__doc__ = f"``math.{fn.__name__}`` with IEEE results instead of Python's errors."
    return op


def _gamma_ieee(x: float) -> float:
    if x == 0:
        return math.copysign(_INF, x)
    if x < 0 and x == math.floor(x):
        return _NAN
    return _INF


def gamma(x) -> float:
    try:
        return math.gamma(x)
    except (ValueError, OverflowError):
        return _gamma_ieee(float(x))


def lgamma(x) -> float:
    try:
        return math.lgamma(x)
    except (ValueError, OverflowError):
        return _INF


def log_base(a, b) -> float:
    """``math.log(a, b)``."""
    return true_divide(_log(a), _log(b))


def mathremainder(a, b) -> float:
    """``math.remainder``: IEEE remainder, nan for a zero divisor."""
    try:
        return math.remainder(a, b)
    except ValueError:
        return _NAN


def fmod(a, b) -> float:
    try:
        return math.fmod(a, b)
    except ValueError:
        return _NAN


_log = _ieee(math.log, np.log)

# -- arithmetic ------------------------------------------------------------------

def _int64_operators():
    """The int operators the registry gets: the C versions of
    :mod:`pyjit.ops._int64` when they were built (same semantics, no Python frame
    per call; each falls back to its Python twin here outside its int64 fast
    path), otherwise the Python functions above."""
    python = dict(add=int_add, sub=int_sub, mul=int_mul, floordiv=int_floordiv,
                  remainder=int_remainder)
    try:
        from . import _int64
    except ImportError:  # built without a compiler (PYJIT_PUREPYTHON=1)
        return python
    return {name: getattr(_int64, f"int_{name}") for name in python}


INT64_OPS = _int64_operators()

# int results wrap around at 64 bits as in C++ (``9223372036854775807 + 1`` is
# INT64_MIN), so only floats get Python's operators directly.
# Each operator on int/float pairs names its intrinsic instruction (pyjit.opcodes):
# an optimising Code runs that on unboxed registers, converting an int operand of
# a mixed pair to a double first, exactly as these functions (and torch) do.
for _name, _float_op, _i in [("add", operator.add, "ADD"), ("sub", operator.sub, "SUB"),
                             ("mul", operator.mul, "MUL")]:
    R.implement(f"aten::{_name}.int", INT64_OPS[_name], intrinsic=f"{_i}_I")
    R.implement(f"aten::{_name}", INT64_OPS[_name])
    for _a, _b in _MIXED:
        R.register(f"aten::{_name}", _float_op, types=[_a, _b], intrinsic=f"{_i}_F")
R.implement("aten::div.int", true_divide, intrinsic="DIV_I")
for _a, _b in _MIXED:
    R.register("aten::div", true_divide, types=[_a, _b], intrinsic="DIV_F")
R.implement("aten::div", true_divide)
R.implement("aten::floordiv.int", INT64_OPS["floordiv"], intrinsic="FLOORDIV_I")
R.implement("aten::remainder.int", INT64_OPS["remainder"], intrinsic="REM_I")
for _a, _b in _MIXED:
    R.register("aten::floordiv", float_floordiv, types=[_a, _b], intrinsic="FLOORDIV_F")
    R.register("aten::remainder", float_remainder, types=[_a, _b], intrinsic="REM_F")


def _generic(int_op, float_op):
    """An operator on two ``Scalar``s: the int version when both are ints."""
    def op(a, b):
        if type(a) is int and type(b) is int:
            return int_op(a, b)
        return float_op(a, b)
    return op


R.implement("aten::floordiv", _generic(int_floordiv, float_floordiv))
R.implement("aten::remainder", _generic(int_remainder, float_remainder))


def _pow_factory(node):
    # aten::pow.int_to_int is the only overload with an int result; the graph's
    # output type says which one torch chose.
    out = str(node.outputs[0].type) if node.outputs else "float"
    if out == "int":
        return int_pow
    if all(str(v.type) in ("int", "float") for v in node.inputs):
        return Intrinsic("POW_F", float_pow)
    return float_pow


for _a, _b in _INT_FLOAT_PAIRS + [("Scalar", "Scalar")]:
    R.register("aten::pow", factory=_pow_factory, types=[_a, _b])
R.implement("aten::neg.int", int_neg, intrinsic="NEG_I")
R.implement("aten::neg.Scalar", int_neg)
R.implement("aten::neg.float", operator.neg, intrinsic="NEG_F")

# -- comparisons and logic -------------------------------------------------------

# Scalar operators without side effects: torch's common-subexpression elimination
# merges two of them with the same inputs into one value.
_PURE = {f"aten::{n}" for n in ("add", "sub", "mul", "div", "neg", "floordiv", "remainder",
                                 "pow", "sqrt", "exp", "log", "Float", "Int")}
_SCALARS = {"int", "float", "bool", "Scalar", "Scalar"}


def same_scalar_expression(u, v, depth: int = 8) -> bool:
    """Whether values ``u`` and ``v`` are one value for torch once it has run CSE:
    the same value, or the same pure scalar operation on such values in one block."""
    if u is v:
        return True
    n, m = u.node, v.node
    if depth == 0 or n.kind != m.kind or n.owning_block is not m.owning_block:
        return False
    if n.kind == "prim::Constant":
        return u.type == v.type and n.attrs == m.attrs and \
            all(x == x for x in n.attrs.values())  # nan attributes are never equal
    if n.kind not in _PURE or len(n.inputs) != len(m.inputs):
        return False
    if not all(str(x.type) in _SCALARS for x in n.inputs):
        return False
    return all(same_scalar_expression(a, b, depth - 1) for a, b in zip(n.inputs, m.inputs))


def _equality_factory(fn, when_same: bool, intrinsic):
    """``==``/``!=``: torch's peephole pass folds ``x == x`` to True (and ``x != x``
    to False) after CSE, so ``nan == nan`` is True when both sides are one value."""
    def factory(node):
        a, b = node.inputs
        if same_scalar_expression(a, b):
            return lambda x, y: when_same
        return Intrinsic(intrinsic, fn) if intrinsic else fn
    return factory


# The instruction suffix for a pair of operand types: ints compare as ints, bools
# as bools, anything with a float on doubles.
_SUFFIX = {("int", "int"): "_I", ("bool", "bool"): "_B"}
for _a, _b in _INT_FLOAT_PAIRS + [("Scalar", "Scalar"), ("bool", "bool")]:
    _exact = (_a, _b) in (("int", "int"), ("float", "float"), ("Scalar", "Scalar"),
                          ("bool", "bool"))
    _suffix = None if "Scalar" in (_a, _b) else _SUFFIX.get((_a, _b), "_F")
    for _name in ("lt", "le", "gt", "ge", "eq", "ne"):
        _fn = _COMPARISONS[_name][0 if _exact else 1]
        _i = _suffix and f"{_name.upper()}{_suffix}"
        if _i not in opcodes.BY_NAME:
            _i = None  # no intrinsic orders bools
        if _name in ("eq", "ne"):
            R.register(f"aten::{_name}", factory=_equality_factory(_fn, _name == "eq", _i),
                       types=[_a, _b])
        else:
            R.register(f"aten::{_name}", _fn, types=[_a, _b], intrinsic=_i)
for _name, _fn, _i in [("__and__", operator.and_, "AND"), ("__or__", operator.or_, "OR"),
                       ("__xor__", operator.xor, "XOR")]:
    R.implement(f"aten::{_name}.int", _fn, intrinsic=f"{_i}_I")
    R.implement(f"aten::{_name}.bool", _fn, intrinsic=f"{_i}_B")
R.implement("aten::__lshift__.int", lambda a, b: wrap_int64(a << b))
R.implement("aten::__rshift__.int", operator.rshift)
R.implement("aten::__not__", operator.not_, intrinsic="NOT_B")
R.implement("aten::__is__", operator.is_)
R.implement("aten::__isnot__", operator.is_not)
R.register("aten::eq", operator.is_, types=["NoneType", "NoneType"])

# -- casts -----------------------------------------------------------------------

R.implement("aten::Int.float", to_int, intrinsic="F2I")
R.implement("aten::Int.Scalar", to_int)
R.register("aten::Int", int, types=["int"])
R.implement("aten::Int.bool", int, intrinsic="B2I")
R.implement("aten::Int.str", str_to_int)
R.implement("aten::Float.int", float, intrinsic="I2F")
R.register("aten::Float", float, types=["float"])
R.implement("aten::Float.bool", float, intrinsic="B2F")
R.implement("aten::Float.Scalar", float)
R.implement("aten::Float.str", str_to_float)
for _t, _i in (("int", "I2B"), ("float", "F2B"), ("bool", None), ("Scalar", None)):
    R.register("aten::Bool", bool, types=[_t], intrinsic=_i)

# -- min, max, abs ---------------------------------------------------------------

R.implement("prim::min.int", min, intrinsic="MIN_I")
R.implement("prim::max.int", max, intrinsic="MAX_I")
for _a, _b in _MIXED:
    R.register("prim::min", float_min, types=[_a, _b], intrinsic="MIN_F")
    R.register("prim::max", float_max, types=[_a, _b], intrinsic="MAX_F")
R.implement("prim::min", float_min)
R.implement("prim::max", float_max)
R.implement("prim::abs.int", int_abs, intrinsic="ABS_I")
R.implement("prim::abs.float", abs, intrinsic="ABS_F")
R.implement("prim::abs.Scalar", abs)

# -- ranges ----------------------------------------------------------------------

R.implement("aten::__range_length", range_length)
R.implement("aten::__derive_index", derive_index)

# -- math ------------------------------------------------------------------------

# Never raise in Python, so C's result is Python's: registered as they are.
for _name in ("atan", "tanh", "erf", "erfc", "fabs", "degrees", "radians", "isnan",
              "isinf", "isfinite"):
    for _t in ("int", "float", "Scalar"):
        R.register(f"aten::{_name}", getattr(math, _name), types=[_t])
# Raise on some inputs where C returns nan or inf.
for _name, _np in [("sqrt", np.sqrt), ("exp", np.exp), ("log", np.log),
                   ("log10", np.log10), ("log1p", np.log1p), ("log2", np.log2),
                   ("expm1", np.expm1), ("sin", np.sin), ("cos", np.cos), ("tan", np.tan),
                   ("asin", np.arcsin), ("acos", np.arccos), ("sinh", np.sinh),
                   ("cosh", np.cosh), ("asinh", np.arcsinh), ("acosh", np.arccosh),
                   ("atanh", np.arctanh)]:
    _op = _log if _name == "log" else _ieee(getattr(math, _name), _np)
    for _t in ("int", "float", "Scalar"):
        R.register(f"aten::{_name}", _op, types=[_t])
for _t in ("int", "float", "Scalar"):
    R.register("aten::gamma", gamma, types=[_t])
    R.register("aten::lgamma", lgamma, types=[_t])
    R.register("aten::round", round_half_even, types=[_t])
R.implement("aten::floor.int", math.floor)
R.implement("aten::ceil.int", math.ceil)
R.implement("aten::floor.float", _to_integral(math.floor))
R.implement("aten::ceil.float", _to_integral(math.ceil))
R.implement("aten::floor.Scalar", _to_integral(math.floor))
R.implement("aten::ceil.Scalar", _to_integral(math.ceil))
for _a, _b in _INT_FLOAT_PAIRS + [("Scalar", "Scalar")]:
    R.register("aten::log", log_base, types=[_a, _b])
    R.register("aten::atan2", math.atan2, types=[_a, _b])
    R.register("aten::copysign", math.copysign, types=[_a, _b])
    R.register("aten::fmod", fmod, types=[_a, _b])
    R.register("aten::mathremainder", mathremainder, types=[_a, _b])
R.implement("aten::gcd.int", int_gcd)
R.implement("aten::factorial.int", int_factorial)


# -- Python's builtins on numbers: bin, oct, hex, divmod, math.modf, complex ------------------

def int_divmod(a: int, b: int):
    """``divmod(a, b)`` of ints: floor division and its remainder, as Python's."""
    if b == 0:
        raise ZeroDivisionError("ZeroDivisionError: integer division or modulo by zero")
    return (a // b, a % b)


def float_divmod(a, b):
    """``divmod`` with a float: ``((a - a % b) / b, a % b)`` as torch computes
    it, in doubles, the remainder taking the divisor's sign."""
    if b == 0:
        raise ZeroDivisionError("ZeroDivisionError: float divmod()")
    a, b = float(a), float(b)
    rem = math.fmod(a, b)
    if rem and (b < 0) != (rem < 0):
        rem += b
    return ((a - rem) / b, rem)


def modf(a: float):
    """``math.modf(a)`` as torch's: ``(a - trunc(a), trunc(a))``."""
    whole = float(math.trunc(a)) if math.isfinite(a) else a
    return (a - whole, whole)


def _complex_of(a, b=0.0):
    """``complex(a, b)``: a 0-dim tensor counts as its one number."""
    def number(x):
        if hasattr(x, "dtype"):
            if x.size != 1:
                raise ValueError(f"a Tensor with {x.size} elements cannot be converted to Scalar")
            return x.item()
        return x
    a, b = number(a), number(b)
    return complex(a) + complex(b) * 1j


for _name, _fn in (("bin", bin), ("oct", oct), ("hex", hex)):
    R.implement(f"aten::{_name}", _fn)
R.implement("aten::divmod.int", int_divmod)
for _a, _b in (("float", "float"), ("int", "float"), ("float", "int")):
    R.register("aten::divmod", float_divmod, types=[_a, _b])
R.implement("aten::modf", modf)
R.implement("aten::Complex.Scalar", lambda a: complex(a))
for _a in ("int", "float", "bool", "Tensor"):
    for _b in ("int", "float", "bool", "Tensor"):
        R.register("aten::Complex", _complex_of, types=[_a, _b])
R.implement("aten::Size", list)
for _a, _b in _INT_FLOAT_PAIRS + [("Scalar", "Scalar")]:
    # torch.polar on numbers: c10::polar, r (cos t + i sin t), without cmath.rect's care
    R.register("aten::polar", lambda r, t: complex(r * math.cos(t), r * math.sin(t)),
               types=[_a, _b])


# -- the rest of torch's number builtins: math.ldexp/frexp, angle, round-to-zero division ----

def round_to_zero_floordiv(a: int, b: int) -> int:
    """``aten::__round_to_zero_floordiv``: C's integer division, the quotient
    rounded toward zero (``-7 // 2`` is -3 here, -4 in Python), which torch's
    frontend emits for the index arithmetic of its own builtins.  A zero divisor
    is refused (torch's process dies of the processor's division fault)."""
    if b == 0:
        raise ZeroDivisionError("ZeroDivisionError: integer division or modulo by zero")
    q = abs(a) // abs(b)
    q = q if (a < 0) == (b < 0) else -q
    return wrap_int64(q)


def ldexp(x: float, i: int) -> float:
    """``math.ldexp`` as C's ``std::ldexp``: out of range is ``inf`` (or 0), not
    Python's OverflowError."""
    try:
        return math.ldexp(x, i)
    except OverflowError:
        return math.copysign(math.inf, x)


def real_angle(a) -> float:
    """``angle`` of a real number, as torch's: pi where the sign bit is set
    (``-0.0`` included), else 0 (``nan`` is 0: its sign bit is clear)."""
    return math.pi if math.copysign(1.0, a) < 0 else 0.0


def scalar_angle(a):
    """``aten::angle.Scalar``: a complex number's phase, a real one's angle."""
    return cmath.phase(a) if isinstance(a, complex) else real_angle(a)


R.implement("aten::__round_to_zero_floordiv.int", round_to_zero_floordiv)
R.implement("aten::ldexp", ldexp)
R.implement("aten::frexp", math.frexp)
for _t in ("int", "float"):
    R.register("aten::angle", real_angle, types=[_t])
R.implement("aten::angle.complex", cmath.phase)
R.implement("aten::angle.Scalar", scalar_angle)
