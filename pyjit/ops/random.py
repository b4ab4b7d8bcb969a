"""Random sampling: ``rand``, ``randn``, ``randint``, ``randperm``, ``bernoulli``,
``multinomial``, ``normal``, the in-place ``uniform_``/``normal_``/``bernoulli_``
fillers, and dropout in training mode.

Numbers come from one numpy ``Generator`` per process, not from torch's
generator: the distributions, shapes and dtypes are torch's, the draws are not
(no library reproduces another's random streams).  :func:`manual_seed` makes runs
repeatable, as ``torch.manual_seed`` does for torch.  A graph's ``Generator?``
argument, which TorchScript passes as None unless the program made one, is
accepted; a generator object is refused, since pyjit has none to honour.

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

__all__ = ["manual_seed", "generator", "bernoulli", "dropout", "FAMILY"]

_state = {"rng": np.random.default_rng()}


def manual_seed(seed: int) -> None:
    """Restart pyjit's random numbers from ``seed`` (``torch.manual_seed``'s role)."""
    _state["rng"] = np.random.default_rng(seed)


def generator() -> np.random.Generator:
    return _state["rng"]


def _no_generator(gen) -> None:
    if gen is not None:
        raise ValueError("pyjit draws from its own generator (pyjit.ops.random.manual_seed); "
                         "a torch.Generator argument cannot be honoured")


def _float_dtype(dtype, default=DEFAULT_FLOAT) -> np.dtype:
    dt = to_dtype(dtype, default)
    if dt.kind not in "fc":
        raise TypeError(f"\"check_uniform_bounds\" not implemented for '{torch_name(dt)}'")
    return dt


def rand(size, dtype=None, layout=None, device=None, pin_memory=None, gen=None):
    _no_generator(gen)
    return generator().random(tuple(size)).astype(_float_dtype(dtype))


def randn(size, dtype=None, layout=None, device=None, pin_memory=None, gen=None):
    _no_generator(gen)
    return generator().standard_normal(tuple(size)).astype(_float_dtype(dtype))


def randint(low, high, size, dtype=None, layout=None, device=None, pin_memory=None, gen=None):
    _no_generator(gen)
    if low >= high:
        raise ValueError(f"random_ expects 'from' to be less than 'to', but got from={low} >= "
                         f"to={high}")
    return generator().integers(low, high, tuple(size)).astype(to_dtype(dtype, INT64))


def randperm(n: int, dtype=4, layout=None, device=None, pin_memory=None, gen=None):
    _no_generator(gen)
    if n < 0:
        raise ValueError(f"n must be non-negative, got{n}")
    return generator().permutation(n).astype(to_dtype(dtype, INT64))


def _like(sample):
    def like(a, dtype=None, layout=None, device=None, pin_memory=None, memory_format=None):
        return sample(list(a.shape), code_of(a.dtype) if dtype is None else dtype)
    return like


def bernoulli(a, p=None, gen=None):
    """``torch.bernoulli``: 1 with probability ``p`` (or each element of ``a``)."""
    _no_generator(gen)
    probs = a if p is None else p
    probs = np.asarray(probs, dtype=np.float64)
    if np.any((probs < 0) | (probs > 1)):
        raise ValueError("bernoulli_ expects p to be in [0, 1]")
    draw = generator().random(a.shape) < probs
    return draw.astype(a.dtype)


def bernoulli_(a, p=0.5, gen=None):
    a[...] = bernoulli(a, p, gen)
    return a


def uniform_(a, low=0.0, high=1.0, gen=None):
    _no_generator(gen)
    a[...] = generator().uniform(low, high, a.shape)
    return a


def normal_(a, mean=0.0, std=1.0, gen=None):
    _no_generator(gen)
    if std < 0:
        raise ValueError(f"normal expects std >= 0.0, but found std {std}")
    a[...] = generator().normal(mean, std, a.shape)
    return a


def normal(mean, std, gen=None):
    _no_generator(gen)
    dt = mean.dtype if isinstance(mean, np.ndarray) else std.dtype
    shape = np.broadcast_shapes(np.shape(mean), np.shape(std))
    return as_array(generator().normal(mean, std, shape).astype(dt))


def multinomial(probs, n: int, replacement: bool = False, gen=None):
    """Indices drawn with the rows' weights (without replacement by default)."""
    _no_generator(gen)
    rows = probs.reshape(-1, probs.shape[-1]).astype(np.float64)
    if not replacement and n > rows.shape[1]:
        raise ValueError("cannot sample n_sample > prob_dist.size(-1) samples without "
                         "replacement")
    out = np.stack([generator().choice(rows.shape[1], n, replace=replacement, p=r / r.sum())
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
R.register("aten::randint_like",
           lambda a, high, dtype=None, *opts: randint(0, high, list(a.shape),
                                                       code_of(a.dtype) if dtype is None
                                                       else dtype),
           types=[_T, "int"] + _OPTS + ["int?"])
R.register("aten::bernoulli", lambda a, gen=None: bernoulli(a, None, gen), types=[_T, _G])
R.register("aten::bernoulli", bernoulli, types=[_T, "float", _G])
for _p in ("float", _T):
    R.register("aten::bernoulli_", bernoulli_, types=[_T, _p, _G])
R.register("aten::uniform_", uniform_, types=[_T, "float", "float", _G])
R.register("aten::normal_", normal_, types=[_T, "float", "float", _G])
for _m, _s in ((_T, _T), (_T, "float"), ("float", _T)):
    R.register("aten::normal", normal, types=[_m, _s, _G])
R.register("aten::multinomial", multinomial, types=[_T, "int", "bool", _G])
for _name, _fn in (("dropout", dropout), ("feature_dropout", feature_dropout),
                   ("alpha_dropout", alpha_dropout),
                   ("feature_alpha_dropout", lambda x, p, t: alpha_dropout(x, p, t, True))):
    R.register(f"aten::{_name}", _fn, types=[_T, "float", "bool"])
    R.register(f"aten::{_name}_", (lambda f: lambda x, p, t: _assign(x, f(x, p, t)))(_fn),
               types=[_T, "float", "bool"])


def _assign(a, value):
    if value is not a:
        a[...] = value
    return a


#: The family's operator names, for ``pyjit info --ops``.
FAMILY = sorted(["rand", "randn", "randint", "randperm", "rand_like", "randn_like",
                 "randint_like", "bernoulli", "bernoulli_", "uniform_", "normal_", "normal",
                 "multinomial", "dropout", "feature_dropout", "alpha_dropout",
                 "feature_alpha_dropout"])
