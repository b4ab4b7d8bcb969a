r"""A graph as a picture: :func:`graph_to_dot` writes Graphviz DOT text.

Every node of the graph is a box, and every use of a value an edge from the node
that defines it to the node that uses it.  Nested blocks are clusters (boxes
around their nodes): the two branches of an If, the body of a Loop, the subgraph
of a fork.  Each block has two nodes of its own, its inputs (the block's
``prim::Param``) and its outputs (its ``prim::Return``), joined to the node that
owns the block by two dashed control edges: one into the block, labelled with
its role (``then``, ``else``, ``body``, ``subgraph``), and one from its outputs
back to the owner, which receives them as its outputs (or, for a Loop, as the
next iteration's inputs).  ``examples/fib.ir`` (``docs/fib.svg``)::

    [True] [0] [1] [graph %n.1]
       \    |   |   /
      [prim::Loop %a, %b] - - body - - > +- prim::Loop body ---------------+
         |          ^                    | [block0 %8, %a.9, %b.11]        |
         | %a        - - - - - - - - - - |      |        \                 |
         v                               | [aten::add %b.7]   |            |
    [return (%a)]                        | [-> (%7, %b.11, %b.7)]          |
                                         +---------------------------------+

A label shows the node's kind in bold (a constant's value instead), its outputs
with their types, its attributes, and in grey its source location with the text
of the source line when the file is readable; the node's full text is its
tooltip in SVG output.  An edge leaving a node with several outputs (a block's
inputs, a Loop) is labelled with the value it carries.

The DOT text names nodes ``n0``, ``n1``... in program order, the order in which
:func:`~pyjit.ir.print_graph` prints them: a block's inputs, its nodes (each
followed by its blocks, then its subgraph), its outputs; clusters are
``cluster_0``, ``cluster_1``... in the same order.  Edges follow all the nodes:
the value edges, node by node and input by input; then the two control edges of
each cluster, the second written ``owner -> outputs`` with ``dir=back`` (drawn
pointing at the owner, but laid out as the downward edge it runs beside); then,
for each block, an invisible edge from its last node (its inputs, if it has no
nodes) to its outputs, which keeps the outputs at the bottom of the block.
Drawing walks the graph with :func:`~pyjit.ir.traversal.walk_blocks`, so nesting
depth is not limited by Python's recursion limit.
"""

from __future__ import annotations

from typing import Dict, Iterator, List, Optional, Tuple

from . import types as T
from ..graphviz import DotWriter, Html, clip, html_escape
from .graph import Block, Graph, Node, Value
from .printer import SUBGRAPH, format_attr_value, node_header
from .symbols import prim
from .traversal import walk_blocks

__all__ = ["graph_to_dot"]

# Longest text of one label line before it is cut with an ellipsis.
_WIDTH = 60

_FONT = "Helvetica"
_STYLE = {  # node attributes by role
    "op": dict(shape="box", style="rounded,filled", fillcolor="#e8f0fa", color="#4a6fa5"),
    "control": dict(shape="box", style="filled,bold", fillcolor="#fff2cc", color="#bf9000"),
    "constant": dict(shape="box", style="rounded,filled", fillcolor="#f4f4f4",
                     color="#a6a6a6", fontsize=10),
    "inputs": dict(shape="box", style="rounded,filled", fillcolor="#e2f0d9", color="#70ad47"),
    "outputs": dict(shape="box", style="rounded,filled", fillcolor="#fbe5d6", color="#c55a11"),
}
_CONTROL_EDGE = dict(style="dashed", color="#bf9000", fontcolor="#7f6000")
_CLUSTER_FILL = ("#fbfbfb", "#f2f2f2")  # alternates with depth, so nesting shows

# What a block is to the node that owns it.
_ROLES = {prim.If: ("then", "else"), prim.Loop: ("body",)}


def _clip(text: str) -> str:
    return clip(text, _WIDTH)


def _typed(values) -> str:
    return ", ".join(f"%{v.debug_name} : {v.type}" for v in values)


def _location_line(node: Node) -> Optional[str]:
    """``fib.py:9  b = a + b``: where the node came from, as short as it can be."""
    loc = node.source_location
    if loc is None:
        return None
    where = loc.short()
    if node.kind == prim.Constant:
        return where
    text = loc.source_line()
    return f"{where}  {text.strip()}" if text and text.strip() else where


def _html_lines(title: str, lines: List[Optional[str]], grey: Optional[str] = None) -> Html:
    """An HTML-like label: ``title`` (already HTML) then plain text lines, the last
    one small and grey."""
    parts = [title]
    parts.extend(html_escape(_clip(line)) for line in lines if line)
    if grey:
        parts.append(f'<FONT POINT-SIZE="9" COLOR="#7f7f7f">{html_escape(_clip(grey))}</FONT>')
    return Html("<BR/>".join(parts))


def _constant_text(node: Node) -> str:
    """A constant's value as its label shows it: as torch prints the attribute,
    except that a bool reads ``True``/``False`` (torch stores it as the int 1/0)."""
    if "value" not in node.attrs:
        return ", ".join(f"{k}={format_attr_value(v)}" for k, v in node.attrs.items()) or "None"
    value = node.attrs["value"]
    if node.outputs and node.outputs[0].type == T.BOOL and isinstance(value, int):
        return str(bool(value))
    return format_attr_value(value)


def _node_label(node: Node, show_source: bool) -> Html:
    where = _location_line(node) if show_source else None
    if node.kind == prim.Constant:
        value = html_escape(_clip(_constant_text(node)))
        return _html_lines(f"<B>{value}</B>", [_typed(node.outputs)], where)
    attrs = [f"{k}={format_attr_value(v)}" for k, v in node.attrs.items() if k != SUBGRAPH]
    lines = [f"%{v.debug_name} : {v.type}" for v in node.outputs]
    if attrs:
        lines.append("[" + ", ".join(attrs) + "]")
    return _html_lines(f"<B>{html_escape(_clip(node.kind))}</B>", lines, where)


