"""Pictures: ``Graph.to_dot()``, ``Code.to_dot()``, ``pyjit dot`` and ``_repr_svg_``.

The DOT text is read back with ``tests/dot_reader.py`` and compared with the graph
or the table it draws: every node, edge and cluster must be accounted for, in the
order and with the names that ``pyjit.ir.dot`` and ``pyjit.code_dot`` document.
Where Graphviz's ``dot`` is installed, the text is also drawn, which checks the
HTML-like labels too; where it is not, those tests skip with a reason.
"""

from __future__ import annotations

import collections
import os
import subprocess
import sys
from pathlib import Path

import pytest

import pyjit
from pyjit import graphviz
from pyjit.cli import main
from pyjit.code import Code
from pyjit.code_dot import BasicBlock, basic_blocks, successors
from pyjit.graphviz import DotWriter, Html, html_escape, quote
from pyjit.ir import Graph, node_header, prim
from pyjit.ir.parser import parse_ir

from helpers import frontend_programs
from helpers.dot_reader import html_text, label_text, read_dot
from helpers.optional import needs_dot
from helpers.subprocesses import CHECKOUT, checkout_env

FIXTURES = Path(__file__).parent / "fixtures"
GRAPHS = sorted((FIXTURES / "graphs").glob("*.ir"))
CORPUS = sorted((FIXTURES / "corpus").glob("*.ir"))
FIB = CHECKOUT / "examples" / "fib.ir"

def _graph(path: Path) -> Graph:
    # Our own examples: their locations' source lines may be read.
    return parse_ir(path.read_text(), file=str(path), read_sources=True)


def _draw_all(texts) -> None:
    """Have ``dot`` lay out every picture (one process for all of them): it fails on
    any syntax it refuses, the HTML-like labels included."""
    done = subprocess.run([graphviz.dot_program(), "-Tsvg", "-o", os.devnull],
                          input="".join(texts).encode(), capture_output=True, timeout=600)
    assert done.returncode == 0 and not done.stderr, done.stderr.decode()


# -- the graph picture, accounted for ---------------------------------------------------

def _subgraph(node):
    sub = node.attrs.get("Subgraph")
    return sub if isinstance(sub, Graph) else None


def expected_picture(graph: Graph):
    """What ``graph.to_dot()`` must hold, worked out independently (recursively, in
    program order): ``(nodes, clusters)``, where ``nodes`` lists ``(ir_node,
    cluster_index)`` in DOT-name order and ``clusters`` lists ``(owner, block,
    parent_index)`` in cluster-name order."""
    nodes, clusters = [], []

    def block(b, cluster):
        nodes.append((b.param_node, cluster))
        for n in b.nodes():
            nodes.append((n, cluster))
            inner = list(n.blocks)
            if _subgraph(n) is not None:
                inner.append(_subgraph(n).block)
            for sub in inner:
                clusters.append((n, sub, cluster))
                block(sub, len(clusters) - 1)
        nodes.append((b.return_node, cluster))

    block(graph.block, None)
    return nodes, clusters


def _cluster(i):
    return None if i is None else f"cluster_{i}"


def _role(owner, block) -> str:
    if block not in owner.blocks:
        return "subgraph"
    i = owner.blocks.index(block)
    roles = {prim.If: ["then", "else"], prim.Loop: ["body"]}.get(owner.kind, [])
    return roles[i] if i < len(roles) else f"block{i}"


def _edge_kind(attrs) -> str:
    if attrs.get("style") == "invis":
        return "invisible"
    if attrs.get("style") == "dashed":
        return "back" if attrs.get("dir") == "back" else f"into {attrs['label']}"
    return "value " + label_text(attrs["tooltip"])


