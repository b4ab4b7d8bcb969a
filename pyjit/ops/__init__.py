"""pyjit's operator library, loaded when a registry first needs it.

Importing this package imports every family (in the order of :data:`LIBRARY`),
and each declares its operators in :data:`pyjit.registry.library` as it is
imported: nothing is registered anywhere yet.  A registry that wants the library
-- :data:`pyjit.registry.default_registry` does -- imports this package and
registers those declarations into itself on its first lookup
(:meth:`pyjit.registry.Registry.load_library`), so ``import pyjit`` and ``import
pyjit.ir`` load no operator.  Which of two overloads runs a node never depends
on the order they were declared in: see :mod:`pyjit.registry`'s rule.

Every operator a TorchScript graph uses, on Python values and numpy arrays, with
TorchScript's semantics (checked against torch 2.13), one module per kind of value.
Tensor operators come in families: a family is one table of rows (an operator's
names, the numpy function computing it, its dtype rule) and one generic
implementation turning each row into every form TorchScript emits, so adding an
operator of an existing family is one row.

=====================  =========================================================
``prim``               tuples, ``unchecked_cast``, ``RaiseException``, ``Print``,
                       ``isinstance``, ``Uninitialized``, ``Enter``/``Exit``
``objects``            objects: ``CreateObject``, ``GetAttr``, ``SetAttr``
``enums``              enum members: ``EnumValue``, ``EnumName``, ``==``
``scalars``            int/float/bool arithmetic, comparisons, casts, ``math``
``lists``              list construction, indexing and methods
``dicts``              dict construction, indexing and methods
``strings``            ``str`` operators on TorchScript's byte model of text
``formatting``         TorchScript's text of values: ``str``, ``format``, ``%``
``dtypes``             torch's ScalarType codes, dtype names and type promotion
``dims``               dimensions and shapes as torch checks them
``ufunc_direct``       the pointwise family's ufunc calls without its generic wrapper
``pointwise``          unary and binary pointwise tensor operators (with ``_`` and
                       ``out=`` forms), clamp, where, lerp, addcmul
``special``            the special functions behind ``erf``, ``lgamma``, ``digamma``...
``activations``        activation functions and softmax
``reductions``         sums, means, extremes, moments, scans, sorts
``numerics``           differences, gradients, integrals, covariance, quantiles,
                       histograms, segment reductions
``tensor_shapes``      sizes, views and their copies, splits, joins
``indexing``           advanced indexing, gather/scatter, masks, searches
``conversions``        dtype and device: ``to``, dtype queries, ``item``, ``tolist``
``implicit``           a 0-dim tensor passed as a number (``IntImplicit``...)
``tensor_factories``   ``tensor``, ``zeros``, ``arange``, ``linspace``, ``eye``...
``linalg``             matrix products and ``torch.linalg``
``fft``                ``torch.fft``
``windows``            ``hann_window``, ``hamming_window``, ``blackman_window``...
``out_variants``       the ``out=`` overloads of torch's list, derived from the
                       functional operators the families declare
``nn_conv``            convolutions and pooling
``nn_norm``            batch, layer, group, instance and RMS normalization
``nn_resample``        padding, interpolation, grid sampling
``nn_loss``            losses and distances
``nn_layers``          linear, embedding, one_hot
``nn_attention``       scaled_dot_product_attention; the fused attention and encoder
                       layer kernels of nn.MultiheadAttention and TransformerEncoderLayer
``nn_recurrent``       rnn_tanh, rnn_relu, gru, lstm (padded and packed input)
``fused``              a convolution or linear with its activation in one node
                       (``pyjit::conv_act``, ``pyjit::linear_act``: the inference passes')
``nested``             nested-tensor operators, refused: pyjit has no nested tensors
``random``             sampling (``rand``, ``bernoulli_``...) and dropout, from one
                       numpy generator (``random.manual_seed``)
``tensor_format``      ATen's text form of a tensor
``warn``               ``aten::warn``
``hashing``            ``hash()`` as torch's ``IValue::hash``
``grad_mode``          ``is_grad_enabled``/``set_grad_enabled`` (per thread; no
                       gradients are computed)
``tensor_lists``       lists of tensors compared as tensors: ``==``, ``index``,
                       ``count``, ``remove``, ``sort``
``awaitables``         ``prim::awaitable_wait``/``_nowait`` (``prim::awaitable`` is
                       compiled as ``prim::fork`` is)
``vision``             torchvision's operators (``torchvision::nms``, ``roi_align``,
                       ``roi_pool``, ``ps_roi_*``, ``box_iou_rotated``, ``deform_conv2d``)
``audio``              torchaudio's operators (``torchaudio::_overdrive_core_loop``)
``tensor_meta``        strides, storage offset, torch's flags, device comparisons,
                       autocast and TorchScript queries
=====================  =========================================================

Overloads are chosen by input types when a Code is built (see
:mod:`pyjit.registry`); plain C functions (``operator.add``, ``math.floor``,
``list.insert``...) are registered wherever their semantics are torch's.
"""

