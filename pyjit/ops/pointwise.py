"""Pointwise tensor operators: one table per arity, one generic implementation each.

A row names the operator (with its aliases), the numpy function computing it and
the *rule* giving torch's result dtype; the generic implementation turns a row
into every form TorchScript emits, all registered from the row:

=========================  =================================================  =========
form                       graph                                              returns
=========================  =================================================  =========
functional                 ``aten::exp(%x)``, ``aten::add(%x, %y, %alpha)``   new array
in place (``x.exp_()``)    ``aten::exp_(%x)``                                 ``x``
``torch.exp(x, out=y)``    ``aten::exp(%x, %out)``                            ``out``
=========================  =================================================  =========

Rules (``torch.result_type`` is :func:`pyjit.ops.dtypes.result_type`):

* ``SAME``: the input's dtype (``neg``, ``floor``, ``sign``...);
* ``FLOAT``: integer and bool inputs compute in float32 (``exp``, ``sqrt``, ``div``);
* ``PROMOTE``: ``result_type`` of the operands (``add``, ``maximum``...);
* ``COMPARE`` / ``PREDICATE``: a bool result, operands compared in their promoted
  dtype (``lt``, ``isnan``);
* ``INTEGRAL``: bitwise operators, integer and bool dtypes only;
* ``KERNEL``: whatever the numpy function returns (``square`` of a bool is int64);
* ``FLOAT64``: ``float_power`` computes in double.

Same-dtype operands go straight to the numpy ufunc (``ufunc(a, b, out=...)``, so a
0-dim result stays an array); anything else computes the result dtype first and
passes it to numpy, since numpy's promotion differs from torch's (``int64[3] *
2.5`` is float32 in torch, float64 in numpy).  An in-place form computes in the
promoted dtype and casts into ``self``, refusing a cast to a lower category
(``result type Float can't be cast to the desired output type Long``) and a
broadcast that would grow ``self``; a numpy broadcasting failure is re-raised with
torch's message (``The size of tensor a (3) must match the size of tensor b (4) at
non-singleton dimension 1``).

numpy warns on division by zero, overflow and NaN; torch does not, so the generic
implementations run with numpy's floating-point errors ignored
(:mod:`pyjit.fperrors`), which a run of a graph holding them sets once for
all its operators.  A binary operator whose generic implementation ends in a
plain ufunc call for same-dtype operands is a C callable making that call itself
inside such a run (:mod:`pyjit.ops.ufunc_direct`), and the generic
implementation otherwise.

Adding an operator of an existing kind is one row of :data:`UNARY` or
:data:`BINARY`.  The clamp family, ``where``, ``lerp``, ``addcmul``/``addcdiv``
and a few others with their own arguments are written out below the tables.
"""

from __future__ import annotations

import math
from functools import partial
from typing import Any, Callable, Dict, List, NamedTuple, Optional, Sequence, Tuple

import numpy as np

from ..registry import library as R, torch_declares
from . import kernels, special
from .dims import as_array, broadcast_shapes, check_inplace_shape
from .dtypes import (BOOL, DEFAULT_FLOAT, FLOAT64, INT64, c_name, check_cast, meta_name,
                     result_type, torch_name)
from ..fperrors import enter, leave, prefers_quiet_run
from .ufunc_direct import direct as direct_call

__all__ = ["Unary", "Binary", "UNARY", "BINARY", "unary", "binary", "inplace", "out_form",
           "add", "sub", "clamp", "where", "function_of"]

_ndarray = np.ndarray

SAME, FLOAT, PROMOTE, COMPARE, PREDICATE, INTEGRAL, FLOAT64_RULE, KERNEL = (
    "same", "float", "promote", "compare", "predicate", "integral", "float64", "kernel")


# -- operands ----------------------------------------------------------------------

def _scalar_in(x: Any, dt: np.dtype) -> Any:
    """A Python number converted to ``dt`` as torch converts it: an int that ``dt``
    cannot hold wraps around (``uint8 + 300`` adds 44) where numpy would refuse."""
    if dt.kind in "iu" and type(x) is int:
        return np.array(x, dtype=INT64).astype(dt)
    return x


def _operand(x: Any, dt: np.dtype) -> Any:
    if type(x) is _ndarray:
        return x if x.dtype == dt else x.astype(dt)
    return np.array(_scalar_in(x, dt), dtype=dt)


def _broadcast_error(exc: Exception, *operands: Any) -> Exception:
    """torch's message for operands that do not broadcast (numpy's names neither
    sizes nor dimension); any other failure is returned as it was."""
    shapes = [x.shape for x in operands if type(x) is _ndarray]
    try:
        broadcast_shapes(*shapes)
    except ValueError as torch_error:
        return torch_error
    return exc


def _not_implemented(name: str, dt: np.dtype) -> TypeError:
    return TypeError(f'"{name}_cpu" not implemented for \'{torch_name(dt)}\'')


# -- unary ---------------------------------------------------------------------------

class Unary(NamedTuple):
    """One pointwise function of a tensor (and optional scalar parameters).

    ``fn(x, *params)`` computes on an array already in the computation dtype and
    returns an array (any float dtype for ``FLOAT``: the result is cast back);
    ``params`` are the type patterns of the extra arguments; ``inplace`` says
    whether the ``name_`` form exists; ``refuse`` lists dtype kinds torch refuses,
    with its message."""

    names: str
    fn: Callable
    rule: str
    params: Sequence[str] = ()
    inplace: bool = True
    refuse: Optional[tuple] = None   # (kinds, message)
    #: ``direct(a, *params)`` writing the result into ``a`` itself, for the
    #: ``name_`` form of a float32 tensor the kernels may write
    #: (:func:`~pyjit.ops.kernels.writes_in_place`), as torch's in-place kernels
    #: do; the generic in-place form (the result computed, then copied in) serves
    #: every other tensor.
    direct: Optional[Callable] = None


def _ufunc(u: np.ufunc) -> Callable:
    """``u`` called so that a 0-dim input gives a 0-dim array, not a numpy scalar."""
    return partial(u, out=...)


def unary(row: Unary) -> Callable:
    """The functional form of a :class:`Unary` row."""
    fn, rule, refuse = row.fn, row.rule, row.refuse
    name = row.names.split()[0]

    floats = rule == FLOAT
    as_computed = rule in (PREDICATE, KERNEL)
    refused = refuse[0] if refuse is not None else ""

    def op(a, *params):
        if a.dtype.kind in refused:
            raise TypeError(refuse[1].format(name=name, dtype=torch_name(a.dtype)))
        if floats and a.dtype.kind not in "fc":
            a = a.astype(DEFAULT_FLOAT)
        token = enter()
        try:
            r = fn(a, *params)
        finally:
            leave(token)
        if type(r) is _ndarray and (as_computed or r.dtype == a.dtype):
            return r
        return as_array(r) if as_computed else as_array(r).astype(a.dtype)
    op.__name__ = name
    op.__doc__ = f"``aten::{name}`` ({rule} result dtype)."
    return prefers_quiet_run(op)


