"""Matrix products and ``torch.linalg`` on numpy.

Products (``matmul``, ``mm``, ``bmm``, ``addmm``, ``baddbmm``, ``einsum``,
``tensordot``...) follow numpy's ``matmul``/``einsum`` rules, which are torch's,
with torch's shape and dtype checks and messages (``mat1 and mat2 shapes cannot
be multiplied (2x3 and 2x3)``).  ``beta * self + alpha * (m1 @ m2)`` ignores
``self`` when ``beta`` is 0, as torch does (a NaN there does not propagate).

Decompositions call numpy's LAPACK drivers, the ones torch calls on the CPU
(``getrf`` for ``det``/``solve``/``inv``, ``geqrf`` for ``qr``, ``gesdd`` for
``svd``, ``syevd`` for ``eigh``, ``geev`` for ``eig``), so the conventions agree
with torch's; the implementations differ (numpy links OpenBLAS, torch MKL), and
where a driver's choice is free they may choose differently: ``eig``'s
eigenvector signs do.  The one factorization numpy has no driver for, the
symmetric indefinite Bunch-Kaufman ``L D L^T`` of ``ldl_factor`` (LAPACK
``sytrf``/``hetrf``, solved by ``sytrs``/``hetrs``), is LAPACK's unblocked
algorithm written out, with its pivot choices and its compact ``LD``/``pivots``
format, so the pivots are torch's exactly.  Results keep the input's float dtype (float32 stays
float32).  Norms (``vector_norm``, ``matrix_norm``, ``norm``, ``cond``...) follow
``torch.linalg``'s definitions of each ``ord``.
"""

from __future__ import annotations

import math

import numpy as np

from ..registry import library as R
from . import kernels
from .dims import as_array, broadcast_shapes, reduce_axes, wrap_dim, wrap_dims
from .dtypes import meta_name, to_dtype, torch_name
from ..fperrors import ignoring
from .pointwise import out_form

__all__ = ["mm", "matmul", "bmm", "addmm", "einsum", "vector_norm", "matrix_norm"]


# -- checks ---------------------------------------------------------------------------

def _shape_text(a: np.ndarray) -> str:
    return "x".join(map(str, a.shape))


def _same_dtype(a, b, what="expected m1 and m2 to have the same dtype") -> None:
    if a.dtype != b.dtype:
        raise TypeError(f"{what}, but got: {meta_name(a.dtype)} != {meta_name(b.dtype)}")


def _matmul_dtypes(a, b) -> None:
    """torch's refusal of operands of different dtypes, in the words of the kernel
    its ``matmul`` reaches for these ranks: ``dot`` for two vectors, ``mv`` (an
    ``addmv``) for a vector on the right, ``mm`` for a matrix on the right (the
    left folded to 2-D), ``bmm`` otherwise."""
    if a.dtype == b.dtype:
        return
    left, right = torch_name(a.dtype), torch_name(b.dtype)
    if a.ndim == 1 and b.ndim == 1:
        raise TypeError(f"dot : expected both vectors to have same dtype, but found {left} and "
                        f"{right}")
    if b.ndim == 1:
        raise TypeError(f"addmv input tensors must have the same dtype, but got {right}, "
                        f"{left}, and {right}")
    if b.ndim == 2:
        _same_dtype(a, b)
    raise TypeError(f"expected scalar type {left} but found {right}")


def _square(name: str, a: np.ndarray) -> None:
    if a.ndim < 2:
        raise ValueError(f"linalg.{name}: The input tensor A must have at least 2 dimensions.")
    if a.shape[-1] != a.shape[-2]:
        raise ValueError(f"linalg.{name}: A must be batches of square matrices, but they are "
                         f"{a.shape[-2]} by {a.shape[-1]} matrices")


def _floating(name: str, a: np.ndarray) -> None:
    if a.dtype.kind not in "fc":
        raise TypeError(f"linalg.{name}: Expected a floating point or complex tensor as input. "
                        f"Got {torch_name(a.dtype)}")


# -- products -----------------------------------------------------------------------

def mm(a, b):
    """``aten::mm``: 2-D by 2-D."""
    if a.ndim != 2:
        raise ValueError("self must be a matrix")
    if b.ndim != 2:
        raise ValueError("mat2 must be a matrix")
    if a.shape[1] != b.shape[0]:
        raise ValueError(f"mat1 and mat2 shapes cannot be multiplied ({_shape_text(a)} and "
                         f"{_shape_text(b)})")
    _same_dtype(a, b)
    return np.matmul(a, b, out=...)


def matmul(a, b):
    """``aten::matmul``: numpy's ``matmul`` rules, which are torch's."""
    if a.ndim == 2 and b.ndim == 2 and a.dtype == b.dtype and a.shape[1] == b.shape[0]:
        # the common case, checked: a 2-D result is an array
        return kernels.matmul(a, b) if kernels.is_float32(a, b) else np.matmul(a, b)
    if a.ndim >= 3 and a.ndim == b.ndim and a.shape[:-2] == b.shape[:-2] and \
            a.shape[-1] == b.shape[-2] and kernels.is_float32(a, b):
        return kernels.matmul_stack(a, b)   # products per leading index (attention's)
    if a.ndim == 0 or b.ndim == 0:
        raise ValueError(f"both arguments to matmul need to be at least 1D, but they are "
                         f"{a.ndim}D and {b.ndim}D")
    if a.ndim == 2 and b.ndim == 2:
        return mm(a, b)
    if a.ndim == 1 and b.ndim == 1 and a.shape != b.shape:
        raise ValueError("inconsistent tensor size, expected tensor [%d] and src [%d] to have "
                         "the same number of elements, but got %d and %d elements "
                         "respectively" % (a.shape[0], b.shape[0], a.shape[0], b.shape[0]))
    _matmul_dtypes(a, b)
    if a.ndim > 2 or b.ndim > 2:  # the batch dimensions broadcast, in torch's words
        broadcast_shapes(a.shape[:-2] if a.ndim > 1 else (), b.shape[:-2] if b.ndim > 1 else ())
    try:
        return np.matmul(a, b, out=...)
    except ValueError:
        if b.ndim > 2:  # torch multiplies a batched right operand with bmm
            batch = int(np.prod(broadcast_shapes(a.shape[:-2], b.shape[:-2])))
            raise ValueError(f"Expected size for first two dimensions of batch2 tensor to be: "
                             f"[{batch}, {a.shape[-1]}] but got: [{batch}, {b.shape[-2]}].") \
                from None
        rows = a.shape[-2] if a.ndim > 1 else 1
        raise ValueError(f"mat1 and mat2 shapes cannot be multiplied ({rows}x{a.shape[-1]} "
                         f"and {b.shape[-2] if b.ndim > 1 else b.shape[0]}x"
                         f"{b.shape[-1] if b.ndim > 1 else 1})") from None


def bmm(a, b):
    if a.ndim != 3:
        raise ValueError(f"batch1 must be a 3D tensor")
    if b.ndim != 3:
        raise ValueError(f"batch2 must be a 3D tensor")
    if a.shape[0] != b.shape[0] or a.shape[2] != b.shape[1]:
        raise ValueError(f"Expected size for first two dimensions of batch2 tensor to be: "
                         f"[{a.shape[0]}, {a.shape[2]}] but got: [{b.shape[0]}, {b.shape[1]}].")
    if a.dtype != b.dtype:
        raise TypeError(f"expected scalar type {torch_name(a.dtype)} but found "
                        f"{torch_name(b.dtype)}")
    return np.matmul(a, b, out=...)


def mv(a, v):
    if a.ndim != 2 or v.ndim != 1:
        raise ValueError(f"vector + matrix @ vector expected, got {a.ndim}, {a.ndim}, {v.ndim}")
    return matmul(a, v)


def dot(a, b):
    if a.ndim != 1 or b.ndim != 1:
        raise ValueError(f"1D tensors expected, but got {a.ndim}D and {b.ndim}D tensors")
    _matmul_dtypes(a, b)
    return matmul(a, b)


