"""pyjit's operator library: importing this package fills the default registry.

``import pyjit`` imports it, first of all, and nothing else imports it for that
effect: whoever holds :data:`pyjit.registry.default_registry` holds the library.

Every operator a TorchScript graph uses, on Python values and numpy arrays, with
TorchScript's semantics (checked against torch 2.13), one module per kind of value:

====================  ==========================================================
``prim``              tuples, ``unchecked_cast``, ``RaiseException``, ``Print``,
                      ``isinstance``, ``Uninitialized``, ``Enter``/``Exit``
``objects``           attributes of objects: ``GetAttr``, ``SetAttr``
``scalars``           int/float/bool arithmetic, comparisons, casts, ``math``
``lists``             list construction, indexing and methods
``dicts``             dict construction, indexing and methods
``strings``           ``str``/``format`` (TorchScript's text of values), str methods
``dtypes``            torch ScalarType codes and type promotion on numpy
``tensors``           tensor arithmetic, reductions, matrix products
``tensor_shapes``     sizes, views, ``cat``/``stack``
``tensor_factories``  ``zeros ones full arange tensor``
``tensor_format``     ATen's text form of a tensor
====================  ==========================================================

Overloads are chosen by input types when a Code is built (see
:mod:`pyjit.registry`); plain C functions (``operator.add``, ``math.floor``,
``list.insert``...) are registered wherever their semantics are torch's.
"""

from . import dicts, lists, objects, prim, scalars, strings  # noqa: F401
from . import tensor_factories, tensor_shapes, tensors  # noqa: F401
from .strings import torch_str

__all__ = ["torch_str"]