def check_graph_picture(graph: Graph) -> None:
    dot = read_dot(graph.to_dot())
    nodes, clusters = expected_picture(graph)
    name = {n: f"n{i}" for i, (n, _) in enumerate(nodes)}

    # Every node, once, in its cluster; nothing else.
    assert list(dot.nodes) == [f"n{i}" for i in range(len(nodes))]
    for n, c in nodes:
        assert dot.cluster_of[name[n]] == _cluster(c), node_header(n)
    # Every block and subgraph, as a cluster inside the cluster of its owner.
    assert list(dot.clusters) == [f"cluster_{i}" for i in range(len(clusters))]
    for i, (owner, _, parent) in enumerate(clusters):
        assert dot.clusters[f"cluster_{i}"].parent == _cluster(parent)
        assert dot.cluster_of[name[owner]] == _cluster(parent)

    # The edges, in the documented order: every use of every value, from its
    # definition; the two control edges of each cluster, into the block and back
    # out of it (written owner -> outputs, with dir=back); one invisible edge per
    # block, from its last node (its inputs when it has none) to its outputs.
    # Nothing else.
    want = []
    for n, _ in nodes:
        for v in n.inputs:
            want.append((name[v.node], name[n], f"value %{v.debug_name} : {v.type}"))
    for owner, b, _ in clusters:
        want.append((name[owner], name[b.param_node], f"into {_role(owner, b)}"))
        want.append((name[owner], name[b.return_node], "back"))
    for b in [graph.block] + [b for _, b, _ in clusters]:
        body = list(b.nodes())
        want.append((name[body[-1] if body else b.param_node], name[b.return_node],
                     "invisible"))
    assert [(t, h, _edge_kind(a)) for t, h, a in dot.edges] == want

    # Labels: a node's kind (a constant's value) and output types; its full text
    # as the tooltip.
    for n, _ in nodes:
        attrs = dot.nodes[name[n]]
        shown = html_text(attrs["label"])
        if n.kind in (prim.Param, prim.Return):
            continue
        assert label_text(attrs["tooltip"]) == node_header(n)
        first, *rest = shown.split("\n")
        if n.kind != prim.Constant:
            assert first == n.kind
        for v in n.outputs:
            typed = f"%{v.debug_name} : {v.type}"
            assert any(typed.startswith(line.rstrip("…")) for line in rest), (typed, shown)


@pytest.mark.parametrize("path", GRAPHS, ids=[p.name for p in GRAPHS])
def test_every_fixture_graph_is_drawn_completely(path):
    check_graph_picture(_graph(path))


def test_the_fixtures_have_nesting_and_forks():
    """The parametrized test above meets what it must: If, Loop, forks in forks."""
    kinds = collections.Counter()
    for path in GRAPHS:
        nodes, clusters = expected_picture(_graph(path))
        kinds.update(owner.kind for owner, _, _ in clusters)
        kinds.update(["nested"] if any(p is not None for _, _, p in clusters) else [])
    assert kinds["prim::If"] > 20 and kinds["prim::Loop"] > 20
    assert kinds["prim::fork"] >= 8 and kinds["nested"] > 10


@pytest.mark.parametrize("fn", [f for f, _ in frontend_programs.CASES
                                if f.__name__ in ("primes", "collatz_steps", "nested_exits")],
                         ids=lambda f: f.__name__)
def test_scripted_graphs_are_drawn_completely(fn):
    check_graph_picture(pyjit.script(fn).graph)