def _scaled_sum(beta, base, alpha, product):
    """``beta * base + alpha * product``; ``base`` is ignored when beta is 0."""
    if alpha != 1:
        product = product * product.dtype.type(alpha)
    if beta == 0:
        return as_array(np.broadcast_to(product, np.broadcast_shapes(base.shape, product.shape))
                        .astype(product.dtype))
    b = base if beta == 1 else base * base.dtype.type(beta)
    return as_array(np.add(b, product, dtype=product.dtype))


def addmm(a, m1, m2, beta=1, alpha=1):
    return _scaled_sum(beta, a, alpha, mm(m1, m2))


def addmv(a, m, v, beta=1, alpha=1):
    return _scaled_sum(beta, a, alpha, mv(m, v))


def baddbmm(a, b1, b2, beta=1, alpha=1):
    return _scaled_sum(beta, a, alpha, bmm(b1, b2))


def addbmm(a, b1, b2, beta=1, alpha=1):
    return _scaled_sum(beta, a, alpha, bmm(b1, b2).sum(axis=0, dtype=b1.dtype))


def addr(a, v1, v2, beta=1, alpha=1):
    return _scaled_sum(beta, a, alpha, np.outer(v1, v2))


def _einsum_checks(equation: str, tensors) -> None:
    """torch's checks of an einsum's operands: each operand's subscripts (no
    ellipsis) as many as its dimensions, and one dtype (the bmm it reduces to
    refuses two, in bmm's words)."""
    inputs = equation.replace(" ", "").split("->")[0].split(",")
    for i, (subscripts, t) in enumerate(zip(inputs, tensors)):
        if "..." not in subscripts and len(subscripts) != t.ndim:
            raise ValueError(f"einsum(): the number of subscripts in the equation "
                             f"({len(subscripts)}) does not match the number of dimensions "
                             f"({t.ndim}) for operand {i} and no ellipsis was given")
    for t in tensors[1:]:
        if t.dtype != tensors[0].dtype:
            raise TypeError(f"expected scalar type {torch_name(tensors[0].dtype)} but found "
                            f"{torch_name(t.dtype)}")


def einsum(equation: str, tensors, path=None):
    equation = equation.replace(" ", "")
    _einsum_checks(equation, tensors)
    try:
        return as_array(np.einsum(equation, *tensors))
    except ValueError as exc:
        _einsum_sizes(equation, tensors)
        raise ValueError(f"einsum(): {exc}") from None


def _subscript(n: int, list_at: int, position: int) -> str:
    """Sublist subscript ``n`` as an equation's letter: 0-25 are ``A``-``Z``,
    26-51 ``a``-``z``, as torch spells them."""
    if not 0 <= n < 52:
        raise ValueError(f"einsum(): expected subscript {position} in argument {list_at} to be "
                         f"within the range [0, 52), but got {n}")
    return chr(ord("A") + n) if n < 26 else chr(ord("a") + n - 26)


def einsum_sublist(*args):
    """``torch.einsum(a, [0, 1], b, [1, 2], [0, 2])``: operands each followed by
    its subscripts as ints, then optionally the output's, turned into the
    equation ``"AB,BC->AC"`` that :func:`einsum` computes."""
    operands = list(args[0::2])
    lists = list(args[1::2])
    output = None
    if len(args) % 2:                 # a last list without an operand: the output's
        output = operands.pop()
    terms = ["".join(_subscript(n, 2 * i + 1, j) for j, n in enumerate(sub))
             for i, sub in enumerate(lists)]
    equation = ",".join(terms)
    if output is not None:
        equation += "->" + "".join(_subscript(n, len(args) - 1, j) for j, n in enumerate(output))
    return einsum(equation, operands)


def _einsum_sizes(equation: str, tensors) -> None:
    """torch's error for operands whose sizes disagree, where numpy's names only
    remapped shapes: operand by operand, subscript by subscript, a size must match
    the one seen before or be 1 (which broadcasts); so must the dimensions the
    ellipsis covers, from the right."""
    seen, ellipsis = {}, []
    for i, (spec, t) in enumerate(zip(equation.split("->")[0].split(","), tensors)):
        letters = spec.replace("...", "")
        if "..." not in spec and len(letters) != t.ndim:
            return  # a count mismatch, which numpy's message already names
        head, _, tail = spec.partition("...") if "..." in spec else (spec, "", "")
        n_ell = t.ndim - len(letters)
        dims = list(zip(head, t.shape)) + list(zip(tail, t.shape[len(head) + n_ell:]))
        mine = {}
        for c, n in dims:
            if c in mine and mine[c] != n:
                raise ValueError(f"einsum(): subscript {c} is repeated for operand {i} but the "
                                 f"sizes don't match, {n} != {mine[c]}")
            mine[c] = n
        for c, n in mine.items():
            m = seen.get(c)
            if m is not None and m != n and m != 1 and n != 1:
                raise ValueError(f"einsum(): subscript {c} has size {n} for operand {i} which "
                                 f"does not broadcast with previously seen size {m}")
            if m is None or m == 1:
                seen[c] = n
        covered = t.shape[len(head):len(head) + n_ell] if "..." in spec else ()
        for k, n in enumerate(reversed(covered)):
            if k == len(ellipsis):
                ellipsis.append(n)
            elif ellipsis[k] != n and ellipsis[k] != 1 and n != 1:
                raise ValueError(f"einsum(): dimension {len(covered) - 1 - k} covered by ellipsis "
                                 f"in operand {i}has size {n} which does not broadcast with "
                                 f"previously seen ellipsis with size {ellipsis[k]} for the "
                                 f"respective dimension")
            elif ellipsis[k] == 1:
                ellipsis[k] = n


def tensordot(a, b, dims_a, dims_b):
    return as_array(np.tensordot(a, b, (list(dims_a), list(dims_b))))


def multi_dot(tensors):
    if len(tensors) < 2:
        raise ValueError("multi_dot(): expected at least 2 tensors but got "
                         f"{len(tensors)}")
    return as_array(np.linalg.multi_dot(tensors))


def cross(a, b, dim=None):
    if a.ndim != b.ndim:
        raise ValueError("linalg.cross: inputs must have the same number of dimensions.")
    shape = broadcast_shapes(a.shape, b.shape)
    if dim is not None:
        d = wrap_dim(dim, len(shape))
        if a.shape[d] != 3 or b.shape[d] != 3:
            raise ValueError(f"linalg.cross: inputs dimension {dim} must have length 3. Got "
                             f"{a.shape[d]} and {b.shape[d]}")
    if dim is None:
        dim = next((i for i, n in enumerate(np.broadcast_shapes(a.shape, b.shape)) if n == 3),
                   -1)
    return as_array(np.cross(a, b, axis=dim))


def vecdot(a, b, dim=-1):
    return as_array(np.sum(np.conj(a) * b, axis=dim))


def matrix_power(a, n: int):
    _square("matrix_power", a)
    return as_array(np.linalg.matrix_power(a, n))


# -- norms --------------------------------------------------------------------------------

def vector_norm(a, ord=2, dim=None, keepdim=False, dtype=None):
    _floating("vector_norm", a)
    x = a.astype(to_dtype(dtype)) if dtype is not None else a
    axes = reduce_axes(dim, x.ndim)
    keep = bool(keepdim) and x.ndim > 0
    ax = np.abs(x)
    with ignoring():
        if ord == math.inf:
            r = np.max(ax, axis=axes, keepdims=keep, initial=0)
        elif ord == -math.inf:
            r = np.min(ax, axis=axes, keepdims=keep)
        elif ord == 0:
            r = np.sum(ax != 0, axis=axes, keepdims=keep).astype(ax.dtype)
        elif ord == 1:
            r = np.sum(ax, axis=axes, keepdims=keep)
        elif ord == 2:
            r = np.sqrt(np.sum(ax * ax, axis=axes, keepdims=keep))
        else:
            r = np.sum(ax ** ord, axis=axes, keepdims=keep) ** (1.0 / ord)
    real = np.dtype(ax.dtype)
    return as_array(r).astype(real)


def _sv(a):
    return np.linalg.svd(a, compute_uv=False)


