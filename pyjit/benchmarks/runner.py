"""``pyjit bench``: run the workloads on every system, interleaved, and report.

How a workload is measured:

1. Every system runs it once and its result is compared with natural Python's
   (scalars exactly, arrays element for element); a system that disagrees stops the
   run with an error, since its timing would mean nothing.
2. Each system gets a repeat count so that one sample takes about ``sample_s``
   (a slow system: one call per sample).
3. Rounds: in each round every system takes one sample, in an order rotated from
   round to round, so that a burst of load from elsewhere on the machine hits
   all systems alike rather than one of them.  The collector runs between
   rounds and is off during a sample (as ``timeit`` does).
4. The reported time is the median over the rounds, per call and per operator
   the graph executes; the ratio is that median over ``pyjit``'s (pyjit as
   users run it: its own library, optimised, compiled loop).  Medians, because
   on a shared machine the noise is one-sided and bursty.
5. For the memory workload, each system runs once more under ``tracemalloc``,
   which reports the peak of memory allocated during the call.
6. After the last workload: a summary of all of them side by side, and the
   issues' targets checked on the medians (:mod:`.targets`).
"""

from __future__ import annotations

import gc
import json
import os
import platform
import statistics
import sys
import time
import tracemalloc
from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Sequence, TextIO

from . import targets
from .report import format_summary, format_targets, format_workload
from .systems import System, build_systems, natural_python, torch_version
from .workloads import WORKLOADS, Workload

__all__ = ["Settings", "QUICK", "FULL", "BenchmarkError", "run_workload", "run", "main",
           "machine_info"]


class BenchmarkError(ValueError):
    """A system computed something else than the reference: no timing is valid."""


@dataclass(frozen=True)
class Settings:
    rounds: int          # rounds when time allows
    min_rounds: int      # rounds whatever the time
    sample_s: float      # target duration of one sample
    budget_s: float      # rough time allowed per workload


QUICK = Settings(rounds=5, min_rounds=3, sample_s=0.005, budget_s=5.0)
FULL = Settings(rounds=25, min_rounds=5, sample_s=0.05, budget_s=60.0)

class Progress:
    """One line on stderr, rewritten in place on a terminal.  Elsewhere (a log
    file, a CI job) a line per phase: the text up to its first comma."""

    def __init__(self, stream: Optional[TextIO] = None) -> None:
        self.stream = stream if stream is not None else sys.stderr
        self.tty = hasattr(self.stream, "isatty") and self.stream.isatty()
        self.width = 0
        self.phase = ""

    def __call__(self, text: str) -> None:
        if self.tty:
            self.stream.write("\r" + text.ljust(self.width))
            self.width = len(text)
        else:
            phase = text.split(",")[0]
            if phase == self.phase:
                return
            self.phase = phase
            self.stream.write(phase + "\n")
        self.stream.flush()

    def done(self) -> None:
        if self.tty and self.width:
            self.stream.write("\r" + " " * self.width + "\r")
            self.stream.flush()
        self.width = 0


