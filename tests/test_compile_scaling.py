"""Compiling a graph (``parse_ir`` and ``Code``) takes time and memory linear in
its size, whatever its shape: a long chain, one value used by many nodes, one
node with many inputs, deep nesting (the shapes of
:mod:`pyjit.benchmarks.compile_scaling`, whose ``pyjit bench --compile`` measures
the large sizes).

Each check compiles a shape at n and at 4n and compares the best of five CPU
times: linear growth makes that ratio 4, quadratic growth 16, and the bound
sits between the two, far from both, so that neither a busy machine nor a
quadratic step that is cheap at these sizes decides the outcome.  Nothing
here compares a time with a fixed number.
"""

from __future__ import annotations

import gc
import json
import math
import time
import tracemalloc

import pytest

from pyjit import Function
from pyjit.benchmarks.compile_scaling import SHAPES, example, graph_text
from pyjit.cli import main as cli_main
from pyjit.code import Code
from pyjit.ir.parser import parse_ir

# n for each shape: big enough that the linear part dominates fixed costs, and
# small enough that 4n compiles in a fraction of a second.
SIZES = {"chain": 1000, "fanout": 1000, "width": 2000, "nesting": 100}
GROWTH = 4
BOUND = 8.0   # between GROWTH (linear) and GROWTH ** 2 (quadratic)


def _best_cpu_seconds(fn, repeat: int = 5) -> float:
    # (five, not three: a CI run with two suites at once once measured the
    # nesting's 4n at x8.1 of its n, which compiles in ~12 ms, where it takes
    # x2-x3 on a quiet machine; the best of more runs is what the code costs)
    best = math.inf
    for _ in range(repeat):
        gc.collect()
        t0 = time.process_time()
        fn()
        best = min(best, time.process_time() - t0)
    return max(best, 1e-6)


@pytest.mark.parametrize("shape", list(SHAPES))
def test_code_build_time_grows_linearly(shape):
    n = SIZES[shape]
    small = parse_ir(graph_text(shape, n))
    big = parse_ir(graph_text(shape, GROWTH * n))
    Code(small)  # the operator library is imported by the first build
    ratio = _best_cpu_seconds(lambda: Code(big)) / _best_cpu_seconds(lambda: Code(small))
    assert ratio < BOUND, f"Code() of {shape} x{GROWTH} took x{ratio:.1f} the time"


@pytest.mark.parametrize("shape", list(SHAPES))
def test_parse_time_grows_linearly_in_the_text(shape):
    # A nesting's text grows with the square of its depth (every line is
    # indented by it): the parse is linear in the text, which is what counts.
    n = SIZES[shape]
    small, big = graph_text(shape, n), graph_text(shape, GROWTH * n)
    text_ratio = len(big) / len(small)
    ratio = _best_cpu_seconds(lambda: parse_ir(big)) / _best_cpu_seconds(lambda: parse_ir(small))
    assert ratio < BOUND / GROWTH * text_ratio, \
        f"parse_ir of {shape}: x{text_ratio:.1f} the text took x{ratio:.1f} the time"


@pytest.mark.parametrize("shape", ["chain", "fanout"])
def test_compile_memory_grows_linearly(shape):
    def peak(n: int) -> int:
        text = graph_text(shape, n)
        gc.collect()
        tracemalloc.start()
        try:
            code = Code(parse_ir(text))
            return tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
            del code

    n = SIZES[shape]
    ratio = peak(GROWTH * n) / peak(n)
    assert ratio < BOUND / 1.5, f"compiling {shape} x{GROWTH} took x{ratio:.1f} the memory"


@pytest.mark.parametrize("shape", list(SHAPES))
def test_code_build_memory_grows_linearly(shape):
    # Code() alone, so that a nesting's text (quadratic in its depth) is not
    # counted: n nested Ifs once made the coalescer hold a path of up to n
    # branches per block.
    def peak(n: int) -> int:
        graph = parse_ir(graph_text(shape, n))
        gc.collect()
        tracemalloc.start()
        try:
            code = Code(graph)
            return tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
            del code

    # Nesting from 400 levels: 160,000 path entries, were it quadratic.
    n = SIZES[shape] * (GROWTH if shape == "nesting" else 1)
    ratio = peak(GROWTH * n) / peak(n)
    assert ratio < BOUND / 1.5, f"Code() of {shape} x{GROWTH} took x{ratio:.1f} the memory"


@pytest.mark.parametrize("shape", list(SHAPES))
@pytest.mark.parametrize("n", [1, 10, 11])
def test_the_benchmark_graphs_print_back_and_run(shape, n):
    text = graph_text(shape, n)
    graph = parse_ir(text)
    assert str(graph) == text
    args, result = example(shape, n)
    assert Function(graph)(*args) == result


def test_the_examples_are_what_the_graphs_compute():
    assert [example("chain", n)[1] for n in (1, 2)] == [-5, 5]
    assert example("fanout", 10) == ((1, 2), 21)
    assert example("width", 3) == ((0, 1, 2), 3)
    assert Function(parse_ir(graph_text("nesting", 3)))(False, 5) == 5  # the else-branch


def test_a_graph_has_a_shape_and_a_positive_size():
    with pytest.raises(ValueError, match="unknown shape 'spiral'; choose from chain, fanout"):
        graph_text("spiral", 10)
    with pytest.raises(ValueError, match="at least 1, got 0"):
        graph_text("chain", 0)


def test_pyjit_bench_compile_measures_in_a_child_process(capsys, tmp_path):
    path = tmp_path / "compile.json"
    assert cli_main(["bench", "--compile", "--case", "chain:300", "--json", str(path)]) == 0
    rows = [line.split() for line in capsys.readouterr().out.splitlines()
            if line.lstrip().startswith("chain ")]
    # each case two ways: the graph handed over to Code (as pyjit run does) and kept
    assert [row[:3] for row in rows] == [["chain", "300", "given"], ["chain", "300", "kept"]]
    given, kept = json.loads(path.read_text())["cases"]
    for res, way in ((given, "given"), (kept, "kept")):
        assert (res["shape"], res["n"], res["unit"], res["way"]) == ("chain", 300, "nodes", way)
        # the child compiled the same table as this process does
        assert res["instructions"] == len(Code(parse_ir(graph_text("chain", 300))))
        assert res["us_per_unit"] > 0 and res["peak_bytes"] >= res["baseline_bytes"] > 0


def test_a_way_to_compile_is_given_or_kept():
    from pyjit.benchmarks.compile_scaling import compile_text
    with pytest.raises(ValueError, match="a way to compile is one of given, kept, not 'moved'"):
        compile_text(graph_text("chain", 3), "moved")
    for way in ("given", "kept"):
        code, parse_s, build_s = compile_text(graph_text("chain", 3), way)
        assert len(code) > 0 and parse_s >= 0 and build_s >= 0


def test_pyjit_bench_compile_refuses_unknown_cases(capsys):
    assert cli_main(["bench", "--compile", "--case", "chain"]) == 1
    assert "a case is SHAPE:N with SHAPE one of chain, fanout, width, nesting, got 'chain'" \
        in capsys.readouterr().err
    assert cli_main(["bench", "--case", "chain:10"]) == 1
    assert "--case is for --compile" in capsys.readouterr().err