def matrix_norm(a, ord="fro", dim=(-2, -1), keepdim=False, dtype=None):
    _floating("matrix_norm", a)
    x = a.astype(to_dtype(dtype)) if dtype is not None else a
    d0, d1 = wrap_dims(dim, x.ndim)
    m = np.moveaxis(x, (d0, d1), (-2, -1))
    if ord == "fro":
        r = np.sqrt(np.sum(np.abs(m) ** 2, axis=(-2, -1)))
    elif ord == "nuc":
        r = np.sum(_sv(m), axis=-1)
    elif ord in (2, -2):
        s = _sv(m)
        r = s.max(axis=-1) if ord == 2 else s.min(axis=-1)
    elif ord in (1, -1):
        col = np.sum(np.abs(m), axis=-2)
        r = col.max(axis=-1) if ord == 1 else col.min(axis=-1)
    elif ord in (math.inf, -math.inf):
        row = np.sum(np.abs(m), axis=-1)
        r = row.max(axis=-1) if ord > 0 else row.min(axis=-1)
    else:
        raise ValueError(f"linalg.matrix_norm: Order {ord} not supported.")
    if keepdim:
        r = np.expand_dims(r, tuple(sorted((d0, d1))))
    return as_array(r).astype(np.abs(x).dtype)


def linalg_norm(a, ord=None, dim=None, keepdim=False, dtype=None):
    if isinstance(ord, str) or (dim is not None and not isinstance(dim, int) and len(dim) == 2) \
            or (dim is None and ord is not None and a.ndim == 2):
        return matrix_norm(a, "fro" if ord is None else ord, (-2, -1) if dim is None else dim,
                           keepdim, dtype)
    if dim is None and ord is not None and a.ndim != 1:
        raise ValueError(f"linalg.norm: If dim is not specified but ord is, the input must be 1D "
                         f"or 2D. Got {a.ndim}D.")
    return vector_norm(a if dim is not None or ord is None else a, 2 if ord is None else ord,
                       dim, keepdim, dtype)


def norm(a, p=2, dim=None, keepdim=False, dtype=None):
    """``torch.norm``: a vector norm over ``dim`` (all elements when None)."""
    if p is None:
        p = 2
    return vector_norm(a, p, dim if dim is None or len(dim) else None, keepdim, dtype)


def frobenius_norm(a, dim=(), keepdim=False):
    return vector_norm(a, 2, dim if len(dim) else None, keepdim)


def nuclear_norm(a, dim=(-2, -1), keepdim=False):
    return matrix_norm(a, "nuc", dim, keepdim)


def dist(a, b, p=2):
    return vector_norm(np.subtract(a, b, dtype=np.result_type(a, b)), p)


def renorm(a, p, dim: int, maxnorm):
    d = wrap_dim(dim, a.ndim)
    axes = tuple(k for k in range(a.ndim) if k != d)
    norms = vector_norm(a, p, axes, True)
    with ignoring():
        scale = np.where(norms > maxnorm, maxnorm / (norms + 1e-7), 1.0).astype(a.dtype)
    return as_array(a * scale)


def norm_except_dim(v, p, dim: int):
    """weight_norm's norm: over every dimension but ``dim``, kept as size 1 (the
    whole tensor's norm for ``dim == -1``)."""
    if dim == -1:
        return norm(v, p)
    d = wrap_dim(dim, v.ndim)
    return norm(v, p, [k for k in range(v.ndim) if k != d], True)


def _assign(a, value):
    a[...] = value
    return a


def cond(a, p=None):
    if p is None or p in (2, -2):
        s = _sv(a)
        with ignoring():
            r = s[..., 0] / s[..., -1] if p != -2 else s[..., -1] / s[..., 0]
        return as_array(r).astype(a.dtype)
    return as_array(matrix_norm(a, p) * matrix_norm(np.linalg.inv(a), p)).astype(a.dtype)


# -- decompositions -----------------------------------------------------------------------

def det(a):
    _square("det", a)
    return as_array(np.linalg.det(a)).astype(a.dtype)


def slogdet(a):
    _square("slogdet", a)
    sign, logabs = np.linalg.slogdet(a)
    return as_array(sign).astype(a.dtype), as_array(logabs).astype(np.abs(a).dtype)


def logdet(a):
    sign, logabs = slogdet(a)
    with ignoring():
        return as_array(np.where(sign < 0, np.nan, np.where(sign == 0, -np.inf, logabs))
                        ).astype(a.dtype)


def _lu_solve_identity(m):
    """One square matrix's inverse the way LAPACK's LU solve reaches it, and the
    ``info`` it reports: the 1-based position of the first exactly zero pivot of
    ``getrf`` (partial pivoting, the first largest magnitude), 0 for none.  Only a
    singular matrix comes here; its inverse is the triangular solves of the
    identity carried through IEEE arithmetic (a zero pivot divides to inf, 0/0
    and 0*inf to nan), as torch's ``linalg_inv_ex`` returns it."""
    n = m.shape[0]
    lu = m.copy()
    perm = np.arange(n)
    info = 0
    with ignoring():
        for k in range(n):
            p = k + int(np.argmax(np.abs(lu[k:, k])))
            if lu[p, k] != 0:
                if p != k:
                    lu[[k, p]] = lu[[p, k]]
                    perm[[k, p]] = perm[[p, k]]
                lu[k + 1:, k] /= lu[k, k]
            elif info == 0:
                info = k + 1
            lu[k + 1:, k + 1:] -= np.outer(lu[k + 1:, k], lu[k, k + 1:])
        x = np.eye(n, dtype=m.dtype)[perm]
        for k in range(n):  # L y = P I, L unit lower triangular
            x[k + 1:] -= np.outer(lu[k + 1:, k], x[k])
        for k in range(n - 1, -1, -1):  # U x = y, every row divided, zero or not
            x[k] /= lu[k, k]
            x[:k] -= np.outer(lu[:k, k], x[k])
    return x, info


def _batch_inverse(a):
    """``inv_ex`` of a (batch of) square matrices: the inverses and the ``info``
    of each, a singular matrix spoiling only its own entry of the batch."""
    try:
        return as_array(np.linalg.inv(a)), np.zeros(a.shape[:-2], np.int32)
    except np.linalg.LinAlgError:
        pass
    flat = a.reshape((-1,) + a.shape[-2:])
    dtype = np.result_type(a.dtype, np.float32) if a.dtype.kind != "c" else a.dtype
    out = np.empty(flat.shape, dtype)
    info = np.zeros(flat.shape[0], np.int32)
    for i, m in enumerate(flat):
        try:
            out[i] = np.linalg.inv(m)
        except np.linalg.LinAlgError:
            out[i], info[i] = _lu_solve_identity(m.astype(out.dtype))
    return as_array(out.reshape(a.shape)), as_array(info.reshape(a.shape[:-2]))


def _singular_error(info):
    """torch's error for the first singular matrix of ``info``, naming its batch
    element when there is a batch."""
    flat = info.reshape(-1)
    bad = int(np.flatnonzero(flat)[0])
    where = f"(Batch element {bad}): " if info.ndim else ""
    return ValueError(f"linalg.inv: {where}The diagonal element {int(flat[bad])} is zero, the "
                      "inversion could not be completed because the input matrix is singular.")


def inv(a):
    _square("inv", a)
    inverse, info = _batch_inverse(a)
    if info.any():
        raise _singular_error(info)
    return inverse


def inv_ex(a, check_errors=False):
    _square("inv", a)
    inverse, info = _batch_inverse(a)
    if check_errors and info.any():
        raise _singular_error(info)
    return inverse, info


def _solve_rhs(a, b, left=True):
    """linalg.solve's B: a vector when it is one (batched) vector per matrix."""
    vector = b.ndim == 1 or (b.ndim == a.ndim - 1 and b.shape == a.shape[:-1])
    return vector


def solve(a, b, left=True):
    _square("solve", a)
    if not left:
        return as_array(np.swapaxes(solve(np.swapaxes(a, -1, -2), np.swapaxes(b, -1, -2)),
                                    -1, -2))
    if _solve_rhs(a, b):
        return as_array(np.linalg.solve(a, b[..., None])[..., 0])
    return as_array(np.linalg.solve(a, b))


