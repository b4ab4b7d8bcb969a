"""What the issues ask of pyjit, as checks on a run's medians.

Each :class:`Target` compares two systems on the workloads it names, in one of
two directions:

* ``"at most"``: the base system's time over the other's is at most ``bound``
  (issue 11: pyjit at most 0.25x natural CPython);
* ``"faster"``: the other system's time over the base's is at least ``bound``
  (issue 11: the compiled loop at least 20x faster than the pure twin).

Issue 11's targets are on pyjit as users run it (the ``pyjit`` system: its own
library, optimised, compiled).  Issues 3 and 6 set theirs on the interpreter
alone, so they compare ``pyjit-shared`` with the other systems that call the
shared callables.
"""

from __future__ import annotations

from typing import Any, Dict, List, NamedTuple, Optional, Tuple

from .systems import SYSTEMS

__all__ = ["Target", "TARGETS", "SCALAR_WORKLOADS", "check"]

#: The scalar workloads issue 11 sets its CPython and TorchScript targets on.
SCALAR_WORKLOADS = ("fib", "collatz", "chain", "float-loop")


class Target(NamedTuple):
    issue: str
    base: str                 # the pyjit system measured
    other: str                # the system it is measured against
    kind: str                 # "at most" or "faster" (see the module docstring)
    bound: float
    #: The workloads it applies to (None: all); ``straight_only``: of those, only
    #: the straight-line ones.
    workloads: Optional[Tuple[str, ...]] = None
    straight_only: bool = False

    def applies_to(self, name: str, straight_line: bool) -> bool:
        return ((self.workloads is None or name in self.workloads)
                and (straight_line or not self.straight_only))

    def ratio_of(self) -> str:
        """The ratio that is checked, in words: ``pyjit / Python, natural`` (at
        most), ``pyjit pure twin / pyjit`` (faster)."""
        a, b = (self.base, self.other) if self.kind == "at most" else (self.other, self.base)
        return f"{SYSTEMS[a]} / {SYSTEMS[b]}"


TARGETS: Tuple[Target, ...] = (
    Target("issue 11", "pyjit", "python", "at most", 0.25, SCALAR_WORKLOADS),
    Target("issue 11", "pyjit", "torchscript", "at most", 0.25, SCALAR_WORKLOADS),
    Target("issue 11", "pyjit", "numpy", "at most", 1.15, ("numpy-16",)),
    Target("issue 11", "pyjit", "pyjit-pure", "faster", 20.0, SCALAR_WORKLOADS),
    Target("issue 6", "pyjit-shared", "walker", "faster", 50.0),
    Target("issue 6", "pyjit-shared", "pyjit-pure-shared", "faster", 3.0),
    Target("issue 6", "pyjit-shared", "generated", "faster", 1.0, straight_only=True),
    Target("issue 3", "pyjit-shared", "python-ops", "faster", 1.0, straight_only=True),
)


def check(name: str, straight_line: bool, medians: Dict[str, float],
          skipped: Dict[str, str]) -> List[Dict[str, Any]]:
    """Every target that applies to workload ``name``, checked on ``medians``
    (seconds per call by system).  A target whose systems did not both run is
    listed with ``met`` None and the reason (``skipped``: system -> note)."""
    out = []
    for t in TARGETS:
        if not t.applies_to(name, straight_line):
            continue
        row: Dict[str, Any] = {"issue": t.issue, "workload": name, "base": t.base,
                               "other": t.other, "kind": t.kind, "bound": t.bound,
                               "ratio_of": t.ratio_of(), "ratio": None, "met": None, "note": ""}
        missing = [k for k in (t.base, t.other) if k not in medians]
        if missing:
            why = skipped.get(missing[0], "")
            row["note"] = "not measured: " + (why[len("skipped: "):] if why.startswith(
                "skipped: ") else f"{SYSTEMS[missing[0]]} did not run")
        elif t.kind == "at most":
            row["ratio"] = medians[t.base] / medians[t.other]
            row["met"] = row["ratio"] <= t.bound
        else:
            row["ratio"] = medians[t.other] / medians[t.base]
            row["met"] = row["ratio"] >= t.bound
        out.append(row)
    return out