def test_fib_picture():
    """examples/fib.ir, read back: the names, the Loop body as a cluster, the edges."""
    dot = read_dot(_graph(FIB).to_dot(name="fib"))
    assert dot.name == "fib"
    labels = {n: html_text(a["label"]) for n, a in dot.nodes.items()}
    assert labels == {
        "n0": "graph\n%n.1 : int",
        "n1": "True\n%7 : bool\nfib.py:8",
        "n2": "0\n%a.1 : int\nfib.py:7",
        "n3": "1\n%b.1 : int\nfib.py:7",
        "n4": "prim::Loop\n%a : int\n%b : int\nfib.py:8  for _ in range(n):",
        "n5": "block0\n%8 : int, %a.9 : int, %b.11 : int",
        "n6": "aten::add\n%b.7 : int\nfib.py:9  a, b = b, a + b",
        "n7": "-> (%7, %b.11, %b.7)",
        "n8": "return (%a)",
    }
    assert {n for n, c in dot.cluster_of.items() if c == "cluster_0"} == {"n5", "n6", "n7"}
    assert label_text(dot.clusters["cluster_0"].attrs["label"]) == "prim::Loop body  (fib.py:8)"
    assert [(t, h, a.get("label")) for t, h, a in dot.edges] == [
        ("n0", "n4", "%n.1"), ("n1", "n4", None), ("n2", "n4", None), ("n3", "n4", None),
        ("n5", "n6", "%a.9"), ("n5", "n6", "%b.11"),
        ("n1", "n7", None), ("n5", "n7", "%b.11"), ("n6", "n7", None),
        ("n4", "n8", "%a"),
        ("n4", "n5", "body"), ("n4", "n7", None),
        ("n4", "n8", None), ("n6", "n7", None)]
    assert dot.edges[-3][2]["dir"] == "back"
    assert [a.get("style") for _, _, a in dot.edges[-2:]] == ["invis", "invis"]


def test_source_can_be_left_out():
    dot = read_dot(_graph(FIB).to_dot(show_source=False))
    assert html_text(dot.nodes["n6"]["label"]) == "aten::add\n%b.7 : int"


def test_drawing_does_not_change_the_graph():
    g = _graph(FIB)
    before = str(g)
    g.to_dot()
    assert str(g) == before
    g.lint()


def test_deep_nesting_is_drawn_without_recursion():
    depth = 400
    lines = ["graph(%c : bool):", "  %z : int = prim::Constant[value=1]()"]
    for i in range(depth):  # If i sits in the then-branch of If i-1
        pad = "  " * (2 * i + 1)
        lines += [f"{pad}%v{i} : int = prim::If(%c)", f"{pad}  block0():"]
    lines.append("  " * (2 * depth + 1) + "-> (%z)")
    for i in reversed(range(depth)):
        pad = "  " * (2 * i + 1)
        lines += [f"{pad}  block1():", f"{pad}    -> (%z)"]
        if i:
            lines.append(f"{pad}-> (%v{i})")
    lines.append("  return (%v0)")
    g = parse_ir("\n".join(lines) + "\n")
    dot = read_dot(g.to_dot())
    assert len(dot.clusters) == 2 * depth
    # then-branches first, each inside the one before; then the else-branches, inside out
    assert [dot.clusters[f"cluster_{k}"].parent for k in range(depth)] == [None] + [
        f"cluster_{k}" for k in range(depth - 1)]
    assert dot.clusters[f"cluster_{depth}"].parent == f"cluster_{depth - 2}"
    assert dot.clusters[f"cluster_{2 * depth - 1}"].parent is None


# -- escaping --------------------------------------------------------------------------

TRICKY = r'''graph(%x : str):
  %s : str = prim::Constant[value="say \"hi\" {x} <b> & \\N end"]() # <stdin>:3:4
  %t : str = aten::add(%x, %s) # <stdin>:4:2
  return (%t)
'''


def test_labels_escape_quotes_braces_and_angle_brackets():
    g = parse_ir(TRICKY)
    text = g.to_dot()
    dot = read_dot(text)
    const = dot.nodes["n1"]
    # the HTML-like label shows the constant as torch prints it, and the location
    assert html_text(const["label"]).split("\n") == [
        r'"say \"hi\" {x} <b> & \\N end"', "%s : str", "<stdin>:3"]
    assert r'&lt;b&gt; &amp; \\\\N' in const["label"] and "<b>" not in const["label"]
    # the tooltip (a quoted string) shows the node's text exactly: \N is not the
    # node's name, \" is not the end of the string
    assert label_text(const["tooltip"]) == node_header(g.block.nodes().front())