def inplace(functional: Callable, name: str, dtype_name: Callable = torch_name) -> Callable:
    """The ``name_`` form of a functional operator: its result cast into ``self``
    (torch's rules: no cast to a lower category, no growing broadcast);
    ``dtype_name`` spells ``self``'s dtype in the error as this operator does."""
    def op(a, *args):
        r = functional(a, *args)
        if r.shape != a.shape:
            check_inplace_shape(a.shape, r)
        return _write(a, r, dtype_name)
    op.__name__ = name + "_"
    return prefers_quiet_run(op)


def check_writable(target: np.ndarray) -> None:
    """An ``expand``ed tensor (a view with a 0 stride) is torch's error to write to;
    numpy's broadcast views are read-only, and would say only that."""
    if not target.flags.writeable and 0 in target.strides:
        raise ValueError("unsupported operation: more than one element of the written-to "
                         "tensor refers to a single memory location. Please clone() the tensor "
                         "before performing the operation.")


def _write(target: np.ndarray, r: np.ndarray, dtype_name: Callable = torch_name) -> np.ndarray:
    """``r`` cast into ``target`` (torch refuses a cast to a lower category)."""
    check_writable(target)
    check_cast(r.dtype, target.dtype, dtype_name)
    token = enter()
    try:
        np.copyto(target, r, casting="unsafe")
    finally:
        leave(token)
    return target


def out_form(functional: Callable) -> Callable:
    """The ``out=`` form: the result written into the last argument, which torch
    resizes when its shape differs (numpy can only when ``out`` owns its data)."""
    def op(*args):
        out = args[-1]
        r = functional(*args[:-1])
        check_cast(r.dtype, out.dtype)
        if out.shape != r.shape:
            try:
                out.resize(r.shape, refcheck=False)
            except ValueError:
                raise ValueError(f"out= needs a tensor of shape {list(r.shape)}, got one of "
                                 f"shape {list(out.shape)} that pyjit cannot resize") from None
        return _write(out, r)
    op.__name__ = functional.__name__ + "_out"
    op.__wrapped__ = functional   # the same in every registry (made per registry)
    return prefers_quiet_run(op)


def _sign(x):
    """torch's sign: 0 for NaN and for -0.0 (numpy keeps NaN)."""
    if x.dtype.kind in "iu":
        return np.sign(x, out=...)
    if x.dtype == BOOL:
        return x.copy()
    return np.subtract(x > 0, x < 0, dtype=x.dtype, out=...)


def _square(x):
    return np.square(x, dtype=INT64, out=...) if x.dtype == BOOL else np.square(x, out=...)


def _round(x, decimals: int = 0):
    if x.dtype.kind in "biu":
        return x.copy()
    if decimals == 0:
        return np.rint(x, out=...)
    return as_array(np.round(x, decimals))


def _keep_int(u: np.ufunc) -> Callable:
    """floor/ceil/trunc: integer tensors come back unchanged (as a copy)."""
    f = _ufunc(u)
    return lambda x: x.copy() if x.dtype.kind in "biu" else f(x)


def _sigmoid(x):
    if kernels.is_float32(x):
        return kernels.pointwise("sigmoid", x)
    one = x.dtype.type(1)
    return np.divide(one, one + np.exp(np.negative(x)), out=...)


def _erf(x):
    return kernels.pointwise("erf", x) if kernels.is_float32(x) else special.erf(x)


def _bitwise_not(x):
    return np.logical_not(x, out=...) if x.dtype == BOOL else np.invert(x, out=...)


def _isreal(x):
    return np.isreal(x) if x.dtype.kind == "c" else np.ones(x.shape, BOOL)


def _abs(x):
    """torch's abs: a complex tensor's is its magnitude, real (cfloat gives float),
    ``hypot(re, im)`` as torch's kernel computes it (numpy's own complex abs
    differs from it in a last bit on a third of float32 values); every other
    dtype keeps its own."""
    if x.dtype.kind == "c":
        return as_array(np.hypot(x.real, x.imag))
    return np.absolute(x, out=...)


def _angle(x):
    """torch's angle: real for a complex tensor (cfloat gives float), float for an
    integer one; a real tensor's is pi where negative, else 0 (NaN kept).  A
    complex64's is ``atan2`` computed in double and rounded: torch's vectorised
    atan2 (Sleef's, within 1 ulp) is nearer that than numpy's float32 atan2 is
    (a last bit apart on 2% of values against 40%), though not equal to it."""
    if x.dtype.kind == "c":
        if x.dtype == np.complex64:
            return as_array(np.arctan2(x.imag.astype(FLOAT64), x.real.astype(FLOAT64))
                            .astype(np.float32))
        return as_array(np.angle(x))
    if x.dtype.kind in "biu":
        x = x.astype(DEFAULT_FLOAT)
    return np.where(np.isnan(x), x, np.where(x < 0, x.dtype.type(math.pi), x.dtype.type(0)))


def _frac(x):
    return np.subtract(x, np.trunc(x), out=...)


def _identity(x):
    return x


def _conj(x):
    return np.conjugate(x, out=...) if x.dtype.kind == "c" else x


def _logit(x, eps=None):
    if eps is not None:
        x = np.clip(x, eps, 1 - eps)
    return np.log(np.divide(x, 1 - x), out=...)


def _nan_to_num(x, nan=None, posinf=None, neginf=None):
    if x.dtype.kind not in "fc":
        return x.copy()
    info = np.finfo(x.dtype)
    return as_array(np.nan_to_num(x, nan=0.0 if nan is None else nan,
                                  posinf=info.max if posinf is None else posinf,
                                  neginf=info.min if neginf is None else neginf))


_BOOL_NEG = ("b", "Negation, the `-` operator, on a bool tensor is not supported. If you are "
                  "trying to invert a mask, use the `~` or `logical_not()` operator instead.")
_FLOATS_ONLY = ("biu", '"{name}_cpu" not implemented for \'{dtype}\'')

