"""Tensor creation with torch's default dtypes: ``tensor``, ``as_tensor``,
``zeros``/``ones``/``full``/``empty``, ``arange``/``linspace``/``logspace``/``eye``,
their ``*_like`` and ``new_*`` forms.

TorchScript passes every keyword argument positionally, so ``torch.zeros(2, 3,
dtype=torch.int64)`` arrives as ``aten::zeros(size, dtype, layout, device,
pin_memory)`` with ``dtype`` a ScalarType code (4) and the others None or
constants.  Layout, device and pin_memory are accepted and ignored (pyjit
tensors are dense CPU arrays).  Without a dtype the result follows torch:

* ``zeros``/``ones``/``empty``/``eye``/``linspace``/``logspace``: float32;
* ``full``: from the fill value: bool, int64 or float32;
* ``arange``: int64 when start, end and step are all ints, else float32; its values
  are computed in float64 and then cast, as torch does, so ``arange(0, 1, 0.1)``
  has exactly torch's ten elements and values;
* ``tensor(data)``: from the *static* type of ``data`` in the graph, as TorchScript
  decides it (``List[int]`` is int64 even when the list is empty; ``float`` data
  is float32), and from the values only where the graph says ``Scalar``;
* ``*_like`` and ``new_*``: the dtype of the tensor they are called on.

``empty`` has no defined values in torch; pyjit's are zeros.  Ragged nested lists
are torch's error (``Expected sequence of length 2 at dim 1 (got 1)``).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..ir import types as T
from ..registry import library as R
from .dtypes import BOOL, DEFAULT_FLOAT, INT64, c_name, to_dtype, torch_name

#: the complex dtype of the default float dtype (float32's), torch's for complex data
DEFAULT_COMPLEX = np.dtype(np.complex64)

__all__ = ["zeros", "ones", "full", "arange", "tensor", "linspace", "eye"]


def _size(size):
    for s in size:
        if s < 0:
            raise ValueError(f"Trying to create tensor with negative dimension {s}: "
                             f"[{', '.join(map(str, size))}]")
    return tuple(size)


def zeros(size, dtype=None, layout=None, device=None, pin_memory=None):
    return np.zeros(_size(size), dtype=to_dtype(dtype, DEFAULT_FLOAT))


def ones(size, dtype=None, layout=None, device=None, pin_memory=None):
    return np.ones(_size(size), dtype=to_dtype(dtype, DEFAULT_FLOAT))


def empty(size, dtype=None, layout=None, device=None, pin_memory=None, memory_format=None):
    return zeros(size, dtype)


def _fill_dtype(value):
    if isinstance(value, bool):
        return BOOL
    if isinstance(value, int):
        return INT64
    if isinstance(value, complex):
        return DEFAULT_COMPLEX
    return DEFAULT_FLOAT


def full(size, fill_value, dtype=None, layout=None, device=None, pin_memory=None):
    return np.full(_size(size), fill_value, dtype=to_dtype(dtype, _fill_dtype(fill_value)))


def _number(x):
    """A bound given as a 0-dim tensor or a number, as a Python number."""
    return x.item() if isinstance(x, np.ndarray) else x


def arange(*args):
    """``aten::arange(end, ...)``, ``(start, end, ...)`` or ``(start, end, step, ...)``,
    each followed by dtype, layout, device, pin_memory."""
    n = len(args) - 4
    bounds, dtype = [_number(b) for b in args[:n]], args[n]
    if n == 1:
        start, end, step = 0, bounds[0], 1
    elif n == 2:
        start, end, step = bounds[0], bounds[1], 1
    else:
        start, end, step = bounds
    if step == 0:
        raise ValueError("step must be nonzero")
    if (end - start) * step < 0 and end != start:
        raise ValueError("upper bound and lower bound inconsistent with step sign")
    ints = all(isinstance(x, int) for x in (start, end, step))
    dt = to_dtype(dtype, INT64 if ints else DEFAULT_FLOAT)
    if ints:
        return np.arange(start, end, step).astype(dt)
    count = max(math.ceil((end - start) / step), 0)
    return _float_arange(start, step, count, dt)


#: Elements per vector of torch's CPU kernels (AVX2's 256 bits) by dtype, for the
#: dtypes whose arange :func:`_float_arange` follows.
_VECTOR_WIDTH = {np.dtype(np.float32): 8}


def _float_arange(start: float, step: float, count: int, dt: np.dtype) -> np.ndarray:
    """``count`` values ``start + i * step`` rounded as torch's CPU kernel rounds
    them.  It computes in double, but by vectors: a vector's first value,
    ``start + i0 * step``, is rounded to the dtype, and the vector's others are
    that rounded value plus ``k * step`` (two roundings, not one); the kernel's
    loop takes two vectors at a time, and the elements after the last such pair
    are computed one by one (one rounding).  ``torch.arange(0, 21, 1.1892,
    dtype=float32)`` differs in a last bit from the one-rounding values, which
    matters where the values are floored (torchaudio's ``phase_vocoder`` indexes
    frames by them).  Ranges longer than torch's parallel grain (32768) are
    split among threads, each chunk vectorised from its own start: not modelled."""
    i = np.arange(count, dtype=np.int64)
    out = start + i * step
    width = _VECTOR_WIDTH.get(dt)
    if width is not None:
        full = count - count % (2 * width)
        i0 = (i[:full] // width) * width
        first = (start + i0 * step).astype(dt).astype(np.float64)
        out[:full] = first + (i[:full] - i0) * step
    return out.astype(dt)


def linspace(start, end, steps: int, dtype=None, layout=None, device=None, pin_memory=None):
    """``steps`` values from ``start`` to ``end``, computed as torch's kernel does:
    in the result's float type, from ``start`` for the first half and back from
    ``end`` for the second."""
    if steps < 0:
        raise ValueError("number of steps must be non-negative")
    dt = to_dtype(dtype, DEFAULT_FLOAT)
    start, end = _number(start), _number(end)
    if dt == BOOL:
        raise TypeError("\"linspace_cpu\" not implemented for 'Bool'")
    for bound in (start, end):  # torch converts both ends to the dtype first
        if isinstance(bound, complex):
            continue
        if dt.kind in "iu":
            fits = np.iinfo(dt).min <= bound <= np.iinfo(dt).max
        else:
            fits = not math.isfinite(bound) or abs(bound) <= float(np.finfo(dt).max)
        if not fits:
            raise OverflowError(f"value cannot be converted to type {c_name(dt)} without overflow")
    work = dt if dt.kind == "f" else np.dtype(np.float64)
    if steps == 1:
        return np.array([start], dtype=work).astype(dt)
    s, e = work.type(start), work.type(end)
    step = (e - s) / work.type(max(steps - 1, 1))
    idx = np.arange(steps)
    half = steps // 2
    out = np.where(idx < half, s + step * idx.astype(work),
                   e - step * (steps - 1 - idx).astype(work)).astype(work)
    return out.astype(dt)


def logspace(start, end, steps: int, base: float = 10.0, dtype=None, layout=None, device=None,
             pin_memory=None):
    dt = to_dtype(dtype, DEFAULT_FLOAT)
    exps = linspace(start, end, steps, None if dt.kind != "f" else dtype)
    return np.power(np.float64(base), exps.astype(np.float64)).astype(dt)


def eye(n: int, m=None, dtype=None, layout=None, device=None, pin_memory=None):
    if n < 0:
        raise ValueError(f"n must be greater or equal to 0, got {n}")
    return np.eye(n, n if m is None else m, dtype=to_dtype(dtype, DEFAULT_FLOAT))


# -- tensor(data) ----------------------------------------------------------------------

def _check_rectangular(data: Any, dim: int = 0) -> None:
    """Raise torch's error for ragged nested lists."""
    if not isinstance(data, (list, tuple)) or not data:
        return
    if isinstance(data[0], (list, tuple)):
        expected = len(data[0])
        for item in data:
            got = len(item) if isinstance(item, (list, tuple)) else 0
            if got != expected or not isinstance(item, (list, tuple)):
                raise ValueError(f"Expected sequence of length {expected} at dim {dim + 1} "
                                 f"(got {got})")
            _check_rectangular(item, dim + 1)


