"""pyjit's coverage of torch's operator database, as ``opdb.txt`` (beside this
module) records it, entry by entry; ``tests/test_opdb.py`` checks every line
against torch's recorded results, so the counts here are measured, not claimed.
"""

from __future__ import annotations

from pathlib import Path
from typing import Dict, NamedTuple

__all__ = ["Coverage", "opdb_coverage"]

OPDB = Path(__file__).with_name("opdb.txt")


class Coverage(NamedTuple):
    """``status`` by entry name: ``"pass"``, ``"fail: <reason>"`` or
    ``"unscriptable: <why>"``."""

    status: Dict[str, str]

    @property
    def passing(self):
        return sorted(n for n, s in self.status.items() if s == "pass")

    @property
    def failing(self) -> Dict[str, str]:
        return {n: s[len("fail: "):] for n, s in self.status.items() if s.startswith("fail: ")}

    @property
    def scriptable(self) -> int:
        return sum(not s.startswith("unscriptable") for s in self.status.values())


def opdb_coverage(path: Path = OPDB) -> Coverage:
    """Read ``opdb.txt``: one entry a line, ``<name> <status>``; ``#`` comments."""
    status = {}
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        name, _, rest = line.partition(" ")
        rest = rest.strip()
        if not (rest == "pass" or rest.startswith(("fail: ", "unscriptable: "))):
            raise ValueError(f"{path.name}:{number}: expected 'pass', 'fail: <reason>' or "
                             f"'unscriptable: <why>' after the entry name, got {rest!r}")
        if name in status:
            raise ValueError(f"{path.name}:{number}: {name} is listed twice")
        status[name] = rest
    return Coverage(status)
