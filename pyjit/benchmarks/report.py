"""What ``pyjit bench`` prints: a table per workload, then a summary of every
workload and the issues' targets, all read from the JSON-able results of
:mod:`.runner` (so a saved ``--json`` file prints the same way)."""

from __future__ import annotations

from typing import Any, Dict, List, Sequence

from .systems import SYSTEMS

__all__ = ["format_workload", "format_summary", "format_targets", "format_time"]

# Wide enough for the longest system label.
_LABEL = max(len(label) for label in SYSTEMS.values()) + 1


def format_time(seconds: float) -> str:
    """A duration with three significant figures and its unit: ``812 ns``,
    ``45.6 us``, ``1.23 ms``, ``2.50 s``."""
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("us", 1e-6)):
        if seconds >= scale:
            return f"{_three_figures(seconds / scale)} {unit}"
    return f"{_three_figures(seconds / 1e-9)} ns"


def _three_figures(x: float) -> str:
    if x >= 100:
        return f"{x:,.0f}"
    return f"{x:.1f}" if x >= 10 else f"{x:.2f}"


def _fmt_ns(ns: float) -> str:
    if ns >= 10_000:
        return f"{ns:,.0f}"
    return f"{ns:.1f}"


def _ratio(ratio: Any) -> str:
    return f"{ratio:.2f}x" if ratio is not None else "-"


def format_workload(res: Dict[str, Any]) -> str:
    """The table for one workload: per system, the median time per call, per
    operator, and over the baseline's (``pyjit``)."""
    memory = any("peak_bytes" in r for r in res["systems"])
    lines = [f"{res['name']}: {res['title']}",
             f"  {res['operators_per_call']:,} operators per call, median of "
             f"{res['rounds']} rounds"]
    head = f"  {'system':<{_LABEL}} {'per call':>10} {'ns/op':>12} {'ratio':>9}"
    if memory:
        head += f" {'peak MB':>9}"
    lines.append(head)
    for r in res["systems"]:
        if r.get("skipped"):
            lines.append(f"  {r['label']:<{_LABEL}} {r['note'] or 'skipped'}")
            continue
        line = (f"  {r['label']:<{_LABEL}} {format_time(r['s_per_call']):>10} "
                f"{_fmt_ns(r['ns_per_op']):>12} {_ratio(r['ratio']):>9}")
        if memory:
            peak = r.get("peak_bytes")
            line += f" {peak / 1e6:>9.1f}" if peak is not None else f" {'-':>9}"
        if r["note"]:
            line += f"   ({r['note']})"
        lines.append(line)
    return "\n".join(lines)


def format_summary(results: Sequence[Dict[str, Any]]) -> str:
    """Every workload side by side: pyjit's time per call and per operator, then
    each system's time over pyjit's (``-``: the system did not run)."""
    names = [res["name"] for res in results]
    width = max([len(n) for n in names] + [9]) + 2
    rows: Dict[str, List[str]] = {"pyjit, per call": [], "pyjit, ns per operator": []}
    rows.update({label: [] for label in SYSTEMS.values()})
    for res in results:
        by_key = {r["key"]: r for r in res["systems"]}
        base = by_key.get(res["baseline"] or "", {})
        rows["pyjit, per call"].append(format_time(base["s_per_call"]) if base else "-")
        rows["pyjit, ns per operator"].append(_fmt_ns(base["ns_per_op"]) if base else "-")
        for key, label in SYSTEMS.items():
            r = by_key.get(key)
            rows[label].append(_ratio(r.get("ratio")) if r and not r.get("skipped") else "-")
    baseline = {res["baseline"] for res in results} - {None}
    lines = [f"summary: time per call over {', '.join(sorted(baseline)) or 'pyjit'}'s "
             "(higher is slower; 'shared ops': the interpreter-only measurement)",
             f"  {'':<{_LABEL}}" + "".join(f"{n:>{width}}" for n in names)]
    for label, cells in rows.items():
        if any(c != "-" for c in cells):
            lines.append(f"  {label:<{_LABEL}}" + "".join(f"{c:>{width}}" for c in cells))
    return "\n".join(lines)


_SECTIONS = (("pyjit", "targets, issue 11: pyjit as users run it"),
             ("pyjit-shared", "targets, issues 3 and 6: the interpreter alone, shared ops"))


def format_targets(checks: Sequence[Dict[str, Any]]) -> str:
    """The issues' targets, one line each: the ratio measured, the bound, and
    whether it is met; issue 11's (on ``pyjit``) first, then the interpreter's
    (on ``pyjit-shared``)."""
    if not checks:
        return "targets: none applies to the workloads run"
    name_width = max(len(c["workload"]) for c in checks)
    what_width = max(len(c["ratio_of"]) for c in checks)
    lines = []
    for base, title in _SECTIONS:
        section = [c for c in checks if c["base"] == base]
        if not section:
            continue
        lines.append(title)
        for c in section:
            bound = f"{'<=' if c['kind'] == 'at most' else '>='} {c['bound']:g}x"
            verdict = c["note"] if c["met"] is None else ("met" if c["met"] else "NOT met")
            lines.append(f"  {c['workload']:<{name_width}}  {c['ratio_of']:<{what_width}} "
                         f"{_ratio(c['ratio']):>8}  {bound:<9} {verdict}")
    return "\n".join(lines)
