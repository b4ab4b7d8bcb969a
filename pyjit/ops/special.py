"""Special functions on numpy arrays, for the pointwise table (``erf``, ``lgamma``,
``digamma``, ``polygamma``, ``erfinv``, ``ndtri``, the Bessel functions, Airy's Ai...).

numpy has none of these but ``i0``, and pyjit depends on numpy alone, so each is
computed here in float64 (the caller casts to the tensor's dtype), from the C
library where Python exposes it (``math.erf``, ``math.lgamma``), otherwise from
the classical series and expansions, each accurate to well below float32's
resolution on the whole real line.  Poles and domain edges give what torch gives
(``lgamma(0) = inf``, ``digamma(0) = -inf``, ``erfinv(1) = inf``, NaN outside the
domain), never a Python exception.
"""

from __future__ import annotations

import decimal
import math

import numpy as np
from ..fperrors import ignoring

__all__ = ["erf", "erfc", "erfinv", "lgamma", "digamma", "polygamma", "zeta", "ndtr",
           "ndtri", "log_ndtr", "erfcx", "i0e", "i1", "i1e", "entr", "sinc", "xlogy",
           "xlog1py", "mvlgamma", "gammainc", "gammaincc", "modified_bessel_k0",
           "modified_bessel_k1", "scaled_modified_bessel_k0", "scaled_modified_bessel_k1",
           "spherical_bessel_j0", "bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1", "airy_ai"]

_F64 = np.float64


def _vectorized(fn):
    """A float64 ufunc-like from a function of one Python float."""
    v = np.frompyfunc(fn, 1, 1)

    def apply(x):
        return np.asarray(v(np.asarray(x, dtype=_F64)), dtype=_F64)
    apply.__name__ = fn.__name__
    return apply


def _lgamma1(x: float) -> float:
    try:
        return math.lgamma(x)
    except ValueError:  # a pole: 0, -1, -2, ...
        return math.inf


erf = _vectorized(math.erf)
erfc = _vectorized(math.erfc)
lgamma = _vectorized(_lgamma1)


def _ndtri_rational(p: np.ndarray) -> np.ndarray:
    """Acklam's rational approximation of the normal quantile (relative error
    below 1.2e-9), for 0 < p < 1."""
    a = (-3.969683028665376e+01, 2.209460984245205e+02, -2.759285104469687e+02,
         1.383577518672690e+02, -3.066479806614716e+01, 2.506628277459239e+00)
    b = (-5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02,
         6.680131188771972e+01, -1.328068155288572e+01)
    c = (-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00,
         -2.549732539343734e+00, 4.374664141464968e+00, 2.938163982698783e+00)
    d = (7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00,
         3.754408661907416e+00)
    out = np.empty_like(p)
    lo = p < 0.02425
    hi = p > 1 - 0.02425
    mid = ~(lo | hi)
    q = p[mid] - 0.5
    r = q * q
    out[mid] = (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q / \
        (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1)
    for mask, sign, tail in ((lo, 1.0, p[lo]), (hi, -1.0, 1 - p[hi])):
        q = np.sqrt(-2 * np.log(tail))
        out[mask] = sign * (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) / \
            ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1)
    return out


def ndtr(x):
    """The standard normal CDF."""
    return 0.5 * erfc(-np.asarray(x, dtype=_F64) / math.sqrt(2))


def ndtri(p):
    """The inverse of :func:`ndtr`: -inf at 0, inf at 1, NaN outside [0, 1]."""
    p = np.asarray(p, dtype=_F64)
    inside = (p > 0) & (p < 1)
    out = np.where(p == 0, -np.inf, np.where(p == 1, np.inf, np.nan))
    if inside.any():
        z = _ndtri_rational(p[inside])
        # One Newton step on the CDF brings Acklam's 1e-9 to double precision.
        err = ndtr(z) - p[inside]
        z = z - err * math.sqrt(2 * math.pi) * np.exp(z * z / 2)
        out[inside] = z
    return out


def erfinv(y):
    """The inverse error function, through the normal quantile of the tail that
    keeps its precision: ``erfinv(y) = -ndtri((1 - y) / 2) / sqrt(2)`` for y > 0."""
    y = np.asarray(y, dtype=_F64)
    a = np.abs(y)
    out = -ndtri((1 - a) / 2) / math.sqrt(2)
    out = np.where(a > 1, np.nan, out)
    return np.copysign(out, y)


