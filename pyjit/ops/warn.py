"""``aten::warn``: the ``warnings.warn(...)`` of TorchScript code (``torch.nn.functional``
warns this way about deprecated arguments), raised as a Python ``UserWarning``, as
torch raises it."""

from __future__ import annotations

import warnings

from ..registry import library as R

__all__ = ["warn"]


def warn(message: str, stacklevel: int = 2) -> None:
    warnings.warn(message, UserWarning, stacklevel=2)


R.implement("aten::warn", warn)
R.register("aten::warn", warn, types=["str"])
