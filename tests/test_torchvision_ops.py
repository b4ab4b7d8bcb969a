"""torchvision's operators (pyjit/ops/vision.py) against torchvision's own results.

``tests/fixtures/vision_ops`` (``tools/fixtures/make_vision_ops.py``) holds each
case's inputs and what ``torch.ops.torchvision.<op>`` returned for them, in
float32 and, on the same inputs made float64, in float64.  Every case runs as a
one-node graph ``torchvision::<op>(...)`` on both loops at both levels.  The
comparison is exact where the kernel's order of operations is followed (nms's
indices, roi_pool's maxima and argmax, roi_align's and ps_roi_align's sums over
the samples of a bin, ps_roi_pool's window sums) and to a few float32 ulps where
it is not: box_iou_rotated's hull is summed in another order, deform_conv2d's
products are a BLAS GEMM.

The errors are torchvision's: its message without the ``<function>, <file of
its build>:<line>, `` in front that its stable-ABI checks add (and ATen's
``(originally from ...)`` after), or, where torchvision's check has no text, the
one pyjit gives.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest

from pyjit.interpreter import Function
from pyjit.ir.parser import parse_ir
from pyjit.ops import vision
from pyjit.registry import default_registry

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "vision_ops"
DATA = json.loads((FIXTURES / "cases.json").read_text())
ARRAYS = np.load(FIXTURES / "arrays.npz")
CASES = [c for c in DATA["cases"] if "error" not in c]
ERRORS = [c for c in DATA["cases"] if "error" in c]

#: Results computed in another order than the kernel's: (rtol, atol) in float32.
INEXACT = {"box_iou_rotated": (2e-6, 2e-6), "deform_conv2d": (1e-5, 1e-5)}

#: pyjit's message where torchvision's check has none.
OWN_MESSAGES = {
    "deform_conv2d_groups": "deform_conv2d: expected weight.size(1) * groups == input.size(1), "
                            "got 4 * 2 and 4",
    "deform_conv2d_3d_input": "deform_conv2d: expected a 4-D input, got 3-D",
}


def _scalar_type(v) -> str:
    return "bool" if isinstance(v, bool) else "int" if isinstance(v, int) else "float"


def graph_text(case) -> str:
    """``torchvision::<op>`` applied to the graph's inputs: the case's tensors,
    then its scalars."""
    params = [f"%t{i} : Tensor" for i in range(case["inputs"])]
    params += [f"%s{i} : {_scalar_type(v)}" for i, v in enumerate(case["scalars"])]
    args = [p.split(" :")[0] for p in params]
    outputs = case.get("outputs", 2 if case["op"] in ("roi_pool", "ps_roi_align",
                                                      "ps_roi_pool") else 1)
    outs = [f"%o{i}" for i in range(outputs)]
    return (f"graph({', '.join(params)}):\n"
            f"  {', '.join(o + ' : Tensor' for o in outs)} = torchvision::{case['op']}"
            f"({', '.join(args)})\n"
            f"  return ({', '.join(outs)})\n")


def run(case, loop, dtype=None):
    tensors = [ARRAYS[f"{case['name']}/in{i}"] for i in range(case["inputs"])]
    if dtype is not None:
        tensors = [t.astype(dtype) for t in tensors]
    fn = Function(parse_ir(graph_text(case)), loop=loop)
    out = fn(*tensors, *case["scalars"])
    return list(out) if isinstance(out, tuple) else [out]


def check(actual, expected, op: str, where: str) -> None:
    assert actual.dtype == expected.dtype, f"{where}: {actual.dtype} is not {expected.dtype}"
    assert actual.shape == expected.shape, f"{where}: {actual.shape} is not {expected.shape}"
    if op in INEXACT and expected.dtype.kind == "f":
        rtol, atol = INEXACT[op]
        if expected.dtype == np.float64:
            rtol, atol = rtol * 1e-8, atol * 1e-8
        np.testing.assert_allclose(actual, expected, rtol=rtol, atol=atol, err_msg=where)
    else:
        np.testing.assert_array_equal(actual, expected, err_msg=where)


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_float32_is_torchvisions(case, loop):
    out = run(case, loop)
    assert len(out) == case["outputs"]
    for i, a in enumerate(out):
        check(np.asarray(a), ARRAYS[f"{case['name']}/out{i}"], case["op"], f"{case['name']}[{i}]")


@pytest.mark.parametrize("case", [c for c in CASES if f"{c['name']}/f64_0" in ARRAYS],
                         ids=lambda c: c["name"])
def test_float64_is_torchvisions(case):
    for i, a in enumerate(run(case, None, np.float64)):
        check(np.asarray(a), ARRAYS[f"{case['name']}/f64_{i}"], case["op"],
              f"{case['name']}[{i}] float64")


def torch_text(message: str) -> str:
    """torchvision's message without the location its checks put in front (and
    ATen's ``(originally from ...)`` after)."""
    message = re.sub(r"^[\w()]+, \S+:\d+,\s*", "", message)
    return re.sub(r" \(originally from .*\)$", "", message)


