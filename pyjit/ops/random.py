"""Random sampling: ``rand``, ``randn``, ``randint``, ``randperm``, ``bernoulli``,
``multinomial``, ``normal``, the in-place ``uniform_``/``normal_``/``bernoulli_``
fillers, and dropout in training mode.

Numbers come from one numpy ``Generator`` per process, not from torch's
generator: the distributions, shapes and dtypes are torch's, the draws are not
(no library reproduces another's random streams).  :func:`manual_seed` makes runs
repeatable, as ``torch.manual_seed`` does for torch.  A graph's ``Generator?``
argument is None unless the program made a generator (``torch.Generator()``,
``aten::Generator``), which is a :class:`Generator` of pyjit's: a numpy generator
of its own, seeded as torch seeds one (``manual_seed``, ``seed``,
``initial_seed``), that the operators given it draw from.

Beyond ``rand``-like factories: the in-place fillers of torch's distributions
(``exponential_``, ``cauchy_``, ``geometric_``, ``log_normal_``, ``random_``,
with torch's checks of their parameters) and their functional forms
(``exponential``, ``uniform``, ``normal_functional``...), ``binomial`` and
``poisson``, ``native_dropout`` and ``rrelu_with_noise``.

So library code that draws only in training mode (``stochastic_depth``,
``drop_block2d``, ``F.dropout(..., training=...)``) builds, runs exactly in
evaluation mode, and samples in training mode.
"""

from __future__ import annotations

from typing import Optional

import numpy as np

from ..registry import library as R
from .dims import as_array
from .dtypes import DEFAULT_FLOAT, INT64, code_of, to_dtype, torch_name

__all__ = ["manual_seed", "generator", "bernoulli", "dropout"]

_state = {"rng": np.random.default_rng()}


def manual_seed(seed: int) -> None:
    """Restart pyjit's random numbers from ``seed`` (``torch.manual_seed``'s role)."""
    _state["rng"] = np.random.default_rng(seed)


def generator() -> np.random.Generator:
    return _state["rng"]


class Generator:
    """A ``torch.Generator`` of pyjit's: a numpy ``Generator`` and the seed it
    started from.  ``torch.Generator(seed=...)`` in a graph makes one, and every
    sampling operator's ``generator=`` draws from it instead of the process's."""

    __slots__ = ("rng", "initial")

    def __init__(self, seed: Optional[int] = None) -> None:
        self.manual_seed(_fresh_seed() if seed is None else seed)

    def manual_seed(self, seed: int) -> "Generator":
        self.initial = seed
        self.rng = np.random.default_rng(seed & 0xFFFF_FFFF_FFFF_FFFF)
        return self

    def seed(self) -> int:
        """``Generator.seed()``: restart from a fresh nondeterministic seed, returned."""
        seed = _fresh_seed()
        self.manual_seed(seed)
        return seed

    def __repr__(self) -> str:
        return f"<pyjit Generator, initial seed {self.initial}>"


def _fresh_seed() -> int:
    return int(np.random.SeedSequence().entropy) & 0xFFFF_FFFF_FFFF_FFFF


def _rng(gen) -> np.random.Generator:
    """The numpy generator to draw from: the one of ``gen``, a pyjit
    :class:`Generator`, or the process's when ``gen`` is None."""
    if gen is None:
        return _state["rng"]
    if isinstance(gen, Generator):
        return gen.rng
    raise TypeError(f"expected a pyjit Generator or None, got {type(gen).__name__}")


def _float_dtype(dtype, default=DEFAULT_FLOAT) -> np.dtype:
    dt = to_dtype(dtype, default)
    if dt.kind not in "fc":
        raise TypeError(f"\"check_uniform_bounds\" not implemented for '{torch_name(dt)}'")
    return dt


def rand(size, dtype=None, layout=None, device=None, pin_memory=None, gen=None):
    rng = _rng(gen)
    return rng.random(tuple(size)).astype(_float_dtype(dtype))


def randn(size, dtype=None, layout=None, device=None, pin_memory=None, gen=None):
    rng = _rng(gen)
    return rng.standard_normal(tuple(size)).astype(_float_dtype(dtype))


