"""``pyjit bench --models``: real models, saved by torch, run by pyjit against torch.

Each model of :data:`MODELS` is a torch ``nn.Module`` built from a fixed seed,
scripted and saved with ``torch.jit.save`` (:func:`generate`; ``python
bench/models/generate.py`` in the source tree), a frozen one
(:attr:`Model.frozen`) after ``torch.jit.freeze``, which makes its weights
constants and folds its batch norms into its convolutions.  The small ones are committed in
``bench/models/``; the big ones (resnet18's archive is 45 MB) are made on demand
into :func:`cache_dir` when torch is importable.  A model is measured on:

* ``pyjit``: ``pyjit.load(archive)``, the compiled loop and the float32 kernels;
* ``pyjit-float64``: the same module with the kernels off
  (:func:`pyjit.ops.kernels.disabled`), every operator on its generic path that
  computes in double: pyjit before the kernels, in the same run;
* ``eager``: the ``nn.Module`` itself (when torch is importable);
* ``torchscript``: ``torch.jit.load(archive)``;
* ``onnxruntime``: the eager module exported by ``torch.onnx.export`` (the
  TorchScript-based exporter, opset 17) and run by an onnxruntime
  ``InferenceSession`` on one thread, where onnxruntime (and onnx) are
  installed; a model that does not export is noted and left out.

Everyone runs on one thread: the BLAS libraries read their thread counts when
they load, so :func:`main` runs the benchmark in a fresh interpreter whose
environment sets them to 1 (``OMP_NUM_THREADS``, ``OPENBLAS_NUM_THREADS``,
``MKL_NUM_THREADS``) unless they already are, and calls
``torch.set_num_threads(1)``.  Samples are interleaved, one per system per
round, in an order rotated from round to round (a sample of a fast model is
several calls), and the median per call is reported with its ratio to
torch's.  The first call (load and run, which compiles) is timed
apart.  ``--profile`` then runs each model once under :func:`pyjit.profile`
and prints the operators that took the time.
"""

from __future__ import annotations

import gc
import json
import os
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

import numpy as np

__all__ = ["MODELS", "Model", "cache_dir", "generate", "archive_path", "measure", "main",
           "THREAD_VARIABLES", "SAMPLE_S"]

#: The variables BLAS and OpenMP read their thread counts from when they load.
THREAD_VARIABLES = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")

#: Where the committed small archives are: ``bench/models`` of the source tree,
#: or the directory ``PYJIT_BENCH_MODELS`` names (an installed pyjit has no
#: bench/; its tests name the one of the tree they come from).
COMMITTED = Path(os.environ.get("PYJIT_BENCH_MODELS") or
                 Path(__file__).resolve().parents[2] / "bench" / "models")


@dataclass(frozen=True)
class Model:
    """One benchmark model: how torch builds it, the inputs' shapes, and whether
    its archive is small enough to commit."""

    name: str
    build: Callable[[], Any]          # () -> nn.Module, torch imported, seed set
    inputs: Tuple[Tuple[int, ...], ...]
    small: bool = False
    note: str = ""
    #: saved after ``torch.jit.freeze``: parameters inlined as constants, batch
    #: norms folded into their convolutions by torch
    frozen: bool = False


def _torchvision(name: str, family: str = "", **kw):
    """A torchvision model's constructor, of ``torchvision.models`` or of its
    ``family`` module (``video``), with random weights."""
    def build():
        import importlib
        module = importlib.import_module("torchvision.models" + (f".{family}" if family else ""))
        return getattr(module, name)(weights=None, **kw)
    return build


def _vit_s16():
    import torchvision
    # ViT-S/16's shape (DeiT-S): 12 layers of width 384, 6 heads
    return torchvision.models.VisionTransformer(image_size=224, patch_size=16, num_layers=12,
                                                num_heads=6, hidden_dim=384, mlp_dim=1536)


