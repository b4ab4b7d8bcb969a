"""Nested tensors, which pyjit does not have: a tensor is one numpy array.

Library code that torch saves with a model still names the nested-tensor
operators on paths it takes only for nested input or when it builds nested
tensors itself (``nn.TransformerEncoder`` in eval mode with a padding mask and
``enable_nested_tensor``).  Registered here so that such a model compiles and
runs every other path; the nested path itself is refused with an error that
says why.  ``prim::is_nested`` (with the other device and layout queries in
:mod:`.conversions`) is False for every pyjit tensor.
"""

from __future__ import annotations

from ..registry import library as R

__all__: list = []


def _refuse(name: str):
    def refuse(*args):
        raise NotImplementedError(
            f"aten::{name}: nested tensors are not supported by pyjit (its tensors are "
            "numpy arrays); for nn.TransformerEncoder, build it with "
            "enable_nested_tensor=False")
    refuse.__name__ = name
    return refuse


_T = "Tensor"
R.implement("aten::_nested_tensor_from_mask", _refuse("_nested_tensor_from_mask"))
R.implement("aten::_nested_tensor_from_mask_left_aligned",
            _refuse("_nested_tensor_from_mask_left_aligned"))
R.implement("aten::to_padded_tensor", _refuse("to_padded_tensor"))