def randint(low, high, size, dtype=None, layout=None, device=None, pin_memory=None, gen=None):
    rng = _rng(gen)
    if low >= high:
        raise ValueError(f"random_ expects 'from' to be less than 'to', but got from={low} >= "
                         f"to={high}")
    return rng.integers(low, high, tuple(size)).astype(to_dtype(dtype, INT64))


def randperm(n: int, dtype=4, layout=None, device=None, pin_memory=None, gen=None):
    rng = _rng(gen)
    if n < 0:
        raise ValueError(f"n must be non-negative, got{n}")
    return rng.permutation(n).astype(to_dtype(dtype, INT64))


def _like(sample, with_generator: bool = False):
    """``rand_like``-style: ``a``'s shape, and its dtype unless one is given;
    ``with_generator``: the overload whose generator comes first."""
    def like(a, dtype=None, layout=None, device=None, pin_memory=None, memory_format=None):
        return sample(list(a.shape), code_of(a.dtype) if dtype is None else dtype)

    def like_drawn_by(a, gen, dtype=None, layout=None, device=None, pin_memory=None,
                      memory_format=None):
        return sample(list(a.shape), code_of(a.dtype) if dtype is None else dtype, gen=gen)
    return like_drawn_by if with_generator else like


def _randint_like(a, bounds, gen=None, dtype=None, layout=None, device=None, pin_memory=None,
                  memory_format=None):
    low, high = bounds
    return randint(low, high, list(a.shape), code_of(a.dtype) if dtype is None else dtype,
                   gen=gen)


def _normal_sized(mean: float, std: float, size, dtype=None, gen=None):
    """``torch.normal(mean, std, size)``: draws of one distribution, in the
    default float dtype unless one is given."""
    if std < 0:
        raise ValueError(f"normal expects std >= 0.0, but found std {_num(std)}")
    return _rng(gen).normal(mean, std, tuple(size)).astype(_float_dtype(dtype))


def bernoulli(a, p=None, gen=None):
    """``torch.bernoulli``: 1 with probability ``p`` (or each element of ``a``)."""
    rng = _rng(gen)
    probs = a if p is None else p
    probs = np.asarray(probs, dtype=np.float64)
    if np.any((probs < 0) | (probs > 1)):
        raise ValueError("bernoulli_ expects p to be in [0, 1]")
    draw = rng.random(a.shape) < probs
    return draw.astype(a.dtype)


def bernoulli_tensor(a, p, gen=None):
    """``aten::bernoulli.Tensor``: a tensor like ``a`` (its shape and dtype) of
    1s drawn with the probabilities ``p``, expanded to ``a``'s shape as torch
    expands them (with its errors)."""
    from .tensor_shapes import expand   # (declared after this family's first rows)
    probs = expand(p, list(a.shape))
    if np.any(~((probs >= 0) & (probs <= 1))):
        raise RuntimeError("Expected p_in >= 0 && p_in <= 1 to be true, but got false.  (Could "
                           "this error message be improved?  If so, please report an "
                           "enhancement request to PyTorch.)")
    return (_rng(gen).random(a.shape) < probs).astype(a.dtype)


def _scalar_high(high) -> int:
    """``randint_like``'s ``high`` as a tensor: one number, truncated to an int."""
    if not isinstance(high, np.ndarray) or high.ndim != 0:
        raise RuntimeError("high must be a scalar tensor and on CPU")
    return int(high.item())


def bernoulli_(a, p=0.5, gen=None):
    a[...] = bernoulli(a, p, gen)
    return a


def uniform_(a, low=0.0, high=1.0, gen=None):
    rng = _rng(gen)
    a[...] = rng.uniform(low, high, a.shape)
    return a


def normal_(a, mean=0.0, std=1.0, gen=None):
    rng = _rng(gen)
    if std < 0:
        raise ValueError(f"normal expects std >= 0.0, but found std {std}")
    a[...] = rng.normal(mean, std, a.shape)
    return a


def normal(mean, std, gen=None):
    rng = _rng(gen)
    dt = mean.dtype if isinstance(mean, np.ndarray) else std.dtype
    shape = np.broadcast_shapes(np.shape(mean), np.shape(std))
    return as_array(rng.normal(mean, std, shape).astype(dt))


