"""Real library code, scripted unchanged by torch, run by pyjit on both loops.

Each corpus of :data:`CORPORA` is a fixture directory of functions as torch
scripted them: each function's inlined graph, the library, its version and the
function's qualified name, and its cases, arguments with torch's result or
torch's error (``tools/fixtures/make_real.py --corpus NAME``, from the corpus's
program module):

* ``tests/fixtures/real``: torchvision (transforms.v2.functional, ops), kornia
  and torchmetrics, scripted by torch 2.14 (``tools/fixtures/real_programs.py``);
* ``tests/fixtures/real3``: a second, separate corpus of the same libraries'
  functions the first left out: torchvision's v1 transforms and their tensor
  kernels, kornia's camera, epipolar, depth and calibration geometry and
  utilities, torchmetrics' retrieval, nominal, clustering, detection and image
  kernels (``tools/fixtures/real_programs3.py``);
* ``tests/fixtures/real_audio``: torchaudio 2.9's ``functional``, the helpers its
  transforms call, ``compliance.kaldi`` and the helpers of its models and
  pipelines,
  scripted by torch 2.9, whose graphs pyjit reads as well as 2.14's
  (``tools/fixtures/audio_programs.py``).

The functions torch refused to script are listed in the fixture with torch's
reason, and not run.  A graph may call back into Python (``^DifferentiableIIR()``,
a ``prim::PythonOp``: torchaudio's IIR filter, and so every biquad, is a
``torch.autograd.Function``): the graph names the function but does not hold it,
as torch's caller has it imported.  Here the caller's part is
:data:`PYTHON_OPS`, numpy forms of those ``forward`` methods, given to pyjit as
an operator for ``prim::PythonOp`` in the Registry the Function uses; the rest of
each graph is the library's, run by pyjit.  Nobody wrote these functions for pyjit, which is the
point: the pass rate here is the rate on code nobody tuned for.

A function not in its corpus's ``not_yet`` must reproduce every case on both
loops at both levels; one in it must still fail (``xfail(strict=True)``), with the
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
from pyjit.registry import Registry

_LIBRARIES = {"torchvision": {"0.29.1+cu130"}, "kornia": {"0.9.0"}, "torchmetrics": {"1.9.0"}}

#: Functions of torchaudio pyjit does not run yet, and the failure each stops at.
AUDIO_NOT_YET = {
    "torchaudio.functional.rtf_evd":
        "the eigenvector of linalg.eigh is defined up to its phase, which LAPACK's heevd "
        "chooses: torch's (MKL) and numpy's (OpenBLAS) choose -1 apart for one of the "
        "three frequencies",
    "torchaudio.functional.functional._rnnt_loss":
        "calls back into Python (^RnntLoss(), a torch.autograd.Function around torchaudio's "
        "C++ RNN-T loss), which PYTHON_OPS does not supply",
}


def _fir(waveform, b):
    """torchaudio's ``DifferentiableFIR.forward`` (filtering.py): each channel of
    ``(batch, channel, time)`` convolved with its own taps ``b[channel]``, the
    signal zero-padded on the left (torch's ``conv1d`` of the flipped taps)."""
    order = b.shape[1]
    x = np.pad(waveform, [(0, 0), (0, 0), (order - 1, 0)])
    flipped = b[:, ::-1]
    out = np.zeros_like(waveform)
    for k in range(order):
        out += flipped[:, k, None] * x[:, :, k:k + waveform.shape[2]]
    return out


def _iir(waveform, a):
    """torchaudio's ``DifferentiableIIR.forward``: the recursion its C++ kernel
    (``_lfilter_core_loop``) runs, each output sample the input sample less the
    previous outputs weighted by the normalised denominator ``a`` (``a[:, 0]`` is 1)."""
    order = a.shape[1]
    flipped = a[:, ::-1]
    n = waveform.shape[2]
    out = np.zeros(waveform.shape[:2] + (n + order - 1,), waveform.dtype)
    for i in range(n):
        acc = waveform[:, :, i].copy()
        for k in range(order):
            acc -= out[:, :, i + k] * flipped[:, k]
        out[:, :, i + order - 1] = acc
    return out[:, :, order - 1:]


#: The Python functions the recorded graphs call back into, by the name the graph
#: gives them: the caller's part of a graph, as torch's caller has the library.
PYTHON_OPS = {"DifferentiableFIR": _fir, "DifferentiableIIR": _iir}


def _python_op(node):
    name = node.attrs["name"]
    if name not in PYTHON_OPS:
        raise KeyError(f"no Python function {name!r} among PYTHON_OPS")
    return PYTHON_OPS[name]


#: The library's operators and ``prim::PythonOp`` run by :data:`PYTHON_OPS`.
WITH_PYTHON_OPS = Registry(library=True)
WITH_PYTHON_OPS.register("prim::PythonOp", factory=_python_op)

#: Each corpus (a directory of tests/fixtures): the torch that scripted it, the
#: libraries it draws from with their versions, how many functions it records
#: at least, the functions pyjit does not run yet with the failure each stops at,
#: and the share of recorded functions that pass on both loops, at least.
CORPORA = {
    "real": {"torch": "2.14.1", "libraries": _LIBRARIES, "least": 100, "not_yet": {},
             "pass_rate": 0.97,
             "readme": "of {attempted} tried, torch scripts {total}, and pyjit runs {passing} of "
                       "them on both loops"},
    "real3": {"torch": "2.14.1", "libraries": _LIBRARIES, "least": 250, "pass_rate": 0.97,
              "not_yet": {
                  "torchvision.transforms.v2.functional.perspective":
                      "one pixel of 75 is 184 for torch's 183: the perspective grid is a "
                      "float32 bmm, whose sums torch's BLAS rounds differently in the last "
                      "bit, and the sample lands on the other side of x.5 when the uint8 "
                      "image is rounded"},
              "readme": "a third corpus tries {attempted} more functions; torch scripts {total}, "
                        "and pyjit runs {passing} of them on both loops"},
    "real_audio": {"torch": "2.9.1", "libraries": {"torchaudio": {"2.9.1+cu128"}},
                   "least": 60, "not_yet": AUDIO_NOT_YET, "pass_rate": 0.97,
                   "readme": "of {attempted} tried, torch scripts {total}, and pyjit runs "
                             "{passing} of them on both loops"},
}

FIXTURES = {name: load(name) for name in CORPORA}


@pytest.mark.parametrize("corpus", sorted(CORPORA))
def test_the_real_fixtures_say_where_each_function_comes_from(corpus):
    from helpers.torch_cases import FIXTURES as ROOT, read_cases
    meta, want, fixtures = read_cases(ROOT / corpus), CORPORA[corpus], FIXTURES[corpus]
    assert meta["torch"].startswith(want["torch"])
    assert len(fixtures.entries) >= want["least"]
    assert meta["attempted"] == \
        len(fixtures.entries) + len(meta["refused"]) + len(meta["unrecorded"])
    libraries = {}
    for entry in fixtures.entries + meta["refused"] + meta["unrecorded"]:
        assert entry["qualname"].startswith(entry["library"] + "."), entry["name"]
        libraries.setdefault(entry["library"], set()).add(entry["version"])
    assert libraries == want["libraries"]
    for refused in meta["refused"]:
        assert refused["reason"], refused["name"]


@pytest.mark.parametrize("corpus", sorted(CORPORA))
def test_the_pass_rate_on_real_code(corpus):
    not_yet, fixtures = CORPORA[corpus]["not_yet"], FIXTURES[corpus]
    assert set(not_yet) <= set(fixtures.by_name)
    assert 1 - len(not_yet) / len(fixtures.entries) >= CORPORA[corpus]["pass_rate"]


def _calls_python(entry) -> bool:
    return " = ^" in entry["graph"]


def test_the_corpora_do_not_repeat_a_function():
    from helpers.torch_cases import FIXTURES as ROOT, read_cases
    seen = {}
    for corpus in CORPORA:
        meta = read_cases(ROOT / corpus)
        for entry in FIXTURES[corpus].entries + meta["refused"] + meta["unrecorded"]:
            # (within a corpus a public name may be the alias of another entry's
            # function: torchaudio's rnnt_loss of _rnnt_loss)
            assert seen.get(entry["qualname"], corpus) == corpus, \
                (entry["name"], corpus, seen.get(entry["qualname"]))
            seen[entry["qualname"]] = corpus


def _function(fixtures, entry, loop):
    """The recorded graph as a pyjit Function; a graph naming enum members
    (kornia's ``CFA.GR``) runs in a unit that defines the enum classes, rebuilt
    from the members the fixture recorded, as the caller of a torch graph has
    the library that defines them; one calling back into Python, with
    :data:`PYTHON_OPS`."""
    if "enums" not in entry:
        registry = WITH_PYTHON_OPS if _calls_python(entry) else None
        return Function(parse_ir(entry["graph"]), loop=loop, registry=registry)
    classes = [fixtures.enums[f"{e['module']}.{e['name']}"] for e in entry["enums"]]
    unit = CompilationUnit({"fn": parse_ir(entry["graph"])}, enums=classes)
    return unit.function("fn", loop=loop)


@pytest.mark.parametrize("corpus", sorted(CORPORA))
def test_the_readme_states_the_measured_rate(corpus):
    from pathlib import Path
    from helpers.torch_cases import FIXTURES as ROOT, read_cases
    meta = read_cases(ROOT / corpus)
    text = " ".join((Path(__file__).resolve().parent.parent / "README.md").read_text().split())
    total = len(FIXTURES[corpus].entries)
    assert CORPORA[corpus]["readme"].format(
        attempted=meta["attempted"], total=total,
        passing=total - len(CORPORA[corpus]["not_yet"])) in text
    calling = [e["name"] for e in FIXTURES[corpus].entries
               if _calls_python(e) and e["name"] not in CORPORA[corpus]["not_yet"]]
    if calling:
        assert f"{len(calling)} of them with the Python functions their graphs call back " \
               f"into supplied by the test" in text


def _marked(corpus, entry):
    """One function of a corpus; its id is its import path, prefixed by the
    corpus's name but for the first corpus (real and real3 share libraries, but
    never a function)."""
    not_yet = CORPORA[corpus]["not_yet"]
    case_id = entry["name"] if corpus == "real" else f"{corpus}:{entry['name']}"
    if entry["name"] in not_yet:
        return pytest.param(corpus, entry, id=case_id,
                            marks=pytest.mark.xfail(strict=True, reason=not_yet[entry["name"]]))
    return pytest.param(corpus, entry, id=case_id)


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("corpus, entry", [_marked(c, e) for c in sorted(CORPORA)
                                           for e in FIXTURES[c].entries])
def test_real_function(corpus, entry, loop):
    fn = _function(FIXTURES[corpus], entry, loop)
    run_entry(fn, FIXTURES[corpus], entry)


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


def test_a_complex_tensors_abs_and_angle_are_real_and_torchs(loop):
    """torchaudio's spectrogram (``spec.abs().pow(2)``) and phase vocoder: a
    complex64's abs is float32, ``hypot`` to the bit; its angle too (torch 2.9.1's
    and 2.14.1's values); its conj conjugates."""
    text = ("graph(%c : Tensor):\n  %a : Tensor = aten::abs(%c)\n"
            "  %p : Tensor = aten::angle(%c)\n  %j : Tensor = aten::conj(%c)\n"
            "  return (%a, %p, %j)\n")
    c = np.array([3 + 4j, -1 + 0j, 0.1 - 0.7j, 1e-3 + 2.5j], np.complex64)
    a, p, j = _run(text, loop, c)
    assert a.dtype == p.dtype == np.float32 and j.dtype == np.complex64
    assert [float(v).hex() for v in a] == ["0x1.4000000000000p+2", "0x1.0000000000000p+0",
                                           "0x1.6a09e60000000p-1", "0x1.4000020000000p+1"]
    assert [float(v).hex() for v in p] == ["0x1.dac6700000000p-1", "0x1.921fb60000000p+1",
                                           "-0x1.6dcc580000000p+0", "0x1.92057e0000000p+0"]
    np.testing.assert_array_equal(j, np.conjugate(c))
    with pytest.raises(RuntimeError, match=r"In-place abs is not supported for complex tensors\."):
        _run("graph(%c : Tensor):\n  %a : Tensor = aten::abs_(%c)\n  return (%a)\n", loop, c)


@pytest.mark.parametrize("kind, values, expected", [
    ("cumsum", [1e8, 1.0, 1.0, 1.0, -1e8, 0.3, 0.7], [1e8, 1e8, 1e8, 1e8, 3.0, 3.3, 4.0]),
    ("cumprod", [1e-30, 1e-30, 1e30, 1e30], [1e-30, 0.0, 1e-30, 1.0]),
])
def test_a_float32_scan_runs_in_double_as_torchs(loop, kind, values, expected):
    """torch's CPU cumsum and cumprod carry a float32 running value in double
    (torchaudio's phase vocoder sums phases this way): the cancelled 1e8 leaves
    3.0, not 0.0, and a product that underflows float32 comes back."""
    text = (f"graph(%x : Tensor):\n  %d : int = prim::Constant[value=0]()\n"
            f"  %n : NoneType = prim::Constant()\n  %y : Tensor = aten::{kind}(%x, %d, %n)\n"
            f"  return (%y)\n")
    y = _run(text, loop, np.array(values, np.float32))
    np.testing.assert_array_equal(y, np.array(expected, np.float32))


def test_a_float32_arange_rounds_as_torchs_vectorised_kernel(loop):
    """``torch.arange(0, 21, 2 ** 0.25)``, as torch 2.9.1 and 2.14.1 give it (the
    step of torchaudio's phase vocoder for a pitch shift of -3 semitones): its
    14th value, in the kernel's second vector, is that vector's first value
    rounded to float32 plus 5 steps, a last bit below ``13 * step`` rounded once."""
    text = ("graph(%e : float):\n  %s : int = prim::Constant[value=0]()\n"
            "  %n : int = prim::Constant[value=21]()\n  %d : int = prim::Constant[value=6]()\n"
            "  %no : NoneType = prim::Constant()\n"
            "  %y : Tensor = aten::arange(%s, %n, %e, %d, %no, %no, %no)\n  return (%y)\n")
    y = _run(text, loop, 2.0 ** 0.25)
    assert [float(v).hex() for v in y] == [
        "0x0.0p+0", "0x1.306fe00000000p+0", "0x1.306fe00000000p+1", "0x1.c8a7d00000000p+1",
        "0x1.306fe00000000p+2", "0x1.7c8bd80000000p+2", "0x1.c8a7d00000000p+2",
        "0x1.0a61e40000000p+3", "0x1.306fe00000000p+3", "0x1.567ddc0000000p+3",
        "0x1.7c8bd80000000p+3", "0x1.a299d40000000p+3", "0x1.c8a7d00000000p+3",
        "0x1.eeb5cc0000000p+3", "0x1.0a61e40000000p+4", "0x1.1d68e20000000p+4",
        "0x1.306fe00000000p+4", "0x1.4376de0000000p+4"]
    assert float(y[13]) != float(np.float32(13 * 2.0 ** 0.25))


@pytest.mark.parametrize("real, imag, message", [
    (np.float32, np.float64, "Expected object of scalar type Float but got scalar type Double "
                             "for second argument"),
    (np.complex64, np.complex64, "Expected both inputs to be Half, Float or Double tensors but "
                                 "got ComplexFloat and ComplexFloat"),
    (np.int64, np.int64, "Expected both inputs to be Half, Float or Double tensors but got "
                         "Long and Long"),
])
@pytest.mark.parametrize("kind", ["polar", "complex"])
def test_polar_and_complex_check_their_parts_as_torch_does(loop, kind, real, imag, message):
    text = (f"graph(%a : Tensor, %b : Tensor):\n  %c : Tensor = aten::{kind}(%a, %b)\n"
            f"  return (%c)\n")
    with pytest.raises(RuntimeError, match=message):
        _run(text, loop, np.ones(2, real), np.ones(2, imag))


@pytest.mark.parametrize("equation, shapes, message", [
    ("...fc,...cft->...ft", [(3, 3), (3, 2, 5)],
     "subscript f has size 2 for operand 1 which does not broadcast with previously seen size 3"),
    ("ii->i", [(3, 2)], "subscript i is repeated for operand 0 but the sizes don't match, 2 != 3"),
    ("...i,...i->...", [(3, 2), (4, 2)], "dimension 0 covered by ellipsis in operand 1has size 4 "
     "which does not broadcast with previously seen ellipsis with size 3"),
])
def test_einsum_names_the_subscript_whose_sizes_disagree(loop, equation, shapes, message):
    """torchaudio's ``apply_beamforming`` on weights and a spectrogram of different
    channel counts: torch's message, not numpy's remapped shapes."""
    text = (f'graph(%x : Tensor[]):\n  %e : str = prim::Constant[value="{equation}"]()\n'
            f"  %n : NoneType = prim::Constant()\n  %y : Tensor = aten::einsum(%e, %x, %n)\n"
            f"  return (%y)\n")
    with pytest.raises(RuntimeError, match=re.escape(message)):
        _run(text, loop, [np.ones(s, np.float32) for s in shapes])


# -- Python calls in a graph (torchaudio's autograd Functions) -----------------------

_PYTHON_CALL = ("graph(%x : Tensor,\n      %b : Tensor):\n"
                "  %y : Tensor = ^DifferentiableFIR[]()(%x, %b) # filtering.py:1011:24\n"
                "  %z : Tensor = ^Scaled.apply[inplace=0](None, 2)(%y)\n"
                "  return (%z)\n")


def test_a_python_call_parses_and_prints_as_torch_prints_it():
    """torch prints a ``prim::PythonOp`` as ``^name[attributes](scalars)(inputs)``."""
    graph = parse_ir(_PYTHON_CALL)
    assert str(graph) == _PYTHON_CALL
    fir, scaled = list(graph.nodes())
    assert (fir.kind, fir.attrs["name"], fir.attrs["scalars"]) == \
        ("prim::PythonOp", "DifferentiableFIR", "")
    assert (scaled.attrs["name"], scaled.attrs["scalars"], scaled.attrs["inplace"]) == \
        ("Scaled.apply", "None, 2", 0)


def test_a_python_call_is_refused_by_name_unless_the_registry_runs_it(loop):
    from pyjit.errors import OperatorNotFoundError
    with pytest.raises(OperatorNotFoundError, match=r"the graph calls back into Python at "
                       r"filtering.py:1011:24: \^DifferentiableFIR\(\) is a Python function"):
        Function(parse_ir(_PYTHON_CALL), loop=loop)
    registry = Registry(library=True)
    registry.register("prim::PythonOp", factory=lambda node: {
        "DifferentiableFIR": _fir, "Scaled.apply": lambda y: 2 * y}[node.attrs["name"]])
    x = np.arange(6, dtype=np.float32).reshape(1, 2, 3)
    b = np.array([[1.0, 0.5], [0.0, -1.0]], np.float32)
    fn = Function(parse_ir(_PYTHON_CALL), loop=loop, registry=registry)
    np.testing.assert_array_equal(fn(x, b), [[[0.0, 2.0, 5.0], [0.0, -6.0, -8.0]]])


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