def log_ndtr(x):
    """``log(ndtr(x))``, with the asymptotic series where ``ndtr`` underflows."""
    x = np.asarray(x, dtype=_F64)
    out = np.empty_like(x)
    far = x < -20
    near = ~far
    out[near] = np.log(ndtr(x[near]))
    t = x[far]
    z2 = 1 / (t * t)
    out[far] = -t * t / 2 - np.log(-t) - 0.5 * math.log(2 * math.pi) + \
        np.log1p(-z2 * (1 - 3 * z2 * (1 - 5 * z2)))
    return out


def erfcx(x):
    """The scaled complementary error function ``exp(x**2) * erfc(x)``."""
    x = np.asarray(x, dtype=_F64)
    out = np.empty_like(x)
    big = x > 25
    small = ~big
    xs = x[small]
    with ignoring():
        out[small] = np.exp(xs * xs) * erfc(xs)
    xb = x[big]
    z2 = 1 / (2 * xb * xb)
    out[big] = (1 - z2 * (1 - 3 * z2 * (1 - 5 * z2))) / (xb * math.sqrt(math.pi))
    return out


# Bernoulli-number coefficients B_2k / (2k)! of the Euler-Maclaurin tail of zeta.
_EM = (12.0, -720.0, 30240.0, -1209600.0, 47900160.0, -1.8924375803183791606e9,
       7.47242496e10, -2.950130727918164224e12, 1.1646782814350067249e14,
       -4.5979787224074726105e15, 1.8152105401943546773e17, -7.1661652561756670113e18)


def zeta(s, q):
    """The Hurwitz zeta function ``sum((k + q) ** -s for k >= 0)`` (Cephes'
    Euler-Maclaurin method): NaN for s < 1, inf at s == 1, and at a pole of q."""
    s, q = np.broadcast_arrays(np.asarray(s, dtype=_F64), np.asarray(q, dtype=_F64))
    out = np.full(s.shape, np.nan)
    flat_s, flat_q, flat_out = s.ravel(), q.ravel(), out.reshape(-1)
    for i in range(flat_s.size):
        flat_out[i] = _zeta1(float(flat_s[i]), float(flat_q[i]))
    return out


def _zeta1(x: float, q: float) -> float:
    if x == 1.0:
        return math.inf
    if x < 1.0 or math.isnan(x) or math.isnan(q):
        return math.nan
    if q <= 0.0:
        if q == math.floor(q):
            return math.inf
        if x != math.floor(x):
            return math.nan  # q^-x is not real
    total = q ** -x
    a, i, b = q, 0, 0.0
    while i < 9 or a <= 9.0:
        i += 1
        a += 1.0
        b = a ** -x
        total += b
        if abs(b / total) < 1e-17:
            return total
    w = a
    total += b * w / (x - 1.0) - 0.5 * b
    fac, k = 1.0, 0.0
    for coeff in _EM:
        fac *= x + k
        b /= w
        t = fac * b / coeff
        total += t
        if abs(t / total) < 1e-17:
            break
        k += 1.0
        fac *= x + k
        b /= w
        k += 1.0
    return total


def digamma(x):
    """psi(x): -inf at 0 (torch's convention), NaN at the negative integers,
    reflection below 0, recurrence up to 6 and the asymptotic series above."""
    x = np.asarray(x, dtype=_F64)
    out = np.empty_like(x)
    flat_x, flat_out = x.ravel(), out.reshape(-1)
    for i in range(flat_x.size):
        flat_out[i] = _digamma1(float(flat_x[i]))
    return out


def _digamma1(x: float) -> float:
    if x == 0:
        return math.copysign(math.inf, -x)
    if math.isnan(x) or x == -math.inf:
        return math.nan
    if x < 0:
        if x == math.floor(x):
            return math.nan
        # psi(1 - x) - psi(x) = pi / tan(pi x)
        return _digamma1(1 - x) - math.pi / math.tan(math.pi * x)
    result = 0.0
    while x < 6:
        result -= 1 / x
        x += 1
    f = 1 / (x * x)
    series = f * (1 / 12 - f * (1 / 120 - f * (1 / 252 - f * (1 / 240 - f * (1 / 132)))))
    return result + math.log(x) - 0.5 / x - series


def polygamma(n: int, x):
    """The n-th derivative of digamma: ``(-1)**(n+1) n! zeta(n+1, x)``."""
    if n == 0:
        return digamma(x)
    x = np.asarray(x, dtype=_F64)
    sign = -1.0 if n % 2 == 0 else 1.0
    return sign * math.factorial(n) * zeta(np.full(x.shape, n + 1.0), x)