#: Pointwise functions of one tensor.
UNARY: List[Unary] = [
    Unary("abs absolute", _abs, KERNEL,
          refuse=("b", '"abs_cpu" not implemented for \'{dtype}\'')),
    Unary("neg negative", _ufunc(np.negative), SAME, refuse=_BOOL_NEG),
    Unary("positive", _identity, SAME, inplace=False,
          refuse=("b", "The `+` operator, on a bool tensor is not supported.")),
    Unary("sign", _sign, SAME),
    Unary("sgn", _sign, SAME),
    Unary("square", _square, KERNEL),
    Unary("floor", _keep_int(np.floor), SAME),
    Unary("ceil", _keep_int(np.ceil), SAME),
    Unary("trunc fix", _keep_int(np.trunc), SAME),
    Unary("round", _round, SAME),
    Unary("round", _round, SAME, params=("int",)),
    Unary("frac", _frac, SAME, refuse=_FLOATS_ONLY),
    Unary("bitwise_not", _bitwise_not, SAME,
          refuse=("fc", '"bitwise_not_cpu" not implemented for \'{dtype}\'')),
    # a complex tensor's conjugate is computed (torch's is a lazy view, which
    # resolve_conj resolves: pyjit's tensors never carry the bit); a real
    # tensor's is itself
    Unary("conj conj_physical", _conj, SAME, inplace=False),
    Unary("resolve_conj resolve_neg", _identity, SAME, inplace=False),
    Unary("nan_to_num", _nan_to_num, SAME, params=("float?", "float?", "float?")),
    Unary("exp", _ufunc(np.exp), FLOAT),
    Unary("exp2 special_exp2", _ufunc(np.exp2), FLOAT),
    Unary("expm1 special_expm1", _ufunc(np.expm1), FLOAT),
    Unary("log", _ufunc(np.log), FLOAT),
    Unary("log2", _ufunc(np.log2), FLOAT),
    Unary("log10", _ufunc(np.log10), FLOAT),
    Unary("log1p special_log1p", _ufunc(np.log1p), FLOAT),
    Unary("sqrt", _ufunc(np.sqrt), FLOAT),
    Unary("rsqrt", lambda x: np.divide(1, np.sqrt(x), dtype=x.dtype, out=...), FLOAT),
    Unary("reciprocal", lambda x: np.divide(1, x, dtype=x.dtype, out=...), FLOAT),
    Unary("sin", _ufunc(np.sin), FLOAT),
    Unary("cos", _ufunc(np.cos), FLOAT),
    Unary("tan", _ufunc(np.tan), FLOAT),
    Unary("asin arcsin", _ufunc(np.arcsin), FLOAT),
    Unary("acos arccos", _ufunc(np.arccos), FLOAT),
    Unary("atan arctan", _ufunc(np.arctan), FLOAT),
    Unary("sinh", _ufunc(np.sinh), FLOAT),
    Unary("cosh", _ufunc(np.cosh), FLOAT),
    Unary("tanh", _ufunc(np.tanh), FLOAT),
    Unary("asinh arcsinh", _ufunc(np.arcsinh), FLOAT),
    Unary("acosh arccosh", _ufunc(np.arccosh), FLOAT),
    Unary("atanh arctanh", _ufunc(np.arctanh), FLOAT),
    Unary("sigmoid special_expit", _sigmoid, FLOAT),
    Unary("deg2rad", lambda x: np.multiply(x, x.dtype.type(math.pi / 180), out=...), FLOAT),
    Unary("rad2deg", lambda x: np.multiply(x, x.dtype.type(180 / math.pi), out=...), FLOAT),
    Unary("angle", _angle, KERNEL, inplace=False),
    Unary("logit special_logit", _logit, FLOAT, params=("float?",)),
    Unary("logit special_logit", _logit, FLOAT),
    Unary("erf special_erf", _erf, FLOAT),
    Unary("erfc special_erfc", special.erfc, FLOAT),
    Unary("erfinv special_erfinv", special.erfinv, FLOAT),
    Unary("lgamma special_gammaln", special.lgamma, FLOAT),
    Unary("digamma special_digamma special_psi", special.digamma, FLOAT),
    Unary("i0 special_i0", np.i0, FLOAT),
    Unary("special_modified_bessel_i0", np.i0, FLOAT, inplace=False),
    Unary("special_modified_bessel_i1", special.i1, FLOAT, inplace=False),
    # torch.special's functions with no in-place form that are pyjit.ops.special's
    # of the same name.
    *(Unary(f"special_{name}", getattr(special, name), FLOAT, inplace=False) for name in (
        "i0e", "i1", "i1e", "ndtr", "ndtri", "log_ndtr", "erfcx", "entr",
        "modified_bessel_k0", "modified_bessel_k1", "scaled_modified_bessel_k0",
        "scaled_modified_bessel_k1", "spherical_bessel_j0", "bessel_j0", "bessel_j1",
        "bessel_y0", "bessel_y1", "airy_ai")),
    Unary("sinc special_sinc", special.sinc, FLOAT),
    Unary("mvlgamma special_multigammaln", special.mvlgamma, FLOAT,
          params=("int",)),
    Unary("isnan", _ufunc(np.isnan), PREDICATE, inplace=False),
    Unary("isinf", _ufunc(np.isinf), PREDICATE, inplace=False),
    Unary("isposinf", lambda x: np.equal(x, np.inf, out=...), PREDICATE, inplace=False),
    Unary("isneginf", lambda x: np.equal(x, -np.inf, out=...), PREDICATE, inplace=False),
    Unary("isfinite", _ufunc(np.isfinite), PREDICATE, inplace=False),
    Unary("isreal", _isreal, PREDICATE, inplace=False),
    Unary("signbit", _ufunc(np.signbit), PREDICATE, inplace=False),
    Unary("logical_not", _ufunc(np.logical_not), PREDICATE),
]


# -- binary ----------------------------------------------------------------------------

class Binary(NamedTuple):
    """One pointwise function of two operands.

    ``fn(x, y)`` computes on operands already in the computation dtype (a numpy
    ufunc, or a float64 kernel for ``FLOAT`` rows).  ``scalars`` says which
    operand may be a Python number: ``"other"`` (``Tensor, Scalar``), ``"both"``
    (also ``Scalar, Tensor``) or ``""``.  ``inplace`` names the in-place forms
    (``None``: ``name_`` of each name).  ``check(a, b, dtype)`` raises torch's
    error for operands it refuses."""

    names: str
    fn: Callable
    rule: str
    scalars: str = "other"
    inplace: Optional[str] = None
    check: Optional[Callable] = None


_HALF, _FLOAT32 = np.dtype(np.float16), np.dtype(np.float32)
_OPMATH_WITH_NUMBER = (np.multiply, np.true_divide)


def _compute(fn: Callable, a: Any, b: Any, dt: np.dtype) -> np.ndarray:
    if isinstance(fn, np.ufunc):
        if dt == _HALF and fn in _OPMATH_WITH_NUMBER and \
                (type(a) is not _ndarray or type(b) is not _ndarray):
            # torch's mul and div take a Python number into a half computation in
            # float (their opmath type), never rounded to half; numpy would round
            # it first (as torch's add and sub do)
            out = fn(_operand(a, _FLOAT32) if type(a) is _ndarray else _FLOAT32.type(a),
                     _operand(b, _FLOAT32) if type(b) is _ndarray else _FLOAT32.type(b),
                     dtype=_FLOAT32)
            return np.asarray(out).astype(_HALF)
        if type(b) is not _ndarray:
            b = _scalar_in(b, dt)
        if type(a) is not _ndarray:
            a = _scalar_in(a, dt)
        return fn(a, b, dtype=dt, out=..., casting="unsafe")
    return fn(_operand(a, dt), _operand(b, dt))


