"""One benchmark group per workload, one benchmark per system.

The systems are those of ``pyjit bench`` (:mod:`pyjit.benchmarks.systems`):
``pyjit`` (``pyjit.Function(graph)``: its own operator library, optimised, the
compiled loop; what users run), ``pyjit-O0`` and ``pyjit-pure`` beside it; the
interpreter-only measurement, every system calling the same plain callables
(``pyjit-shared``, ``pyjit-pure-shared``, ``python-ops``, ``generated``,
``walker``); and natural Python, bare numpy calls (tensor workloads) and
TorchScript (with torch installed).  A system that cannot run a workload is
skipped with the reason.

The ``chain`` group holds issue 3's measurement: ``pyjit-shared`` running 1,000
``aten::add`` nodes whose operator is ``operator.add``, against ``python-ops``
(a generated function making the same 1,000 calls, ``x = add(x, y)``) and
``pyjit-pure-shared``.  Every benchmark checks its result against natural
Python's.
"""

from __future__ import annotations

import pytest

from pyjit.benchmarks.systems import SYSTEMS
from pyjit.benchmarks.workloads import WORKLOADS


@pytest.mark.parametrize("system", list(SYSTEMS))
@pytest.mark.parametrize("name", list(WORKLOADS))
def test_workload(benchmark, prepare, name, system):
    p = prepare(name)
    s = p.systems[system]
    if s.fn is None:
        pytest.skip(s.note)
    args = s.convert_args(p.args)
    benchmark.group = f"{name}: {p.workload.title}"
    benchmark.extra_info["operators_per_call"] = p.workload.n_ops
    benchmark.extra_info["system"] = s.label
    result = benchmark(s.fn, *args)
    assert p.workload.same(s.convert_result(result), p.reference)
