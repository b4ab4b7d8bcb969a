"""The inference passes (pyjit/passes/inference.py and the passes it chains):
each rewrite pinned on graph text, before and after, and the models of
tests/fixtures/inference (frozen by torch with their batch norms left in,
tools/fixtures/make_inference.py) giving torch's outputs on both loops.

Tolerance.  Folding a batch norm into a convolution rounds differently from
running the two (pyjit folds in double and rounds the new weights once; torch's
freezing folds in float32), so the outputs are compared with the float64
value torch computed on the same module, not bit for bit: pyjit's error must
be at most 4 float32 ulps (2**-23 each) of the output's largest magnitude.
torch's own float32 outputs, unfolded and folded by ``torch.jit.freeze``,
are within 1.5 ulps of it on these models (asserted below), so 4 leaves room
for one more rounding per layer and no more.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import pyjit
from pyjit.code import default_optimize
from pyjit.ir.parser import parse_ir
from pyjit.ir.literals import TensorValue
from pyjit.passes import inference
from pyjit.passes.fold_batch_norm import fold_batch_norm
from pyjit.passes.fold_constants import fold_constants
from pyjit.passes.fuse_activations import fuse_activations
from pyjit.registry import default_registry

FIXTURES = Path(__file__).parent / "fixtures" / "inference"
ULP = 2.0 ** -23


def _with_tensors(text: str, **arrays):
    """The graph of ``text``, its ``<Tensor>`` constants given the arrays named
    by their values' names."""
    g = parse_ir(text)
    for n in g.nodes():
        if n.kind == "prim::Constant" and n.output().debug_name in arrays:
            n.attrs["value"] = TensorValue("<Tensor>", arrays[n.output().debug_name])
    return g


def _array(g, name: str) -> np.ndarray:
    for n in g.all_nodes():
        if n.outputs and n.output().debug_name == name:
            return n.attrs["value"].value()
    raise KeyError(name)


CONV_BN = """graph(%x : Tensor):
  %w : Tensor = prim::Constant[value=<Tensor>]()
  %none : NoneType = prim::Constant()
  %one : int = prim::Constant[value=1]()
  %zero : int = prim::Constant[value=0]()
  %s : int[] = prim::ListConstruct(%one, %one)
  %p : int[] = prim::ListConstruct(%zero, %zero)
  %y : Tensor = aten::conv2d(%x, %w, %none, %s, %p, %s, %one)
  %gamma : Tensor = prim::Constant[value=<Tensor>]()
  %beta : Tensor = prim::Constant[value=<Tensor>]()
  %mean : Tensor = prim::Constant[value=<Tensor>]()
  %var : Tensor = prim::Constant[value=<Tensor>]()
  %training : bool = prim::Constant[value=0]()
  %momentum : float = prim::Constant[value=0.1]()
  %eps : float = prim::Constant[value=1.0000000000000001e-05]()
  %cudnn : bool = prim::Constant[value=1]()
  %z : Tensor = aten::batch_norm(%y, %gamma, %beta, %mean, %var, %training, %momentum, %eps, %cudnn)
  return (%z)
"""

CONV_BN_FOLDED = """graph(%x : Tensor):
  %one : int = prim::Constant[value=1]()
  %zero : int = prim::Constant[value=0]()
  %s : int[] = prim::ListConstruct(%one, %one)
  %p : int[] = prim::ListConstruct(%zero, %zero)
  %0 : Tensor = prim::Constant[value=<Tensor>]()
  %1 : Tensor = prim::Constant[value=<Tensor>]()
  %y : Tensor = aten::conv2d(%x, %0, %1, %s, %p, %s, %one)
  return (%y)
"""


def _bn_arrays(rng, o=3, c=2):
    return dict(w=rng.standard_normal((o, c, 1, 1)).astype(np.float32),
                gamma=rng.uniform(0.5, 1.5, o).astype(np.float32),
                beta=rng.uniform(-1, 1, o).astype(np.float32),
                mean=rng.uniform(-1, 1, o).astype(np.float32),
                var=rng.uniform(0.5, 2, o).astype(np.float32))


def _renumbered(text: str) -> str:
    """``text`` with the unnamed values numbered from 0 in order (the new
    constants' ids depend on the graph's counter)."""
    import re
    ids = {}
    return re.sub(r"%(\d+)\b", lambda m: "%" + ids.setdefault(m.group(1), str(len(ids))), text)


