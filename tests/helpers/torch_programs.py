"""Tensor functions and modules written with torch, for ``tests/test_torch_bridge.py``.

This module imports torch, so only tests that run where torch is installed import
it (through their ``programs`` fixture); ``frontend_programs.py`` holds the plain
Python corpus that torch scripts too.
"""

from __future__ import annotations

from typing import List, Tuple

import torch


def mlp(x, w1, b1, w2, b2):
    h = torch.tanh(x @ w1 + b1)
    return torch.sigmoid(h @ w2 + b2)


def softmax_rows(x):
    e = torch.exp(x - torch.max(x))
    return e / torch.sum(e, dim=1, keepdim=True)


def leaky_clamped(x):
    return torch.where(x > 0, x, 0.1 * x) + torch.clamp(x, -0.5, 0.5)


def halving_steps(x, n: int):
    y = x
    for i in range(n):
        y = y * 0.5 + float(i)
    return y


def with_constant(x):
    return x * torch.tensor([1.0, -2.0, 0.5]) + 1


def in_place(x):
    x.add_(1)
    return x * 2


def defaults(x, n: int = 2, scale: float = 0.5):
    return x * scale + n


def cat_and_count(ts: List[torch.Tensor], k: int) -> Tuple[torch.Tensor, int]:
    return torch.cat(ts, 0) * k, len(ts)


def _double(x: torch.Tensor) -> torch.Tensor:
    return x * 2


def forked(x: torch.Tensor) -> torch.Tensor:
    f = torch.jit.fork(_double, x)
    g = torch.jit.fork(_double, x + 1)
    return torch.jit.wait(f) + torch.jit.wait(g)


def to_sparse(x):
    # a sparse layout, which pyjit's dense arrays cannot represent
    return x.to_sparse()


def tensor_cases():
    """``(function, arguments)`` pairs: float32 and float64, loops, constants."""
    g = torch.Generator().manual_seed(3)

    def randn(*shape, dtype=torch.float32):
        return torch.randn(*shape, generator=g, dtype=dtype)

    d = torch.float64
    return [
        (mlp, (randn(4, 3), randn(3, 5), randn(5), randn(5, 2), randn(2))),
        (mlp, (randn(4, 3, dtype=d), randn(3, 5, dtype=d), randn(5, dtype=d),
               randn(5, 2, dtype=d), randn(2, dtype=d))),
        (softmax_rows, (randn(3, 4),)),
        (leaky_clamped, (randn(2, 5),)),
        (halving_steps, (randn(4), 3)),
        (with_constant, (randn(2, 3),)),
    ]


class Scaled(torch.nn.Module):
    """Parameters, a plain attribute, a submodule; and an exported method."""

    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(3, 2)
        self.k = 3

    def forward(self, x):
        return torch.relu(self.lin(x)) * self.k

    @torch.jit.export
    def shifted(self, x: torch.Tensor, by: float = 1.5):
        return self.lin(x) + by


class Counter(torch.nn.Module):
    """Its forward assigns an attribute: freezing cannot make that a constant."""

    def __init__(self):
        super().__init__()
        self.count = 0

    def forward(self, x):
        self.count += 1
        return x * self.count