def multinomial(probs, n: int, replacement: bool = False, gen=None):
    """Indices drawn with the rows' weights (without replacement by default)."""
    rng = _rng(gen)
    rows = probs.reshape(-1, probs.shape[-1]).astype(np.float64)
    if not replacement and n > rows.shape[1]:
        raise ValueError("cannot sample n_sample > prob_dist.size(-1) samples without "
                         "replacement")
    out = np.stack([rng.choice(rows.shape[1], n, replace=replacement, p=r / r.sum())
                    for r in rows])
    return out.reshape(probs.shape[:-1] + (n,)).astype(INT64)


def dropout(x, p: float, train: bool):
    """``F.dropout``: the identity in evaluation; in training each element is
    zeroed with probability ``p`` and the rest scaled by ``1 / (1 - p)``."""
    if p < 0 or p > 1:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if not train or p == 0:
        return x
    if p == 1:
        return np.zeros_like(x)
    keep = generator().random(x.shape) >= p
    return as_array((x * keep / (1 - p)).astype(x.dtype))


def feature_dropout(x, p: float, train: bool):
    """Dropout of whole channels (``dropout2d``/``3d``): one draw per ``(N, C)``."""
    if not train or p == 0:
        return dropout(x, p, train)
    if p == 1:
        return np.zeros_like(x)
    mask_shape = x.shape[:2] + (1,) * (x.ndim - 2) if x.ndim > 2 else x.shape[:1] + (1,) * (
        x.ndim - 1)
    keep = generator().random(mask_shape) >= p
    return as_array((x * keep / (1 - p)).astype(x.dtype))


def alpha_dropout(x, p: float, train: bool, feature: bool = False):
    """Alpha dropout (``selu`` networks): dropped elements take the negative
    saturation value, and an affine map keeps mean and variance."""
    if not train or p == 0:
        return x
    alpha = -1.7580993408473766
    if p == 1:
        return np.full_like(x, 0)
    shape = (x.shape[:2] + (1,) * (x.ndim - 2)) if feature else x.shape
    keep = generator().random(shape) >= p
    a = ((1 - p) * (1 + p * alpha * alpha)) ** -0.5
    b = -a * alpha * p
    return as_array((a * np.where(keep, x, alpha) + b).astype(x.dtype))


_T, _G = "Tensor", "Generator?"
_OPTS = ["int?", "t1", "t2", "bool?"]  # dtype, layout, device, pin_memory: each any type
R.register("aten::rand", rand, types=["int[]"] + _OPTS)
R.register("aten::rand", lambda size, gen, *opts: rand(size, *opts, gen=gen),
           types=["int[]", _G] + _OPTS)
R.register("aten::randn", randn, types=["int[]"] + _OPTS)
R.register("aten::randn", lambda size, gen, *opts: randn(size, *opts, gen=gen),
           types=["int[]", _G] + _OPTS)
R.register("aten::randint", randint, types=["int", "int", "int[]"] + _OPTS)
R.register("aten::randint", lambda high, size, *opts: randint(0, high, size, *opts),
           types=["int", "int[]"] + _OPTS)
R.register("aten::randperm", randperm, types=["int"] + _OPTS)
R.register("aten::rand_like", _like(rand), types=[_T] + _OPTS + ["int?"])
R.register("aten::randn_like", _like(randn), types=[_T] + _OPTS + ["int?"])
R.implement("aten::bernoulli", lambda a, gen=None: bernoulli(a, None, gen))
R.implement("aten::bernoulli.Tensor", bernoulli_tensor)
# The overloads with a generator= (keyword-only, before dtype and the rest)
R.register("aten::randint", lambda high, size, gen, *opts: randint(0, high, size, *opts, gen=gen),
           types=["int", "int[]", _G] + _OPTS)
R.register("aten::randint", lambda low, high, size, gen, *opts: randint(low, high, size, *opts,
                                                                        gen=gen),
           types=["int", "int", "int[]", _G] + _OPTS)
R.register("aten::randperm", lambda n, gen, *opts: randperm(n, *opts, gen=gen),
           types=["int", _G] + _OPTS)
R.register("aten::rand_like", _like(rand, True), types=[_T, _G] + _OPTS + ["int?"])
R.register("aten::randn_like", _like(randn, True), types=[_T, _G] + _OPTS + ["int?"])
R.register("aten::normal", lambda mean, std, size, gen=None, dtype=None, *opts:
           _normal_sized(mean, std, size, dtype, gen), types=["float", "float", "int[]", _G] + _OPTS)