@pytest.mark.parametrize("case", ERRORS, ids=[c["name"] for c in ERRORS])
def test_errors_are_torchvisions(case, loop):
    expected = torch_text(case["error"]["message"]) or OWN_MESSAGES[case["name"]]
    with pytest.raises(RuntimeError) as info:
        run(case, loop)
    assert expected in str(info.value)
    assert f"torchvision::{case['op']}" in str(info.value)   # the node that failed


def test_every_torchvision_message_is_pinned_or_torchs():
    assert {c["name"] for c in ERRORS if not torch_text(c["error"]["message"])} == \
        set(OWN_MESSAGES)


def test_the_fixtures_say_how_they_were_made():
    assert DATA["torchvision"].startswith("0.29") and DATA["torch"].startswith("2.14")
    assert (Path(__file__).resolve().parent.parent / DATA["made_by"]).exists()


# -- the schemas --------------------------------------------------------------------------

def test_each_operator_has_torchvisions_schema_and_is_registered():
    """``SCHEMAS`` is torchvision's text (``torch.ops.torchvision.<op>.default._schema``
    in torchvision 0.29.1) and each kind is registered with its input types."""
    from pyjit.ops import family_operators
    assert sorted(vision.SCHEMAS) == family_operators(vision) == [
        "box_iou_rotated", "deform_conv2d", "nms", "ps_roi_align", "ps_roi_pool", "roi_align",
        "roi_pool"]
    assert vision.SCHEMAS["roi_align"] == (
        "torchvision::roi_align(Tensor input, Tensor rois, float spatial_scale, SymInt "
        "pooled_height, SymInt pooled_width, int sampling_ratio, bool aligned) -> Tensor")
    for name in family_operators(vision):
        (op,) = default_registry.overloads(f"torchvision::{name}")
        assert op.library
    (op,) = default_registry.overloads("torchvision::roi_align")
    assert op.signature() == \
        "torchvision::roi_align(Tensor, Tensor, float, int, int, int, bool)"


def test_the_archive_knows_torchvisions_schemas():
    """A saved model's ``ops.torchvision.nms(...)`` is matched against torchvision's
    schema, as any operator torch registers."""
    from pyjit.archive.schemas import schemas_of
    for name, text in vision.SCHEMAS.items():
        (schema,) = schemas_of(f"torchvision::{name}")
        assert schema.text == text


# -- semantics the fixtures pin, said once more in small ------------------------------------

def test_nms_keeps_the_first_of_tied_scores_and_drops_only_above_the_threshold():
    boxes = np.array([[0, 0, 10, 10], [0, 0, 10, 10], [0, 0, 10, 5], [20, 20, 30, 30]],
                     np.float32)
    scores = np.array([0.5, 0.5, 0.9, 0.5], np.float32)
    # IoU of box 2 with box 0 is exactly 0.5: not greater, so kept at threshold 0.5.
    assert vision.nms(boxes, scores, 0.5).tolist() == [2, 0, 3]
    assert vision.nms(boxes, scores, 0.49).tolist() == [2, 3]