def _static_dtype(t: T.Type):
    """The dtype TorchScript gives ``torch.tensor`` data of graph type ``t``, or
    None when only the values can tell (``Scalar``, ``Any``, a type variable)."""
    while isinstance(t, T.ListType):
        t = t.elem
    return {T.INT: INT64, T.FLOAT: DEFAULT_FLOAT, T.BOOL: BOOL, T.COMPLEX: DEFAULT_COMPLEX}.get(t)


def _value_dtype(data) -> np.dtype:
    flat = data
    while isinstance(flat, (list, tuple)) and flat:
        flat = flat[0]
    return _fill_dtype(flat) if not isinstance(flat, (list, tuple)) else DEFAULT_FLOAT


def _tensor_of(static):
    def tensor(data, dtype=None, device=None, requires_grad=False):
        """``aten::tensor``: a tensor from (nested lists of) numbers.

        TorchScript makes the tensor in the data's own dtype first -- int64,
        bool, or for floats the *default* dtype (float32; complex64 for complex
        numbers) -- and converts it to ``dtype`` after: ``torch.tensor(0.1,
        dtype=torch.float64)`` is 0.10000000149011612 in a scripted function
        (eager torch gives 0.1).  torchvision's detection transform normalises by
        ``torch.as_tensor(image_mean, dtype=image.dtype)``, so a float64 model's
        every output depends on it."""
        if isinstance(data, np.ndarray):
            return data.astype(to_dtype(dtype, data.dtype))
        _check_rectangular(data)
        natural = static or _value_dtype(data)
        made = np.array(data, dtype=natural)
        return made if dtype is None else made.astype(to_dtype(dtype), copy=False)
    return tensor


