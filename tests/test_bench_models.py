"""``pyjit bench --models`` (pyjit/benchmarks/models.py): the models are there or
made on demand, each is measured on every system available in one interleaved
run, and the command prints its table.  No timing is asserted: the numbers are
the command's output.  The committed small models (bench/models/*.pt) run here
without torch, on pyjit and its float64 path."""

from __future__ import annotations

import json

import numpy as np
import pytest

from pyjit import cli
from pyjit.benchmarks import models as M

from helpers.subprocesses import CHECKOUT


@pytest.fixture(autouse=True)
def committed_models(monkeypatch):
    """The small archives of this tree's bench/models, for an installed pyjit too
    (an unpacked sdist's suite runs the pyjit installed from it)."""
    here = CHECKOUT / "bench" / "models"
    monkeypatch.setenv("PYJIT_BENCH_MODELS", str(here))
    monkeypatch.setattr(M, "COMMITTED", here)


@pytest.fixture
def single_threaded(monkeypatch):
    """The environment the benchmark asks for, so that it runs in this process."""
    for name in M.THREAD_VARIABLES:
        monkeypatch.setenv(name, "1")


def test_the_models_of_the_issue_are_there_and_only_small_archives_are_committed():
    # the issue's seventeen: eleven of torchvision, four of torch.nn, two frozen
    assert list(M.MODELS) == [
        "resnet18", "mobilenet_v2", "mobilenet_v3_small", "efficientnet_b0", "mnasnet0_5",
        "regnet_y_400mf", "squeezenet1_1", "shufflenet_v2_x1_0", "vit_s_16", "swin_t", "r3d_18",
        "resnet18_frozen", "mobilenet_v2_frozen", "lstm", "gru", "multihead_attention",
        "transformer_decoder"]
    assert [n for n, m in M.MODELS.items() if m.frozen] == ["resnet18_frozen",
                                                            "mobilenet_v2_frozen"]
    committed = sorted(p.stem for p in M.COMMITTED.glob("*.pt"))
    assert committed == sorted(n for n, m in M.MODELS.items() if m.small)
    for name in committed:
        assert (M.COMMITTED / f"{name}.pt").stat().st_size < 1_000_000
        assert M.archive_path(M.MODELS[name]) == M.COMMITTED / f"{name}.pt"


def test_big_archives_are_made_into_the_cache_directory(monkeypatch, tmp_path):
    monkeypatch.setenv("PYJIT_BENCH_MODELS", str(tmp_path))
    assert M.cache_dir() == tmp_path
    assert M.archive_path(M.MODELS["resnet18"]) == tmp_path / "resnet18.pt"


def test_inputs_are_float32_from_a_fixed_seed():
    a, b = M.inputs_for(M.MODELS["transformer_decoder"]), \
        M.inputs_for(M.MODELS["transformer_decoder"])
    assert [x.shape for x in a] == [(1, 20, 128), (1, 30, 128)]
    assert all(x.dtype == np.float32 for x in a)
    np.testing.assert_array_equal(a[0], b[0])


@pytest.mark.parametrize("name", ["gru", "lstm", "multihead_attention"])
def test_a_committed_model_is_measured_on_pyjit_and_its_float64_path(name):
    result = M.measure(M.MODELS[name], rounds=2)
    assert {"pyjit", "pyjit-float64"} <= set(result.median_s)
    assert all(v > 0 for v in result.median_s.values())
    assert result.first_s["pyjit"] > 0


def test_the_float64_path_gives_the_same_outputs_within_float32_rounding():
    import pyjit
    from pyjit.ops import kernels
    model = M.MODELS["lstm"]
    module = pyjit.load(str(M.archive_path(model)))
    args = M.inputs_for(model)
    fast = module(*args)
    with kernels.disabled():
        assert not kernels.is_float32(args[0])
        slow = module(*args)
    assert kernels.is_float32(args[0])
    np.testing.assert_allclose(fast, slow, rtol=1e-5, atol=1e-6)


def test_the_table_has_the_ratios_and_their_geometric_means():
    a = M.Result("a", {"pyjit": 0.002, "pyjit-float64": 0.008, "eager": 0.001,
                       "torchscript": 0.004, "onnxruntime": 0.0016},
                 {"pyjit": 0.5, "torchscript": 0.25}, 1e-7)
    b = M.Result("b", {"pyjit": 0.003, "pyjit-float64": 0.006, "eager": 0.003})
    text = M.format_table([a, b])
    row_a = next(line for line in text.splitlines() if line.startswith("a "))
    assert row_a.split()[5] == "1.6"               # onnxruntime's ms
    assert row_a.split()[6:10] == ["2.00x", "0.50x", "1.25x", "0.25x"]
    row_b = next(line for line in text.splitlines() if line.startswith("b "))
    assert row_b.split()[5] == "-" and row_b.split()[8] == "-"   # no onnxruntime
    assert "geometric mean of pyjit's time over eager's: 1.41x (2 models), largest 2.00x" \
        in text
    assert "over torchscript's: 0.50x (1 models)" in text
    assert "over onnxruntime's: 1.25x (1 models)" in text


def test_the_command_runs_and_writes_json(single_threaded, tmp_path, capsys):
    path = tmp_path / "out.json"
    assert cli.main(["bench", "--models", "--quick", "--only", "gru", "--profile",
                     "--json", str(path)]) == 0
    out = capsys.readouterr().out
    assert "aten::gru" in out  # the profile's rows
    assert "gru" in out and "geometric mean of pyjit's time over pyjit-float64's" in out
    data = json.loads(path.read_text())
    assert [d["name"] for d in data] == ["gru"]


def test_an_unknown_model_is_an_error(single_threaded, capsys):
    assert cli.main(["bench", "--models", "--only", "alexnet"]) == 1
    assert "no benchmark model named alexnet" in capsys.readouterr().err