from . import dicts, enums, formatting, lists, objects, prim, scalars, strings  # noqa: F401
from . import pointwise, activations, reductions, numerics  # noqa: F401
from . import tensor_shapes, indexing, conversions, implicit, tensor_factories  # noqa: F401
from . import linalg, fft, nn_conv, nn_norm, nn_resample, nn_loss, nn_layers  # noqa: F401
from . import nn_attention, nn_recurrent, nested, fused  # noqa: F401
from . import random  # noqa: F401
from . import warn  # noqa: F401
from . import awaitables  # noqa: F401
from . import tensor_lists  # noqa: F401
from . import grad_mode  # noqa: F401
from . import hashing  # noqa: F401
from . import vision  # noqa: F401
from . import audio  # noqa: F401
from . import tensor_meta, windows  # noqa: F401
from . import out_variants  # noqa: F401  (last: it derives from every other family)
from .formatting import torch_str

#: Every family, in the order they are imported (and their operators declared).
#: Two are not declarations yet: ``prim`` and ``objects`` (being rewritten for the
#: archive's safety) still register into the default registry as they are
#: imported, which the default registry's first lookup does; another
#: ``Registry(library=True)`` has the rest of the library without them.
LIBRARY = (dicts, enums, formatting, lists, objects, prim, scalars, strings, pointwise,
           activations, reductions, numerics, tensor_shapes, indexing, conversions,
           implicit, tensor_factories, linalg, fft, nn_conv, nn_norm, nn_resample, nn_loss,
           nn_layers, nn_attention, nn_recurrent, nested, fused, random, warn, awaitables,
           tensor_lists, grad_mode, hashing, vision, audio, tensor_meta, windows, out_variants)

#: The tensor operator families, for ``pyjit info --ops``: (title, modules).
FAMILIES = [
    ("pointwise", (pointwise, activations)),
    ("reductions and numerics", (reductions, numerics)),
    ("shape and indexing", (tensor_shapes, indexing)),
    ("dtype and device", (conversions, implicit)),
    ("introspection and environment", (tensor_meta,)),
    ("creation", (tensor_factories,)),
    ("linear algebra", (linalg,)),
    ("fft", (fft,)),
    ("windows", (windows,)),
    ("neural network", (nn_conv, nn_norm, nn_resample, nn_loss, nn_layers, nn_attention,
                         nn_recurrent, fused)),
    ("random", (random,)),
    ("nested tensors (refused)", (nested,)),
    ("torchvision", (vision,)),
    ("torchaudio", (audio,)),
]



def family_operators(module) -> list:
    """The operators a family declares, by name (the kind without its
    namespace), as ``pyjit info --ops`` lists them: what the family's module
    declared in the library, read from the declarations themselves
    (:meth:`~pyjit.registry.Library.kinds_by_family`), so no list is kept by
    hand.  An in-place form (``abs_``, ``__iand__``) is listed as its operator
    when the family declares that too; one torch has alone (``resize_``,
    ``normal_``) under its own name."""
    from ..registry import library
    kinds = library.kinds_by_family().get(module.__name__, [])
    names = {kind.split("::", 1)[1] for kind in kinds}

    def listed(name: str) -> str:
        if name.startswith("__i") and name.endswith("__") and "__" + name[3:] in names:
            return "__" + name[3:]
        if name.endswith("_") and not name.endswith("__") and name[:-1] in names:
            return name[:-1]
        return name
    return sorted({listed(n) for n in names})


__all__ = ["torch_str", "FAMILIES", "LIBRARY", "family_operators"]