def binary(row: Binary) -> Callable:
    """The functional form of a :class:`Binary` row."""
    fn, rule, check = row.fn, row.rule, row.check
    name = row.names.split()[0]
    is_ufunc = isinstance(fn, np.ufunc)

    def dtype_of(a, b):
        dt = result_type(a, b)
        if rule == FLOAT and dt.kind in "biu":
            return DEFAULT_FLOAT
        if rule == FLOAT64_RULE:
            return np.dtype(np.complex128) if dt.kind == "c" else FLOAT64
        if rule == INTEGRAL and dt.kind in "fc":
            raise _not_implemented(name, dt)
        return dt

    if rule in (COMPARE, PREDICATE):
        def op(a, b, *_alpha_one):
            try:
                if type(a) is _ndarray and type(b) is _ndarray and a.dtype == b.dtype:
                    return fn(a, b, out=...)
                dt = result_type(a, b)
                return fn(_operand(a, dt), _operand(b, dt), out=...)
            except ValueError as exc:
                raise _broadcast_error(exc, a, b) from None
    elif is_ufunc and check is None and rule in (PROMOTE, INTEGRAL):
        # Same-dtype tensors, and a float tensor with a Python number (numpy keeps
        # the tensor's dtype there, as torch does), go straight to the ufunc.
        floats_ok = rule == PROMOTE

        def op(a, b, *_alpha_one):
            token = enter()
            try:
                if type(a) is _ndarray:
                    if type(b) is _ndarray:
                        if a.dtype == b.dtype and (floats_ok or a.dtype.kind not in "fc"):
                            return fn(a, b, out=...)
                    elif floats_ok and a.dtype.kind == "f" and a.dtype != _HALF and \
                            (type(b) is float or type(b) is int):
                        return fn(a, b, out=...)
                return _compute(fn, a, b, dtype_of(a, b))
            except ValueError as exc:
                raise _broadcast_error(exc, a, b) from None
            finally:
                leave(token)
    else:
        # The checks concern integer and bool operands (division by zero, negative
        # powers, bool subtraction...): same-dtype float tensors skip them.
        direct = is_ufunc and rule in (PROMOTE, FLOAT)

        def op(a, b, *_alpha_one):
            if direct and type(a) is _ndarray and type(b) is _ndarray and a.dtype == b.dtype \
                    and a.dtype.kind == "f":
                token = enter()
                try:
                    return fn(a, b, out=...)
                except ValueError as exc:
                    raise _broadcast_error(exc, a, b) from None
                finally:
                    leave(token)
            dt = dtype_of(a, b)
            if check is not None:
                check(a, b, dt)
            token = enter()
            try:
                r = _compute(fn, a, b, dt)
            except ValueError as exc:
                raise _broadcast_error(exc, a, b) from None
            finally:
                leave(token)
            return r if r.dtype == dt else as_array(r).astype(dt)
    op.__name__ = name
    op.__doc__ = f"``aten::{name}`` ({rule} result dtype)."
    if rule in (COMPARE, PREDICATE):
        return op  # no floating-point errors to ignore
    if not is_ufunc:
        return prefers_quiet_run(op)
    # The cases in which op ends in fn(a, b, out=...), taken by a C callable
    # without op's frame (pyjit.ops.ufunc_direct): same-dtype arrays, and for
    # PROMOTE a float array with a Python number.
    if check is None and rule == PROMOTE:
        # not float16 with a number: torch computes that in float (see _compute)
        return direct_call(fn, op, same=None, with_number=_FLOAT_DTYPES_BUT_HALF)
    if check is None and rule == INTEGRAL:
        return direct_call(fn, op, same=_INTEGRAL_DTYPES)
    if rule in (PROMOTE, FLOAT):
        return direct_call(fn, op, same=_FLOAT_DTYPES)
    return prefers_quiet_run(op)


#: The dtypes of numpy's builtin float, integer and bool, and complex types.
_FLOAT_DTYPES = tuple({id(d): d for d in map(np.dtype, (np.float32, np.float64, np.float16,
                                                         np.longdouble))}.values())
_FLOAT_DTYPES_BUT_HALF = tuple(d for d in _FLOAT_DTYPES if d != np.float16)
_INTEGRAL_DTYPES = tuple(map(np.dtype, (np.int64, np.int32, np.int16, np.int8, np.uint8,
                                        np.uint16, np.uint32, np.uint64, np.bool_)))
_COMPLEX_DTYPES = tuple(map(np.dtype, (np.complex64, np.complex128)))


def _binary_inplace(functional: Callable, row: Binary) -> Callable:
    """``self op= other``: computed straight into ``self`` for ufuncs."""
    fn, rule, check = row.fn, row.rule, row.check
    if not isinstance(fn, np.ufunc) or rule in (COMPARE, PREDICATE):
        return inplace(functional, row.names.split()[0])

    def op(a, b, *_alpha_one):
        dt = result_type(a, b)
        if rule == FLOAT and dt.kind in "biu":
            dt = DEFAULT_FLOAT
        elif rule == INTEGRAL and dt.kind in "fc":
            raise _not_implemented(row.names.split()[0], dt)
        if check is not None:
            check(a, b, dt)
        check_cast(dt, a.dtype)
        check_writable(a)
        if type(b) is _ndarray:
            if b.shape != a.shape:
                check_inplace_shape(a.shape, b)
        else:
            b = _scalar_in(b, dt)
        token = enter()
        try:
            return fn(a, b, out=a, dtype=dt, casting="unsafe")
        finally:
            leave(token)
    op.__name__ = row.names.split()[0] + "_"
    # Same-dtype arrays of the dtypes op computes in unchanged: op ends in
    # fn(a, b, out=a) for them (cast and shape errors come from numpy's refusal).
    if check is None and rule == PROMOTE:
        return direct_call(fn, op, same=_FLOAT_DTYPES + _INTEGRAL_DTYPES + _COMPLEX_DTYPES,
                           into_first=True)
    if check is None and rule == INTEGRAL:
        return direct_call(fn, op, same=_INTEGRAL_DTYPES, into_first=True)
    if rule in (PROMOTE, FLOAT):
        return direct_call(fn, op, same=_FLOAT_DTYPES, into_first=True)
    return prefers_quiet_run(op)


def _check_sub(a, b, dt=None) -> None:
    """torch refuses ``-`` with a bool on either side (a Python bool counts)."""
    a_bool = type(a) is _ndarray and a.dtype == BOOL or type(a) is bool
    b_bool = type(b) is _ndarray and b.dtype == BOOL or type(b) is bool
    if a_bool and b_bool:
        raise TypeError("Subtraction, the `-` operator, with two bool tensors is not "
                        "supported. Use the `^` or `logical_xor()` operator instead.")
    if a_bool or b_bool:
        raise TypeError("Subtraction, the `-` operator, with a bool tensor is not supported. "
                        "If you are trying to invert a mask, use the `~` or `logical_not()` "
                        "operator instead.")