def solve_ex(a, b, left=True, check_errors=False):
    return solve(a, b, left), np.zeros(a.shape[:-2], np.int32)


def cholesky(a, upper=False):
    _square("cholesky", a)
    try:
        lower = np.linalg.cholesky(a)
    except np.linalg.LinAlgError:
        raise ValueError("linalg.cholesky: The factorization could not be completed because the "
                         "input is not positive-definite.") from None
    return as_array(np.swapaxes(lower, -1, -2).conj() if upper else lower)


def cholesky_ex(a, upper=False, check_errors=False):
    return cholesky(a, upper), np.zeros(a.shape[:-2], np.int32)


def cholesky_inverse(l, upper=False):
    full = np.swapaxes(l, -1, -2) @ l if upper else l @ np.swapaxes(l, -1, -2)
    return as_array(np.linalg.inv(full))


def cholesky_solve(b, l, upper=False):
    full = np.swapaxes(l, -1, -2) @ l if upper else l @ np.swapaxes(l, -1, -2)
    return as_array(np.linalg.solve(full, b))


def qr(a, mode="reduced"):
    if mode not in ("reduced", "complete", "r"):
        raise ValueError(f"qr received unrecognized mode '{mode}' but expected one of "
                         f"'reduced' (default), 'r', or 'complete'")
    if mode == "r":
        return np.zeros(0, a.dtype), as_array(np.linalg.qr(a, mode="r"))
    q, r = np.linalg.qr(a, mode=mode)
    return as_array(q), as_array(r)


def svd(a, full_matrices=True, driver=None):
    u, s, vh = np.linalg.svd(a, full_matrices=bool(full_matrices))
    return as_array(u), as_array(s), as_array(vh)


def svd_legacy(a, some=True, compute_uv=True):
    """``torch.svd``: V rather than V^H, reduced when ``some``."""
    u, s, vh = np.linalg.svd(a, full_matrices=not some)
    if not compute_uv:
        return np.zeros_like(u), s, np.zeros_like(np.swapaxes(vh, -1, -2))
    return as_array(u), as_array(s), as_array(np.swapaxes(vh, -1, -2).conj())


def svdvals(a, driver=None):
    return as_array(_sv(a))


def _complex_of(dt):
    return np.dtype(np.complex64) if dt == np.float32 else np.dtype(np.complex128)


def eig(a):
    _square("eig", a)
    w, v = np.linalg.eig(a)
    c = _complex_of(a.dtype)
    return as_array(w.astype(c)), as_array(v.astype(c))


def eigvals(a):
    _square("eigvals", a)
    return as_array(np.linalg.eigvals(a).astype(_complex_of(a.dtype)))


def eigh(a, uplo="L"):
    _square("eigh", a)
    w, v = np.linalg.eigh(a, UPLO=uplo)
    return as_array(w), as_array(v)


def eigvalsh(a, uplo="L"):
    _square("eigvalsh", a)
    return as_array(np.linalg.eigvalsh(a, UPLO=uplo))


def _per_matrix(tol):
    """A tolerance tensor, one value per matrix of the batch, against the
    ``(..., 1)`` largest singular value: torch unsqueezes it the same way."""
    return tol[..., None] if isinstance(tol, np.ndarray) else tol


def pinv(a, atol=None, rtol=None, hermitian=False):
    atol, rtol = _per_matrix(atol), _per_matrix(rtol)
    if hermitian:  # torch reads the lower triangle and inverts the eigenvalues
        w, v = np.linalg.eigh(a)
        wmax = np.abs(w).max(axis=-1, keepdims=True) if w.size else np.zeros(w.shape[:-1] + (1,))
        if atol is None and rtol is None:
            rtol = max(a.shape[-2:]) * np.finfo(a.dtype).eps
        tol = np.maximum(0 if atol is None else atol, (0 if rtol is None else rtol) * wmax)
        with ignoring():
            winv = np.where(np.abs(w) > tol, 1 / w, 0).astype(w.dtype)
        return as_array((v * winv[..., None, :]) @ np.swapaxes(v, -1, -2).conj())
    u, s, vh = np.linalg.svd(a, full_matrices=False)
    smax = s.max(axis=-1, keepdims=True) if s.size else np.zeros(s.shape[:-1] + (1,), s.dtype)
    if atol is None and rtol is None:
        rtol = max(a.shape[-2:]) * np.finfo(a.dtype).eps
    tol = np.maximum(0 if atol is None else atol, (0 if rtol is None else rtol) * smax)
    with ignoring():
        sinv = np.where(s > tol, 1 / s, 0).astype(s.dtype)
    return as_array(np.swapaxes(vh, -1, -2).conj() @ (sinv[..., :, None] *
                                                       np.swapaxes(u, -1, -2).conj()))


def pinv_rcond(a, rcond=1e-15, hermitian=False):
    return pinv(a, 0.0, rcond, hermitian)


def matrix_rank(a, atol=None, rtol=None, hermitian=False):
    atol, rtol = _per_matrix(atol), _per_matrix(rtol)
    s = _sv(a)
    smax = s.max(axis=-1, keepdims=True) if s.size else np.zeros(s.shape[:-1] + (1,), s.dtype)
    if atol is None and rtol is None:
        rtol = max(a.shape[-2:]) * np.finfo(a.dtype).eps
    tol = np.maximum(0 if atol is None else atol, (0 if rtol is None else rtol) * smax)
    return as_array(np.sum(s > tol, axis=-1).astype(np.int64))


def _lu_factor(a):
    """LU with partial pivoting (LAPACK ``getrf``'s choices): the packed factors and
    the 1-based int32 pivots."""
    lu = np.array(a, copy=True)
    m, n = lu.shape[-2:]
    k = min(m, n)
    batch = lu.reshape(-1, m, n)
    piv = np.zeros((batch.shape[0], k), np.int32)
    for b in range(batch.shape[0]):
        x = batch[b]
        for j in range(k):
            p = j + int(np.argmax(np.abs(x[j:, j])))
            piv[b, j] = p + 1
            if p != j:
                x[[j, p]] = x[[p, j]]
            if x[j, j] != 0:
                x[j + 1:, j] /= x[j, j]
                x[j + 1:, j + 1:] -= np.outer(x[j + 1:, j], x[j, j + 1:])
    return batch.reshape(lu.shape), piv.reshape(lu.shape[:-2] + (k,))


def lu_factor(a, pivot=True):
    return _lu_factor(a)


def lu_factor_ex(a, pivot=True, check_errors=False):
    lu, piv = _lu_factor(a)
    return lu, piv, np.zeros(a.shape[:-2], np.int32)


def lu_unpack(lu, pivots, unpack_data=True, unpack_pivots=True):
    m, n = lu.shape[-2:]
    k = min(m, n)
    l = np.tril(lu[..., :, :k], -1) + np.eye(m, k, dtype=lu.dtype)
    u = np.triu(lu[..., :k, :])
    batch_piv = pivots.reshape(-1, pivots.shape[-1])
    perms = []
    for row in batch_piv:
        perm = list(range(m))
        for i, p in enumerate(row):
            perm[i], perm[p - 1] = perm[p - 1], perm[i]
        perms.append(np.eye(m, dtype=lu.dtype)[perm].T)  # A = P @ L @ U
    p = np.stack(perms).reshape(lu.shape[:-2] + (m, m))
    return as_array(p), as_array(l), as_array(u)


def lu(a, pivot=True):
    f, piv = _lu_factor(a)
    return lu_unpack(f, piv)


def lu_solve(lu_, pivots, b, left=True, adjoint=False):
    p, l, u = lu_unpack(lu_, pivots)
    full = p @ l @ u
    if adjoint:
        full = np.swapaxes(full, -1, -2).conj()
    if not left:
        return as_array(np.swapaxes(np.linalg.solve(np.swapaxes(full, -1, -2),
                                                    np.swapaxes(b, -1, -2)), -1, -2))
    return as_array(np.linalg.solve(full, b))


def lu_solve_legacy(b, lu_, pivots):
    return lu_solve(lu_, pivots, b)