def test_a_batch_norm_folds_into_the_convolution_before_it():
    a = _bn_arrays(np.random.default_rng(0))
    g = _with_tensors(CONV_BN, **a)
    assert fold_batch_norm(g) == 1
    assert _renumbered(str(g)) == CONV_BN_FOLDED
    conv = next(n for n in g.nodes() if n.kind == "aten::conv2d")
    w, b = (n.node.attrs["value"].value() for n in conv.inputs[1:3])
    scale = a["gamma"].astype(np.float64) / np.sqrt(a["var"].astype(np.float64) + 1e-5)
    np.testing.assert_array_equal(w, (a["w"] * scale[:, None, None, None]).astype(np.float32))
    np.testing.assert_array_equal(b, (a["beta"] - a["mean"] * scale).astype(np.float32))
    assert w.dtype == b.dtype == np.float32


def test_the_folded_convolution_computes_the_batch_norm_of_the_convolution(loop):
    rng = np.random.default_rng(1)
    a = _bn_arrays(rng)
    x = rng.standard_normal((2, 2, 4, 4)).astype(np.float32)
    with inference.disabled():
        unfolded = pyjit.Function(pyjit.Code(_with_tensors(CONV_BN, **a)), loop=loop)(x)
    folded = pyjit.Function(pyjit.Code(_with_tensors(CONV_BN, **a)), loop=loop)(x)
    exact = np.einsum("nchw,oc->nohw", x.astype(np.float64), a["w"][:, :, 0, 0])
    exact = (exact - a["mean"][:, None, None]) / np.sqrt(a["var"][:, None, None] + 1e-5) \
        * a["gamma"][:, None, None] + a["beta"][:, None, None]
    for out in (unfolded, folded):
        assert out.dtype == np.float32
        assert np.abs(out - exact).max() <= 4 * ULP * np.abs(exact).max()


@pytest.mark.parametrize("change, why", [
    ("%training : bool = prim::Constant[value=1]()", "training: batch statistics"),
    ("%z2 : Tensor = aten::relu(%y)", "the convolution's output has a second use"),
    ("%w2 : Tensor = aten::relu_(%w)", "the weight is written into"),
])
def test_a_batch_norm_is_left_where_folding_is_not_exact(change, why):
    text = CONV_BN
    if change.startswith("%training"):
        text = text.replace("%training : bool = prim::Constant[value=0]()", change)
    else:
        text = text.replace("  return (%z)", f"  {change}\n  return (%z)")
    g = _with_tensors(text, **_bn_arrays(np.random.default_rng(0)))
    before = str(g)
    assert fold_batch_norm(g) == 0, why
    assert str(g) == before


def test_a_batch_norm_of_statistics_computed_at_run_time_is_left():
    text = CONV_BN.replace("graph(%x : Tensor):", "graph(%x : Tensor, %mean : Tensor):").replace(
        "  %mean : Tensor = prim::Constant[value=<Tensor>]()\n", "")
    g = _with_tensors(text, **_bn_arrays(np.random.default_rng(0)))
    assert fold_batch_norm(g) == 0


CONV_RELU = """graph(%x : Tensor,
      %w : Tensor):
  %none : NoneType = prim::Constant()
  %one : int = prim::Constant[value=1]()
  %s : int[] = prim::ListConstruct(%one, %one)
  %y : Tensor = aten::conv2d(%x, %w, %none, %s, %s, %s, %one)
  %z : Tensor = aten::relu_(%y)
  return (%z)
"""

CONV_RELU_FUSED = """graph(%x : Tensor,
      %w : Tensor):
  %none : NoneType = prim::Constant()
  %one : int = prim::Constant[value=1]()
  %s : int[] = prim::ListConstruct(%one, %one)
  %0 : int = prim::Constant[value=2]()
  %1 : str = prim::Constant[value="relu"]()
  %z : Tensor = pyjit::conv_act(%x, %w, %none, %s, %s, %s, %one, %0, %1)
  return (%z)
"""

LINEAR_GELU = """graph(%x : Tensor,
      %w : Tensor):
  %y : Tensor = aten::linear(%x, %w)
  %approximate : str = prim::Constant[value="tanh"]()
  %z : Tensor = aten::gelu(%y, %approximate)
  return (%z)
"""

LINEAR_GELU_FUSED = """graph(%x : Tensor,
      %w : Tensor):
  %0 : NoneType = prim::Constant()
  %1 : str = prim::Constant[value="gelu_tanh"]()
  %z : Tensor = pyjit::linear_act(%x, %w, %0, %1)
  return (%z)
"""