def _check_int_zero(a, b, dt) -> None:
    """Integer division by zero is torch's ZeroDivisionError (numpy returns 0)."""
    if dt.kind in "biu" and np.any(np.asarray(b) == 0):
        raise ZeroDivisionError("ZeroDivisionError")


def _check_pow(a, b, dt) -> None:
    if dt.kind in "iu" and np.any(np.asarray(b) < 0):
        raise ValueError("Integers to negative integer powers are not allowed.")


def _check_same_dtype(name: str):
    def check(a, b, dt):
        da = a.dtype if type(a) is _ndarray else dt
        db = b.dtype if type(b) is _ndarray else dt
        if da != db:
            raise TypeError(f"{name} is not yet implemented for tensors with different dtypes.")
    return check


def _check_floats(name: str):
    def check(a, b, dt):
        if dt.kind in "biu":
            raise _not_implemented(name, dt)
    return check


def _heaviside(x, y):
    return as_array(np.where(x == 0, y, (x > 0).astype(x.dtype)))


def _copysign(x, y):
    return np.copysign(x, y, out=...)


def _ldexp(x, y):
    return np.multiply(x, np.exp2(y), out=...)


def _logaddexp2(x, y):
    return np.logaddexp2(x, y, out=...)


def _float_kernel2(kernel: Callable) -> Callable:
    def fn(x, y):
        return as_array(kernel(x, y))
    fn.__name__ = kernel.__name__
    return fn


def _polynomial(recurrence: Callable) -> Callable:
    """An orthogonal polynomial ``P_n(x)`` of :func:`special` style: ``n`` a tensor
    of (integral) degrees; a negative degree gives 0, as in torch."""
    def fn(x, n):
        x, n = np.broadcast_arrays(np.asarray(x, dtype=FLOAT64), np.asarray(n, dtype=FLOAT64))
        out = np.zeros(x.shape)
        for degree in np.unique(n):
            if degree < 0 or not np.isfinite(degree):
                continue
            mask = n == degree
            out[mask] = recurrence(x[mask], int(degree))
        return out
    fn.__name__ = recurrence.__name__
    return fn


def _three_term(p0, p1, step):
    def poly(x, n):
        if n == 0:
            return p0(x)
        prev, cur = p0(x), p1(x)
        for k in range(1, n):
            prev, cur = cur, step(x, k, prev, cur)
        return cur
    return poly


_ONES = np.ones_like
_CHEB_STEP = (lambda x, k, p, c: 2 * x * c - p)
_chebyshev_t = _three_term(_ONES, lambda x: x, _CHEB_STEP)
_chebyshev_u = _three_term(_ONES, lambda x: 2 * x, _CHEB_STEP)
_chebyshev_v = _three_term(_ONES, lambda x: 2 * x - 1, _CHEB_STEP)
_chebyshev_w = _three_term(_ONES, lambda x: 2 * x + 1, _CHEB_STEP)
_hermite_h = _three_term(_ONES, lambda x: 2 * x, lambda x, k, p, c: 2 * x * c - 2 * k * p)
_hermite_he = _three_term(_ONES, lambda x: x, lambda x, k, p, c: x * c - k * p)
_laguerre = _three_term(_ONES, lambda x: 1 - x,
                        lambda x, k, p, c: ((2 * k + 1 - x) * c - k * p) / (k + 1))
_legendre = _three_term(_ONES, lambda x: x,
                        lambda x, k, p, c: ((2 * k + 1) * x * c - k * p) / (k + 1))


def _shifted(poly):
    return lambda x, n: poly(2 * x - 1, n)


_DIV_ZERO = _check_int_zero

#: Pointwise functions of two operands.
BINARY: List[Binary] = [
    Binary("add", np.add, PROMOTE),
    Binary("sub subtract", np.subtract, PROMOTE, check=_check_sub),
    Binary("mul multiply", np.multiply, PROMOTE, scalars="both"),
    Binary("div divide true_divide", np.true_divide, FLOAT),
    Binary("floor_divide", np.floor_divide, PROMOTE, check=_DIV_ZERO),
    Binary("remainder", np.remainder, PROMOTE, scalars="both", check=_DIV_ZERO),
    Binary("fmod", np.fmod, PROMOTE, check=_DIV_ZERO),
    Binary("pow", np.power, PROMOTE, scalars="both", check=_check_pow),
    Binary("float_power", np.power, FLOAT64_RULE, scalars="both"),
    Binary("atan2 arctan2", np.arctan2, FLOAT, scalars=""),
    Binary("hypot", np.hypot, FLOAT, scalars="", check=_check_floats("hypot")),
    Binary("copysign", _copysign, FLOAT),
    Binary("nextafter", np.nextafter, PROMOTE, scalars="", check=_check_floats("nextafter")),
    Binary("ldexp", _ldexp, FLOAT, scalars=""),
    Binary("logaddexp", np.logaddexp, FLOAT, scalars="", check=_check_floats("logaddexp")),
    Binary("logaddexp2", _logaddexp2, FLOAT, scalars="", check=_check_floats("logaddexp2")),
    Binary("xlogy special_xlogy", _float_kernel2(special.xlogy), FLOAT, scalars="both"),
    Binary("special_xlog1py", _float_kernel2(special.xlog1py), FLOAT, scalars="both",
           inplace=""),
    Binary("special_zeta", _float_kernel2(special.zeta), FLOAT, scalars="both", inplace=""),
    Binary("igamma special_gammainc", _float_kernel2(special.gammainc), FLOAT, scalars=""),
    Binary("igammac special_gammaincc", _float_kernel2(special.gammaincc), FLOAT, scalars=""),
    Binary("maximum max", np.maximum, PROMOTE, inplace=""),
    Binary("minimum min", np.minimum, PROMOTE, inplace=""),
    Binary("fmax", np.fmax, PROMOTE, scalars=""),
    Binary("fmin", np.fmin, PROMOTE, scalars=""),
    Binary("heaviside", _heaviside, PROMOTE, scalars="", check=_check_same_dtype("heaviside")),
    Binary("bitwise_and __and__", np.bitwise_and, INTEGRAL, scalars="both",
           inplace="__iand__ bitwise_and_"),
    Binary("bitwise_or __or__", np.bitwise_or, INTEGRAL, scalars="both",
           inplace="__ior__ bitwise_or_"),
    Binary("bitwise_xor __xor__", np.bitwise_xor, INTEGRAL, scalars="both",
           inplace="__ixor__ bitwise_xor_"),
    Binary("bitwise_left_shift __lshift__", np.left_shift, INTEGRAL, scalars="both",
           inplace="__ilshift__ bitwise_left_shift_"),
    Binary("bitwise_right_shift __rshift__", np.right_shift, INTEGRAL, scalars="both",
           inplace="__irshift__ bitwise_right_shift_"),
    Binary("gcd", np.gcd, INTEGRAL, scalars=""),
    Binary("lcm", np.lcm, INTEGRAL, scalars=""),
    Binary("eq", np.equal, COMPARE),
    Binary("ne not_equal", np.not_equal, COMPARE),
    Binary("lt less", np.less, COMPARE),
    Binary("le less_equal", np.less_equal, COMPARE),
    Binary("gt greater", np.greater, COMPARE),
    Binary("ge greater_equal", np.greater_equal, COMPARE),
    Binary("logical_and", np.logical_and, PREDICATE, scalars=""),
    Binary("logical_or", np.logical_or, PREDICATE, scalars=""),
    Binary("logical_xor", np.logical_xor, PREDICATE, scalars=""),
    Binary("special_chebyshev_polynomial_t", _polynomial(_chebyshev_t), FLOAT, "both", ""),
    Binary("special_chebyshev_polynomial_u", _polynomial(_chebyshev_u), FLOAT, "both", ""),
    Binary("special_chebyshev_polynomial_v", _polynomial(_chebyshev_v), FLOAT, "both", ""),
    Binary("special_chebyshev_polynomial_w", _polynomial(_chebyshev_w), FLOAT, "both", ""),
    Binary("special_shifted_chebyshev_polynomial_t", _polynomial(_shifted(_chebyshev_t)),
           FLOAT, "both", ""),
    Binary("special_shifted_chebyshev_polynomial_u", _polynomial(_shifted(_chebyshev_u)),
           FLOAT, "both", ""),
    Binary("special_shifted_chebyshev_polynomial_v", _polynomial(_shifted(_chebyshev_v)),
           FLOAT, "both", ""),
    Binary("special_shifted_chebyshev_polynomial_w", _polynomial(_shifted(_chebyshev_w)),
           FLOAT, "both", ""),
    Binary("special_hermite_polynomial_h", _polynomial(_hermite_h), FLOAT, "both", ""),
    Binary("special_hermite_polynomial_he", _polynomial(_hermite_he), FLOAT, "both", ""),
    Binary("special_laguerre_polynomial_l", _polynomial(_laguerre), FLOAT, "both", ""),
    Binary("special_legendre_polynomial_p", _polynomial(_legendre), FLOAT, "both", ""),
]


