"""Graphviz's DOT language: writing it, and rendering it with the ``dot`` program.

The shared part of pyjit's two pictures, graphs (:mod:`pyjit.ir.dot`) and
instruction tables (:mod:`pyjit.code_dot`).  Writing DOT needs nothing; rendering
it runs Graphviz's ``dot`` when it is on ``PATH``, and says how to install it when
it is not (pyjit takes no dependency on Graphviz or on a Python binding of it).

A picture is written with a :class:`DotWriter`::

    w = DotWriter("fib", rankdir="TB")
    w.node("n0", label=Html("<B>aten::add</B>"), shape="box")
    with w.cluster("body", label="loop body"):
        w.node("n1", label='say "hi"')
    w.edge("n0", "n1", label="%x")
    w.text()      # 'digraph "fib" {\\n  rankdir="TB";\\n  n0 [label=<<B>aten::add</B>>, ...'

Two kinds of label, as Graphviz has them: a plain ``str`` is written as a quoted
string (``"`` and ``\\`` escaped, a newline written as ``\\n``), and an
:class:`Html` one as an HTML-like label between ``<`` and ``>``, whose text the
caller escapes with :func:`html_escape`.  Edges are written after every node and
cluster, at the top level: an edge statement inside a cluster would pull into that
cluster any node it names for the first time.
"""

from __future__ import annotations

import contextlib
import re
import shutil
import subprocess
from typing import Iterator, List, Optional, Union

from .errors import PyjitError

__all__ = ["Html", "DotWriter", "html_escape", "quote", "clip", "GraphvizError", "dot_program",
           "render", "RENDER_FORMATS", "INSTALL_HINT"]

#: The output formats :func:`render` (and ``pyjit dot -o``) accepts, by file suffix.
RENDER_FORMATS = ("svg", "png", "pdf")

INSTALL_HINT = ("install Graphviz (apt-get install graphviz, brew install graphviz or "
                "conda install graphviz; https://graphviz.org/download/)")


class Html(str):
    """A label that is an HTML-like label: written between ``<`` and ``>``, unquoted."""

    __slots__ = ()


AttrValue = Union[str, int, float, bool]

_BARE_ID = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


def quote(text: str) -> str:
    """``text`` as a DOT quoted string whose label shows exactly ``text``.

    ``"`` needs a backslash in any quoted string; ``\\`` needs one too, because a
    label reads ``\\n``, ``\\l``, ``\\N`` (the node's name) and others as escapes;
    a newline becomes ``\\n``, a centred line break.
    """
    escaped = text.replace("\\", "\\\\").replace('"', '\\"')
    escaped = escaped.replace("\r\n", "\n").replace("\r", "\n").replace("\n", "\\n")
    return f'"{escaped}"'


# XML 1.0, which Graphviz's parser of HTML-like labels follows, allows no control
# character but tab and newline, not even as a character reference.
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")


def html_escape(text: str) -> str:
    """``text`` for the inside of an HTML-like label: ``& < > "`` as entities, tabs as
    spaces, other control characters as ``\\xNN`` (XML cannot hold them at all),
    and ``\\`` doubled: Graphviz reads ``\\N``, ``\\n``... as escapes in these
    labels too (even when the backslash is written ``&#92;``)."""
    text = text.replace("\\", "\\\\")
    text = (text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
            .replace('"', "&quot;").replace("\t", "    "))
    return _CONTROL.sub(lambda m: f"\\\\x{ord(m.group()):02x}", text)


def clip(text: str, width: int) -> str:
    """``text``, cut to ``width`` characters with an ellipsis when it is longer: a
    label with a whole tensor in it would be wider than the picture."""
    return text if len(text) <= width else text[:width - 1] + "…"


def _attr_value(value: AttrValue) -> str:
    if isinstance(value, Html):
        return f"<{value}>"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    return quote(str(value))


def _attrs(attrs: dict) -> str:
    items = [f"{k}={_attr_value(v)}" for k, v in attrs.items() if v is not None]
    return f" [{', '.join(items)}]" if items else ""


def _id(name: str) -> str:
    return name if _BARE_ID.match(name) else quote(name)


