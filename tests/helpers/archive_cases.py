"""The archive fixtures (tests/fixtures/archives, made by
tools/archives/make_archives.py): where they are, and their recorded calls' values
as torch computed them, decoded and compared."""

from __future__ import annotations

import os

import numpy as np
import pytest

HERE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "fixtures",
                    "archives")
NAMES = sorted(f[:-3] for f in os.listdir(HERE) if f.endswith(".pt"))


def decode(v):
    if isinstance(v, list):
        return [decode(x) for x in v]
    if isinstance(v, dict):
        if "tensor" in v:
            return np.array(v["tensor"], dtype=v["dtype"]).reshape(v["shape"])
        if "tuple" in v:
            return tuple(decode(x) for x in v["tuple"])
        if "dict" in v:
            return {decode(k): decode(x) for k, x in v["dict"]}
        if "float" in v:
            return float(v["float"])
    return v


def assert_close(got, want, where):
    if isinstance(want, np.ndarray):
        assert isinstance(got, np.ndarray), f"{where}: {type(got).__name__}, not a tensor"
        assert got.dtype == want.dtype and got.shape == want.shape, \
            f"{where}: {got.dtype}{list(got.shape)} vs torch's {want.dtype}{list(want.shape)}"
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4, err_msg=where)
    elif isinstance(want, (list, tuple)):
        assert type(got) is type(want) and len(got) == len(want), f"{where}: {got!r}"
        for i, (g, w) in enumerate(zip(got, want)):
            assert_close(g, w, f"{where}[{i}]")
    elif isinstance(want, dict):
        assert isinstance(got, dict) and list(got) == list(want), f"{where}: {got!r}"
        for k in want:
            assert_close(got[k], want[k], f"{where}[{k!r}]")
    elif isinstance(want, float):
        assert isinstance(got, float) and got == pytest.approx(want, rel=1e-5), f"{where}: {got}"
    else:
        assert type(got) is type(want) and got == want, f"{where}: {got!r} != {want!r}"


def call_model(args):
    """``model(x)`` for ``(model, x)``: what a pool's worker runs (a function of a
    module the worker can import, as spawn needs)."""
    model, x = args
    return model(x)