def test_roi_pool_refuses_rois_of_another_shape():
    """torchvision's roi_pool kernel reads five numbers a roi whatever the rois'
    shape (it has no check); pyjit refuses as roi_align does."""
    x = np.zeros((1, 1, 4, 4), np.float32)
    with pytest.raises(RuntimeError, match=r"^rois must have shape as Tensor\[K, 5\]$"):
        vision.roi_pool(x, np.zeros((2, 4), np.float32), 1.0, 2, 2)


def test_non_contiguous_inputs_give_the_contiguous_results():
    case = next(c for c in CASES if c["name"] == "roi_align_sr2_aligned")
    x, rois = (ARRAYS[f"{case['name']}/in{i}"] for i in range(2))
    strided = np.asfortranarray(x)
    rois_view = np.concatenate([rois, rois], 1)[:, :5]
    out = vision.roi_align(strided, rois_view, *case["scalars"])
    np.testing.assert_array_equal(out, ARRAYS[f"{case['name']}/out0"])


@pytest.mark.parametrize("op, scalars", [("roi_align", (1.0, 2, 2, 0, True)),
                                         ("roi_pool", (1.0, 2, 2)),
                                         ("ps_roi_align", (1.0, 1, 1, 2)),
                                         ("ps_roi_pool", (1.0, 1, 1))])
def test_rois_torchvision_would_read_out_of_bounds_for_are_refused(op, scalars):
    """torchvision checks neither a roi's image index nor its coordinates' finiteness
    (reading another image's memory, or converting NaN to int); pyjit says which
    roi is wrong."""
    x = np.zeros((2, 1, 4, 4), np.float32)
    fn = getattr(vision, op)
    kernel = f"{op}_forward_kernel"
    with pytest.raises(RuntimeError, match=rf"^{kernel}: roi 1 is of image 2, but the input "
                                           r"holds 2 images$"):
        fn(x, np.array([[1, 0, 0, 2, 2], [2, 0, 0, 2, 2]], np.float32), *scalars)
    with pytest.raises(RuntimeError, match=rf"^{kernel}: roi 0 is not finite: "
                                           r"\[0.0, nan, 0.0, 2.0, 2.0\]$"):
        fn(x, np.array([[0, np.nan, 0, 2, 2]], np.float32), *scalars)
    with pytest.raises(RuntimeError, match=rf"^{kernel}: roi 0 is not finite"):
        fn(x, np.array([[0, 0, 0, np.inf, 2]], np.float32), *scalars)


def test_nms_blocks_do_not_change_the_result(monkeypatch):
    """nms computes IoUs a block of boxes at a time; any block size keeps the same
    boxes as torchvision (the fixture's 1500 boxes, in blocks of 8 to 1500)."""
    case = next(c for c in CASES if c["name"] == "nms_many")
    boxes, scores = (ARRAYS[f"nms_many/in{i}"] for i in range(2))
    for block in (8, 100, 1500):
        monkeypatch.setattr(vision, "_NMS_BLOCK", block)
        np.testing.assert_array_equal(vision.nms(boxes, scores, *case["scalars"]),
                                      ARRAYS["nms_many/out0"])


CHUNKED = ["roi_align_sr0_unaligned", "roi_align_scaled_aligned", "roi_pool", "ps_roi_align_sr0",
           "ps_roi_pool_2x3", "box_iou_rotated_random"]


@pytest.mark.parametrize("name", CHUNKED)
def test_chunks_do_not_change_the_result(name, monkeypatch):
    """The roi operators and box_iou_rotated bound their temporaries by working on a
    chunk of rois (of pairs) at a time; a chunk of one roi (of 7 pairs) gives
    torchvision's results too."""
    monkeypatch.setattr(vision, "_CHUNK", 64 * 7)
    case = next(c for c in CASES if c["name"] == name)
    tensors = [ARRAYS[f"{name}/in{i}"] for i in range(case["inputs"])]
    out = getattr(vision, case["op"])(*tensors, *case["scalars"])
    for i, a in enumerate(out if isinstance(out, tuple) else (out,)):
        check(np.asarray(a), ARRAYS[f"{name}/out{i}"], case["op"], f"{name}[{i}]")
