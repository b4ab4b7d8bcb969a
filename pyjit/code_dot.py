"""An instruction table as a picture: :func:`code_to_dot` writes the control-flow
graph of a :class:`~pyjit.code.Code` in Graphviz DOT.

The table is cut into basic blocks, runs of instructions that control enters only
at the first and leaves only after the last (:func:`basic_blocks`).  Each block is
a box listing its instructions as ``pyjit dump`` prints them, with the source line
each came from; each way out of a block is an edge (:func:`successors`):

* ``jump``: a ``JUMP``, always taken;
* ``jump if false`` / ``jump if true``: a ``JUMPZ``/``JF`` / ``JUMPNZ``/``JT``
  taken; ``jump if JLT_I`` and the like: the other conditional jumps of
  :mod:`pyjit.opcodes` (compare-and-branch, a Loop's counter) taken;
* ``fall through``: on to the next instruction (a conditional jump not taken, or
  a block that ends because the next instruction is a jump target).

A jump to ``len(code)``, and falling off the last instruction, go to the ``end``
node: the run returns to its caller.  The seed's If lowering, for instance, is a
diamond, and its Loop lowering a block that jumps back to itself::

    [ .. JUMPNZ c ]--jump if true-->[ then .. ]        [ ASSIGN; JUMPZ ]--jump if false--+
         | fall through                 |              | fall through                    |
    [ else .. ; JUMP ]--jump-->[ end of If ]           [ body .. JUMPNZ ]<-jump if true--+
                                                       ...                               v

A ``STACKCALL`` operator may return a jump of its own, which the table does not
record: its block shows only its fall-through.  The Codes of fork subgraphs
(:meth:`~pyjit.code.Code.subcode_sites`) are drawn as clusters, joined by a dashed
``fork`` edge from the block whose instruction starts them.

DOT names: ``c<k>_b<pc>`` is the block starting at ``pc`` of the k-th Code drawn
(0: this Code, then its forks' Codes in instruction order, each followed by its
own), ``c<k>_end`` its end, ``cluster_<k>`` the cluster of Code k (k >= 1).
"""

from __future__ import annotations

from typing import Iterator, List, NamedTuple, Tuple

from . import opcodes as op
from .code import Code
from .graphviz import DotWriter, Html, clip, html_escape
from .ir.traversal import walk_blocks

__all__ = ["BasicBlock", "basic_blocks", "successors", "code_to_dot"]

_TAKEN = {code: op.BY_CODE[code].jump_label for code in op.JUMPS}
_FONT = "Helvetica"
_MONO = "Courier"
_WIDTH = 100  # longest instruction text before it is cut with an ellipsis


class BasicBlock(NamedTuple):
    """Instructions ``start`` to ``stop - 1`` of a Code: entered only at ``start``,
    left only after ``stop - 1``."""

    start: int
    stop: int


def basic_blocks(code: Code) -> List[BasicBlock]:
    """The basic blocks of ``code``, in table order.

    A block starts at pc 0, at every jump target, and after every jump; the
    blocks cover the table exactly (an empty table has none)."""
    ops, args, n = code.columns["op"], code.columns["arg"], len(code)
    leaders = {0} if n else set()
    for pc in range(n):
        if ops[pc] in op.JUMPS:
            leaders.update(t for t in (int(args[pc]), pc + 1) if t < n)
    starts = sorted(leaders)
    return [BasicBlock(a, b) for a, b in zip(starts, starts[1:] + [n])]


def successors(code: Code, block: BasicBlock) -> List[Tuple[int, str]]:
    """Where control goes after ``block``: ``(pc, label)`` pairs, the taken jump
    first; ``pc == len(code)`` is the end of the run."""
    last = block.stop - 1
    opcode, target = int(code.columns["op"][last]), int(code.columns["arg"][last])
    if opcode == op.JUMP:
        return [(target, _TAKEN[op.JUMP])]
    if opcode in _TAKEN:
        return [(target, _TAKEN[opcode]), (block.stop, "fall through")]
    return [(block.stop, "fall through")]


def _where(code: Code, pc: int) -> str:
    loc = code.node_at(pc).source_location
    return "" if loc is None else loc.short()