tensor = _tensor_of(None)


def _element_union(t: T.Type):
    """The Union a list literal of mixed numbers gave ``torch.tensor``'s data, or
    None.  TorchScript types ``[0, 1.0]`` as ``Union(float, int)[]`` (and a list
    of such lists as a Union of list types); torch's ``tensor`` walks the type
    down to its scalar, through a Union of lists by its first member, and cannot
    make a dtype of a Union."""
    while True:
        if isinstance(t, T.ListType):
            t = t.elem
        elif isinstance(t, T.UnionType) and all(isinstance(m, T.ListType) for m in t.elems):
            t = t.elems[0]
        else:
            return t if isinstance(t, T.UnionType) else None


def _tensor_factory(node):
    union = _element_union(node.inputs[0].type)
    if union is not None:
        def refuse(data, dtype=None, device=None, requires_grad=False):
            raise RuntimeError(f"Add new condition, expected Float, Complex, Int, or Bool "
                               f"but got{union}")  # sic: torch's words, without the space
        return refuse
    return _tensor_of(_static_dtype(node.inputs[0].type))


def as_tensor(data, dtype=None, device=None):
    if isinstance(data, np.ndarray):
        return data if dtype is None or to_dtype(dtype) == data.dtype else \
            data.astype(to_dtype(dtype))
    return tensor(data, dtype)


def _as_tensor_factory(node):
    make = _tensor_of(_static_dtype(node.inputs[0].type))
    return lambda data, dtype=None, device=None: as_tensor(data, dtype, device) \
        if isinstance(data, np.ndarray) else make(data, dtype)


# -- *_like, new_* ---------------------------------------------------------------------

def _like(fill):
    def like(a, dtype=None, layout=None, device=None, pin_memory=None, memory_format=None):
        return np.full(a.shape, fill, dtype=to_dtype(dtype, a.dtype))
    return like


def full_like(a, fill_value, dtype=None, layout=None, device=None, pin_memory=None,
              memory_format=None):
    return np.full(a.shape, fill_value, dtype=to_dtype(dtype, a.dtype))


def _new(fill):
    def new(a, size, dtype=None, layout=None, device=None, pin_memory=None):
        return np.full(_size(size), fill, dtype=to_dtype(dtype, a.dtype))
    return new


def new_full(a, size, fill_value, dtype=None, layout=None, device=None, pin_memory=None):
    return np.full(_size(size), fill_value, dtype=to_dtype(dtype, a.dtype))


def num_to_tensor(x):
    """``prim::NumToTensor``: a 0-dim tensor of the number's own type (a Python
    float is a double, a complex a complex128)."""
    if isinstance(x, float):
        return np.array(x, dtype=np.float64)
    if isinstance(x, complex):
        return np.array(x, dtype=np.complex128)
    return np.array(x, dtype=_fill_dtype(x))


_OPTS = ["int?", "t1", "t2", "bool?"]  # dtype, layout, device, pin_memory: each any type

R.register("aten::zeros", zeros, types=["int[]"] + _OPTS)
R.register("aten::ones", ones, types=["int[]"] + _OPTS)
R.register("aten::empty", empty, types=["int[]"] + _OPTS + ["int?"])
R.register("aten::full", full, types=["int[]", "Scalar"] + _OPTS)
R.register("aten::arange", arange, types=["Scalar"] + _OPTS)
R.register("aten::arange", arange, types=["Scalar", "Scalar"] + _OPTS)
R.register("aten::arange", arange, types=["Scalar", "Scalar", "Scalar"] + _OPTS)
for _a in ("Scalar", "Tensor"):
    for _b in ("Scalar", "Tensor"):
        R.register("aten::linspace", linspace, types=[_a, _b, "int"] + _OPTS)
        R.register("aten::logspace", logspace, types=[_a, _b, "int", "float"] + _OPTS)
R.register("aten::eye", lambda n, dtype=None, *opts: eye(n, None, dtype), types=["int"] + _OPTS)
R.register("aten::eye", eye, types=["int", "int"] + _OPTS)
R.register("aten::tensor", factory=_tensor_factory, types=["t", "int?", "t1", "bool"])
R.register("aten::as_tensor", factory=_as_tensor_factory, types=["t", "int?", "t1"])
R.register("aten::scalar_tensor", lambda s, dtype=None, *opts:
           np.array(s, dtype=to_dtype(dtype, DEFAULT_FLOAT)), types=["Scalar"] + _OPTS)