def _first_output(module_type: str, *args, **kw):
    """An ``nn.<module_type>`` whose forward returns only its first output (the
    sequence; an LSTM's state and attention's weights are left out)."""
    def build():
        import torch

        class FirstOutput(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.inner = getattr(torch.nn, module_type)(*args, **kw)

            def forward(self, x):
                return self.inner(x)[0]
        return FirstOutput()
    return build


def _mha():
    import torch

    class SelfAttention(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.attn = torch.nn.MultiheadAttention(128, 4, batch_first=True)

        def forward(self, x):
            return self.attn(x, x, x, need_weights=False)[0]
    return SelfAttention()


def _decoder():
    import torch
    layer = torch.nn.TransformerDecoderLayer(128, 4, 512, batch_first=True, dropout=0.0)
    return torch.nn.TransformerDecoder(layer, 2)


_IMAGE = ((1, 3, 224, 224),)

#: The models, in the order of the table.
MODELS: Dict[str, Model] = {m.name: m for m in [
    Model("resnet18", _torchvision("resnet18"), _IMAGE),
    Model("mobilenet_v2", _torchvision("mobilenet_v2"), _IMAGE),
    Model("mobilenet_v3_small", _torchvision("mobilenet_v3_small"), _IMAGE),
    Model("efficientnet_b0", _torchvision("efficientnet_b0"), _IMAGE),
    Model("mnasnet0_5", _torchvision("mnasnet0_5"), _IMAGE),
    Model("regnet_y_400mf", _torchvision("regnet_y_400mf"), _IMAGE),
    Model("squeezenet1_1", _torchvision("squeezenet1_1"), _IMAGE),
    Model("shufflenet_v2_x1_0", _torchvision("shufflenet_v2_x1_0"), _IMAGE),
    Model("vit_s_16", _vit_s16, _IMAGE, note="ViT-S/16: torchvision's VisionTransformer"),
    Model("swin_t", _torchvision("swin_t"), _IMAGE),
    Model("r3d_18", _torchvision("r3d_18", "video"), ((1, 3, 8, 112, 112),),
          note="torchvision's video ResNet, 8 frames of 112x112"),
    Model("resnet18_frozen", _torchvision("resnet18"), _IMAGE, frozen=True),
    Model("mobilenet_v2_frozen", _torchvision("mobilenet_v2"), _IMAGE, frozen=True),
    Model("lstm", _first_output("LSTM", 64, 64, num_layers=2, batch_first=True),
          ((1, 32, 64),), small=True),
    Model("gru", _first_output("GRU", 64, 64, num_layers=2, batch_first=True),
          ((1, 32, 64),), small=True),
    Model("multihead_attention", _mha, ((1, 49, 128),), small=True),
    Model("transformer_decoder", _decoder, ((1, 20, 128), (1, 30, 128))),
]}


def cache_dir() -> Path:
    """Where archives too big to commit are made: ``$PYJIT_BENCH_MODELS``, else
    ``~/.cache/pyjit/models``."""
    env = os.environ.get("PYJIT_BENCH_MODELS")
    return Path(env) if env else Path.home() / ".cache" / "pyjit" / "models"


def archive_path(model: Model) -> Path:
    """The archive's path: the committed one for a small model in a source tree,
    else in :func:`cache_dir`."""
    if model.small and (COMMITTED / f"{model.name}.pt").exists():
        return COMMITTED / f"{model.name}.pt"
    return cache_dir() / f"{model.name}.pt"


def build_eager(model: Model):
    """The model as torch builds it: ``torch.manual_seed(0)``, then its builder, in
    eval mode: the same weights every time.  A parameter initialised to zeros
    (ViT's head, attention's biases) is drawn from N(0, 0.02) instead, so that
    the outputs compared are not all 0."""
    import torch
    torch.manual_seed(0)
    module = model.build().eval()
    with torch.no_grad():
        for p in module.parameters():
            if not p.any():
                p.normal_(0, 0.02)
    return module


def generate(names: Sequence[str], directory: Optional[Path] = None) -> List[Path]:
    """Script and save each named model (torch needed) into ``directory``
    (default: the committed directory for a small model, :func:`cache_dir` for
    the others); returns the paths written."""
    import torch
    written = []
    for name in names:
        model = MODELS[name]
        target = directory or (COMMITTED if model.small else cache_dir())
        target.mkdir(parents=True, exist_ok=True)
        path = target / f"{name}.pt"
        scripted = torch.jit.script(build_eager(model))
        if model.frozen:
            scripted = torch.jit.freeze(scripted)
        torch.jit.save(scripted, str(path))
        written.append(path)
    return written


def inputs_for(model: Model) -> List[np.ndarray]:
    """The model's float32 inputs, from a fixed seed."""
    rng = np.random.default_rng(0)
    return [rng.standard_normal(shape).astype(np.float32) for shape in model.inputs]


@dataclass
class Result:
    """One model's measurement: median and first-call seconds per system, the
    largest difference of pyjit's output from eager torch's (relative to the
    output's largest magnitude), and notes."""

    name: str
    median_s: Dict[str, float] = field(default_factory=dict)
    first_s: Dict[str, float] = field(default_factory=dict)
    max_diff: Optional[float] = None
    notes: List[str] = field(default_factory=list)


def _timed(fn: Callable[[], Any]) -> Tuple[float, Any]:
    start = time.perf_counter()
    out = fn()
    return time.perf_counter() - start, out


def _systems(model: Model, path: Path, result: Result) -> Dict[str, Callable[[], Any]]:
    """The callables to time, each of no arguments, made (and first-called) here."""
    import pyjit
    from ..ops import kernels
    args = inputs_for(model)
    first, module = _timed(lambda: pyjit.load(str(path)))
    t, out = _timed(lambda: module(*args))
    result.first_s["pyjit"] = first + t
    systems: Dict[str, Callable[[], Any]] = {"pyjit": lambda: module(*args)}

    def reference():
        with kernels.disabled():
            return module(*args)
    systems["pyjit-float64"] = reference
    try:
        import torch
    except ImportError as exc:
        result.notes.append(f"torch is not importable ({type(exc).__name__}): pyjit alone")
        return systems
    torch.set_num_threads(1)
    targs = [torch.from_numpy(a) for a in args]
    eager = build_eager(model)
    with torch.inference_mode():
        expected = eager(*targs).numpy()
    scale = float(np.abs(expected).max()) or 1.0
    result.max_diff = float(np.abs(np.asarray(out) - expected).max()) / scale
    first, loaded = _timed(lambda: torch.jit.load(str(path)).eval())
    with torch.inference_mode():
        t, _ = _timed(lambda: loaded(*targs))
    result.first_s["torchscript"] = first + t

    def run_eager():
        with torch.inference_mode():
            return eager(*targs)

    def run_scripted():
        with torch.inference_mode():
            return loaded(*targs)
    systems["eager"] = run_eager
    systems["torchscript"] = run_scripted
    ort = _onnxruntime(eager, targs, model, result)
    if ort is not None:
        systems["onnxruntime"] = ort
    return systems


def _onnxruntime(eager, targs, model: Model, result: Result) -> Optional[Callable[[], Any]]:
    """The model exported to ONNX and run by onnxruntime on one thread, or None
    (onnxruntime not installed, or the model does not export: noted)."""
    try:
        import onnxruntime
    except ImportError:
        return None
    import tempfile
    import torch
    with tempfile.TemporaryDirectory() as tmp:
        onnx_path = os.path.join(tmp, f"{model.name}.onnx")
        try:
            torch.onnx.export(eager, tuple(targs), onnx_path, dynamo=False, opset_version=17)
        except Exception as exc:  # what the exporter refuses is a fact about the model
            result.notes.append(f"onnxruntime: the model does not export "
                                f"({type(exc).__name__}: {str(exc).splitlines()[0][:120]})")
            return None
        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = options.inter_op_num_threads = 1
        session = onnxruntime.InferenceSession(onnx_path, options,
                                               providers=["CPUExecutionProvider"])
    feed = {i.name: t.numpy() for i, t in zip(session.get_inputs(), targs)}
    return lambda: session.run(None, feed)


#: The least duration of one sample: a model faster than this is called several
#: times a sample, so that a burst of load from elsewhere is averaged in it.
SAMPLE_S = 0.02


def measure(model: Model, rounds: int, path: Optional[Path] = None) -> Result:
    """Time every system on ``model``: two warm-up calls each (pyjit's second
    builds the module's methods specialised for it: :mod:`pyjit.archive.specialize`),
    the second timed to say how many calls make a sample, then ``rounds``
    rounds of one sample per system, interleaved and rotated; a sample is as
    many calls as make :data:`SAMPLE_S` (one for a slow system), and the
    median is per call."""
    result = Result(model.name)
    systems = _systems(model, path or archive_path(model), result)
    names = list(systems)
    for fn in systems.values():
        fn()
    repeats = {n: max(1, int(SAMPLE_S / max(_timed(fn)[0], 1e-6))) for n, fn in
               systems.items()}
    samples: Dict[str, List[float]] = {n: [] for n in names}
    gc.collect()
    for r in range(rounds):
        order = names[r % len(names):] + names[:r % len(names)]
        for n in order:
            fn, k = systems[n], repeats[n]
            start = time.perf_counter()
            for _ in range(k):
                fn()
            samples[n].append((time.perf_counter() - start) / k)
    result.median_s = {n: statistics.median(v) for n, v in samples.items()}
    return result


def profile_rows(model: Model, path: Optional[Path] = None, limit: int = 6):
    """The operators taking pyjit's time on ``model`` (one profiled call after a
    warm-up): ``[(kind, share, ms)]``, the largest first."""
    import pyjit
    module = pyjit.load(str(path or archive_path(model)))
    args = inputs_for(model)
    module(*args)
    with pyjit.profile() as prof:
        module(*args)
    by_kind: Dict[str, int] = {}
    for rec in prof.records():
        by_kind[rec.kind] = by_kind.get(rec.kind, 0) + rec.total_ns
    total = sum(by_kind.values()) or 1
    rows = sorted(by_kind.items(), key=lambda kv: -kv[1])[:limit]
    return [(kind, ns / total, ns / 1e6) for kind, ns in rows]


def _ratio(result: Result, system: str, over: str = "pyjit") -> Optional[float]:
    a, b = result.median_s.get(over), result.median_s.get(system)
    return a / b if a and b else None


def _fmt(v: Optional[float], unit: str = "x") -> str:
    return "-" if v is None else (f"{v:.2f}{unit}" if unit == "x" else f"{v * 1e3:.1f}")


def format_table(results: Sequence[Result]) -> str:
    """The table: median ms per system, then pyjit's time over eager torch's,
    over TorchScript's and over its own float64 path's, the first calls and
    the output's largest difference from eager torch's, relative to its largest
    magnitude."""
    head = ["model", "pyjit ms", "float64 ms", "eager ms", "script ms", "ort ms", "/eager",
            "/script", "/ort", "/float64", "first pyjit ms", "first script ms", "rel. diff"]
    rows = [head]
    for r in results:
        m = r.median_s
        rows.append([r.name, _fmt(m.get("pyjit"), "ms"), _fmt(m.get("pyjit-float64"), "ms"),
                     _fmt(m.get("eager"), "ms"), _fmt(m.get("torchscript"), "ms"),
                     _fmt(m.get("onnxruntime"), "ms"),
                     _fmt(_ratio(r, "eager")), _fmt(_ratio(r, "torchscript")),
                     _fmt(_ratio(r, "onnxruntime")),
                     _fmt(_ratio(r, "pyjit-float64")), _fmt(r.first_s.get("pyjit"), "ms"),
                     _fmt(r.first_s.get("torchscript"), "ms"),
                     "-" if r.max_diff is None else f"{r.max_diff:.1e}"])
    widths = [max(len(row[i]) for row in rows) for i in range(len(head))]
    lines = ["  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in
                       enumerate(zip(row, widths))) for row in rows]
    for system in ("eager", "torchscript", "onnxruntime", "pyjit-float64"):
        ratios = [x for x in (_ratio(r, system) for r in results) if x]
        if ratios:
            g = float(np.exp(np.mean(np.log(ratios))))
            lines.append(f"geometric mean of pyjit's time over {system}'s: {g:.2f}x "
                         f"({len(ratios)} models), largest {max(ratios):.2f}x")
    return "\n".join(lines)


def _single_threaded_or_reexec(argv: Sequence[str]) -> Optional[int]:
    """None when every thread variable is 1 already; else the exit status of this
    command run again in an interpreter whose environment sets them."""
    if all(os.environ.get(v) == "1" for v in THREAD_VARIABLES):
        return None
    env = dict(os.environ, **{v: "1" for v in THREAD_VARIABLES})
    return subprocess.call([sys.executable, "-m", "pyjit", *argv], env=env)


def main(ns, argv: Optional[Sequence[str]] = None) -> int:
    """``pyjit bench --models [--only NAME] [--quick] [--json FILE] [--profile]``."""
    status = _single_threaded_or_reexec(sys.argv[1:] if argv is None else argv)
    if status is not None:
        return status
    names = ns.only or list(MODELS)
    unknown = [n for n in names if n not in MODELS]
    if unknown:
        raise ValueError(f"no benchmark model named {', '.join(unknown)}; the models are "
                         f"{', '.join(MODELS)}")
    rounds = 5 if ns.quick else 15
    out = sys.stderr if ns.json == "-" else sys.stdout
    try:
        import torch  # noqa: F401
        have_torch = True
    except ImportError:
        have_torch = False
    results = []
    print(f"models, single-threaded ({', '.join(f'{v}=1' for v in THREAD_VARIABLES)}), "
          f"{rounds} rounds; load average {os.getloadavg()[0]:.2f}", file=out)
    for name in names:
        model = MODELS[name]
        path = archive_path(model)
        if not path.exists():
            if not have_torch:
                print(f"{name}: skipped: {path} is not there, and making it needs torch",
                      file=out)
                continue
            print(f"{name}: making {path}", file=out)
            generate([name], path.parent)
        result = measure(model, rounds, path)
        results.append(result)
        print(f"{name}: pyjit {_fmt(result.median_s['pyjit'], 'ms')} ms, over eager "
              f"{_fmt(_ratio(result, 'eager'))}", file=out, flush=True)
        if getattr(ns, "profile", False):
            for kind, share, ms in profile_rows(model, path):
                print(f"    {kind:<32} {share:6.1%} {ms:8.2f} ms", file=out)
    print(format_table(results), file=out)
    for r in results:
        for note in r.notes:
            print(f"{r.name}: {note}", file=out)
    print(f"load average after: {os.getloadavg()[0]:.2f}", file=out)
    if ns.json:
        data = [dict(name=r.name, median_s=r.median_s, first_s=r.first_s,
                     max_diff=r.max_diff, notes=r.notes) for r in results]
        if ns.json == "-":
            json.dump(data, sys.stdout, indent=1)
        else:
            Path(ns.json).write_text(json.dumps(data, indent=1))
    return 0