def _triangular(a, upper, unitriangular):
    t = np.triu(a) if upper else np.tril(a)
    if unitriangular:
        idx = np.arange(a.shape[-1])
        t = t.copy()
        t[..., idx, idx] = 1
    return t


def solve_triangular(a, b, upper: bool, left: bool = True, unitriangular: bool = False):
    t = _triangular(a, upper, unitriangular)
    if not left:
        return as_array(np.swapaxes(np.linalg.solve(np.swapaxes(t, -1, -2),
                                                    np.swapaxes(b, -1, -2)), -1, -2))
    return as_array(np.linalg.solve(t, b))


def triangular_solve(b, a, upper=True, transpose=False, unitriangular=False):
    t = _triangular(a, upper, unitriangular)
    if transpose:
        t = np.swapaxes(t, -1, -2)
    return as_array(np.linalg.solve(t, b)), as_array(a.copy())


def _householder_q(a, tau):
    """The full ``m x m`` ``Q = H_1 ... H_k``, ``H_i = I - tau_i v_i v_i^H``, from
    LAPACK ``geqrf``'s packed reflectors (``v_i`` is 1 at ``i``, ``a[i+1:, i]`` below)."""
    m, n = a.shape[-2:]
    flat_a = a.reshape(-1, m, n)
    flat_t = tau.reshape(-1, tau.shape[-1])
    out = np.empty((flat_a.shape[0], m, m), a.dtype)
    for b in range(flat_a.shape[0]):
        q = np.eye(m, dtype=a.dtype)
        for i in range(flat_t.shape[1]):
            v = np.zeros(m, a.dtype)
            v[i] = 1
            v[i + 1:] = flat_a[b, i + 1:, i]
            q = q @ (np.eye(m, dtype=a.dtype) - flat_t[b, i] * np.outer(v, v.conj()))
        out[b] = q
    return out.reshape(a.shape[:-2] + (m, m))


def householder_product(a, tau):
    """``linalg.householder_product`` (LAPACK ``orgqr``): Q's first ``n`` columns."""
    return as_array(_householder_q(a, tau)[..., :, :a.shape[-1]])


def geqrf(a):
    """``torch.geqrf``: LAPACK's packed QR (R above the diagonal, the Householder
    vectors below) and the reflectors' scales."""
    h, tau = np.linalg.qr(a, mode="raw")
    return as_array(np.swapaxes(h, -1, -2).astype(a.dtype)), as_array(tau.astype(a.dtype))


def ormqr(a, tau, other, left: bool = True, transpose: bool = False):
    """``torch.ormqr``: ``other`` multiplied by the Q of :func:`geqrf`'s output."""
    q = _householder_q(a, tau)
    if transpose:
        q = np.swapaxes(q, -1, -2).conj()
    return as_array(q @ other if left else other @ q)


def lstsq(a, b, rcond=None, driver=None):
    """``linalg.lstsq``: ``(solution, residuals, rank, singular_values)``; which of
    the last three are computed depends on the LAPACK driver, as in torch (CPU
    default ``gelsy``: the rank only; ``gels``: residuals, for tall full-rank
    systems; ``gelsd``/``gelss``: all three)."""
    driver = driver or "gelsy"
    if driver not in ("gels", "gelsy", "gelsd", "gelss"):
        raise ValueError(f"torch.linalg.lstsq: parameter `driver` should be one of (gels, gelsy, "
                         f"gelsd, gelss)")
    vector = b.ndim == a.ndim - 1
    bb = b[..., None] if vector else b
    m, n = a.shape[-2:]
    batch = np.broadcast_shapes(a.shape[:-2], bb.shape[:-2])
    fa = np.broadcast_to(a, batch + a.shape[-2:]).reshape((-1,) + a.shape[-2:])
    fb = np.broadcast_to(bb, batch + bb.shape[-2:]).reshape((-1,) + bb.shape[-2:])
    sols, ranks, svs, res = [], [], [], []
    for x, y in zip(fa, fb):
        sol, resid, rank, sv = np.linalg.lstsq(x.astype(np.float64), y.astype(np.float64),
                                               rcond=rcond)
        sols.append(sol)
        ranks.append(rank)
        svs.append(sv)
        res.append(np.sum((x.astype(np.float64) @ sol - y) ** 2, axis=0))
    solution = np.stack(sols).reshape(batch + (n, bb.shape[-1])).astype(a.dtype)
    if vector:
        solution = solution[..., 0]
    full_rank = all(r == min(m, n) for r in ranks)
    empty = np.zeros(0, a.dtype)
    residuals = np.stack(res).reshape(batch + (bb.shape[-1],)).astype(a.dtype) \
        if driver != "gelsy" and m > n and full_rank else empty
    rank = np.array(ranks, np.int64).reshape(batch) if driver != "gels" else \
        np.zeros(0, np.int64)
    singular = np.stack(svs).reshape(batch + (min(m, n),)).astype(a.dtype) \
        if driver in ("gelsd", "gelss") else empty
    return as_array(solution), as_array(residuals), as_array(rank), as_array(singular)


def vander(x, n=None):
    x = x.reshape(1) if x.ndim == 0 else x
    n = x.shape[-1] if n is None else n
    dt = x.dtype if x.dtype.kind in "fc" else np.dtype(np.int64)
    return as_array(np.stack([x.astype(dt) ** k for k in range(n)], axis=-1)).astype(dt)


def matrix_exp(a):
    """Scaling and squaring with a degree-13 Padé approximant, in double."""
    x = a.astype(np.float64)
    norm1 = np.max(np.sum(np.abs(x), axis=-2)) if x.size else 0.0
    s = max(0, int(math.ceil(math.log2(norm1 / 5.37)))) if norm1 > 5.37 else 0
    x = x / (2 ** s)
    b = (64764752532480000., 32382376266240000., 7771770303897600., 1187353796428800.,
         129060195264000., 10559470521600., 670442572800., 33522128640., 1323241920.,
         40840800., 960960., 16380., 182., 1.)
    ident = np.broadcast_to(np.eye(x.shape[-1]), x.shape)
    x2 = x @ x
    x4 = x2 @ x2
    x6 = x4 @ x2
    u = x @ (x6 @ (b[13] * x6 + b[11] * x4 + b[9] * x2) + b[7] * x6 + b[5] * x4 +
             b[3] * x2 + b[1] * ident)
    v = x6 @ (b[12] * x6 + b[10] * x4 + b[8] * x2) + b[6] * x6 + b[4] * x4 + b[2] * x2 + \
        b[0] * ident
    r = np.linalg.solve(v - u, v + u)
    for _ in range(s):
        r = r @ r
    return as_array(r.astype(a.dtype))


def tensorinv(a, ind=2):
    return as_array(np.linalg.tensorinv(a, ind))


def tensorsolve(a, b, dims=None):
    return as_array(np.linalg.tensorsolve(a, b, None if dims is None else tuple(dims)))


# -- symmetric indefinite: Bunch-Kaufman LDL^T (LAPACK sytrf / sytrs) ----------------------
#
# torch's CPU ldl_factor calls LAPACK ``?sytrf`` (``?hetrf`` for a complex input with
# hermitian=True) on the lower triangle, and ldl_solve ``?sytrs``/``?hetrs``.  numpy
# exposes neither, so these are the unblocked algorithms (``?sytf2``, which ``sytrf``
# runs for a matrix narrower than its block size, and ``?sytrs``) written out: the same
# pivot tests in the same order give the same pivots, and the same operations the same
# values up to the rounding of the library's kernels.

#: Bunch and Kaufman's threshold, (1 + sqrt(17)) / 8, which minimises the element
#: growth bound; a 1x1 pivot is taken when the diagonal is at least alpha times the
#: column's largest entry.
_BK_ALPHA = (1.0 + math.sqrt(17.0)) / 8.0


def _abs1(x):
    """LAPACK's magnitude for choosing pivots: ``|x|`` for a real number, and the
    cheaper ``|re| + |im|`` (``CABS1``/``izamax``) for a complex one."""
    if np.iscomplexobj(x):
        return np.abs(x.real) + np.abs(x.imag)
    return np.abs(x)