def mvlgamma(x, p: int):
    """The multivariate log-gamma of dimension p."""
    x = np.asarray(x, dtype=_F64)
    total = p * (p - 1) / 4 * math.log(math.pi)
    for j in range(p):
        total = total + lgamma(x - j / 2)
    return np.asarray(total, dtype=_F64)


def i0e(x):
    x = np.asarray(x, dtype=_F64)
    return np.i0(x) * np.exp(-np.abs(x))


def _i1_scaled(x: np.ndarray) -> np.ndarray:
    """``I1(x) * exp(-|x|)``: the power series for |x| <= 20, the asymptotic
    expansion above."""
    out = np.empty_like(x)
    a = np.abs(x)
    small = a <= 20
    xs = x[small]
    term = xs / 2
    total = term.copy()
    q = xs * xs / 4
    for k in range(1, 80):
        term = term * q / (k * (k + 1))
        total = total + term
    out[small] = total * np.exp(-np.abs(xs))
    xb = x[~small]
    ab = np.abs(xb)
    mu = 4.0
    acc = np.ones_like(ab)
    term = np.ones_like(ab)
    for k in range(1, 30):
        term = -term * (mu - (2 * k - 1) ** 2) / (k * 8 * ab)
        acc = acc + term
    out[~small] = np.sign(xb) * acc / np.sqrt(2 * math.pi * ab)
    return out


def i1e(x):
    return _i1_scaled(np.asarray(x, dtype=_F64))


def i1(x):
    x = np.asarray(x, dtype=_F64)
    with ignoring():
        return _i1_scaled(x) * np.exp(np.abs(x))


def _k_integral(x: np.ndarray, order: int, scaled: bool) -> np.ndarray:
    """``K_order(x) = integral_0^inf exp(-x cosh t) cosh(order t) dt`` for x > 0 (times
    ``exp(x)`` when ``scaled``), by the trapezoidal rule: the integrand is analytic
    and decays double-exponentially, so a step of 1/8 is exact to double precision;
    the range ends where ``x (cosh t - 1)`` passes 750."""
    out = np.empty_like(x)
    for i, v in enumerate(x.reshape(-1)):
        if not v > 0:
            out.reshape(-1)[i] = np.inf if v == 0 else np.nan
            continue
        end = math.acosh(1 + 750 / v)
        t = np.arange(0, end + 0.125, 0.125)
        f = np.exp(-v * (np.cosh(t) - 1)) * np.cosh(order * t)
        total = 0.125 * (f.sum() - f[0] / 2)
        out.reshape(-1)[i] = total if scaled else total * math.exp(-v)
    return out


def modified_bessel_k0(x):
    return _k_integral(np.asarray(x, dtype=_F64), 0, False)


def modified_bessel_k1(x):
    return _k_integral(np.asarray(x, dtype=_F64), 1, False)


def scaled_modified_bessel_k0(x):
    return _k_integral(np.asarray(x, dtype=_F64), 0, True)


def scaled_modified_bessel_k1(x):
    return _k_integral(np.asarray(x, dtype=_F64), 1, True)


# -- Bessel functions of the first and second kind, and Airy's Ai ---------------------------
#
# Their power series converge everywhere but cancel: J0(20) is a sum of terms up to
# 4e6 that comes to 0.17.  So for |x| <= 25 they are summed exactly enough in
# 60-digit decimal arithmetic (which only costs time), and beyond that the Hankel
# (Bessel) or the standard (Airy) asymptotic expansions, whose error there is below
# double precision, take over.

_DIGITS = decimal.Context(prec=60)
_EULER = decimal.Decimal("0.577215664901532860606512090082402431042159335939923598805767")
_PI = decimal.Decimal("3.14159265358979323846264338327950288419716939937510582097494")
_SERIES_LIMIT = 25.0


def _dec(v: float) -> decimal.Decimal:
    return _DIGITS.create_decimal_from_float(v)


def _bessel_j_decimal(d: decimal.Decimal, n: int) -> decimal.Decimal:
    """``J_n(d) = sum (-1)^k (d/2)^(2k+n) / (k! (k+n)!)``."""
    half = d / 2
    q = -(half * half)
    term = half ** n / math.factorial(n)
    total, k = term, 0
    while True:
        k += 1
        term = _DIGITS.divide(term * q, k * (k + n))
        total += term
        if term == 0 or abs(term) < abs(total) * decimal.Decimal("1e-45"):
            return total


