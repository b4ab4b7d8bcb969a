"""A loaded module's methods specialised for their object
(pyjit/archive/specialize.py), the pass that fuses a convolution with a batch
norm whose statistics are read at run time (pyjit/passes/fuse_batch_norm.py)
and its operator, ``pyjit::conv_bn_act`` (pyjit/ops/fused.py).

The models are tests/fixtures/inference's eval-mode modules, not frozen
(tools/fixtures/make_inference.py), with torch's float64 outputs: a
specialised run must be within 4 float32 ulps of the output's magnitude, as a
frozen one is (tests/test_inference_passes.py says why 4), and every change of
the module must be seen as the shared graph sees it.
"""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pytest

import pyjit
from pyjit.archive import specialize
from pyjit.code import default_optimize
from pyjit.ir.parser import parse_ir
from pyjit.ops import fused, nn_conv, nn_norm
from pyjit.passes import inference
from pyjit.passes.fuse_batch_norm import fuse_batch_norm

FIXTURES = Path(__file__).parent / "fixtures" / "inference"
ARRAYS = np.load(FIXTURES / "arrays.npz")
ULP = 2.0 ** -23


def _close_to_torch(out, name):
    exact = ARRAYS[f"{name}/f64"]
    assert out.dtype == np.float32 and out.shape == exact.shape
    assert np.abs(out - exact).max() <= 4 * ULP * np.abs(exact).max()


def _shared(module, x):
    """The method as the shared graph runs it (no specialisation)."""
    return module.forward.function()(module, x)


# -- the pass --------------------------------------------------------------------------------

CONV_BN_RELU = """graph(%x : Tensor, %m : __torch__.M):
  %none : NoneType = prim::Constant()
  %one : int = prim::Constant[value=1]()
  %zero : int = prim::Constant[value=0]()
  %s : int[] = prim::ListConstruct(%one, %one)
  %p : int[] = prim::ListConstruct(%zero, %zero)
  %w : Tensor = prim::GetAttr[name="weight"](%m)
  %y : Tensor = aten::conv2d(%x, %w, %none, %s, %p, %s, %one)
  %d : int = aten::dim(%y)
  %gamma : Tensor = prim::GetAttr[name="gamma"](%m)
  %beta : Tensor = prim::GetAttr[name="beta"](%m)
  %mean : Tensor = prim::GetAttr[name="mean"](%m)
  %var : Tensor = prim::GetAttr[name="var"](%m)
  %training : bool = prim::Constant[value=0]()
  %momentum : float = prim::Constant[value=0.1]()
  %eps : float = prim::Constant[value=1.0000000000000001e-05]()
  %cudnn : bool = prim::Constant[value=1]()
  %z : Tensor = aten::batch_norm(%y, %gamma, %beta, %mean, %var, %training, %momentum, %eps, %cudnn)
  %r : Tensor = aten::relu_(%z)
  return (%r, %d)
"""

# the statistics are read before the convolution, where the fused node stands
# (the shape query between the two reads its output)
CONV_BN_RELU_FUSED = """graph(%x : Tensor,
      %m : __torch__.M):
  %none : NoneType = prim::Constant()
  %one : int = prim::Constant[value=1]()
  %zero : int = prim::Constant[value=0]()
  %s : int[] = prim::ListConstruct(%one, %one)
  %p : int[] = prim::ListConstruct(%zero, %zero)
  %w : Tensor = prim::GetAttr[name="weight"](%m)
  %gamma : Tensor = prim::GetAttr[name="gamma"](%m)
  %beta : Tensor = prim::GetAttr[name="beta"](%m)
  %mean : Tensor = prim::GetAttr[name="mean"](%m)
  %var : Tensor = prim::GetAttr[name="var"](%m)
  %eps : float = prim::Constant[value=1.0000000000000001e-05]()
  %0 : int = prim::Constant[value=2]()
  %1 : str = prim::Constant[value="relu"]()
  %r : Tensor = pyjit::conv_bn_act(%x, %w, %none, %s, %p, %s, %one, %0, %gamma, %beta, %mean, %var, %eps, %1)
  %d : int = aten::dim(%r)
  return (%r, %d)
"""


def _renumbered(text: str) -> str:
    import re
    ids = {}
    return re.sub(r"%(\d+)\b", lambda m: "%" + ids.setdefault(m.group(1), str(len(ids))), text)


def test_a_batch_norm_read_at_run_time_fuses_with_its_convolution_and_relu():
    g = parse_ir(CONV_BN_RELU)
    assert fuse_batch_norm(g) == 1
    assert _renumbered(str(g)) == CONV_BN_RELU_FUSED