def _iamax(v) -> int:
    """BLAS ``i?amax`` on magnitudes ``v``: the first index of the largest, a NaN
    never beating a number (the scan keeps its first entry if that is NaN)."""
    if v[0] != v[0]:
        return 0
    return int(np.argmax(np.where(np.isnan(v), -np.inf, v)))


def _sytf2_lower(a, hermitian: bool):
    """Factor one matrix in place, from its lower triangle, as ``P L D L^T P^T``
    (``L D L^H`` when ``hermitian``): LAPACK ``?sytf2``/``?hetf2`` with
    ``uplo='L'``.  Returns ``(ipiv, info)``: ``ipiv`` 1-based, ``ipiv[k] = p``
    for a 1x1 block at ``k`` after swapping rows and columns ``k`` and ``p``,
    ``ipiv[k] = ipiv[k+1] = -p`` for a 2x2 block at ``k, k+1`` after swapping
    ``k+1`` and ``p``; ``info`` the first (1-based) column found zero, else 0.

    ``a`` ends holding D on its diagonal (and the subdiagonal of a 2x2 block) and
    L's multipliers below; what is above the diagonal is not meaningful."""
    n = a.shape[0]
    real = np.finfo(a.dtype).dtype.type
    alpha = real(_BK_ALPHA)
    herm = hermitian and np.iscomplexobj(a)
    diag_mag = (lambda z: np.abs(z.real)) if herm else _abs1
    ipiv = np.zeros(n, np.int32)
    info = 0
    k = 0
    while k < n:
        kstep = 1
        absakk = diag_mag(a[k, k])
        if k < n - 1:
            imax = k + 1 + _iamax(_abs1(a[k + 1:, k]))
            colmax = _abs1(a[imax, k])
        else:
            imax, colmax = k, real(0)
        # The zero test as torch's LAPACK (MKL) makes it: max() taking the second
        # operand when the first is NaN, and no separate NaN test, so a NaN
        # diagonal is pivoted away from rather than reported (torch's results).
        if (absakk if absakk > colmax else colmax) == 0:
            info = info or k + 1
            kp = k
            if herm:
                a[k, k] = a[k, k].real
        else:
            if absakk >= alpha * colmax:
                kp = k
            else:
                # rowmax: the largest off-diagonal magnitude in row/column imax of
                # the trailing matrix (its row left of the diagonal, its column below).
                row = _abs1(a[imax, k:imax])
                rowmax = row[_iamax(row)]
                if imax < n - 1:
                    col = _abs1(a[imax + 1:, imax])
                    rowmax = max(rowmax, col[_iamax(col)])
                if absakk >= alpha * colmax * (colmax / rowmax):
                    kp = k
                elif diag_mag(a[imax, imax]) >= alpha * rowmax:
                    kp = imax
                else:
                    kp, kstep = imax, 2
            kk = k + kstep - 1
            if kp != kk:
                # swap rows and columns kk and kp of the trailing lower triangle
                a[kp + 1:, [kk, kp]] = a[kp + 1:, [kp, kk]]
                between = a[kk + 1:kp, kk].copy()
                if herm:
                    a[kk + 1:kp, kk] = np.conj(a[kp, kk + 1:kp])
                    a[kp, kk + 1:kp] = np.conj(between)
                    a[kp, kk] = np.conj(a[kp, kk])
                    a[kk, kk], a[kp, kp] = a[kp, kp].real, a[kk, kk].real
                else:
                    a[kk + 1:kp, kk] = a[kp, kk + 1:kp]
                    a[kp, kk + 1:kp] = between
                    a[kk, kk], a[kp, kp] = a[kp, kp], a[kk, kk]
                if kstep == 2:
                    if herm:
                        a[k, k] = a[k, k].real
                    a[k + 1, k], a[kp, k] = a[kp, k], a[k + 1, k]
            elif herm:
                a[k, k] = a[k, k].real
                if kstep == 2:
                    a[k + 1, k + 1] = a[k + 1, k + 1].real
            if kstep == 1 and k < n - 1:
                # rank-1 update of the trailing matrix by column k over D(k); the
                # column then becomes L's multipliers (LAPACK ?syr/?her, then ?scal)
                x = a[k + 1:, k]
                if herm:
                    r1 = real(1) / a[k, k].real
                    a[k + 1:, k + 1:] += np.multiply.outer(x, -r1 * np.conj(x))
                    idx = np.arange(k + 1, n)
                    a[idx, idx] = a[idx, idx].real
                else:
                    r1 = a.dtype.type(1) / a[k, k]
                    a[k + 1:, k + 1:] += np.multiply.outer(x, -r1 * x)
                a[k + 1:, k] = x * r1
            elif kstep == 2 and k < n - 2:
                # rank-2 update by columns k, k+1 over the 2x2 block D(k), whose
                # inverse is formed scaled by its off-diagonal entry (LAPACK's order)
                ck, ck1 = a[k + 2:, k].copy(), a[k + 2:, k + 1].copy()
                if herm:
                    d = real(math.hypot(a[k + 1, k].real, a[k + 1, k].imag))
                    d11 = a[k + 1, k + 1].real / d
                    d22 = a[k, k].real / d
                    tt = real(1) / (d11 * d22 - real(1))
                    d21 = a[k + 1, k] / d
                    d = tt / d
                    wk = d * (d11 * ck - d21 * ck1)
                    wkp1 = d * (d22 * ck1 - np.conj(d21) * ck)
                    a[k + 2:, k + 2:] -= np.multiply.outer(ck, np.conj(wk))
                    a[k + 2:, k + 2:] -= np.multiply.outer(ck1, np.conj(wkp1))
                    idx = np.arange(k + 2, n)
                    a[idx, idx] = a[idx, idx].real
                else:
                    one = a.dtype.type(1)
                    d21 = a[k + 1, k]
                    d11 = a[k + 1, k + 1] / d21
                    d22 = a[k, k] / d21
                    t = one / (d11 * d22 - one)
                    d21 = t / d21
                    wk = d21 * (d11 * ck - ck1)
                    wkp1 = d21 * (d22 * ck1 - ck)
                    a[k + 2:, k + 2:] -= np.multiply.outer(ck, wk)
                    a[k + 2:, k + 2:] -= np.multiply.outer(ck1, wkp1)
                a[k + 2:, k] = wk
                a[k + 2:, k + 1] = wkp1
        if kstep == 1:
            ipiv[k] = kp + 1
        else:
            ipiv[k] = ipiv[k + 1] = -(kp + 1)
        k += kstep
    return ipiv, info


def _ldl_checks(name: str, a, half: bool = False) -> None:
    """torch's checks of an LDL input ``a`` (``half``: float16 is its own error
    afterwards, as the factorisation's kernel has none)."""
    if a.ndim < 2:
        raise ValueError(f"{name}: The input tensor A must have at least 2 dimensions.")
    if a.shape[-1] != a.shape[-2]:
        raise ValueError(f"{name}: A must be batches of square matrices, but they are "
                         f"{a.shape[-2]} by {a.shape[-1]} matrices")
    if a.dtype.kind not in "fc":
        raise TypeError(f"{name}: Expected a floating point or complex tensor as input. "
                        f"Got {torch_name(a.dtype)}")
    if half and a.dtype == np.float16:
        raise NotImplementedError('"ldl_factor_kernel_cpu" not implemented for \'Half\'')


def _ldl_factor(a, hermitian: bool, name: str):
    _ldl_checks(name, a, half=True)
    n = a.shape[-1]
    batch = a.shape[:-2]
    count = math.prod(batch)   # not -1: a reshape cannot infer it when n is 0
    flat = np.array(a, copy=True).reshape((count, n, n))
    pivots = np.zeros((flat.shape[0], n), np.int32)
    info = np.zeros(flat.shape[0], np.int32)
    for b in range(flat.shape[0]):
        pivots[b], info[b] = _sytf2_lower(flat[b], bool(hermitian))
    ld = np.tril(flat)   # torch zeroes the triangle LAPACK leaves untouched
    return ld.reshape(a.shape), pivots.reshape(batch + (n,)), info.reshape(batch)