def test_quote_and_html_escape():
    assert quote('a"b\\c\nd') == r'"a\"b\\c\nd"'
    assert quote("") == '""'
    assert html_escape('<a & "b">') == "&lt;a &amp; &quot;b&quot;&gt;"
    assert html_escape("tab\there\x01") == r"tab    here\\x01"
    assert html_escape("a\\N") == "a\\\\N"
    # names that are not DOT identifiers are quoted
    w = DotWriter("x y", rankdir="LR")
    w.node("a-b", label="{not a record}")
    w.node("ok", label=Html("<B>b</B>"))
    with w.cluster("c", label="c"):
        w.node("inner")
    w.edge("a-b", "ok", constraint=False)
    assert w.text() == (
        'digraph "x y" {\n  rankdir="LR";\n  "a-b" [label="{not a record}"];\n'
        '  ok [label=<<B>b</B>>];\n  subgraph cluster_c {\n    label="c";\n    inner;\n  }\n'
        '  "a-b" -> ok [constraint=false];\n}\n')


def test_writer_refuses_unbalanced_clusters():
    w = DotWriter("g")
    with pytest.raises(ValueError, match="without an open cluster"):
        w.close_cluster()
    w.open_cluster("a")
    with pytest.raises(ValueError, match="1 cluster"):
        w.text()


@needs_dot
def test_tricky_labels_render():
    svg = graphviz.render(parse_ir(TRICKY).to_dot(), "svg").decode()
    # Graphviz shows the constant as torch prints it: \\N is not the node's name
    assert "&quot;say \\&quot;hi\\&quot; {x} &lt;b&gt; &amp; \\\\N end&quot;" in svg
    assert "&lt;stdin&gt;:3" in svg


# -- the instruction table's picture -------------------------------------------------------

def test_basic_blocks_and_successors_of_fib():
    code = Code(_graph(FIB), optimize=False)  # the seed's table, pinned
    blocks = basic_blocks(code)
    assert blocks == [BasicBlock(0, 9), BasicBlock(9, 16), BasicBlock(16, 19)]
    assert [successors(code, b) for b in blocks] == [
        [(16, "jump if false"), (9, "fall through")],
        [(9, "jump if true"), (16, "fall through")],
        [(19, "fall through")]]


IF_GRAPH = """graph(%c : bool, %x : int):
  %y : int = prim::If(%c)
    block0():
      %a : int = aten::neg(%x)
      -> (%a)
    block1():
      -> (%x)
  return (%y)
"""


def test_if_is_a_diamond():
    code = Code(parse_ir(IF_GRAPH), optimize=False)  # the seed's table, pinned
    assert code.dump() == (
        "0  0, 1 = prim::Load\n"
        "1   = prim::JumpNZ move(0) -> 4\n"
        "2  2 = prim::Assign 1\n"
        "3   = prim::Jump -> 6\n"
        "4  3 = aten::neg 1\n"
        "5  2 = prim::Assign move(3)\n"
        "6   = prim::Drop move(1)\n"
        "7   = prim::Store move(2)\n")
    dot = read_dot(code.to_dot())
    assert list(dot.nodes) == ["c0_b0", "c0_b2", "c0_b4", "c0_b6", "c0_end"]
    assert [(t, h, a["label"]) for t, h, a in dot.edges] == [
        ("c0_b0", "c0_b4", "jump if true"), ("c0_b0", "c0_b2", "fall through"),
        ("c0_b2", "c0_b6", "jump"),
        ("c0_b4", "c0_b6", "fall through"),
        ("c0_b6", "c0_end", "fall through")]
    assert html_text(dot.nodes["c0_b2"]["label"]).split("\n") == [
        "pc 2–3", "2\t2 = prim::Assign 1\t", "3\t = prim::Jump -> 6\t"]  # no source line
    assert html_text(dot.nodes["c0_end"]["label"]) == "end (pc 8)"