# -- add/sub with alpha, div with a rounding mode ----------------------------------------

def _alpha_checked(a, b, alpha):
    """torch refuses a float ``alpha`` when the operands' common dtype is integral."""
    if isinstance(alpha, float) and result_type(a, b).kind in "biu":
        raise TypeError("For integral input tensors, argument alpha must not be a floating "
                        "point number.")


def _fused_multiply_add(a, b, alpha, negate: bool):
    """``a + alpha * b`` (``a - alpha * b``) in float32 as torch's kernels compute
    it: ``fmadd(b, alpha, a)``, one rounding, where numpy would round the product
    first.  A float32 product is exact in float64, so the float64 sum rounded to
    float32 is the fused result (but for a double rounding too rare to matter)."""
    x = _operand(a, np.dtype(np.float32)).astype(np.float64)
    y = _operand(b, np.dtype(np.float32)).astype(np.float64)
    k = np.float64(np.float32(alpha))
    try:
        out = x - k * y if negate else x + k * y
    except ValueError as exc:
        raise _broadcast_error(exc, a, b) from None
    return as_array(out.astype(np.float32))


def _with_alpha(plain: Callable, reverse: bool = False) -> Callable:
    """``self + alpha * other`` (``rsub``: ``other - alpha * self``) from the plain
    binary operator; a constant ``alpha`` of 1 is resolved when the Code is built.
    In float32 the product and the sum are fused, as in torch's kernels."""
    negate = plain is _sub
    def op(a, b, alpha=1):
        if type(alpha) is not int:  # torch refuses a float alpha, 1.0 included
            _alpha_checked(a, b, alpha)
        if alpha != 1:
            if type(alpha) in (int, float) and result_type(a, b) == np.float32:
                return _fused_multiply_add(b, a, alpha, negate) if reverse else \
                    _fused_multiply_add(a, b, alpha, negate)
            if reverse:
                return plain(b, _mul(a, alpha))
            return plain(a, _mul(b, alpha))
        return plain(b, a) if reverse else plain(a, b)
    op.__name__ = plain.__name__
    return prefers_quiet_run(op)


def _alpha_factory(plain: Callable, general: Callable, reverse: bool = False):
    """When ``alpha`` is the constant 1 (as in nearly every graph), the plain
    operator runs the node: it accepts the unused ``alpha`` itself, so no wrapper
    frame is added (``rsub`` swaps its operands in one)."""
    def factory(node):
        alpha = node.inputs[2].node if len(node.inputs) > 2 else None
        if alpha is not None and alpha.kind == "prim::Constant" and \
                alpha.attrs.get("value") == 1 and type(alpha.attrs.get("value")) is int:
            if reverse:
                return lambda a, b, _alpha: plain(b, a)
            return plain
        return general
    return factory


def _div_modes(true_div: Callable, floor_div: Callable):
    def trunc_div(a, b):
        dt = result_type(a, b)
        if dt.kind in "biu":
            _check_int_zero(a, b, dt)
            x, y = _operand(a, dt), _operand(b, dt)
            q = np.floor_divide(x, y)
            fix = (np.remainder(x, y) != 0) & ((x < 0) != (y < 0))
            return as_array(np.where(fix, q + 1, q).astype(dt))
        return np.trunc(true_div(a, b), out=...)

    def div(a, b, rounding_mode=None):
        if rounding_mode is None:
            return true_div(a, b)
        if rounding_mode == "trunc":
            return trunc_div(a, b)
        if rounding_mode == "floor":
            return floor_div(a, b)
        raise ValueError(f"div expected rounding_mode to be one of None, 'trunc', or 'floor' "
                         f"but found '{rounding_mode}'")
    return prefers_quiet_run(div)


# -- registration ------------------------------------------------------------------------

_T, _S = "Tensor", "Scalar"
_BY_NAME = {}


def function_of(name: str) -> Callable:
    """The functional form of pointwise operator ``name`` (``"eq"``): what
    ``aten::<name>(Tensor, Tensor)`` runs, for another family to call."""
    return _BY_NAME[name]


#: The ``out=`` forms the rows make, by kind, as (functional, types): each is
#: registered when a registry first looks its kind up, if torch declares it
#: (torch has ``aten::neg.out``, no ``aten::conj.out``), so that only the kinds
#: a program uses have their schemas read.
_OUT_FORMS: Dict[str, List[Tuple[Callable, List]]] = {}