def _sample(fn, args: tuple, number: int) -> float:
    """Seconds per call, over ``number`` calls, with the collector off."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        t0 = time.perf_counter_ns()
        for _ in range(number):
            fn(*args)
        return (time.perf_counter_ns() - t0) / number / 1e9
    finally:
        if enabled:
            gc.enable()


def _peak_bytes(fn, args: tuple) -> int:
    """Peak memory allocated during one call, as tracemalloc sees it."""
    gc.collect()
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        base = tracemalloc.get_traced_memory()[0]
        result = fn(*args)
        peak = tracemalloc.get_traced_memory()[1] - base
        del result
    finally:
        tracemalloc.stop()
    return peak


def run_workload(w: Workload, settings: Settings, *, systems: Optional[Sequence[str]] = None,
                 progress=None, label: str = "") -> Dict[str, Any]:
    """Check and time every system on ``w``; return the JSON-able result."""
    say = progress or (lambda text: None)
    label = label or w.name
    args = w.make_args()
    say(f"{label}: building the systems")
    built = build_systems(w, systems)
    reference = natural_python(w)(*args)

    runnable: List[System] = []
    converted: Dict[str, tuple] = {}
    per_call: Dict[str, float] = {}
    for s in built:
        if s.fn is None:
            continue
        say(f"{label}: checking the results, {s.label}")
        a = s.convert_args(args)
        t0 = time.perf_counter()
        result = s.convert_result(s.fn(*a))
        first = time.perf_counter() - t0
        if not w.same(result, reference):
            raise BenchmarkError(f"{w.name}: {s.label} computed {_show(result)}, "
                                 f"natural Python {_show(reference)}")
        del result
        # A second call, warm, sizes the samples (the first may compile); a call
        # that is a sample by itself already needs no second one.
        per_call[s.key] = first if first >= settings.sample_s else min(first, _sample(s.fn, a, 1))
        converted[s.key] = a
        runnable.append(s)

    number = {k: max(1, round(settings.sample_s / t)) for k, t in per_call.items()}
    round_s = sum(number[k] * per_call[k] for k in number) or 1e-9
    rounds = max(settings.min_rounds, min(settings.rounds, int(settings.budget_s / round_s)))
    samples: Dict[str, List[float]] = {s.key: [] for s in runnable}
    for r in range(rounds):
        gc.collect()
        shift = r % len(runnable) if runnable else 0
        for s in runnable[shift:] + runnable[:shift]:
            say(f"{label}: round {r + 1}/{rounds}, {s.label}")
            samples[s.key].append(_sample(s.fn, converted[s.key], number[s.key]))

    peaks: Dict[str, Optional[int]] = {}
    if w.measure_memory:
        for s in runnable:
            say(f"{label}: measuring peak memory, {s.label}")
            peaks[s.key] = None if s.key == "torchscript" else _peak_bytes(s.fn, converted[s.key])

    medians = {k: statistics.median(v) for k, v in samples.items()}
    # pyjit as users run it; where the core is not built, its pure twin.
    base_key = next((k for k in ("pyjit", "pyjit-pure") if k in medians), None)
    base = medians.get(base_key) if base_key else None
    rows = []
    for s in built:
        row: Dict[str, Any] = {"key": s.key, "label": s.label, "note": s.note}
        if s.key in medians:
            row["s_per_call"] = medians[s.key]
            row["ns_per_op"] = medians[s.key] * 1e9 / w.n_ops
            row["ratio"] = medians[s.key] / base if base else None
            row["samples_ns_per_op"] = [t * 1e9 / w.n_ops for t in samples[s.key]]
            row["calls_per_sample"] = number[s.key]
            if w.measure_memory:
                row["peak_bytes"] = peaks.get(s.key)
                if s.key == "torchscript":
                    row["note"] = ("; ".join(filter(None, [s.note, "torch's allocator is "
                                                           "not seen by tracemalloc"])))
        else:
            row["skipped"] = True
        rows.append(row)
    skipped = {s.key: s.note for s in built if s.fn is None}
    return {"name": w.name, "title": w.title, "operators_per_call": w.n_ops,
            "straight_line": w.straight_line, "rounds": rounds, "baseline": base_key,
            "params": dict(w.params), "systems": rows,
            "targets": targets.check(w.name, w.straight_line, medians, skipped)}


def _show(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


# -- reporting ------------------------------------------------------------------

def machine_info(torch: bool = True) -> Dict[str, Any]:
    """What the numbers were measured on; with ``torch=False`` torch's version is
    not asked for (importing torch takes seconds and hundreds of megabytes)."""
    import numpy
    from .. import __version__, _backend
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    try:
        core = _backend.compiled()
        backend = f"pyjit._core (Cython {getattr(core, 'CYTHON_VERSION', '?')})"
    except ImportError:
        backend = "not built"
    return {"cpu": cpu, "cpus": os.cpu_count(), "platform": platform.platform(),
            "python": f"{platform.python_implementation()} {platform.python_version()}",
            "numpy": numpy.__version__, "pyjit": __version__, "compiled_core": backend,
            "torch": torch_version() if torch else None}


def run(names: Optional[Sequence[str]] = None, *, quick: bool = False,
        systems: Optional[Sequence[str]] = None, out: Optional[TextIO] = None,
        progress: Optional[Progress] = None) -> Dict[str, Any]:
    """Run the named workloads (all by default), print their tables to ``out``,
    and return everything as a JSON-able dict."""
    out = out if out is not None else sys.stdout
    names = list(WORKLOADS) if not names else list(names)
    for name in names:
        if name not in WORKLOADS:
            raise ValueError(f"unknown workload {name!r}; choose from {', '.join(WORKLOADS)}")
    settings = QUICK if quick else FULL
    progress = progress or Progress()
    info = machine_info()
    print(f"pyjit bench{' --quick' if quick else ''}: {info['cpu']}, {info['cpus']} CPUs, "
          f"{info['python']}, numpy {info['numpy']}, torch {info['torch'] or 'not installed'}",
          file=out)
    print(f"compiled core: {info['compiled_core']}.  per call: the median over "
          "interleaved rounds; ns/op: that over the operators the graph executes; ratio: "
          "that over pyjit's (higher is slower).  pyjit: Function(graph) with its own "
          "operator library, optimised, on the compiled loop, as users run it; -O0: the "
          "seed's table; 'shared ops': the interpreter-only measurement, every such "
          "system calling the same plain callables (operator.add, numpy.multiply).  "
          "Medians resist the noise of a shared machine, they do not remove it.", file=out)
    results = []
    start = time.perf_counter()
    try:
        for i, name in enumerate(names):
            w = WORKLOADS[name]()
            res = run_workload(w, settings, systems=systems, progress=progress,
                               label=f"[{i + 1}/{len(names)}] {name}")
            progress.done()
            print("\n" + format_workload(res), file=out, flush=True)
            results.append(res)
    finally:
        progress.done()
    checks = [c for res in results for c in res["targets"]]
    print("\n" + format_summary(results), file=out)
    print("\n" + format_targets(checks), file=out, flush=True)
    return {"machine": info, "quick": quick, "settings": settings.__dict__,
            "seconds": time.perf_counter() - start, "workloads": results, "targets": checks}


def main(ns) -> int:
    """The ``pyjit bench`` command: ``ns`` has ``quick``, ``json`` and ``only``.
    ``json`` names the file to write the results to; ``-`` writes them to
    standard output, and the tables go to standard error instead."""
    path = getattr(ns, "json", None)
    to_stdout = path == "-"
    report = run(getattr(ns, "only", None), quick=bool(getattr(ns, "quick", False)),
                 out=sys.stderr if to_stdout else None)
    if to_stdout:
        json.dump(report, sys.stdout, indent=2)
        sys.stdout.write("\n")
    elif path:
        with open(path, "w", encoding="utf-8") as f:
            json.dump(report, f, indent=2)
            f.write("\n")
    return 0
