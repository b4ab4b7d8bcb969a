"""The last public aten:: kinds of issue 24, as torch scripted and ran them
(``tests/fixtures/ldl``, from ``tools/fixtures/ldl_programs.py``): the
Bunch-Kaufman LDL^T factorization (``linalg.ldl_factor``/``_ex``, LAPACK
``sytrf``), its solve (``linalg.ldl_solve``, ``sytrs``), their ``out=`` forms,
and ``hash_tensor``.  Every case on both loops, with torch's values (pivots
exactly) and torch's messages."""

from __future__ import annotations

import numpy as np
import pytest

from helpers.torch_cases import load, run_case
from pyjit.interpreter import Function
from pyjit.ir.parser import parse_ir
from pyjit.ops import linalg

FIXTURES = load("ldl")


@pytest.mark.parametrize("entry", FIXTURES.entries, ids=[e["name"] for e in FIXTURES.entries])
def test_ldl_and_hash_operator(entry, loop):
    fn = Function(parse_ir(entry["graph"]), loop=loop)
    for i, case in enumerate(entry["cases"]):
        run_case(fn, FIXTURES, case, f"{entry['name']} case {i}")


def _factor_cases():
    for entry in ("ldl_factor", "ldl_factor_ex"):
        for case in FIXTURES.by_name[entry]["cases"]:
            if "expected" in case:
                yield [FIXTURES.decode(a) for a in case["args"]], \
                    FIXTURES.decode(case["expected"])


def test_real_factors_are_torchs_to_the_bit():
    """For real matrices LAPACK's unblocked sytf2 is reproduced operation for
    operation: LD is torch's bit for bit, not only within tolerance."""
    checked = 0
    for args, expected in _factor_cases():
        a = args[0]
        if a.dtype.kind != "f" or a.size == 0:
            continue
        ld, pivots, info = linalg.ldl_factor_ex(a, *args[1:])
        np.testing.assert_array_equal(ld, expected[0])
        np.testing.assert_array_equal(pivots, expected[1])
        checked += 1
    assert checked >= 8


def test_the_factors_reassemble_the_matrix():
    """P L D L^T P^T from LD and the pivots, as LAPACK documents them: each block
    of D (1x1, or 2x2 where the pivot is negative) and its interchange."""
    rng = np.random.default_rng(5)
    a = rng.standard_normal((6, 6))
    a = a + a.T
    a[np.arange(6), np.arange(6)] *= 0.01
    ld, piv, info = linalg.ldl_factor_ex(a)
    assert info == 0 and (piv < 0).any()
    n = 6
    left, k, d = np.eye(n), 0, np.zeros((n, n))
    while k < n:
        s = 1 if piv[k] > 0 else 2
        p = abs(piv[k]) - 1
        step = np.eye(n)
        step[k + s:, k:k + s] = ld[k + s:, k:k + s]
        perm = np.eye(n)
        perm[[k + s - 1, p]] = perm[[p, k + s - 1]]
        left = left @ perm @ step
        d[k:k + s, k:k + s] = np.tril(ld[k:k + s, k:k + s]) + np.tril(ld[k:k + s, k:k + s], -1).T
        k += s
    np.testing.assert_allclose(left @ d @ left.T, a, atol=1e-12)


def test_uint64_promotes_only_with_floats():
    """hash_tensor's uint64, as torch promotes it."""
    from pyjit.ops.dtypes import code_of, promote_types, torch_name
    u64, f32 = np.dtype(np.uint64), np.dtype(np.float32)
    assert (code_of(u64), torch_name(u64)) == (29, "UInt64")
    assert promote_types(u64, f32) == f32 and promote_types(f32, u64) == f32
    assert promote_types(u64, u64) == u64
    with pytest.raises(TypeError, match="^Promotion for uint16, uint32, uint64 types is not "
                                        "supported, attempted to promote UInt64 and Long$"):
        promote_types(u64, np.dtype(np.int64))