def _bessel_y_series(x: float, n: int) -> float:
    """A&S 9.1.11 for n = 0, 1: ``(2/pi) ln(x/2) J_n(x)``, minus the series of
    digamma sums, minus ``2/(pi x)`` for n = 1."""
    d = _dec(x)
    half = d / 2
    q = -(half * half)
    total = decimal.Decimal(0)
    term = half ** n / math.factorial(n)  # (x/2)^(2k+n) / (k! (k+n)!), k = 0
    harmonic = [decimal.Decimal(0)]
    k = 0
    while True:
        while len(harmonic) <= k + n:
            harmonic.append(harmonic[-1] + _DIGITS.divide(1, len(harmonic)))
        piece = (harmonic[k] + harmonic[k + n] - 2 * _EULER) * term
        total += piece
        if k > 5 and abs(piece) < decimal.Decimal("1e-45") * max(abs(total), 1):
            break
        k += 1
        term = _DIGITS.divide(term * q, k * (k + n))
    result = _DIGITS.divide(2, _PI) * _DIGITS.ln(half) * _bessel_j_decimal(d, n) - total / _PI
    if n == 1:
        result -= _DIGITS.divide(2, _PI * d)
    return float(result)


def _hankel(x: float, n: int):
    """The Hankel expansions ``(P, Q)`` of order ``n`` at large ``x``."""
    mu = 4.0 * n * n
    p, q = 1.0, 0.0
    term = 1.0
    k = 1
    while k < 60:
        term *= (mu - (2 * k - 1) ** 2) / (k * 8.0 * x)
        if abs(term) < 1e-17:
            break
        if k % 2:
            q += term if (k // 2) % 2 == 0 else -term
        else:
            p += -term if (k // 2) % 2 else term
        k += 1
    return p, q


def _bessel_large(x: float, n: int, second_kind: bool) -> float:
    p, q = _hankel(x, n)
    chi = x - (n / 2 + 0.25) * math.pi
    scale = math.sqrt(2 / (math.pi * x))
    if second_kind:
        return scale * (p * math.sin(chi) + q * math.cos(chi))
    return scale * (p * math.cos(chi) - q * math.sin(chi))


def _bessel_j1(v: float, n: int) -> float:
    if math.isnan(v):
        return math.nan
    a = abs(v)
    if math.isinf(a):
        return 0.0
    if a == 0:
        return 1.0 if n == 0 else 0.0
    r = float(_bessel_j_decimal(_dec(a), n)) if a <= _SERIES_LIMIT else \
        _bessel_large(a, n, False)
    return -r if n % 2 and v < 0 else r


def _bessel_y1(v: float, n: int) -> float:
    if math.isnan(v) or v < 0:
        return math.nan
    if v == 0:
        return -math.inf
    if math.isinf(v):
        return 0.0
    return _bessel_y_series(v, n) if v <= _SERIES_LIMIT else _bessel_large(v, n, True)


def _elementwise(fn, *params):
    """A float64 array function from ``fn(float, *params)``, run in the 60-digit
    decimal context the series need."""
    def apply(x):
        x = np.asarray(x, dtype=_F64)
        out = np.empty(x.shape)
        with decimal.localcontext(_DIGITS):
            for i, v in enumerate(x.reshape(-1)):
                out.reshape(-1)[i] = fn(float(v), *params)
        return out
    return apply


bessel_j0 = _elementwise(_bessel_j1, 0)
bessel_j1 = _elementwise(_bessel_j1, 1)
bessel_y0 = _elementwise(_bessel_y1, 0)
bessel_y1 = _elementwise(_bessel_y1, 1)


def _airy_series(x: float) -> float:
    """Ai by its Maclaurin series ``c1 f(x) - c2 g(x)`` in 60-digit decimals."""
    c1 = decimal.Decimal("0.355028053887817239260063186004183176397979174199177")
    c2 = decimal.Decimal("0.258819403792806798405183560189203963479091138354934")
    d = _dec(x)
    cube = d * d * d
    f_term, g_term = decimal.Decimal(1), d
    f_sum, g_sum = f_term, g_term
    k = 0
    while True:
        k += 1
        f_term = _DIGITS.divide(f_term * cube, (3 * k - 1) * (3 * k))
        g_term = _DIGITS.divide(g_term * cube, (3 * k) * (3 * k + 1))
        f_sum += f_term
        g_sum += g_term
        if k > 3 and abs(f_term) + abs(g_term) < decimal.Decimal("1e-45"):
            return float(c1 * f_sum - c2 * g_sum)


def _airy_large(x: float) -> float:
    a = abs(x)
    zeta = 2.0 / 3.0 * a ** 1.5
    u = [1.0]
    for k in range(1, 20):
        num = 1.0
        for j in range(2 * k + 1, 6 * k, 2):
            num *= j
        u.append(num / (216.0 ** k * math.factorial(k)))
    if x > 0:
        total = sum((-1) ** k * u[k] / zeta ** k for k in range(len(u)))
        return math.exp(-zeta) / (2 * math.sqrt(math.pi) * a ** 0.25) * total
    even = sum((-1) ** k * u[2 * k] / zeta ** (2 * k) for k in range(len(u) // 2))
    odd = sum((-1) ** k * u[2 * k + 1] / zeta ** (2 * k + 1) for k in range(len(u) // 2))
    phase = zeta + math.pi / 4
    return (math.sin(phase) * even - math.cos(phase) * odd) / (math.sqrt(math.pi) * a ** 0.25)


def _airy1(v: float) -> float:
    if math.isnan(v) or v == -math.inf:
        return math.nan
    if v == math.inf:
        return 0.0
    # The series cancels like exp(2 zeta) where Ai decays (x > 0): past 10 the
    # expansion is the better of the two.
    return _airy_series(v) if -_SERIES_LIMIT <= v <= 10.0 else _airy_large(v)


airy_ai = _elementwise(_airy1)


def spherical_bessel_j0(x):
    """``sin(x) / x``, 1 at 0."""
    x = np.asarray(x, dtype=_F64)
    with ignoring():
        return np.where(x == 0, 1.0, np.sin(x) / np.where(x == 0, 1.0, x))


def entr(x):
    """``-x log x`` for x > 0, 0 at 0, -inf below."""
    x = np.asarray(x, dtype=_F64)
    with ignoring():
        return np.where(x > 0, -x * np.log(np.where(x > 0, x, 1)),
                        np.where(x == 0, 0.0, np.where(np.isnan(x), np.nan, -np.inf)))


def sinc(x):
    """``sin(pi x) / (pi x)``, 1 at 0 (numpy's sinc is the same function)."""
    return np.sinc(np.asarray(x, dtype=_F64))


def xlogy(x, y):
    """``x * log(y)``, 0 where x == 0 (unless y is NaN)."""
    x, y = np.asarray(x, dtype=_F64), np.asarray(y, dtype=_F64)
    with ignoring():
        return np.where((x == 0) & ~np.isnan(y), 0.0, x * np.log(y))


def xlog1py(x, y):
    x, y = np.asarray(x, dtype=_F64), np.asarray(y, dtype=_F64)
    with ignoring():
        return np.where((x == 0) & ~np.isnan(y), 0.0, x * np.log1p(y))


def _gammainc1(a: float, x: float, upper: bool) -> float:
    """Regularized incomplete gamma P(a, x) (or Q) by its series or its continued
    fraction, whichever converges."""
    if math.isnan(a) or math.isnan(x) or a < 0 or x < 0:
        return math.nan
    if a == 0:
        return (0.0 if upper else 1.0) if x > 0 else math.nan
    if x == 0:
        return 1.0 if upper else 0.0
    if math.isinf(a):
        return math.nan if math.isinf(x) else (1.0 if upper else 0.0)
    if math.isinf(x):
        return 0.0 if upper else 1.0
    log_pre = a * math.log(x) - x - math.lgamma(a)
    if x < a + 1:
        term = total = 1.0 / a
        n = a
        for _ in range(10000):
            n += 1
            term *= x / n
            total += term
            if abs(term) < abs(total) * 1e-17:
                break
        p = total * math.exp(log_pre)
        return 1.0 - p if upper else p
    # Lentz's continued fraction for Q.
    tiny = 1e-300
    b = x + 1 - a
    c = 1 / tiny
    d = 1 / b
    h = d
    for i in range(1, 10000):
        an = -i * (i - a)
        b += 2
        d = an * d + b
        d = tiny if abs(d) < tiny else d
        c = b + an / c
        c = tiny if abs(c) < tiny else c
        d = 1 / d
        delta = d * c
        h *= delta
        if abs(delta - 1) < 1e-16:
            break
    q = math.exp(log_pre) * h
    return q if upper else 1.0 - q


def _gammainc(upper: bool):
    def fn(a, x):
        a, x = np.broadcast_arrays(np.asarray(a, dtype=_F64), np.asarray(x, dtype=_F64))
        out = np.empty(a.shape)
        fa, fx, fo = a.ravel(), x.ravel(), out.reshape(-1)
        for i in range(fa.size):
            fo[i] = _gammainc1(float(fa[i]), float(fx[i]), upper)
        return out
    return fn


gammainc = _gammainc(False)
gammaincc = _gammainc(True)