def _span(block: BasicBlock) -> str:
    if block.stop - block.start == 1:
        return f"pc {block.start}"
    return f"pc {block.start}–{block.stop - 1}"


def _block_label(code: Code, block: BasicBlock) -> Html:
    """A table: a header, then one row per instruction (pc, text, source line)."""
    rows = [f'<TR><TD ALIGN="LEFT" COLSPAN="3"><B>{_span(block)}</B></TD></TR>']
    previous = None
    for pc in range(block.start, block.stop):
        where = _where(code, pc)
        # Graphviz refuses an empty <FONT> element, so an empty cell has none.
        shown = (f'<FONT POINT-SIZE="9" COLOR="#7f7f7f">{html_escape(where)}</FONT>'
                 if where and where != previous else "")
        previous = where
        rows.append(
            f'<TR><TD ALIGN="RIGHT"><FONT COLOR="#7f7f7f">{pc}</FONT></TD>'
            f'<TD ALIGN="LEFT"><FONT FACE="{_MONO}">{html_escape(clip(code.instruction(pc), _WIDTH))}'
            f'</FONT></TD><TD ALIGN="LEFT">{shown}</TD></TR>')
    return Html('<TABLE BORDER="0" CELLBORDER="0" CELLSPACING="0" CELLPADDING="2">'
                + "".join(rows) + "</TABLE>")


class _Drawing:
    """One :func:`code_to_dot`: numbers the Codes as they are drawn."""

    def __init__(self, writer: DotWriter) -> None:
        self.w = writer
        self.count = 0
        self.forks: List[Tuple[str, str, int]] = []   # (tail, head, pc) of fork edges

    def scan(self, code: Code) -> Iterator[Code]:
        """Draw ``code``; a generator for :func:`walk_blocks`, yielding fork Codes."""
        k = self.count
        self.count += 1
        blocks = basic_blocks(code)
        block_of = {}
        for b in blocks:
            name = f"c{k}_b{b.start}"
            block_of.update((pc, name) for pc in range(b.start, b.stop))
            self.w.node(name, label=_block_label(code, b), tooltip=_span(b),
                        shape="box", style="filled", fillcolor="#e8f0fa", color="#4a6fa5")
        end = f"c{k}_end"
        self.w.node(end, label=f"end (pc {len(code)})", shape="box", style="rounded,filled",
                    fillcolor="#fbe5d6", color="#c55a11")
        block_of[len(code)] = end
        for b in blocks:
            for target, label in successors(code, b):
                taken = label != "fall through"
                self.w.edge(block_of[b.start], block_of[target], label=label,
                            color="#2f5597" if taken else "#595959",
                            fontcolor="#2f5597" if taken else "#595959")
        for pc, sub in code.subcode_sites():
            node = code.node_at(pc)
            where = _where(code, pc)
            label = f"{node.kind} at pc {pc}{f'  ({where})' if where else ''}: {len(sub)} instructions"
            self.forks.append((block_of[pc], f"c{self.count}_b0" if len(sub) else
                               f"c{self.count}_end", pc))
            self.w.open_cluster(str(self.count), label=label, style="rounded,filled",
                                fillcolor="#f7f7f7", color="#a6a6a6", labeljust="l",
                                fontname=_FONT, fontsize=11)
            yield sub
            self.w.close_cluster()


def code_to_dot(code: Code, *, name: str = "code") -> str:
    """The DOT text of ``code``'s control-flow graph (see the module docstring for
    what is drawn and how the DOT names its parts)."""
    w = DotWriter(name, rankdir="TB", fontname=_FONT, nodesep=0.4, ranksep=0.4,
                  node_defaults=dict(fontname=_FONT, fontsize=10, margin="0.08,0.04"),
                  edge_defaults=dict(fontname=_FONT, fontsize=9, arrowsize=0.7))
    drawing = _Drawing(w)
    walk_blocks(code, drawing.scan)
    for tail, head, pc in drawing.forks:
        w.edge(tail, head, label="fork", style="dashed", color="#bf9000", fontcolor="#7f6000",
               tooltip=f"the instruction at pc {pc} starts this Code")
    return w.text()