def _ldl_errors(name: str, info) -> None:
    """torch's check of ``info``: sytrf's only positive code (a zero block of D)
    is one torch's checker does not know, so it fails an internal assertion."""
    bad = info[info != 0]
    if bad.size:
        raise RuntimeError(f'false INTERNAL ASSERT FAILED at "/__w/pytorch/pytorch/aten/src/'
                           f'ATen/native/BatchLinearAlgebra.cpp":1681, please report a bug to '
                           f'PyTorch. {name}: Unknown error code: {int(bad.flat[0])}.')


def ldl_factor_ex(a, hermitian=False, check_errors=False):
    """``linalg.ldl_factor_ex``: ``(LD, pivots, info)``, LAPACK sytrf's compact
    Bunch-Kaufman factorization of the lower triangle (see :func:`_sytf2_lower`);
    LD holds L below the diagonal and D on it (and on the subdiagonal of a 2x2
    block), zeros above."""
    ld, pivots, info = _ldl_factor(a, hermitian, "torch.linalg.ldl_factor_ex")
    if check_errors:
        _ldl_errors("torch.linalg.ldl_factor_ex", info)
    return ld, pivots, info


def ldl_factor(a, hermitian=False):
    """``linalg.ldl_factor``: :func:`ldl_factor_ex` that raises on a singular D."""
    ld, pivots, info = _ldl_factor(a, hermitian, "torch.linalg.ldl_factor_ex")
    _ldl_errors("torch.linalg.ldl_factor", info)
    return ld, pivots


def _sytrs_lower(ld, ipiv, b, hermitian: bool) -> None:
    """Solve ``A X = B`` in place in ``b`` (n x nrhs) from one lower factorization
    (LAPACK ``?sytrs``/``?hetrs``, ``uplo='L'``): first ``L D Y = P^T B`` forwards,
    applying each block's swap then its multipliers then its D inverse, then
    ``L^T X = Y`` (``L^H``) backwards, undoing the swaps."""
    n = ld.shape[0]
    herm = hermitian and np.iscomplexobj(ld)
    cj = np.conj if herm else (lambda z: z)
    k = 0
    while k < n:
        if ipiv[k] > 0:
            kp = ipiv[k] - 1
            if kp != k:
                b[[k, kp]] = b[[kp, k]]
            b[k + 1:] -= np.multiply.outer(ld[k + 1:, k], b[k])
            if herm:
                b[k] *= np.finfo(ld.dtype).dtype.type(1) / ld[k, k].real
            else:
                b[k] *= ld.dtype.type(1) / ld[k, k]
            k += 1
        else:
            kp = -ipiv[k] - 1
            if kp != k + 1:
                b[[k + 1, kp]] = b[[kp, k + 1]]
            b[k + 2:] -= np.multiply.outer(ld[k + 2:, k], b[k])
            b[k + 2:] -= np.multiply.outer(ld[k + 2:, k + 1], b[k + 1])
            akm1k = ld[k + 1, k]
            akm1 = ld[k, k] / cj(akm1k)
            ak = ld[k + 1, k + 1] / akm1k
            denom = akm1 * ak - ld.dtype.type(1)
            bkm1 = b[k] / cj(akm1k)
            bk = b[k + 1] / akm1k
            b[k] = (ak * bkm1 - bk) / denom
            b[k + 1] = (akm1 * bk - bkm1) / denom
            k += 2
    k = n - 1
    while k >= 0:
        if ipiv[k] > 0:
            b[k] -= cj(ld[k + 1:, k]) @ b[k + 1:]
            kp = ipiv[k] - 1
            if kp != k:
                b[[k, kp]] = b[[kp, k]]
            k -= 1
        else:
            b[k] -= cj(ld[k + 1:, k]) @ b[k + 1:]
            b[k - 1] -= cj(ld[k + 1:, k - 1]) @ b[k + 1:]
            kp = -ipiv[k] - 1
            if kp != k:
                b[[k, kp]] = b[[kp, k]]
            k -= 2


def ldl_solve(ld, pivots, b, hermitian=False):
    """``linalg.ldl_solve``: ``A X = B`` from :func:`ldl_factor_ex`'s ``LD`` and
    ``pivots`` (LAPACK sytrs), the batch dimensions of ``LD`` and ``B`` broadcast."""
    name = "torch.linalg.ldl_solve"
    _ldl_checks(name, ld)
    if b.dtype != ld.dtype:
        raise TypeError(f"Expected b and A to have the same dtype, but found b of type "
                        f"{torch_name(b.dtype)} and A of type {torch_name(ld.dtype)} instead.")
    if b.ndim < 2:
        raise IndexError(f"Dimension out of range (expected to be in range of "
                         f"[{-max(b.ndim, 1)}, {max(b.ndim, 1) - 1}], but got -2)")
    n = ld.shape[-1]
    if b.shape[-2] != n:
        raise ValueError(f"Incompatible matrix sizes for {name}: each A matrix is {n} by {n} "
                         f"but each b matrix is {b.shape[-2]} by {b.shape[-1]}")
    if pivots.shape != ld.shape[:-1]:
        raise ValueError(f"{name}: Expected LD.shape[:-1] and pivots.shape to be the same, but "
                         f"got pivots with shape {list(pivots.shape)} instead")
    if pivots.dtype.kind not in "iu":
        raise TypeError(f"{name}: Expected pivots to be integers. Got {torch_name(pivots.dtype)}")
    batch = broadcast_shapes(b.shape[:-2], ld.shape[:-2])   # torch names B "tensor a"
    nrhs = b.shape[-1]
    count = math.prod(batch)
    fl = np.broadcast_to(ld, batch + (n, n)).reshape((count, n, n))
    fp = np.broadcast_to(pivots, batch + (n,)).reshape((count, n))
    x = np.array(np.broadcast_to(b, batch + (n, nrhs)), copy=True).reshape((count, n, nrhs))
    for i in range(x.shape[0]):
        _sytrs_lower(fl[i], fp[i], x[i], bool(hermitian))
    return x.reshape(batch + (n, nrhs))


# -- half precision -----------------------------------------------------------------------

def _refusing_half(fn, message: str):
    """``fn`` refusing a float16 (or bfloat16) first operand with torch's words:
    its LAPACK-backed kernels are dispatched on float, double and their complex
    types only (numpy's linalg would fail in its own words)."""
    def op(a, *rest, **kw):
        if type(a) is np.ndarray and a.dtype == np.float16:
            raise TypeError(message)
        return fn(a, *rest, **kw)
    op.__name__ = fn.__name__
    op.__doc__ = fn.__doc__
    return op


_LOW = "Low precision dtypes not supported. Got Half"
det = _refusing_half(det, "\"lu_cpu\" not implemented for 'Half'")
slogdet = _refusing_half(slogdet, f"linalg.slogdet: {_LOW}")
inv = _refusing_half(inv, f"linalg.inv: {_LOW}")
inv_ex = _refusing_half(inv_ex, f"linalg.inv: {_LOW}")
solve = _refusing_half(solve, "\"lu_cpu\" not implemented for 'Half'")
solve_ex = _refusing_half(solve_ex, "\"lu_cpu\" not implemented for 'Half'")
lu_factor = _refusing_half(lu_factor, "\"lu_cpu\" not implemented for 'Half'")
lu_factor_ex = _refusing_half(lu_factor_ex, "\"lu_cpu\" not implemented for 'Half'")
lu = _refusing_half(lu, "\"lu_cpu\" not implemented for 'Half'")
svd = _refusing_half(svd, "\"linalg_svd_cpu\" not implemented for 'Half'")
svdvals = _refusing_half(svdvals, "\"linalg_svd_cpu\" not implemented for 'Half'")
qr = _refusing_half(qr, "\"geqrf_cpu\" not implemented for 'Half'")
eigh = _refusing_half(eigh, "\"linalg_eigh_cpu\" not implemented for 'Half'")
eig = _refusing_half(eig, "\"linalg_eig_out_cpu\" not implemented for 'Half'")
cholesky = _refusing_half(cholesky, "\"cholesky_cpu\" not implemented for 'Half'")


