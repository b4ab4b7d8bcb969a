"""Real library code, scripted unchanged by torch, run by pyjit on both loops.

Each corpus of :data:`CORPORA` is a fixture directory: ``tests/fixtures/real``
holds functions of torchvision (transforms.v2.functional,
ops), kornia and torchmetrics as torch 2.14 scripted them: each function's
inlined graph, the library, its version and the function's qualified name, and
its cases, arguments with torch's result or torch's error
(``tools/fixtures/make_real.py``, from ``tools/fixtures/real_programs.py``).  The
functions torch refused to script are listed in the fixture with torch's reason,
and not run.  Nobody wrote these functions for pyjit, which is the point: the
pass rate here is the rate on code nobody tuned for.  ``tests/fixtures/real3``
(``tools/fixtures/real_programs3.py``) is a second, separate corpus of the same
libraries' functions the first left out: torchvision's v1 transforms and their
tensor kernels, kornia's camera, epipolar, depth and calibration geometry and
utilities, torchmetrics' retrieval, nominal, clustering, detection and image
kernels.

A function not in its corpus's ``not_yet`` must reproduce every case on both loops at
both levels; one in it must still fail (``xfail(strict=True)``), with the
failure written here.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

from helpers.torch_cases import load, run_entry
from pyjit.compilation_unit import CompilationUnit
from pyjit.interpreter import Function
from pyjit.ir.parser import parse_ir

_LIBRARIES = {"torchvision": {"0.29.1+cu130"}, "kornia": {"0.9.0"}, "torchmetrics": {"1.9.0"}}

#: The corpora, each a fixture directory with what it holds: the libraries and
#: their versions, the functions pyjit does not run yet (each with the failure it
#: stops at), and the README's sentence stating its measured rate.
CORPORA = {
    # tools/fixtures/real_programs.py: torchvision v2, ops; kornia; torchmetrics
    "real": {
        "libraries": _LIBRARIES,
        "not_yet": {},
        "readme": "of {attempted} tried, torch scripts {total}, and pyjit runs {passing} of them "
                  "on both loops",
    },
    # tools/fixtures/real_programs3.py: torchvision v1 and its tensor kernels; kornia's
    # camera, epipolar, depth... modules; torchmetrics' kernels
    "real3": {
        "libraries": _LIBRARIES,
        "not_yet": {
            "torchvision.transforms.v2.functional.perspective":
                "one pixel of 75 is 184 for torch's 183: the perspective grid is a float32 "
                "bmm, whose sums torch's BLAS rounds differently in the last bit, and the "
                "sample lands on the other side of x.5 when the uint8 image is rounded",
        },
        "readme": "a third corpus tries {attempted} more functions; torch scripts {total}, and pyjit "
                  "runs {passing} of them on both loops",
    },
}

#: The share of recorded functions that pass on both loops, at least, in each corpus.
PASS_RATE = 0.97


def _meta(corpus):
    from helpers.torch_cases import FIXTURES as ROOT, read_cases
    return read_cases(ROOT / corpus)


@pytest.mark.parametrize("corpus", CORPORA)
def test_the_real_fixtures_say_where_each_function_comes_from(corpus):
    meta, fixtures = _meta(corpus), load(corpus)
    assert meta["torch"].startswith("2.14.1")
    assert len(fixtures.entries) >= 100
    assert meta["attempted"] == \
        len(fixtures.entries) + len(meta["refused"]) + len(meta["unrecorded"])
    libraries = {}
    for entry in fixtures.entries + meta["refused"] + meta["unrecorded"]:
        assert entry["qualname"].startswith(entry["library"] + "."), entry["name"]
        libraries.setdefault(entry["library"], set()).add(entry["version"])
    assert libraries == CORPORA[corpus]["libraries"]
    for refused in meta["refused"]:
        assert refused["reason"], refused["name"]


def test_the_corpora_do_not_repeat_a_function():
    seen = {}
    for corpus in CORPORA:
        meta = _meta(corpus)
        for entry in load(corpus).entries + meta["refused"] + meta["unrecorded"]:
            assert entry["qualname"] not in seen, \
                (entry["name"], corpus, seen.get(entry["qualname"]))
            seen[entry["qualname"]] = corpus


@pytest.mark.parametrize("corpus", CORPORA)
def test_the_pass_rate_on_real_code(corpus):
    fixtures, not_yet = load(corpus), CORPORA[corpus]["not_yet"]
    assert set(not_yet) <= set(fixtures.by_name)
    assert 1 - len(not_yet) / len(fixtures.entries) >= PASS_RATE


def _function(fixtures, entry, loop):
    """The recorded graph as a pyjit Function; a graph naming enum members
    (kornia's ``CFA.GR``) runs in a unit that defines the enum classes, rebuilt
    from the members the fixture recorded, as the caller of a torch graph has
    the library that defines them."""
    if "enums" not in entry:
        return Function(parse_ir(entry["graph"]), loop=loop)
    classes = [fixtures.enums[f"{e['module']}.{e['name']}"] for e in entry["enums"]]
    unit = CompilationUnit({"fn": parse_ir(entry["graph"])}, enums=classes)
    return unit.function("fn", loop=loop)


@pytest.mark.parametrize("corpus", CORPORA)
def test_the_readme_states_the_measured_rate(corpus):
    from pathlib import Path
    meta, fixtures = _meta(corpus), load(corpus)
    text = " ".join((Path(__file__).resolve().parent.parent / "README.md").read_text().split())
    total = len(fixtures.entries)
    assert CORPORA[corpus]["readme"].format(attempted=meta["attempted"], total=total,
                                            passing=total - len(CORPORA[corpus]["not_yet"])) in text


def _cases():
    for corpus, about in CORPORA.items():
        for entry in load(corpus).entries:
            case_id = entry["name"] if corpus == "real" else f"{corpus}:{entry['name']}"
            marks = ([pytest.mark.xfail(strict=True, reason=about["not_yet"][entry["name"]])]
                     if entry["name"] in about["not_yet"] else [])
            yield pytest.param(corpus, entry, id=case_id, marks=marks)


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("corpus, entry", list(_cases()))
def test_real_function(corpus, entry, loop):
    fixtures = load(corpus)
    fn = _function(fixtures, entry, loop)
    run_entry(fn, fixtures, entry)


# -- what the corpus found, pinned where the quick suite runs it ---------------------

def _run(text: str, loop, *args):
    return Function(parse_ir(text), loop=loop)(*args)


def test_a_tensor_of_a_mixed_number_list_is_torchs_error(loop):
    """kornia's ``camtoworld_graphics_to_vision_4x4`` writes
    ``torch.tensor([[1, 0, 0, 0], ..., [0, 0, 0, 1.0]])``: TorchScript types the
    last row ``Union(float, int)[]``, and torch's ``tensor`` refuses the Union at
    run time, whichever row holds it."""
    text = ("graph(%a : Union(float, int)[], %b : int[]):\n"
            "  %none : NoneType = prim::Constant()\n  %f : bool = prim::Constant[value=0]()\n"
            "  %rows : Union(Union(float, int)[], int[])[] = prim::ListConstruct(%b, %a)\n"
            "  %t : Tensor = aten::tensor(%rows, %none, %none, %f)\n  return (%t)\n")
    with pytest.raises(RuntimeError, match=r"Add new condition, expected Float, Complex, Int, "
                                           r"or Bool but gotUnion\(float, int\)"):
        _run(text, loop, [0, 1.0], [1, 2])


@pytest.mark.parametrize("x1, x2, p, message", [
    ((5, 8), (4, 7), 2.0, "X1 and X2 must have the same number of columns. X1: 8 X2: 7"),
    ((3,), (3, 4), 2.0, "cdist only supports at least 2D tensors, X1 got: 1D"),
    ((3, 4), (2, 4), -1.0, "cdist only supports non-negative p values"),
])
def test_cdist_checks_its_arguments_as_torch_does(loop, x1, x2, p, message):
    """kornia's ``match_nn`` on descriptors of different lengths."""
    text = ("graph(%x : Tensor, %y : Tensor, %p : float):\n  %none : NoneType = prim::Constant()\n"
            "  %d : Tensor = aten::cdist(%x, %y, %p, %none)\n  return (%d)\n")
    with pytest.raises(RuntimeError, match=message):
        _run(text, loop, np.ones(x1, np.float32), np.ones(x2, np.float32), p)


# -- what the third corpus found -------------------------------------------------------

def test_add_with_alpha_fuses_in_float32_as_torch_does(loop):
    """torchvision's ``_blend`` is ``image1.mul(r).add_(image2, alpha=1 - r)``;
    torch's kernel computes ``fmadd(other, alpha, self)``, one rounding: 69 + 0.3 *
    195.61836 is 127.68551 rounded twice and torch's 127.68550873 fused."""
    text = ("graph(%a : Tensor, %b : Tensor):\n  %k : float = prim::Constant[value=0.3]()\n"
            "  %c : Tensor = aten::add(%a, %b, %k)\n  return (%c)\n")
    out = _run(text, loop, np.array([69.0], np.float32), np.array([195.6183624267578], np.float32))
    np.testing.assert_array_equal(out, np.array([127.68550872802734], np.float32))


def test_inv_ex_reports_each_matrix_of_a_batch(loop):
    """kornia's ``safe_inverse_with_mask`` keeps the matrices ``inv_ex`` found
    regular: a singular matrix spoils only its own entry (torch's values)."""
    text = ("graph(%a : Tensor):\n  %f : bool = prim::Constant[value=0]()\n"
            "  %inv : Tensor, %info : Tensor = aten::linalg_inv_ex(%a, %f)\n"
            "  return (%inv, %info)\n")
    a = np.stack([np.eye(2, dtype=np.float32) * 2, np.array([[1, 2], [2, 4]], np.float32)])
    inverse, info = _run(text, loop, a)
    np.testing.assert_array_equal(info, np.array([0, 2], np.int32))
    np.testing.assert_array_equal(inverse, np.array([[[0.5, 0], [0, 0.5]],
                                                     [[-np.inf, np.inf], [np.inf, -np.inf]]],
                                                    np.float32))
    text = text.replace("value=0]()", "value=1]()")
    with pytest.raises(RuntimeError, match=r"linalg.inv: \(Batch element 1\): The diagonal element "
                                           r"2 is zero"):
        _run(text, loop, a)


@pytest.mark.parametrize("left, right, message", [
    ((3,), (3,), "dot : expected both vectors to have same dtype, but found Byte and Float"),
    ((2, 3), (3,), "addmv input tensors must have the same dtype, but got Float, Byte, and Float"),
    ((1, 2, 3), (3, 2), "expected m1 and m2 to have the same dtype, but got: unsigned char != float"),
    ((2, 3), (1, 3, 2), "expected scalar type Byte but found Float"),
])
def test_matmul_of_mixed_dtypes_is_the_error_of_torchs_kernel(loop, left, right, message):
    """kornia's crops and warps multiply a uint8 image's matrices by float ones."""
    text = "graph(%a : Tensor, %b : Tensor):\n  %c : Tensor = aten::matmul(%a, %b)\n  return (%c)\n"
    with pytest.raises(RuntimeError, match=re.escape(message)):
        _run(text, loop, np.ones(left, np.uint8), np.ones(right, np.float32))


@pytest.mark.parametrize("self_shape, index_shape, message", [
    ((3,), (2, 2), "Index tensor must have the same number of dimensions as self tensor"),
    ((3, 2), (4, 1), "Expected index [4, 1] to be no larger than self [3, 2] apart from dimension 1 "
                     "and to be no larger size than src [4, 1]"),
])
def test_scatter_add_checks_its_shapes_as_torch_does(loop, self_shape, index_shape, message):
    """torchmetrics' ``_tie_average_dcg`` scatters a 2-d ``unique`` inverse into a 1-d tensor."""
    text = ("graph(%a : Tensor, %i : Tensor, %s : Tensor):\n  %d : int = prim::Constant[value=-1]()\n"
            "  %c : Tensor = aten::scatter_add(%a, %d, %i, %s)\n  return (%c)\n")
    with pytest.raises(RuntimeError, match=re.escape(message)):
        _run(text, loop, np.zeros(self_shape, np.float32), np.zeros(index_shape, np.int64),
             np.ones(index_shape, np.float32))


def test_grid_sample_refuses_integer_images(loop):
    """kornia's warps of a uint8 image: torch samples floating types only."""
    text = ("graph(%x : Tensor, %g : Tensor):\n  %z : int = prim::Constant[value=0]()\n"
            "  %f : bool = prim::Constant[value=0]()\n"
            "  %y : Tensor = aten::grid_sampler(%x, %g, %z, %z, %f)\n  return (%y)\n")
    with pytest.raises(RuntimeError, match="\"grid_sampler_2d_cpu_kernel_impl\" not implemented "
                                           "for 'Byte'"):
        _run(text, loop, np.zeros((1, 1, 3, 3), np.uint8), np.zeros((1, 2, 2, 2), np.uint8))