R.register("aten::zeros_like", _like(0), types=["Tensor"] + _OPTS + ["int?"])
R.register("aten::ones_like", _like(1), types=["Tensor"] + _OPTS + ["int?"])
R.register("aten::empty_like", _like(0), types=["Tensor"] + _OPTS + ["int?"])
R.register("aten::full_like", full_like, types=["Tensor", "Scalar"] + _OPTS + ["int?"])
R.register("aten::new_zeros", _new(0), types=["Tensor", "int[]"] + _OPTS)
R.register("aten::new_ones", _new(1), types=["Tensor", "int[]"] + _OPTS)
R.register("aten::new_empty", _new(0), types=["Tensor", "int[]"] + _OPTS)
R.register("aten::new_empty_strided", lambda a, size, stride, *opts: _new(0)(a, size, *opts),
           types=["Tensor", "int[]", "int[]"] + _OPTS)
R.register("aten::new_full", new_full, types=["Tensor", "int[]", "Scalar"] + _OPTS)
R.implement("prim::NumToTensor.Scalar", num_to_tensor)
R.implement("prim::NumToTensor.bool", num_to_tensor)   # a bool tensor


def empty_strided(size, stride, dtype=None, layout=None, device=None, pin_memory=None):
    """``torch.empty_strided``: a tensor of these sizes and element strides over a
    storage just large enough (zeroed: torch leaves it uninitialised)."""
    dt = to_dtype(dtype, DEFAULT_FLOAT)
    need = 1 + sum((n - 1) * st for n, st in zip(size, stride)) if all(size) else 0
    return np.lib.stride_tricks.as_strided(np.zeros(need, dtype=dt), tuple(size),
                                           tuple(st * dt.itemsize for st in stride))


def empty_permuted(size, physical_layout, dtype=None, layout=None, device=None,
                   pin_memory=None):
    """``torch.empty_permuted``: laid out in memory in the order of
    ``physical_layout`` (its first dimension the outermost), seen in ``size``'s."""
    if sorted(physical_layout) != list(range(len(size))):
        raise ValueError(f"Number of dimensions in size does not match the length of the "
                         f"physical_layout; {len(size)} vs {len(physical_layout)}"
                         if len(physical_layout) != len(size) else
                         "Dimension out of range in physical_layout")
    dt = to_dtype(dtype, DEFAULT_FLOAT)
    buf = np.zeros([size[p] for p in physical_layout], dtype=dt)
    return buf.transpose(np.argsort(physical_layout))


def torch_range(start, end, step=1, dtype=None, layout=None, device=None, pin_memory=None):
    """``torch.range`` (deprecated in torch, still scripted): ``start`` to ``end``
    *inclusive* by ``step``, each value ``start + i * step`` in double."""
    dt = to_dtype(dtype, DEFAULT_FLOAT)
    start, end, step = _number(start), _number(end), _number(step)
    if step == 0:
        raise ValueError("step must be nonzero")
    if (step > 0 and end < start) or (step < 0 and end > start):
        raise ValueError("upper bound and lower bound inconsistent with step sign")
    n = int((end - start) // step) + 1
    return (start + np.arange(n, dtype=np.float64) * step).astype(dt)


def vander(x, n=None, increasing: bool = False):
    """``torch.vander``: columns ``x**(N-1) ... x**0`` (reversed with
    ``increasing``), as cumulative products, in ``x``'s dtype promoted with int64."""
    if x.ndim != 1:
        raise ValueError("x must be a one-dimensional tensor.")
    n = x.shape[0] if n is None else n
    if n < 0:
        raise ValueError("N must be non-negative.")
    from .dtypes import promote_types
    dt = promote_types(x.dtype, np.dtype(np.int64))
    out = np.ones((x.shape[0], n), dtype=dt)
    if n > 1:
        out[:, 1:] = np.cumprod(np.broadcast_to(x[:, None].astype(dt), (x.shape[0], n - 1)),
                                axis=1)
    return out if increasing else out[:, ::-1].copy()


R.register("aten::empty_strided", empty_strided, types=["int[]", "int[]"] + _OPTS)
R.register("aten::empty_permuted", empty_permuted, types=["int[]", "int[]"] + _OPTS)
R.register("aten::range", torch_range, types=["Scalar", "Scalar", "Scalar"] + _OPTS)
R.register("aten::range", lambda s, e, *opts: torch_range(s, e, 1, *opts),
           types=["Scalar", "Scalar"] + _OPTS)
R.implement("aten::vander", vander)
