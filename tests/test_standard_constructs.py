"""What torchvision's standard models took beyond the detection fixtures: small
modules using the same torchvision classes, scripted by torch, run by
``pyjit.load`` on every loop against torch's outputs.

The standard constructors themselves (``fasterrcnn_resnet50_fpn``, ``fcn_resnet50``,
``maxvit_t``..., random weights) are archives of 10-500 MB, made and compared by
``tools/fixtures/make_standard_models.py`` and ``run_standard_models.py``, never
committed.  Each failure they showed is a case of
``tools/fixtures/make_standard_regressions.py`` here (``tests/fixtures/standard``):

* ``fpn_*``: ``FeaturePyramidNetwork.forward`` returns
  ``OrderedDict([(k, v) for k, v in zip(names, results)])``, which torch compiles
  to ``aten::dict.str((str, tVal)[] inputs)``: a type variable of more than one
  letter, which pyjit took for a class named ``tVal`` (no overload matched).
  Every detection model with an FPN backbone stopped there.
* ``tensor_from_floats``, ``rcnn_transform_float64``: TorchScript's
  ``torch.tensor``/``torch.as_tensor`` of Python floats makes the tensor in the
  default dtype (float32; complex64 for complex numbers) and converts it to the
  ``dtype`` asked for after, so ``torch.tensor(0.1, dtype=torch.float64)`` is
  0.10000000149011612.  pyjit made it in float64 directly (eager torch's
  answer): a float64 detection model, normalised by ``as_tensor(image_mean,
  dtype=image.dtype)``, differed from torch's by 1e-8 in its input and 1e-5 in
  its scores.
* ``decode_no_boxes``: ``aten::flatten`` reshaped to ``-1``, which numpy cannot
  infer beside a 0: torchvision's ``BoxCoder.decode_single`` flattens the
  (0, 1, 4) boxes of a level where no score passed RetinaNet's threshold
  (``retinanet_resnet50_fpn`` with its own settings failed there).
* ``empty_batch``: the same in ``group_norm``, ``max_pool2d`` and
  ``searchsorted``: the layers of a head on the regions of an image with no
  detections, a batch of none.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import pyjit
from pyjit.ir import torch_schemas, types as T
from pyjit.ir.type_relation import is_type_var, match_argument, substitute

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "standard"
CASES = sorted(p.stem for p in FIXTURES.glob("*.pt"))


def _unflatten_inputs(data, meta):
    names = [k for k in data.files if k.startswith("in/")]
    if meta["layout"] == "dict":
        # one Dict[str, Tensor] argument, in the order torch's dict had
        return [{k.split("/", 2)[2]: data[k] for k in names}]
    if meta["layout"] == "list":
        return [[data[k] for k in names]]
    return [data[k] for k in names]


def _flatten(value, prefix="out"):
    if isinstance(value, (np.ndarray, int, float, complex)):
        yield prefix, np.asarray(value)
    elif isinstance(value, dict):
        for k, v in value.items():
            yield from _flatten(v, f"{prefix}/{k}")
    else:
        for i, v in enumerate(value):
            yield from _flatten(v, f"{prefix}/{i}")


def test_the_cases_are_there():
    assert {"fpn_maxpool", "fpn_p6p7", "tensor_from_floats", "rcnn_transform_float64",
            "decode_no_boxes", "empty_batch"} <= set(CASES)


@pytest.mark.parametrize("name", CASES)
def test_case_runs_as_torch(name, loop):
    data = np.load(FIXTURES / f"{name}.npz")
    meta = json.loads(str(data["meta"]))
    assert meta["made_by"] == "tools/fixtures/make_standard_regressions.py"
    module = pyjit.load(str(FIXTURES / f"{name}.pt"), loop=loop)
    result = dict(_flatten(module(*_unflatten_inputs(data, meta))))
    assert list(result) == meta["outputs"]          # the keys, in torch's order
    for path in meta["outputs"]:
        expected = data[path]
        where = f"{name}: {path}"
        assert result[path].dtype == expected.dtype and result[path].shape == expected.shape, where
        if expected.dtype.kind not in "fc":
            np.testing.assert_array_equal(result[path], expected, err_msg=where)
        elif expected.dtype.itemsize >= 8 and expected.dtype != np.complex64:
            # float64: what float32 rounding of a constant changes (1e-8) shows
            np.testing.assert_allclose(result[path], expected, rtol=1e-13, atol=1e-14,
                                       err_msg=where)
        else:
            np.testing.assert_allclose(result[path], expected, rtol=1e-5, atol=1e-6,
                                       err_msg=where)


def test_a_camel_case_type_variable_binds():
    """``tVal`` of ``aten::dict.str`` is a variable: a list of (str, Tensor) fits
    and the result is ``Dict(str, Tensor)``; builtin names stay types."""
    schema = next(s for s in torch_schemas.schemas_of("aten::dict")
                  if [str(a.type) for a in s.arguments] == ["(str, tVal)[]"])
    env = {}
    pairs = T.ListType(T.TupleType([T.STR, T.TENSOR]))
    assert match_argument(pairs, schema.arguments[0].type, env) is None
    assert str(substitute(schema.returns[0].type, env)) == "Dict(str, Tensor)"
    assert is_type_var(T.NamedType("tVal")) and is_type_var(T.NamedType("t1"))
    assert not any(is_type_var(t) for t in (T.INT, T.FLOAT, T.BOOL, T.STR, T.COMPLEX))