def test_fork_codes_are_clusters():
    code = Code(_graph(FIXTURES / "graphs" / "script_fork_nested.ir"), optimize=False)  # the seed's table, pinned
    dot = read_dot(code.to_dot())
    assert {c: d.parent for c, d in dot.clusters.items()} == {
        "cluster_1": None, "cluster_2": "cluster_1", "cluster_3": "cluster_1",
        "cluster_4": None}
    forks = [(t, h) for t, h, a in dot.edges if a.get("label") == "fork"]
    assert forks == [("c0_b0", "c1_b0"), ("c1_b0", "c2_b0"), ("c1_b0", "c3_b0"),
                     ("c0_b0", "c4_b0")]
    assert label_text(dot.clusters["cluster_1"].attrs["label"]) == (
        "prim::fork at pc 1  (programs.py:1593): 12 instructions")


def _codes(code):
    out = [code]
    for sub in code.subcodes():
        out.extend(_codes(sub))
    return out


def check_code_picture(code: Code) -> None:
    dot = read_dot(code.to_dot())
    codes = _codes(code)
    names, want_edges = [], []
    for k, c in enumerate(codes):
        blocks = basic_blocks(c)
        # the blocks tile the table
        assert [pc for b in blocks for pc in range(b.start, b.stop)] == list(range(len(c)))
        name = {b.start: f"c{k}_b{b.start}" for b in blocks}
        name[len(c)] = f"c{k}_end"
        names += [name[b.start] for b in blocks] + [f"c{k}_end"]
        for b in blocks:
            rows = html_text(dot.nodes[name[b.start]]["label"]).split("\n")
            assert [r.split("\t")[0] for r in rows[1:]] == [
                str(pc) for pc in range(b.start, b.stop)]
            for row, pc in zip(rows[1:], range(b.start, b.stop)):
                shown, text = row.split("\t")[1], c.instruction(pc)
                assert shown == text or (len(shown) == 100 and shown.endswith("…")
                                         and text.startswith(shown[:-1])), (shown, text)
            want_edges += [(name[b.start], name[t], label) for t, label in successors(c, b)]
        assert dot.cluster_of[f"c{k}_end"] == (None if k == 0 else f"cluster_{k}")
    assert list(dot.nodes) == names
    got = [(t, h, a["label"]) for t, h, a in dot.edges if a["label"] != "fork"]
    assert got == want_edges
    assert len(dot.clusters) == len(codes) - 1
    assert sum(a["label"] == "fork" for _, _, a in dot.edges) == len(codes) - 1


@pytest.mark.parametrize("path", CORPUS, ids=[p.stem for p in CORPUS])
def test_every_corpus_table_is_drawn_completely(path):
    check_code_picture(Code(_graph(path)))


def test_fork_tables_are_drawn_completely():
    check_code_picture(Code(_graph(FIXTURES / "graphs" / "script_fork_nested.ir")))


@needs_dot
def test_every_picture_is_valid_for_dot():
    texts = [_graph(p).to_dot(name=p.name) for p in GRAPHS]
    texts += [Code(_graph(p)).to_dot(name=p.name) for p in CORPUS[:40]]
    _draw_all(texts)


# -- rendering, the CLI, Jupyter ----------------------------------------------------------

@needs_dot
def test_render_svg_and_png():
    text = _graph(FIB).to_dot(name="fib")
    svg = graphviz.render(text, "svg").decode()
    assert svg.lstrip().startswith("<?xml") and "<svg" in svg
    assert 'class="cluster"' in svg and "prim::Loop body" in svg
    assert svg.count('class="node"') == 9 and svg.count('class="edge"') == 12
    png = graphviz.render(text, "png")
    assert png.startswith(b"\x89PNG\r\n\x1a\n")


def test_render_refuses_an_unknown_format():
    with pytest.raises(ValueError, match="the formats are svg, png, pdf"):
        graphviz.render("digraph {}", "gif")


