"""A small reader of Graphviz DOT text, for checking the pictures pyjit draws.

It reads the DOT language's statements (``digraph``, node and edge statements,
``subgraph`` clusters, attribute lists, ``node [...]``/``edge [...]`` defaults and
``key=value`` graph attributes) and gives back what the picture holds::

    dot = read_dot(graph.to_dot())
    dot.nodes["n4"]["label"]          # the attribute as written, unquoted
    dot.cluster_of["n5"]              # "cluster_0": the innermost cluster holding n5
    dot.clusters["cluster_0"].parent  # None: at the top level
    dot.edges                         # [("n0", "n4", {"label": "%n.1", ...}), ...]

Quoted strings come back with the DOT lexer's one escape undone (``\\"`` is ``"``;
``\\\\`` is ``\\``, which Graphviz also reads that way); HTML-like labels come back
as :class:`HtmlLabel`, the text between the outer ``<`` and ``>``.  Anything outside
that subset (ports, ``strict``, undirected edges) is a :class:`DotSyntaxError`, so
a test fails on text it does not understand instead of misreading it.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Tuple

__all__ = ["read_dot", "Dot", "Cluster", "HtmlLabel", "DotSyntaxError", "html_text",
           "label_text"]


class DotSyntaxError(ValueError):
    pass


class HtmlLabel(str):
    """The inside of an HTML-like ``<...>`` value."""


@dataclass
class Cluster:
    name: str
    parent: Optional[str]
    attrs: Dict[str, str] = field(default_factory=dict)


@dataclass
class Dot:
    name: str
    attrs: Dict[str, str] = field(default_factory=dict)
    node_defaults: Dict[str, str] = field(default_factory=dict)
    edge_defaults: Dict[str, str] = field(default_factory=dict)
    nodes: Dict[str, Dict[str, str]] = field(default_factory=dict)
    cluster_of: Dict[str, Optional[str]] = field(default_factory=dict)
    clusters: Dict[str, Cluster] = field(default_factory=dict)
    edges: List[Tuple[str, str, Dict[str, str]]] = field(default_factory=list)


_TOKEN = re.compile(r"""
    (?P<ws>\s+|//[^\n]*|/\*.*?\*/|\#[^\n]*)
  | (?P<arrow>->)
  | (?P<punct>[{}\[\];,=])
  | (?P<id>[A-Za-z_\x80-\U0010ffff][A-Za-z0-9_\x80-\U0010ffff]*|-?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?))
  | (?P<quote>")
  | (?P<html><)
""", re.X | re.S)


def _tokens(text: str) -> List[Tuple[str, str]]:
    out: List[Tuple[str, str]] = []
    pos = 0
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if m is None:
            raise DotSyntaxError(f"unexpected {text[pos:pos + 20]!r} at offset {pos}")
        kind = m.lastgroup
        if kind == "ws":
            pos = m.end()
        elif kind == "quote":
            pos, value = _quoted(text, m.end())
            out.append(("string", value))
        elif kind == "html":
            pos, value = _html(text, m.end())
            out.append(("html", value))
        else:
            out.append((kind, m.group()))
            pos = m.end()
    return out


def _quoted(text: str, pos: int) -> Tuple[int, str]:
    chars = []
    while pos < len(text):
        c = text[pos]
        if c == "\\" and pos + 1 < len(text) and text[pos + 1] in '"\\':
            # \" is a quote; \\ stays two characters (the label reader's escape).
            chars.append('"' if text[pos + 1] == '"' else "\\\\")
            pos += 2
        elif c == '"':
            return pos + 1, "".join(chars)
        else:
            chars.append(c)
            pos += 1
    raise DotSyntaxError("unterminated string")


def _html(text: str, pos: int) -> Tuple[int, str]:
    depth, start = 1, pos
    while pos < len(text):
        c = text[pos]
        if c == "<":
            depth += 1
        elif c == ">":
            depth -= 1
            if depth == 0:
                return pos + 1, text[start:pos]
        pos += 1
    raise DotSyntaxError("unterminated HTML-like label")


class _Reader:
    def __init__(self, tokens: List[Tuple[str, str]]) -> None:
        self.toks = tokens
        self.i = 0

    def peek(self, k: int = 0) -> Tuple[str, str]:
        j = self.i + k
        return self.toks[j] if j < len(self.toks) else ("eof", "")

    def take(self, value: Optional[str] = None) -> Tuple[str, str]:
        tok = self.peek()
        if tok[0] == "eof" or (value is not None and tok[1] != value):
            raise DotSyntaxError(f"expected {value or 'a token'}, found {tok[1]!r}")
        self.i += 1
        return tok

    def ident(self) -> str:
        kind, value = self.take()
        if kind == "html":
            return HtmlLabel(value)
        if kind not in ("id", "string"):
            raise DotSyntaxError(f"expected an identifier, found {value!r}")
        return value

    def attr_list(self) -> Dict[str, str]:
        attrs: Dict[str, str] = {}
        while self.peek()[1] == "[":
            self.take("[")
            while self.peek()[1] != "]":
                key = self.ident()
                self.take("=")
                attrs[key] = self.ident()
                if self.peek()[1] in (",", ";"):
                    self.take()
            self.take("]")
        return attrs

    def read(self) -> Dot:
        kind = self.ident()
        if kind != "digraph":
            raise DotSyntaxError(f"expected digraph, found {kind!r}")
        name = self.ident() if self.peek()[1] != "{" else ""
        dot = Dot(name)
        self.take("{")
        self.statements(dot, None)
        self.take("}")
        if self.peek()[0] != "eof":
            raise DotSyntaxError(f"text after the graph: {self.peek()[1]!r}")
        return dot

    def statements(self, dot: Dot, cluster: Optional[str]) -> None:
        while self.peek()[1] != "}":
            if self.peek()[1] == ";":
                self.take()
                continue
            word = self.peek()[1]
            if word == "subgraph":
                self.take()
                name = self.ident()
                if name in dot.clusters:
                    raise DotSyntaxError(f"subgraph {name} twice")
                dot.clusters[name] = Cluster(name, cluster)
                self.take("{")
                self.statements(dot, name)
                self.take("}")
            elif word in ("node", "edge", "graph") and self.peek(1)[1] == "[":
                self.take()
                attrs = self.attr_list()
                target = {"node": dot.node_defaults, "edge": dot.edge_defaults,
                          "graph": dot.attrs if cluster is None else
                          dot.clusters[cluster].attrs}[word]
                target.update(attrs)
            elif self.peek(1)[1] == "=":
                key = self.ident()
                self.take("=")
                value = self.ident()
                (dot.attrs if cluster is None else dot.clusters[cluster].attrs)[key] = value
            else:
                names = [self.ident()]
                while self.peek()[0] == "arrow":
                    self.take()
                    names.append(self.ident())
                attrs = self.attr_list()
                for n in names:
                    if n not in dot.nodes:
                        dot.nodes[n] = {}
                        dot.cluster_of[n] = cluster
                if len(names) == 1:
                    dot.nodes[names[0]].update(attrs)
                for tail, head in zip(names, names[1:]):
                    dot.edges.append((tail, head, attrs))


def read_dot(text: str) -> Dot:
    """The picture that DOT ``text`` describes (see the module docstring)."""
    return _Reader(_tokens(text)).read()


def html_text(label: str) -> str:
    """What an HTML-like label shows: the tags dropped, entities decoded, a ``<BR/>``
    or a table row as a line, the cells of a row separated by tabs, and then (as
    Graphviz does) backslash escapes read as in :func:`label_text`."""
    text = re.sub(r"<BR\s*/?>", "\n", label, flags=re.I)
    text = re.sub(r"</TD>\s*(?=<TD)", "\t", text, flags=re.I)
    text = re.sub(r"</TR>\s*(?=<TR)", "\n", text, flags=re.I)
    return label_text(html.unescape(re.sub(r"<[^<>]*>", "", text)))


def label_text(label: str) -> str:
    """What a quoted label shows: Graphviz's ``\\\\`` and ``\\n`` escapes undone."""
    return re.sub(r"\\(.)", lambda m: {"n": "\n", "l": "\n", "r": "\n"}.get(
        m.group(1), m.group(1)), label)