def test_an_activation_fuses_into_the_convolution_before_it():
    g = parse_ir(CONV_RELU)
    assert fuse_activations(g) == 1
    assert _renumbered(str(g)) == CONV_RELU_FUSED
    g = parse_ir(LINEAR_GELU)
    assert fuse_activations(g) == 1
    assert _renumbered(str(g)) == LINEAR_GELU_FUSED


@pytest.mark.parametrize("act, name", [
    ("aten::relu(%y)", "relu"), ("aten::relu6(%y)", "relu6"), ("aten::silu_(%y)", "silu"),
    ("aten::hardswish(%y)", "hardswish"), ("aten::gelu(%y)", "gelu"),
    ("aten::hardtanh_(%y, %lo, %hi)", "relu6")])
def test_each_activation_gives_what_the_two_nodes_give_bit_for_bit(loop, act, name):
    text = CONV_RELU.replace("aten::relu_(%y)", act).replace(
        "  %y : Tensor", "  %lo : float = prim::Constant[value=0.]()\n"
        "  %hi : float = prim::Constant[value=6.]()\n  %y : Tensor")
    g = parse_ir(text)
    assert fuse_activations(g.copy()) == 1
    assert f'value="{name}"' in str(pyjit.Code(g, optimize=True).graph)
    rng = np.random.default_rng(2)
    x = (rng.standard_normal((1, 3, 6, 6)) * 4).astype(np.float32)
    w = rng.standard_normal((4, 3, 3, 3)).astype(np.float32)
    with inference.disabled():
        apart = pyjit.Function(pyjit.Code(parse_ir(text)), loop=loop)(x, w)
    fused = pyjit.Function(pyjit.Code(parse_ir(text)), loop=loop)(x, w)
    np.testing.assert_array_equal(fused, apart)
    # float64 takes the operators' generic paths, fused or not
    with inference.disabled():
        apart = pyjit.Function(pyjit.Code(parse_ir(text)), loop=loop)(x.astype(np.float64), w.astype(np.float64))
    fused = pyjit.Function(pyjit.Code(parse_ir(text)), loop=loop)(x.astype(np.float64), w.astype(np.float64))
    assert fused.dtype == np.float64
    np.testing.assert_array_equal(fused, apart)


def test_an_activation_is_not_fused_where_the_output_is_seen_before_it():
    g = parse_ir(CONV_RELU.replace("return (%z)", "return (%z, %y)"))
    assert fuse_activations(g) == 0
    g = parse_ir(CONV_RELU.replace("aten::relu_(%y)", "aten::hardtanh(%y, %lo, %lo)").replace(
        "  %y : Tensor", "  %lo : float = prim::Constant[value=-1.]()\n  %y : Tensor"))
    assert fuse_activations(g) == 0   # hardtanh(-1, 1) is not relu6


TRANSPOSE = """graph(%x : Tensor):
  %w : Tensor = prim::Constant[value=<Tensor>]()
  %wt : Tensor = aten::t(%w)
  %two : int = prim::Constant[value=2]()
  %w2 : Tensor = aten::mul(%wt, %two)
  %y : Tensor = aten::matmul(%x, %w2)
  return (%y)
"""

TRANSPOSE_FOLDED = """graph(%x : Tensor):
  %w2 : Tensor = prim::Constant[value=<Tensor>]()
  %y : Tensor = aten::matmul(%x, %w2)
  return (%y)
"""


def test_a_chain_of_weight_transforms_folds_into_one_contiguous_constant():
    w = np.arange(6, dtype=np.float32).reshape(2, 3)
    g = _with_tensors(TRANSPOSE, w=w)
    default_registry.load_library()
    assert fold_constants(g, default_registry) == 2
    assert str(g) == TRANSPOSE_FOLDED
    folded = _array(g, "w2")
    np.testing.assert_array_equal(folded, w.T * 2)
    assert folded.flags.c_contiguous and folded.dtype == np.float32


def test_a_transform_of_a_tensor_written_into_is_left():
    g = _with_tensors(TRANSPOSE.replace("  return (%y)", "  %u : Tensor = aten::relu_(%wt)\n"
                                        "  return (%y)"), w=np.ones((2, 3), np.float32))
    assert fold_constants(g, default_registry) == 0


def test_the_passes_run_at_o1_only_and_not_when_disabled():
    a = _bn_arrays(np.random.default_rng(0))
    kinds = lambda code: sorted({n.kind for n in code.graph.all_nodes()} &  # noqa: E731
                                {"aten::batch_norm", "aten::conv2d"})
    assert kinds(pyjit.Code(_with_tensors(CONV_BN, **a), optimize=True)) == ["aten::conv2d"]
    assert kinds(pyjit.Code(_with_tensors(CONV_BN, **a), optimize=False)) == \
        ["aten::batch_norm", "aten::conv2d"]
    with inference.disabled():
        assert not inference.enabled()
        assert kinds(pyjit.Code(_with_tensors(CONV_BN, **a), optimize=True)) == \
            ["aten::batch_norm", "aten::conv2d"]
    assert inference.enabled()