def test_render_without_dot_says_how_to_install_it(monkeypatch):
    monkeypatch.setattr(graphviz, "dot_program", lambda: None)
    with pytest.raises(graphviz.GraphvizError, match="apt-get install graphviz"):
        graphviz.render("digraph {}", "svg")


@needs_dot
def test_render_reports_what_dot_said():
    with pytest.raises(graphviz.GraphvizError, match="`dot -Tsvg` failed: .*syntax error"):
        graphviz.render("digraph { a -> }", "svg")


def test_cli_writes_dot_text(capsys, tmp_path):
    assert main(["dot", "--sources", str(FIB)]) == 0
    assert capsys.readouterr().out == _graph(FIB).to_dot(name="fib")
    # Without --sources the file the locations name is not read: no source lines.
    assert main(["dot", str(FIB)]) == 0
    unread = capsys.readouterr().out
    assert "fib.py:9" in unread and "a, b = b, a + b" not in unread
    out = tmp_path / "fib.gv"
    assert main(["dot", "--code", "--sources", str(FIB), "-o", str(out)]) == 0
    assert out.read_text() == Code(_graph(FIB)).to_dot(name="fib")


@needs_dot
@pytest.mark.parametrize("suffix, magic", [("svg", b"<?xml"), ("png", b"\x89PNG"),
                                           ("pdf", b"%PDF")])
def test_cli_draws_pictures(tmp_path, suffix, magic):
    out = tmp_path / f"fib.{suffix}"
    assert main(["dot", str(FIB), "-o", str(out)]) == 0
    assert out.read_bytes().startswith(magic)


def test_cli_without_dot_is_one_line(tmp_path):
    """No ``dot`` on PATH: exit status 1 and one line saying how to install it."""
    env = checkout_env(PATH=str(tmp_path))
    done = subprocess.run([sys.executable, "-m", "pyjit", "dot", str(FIB), "-o",
                           str(tmp_path / "fib.svg")], capture_output=True, text=True, env=env)
    assert done.returncode == 1
    assert done.stdout == ""
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
    assert done.stderr.startswith("pyjit: error: drawing SVG needs Graphviz's `dot`")
    assert "apt-get install graphviz" in done.stderr
    assert not (tmp_path / "fib.svg").exists()


@pytest.mark.parametrize("args, message", [
    (["-o", "x.jpg"], "cannot tell the format of x.jpg: name it .dot or .gv"),
    (["-o", "/nonexistent/dir/x.dot"], "cannot write /nonexistent/dir/x.dot"),
])
def test_cli_errors(capsys, args, message):
    assert main(["dot", str(FIB)] + args) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"pyjit: error: {message}") and err.count("\n") == 1


def test_cli_bad_graph_is_one_line(capsys, tmp_path):
    bad = tmp_path / "bad.ir"
    bad.write_text("graph(%x : int):\n  return (%y)\n")
    assert main(["dot", str(bad)]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"pyjit: error: {bad}:2:") and err.count("\n") == 1


@needs_dot
def test_jupyter_shows_the_picture():
    g = _graph(FIB)
    svg = g._repr_svg_()
    assert "<svg" in svg and "prim::Loop body" in svg
    formatters = pytest.importorskip("IPython.core.formatters",
                                     reason="IPython is not installed")
    data, _ = formatters.DisplayFormatter().format(g)
    assert data["image/svg+xml"] == svg
    assert data["text/plain"] == str(g)


def test_jupyter_falls_back_to_text_without_dot(monkeypatch):
    monkeypatch.setattr(graphviz, "dot_program", lambda: None)
    g = _graph(FIB)
    assert g._repr_svg_() is None
    formatters = pytest.importorskip("IPython.core.formatters",
                                     reason="IPython is not installed")
    data, _ = formatters.DisplayFormatter().format(g)
    assert data == {"text/plain": str(g)}
