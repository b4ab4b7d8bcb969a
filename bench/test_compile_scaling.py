"""pytest-benchmark runs of compiling: ``parse_ir`` and ``Code()`` by graph shape
and size, the cases of ``pyjit bench --compile``.

    pytest bench --benchmark-only -k compile            # every case
    pytest bench --benchmark-only -k "compile and fanout"

One group per shape; each benchmark times parsing and building the case's text
in this process, checks that the Code computes what the graph should, and
records in ``extra_info`` the time per unit of n and the peak memory that
compiling the case takes in a process of its own (as ``pyjit bench --compile``
measures it).  The shapes and sizes are :mod:`pyjit.benchmarks.compile_scaling`'s.
"""

from __future__ import annotations

import pytest

from pyjit import InterpreterState
from pyjit.benchmarks.compile_scaling import CASES, SHAPES, compile_text, example, graph_text, measure


@pytest.mark.parametrize("shape, n", CASES, ids=[f"{s}-{n}" for s, n in CASES])
def test_compile(benchmark, shape, n):
    text = graph_text(shape, n)
    benchmark.group = f"compile {shape}: per {SHAPES[shape][1][:-1]}"
    benchmark.extra_info["n"] = n
    code = benchmark.pedantic(lambda: compile_text(text)[0], rounds=1 if n >= 1_000_000 else 3,
                              iterations=1)
    args, result = example(shape, n)
    stack = list(args)
    InterpreterState(code).run(stack)
    assert stack == [result]
    benchmark.extra_info["us_per_unit"] = benchmark.stats.stats.min * 1e6 / n
    memory = measure(shape, n)
    benchmark.extra_info["peak_bytes"] = memory["peak_bytes"]
    benchmark.extra_info["bytes_per_unit"] = memory.get("bytes_per_unit")