# -- the models ------------------------------------------------------------------------------
ARRAYS = np.load(FIXTURES / "arrays.npz")

#: What the passes leave of each model at O1: (batch norms, conv_act, linear_act,
#: convolutions).
EXPECTED = {"cnn": (2, 5, 1, 1), "block": (0, 2, 0, 0)}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_a_frozen_model_gives_torchs_outputs_within_float32s_error(loop, name):
    module = pyjit.load(str(FIXTURES / f"{name}.pt"), loop=loop)
    out = module(ARRAYS[f"{name}/in0"])
    exact = ARRAYS[f"{name}/f64"]
    scale = np.abs(exact).max()
    assert out.dtype == np.float32 and out.shape == exact.shape
    for torch_out in (ARRAYS[f"{name}/f32"], ARRAYS[f"{name}/folded"]):
        assert np.abs(torch_out - exact).max() <= 1.5 * ULP * scale
    assert np.abs(out - exact).max() <= 4 * ULP * scale
    text = str(module.code.graph)
    counts = tuple(text.count(k) for k in ("aten::batch_norm", "pyjit::conv_act",
                                           "pyjit::linear_act", "aten::conv"))
    assert counts == (EXPECTED[name] if default_optimize() else
                      {"cnn": (6, 0, 0, 6), "block": (2, 0, 0, 2)}[name])


# -- freezing a loaded module ----------------------------------------------------------------
@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_a_frozen_eval_module_folds_as_torchs_frozen_one_and_gives_its_outputs(loop, name):
    module = pyjit.load(str(FIXTURES / f"{name}_eval.pt"), loop=loop)
    frozen = pyjit.freeze(module)
    x = ARRAYS[f"{name}/in0"]
    out, unfrozen = frozen(x), module(x)
    exact = ARRAYS[f"{name}/f64"]
    scale = np.abs(exact).max()
    assert np.abs(out - exact).max() <= 4 * ULP * scale
    assert np.abs(unfrozen - exact).max() <= 4 * ULP * scale
    text = str(frozen.code.graph)
    assert "prim::GetAttr" not in text and "prim::CallMethod" not in text
    counts = tuple(text.count(k) for k in ("aten::batch_norm", "pyjit::conv_act",
                                           "pyjit::linear_act", "aten::conv"))
    # what the passes leave of torch's frozen graph, they leave of pyjit's
    assert counts == (EXPECTED[name] if default_optimize() else
                      {"cnn": (6, 0, 0, 6), "block": (2, 0, 0, 2)}[name])


def test_a_frozen_method_sees_the_module_as_it_was_when_frozen():
    module = pyjit.load(str(FIXTURES / "block_eval.pt"))
    x = ARRAYS["block/in0"]
    frozen = pyjit.freeze(module)
    before = frozen(x)
    module.b1.training = module.b2.training = True   # batch statistics from now on
    assert np.abs(module(x) - before).max() > 0.1
    np.testing.assert_array_equal(frozen(x), before)
    training = pyjit.freeze(module)   # frozen in training mode: nothing folds
    text = str(training.code.graph)
    assert text.count("aten::batch_norm") == 2 and "pyjit::conv_act" not in text
    # the running statistics a training batch norm updates stay the module's
    assert text.count('prim::GetAttr[name="running_mean"]') == 2


def test_an_attribute_the_code_writes_stays_an_attribute():
    module = pyjit.load(str(Path(__file__).parent / "fixtures" / "archives" / "containers.pt"))
    x = np.ones((2, 4), np.float32)
    frozen = pyjit.freeze(module)
    assert 'prim::SetAttr[name="count"]' in str(frozen.code.graph)
    np.testing.assert_array_equal(frozen(x), module(x))
    assert module.count == 2          # one call each, both counted on the module


def test_freeze_refuses_what_it_cannot_freeze():
    with pytest.raises(TypeError, match="pyjit.freeze takes a module pyjit.load returned, "
                                        "not a int"):
        pyjit.freeze(3)
    module = pyjit.load(str(FIXTURES / "block_eval.pt"))
    with pytest.raises(AttributeError, match="object has no method 'backward' to freeze"):
        pyjit.freeze(module, "backward")