@pytest.mark.parametrize("change", [
    ("%training : bool = prim::Constant[value=0]()", "%training : bool = aten::is_grad_enabled()"),
    ("%z : Tensor = aten::batch_norm(%y,", "%y2 : Tensor = aten::relu(%y)\n  %z : Tensor = aten::batch_norm(%y,"),
    ("%eps : float = prim::Constant[value=1.0000000000000001e-05]()",
     "%eps : float = aten::Float(%d)"),
], ids=["training-unknown", "second-use", "eps-unknown"])
def test_a_batch_norm_is_left_where_it_cannot_fuse(change):
    g = parse_ir(CONV_BN_RELU.replace(*change))
    assert fuse_batch_norm(g) == 0
    assert "pyjit::conv_bn_act" not in str(g)


# -- the operator ----------------------------------------------------------------------------


GEOMETRIES = [  # (C, O, H, kernel, stride, padding, groups, bias)
    (16, 24, 9, 1, 1, 0, 1, False),     # 1x1: pyjit's GEMM, its epilogue
    (32, 8, 11, 3, 2, 1, 1, True),     # 3x3, 288 terms: numpy's BLAS, then one pass
    (3, 8, 15, 3, 2, 1, 1, False),     # a stem summed directly
    (8, 8, 10, 3, 1, 1, 8, False),     # depthwise, the map applied as rows are stored
    (8, 16, 10, 3, 1, 1, 2, True),     # grouped, summed directly
    (4, 6, 12, 7, 2, 3, 1, False),     # 196 terms from the image (conv2d_gemm)
]