class DotWriter:
    """Builds the text of one ``digraph``, statement by statement.

    Args:
        name: the graph's name (written quoted).
        node_defaults, edge_defaults: ``node [...]`` and ``edge [...]`` statements.
        **graph_attrs: attributes of the whole graph (``rankdir="LR"``...).
    """

    def __init__(self, name: str, *, node_defaults: Optional[dict] = None,
                 edge_defaults: Optional[dict] = None, **graph_attrs: AttrValue) -> None:
        self._lines: List[str] = [f"digraph {quote(name)} {{"]
        self._edges: List[str] = []
        self._depth = 1
        for k, v in graph_attrs.items():
            self._line(f"{k}={_attr_value(v)};")
        if node_defaults:
            self._line(f"node{_attrs(node_defaults)};")
        if edge_defaults:
            self._line(f"edge{_attrs(edge_defaults)};")

    def _line(self, text: str) -> None:
        self._lines.append("  " * self._depth + text)

    def node(self, name: str, **attrs: Optional[AttrValue]) -> None:
        """``name [attrs];`` in the current cluster (attributes that are None are left out)."""
        self._line(f"{_id(name)}{_attrs(attrs)};")

    def edge(self, tail: str, head: str, **attrs: Optional[AttrValue]) -> None:
        """``tail -> head [attrs];``, written at the top level after everything else."""
        self._edges.append(f"  {_id(tail)} -> {_id(head)}{_attrs(attrs)};")

    def open_cluster(self, name: str, **attrs: Optional[AttrValue]) -> None:
        """Start ``subgraph cluster_<name> {``: what follows is drawn in one box."""
        self._line(f"subgraph {_id('cluster_' + name)} {{")
        self._depth += 1
        for k, v in attrs.items():
            if v is not None:
                self._line(f"{k}={_attr_value(v)};")

    def close_cluster(self) -> None:
        if self._depth == 1:
            raise ValueError("close_cluster() without an open cluster")
        self._depth -= 1
        self._line("}")

    @contextlib.contextmanager
    def cluster(self, name: str, **attrs: Optional[AttrValue]) -> Iterator[None]:
        """``with w.cluster(name, label=...):`` the nodes written inside go in the box."""
        self.open_cluster(name, **attrs)
        yield
        self.close_cluster()

    def text(self) -> str:
        """The whole ``digraph``, ending in a newline."""
        if self._depth != 1:
            raise ValueError(f"{self._depth - 1} cluster(s) still open")
        return "\n".join(self._lines + self._edges + ["}", ""])


class GraphvizError(PyjitError, RuntimeError):
    """Graphviz's ``dot`` is not installed, or it failed on the picture."""


def dot_program() -> Optional[str]:
    """The path of Graphviz's ``dot`` program, or None when it is not on ``PATH``."""
    return shutil.which("dot")


def render(dot_text: str, fmt: str = "svg", *, timeout: float = 120.0) -> bytes:
    """The picture ``dot_text`` describes, in format ``fmt`` (one of
    :data:`RENDER_FORMATS`), drawn by Graphviz's ``dot``.

    Raises:
        GraphvizError: ``dot`` is not installed (the message says how to install
            it), or it failed (the message holds what it printed).
        ValueError: an unknown format.
    """
    if fmt not in RENDER_FORMATS:
        raise ValueError(f"cannot render to {fmt!r}: the formats are "
                         f"{', '.join(RENDER_FORMATS)}")
    program = dot_program()
    if program is None:
        raise GraphvizError(f"drawing {fmt.upper()} needs Graphviz's `dot` program, "
                            f"which is not installed: {INSTALL_HINT}")
    try:
        done = subprocess.run([program, f"-T{fmt}"], input=dot_text.encode("utf-8"),
                              capture_output=True, timeout=timeout)
    except subprocess.TimeoutExpired as exc:
        raise GraphvizError(f"`dot` took more than {timeout:g} s to lay the picture out "
                            "(a graph this large reads better as DOT text or in parts)") from exc
    if done.returncode != 0:
        said = done.stderr.decode("utf-8", "replace").strip() or f"exit status {done.returncode}"
        raise GraphvizError(f"`dot -T{fmt}` failed: {said}")
    return done.stdout