# -- registration ------------------------------------------------------------------------

_T, _S = "Tensor", "Scalar"
R.implement("aten::matmul", matmul)
R.implement("aten::linalg_matmul", matmul)
R.implement("aten::mm", mm)
R.implement("aten::bmm", bmm)
R.implement("aten::mv", mv)
R.implement("aten::dot", dot)
R.implement("aten::vdot", lambda a, b: dot(np.conj(a), b))
R.implement("aten::inner", lambda a, b: as_array(np.inner(a, b)))
for _name in ("outer", "ger"):
    R.implement(f"aten::{_name}", lambda a, b: np.outer(a, b))
for _name, _fn in [("addmm", addmm), ("addmv", addmv), ("baddbmm", baddbmm),
                   ("addbmm", addbmm), ("addr", addr)]:
    R.implement(f"aten::{_name}", _fn)
    R.register(f"aten::{_name}", _fn, types=[_T, _T, _T])
    R.implement(f"aten::{_name}_", (lambda f: lambda a, x, y, beta=1, alpha=1:
                                    _assign(a, f(a, x, y, beta, alpha)))(_fn))
R.implement("aten::einsum", einsum)
R.register("aten::einsum", einsum, types=["str", "Tensor[]"])
R.register("aten::einsum", einsum_sublist, types=["Tensor", "Any"], varargs=True)
R.implement("aten::tensordot", tensordot)
R.implement("aten::linalg_multi_dot", multi_dot)
R.implement("aten::chain_matmul", multi_dot)
R.implement("aten::cross", cross)
R.implement("aten::linalg_cross", cross)
R.implement("aten::linalg_vecdot", vecdot)
R.implement("aten::linalg_matrix_power", matrix_power)
R.implement("aten::matrix_power", matrix_power)
for _o in (_S, "int", "float"):
    R.register("aten::linalg_vector_norm", vector_norm, types=[_T, _o, "int[]?", "bool", "int?"])
    R.register("aten::linalg_vector_norm", out_form(vector_norm),
               types=[_T, _o, "int[]?", "bool", "int?", _T])
for _o in ("str", _S):
    R.register("aten::linalg_matrix_norm", matrix_norm, types=[_T, _o, "int[]", "bool", "int?"])
    R.register("aten::linalg_matrix_norm", out_form(matrix_norm),
               types=[_T, _o, "int[]", "bool", "int?", _T])
for _o in ("Scalar?", "str"):
    R.register("aten::linalg_norm", linalg_norm, types=[_T, _o, "int[]?", "bool", "int?"])
R.implement("aten::norm.ScalarOpt_dim", norm)
R.implement("aten::norm.ScalarOpt_dim_dtype", norm)
R.implement("aten::norm.Scalar", lambda a, p=2: norm(a, p))
R.implement("aten::norm.ScalarOpt_dtype", lambda a, p, dtype: norm(a, p, None, False, dtype))
R.implement("aten::norm.out", out_form(norm))
R.implement("aten::norm.dtype_out", out_form(norm))
R.implement("aten::frobenius_norm.dim", frobenius_norm)
R.implement("aten::frobenius_norm.out", out_form(frobenius_norm))
R.implement("aten::nuclear_norm.out", out_form(lambda a, keepdim=False:
                                           nuclear_norm(a, (-2, -1), keepdim)))
R.implement("aten::nuclear_norm.dim_out", out_form(nuclear_norm))
R.implement("aten::tensordot.out", out_form(tensordot))
R.implement("aten::nuclear_norm", lambda a, keepdim=False: nuclear_norm(a, (-2, -1), keepdim))
R.implement("aten::nuclear_norm.dim", nuclear_norm)
R.implement("aten::dist", dist)
R.implement("aten::renorm", renorm)
R.implement("aten::renorm_", lambda a, p, dim, maxnorm: _assign(a, renorm(a, p, dim, maxnorm)))
R.implement("aten::native_norm", lambda a, p=2: norm(a, p))
R.implement("aten::native_norm.ScalarOpt_dim_dtype", norm)
R.implement("aten::norm_except_dim", lambda v, p=2, dim=0: norm_except_dim(v, p, dim))
R.implement("aten::linalg__powsum",   # sum(|x| ** ord): a vector norm before its root
            lambda a, o=2, dim=None, keepdim=False, dtype=None:
            norm(np.abs(a) ** o, 1, dim, keepdim, dtype))
R.implement("aten::linalg_cond", cond)
R.implement("aten::linalg_cond.p_str", cond)
R.implement("aten::linalg_det", det)
R.implement("aten::det", det)
R.implement("aten::linalg_slogdet", slogdet)
R.implement("aten::slogdet", slogdet)
R.implement("aten::logdet", logdet)
R.implement("aten::linalg_inv", inv)
R.implement("aten::inverse", inv)
R.implement("aten::linalg_inv_ex", inv_ex)
R.implement("aten::linalg_solve", solve)
R.implement("aten::linalg_solve_ex", solve_ex)
R.implement("aten::linalg_cholesky", cholesky)
R.implement("aten::cholesky", cholesky)
R.implement("aten::linalg_cholesky_ex", cholesky_ex)
R.implement("aten::cholesky_inverse", cholesky_inverse)
R.implement("aten::cholesky_solve", cholesky_solve)
R.implement("aten::linalg_qr", qr)
R.implement("aten::qr", lambda a, some=True: qr(a, "reduced" if some else "complete"))
R.implement("aten::linalg_svd", svd)
R.implement("aten::svd", svd_legacy)
R.implement("aten::linalg_svdvals", svdvals)
R.implement("aten::linalg_eig", eig)
R.implement("aten::linalg_eigvals", eigvals)
R.implement("aten::linalg_eigh", eigh)
R.implement("aten::linalg_eigvalsh", eigvalsh)
R.implement("aten::linalg_pinv.atol_rtol_float", pinv)
R.implement("aten::linalg_pinv.atol_rtol_tensor", pinv)
R.implement("aten::linalg_pinv", pinv_rcond)
R.implement("aten::linalg_pinv.rcond_tensor", pinv_rcond)   # rcond_tensor
R.implement("aten::pinverse", lambda a, rcond=1e-15: pinv_rcond(a, rcond))
R.implement("aten::linalg_matrix_rank.atol_rtol_float", matrix_rank)
R.implement("aten::linalg_matrix_rank.atol_rtol_tensor", matrix_rank)
# the deprecated tol= forms: an absolute tolerance alone
for _tol in ("float", _T):
    R.register("aten::linalg_matrix_rank", lambda a, tol, hermitian=False:
               matrix_rank(a, tol, 0.0, hermitian), types=[_T, _tol, "bool"])
R.implement("aten::linalg_lu_factor", lu_factor)
R.implement("aten::linalg_lu_factor_ex", lu_factor_ex)
R.implement("aten::linalg_lu", lu)
R.implement("aten::lu_unpack", lu_unpack)
R.implement("aten::linalg_lu_solve", lu_solve)
R.implement("aten::lu_solve", lu_solve_legacy)
R.implement("aten::_lu_with_info", lambda a, pivot=True, check=True: lu_factor_ex(a))
R.implement("aten::linalg_solve_triangular", solve_triangular)
R.implement("aten::triangular_solve", triangular_solve)
R.implement("aten::linalg_householder_product", householder_product)
R.implement("aten::geqrf", geqrf)
R.implement("aten::ormqr", ormqr)
R.implement("aten::linalg_ldl_factor", ldl_factor)
R.implement("aten::linalg_ldl_factor_ex", ldl_factor_ex)
R.implement("aten::linalg_ldl_solve", ldl_solve)
R.implement("aten::linalg_lstsq", lstsq)
R.implement("aten::orgqr", householder_product)
R.implement("aten::linalg_vander", vander)
R.implement("aten::linalg_matrix_exp", matrix_exp)
R.implement("aten::matrix_exp", matrix_exp)
R.implement("aten::linalg_tensorinv", tensorinv)
R.implement("aten::linalg_tensorsolve", tensorsolve)


def _assign(a, value):
    a[...] = value
    return a