def _register_out_form(kind: str, functional: Callable, types: List) -> None:
    _OUT_FORMS.setdefault(kind, []).append((functional, types))


@R.derive
def _out_forms(kind: str, registry) -> List[Tuple[Callable, dict]]:
    return [(out_form(functional), {"types": types})
            for functional, types in _OUT_FORMS.get(kind, ()) if torch_declares(kind, types)]


def register_unary(row: Unary) -> None:
    functional = unary(row)
    params = list(row.params)
    for name in row.names.split():
        _BY_NAME[name] = functional
        R.register(f"aten::{name}", functional, types=[_T] + params)
        _register_out_form(f"aten::{name}", functional, [_T] + params + [_T])
        if row.inplace:
            op = inplace(functional, name)
            if row.direct is not None:
                op = _writing_in_place(op, row.direct)
            if name in ("abs", "absolute"):
                op = _real_in_place(op)
            R.register(f"aten::{name}_", op, types=[_T] + params)


def _real_in_place(generic: Callable) -> Callable:
    """``abs_``: a complex tensor's abs is real, which torch will not write into
    the complex tensor itself."""
    def op(a, *params):
        if a.dtype.kind == "c":
            raise RuntimeError("In-place abs is not supported for complex tensors.")
        return generic(a, *params)
    op.__name__ = generic.__name__
    return prefers_quiet_run(op)


def _writing_in_place(generic: Callable, direct: Callable) -> Callable:
    def op(a, *params):
        if kernels.writes_in_place(a):
            direct(a, *params)
            return a
        return generic(a, *params)
    op.__name__, op.__doc__ = generic.__name__, generic.__doc__
    return prefers_quiet_run(op)


def _operand_patterns(scalars: str):
    pairs = [(_T, _T)]
    if scalars in ("other", "both"):
        pairs.append((_T, _S))
    if scalars == "both":
        pairs.append((_S, _T))
    return pairs


def _register_binary(row: Binary, functional: Callable = None, extra: Sequence[str] = (),
                     factory: Callable = None) -> None:
    functional = functional or binary(row)
    in_place = _binary_inplace(binary(row), row)
    extra = list(extra)
    names = row.names.split()
    inplace_names = [n + "_" for n in names] if row.inplace is None else row.inplace.split()
    for name in names:
        _BY_NAME[name] = functional
        for a, b in _operand_patterns(row.scalars):
            types = [a, b] + extra
            if factory is not None:
                R.register(f"aten::{name}", factory=factory, types=types)
            else:
                R.register(f"aten::{name}", functional, types=types)
            _register_out_form(f"aten::{name}", functional, types + [_T])
    for name in inplace_names:
        for _, b in _operand_patterns(row.scalars)[:2]:
            R.register(f"aten::{name}", in_place, types=[_T, b])
            if extra:
                R.register(f"aten::{name}", factory=_alpha_factory(in_place, inplace(
                    functional, name[:-1])), types=[_T, b] + extra)


for _row in UNARY:
    register_unary(_row)
# torch's frontend emits prim::abs for abs(x) of a tensor too: aten::abs's kernel
R.implement("prim::abs", _BY_NAME["abs"])

_ROWS = {row.names.split()[0]: row for row in BINARY}
for _row in BINARY:
    if _row.names.split()[0] not in ("add", "sub", "div"):
        _register_binary(_row)

_add, _sub = binary(_ROWS["add"]), binary(_ROWS["sub"])
_mul, _true_div = binary(_ROWS["mul"]), binary(_ROWS["div"])
add = _with_alpha(_add)
sub = _with_alpha(_sub)
rsub = _with_alpha(_sub, reverse=True)
div = _div_modes(_true_div, binary(_ROWS["floor_divide"]))
_register_binary(_ROWS["add"], add, extra=[_S], factory=_alpha_factory(_add, add))
_register_binary(_ROWS["sub"], sub, extra=[_S], factory=_alpha_factory(_sub, sub))
for _a, _b in _operand_patterns("other"):
    R.register("aten::add", _add, types=[_a, _b])
    R.register("aten::sub", _sub, types=[_a, _b])
    R.register("aten::rsub", factory=_alpha_factory(_sub, rsub, reverse=True),
               types=[_a, _b, _S])
    R.register("aten::rsub", lambda a, b: _sub(b, a), types=[_a, _b])
    R.register("aten::rsub", out_form(rsub), types=[_a, _b, _S, _T])
_register_binary(_ROWS["div"], _true_div)
for _name in ("div", "divide"):
    for _a, _b in _operand_patterns("other"):
        R.register(f"aten::{_name}", div, types=[_a, _b, "str?"])
        _register_out_form(f"aten::{_name}", div, [_a, _b, "str?", _T])
        R.register(f"aten::{_name}_", inplace(div, _name), types=[_a, _b, "str?"])


# -- clamp, where, lerp, addcmul/addcdiv -------------------------------------------------

def _checked_bound(x, dt: np.dtype):
    """A clamp bound in ``dt``; like torch, a bound ``dt`` cannot hold is an error,
    not a wrap-around (infinities and NaN convert to any float type)."""
    if dt.kind in "iu":
        info = np.iinfo(dt)
        ok = info.min <= x <= info.max
    else:
        ok = not math.isfinite(x) or abs(x) <= float(np.finfo(dt).max)
    if not ok:
        raise OverflowError(f"value cannot be converted to type {c_name(dt)} without overflow")
    return dt.type(x)


def clamp(a, lo=None, hi=None):
    """``aten::clamp(self, min, max)`` with numbers or tensors as bounds:
    ``min(max(self, min), max)`` in torch's promoted dtype (``clamp(int_tensor,
    0.5, 2)`` is float32).  With ``min > max`` every element becomes ``max``; a
    NaN element or bound gives NaN."""
    if lo is None and hi is None:
        raise ValueError("torch.clamp: At least one of 'min' or 'max' must not be None")
    dt = result_type(a, *[x for x in (lo, hi) if x is not None])
    if dt == BOOL:
        raise TypeError('"clamp_scalar_cpu" not implemented for \'Bool\'')
    out = a if a.dtype == dt else a.astype(dt)
    try:
        if lo is not None:
            out = np.maximum(out, lo if type(lo) is _ndarray else _checked_bound(lo, dt),
                             dtype=dt, out=...)
        if hi is not None:
            out = np.minimum(out, hi if type(hi) is _ndarray else _checked_bound(hi, dt),
                             dtype=dt, out=...)
    except ValueError as exc:
        raise _broadcast_error(exc, a, lo, hi) from None
    return out