# randint_like: high alone, low and high, high as a 0-dim tensor; each with or without a generator
for _highs, _f in ((["int"], lambda a, high: (0, high)),
                   (["int", "int"], lambda a, low, high: (low, high)),
                   ([_T], lambda a, high: (0, _scalar_high(high)))):
    _n = len(_highs)
    R.register("aten::randint_like", (lambda f, n: lambda a, *args: _randint_like(
        a, f(a, *args[:n]), None, *args[n:]))(_f, _n), types=[_T] + _highs + _OPTS + ["int?"])
    R.register("aten::randint_like", (lambda f, n: lambda a, *args: _randint_like(
        a, f(a, *args[:n]), *args[n:]))(_f, _n), types=[_T] + _highs + [_G] + _OPTS + ["int?"])
R.implement("aten::bernoulli.p", bernoulli)
for _p in ("float", _T):
    R.register("aten::bernoulli_", bernoulli_, types=[_T, _p, _G])
R.implement("aten::uniform_", uniform_)
R.implement("aten::normal_", normal_)
for _m, _s in ((_T, _T), (_T, "float"), ("float", _T)):
    R.register("aten::normal", normal, types=[_m, _s, _G])
R.implement("aten::multinomial", multinomial)
for _name, _fn in (("dropout", dropout), ("feature_dropout", feature_dropout),
                   ("alpha_dropout", alpha_dropout),
                   ("feature_alpha_dropout", lambda x, p, t: alpha_dropout(x, p, t, True))):
    R.implement(f"aten::{_name}", _fn)
    R.implement(f"aten::{_name}_", (lambda f: lambda x, p, t: _assign(x, f(x, p, t)))(_fn))


def _assign(a, value):
    if value is not a:
        a[...] = value
    return a


# -- torch's other distributions, in place and functional ------------------------------------

def _fill(sample):
    """``<name>_(self, *params, generator=None)``: ``self`` filled with draws of
    ``sample(rng, shape, *params)``, in its dtype."""
    def fill(a, *args):
        *params, gen = args
        a[...] = sample(_rng(gen), a.shape, *params)
        return a
    return fill


def _exponential(rng, shape, lambd=1.0):
    if not lambd > 0.0:
        raise ValueError(f"exponential_ expects lambda > 0.0, but found lambda={_num(lambd)}")
    return rng.exponential(1.0 / lambd, shape)


def _cauchy(rng, shape, median=0.0, sigma=1.0):
    return median + sigma * rng.standard_cauchy(shape)


def _geometric(rng, shape, p):
    if not 0 < p < 1:
        raise ValueError(f"geometric_ expects p to be in (0, 1), but got p={_num(p)}")
    return rng.geometric(p, shape)


def _log_normal(rng, shape, mean=1.0, std=2.0):
    if not std > 0.0:
        raise ValueError(f"log_normal_ expects std > 0.0, but found std={_num(std)}")
    return rng.lognormal(mean, std, shape)


def _num(x) -> str:
    """A double as torch's messages print it (``-1``, ``0.5``)."""
    return str(int(x)) if float(x).is_integer() else repr(float(x))


def _uniform(rng, shape, low=0.0, high=1.0):
    if low > high:
        raise ValueError(f"uniform_ expects to return a [from, to) range, but found "
                         f"from={_num(low)} > to={_num(high)}")
    return rng.uniform(low, high, shape)


def _normal(rng, shape, mean=0.0, std=1.0):
    if std < 0:
        raise ValueError(f"normal expects std >= 0.0, but found std {_num(std)}")
    return rng.normal(mean, std, shape)


def _random_range(a, low=None, high=None):
    """``random_``'s range for ``a``'s dtype: ``[low, high)``; by default from 0
    to the largest integer the dtype holds exactly (2**24 for float32, inclusive,
    as torch draws), and ``random_(from, None)`` to the dtype's largest value."""
    dt = a.dtype
    if dt.kind == "f":
        top = 2 ** (np.finfo(dt).nmant + 1) + 1
    elif dt.kind == "b":
        top = 2
    else:
        top = int(np.iinfo(dt).max) + 1
    low = 0 if low is None else low
    high = top if high is None else high
    if low >= high:
        raise ValueError(f"random_ expects 'from' to be less than 'to', but got from={low} >= "
                         f"to={high}")
    return low, high


