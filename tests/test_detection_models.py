"""torchvision's detection models, scripted and saved by torch, run by ``pyjit.load``
on numpy alone, against torch's detections.

``tests/fixtures/detection`` (``tools/fixtures/make_detection.py``) holds six
models -- FasterRCNN, MaskRCNN, KeypointRCNN, RetinaNet, FCOS and SSD, torchvision's
own classes around a tiny backbone -- each with two images and what torch
returned for them.  Their operators are the library's (the ``torchvision::``
family of ``pyjit/ops/vision.py`` among them, tested on its own in
``test_torchvision_ops.py``).

What it took, in the archive compiler, beyond the operators: ``Tensor.tolist()``
under ``annotate``, a tuple indexed by a negative constant (``(min_size0)[-1]``),
``annotate(int, <Tensor>)`` and ``annotate(number, <Tensor>)`` converting as torch's
annotate does (``aten::IntImplicit``, ``aten::ScalarImplicit``), and ``isinstance``
against ``(list, tuple)`` on a ``Union`` tested when the graph runs.
"""

from __future__ import annotations

import json
import re
import warnings
import zipfile
from pathlib import Path

import numpy as np
import pytest

import pyjit
from pyjit.ops import family_operators, vision

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "detection"
MODELS = ["fasterrcnn", "maskrcnn", "keypointrcnn", "retinanet", "fcos", "ssd"]

#: The torchvision operators each model's code names (``box_iou_rotated`` in
#: ``box_iou``'s branch for rotated boxes, which the matchers of training reach).
_RCNN = {"nms", "roi_align", "box_iou_rotated"}
OPERATORS = {"fasterrcnn": _RCNN, "maskrcnn": _RCNN, "keypointrcnn": _RCNN,
             "retinanet": {"nms", "box_iou_rotated"}, "fcos": {"nms"},
             "ssd": {"nms", "box_iou_rotated"}}


def fixture(name):
    data = np.load(FIXTURES / f"{name}.npz")
    return data, json.loads(str(data["meta"]))


@pytest.mark.slow
@pytest.mark.parametrize("name", MODELS)
def test_detections_are_torchs(name):
    data, meta = fixture(name)
    model = pyjit.load(str(FIXTURES / f"{name}.pt"))
    images = [data[f"image{i}"].astype(np.float32) / np.float32(255) for i in range(2)]
    with warnings.catch_warnings(record=True) as warned:
        warnings.simplefilter("always")
        result = model(images)
    # torchvision's own warning, which its scripted code gives (aten::warn)
    assert any("always returns a" in str(w.message) for w in warned)
    if meta["returns_tuple"]:
        losses, result = result
        assert losses == {}
    assert len(result) == len(meta["keys"])
    for i, keys in enumerate(meta["keys"]):
        assert list(result[i]) == keys
        for key in keys:
            actual, expected = np.asarray(result[i][key]), data[f"out/{i}/{key}"]
            where = f"{name}: image {i} {key}"
            assert actual.dtype == expected.dtype and actual.shape == expected.shape, where
            if expected.dtype.kind == "f":
                # boxes are in pixels (up to 80): a few float32 ulps of them
                np.testing.assert_allclose(actual, expected, rtol=1e-5, atol=1e-5,
                                           err_msg=where)
            else:
                np.testing.assert_array_equal(actual, expected, err_msg=where)


@pytest.mark.parametrize("name", MODELS)
def test_the_torchvision_operators_each_model_calls_are_the_librarys(name):
    """What stops the models is not an operator: every ``ops.torchvision.<op>`` their
    code names is one of the family's."""
    with zipfile.ZipFile(FIXTURES / f"{name}.pt") as archive:
        code = "".join(archive.read(n).decode() for n in archive.namelist()
                       if "/code/" in n and n.endswith(".py"))
    called = set(re.findall(r"\bops\.torchvision\.(\w+)\(", code))
    assert called == OPERATORS[name]
    assert called <= set(family_operators(vision))


@pytest.mark.parametrize("name", MODELS)
def test_the_fixture_says_how_it_was_made(name):
    data, meta = fixture(name)
    assert meta["model"] == name and meta["made_by"] == "tools/fixtures/make_detection.py"
    assert meta["torch"].startswith("2.14") and meta["torchvision"].startswith("0.29")
    assert (FIXTURES.parent.parent.parent / meta["made_by"]).exists()
    assert (FIXTURES / f"{name}.pt").stat().st_size < 1_000_000