def _subgraph(node: Node) -> Optional[Graph]:
    sub = node.attrs.get(SUBGRAPH)
    return sub if isinstance(sub, Graph) else None


class _Drawing:
    """One :func:`graph_to_dot`: the writer and where each node and value went."""

    def __init__(self, writer: DotWriter, show_source: bool) -> None:
        self.w = writer
        self.show_source = show_source
        self.ids: Dict[Node, str] = {}          # IR node (params, returns too) -> DOT name
        self.order: List[Node] = []             # every drawn node, in program order
        # per cluster: (owner, the block's param node, its return node, role)
        self.clusters: List[Tuple[Node, Node, Node, str]] = []
        self.blocks: List[Block] = []           # every drawn block, in program order
        self.depth = 0
        # torch numbers a graph's subgraphs kind_0, kind_1... in printing order
        self.fork_count: Dict[Graph, int] = {}

    def add(self, node: Node, label: Html, role: str, tooltip: str) -> None:
        name = f"n{len(self.order)}"
        self.ids[node] = name
        self.order.append(node)
        self.w.node(name, label=label, tooltip=tooltip, **_STYLE[role])

    def open(self, owner: Node, block: Block, role: str, title: str) -> None:
        self.clusters.append((owner, block.param_node, block.return_node, role))
        fill = _CLUSTER_FILL[self.depth % 2]
        self.depth += 1
        self.w.open_cluster(str(len(self.clusters) - 1), label=title, style="rounded,filled",
                            fillcolor=fill, color="#a6a6a6", labeljust="l",
                            fontname=_FONT, fontsize=11)

    def close(self) -> None:
        self.depth -= 1
        self.w.close_cluster()

    def scan(self, block: Block) -> Iterator[Block]:
        """Draw ``block``; a generator for :func:`walk_blocks`, yielding nested blocks."""
        self.blocks.append(block)
        owner = block.owning_node
        head = "graph" if owner is None else f"block{owner.blocks.index(block)}"
        text = f"{head}({_typed(block.inputs)})"
        self.add(block.param_node, _html_lines(f"<B>{html_escape(head)}</B>",
                                               [_typed(block.inputs) or "no inputs"]),
                 "inputs", text)
        for node in block.nodes():
            control = bool(node.blocks) or _subgraph(node) is not None
            self.add(node, _node_label(node, self.show_source),
                     "constant" if node.kind == prim.Constant else
                     "control" if control else "op", node_header(node))
            roles = _ROLES.get(node.kind, ())
            loc = node.source_location
            where = f"  ({loc.short()})" if loc is not None else ""
            for i, b in enumerate(node.blocks):
                role = roles[i] if i < len(roles) else f"block{i}"
                self.open(node, b, role, f"{node.kind} {role}{where}")
                yield b
                self.close()
            sub = _subgraph(node)
            if sub is not None:
                graph = node.owning_graph
                k = self.fork_count.get(graph, 0)
                self.fork_count[graph] = k + 1
                self.open(node, sub.block, "subgraph", f"{node.kind}_{k} subgraph{where}")
                yield sub.block
                self.close()
        ret = block.return_node
        outs = ", ".join("%" + v.debug_name for v in block.outputs)
        text = f"return ({outs})" if owner is None else f"-> ({outs})"
        self.add(ret, _html_lines(f"<B>{html_escape(_clip(text))}</B>", []), "outputs", text)

    def edges(self) -> None:
        for node in self.order:
            head = self.ids[node]
            for v in node.inputs:
                self.w.edge(self.ids[v.node], head, **self.value_edge(v))
        for owner, param, ret, role in self.clusters:
            self.w.edge(self.ids[owner], self.ids[param], label=role, **_CONTROL_EDGE)
            # The block's outputs go back to the owner.  Written owner -> return with
            # dir=back, so that the layout treats it as the downward edge it mostly
            # runs beside (a return -> owner edge is routed around the whole block).
            self.w.edge(self.ids[owner], self.ids[ret], dir="back", **_CONTROL_EDGE)
        for block in self.blocks:
            # Invisible: keeps the block's outputs below its last node (or its
            # inputs), where a block output defined outside the block would not.
            last = block.nodes().back()
            tail = block.param_node if last is block.return_node else last
            self.w.edge(self.ids[tail], self.ids[block.return_node], style="invis")

    @staticmethod
    def value_edge(v: Value) -> dict:
        several = len(v.node.outputs) > 1 or v.node.kind == prim.Param
        return dict(label="%" + v.debug_name if several else None,
                    tooltip=f"%{v.debug_name} : {v.type}")


def graph_to_dot(graph: Graph, *, name: str = "graph", show_source: bool = True) -> str:
    """The DOT text of ``graph``'s picture (see the module docstring for what is drawn
    and how the DOT names its parts).

    Args:
        graph: the graph to draw; it is not modified.
        name: the name of the ``digraph``.
        show_source: add each node's source location and line to its label.

    Render it with ``dot -Tsvg``, :func:`pyjit.graphviz.render` or ``pyjit dot``.
    """
    w = DotWriter(name, rankdir="TB", fontname=_FONT, nodesep=0.3, ranksep=0.35,
                  node_defaults=dict(fontname=_FONT, fontsize=11, margin="0.12,0.04"),
                  edge_defaults=dict(fontname=_FONT, fontsize=9, color="#595959",
                                     arrowsize=0.7))
    drawing = _Drawing(w, show_source)
    walk_blocks(graph.block, drawing.scan)
    drawing.edges()
    return w.text()