def where(cond, a, b):
    """``aten::where(condition, self, other)``: the condition must be bool (uint8 is
    still accepted, deprecated); the result has torch's promoted dtype."""
    if cond.dtype != BOOL and cond.dtype != np.uint8:
        raise TypeError(f"where expected condition to be a boolean tensor, but got a tensor "
                        f"with dtype {torch_name(cond.dtype)}")
    dt = result_type(a, b)
    try:
        return np.where(cond, _operand(a, dt), _operand(b, dt))
    except ValueError as exc:
        raise _broadcast_error(exc, cond, a, b) from None


def lerp(start, end, weight):
    """``start + weight * (end - start)``, computed from the nearer end as torch
    does (``end - (end - start) * (1 - weight)`` for weight >= 0.5)."""
    dt = result_type(start, end)
    s, e = _operand(start, dt), _operand(end, dt)
    w = _operand(weight, dt) if type(weight) is _ndarray else dt.type(weight)
    diff = e - s
    return as_array(np.where(np.abs(w) < 0.5, s + w * diff, e - diff * (1 - w)))


def addcmul(a, t1, t2, value=1):
    """``self + value * tensor1 * tensor2`` in the promoted dtype."""
    dt = result_type(a, t1, t2)
    return as_array(_operand(a, dt) + _operand(value, dt) * _operand(t1, dt) * _operand(t2, dt))


def addcdiv(a, t1, t2, value=1):
    """``self + value * tensor1 / tensor2``; integer division is refused as in torch."""
    if t1.dtype.kind in "biu" and t2.dtype.kind in "biu":
        raise ValueError("Integer division with addcdiv is no longer supported, and in a future "
                         "release addcdiv will perform a true division of tensor1 and tensor2. "
                         "The historic addcdiv behavior can be implemented as (input + value * "
                         "torch.trunc(tensor1 / tensor2)).to(input.dtype) for integer inputs "
                         "and as (input + value * tensor1 / tensor2) for float inputs. The "
                         "future addcdiv behavior is just the latter implementation: (input + "
                         "value * tensor1 / tensor2), for all dtypes.")
    dt = result_type(a, t1, t2)
    return as_array(_operand(a, dt) + _operand(value, dt) * (_operand(t1, dt) / _operand(t2, dt)))


def _check_parts(real, imag):
    """torch's checks of ``complex``'s and ``polar``'s two parts: one float dtype."""
    if real.dtype == imag.dtype and real.dtype.kind != "f":
        raise TypeError(f"Expected both inputs to be Half, Float or Double tensors but got "
                        f"{torch_name(real.dtype)} and {torch_name(imag.dtype)}")
    if real.dtype != imag.dtype or real.dtype.kind != "f":
        raise TypeError(f"Expected object of scalar type {torch_name(real.dtype)} but got "
                        f"scalar type {torch_name(imag.dtype)} for second argument")


def complex_of(real, imag):
    """``torch.complex``: float32 parts make complex64, float64 parts complex128."""
    _check_parts(real, imag)
    ct = np.complex128 if real.dtype == FLOAT64 else np.complex64
    return as_array(np.add(real, 1j * imag.astype(FLOAT64)).astype(ct))


def polar(magnitude, angle):
    """``abs * (cos(angle) + i sin(angle))``, with ``torch.complex``'s checks of the
    two parts' dtypes."""
    _check_parts(magnitude, angle)
    return complex_of(magnitude * np.cos(angle), magnitude * np.sin(angle))


def view_as_complex(a):
    """A float tensor whose last dimension holds (real, imag) pairs, as complex."""
    if a.shape[-1:] != (2,):
        raise ValueError("Tensor must have a last dimension of size 2")
    ct = np.complex128 if a.dtype == FLOAT64 else np.complex64
    return np.ascontiguousarray(a).view(ct)[..., 0]


def frexp(a):
    """``(mantissa, exponent)`` with an int32 exponent, as torch returns them."""
    if a.dtype.kind not in "f":
        raise TypeError("torch.frexp() only supports floating-point dtypes")
    m, e = np.frexp(a)
    return as_array(m), as_array(e.astype(np.int32))


def polygamma(n, a):
    x = a if a.dtype.kind == "f" else a.astype(DEFAULT_FLOAT)
    return as_array(special.polygamma(n, x)).astype(x.dtype)


def isclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    if a.dtype != b.dtype:
        raise TypeError(f"{torch_name(a.dtype)} did not match {torch_name(b.dtype)}")
    return as_array(np.isclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan))


for _name in ("clamp", "clip"):
    for _b in ("Scalar?", "Tensor?"):
        R.register(f"aten::{_name}", clamp, types=[_T, _b, _b])
        R.register(f"aten::{_name}_", inplace(clamp, _name, meta_name), types=[_T, _b, _b])
        _register_out_form(f"aten::{_name}", clamp, [_T, _b, _b, _T])
for _b in (_S, _T):
    R.register("aten::clamp_min", lambda a, lo: clamp(a, lo, None), types=[_T, _b])
    R.register("aten::clamp_max", lambda a, hi: clamp(a, None, hi), types=[_T, _b])
    R.register("aten::clamp_min_", inplace(lambda a, lo: clamp(a, lo, None), "clamp_min",
                                           meta_name), types=[_T, _b])
    R.register("aten::clamp_max_", inplace(lambda a, hi: clamp(a, None, hi), "clamp_max",
                                           meta_name), types=[_T, _b])
for _c, _o in [(_T, _T), (_T, _S), (_S, _T), (_S, _S)]:
    R.register("aten::where", where, types=[_T, _c, _o])
for _w in (_S, _T):
    R.register("aten::lerp", lerp, types=[_T, _T, _w])
    R.register("aten::lerp_", inplace(lerp, "lerp"), types=[_T, _T, _w])
R.implement("aten::addcmul", addcmul)
R.implement("aten::addcmul_", inplace(addcmul, "addcmul"))
R.implement("aten::addcdiv", addcdiv)
R.implement("aten::addcdiv_", inplace(addcdiv, "addcdiv"))
R.implement("aten::frexp.Tensor", frexp)
R.implement("aten::complex", complex_of)
R.implement("aten::polar", polar)
R.implement("aten::view_as_complex", view_as_complex)
R.implement("aten::view_as_real", lambda a: np.stack([a.real, a.imag], axis=-1))
R.implement("aten::polygamma", polygamma)
R.implement("aten::special_polygamma", polygamma)
R.implement("aten::polygamma_", lambda a, n: _assign_values(a, polygamma(n, a)))
R.implement("aten::special_round", _round)
R.implement("aten::conj_physical_", lambda a: np.conjugate(a, out=a) if a.dtype.kind == "c" else a)
R.implement("aten::view_as_complex_copy", lambda a: view_as_complex(a).copy())
R.implement("aten::view_as_real_copy", lambda a: np.stack([a.real, a.imag], axis=-1))


def _assign_values(a, value):
    a[...] = value
    return a

R.implement("aten::isclose", isclose)
R.register("aten::__not__", np.logical_not, types=[_T])
