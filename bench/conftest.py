"""pytest-benchmark runs of pyjit's benchmark workloads.

    pytest bench --benchmark-only                 # every workload, every system
    pytest bench --benchmark-only -k chain        # issue 3's measurement
    pytest bench --benchmark-only -k "float-loop and pyjit"   # one group, some systems

The workloads, the systems and the checks are those of ``pyjit bench``
(:mod:`pyjit.benchmarks`); here pytest-benchmark does the timing and prints one
table per workload (``benchmark.group``).  ``bench/`` is not in the default test
paths: ``python -m pytest`` never runs it.
"""

from __future__ import annotations

import functools
from typing import Any, Callable, Dict, NamedTuple

import pytest

from pyjit.benchmarks.systems import System, build_systems, natural_python
from pyjit.benchmarks.workloads import WORKLOADS, Workload


class Prepared(NamedTuple):
    workload: Workload
    systems: Dict[str, System]
    args: tuple
    reference: Any


@functools.lru_cache(maxsize=None)
def prepared(name: str) -> Prepared:
    """The workload ``name`` with its systems, inputs and natural Python's result,
    built once per session."""
    w = WORKLOADS[name]()
    args = w.make_args()
    return Prepared(w, {s.key: s for s in build_systems(w)}, args, natural_python(w)(*args))


@pytest.fixture(scope="session")
def prepare() -> Callable[[str], Prepared]:
    return prepared
