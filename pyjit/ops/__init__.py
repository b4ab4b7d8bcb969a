"""pyjit's operator library: importing this package fills the default registry.

``import pyjit`` imports it, first of all, and nothing else imports it for that
effect: whoever holds :data:`pyjit.registry.default_registry` holds the library.

Every operator a TorchScript graph uses, on Python values and numpy arrays, with
TorchScript's semantics (checked against torch 2.13), one module per kind of value.
Tensor operators come in families: a family is one table of rows (an operator's
names, the numpy function computing it, its dtype rule) and one generic
implementation turning each row into every form TorchScript emits, so adding an
operator of an existing family is one row.

=====================  ==================================================
Overloads are chosen by input types when a Code is built (see
:mod:`pyjit.registry`); plain C functions (``operator.add``, ``math.floor``,
``list.insert``...) are registered wherever their semantics are torch's.
"""

from . import dicts, formatting, lists, prim, scalars, strings  # noqa: F401
from . import pointwise, activations, reductions, numerics  # noqa: F401
from . import tensor_shapes, indexing, conversions, implicit, tensor_factories  # noqa: F401
from . import linalg, fft, nn_conv, nn_norm, nn_resample, nn_loss, nn_layers  # noqa: F401
from . import random  # noqa: F401
from . import warn  # noqa: F401
from . import awaitables  # noqa: F401
from .formatting import torch_str

#: The tensor operator families, for ``pyjit info --ops``: (title, modules).
FAMILIES = [
    ("pointwise", (pointwise, activations)),
    ("reductions and numerics", (reductions, numerics)),
    ("shape and indexing", (tensor_shapes, indexing)),
    ("dtype and device", (conversions,)),
    ("creation", (tensor_factories,)),
    ("linear algebra", (linalg,)),
    ("fft", (fft,)),
    ("neural network", (nn_conv, nn_norm, nn_resample, nn_loss, nn_layers)),
    ("random", (random,)),
]

__all__ = ["torch_str", "FAMILIES"]