@pytest.mark.parametrize("geometry", GEOMETRIES)
@pytest.mark.parametrize("activation", ["none", "relu", "relu6", "silu"])
def test_the_fused_operator_is_the_three_operators(geometry, activation, kernel_set):
    c, o, h, k, s, p, groups, has_bias = geometry
    rng = np.random.default_rng(c * o + h)
    x = rng.standard_normal((2, c, h, h + 1)).astype(np.float32)
    w = rng.standard_normal((o, c // groups, k, k)).astype(np.float32)
    b = rng.standard_normal(o).astype(np.float32) if has_bias else None
    gamma, beta = rng.uniform(0.5, 1.5, o).astype(np.float32), rng.uniform(-1, 1, o).astype(
        np.float32)
    mean, var = rng.uniform(-1, 1, o).astype(np.float32), rng.uniform(0.5, 2, o).astype(
        np.float32)
    x[0, 0, 0, :3] = np.nan   # NaN stays NaN through the affine map and clamp
    args = ([s, s], [p, p], [1, 1], groups)
    y = nn_norm.batch_norm(nn_conv.conv2d(x, w, b, *args), gamma, beta, mean, var, False,
                           0.1, 1e-5)
    expected = {"none": y, "relu": np.maximum(y, 0), "relu6": np.clip(y, 0, 6),
                "silu": y / (1 + np.exp(-y.astype(np.float64)))}[activation]
    got = fused.conv_bn_act(x, w, b, *args[:3], groups, 2, gamma, beta, mean, var, 1e-5,
                            activation)
    assert got.dtype == np.float32 and got.shape == y.shape
    np.testing.assert_array_equal(np.isnan(got), np.isnan(expected))
    finite = ~np.isnan(expected)
    np.testing.assert_allclose(got[finite], expected[finite], rtol=2e-5,
                               atol=2e-5 * np.abs(expected[finite]).max())


def test_the_fused_operator_in_float64_and_with_no_statistics_is_the_three_operators():
    rng = np.random.default_rng(5)
    x = rng.standard_normal((1, 4, 6, 6))
    w = rng.standard_normal((5, 4, 3, 3))
    stats = [rng.uniform(0.5, 1.5, 5) for _ in range(4)]
    got = fused.conv_bn_act(x, w, None, [1, 1], [1, 1], [1, 1], 1, 2, *stats, 1e-5, "relu")
    y = nn_norm.batch_norm(nn_conv.conv2d(x, w, None, [1, 1], [1, 1], [1, 1], 1), *stats[:2],
                           *stats[2:], False, 0.1, 1e-5)
    assert got.dtype == np.float64
    np.testing.assert_allclose(got, np.maximum(y, 0), rtol=1e-12, atol=1e-12)


# -- specialisation --------------------------------------------------------------------------

@pytest.fixture
def cnn(loop):
    return pyjit.load(str(FIXTURES / "cnn_eval.pt"), loop=loop)


def test_a_module_runs_specialised_from_its_second_call(cnn):
    x = ARRAYS["cnn/in0"]
    _close_to_torch(cnn(x), "cnn")
    assert specialize.specialization(cnn) is None          # one call: nothing more built
    _close_to_torch(cnn(x), "cnn")
    fn = specialize.specialization(cnn)
    if not default_optimize():
        assert fn is None                                   # O0: the seed's table only
        return
    text = str(fn.code.graph)
    assert "prim::CallMethod" not in text and 'GetAttr[name="training"]' not in text
    # cnn: b1-b4 after their convolutions fuse (b5's input has a second use; b6
    # follows a linear); the weights and statistics are still read at every run
    assert text.count("pyjit::conv_bn_act") == 4 and text.count("aten::batch_norm") == 2
    assert text.count('prim::GetAttr[name="running_mean"]') == 6
    _close_to_torch(cnn(x), "cnn")
    assert specialize.specialization(cnn) is fn               # reused while nothing changed


def test_the_specialised_graph_reads_its_tensors_first(cnn):
    # every read that follows a submodule or reads a tensor leads the graph,
    # in order (run between two kernels each found the interpreter's objects
    # evicted: freeze._hoist_reads), and the values are the same
    x = ARRAYS["cnn/in0"]
    fn = _specialised(cnn, x)
    nodes = list(fn.code.graph.nodes())
    kinds = [n.kind for n in nodes]
    reads = kinds.count("prim::GetAttr")
    assert reads >= 6 * 5   # six batch norms' four tensors, their convolutions' weights
    loads = kinds.index("prim::GetAttr")
    assert set(kinds[loads:loads + reads]) == {"prim::GetAttr"}
    assert all(k != "prim::GetAttr" for k in kinds[loads + reads:])
    assert all(not k.startswith(("aten::", "pyjit::")) for k in kinds[:loads])
    _close_to_torch(cnn(x), "cnn")


def test_a_read_of_an_attribute_the_graph_writes_stays_where_it_is():
    from pyjit.passes.freeze import _hoist_reads
    g = parse_ir("""graph(%self : __torch__.M, %x : Tensor):
  %a : Tensor = prim::GetAttr[name="w"](%self)
  %y : Tensor = aten::mul(%x, %a)
   = prim::SetAttr[name="v"](%self, %y)
  %b : Tensor = prim::GetAttr[name="v"](%self)
  %c : Tensor = prim::GetAttr[name="u"](%self)
  %z : Tensor = aten::add(%b, %c, %x)
  return (%z)
""")
    self_, = g.inputs[:1]
    reads = {n.output().debug_name: n.output() for n in g.nodes() if n.kind == "prim::GetAttr"}
    # v is written: freeze_graph records neither its read nor follows it
    _hoist_reads(g, {self_: object()}, {reads["a"], reads["c"]})
    order = [(n.kind, n.outputs[0].debug_name if n.outputs else None) for n in g.nodes()]
    assert order == [("prim::GetAttr", "a"), ("prim::GetAttr", "c"), ("aten::mul", "y"),
                     ("prim::SetAttr", None), ("prim::GetAttr", "b"), ("aten::add", "z")]
    g.lint()


def _specialised(module, x):
    """``module``'s specialisation, made by calling it twice (O1 only: at O0 the
    test is skipped)."""
    if not default_optimize():
        pytest.skip("specialisation is O1's")
    module(x)
    module(x)
    return specialize.specialization(module)


def test_a_change_of_the_module_is_seen_as_the_shared_graph_sees_it(cnn):
    x = ARRAYS["cnn/in0"]
    first = _specialised(cnn, x)
    assert first is not None
    # new weights, assigned or written into in place, are read at the next run
    cnn.c1.weight = cnn.c1.weight * np.float32(2)
    np.testing.assert_allclose(cnn(x), _shared(cnn, x), rtol=1e-5, atol=1e-5)
    cnn.b3.running_var[...] *= np.float32(3)
    np.testing.assert_allclose(cnn(x), _shared(cnn, x), rtol=1e-5, atol=1e-5)
    assert specialize.specialization(cnn) is first
    # a mode, a submodule, a statistic made None: specialised again
    cnn.b1.training = True
    np.testing.assert_allclose(cnn(x), _shared(cnn, x), rtol=1e-5, atol=1e-5)
    second = specialize.specialization(cnn)
    assert second is not first and str(second.code.graph).count("pyjit::conv_bn_act") == 3
    cnn.b1.training = False
    cnn.b2 = cnn.b1          # another submodule (of the same class and size)
    np.testing.assert_allclose(cnn(x), _shared(cnn, x), rtol=1e-5, atol=1e-5)
    assert specialize.specialization(cnn) not in (first, second)


@pytest.mark.parametrize("way", ["hold", "hold_python"])
def test_the_guards_hold_while_each_attribute_is_as_the_graph_took_it(way):
    guards = specialize.Guards()
    hold = getattr(guards, way)
    owner, sub = {"training": False, "eps": 1e-5}, {"mean": np.zeros(3)}
    child = object()
    owner["sub"] = child
    guards.same += [(owner, "training", False), (owner, "sub", child)]
    guards.tensors.append((sub, "mean"))
    assert hold() and len(guards) == 3
    sub["mean"] = np.ones(3)            # another tensor: read at run time, fine
    assert hold()
    for fields, name, value in ((sub, "mean", None), (owner, "training", True),
                                (owner, "sub", object())):
        old = fields[name]
        fields[name] = value
        assert not hold(), name
        fields[name] = old
        assert hold()
    del owner["training"]
    assert not hold()


def test_a_module_that_keeps_changing_runs_the_shared_graph(cnn):
    x = ARRAYS["cnn/in0"]
    _specialised(cnn, x)
    for i in range(specialize.MAX_RESPECIALISATIONS + 2):
        cnn.b4.training = i % 2 == 0
        np.testing.assert_allclose(cnn(x), _shared(cnn, x), rtol=1e-5, atol=1e-5)
    assert specialize.specialization(cnn) is None
    cnn.b4.training = False   # (its training runs moved its running statistics)
    np.testing.assert_array_equal(cnn(x), _shared(cnn, x))


def test_no_specialisation_when_the_inference_passes_are_off(cnn):
    x = ARRAYS["cnn/in0"]
    with inference.disabled():
        for _ in range(3):
            _close_to_torch(cnn(x), "cnn")
    assert specialize.specialization(cnn) is None


def test_each_object_of_a_class_has_its_own_specialisation(loop):
    block = pyjit.load(str(FIXTURES / "block_eval.pt"), loop=loop)
    x = ARRAYS["block/in0"]
    before = _specialised(block, x)
    assert before is not None
    # its submodules' methods, called through them, are specialised for them
    y = np.ascontiguousarray(x[:, :, :8, :8])
    sub = [block.c1(y) for _ in range(2)]
    assert specialize.specialization(block.c1) is not None
    np.testing.assert_array_equal(sub[0], sub[1])
    assert specialize.specialization(block) is before
    _close_to_torch(block(x), "block")


def test_a_method_that_cannot_be_specialised_warns_and_runs_shared(cnn, monkeypatch):
    x = ARRAYS["cnn/in0"]
    if not default_optimize():
        pytest.skip("specialisation is O1's")

    def broken(*args, **kwargs):
        raise RuntimeError("no graph today")
    monkeypatch.setattr("pyjit.passes.freeze.inline_calls", broken)
    cnn(x)
    with pytest.warns(RuntimeWarning, match=r"CNN\.forward could not be specialised for its "
                                             r"object \(RuntimeError: no graph today\)"):
        out = cnn(x)
    _close_to_torch(out, "cnn")
    with warnings.catch_warnings():
        warnings.simplefilter("error")   # once: the shared graph from then on
        _close_to_torch(cnn(x), "cnn")
    assert specialize.specialization(cnn) is None


def test_specialised_calls_of_a_pickled_module_start_afresh(cnn):
    import pickle
    x = ARRAYS["cnn/in0"]
    _specialised(cnn, x)
    copy = pickle.loads(pickle.dumps(cnn))
    assert specialize.specialization(copy) is None
    _close_to_torch(copy(x), "cnn")
    _close_to_torch(copy(x), "cnn")


def test_a_specialisation_does_not_keep_its_module_alive(loop):
    import gc
    import weakref
    module = pyjit.load(str(FIXTURES / "cnn_eval.pt"), loop=loop)
    x = ARRAYS["cnn/in0"]
    module(x)
    module(x)
    ref = weakref.ref(module)
    del module
    gc.collect()
    assert ref() is None


def test_an_attribute_never_set_fails_where_the_shared_graph_fails(cnn):
    # (an object of an archive whose pickle left an attribute out)
    x = ARRAYS["cnn/in0"]
    cnn(x)
    del object.__getattribute__(cnn.b4, "_fields")["training"]
    for _ in range(2):   # the shared graph, then the specialised one (O1)
        with pytest.raises(pyjit.InterpreterError, match="attribute 'training' of a "
                                                          r"__torch__\.torch\.nn\.modules\..*"
                                                          "was never set"):
            cnn(x)
    frozen = pyjit.freeze(cnn)          # freezing leaves the read, which fails when run
    with pytest.raises(pyjit.InterpreterError, match="'training'.*was never set"):
        frozen(x)