def random_(a, low=None, high=None, gen=None):
    low, high = _random_range(a, low, high)
    a[...] = _rng(gen).integers(low, high, a.shape, dtype=np.int64, endpoint=False) \
        if high <= 2 ** 63 else _rng(gen).integers(low, high, a.shape, endpoint=False)
    return a


def _functional(fill):
    """The functional form of an in-place filler: a new tensor like ``self``."""
    return lambda a, *args: fill(np.empty_like(a), *args)


def binomial(count, prob, gen=None):
    """Draws of Binomial(count, prob), elementwise, in ``count``'s dtype."""
    return as_array(_rng(gen).binomial(count.astype(np.int64), prob).astype(count.dtype))


def poisson(rates, gen=None):
    return as_array(_rng(gen).poisson(rates).astype(rates.dtype))


def native_dropout(x, p: float, train):
    """``(output, mask)``: in training (``train`` true or None) the mask of the
    elements kept (each with probability ``1 - p``) and the kept ones scaled by
    ``1 / (1 - p)``; in evaluation a copy and a mask of ones."""
    if train is None or train:
        keep = _state["rng"].random(x.shape) >= p
        scale = 0.0 if p == 1 else 1.0 / (1 - p)
        return as_array((x * keep * scale).astype(x.dtype)), keep
    return x.copy(), np.ones(x.shape, dtype=np.bool_)


def rrelu_with_noise(x, noise, lower=0.125, upper=1.0 / 3, training=False, gen=None):
    """Randomized leaky ReLU: in training each negative element's slope is drawn
    from U(lower, upper) and written into ``noise`` (1 for the others); in
    evaluation the slope is their mean."""
    if not training:
        slope = (lower + upper) / 2
        return as_array(np.where(x >= 0, x, x * x.dtype.type(slope)).astype(x.dtype))
    slopes = _rng(gen).uniform(lower, upper, x.shape).astype(x.dtype)
    slopes = np.where(x >= 0, x.dtype.type(1), slopes)
    noise[...] = slopes.reshape(noise.shape)
    return as_array((x * slopes).astype(x.dtype))


_FILLERS = {"exponential": (_exponential, ["float"]),
            "cauchy": (_cauchy, ["float", "float"]),
            "geometric": (_geometric, ["float"]),
            "log_normal": (_log_normal, ["float", "float"])}
for _name, (_sample, _params) in _FILLERS.items():
    R.register(f"aten::{_name}_", _fill(_sample), types=[_T] + _params + [_G])
    R.register(f"aten::{_name}", _functional(_fill(_sample)), types=[_T] + _params + [_G])
R.implement("aten::uniform", _functional(_fill(_uniform)))
R.implement("aten::normal_functional", _functional(_fill(_normal)))
R.implement("aten::random_", lambda a, gen=None: random_(a, None, None, gen))
R.implement("aten::random_.to", lambda a, high, gen=None: random_(a, None, high, gen))
R.implement("aten::random_.from", random_)
R.implement("aten::random", lambda a, gen=None: random_(np.empty_like(a), None, None, gen))
R.implement("aten::random.to", lambda a, high, gen=None: random_(np.empty_like(a), None, high, gen))
R.implement("aten::random.from", lambda a, low, high, gen=None: random_(np.empty_like(a), low, high,
                                                                   gen))
R.implement("aten::binomial", binomial)
R.implement("aten::poisson", poisson)
R.implement("aten::native_dropout", native_dropout)
R.implement("aten::rrelu_with_noise", rrelu_with_noise)
R.implement("aten::rrelu_with_noise_",
            lambda x, *args: _assign(x, rrelu_with_noise(x, *args)))
R.implement("aten::rrelu_with_noise_functional",
            lambda x, noise, *args: (lambda n: (rrelu_with_noise(x, n, *args), n))(noise.copy()))

# Generators: torch.Generator(), and the process's seed.
R.implement("aten::Generator", lambda device=None, seed=None: Generator(seed))
R.implement("aten::manual_seed", lambda seed: manual_seed(seed))
R.implement("aten::manual_seed.generator", lambda gen, seed: gen.manual_seed(seed))
R.implement("aten::seed", lambda gen: gen.seed())
R.implement("aten::initial_seed", lambda gen: gen.initial)
