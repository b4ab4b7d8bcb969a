"""torch's schema list: every operator schema torch registers, read once.

``torch_schemas.txt.xz`` (beside this module) is ``torch._C._jit_get_all_schemas()``
of the torch version its header names, one schema a line, in torch's order
(written by ``tools/schemas/make_torch_schemas.py``).  It is the one declaration
of torch's operator surface that pyjit reads:

* the archive's frontend picks the overload a serialized call means from it
  (``pyjit.archive.schemas.match``), so its order matters: torch's
  ``matchSchemas`` takes the first overload that fits;
* the registry derives an operator's argument types from it when the operator
  is declared by overload name (``register("aten::norm.ScalarOpt_dim", fn)``);
* ``ops/out_variants`` derives the ``out=`` overloads from it, and
  ``ops/coverage`` measures the library against all of it.

A model names a few dozen kinds of the list's 1,800, so nothing is parsed
until it is asked for: the file is split into lines by kind on first use (a
few milliseconds), and a kind's lines are parsed the first time that kind is
asked for.  Every function is safe to call from several threads.
"""

from __future__ import annotations

import threading
import lzma
from pathlib import Path
from typing import Dict, FrozenSet, List, Optional, Tuple

from .schema import Schema, parse

__all__ = ["PATH", "read_text", "version", "kinds", "schemas_of", "overload", "all_schemas"]

#: The list, xz-compressed (40 KB where the text is 420 KB and a wheel's deflate
#: made 56 KB of it: a wheel is at most 1.2 MB).
PATH = Path(__file__).with_name("torch_schemas.txt.xz")


def read_text(path: Path = PATH) -> str:
    """The text of a schema list: ``path``, decompressed if it is a ``.xz`` file."""
    if path.suffix == ".xz":
        with lzma.open(path, "rt", encoding="utf-8") as f:
            return f.read()
    return path.read_text(encoding="utf-8")

_lock = threading.Lock()
#: (line number, line) of each schema, by kind, in torch's order; the header's version.
_index: Optional[Tuple[Dict[str, List[Tuple[int, str]]], str]] = None
_parsed: Dict[str, List[Schema]] = {}
_all: Optional[List[Schema]] = None


def _kind_of(line: str) -> str:
    """``"aten::add"`` of ``"aten::add.Tensor(Tensor self, ...) -> Tensor"``."""
    return line.split("(", 1)[0].split(".", 1)[0]


def _lines() -> Tuple[Dict[str, List[Tuple[int, str]]], str]:
    global _index
    index = _index
    if index is None:
        with _lock:
            if _index is None:
                by_kind: Dict[str, List[Tuple[int, str]]] = {}
                text = read_text()
                header = text.split("\n", 1)[0]
                found = header.split()[2].rstrip(":") if header.startswith("# torch ") else "?"
                for number, line in enumerate(text.splitlines(), 1):
                    if line.strip() and not line.startswith("#"):
                        by_kind.setdefault(_kind_of(line), []).append((number, line))
                _index = (by_kind, found)
            index = _index
    return index


def _parse(number: int, line: str) -> Schema:
    try:
        return parse(line)
    except ValueError as exc:
        raise ValueError(f"{PATH.name}:{number}: {exc}") from None


def version() -> str:
    """The torch version the list was taken from (``"2.13.0"``)."""
    return _lines()[1]


def kinds() -> FrozenSet[str]:
    """Every kind the list declares an overload of."""
    return frozenset(_lines()[0])


def schemas_of(kind: str) -> List[Schema]:
    """torch's overloads of ``kind`` (``"aten::add"``), in torch's order; empty
    for a kind torch does not register.  The list returned is shared: do not
    change it."""
    found = _parsed.get(kind)
    if found is None:
        found = [_parse(n, line) for n, line in _lines()[0].get(kind, ())]
        with _lock:
            found = _parsed.setdefault(kind, found)
    return found


def overload(name: str) -> Schema:
    """The schema of one overload by its full name, as torch names it:
    ``"aten::norm.ScalarOpt_dim"``, or ``"aten::relu"`` for a kind's default
    overload.  A ``KeyError`` names the overloads the kind has."""
    kind, _, wanted = name.partition(".")
    candidates = schemas_of(kind)
    for s in candidates:
        if s.overload == wanted:
            return s
    if not candidates:
        raise KeyError(f"torch {version()} registers no operator {kind}")
    raise KeyError(f"torch {version()} has no overload {name}; {kind}'s are: " +
                   ", ".join(s.name for s in candidates))


def all_schemas() -> List[Schema]:
    """Every schema of the list, in torch's order (parsed once; shared)."""
    global _all
    if _all is None:
        by_kind, _ = _lines()
        numbered = sorted((n, line) for lines in by_kind.values() for n, line in lines)
        position = {}
        for k, lines in by_kind.items():
            for i, (n, _) in enumerate(lines):
                position[n] = (k, i)
        out = []
        for n, _ in numbered:
            k, i = position[n]
            out.append(schemas_of(k)[i])
        with _lock:
            if _all is None:
                _all = out
    return _all
