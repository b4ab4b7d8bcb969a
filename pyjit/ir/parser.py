"""Text -> Graph: read a graph exactly as torch prints it.

:func:`parse_ir` accepts what ``str(torch.jit.script(f).graph)`` prints (inlined,
traced and optimized graphs too) and what pyjit's own printer writes, and for
such text ``str(parse_ir(text)) == text``, byte for byte::

    graph(%x.1 : int,                                  graph inputs
          %n : int):
      %2 : int = prim::Constant[value=1]() # f.py:3:12   a node: outputs, kind,
      %y : int = prim::Loop(%n, %c, %x.1) # f.py:4:4      attributes, inputs, and
        block0(%i : int, %acc : int):                     a source location
          %s : int = aten::add(%acc, %i)
          -> (%c, %s)                                     a block's outputs
       = prim::RaiseException(%m, %t)                     a node without outputs
      %f : Future[int] = prim::fork_0(%x.1)               a node with a subgraph,
      return (%y)                                         which follows the graph:
    with prim::fork_0 = graph(%a : int):
      return (%a)

What the parser keeps:

* value names: ``%5`` becomes the value with unique id 5 and no debug name (so it
  prints as ``%5`` again); ``%a.1`` becomes a value named ``a.1``.  Named values
  get ids above every number in the text, so the two never collide;
* attributes as Python values: ``int`` (bools too: ``value=1``), ``float``
  (``3.``, ``1e-05``, ``inf``, ``-nan``), ``complex`` (``1.+2.j``), ``str``, lists,
  tuples, dicts, ``True``/``False``/``None`` inside them, types (``types=[int]``),
  typed empty containers (``annotate(List[int], [])``: a list that remembers the
  annotation, :class:`~pyjit.ir.literals.AnnotatedList`);
  what cannot become a value keeps its text in a :class:`~pyjit.ir.literals.Literal`
  (tensors: ``{1.5}``, `` 1  2 [ CPULongType{2} ]``, ``<Tensor>``; enum values;
  ``<Graph>``);
* ``# file:line:col`` as ``node.source_location`` and ``, scope: a/b`` as
  ``node.scope``;
* ``kind_N(...)`` nodes with their ``with kind_N = graph(...)`` section as the
  ``Subgraph`` attribute.  Each graph's sections follow its own ``return``, in the
  order its nodes refer to them, so a nested fork's section comes right after
  the graph that holds it.

Bad text raises :class:`~pyjit.errors.ParseError` with the line, the column and a
caret: unexpected tokens, undefined values and values used outside their block,
redefined values, If/Loop blocks whose inputs or outputs do not fit the node
(count or type), ``with`` sections that no node refers to or that are missing.
Blocks are parsed with an explicit stack, so nesting depth is not limited by
Python's recursion limit; attribute values and types, which torch never nests
deeply, are limited to 100 levels.
"""

from __future__ import annotations

import bisect
import re
from typing import Any, Dict, List, NoReturn, Optional, Tuple

from . import types as T
from .graph import Block, Graph, Node, Value, _add_use
from .constant_check import constant_problem
from .literals import (TENSOR_TRAILER, Literal, TensorLiteral, annotated,
                       is_tensor_print_body)
from .printer import format_float
from .source import NO_LINES, SourceLocation
from .type_relation import fits
from .type_grammar import MAX_DEPTH, Cursor, TypeReader, balanced, describe_token
from .symbols import is_qualified, prim
from .. import gcpause
from ..errors import ParseError

__all__ = ["parse_ir"]

SUBGRAPH = "Subgraph"
#: A ``prim::PythonOp``'s attributes for what torch prints as ``^name[...](scalars)``.
PYTHON_OP_NAME, PYTHON_OP_SCALARS = "name", "scalars"
_MAX_DEPTH = MAX_DEPTH  # nesting of attribute values, as of types
_MAX_DIGITS = 4000     # Python refuses to convert longer digit strings to int
_TENSOR_PRINT_WINDOW = 2000  # characters an at::print tensor literal may span

_WS = re.compile(r"[ \t\r\n]*")
_SPACES = re.compile(r"[ \t]*")
_LINE_BLANKS = re.compile(r"[ \t\r]*")
_NAME = re.compile(r"[\w.]+")
_IDENT = re.compile(r"[A-Za-z_]\w*", re.ASCII)
_DOTTED = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*", re.ASCII)
_KIND = re.compile(r"[A-Za-z_]\w*::\w+(?:\.\w+)*", re.ASCII)
_PYTHON_OP = re.compile(r"\^([A-Za-z_][\w.]*)", re.ASCII)
_GROUP_REF = re.compile(r"(.+)_([0-9]+)\Z")
_BLOCK = re.compile(r"block([0-9]+)")
_WORD_END = re.compile(r"(?![\w.])")
_REAL = r"(?:[0-9]+\.?[0-9]*(?:e[+-]?[0-9]+)?|inf|nan)"
_NUMBER = re.compile(rf"(-?{_REAL})(?:([+-])({_REAL})j)?(?![\w.])")
_INT = re.compile(r"-?[0-9]+\Z")
_ONE_ELEMENT = re.compile(rf"\{{(?:-?{_REAL}|\(-?{_REAL},-?{_REAL}\))\}}")
_SPECIAL = re.compile(r'[\[\]"\n]')
_NUMERIC_REF = re.compile(r"%([0-9]+)(?![\w.])")
_LOCATION = re.compile(r"(.*):([0-9]+):([0-9]+)\Z", re.S)
_OPAQUE = ("<Tensor>", "<Graph>", "[<Tensors>]", "[<Graphs>]", "[<Types>]")
_BLOCKS_OF = {prim.If: 2, prim.Loop: 1}
_CHECKED_KINDS = frozenset((prim.Constant, prim.If, prim.Loop))  # see _check_node

# The fast paths.  Nearly every line torch prints spells its outputs and inputs
# in one canonical way (``%a : int, %b : Tensor = `` and ``(%x, %y)``, single
# spaces, simple types); one regex match reads such a list whole, and anything
# else (other spacing, newlines between tokens, types with parentheses) goes
# through the general, token by token reader.  Both build the same nodes: the
# fast path only skips the cursor's per-token steps.
_SIMPLE_TYPE = r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*(?:\[\]|\?)*"
_OUTPUT_DEF = re.compile(rf"%([\w.]+) : ({_SIMPLE_TYPE})(, | = )")
_ONE_OUTPUT_NODE = re.compile(rf"%([\w.]+) : ({_SIMPLE_TYPE}) = ({_KIND.pattern})"
                              r"\(((?:%[\w.]+(?:, %[\w.]+)*)?)\)(\n)?", re.ASCII)
_SIMPLE_HEAD = re.compile(rf"(?:(?:%[\w.]+ : {_SIMPLE_TYPE}, )*%[\w.]+ : {_SIMPLE_TYPE} )?= "
                          rf"({_KIND.pattern})", re.ASCII)
_SIMPLE_REFS = re.compile(r"\((?:%[\w.]+(?:, %[\w.]+)*)?\)")
_REF = re.compile(r"%([\w.]+)")

_ESCAPES = {"\\": b"\\", "'": b"'", '"': b'"', "a": b"\a", "b": b"\b", "f": b"\f",
            "n": b"\n", "r": b"\r", "t": b"\t", "v": b"\v"}
_ESCAPE_DIGITS = frozenset(")*+,-./01234567")


def parse_ir(text: str, file: Optional[str] = None, *, lowered: bool = False,
             read_sources: bool = False) -> Graph:
    """Parse the text of a graph as torch (or :func:`~pyjit.ir.print_graph`) prints it.

    Args:
        text: the graph text, e.g. ``str(torch.jit.script(f).graph)``.
        file: the name errors report the text as coming from (default ``<string>``).
        lowered: the text is a graph after the code generator's passes (what
            ``str(Code(g).graph)`` prints), so ``prim::Load``, ``prim::Store`` and
            ``prim::Drop`` nodes may appear; anywhere else they are an error, as
            only those passes may insert them.
        read_sources: a node's ``# file:line:col`` may be read from that file for
            messages, profiles and pictures (the source line under the location).
            Off by default: IR text may come from anyone and name any file, and
            pyjit reads no file that untrusted text names.  Turn it on for graphs
            you printed from your own code.

    Returns:
        the :class:`~pyjit.ir.Graph`; ``str()`` of it gives ``text`` back.

    Raises:
        ParseError: the text is not a well-formed graph; the error names the line
            and column (``file:line:col: message``, then the line and a caret).
    """
    if not isinstance(text, str):
        raise TypeError(f"parse_ir() needs the graph text as a str, not {type(text).__name__}")
    if text.startswith("\ufeff"):
        # A UTF-8 byte order mark, as some editors write: not part of the graph
        # (columns on the first line count from after it, as an editor shows them).
        text = text[1:]
    with gcpause.paused():  # a parse makes objects, never garbage: see gcpause
        parser = _Parser(text, file, lowered, read_sources)
        try:
            return parser.parse()
        finally:
            # The parser refers to itself through its type reader (which reports
            # errors with parser.fail): left to the collector, its tables (two
            # entries per value) would outlive the parse.
            parser._types_reader = None


class _Frame:
    """One block being parsed: the block, the names it defined (they leave scope
    with it) and the node whose blocks may follow (its outputs enter scope once
    they are done)."""

    __slots__ = ("block", "names", "pending", "pending_pos")

    def __init__(self, block: Block) -> None:
        self.block = block
        self.names: List[str] = []
        self.pending: Optional[Node] = None
        self.pending_pos = 0


class _Parser(Cursor):
    """A cursor over the whole text (``pos``), with one method per construct.

    Whitespace, newlines included, may separate tokens; only a node's trailing
    ``, scope:`` and ``# location`` run to the end of their line, and each
    statement must end its line.
    """

    def __init__(self, text: str, file: Optional[str], lowered: bool = False,
                 read_sources: bool = False) -> None:
        super().__init__(text)
        self.file = file
        self.lowered = lowered
        # What a location reads its line from: the file it names, or nothing.
        self._lines = None if read_sources else NO_LINES
        self.n = len(text)
        self._line_starts: Optional[List[int]] = None  # made for the first error
        # Named values are numbered above every %N of the text: no collisions.
        self.first_free_id = max((len(m.group(1)) <= _MAX_DIGITS and int(m.group(1))
                                  for m in _NUMERIC_REF.finditer(text)), default=-1) + 1
        # Per graph: every name defined so far -> the position of its definition,
        # and the names in scope at this point.
        self.defined: Dict[str, int] = {}
        self.visible: Dict[str, Value] = {}
        self.value_pos = 0  # where the last ``value=`` attribute's value starts
        self._types_reader = TypeReader(text, self.fail)
        # The text of a simple type (``int``, ``Tensor?``) -> its Type, read once.
        self._simple_types: Dict[str, T.Type] = {}
        self._kinds: Dict[str, str] = {}

    # -- errors --------------------------------------------------------------------
    def _where(self, pos: int) -> Tuple[int, int, str]:
        if pos >= self.n and self.n and self.text[-1] == "\n":
            pos = self.n - 1  # report the end of input at the end of the last line
        pos = min(pos, self.n)
        if self._line_starts is None:
            self._line_starts = [0] + [m.end() for m in re.finditer("\n", self.text)]
        i = bisect.bisect_right(self._line_starts, pos) - 1
        start = self._line_starts[i]
        end = self.text.find("\n", start)
        if end < 0:
            end = self.n
        return i + 1, pos - start, self.text[start:end].rstrip("\r")

    def _line_of(self, pos: int) -> int:
        return self._where(pos)[0]

    def fail(self, message: str, pos: Optional[int] = None) -> NoReturn:
        line, col, line_text = self._where(self.pos if pos is None else pos)
        raise ParseError(message, line, col, file=self.file, line_text=line_text)

    def _found(self, pos: Optional[int] = None) -> str:
        """What is at ``pos``, for messages: ``'foo'``, ``end of line``..."""
        return describe_token(self.text, self.pos if pos is None else pos)

    # -- lexing (and Cursor's _ws, _spaces, _at, _eat) -------------------------------
    def _at_word(self, word: str) -> bool:
        return self._at(word) and bool(_WORD_END.match(self.text, self.pos + len(word)))

    def _expect(self, s: str, context: str = "") -> None:
        if not self._eat(s):
            self.fail(f"expected '{s}'{context}, found {self._found()}")

    def _eol(self) -> None:
        """The end of a line: only blanks may remain on it."""
        self.pos = _LINE_BLANKS.match(self.text, self.pos).end()
        if self.pos < self.n:
            if self.text[self.pos] != "\n":
                self.fail(f"expected the end of the line, found {self._found()}")
            self.pos += 1

    def _int(self, digits: str, pos: int, what: str) -> int:
        if len(digits) > _MAX_DIGITS:
            self.fail(f"{what} has too many digits", pos)
        return int(digits)

    # -- graphs and sections -------------------------------------------------------------
    def parse(self) -> Graph:
        graph, refs = self._graph()
        # Each graph's ``with`` sections follow its return, one per kind_N node in
        # node order; a section's graph may have sections of its own, which come
        # first.  The stack holds, per graph, the references not yet resolved.
        pending = [[refs, 0]]
        while pending:
            top = pending[-1]
            refs, i = top
            if i == len(refs):
                pending.pop()
                continue
            top[1] = i + 1
            node, label, node_pos = refs[i]
            self._ws()
            if not self._at_word("with"):
                self.fail(f"missing with section for {label} (the node at line "
                          f"{self._line_of(node_pos)}), found {self._found()}")
            with_pos = self.pos
            self.pos += 4
            self._ws()
            found = self._group_label()
            if found != label:
                self.fail(f"with section {found} does not match the next subgraph node, "
                          f"{label} at line {self._line_of(node_pos)}", with_pos)
            self._expect("=", f" after 'with {label}'")
            sub, sub_refs = self._graph()
            node.attrs[SUBGRAPH] = sub
            pending.append([sub_refs, 0])
        self._ws()
        if self.pos < self.n:
            if self._at_word("with"):
                start = self.pos
                self.pos += 4
                self._ws()
                self.fail(f"unknown with section {self._group_label()}: no node of the "
                          f"graph refers to it", start)
            self.fail(f"expected the end of the text, found {self._found()}")
        return graph

    def _group_label(self) -> str:
        m = _KIND.match(self.text, self.pos)
        if not m:
            self.fail(f"expected a subgraph name such as prim::fork_0, found {self._found()}")
        self.pos = m.end()
        return m.group()

    def _graph(self) -> Tuple[Graph, List[Tuple[Node, str, int]]]:
        """One ``graph(...): ... return (...)``; returns the graph and its kind_N
        nodes (node, label, position), whose sections the caller reads."""
        graph = Graph()
        # Named values draw their ids from here up; %N values get N itself.
        graph._next_unique = self.first_free_id
        self.defined = {}
        self.visible = {}
        refs: List[Tuple[Node, str, int]] = []
        self._ws()
        if not self._at_word("graph"):
            self.fail(f"expected 'graph', found {self._found()}")
        self.pos += 5
        top = _Frame(graph.block)
        self._expect("(")
        self._defs(top, graph.param_node)
        self._expect(")", " after the graph's inputs")
        self._expect(":")
        self._eol()
        frames = [top]
        text = self.text
        while True:
            self._ws()
            frame = frames[-1]
            if text.startswith(("%", "="), self.pos):
                self._finish(frame)
                self._node(graph, frame, refs)
            elif self._at("block") and _BLOCK.match(self.text, self.pos):
                self._block_header(frames)
            elif self._at("->"):
                if len(frames) == 1:
                    self.fail("'->' outside a block: the graph ends with 'return'")
                self._block_end(frames)
            elif self._at_word("return"):
                if len(frames) > 1:
                    b = frame.block
                    self.fail(f"'return' inside block{b.owning_node._blocks.index(b)} of "
                              f"{b.owning_node.kind}: a block ends with '-> (...)'")
                self._finish(frame)
                self.pos += 6
                for v in self._refs("return"):
                    graph.register_output(v)
                self._eol()
                return graph, refs
            else:
                self.fail(f"expected a node, 'block', '->' or 'return', found {self._found()}")

    # -- values -----------------------------------------------------------------------
    def _name(self) -> Tuple[str, int]:
        """``%name``; returns the name (without ``%``) and its position."""
        self._ws()
        pos = self.pos
        if not self._at("%"):
            self.fail(f"expected a value such as %x, found {self._found()}")
        m = _NAME.match(self.text, pos + 1)
        if not m:
            self.fail(f"expected a value name after '%', found {self._found(pos + 1)}", pos + 1)
        self.pos = m.end()
        return m.group(), pos

    def _define(self, name: str, pos: int, node: Node, type: T.Type, frame: _Frame,
                visible: bool) -> Value:
        if name in self.defined:
            self.fail(f"redefinition of value %{name} (first defined at line "
                      f"{self._line_of(self.defined[name])})", pos)
        if name.isascii() and name.isdigit():
            if len(name) > 1 and name[0] == "0":
                self.fail(f"value %{name}: a numeric name has no leading zeros", pos)
            v = node._add_output_with_id(type, self._int(name, pos, f"value %{name[:20]}"))
        else:
            v = node.add_output(type)
            # What set_debug_name would do: the name is not numeric (just
            # checked) and no other value of this graph holds it (it would be
            # in self.defined), so there is nothing to rename.
            v._name = name
            node._graph._names[name] = v
        self.defined[name] = pos
        if visible:
            self.visible[name] = v
            frame.names.append(name)
        return v

    def _use(self, name: str, pos: int) -> Value:
        v = self.visible.get(name)
        if v is None:
            if name in self.defined:
                self.fail(f"value %{name} (defined at line {self._line_of(self.defined[name])}) "
                          f"is not in scope here", pos)
            self.fail(f"undefined value %{name}", pos)
        return v

    def _defs(self, frame: _Frame, param: Node) -> List[int]:
        """``%a : T, %b : U`` up to ``)``, defined as outputs of ``param``; returns
        their positions."""
        positions: List[int] = []
        self._ws()
        if self._at(")"):
            return positions
        while True:
            name, pos = self._name()
            self._expect(":", f" and a type after %{name}")
            t = self._type_at()
            self._define(name, pos, param, t, frame, True)
            positions.append(pos)
            if not self._eat(","):
                return positions

    def _refs(self, what: str, positions: Optional[List[int]] = None) -> List[Value]:
        """``(%a, %b)``: values in scope (their positions go to ``positions``)."""
        self._ws()
        m = _SIMPLE_REFS.match(self.text, self.pos)
        if m is not None:
            self.pos = m.end()
            values = []
            for r in _REF.finditer(self.text, m.start(), self.pos):
                values.append(self._use(r.group(1), r.start()))
                if positions is not None:
                    positions.append(r.start())
            return values
        self._expect("(", f" after '{what}'")
        values = []
        self._ws()
        if self._eat(")"):
            return values
        while True:
            name, pos = self._name()
            values.append(self._use(name, pos))
            if positions is not None:
                positions.append(pos)
            self._ws()
            if self._eat(")"):
                return values
            if not self._eat(","):
                self.fail(f"expected ',' or ')', found {self._found()}")

    # -- nodes and blocks -----------------------------------------------------------------
    def _node(self, graph: Graph, frame: _Frame, refs: List[Tuple[Node, str, int]]) -> None:
        """``%a : T, %b : U = kind[attrs](%x, %y), scope: s # f.py:1:2``."""
        m = _ONE_OUTPUT_NODE.match(self.text, self.pos)
        if m is not None and not m.group(3)[-1].isdigit():  # kind_N: see _node_head
            self._one_output_node(graph, frame, m)
            return
        node, outputs, kind_pos, label = self._node_head(graph, refs)
        if self._at("["):
            self._attributes(node)
        for v in self._refs(node.kind):
            node.add_input(v)
        self._comment(node)
        self._eol()
        for name, pos, t in outputs:
            self._define(name, pos, node, t, frame, False)
        if node.kind == prim.Constant and len(outputs) == 1 and "value" in (node._attrs or ()):
            node.attrs["value"] = _as_type(node.attrs["value"], outputs[0][2])
            problem = constant_problem(node.attrs["value"], outputs[0][2])
            if problem is not None:
                self.fail(problem, self.value_pos)
        self._place(node, frame, kind_pos, outputs)
        if label:
            refs.append((node, label, kind_pos))

    def _one_output_node(self, graph: Graph, frame: _Frame, m: "re.Match[str]") -> None:
        """The fast path of :meth:`_node`, for the commonest line: one output of a
        simple type, no attributes, inputs in canonical form (``m`` matched
        ``_ONE_OUTPUT_NODE``), and the lines after it while they are of that form
        too.  The same steps in the same order as :meth:`_node` (and, between
        lines, :meth:`_graph`), with fewer calls: a graph of a million nodes is a
        million of these."""
        text, visible, simple_types = self.text, self.visible, self._simple_types
        defined, kinds = self.defined, self._kinds
        names = graph._names
        new_node, init_node = Node.__new__, Node._init
        while True:
            name, type_text, kind, ins, newline = m.groups()
            kind_pos = m.start(3)
            # _new_node, written out for a kind it has let through before (its
            # checks depend on the kind alone; self._kinds holds those it passed).
            known = kinds.get(kind)
            if known is None:
                node = self._new_node(graph, kind, kind_pos)
            else:
                node = new_node(Node)
                init_node(node, graph, known)
            if ins:
                values = []
                for ref in ins.split(", "):
                    v = visible.get(ref[1:])
                    if v is None:  # not in scope: the general path says why, and where
                        self.pos = m.start(4) - 1
                        self._refs(kind)
                    values.append(v)
                # add_input for each, without its checks: a value in scope is this
                # graph's (self.visible is per graph).
                node._inputs = tuple(values)
                for v in values:
                    _add_use(v, node)
            self.pos = m.end()
            if newline is None:
                self._comment(node)
                self._eol()
            t = simple_types.get(type_text) or self._simple_type(m.start(2), type_text)
            if name in defined or (name.isascii() and name.isdigit()):
                v = self._define(name, m.start(), node, t, frame, False)  # says what is wrong
            else:
                # _define and add_output, written out for a new name: what
                # set_debug_name would do, with nothing to rename (the name is
                # not numeric, and no value of this graph has it, or it would
                # be in self.defined).
                v = Value(node, 0, graph._next_unique, t)
                graph._next_unique += 1
                node._outputs = (v,)
                v._name = name
                names[name] = v
                defined[name] = m.start()
            if kind in _CHECKED_KINDS:
                self._place(node, frame, kind_pos, [(name, m.start(), t)])
            else:  # _place: its append, written out
                ret = frame.block._return
                last = ret._prev
                node._block, node._prev, node._next = frame.block, last, ret
                last._next = ret._prev = node
                frame.pending = node
                frame.pending_pos = kind_pos
            # The next line, as _graph would start it, if it is one of these too.
            pos = _WS.match(text, self.pos).end()
            m = _ONE_OUTPUT_NODE.match(text, pos)  # type: ignore[assignment]
            if m is None or m.group(3)[-1].isdigit():
                return
            self.pos = pos
            if kind in _BLOCKS_OF:
                self._finish(frame)  # which says this node lacks its blocks
            else:  # _finish, written out: the node's output comes into scope
                frame.pending = None
                visible[name] = v
                frame.names.append(name)

    def _place(self, node: Node, frame: _Frame, kind_pos: int,
               outputs: Optional[List[Tuple[str, int, T.Type]]]) -> None:
        """Append the parsed ``node`` to its block, where its blocks (if any) may
        follow, and check what its line alone decides (``outputs`` as written,
        needed for the kinds _check_node checks)."""
        frame.block._append_trusted(node)  # new, with no blocks yet
        frame.pending = node
        frame.pending_pos = kind_pos
        if node._kind in _CHECKED_KINDS:
            assert outputs is not None
            self._check_node(node, kind_pos, outputs)

    def _node_head(self, graph: Graph, refs: List[Tuple[Node, str, int]]
                   ) -> Tuple[Node, List[Tuple[str, int, T.Type]], int, str]:
        """``%a : T, %b : U = kind``: returns the node (without inputs yet), its
        outputs as (name, position, type), the position of the kind, and for a
        ``kind_N`` node its label (else "")."""
        outputs: List[Tuple[str, int, T.Type]] = []
        m = _SIMPLE_HEAD.match(self.text, self.pos)
        if m is not None:
            kind_pos = m.start(1)
            for d in _OUTPUT_DEF.finditer(self.text, self.pos, kind_pos):
                outputs.append((d.group(1), d.start(), self._simple_type(d.start(2),
                                                                         d.group(2))))
        else:
            if self._at("%"):
                while True:
                    name, pos = self._name()
                    self._expect(":", f" and a type after %{name}")
                    outputs.append((name, pos, self._type_at()))
                    if not self._eat(","):
                        break
            self._expect("=")
            self._ws()
            kind_pos = self.pos
            if self._at("^"):
                return self._python_op(graph, kind_pos), outputs, kind_pos, ""
            m = _KIND.match(self.text, self.pos)
            if not m:
                self.fail(f"expected a node kind such as aten::add, found {self._found()}")
        self.pos = m.end()
        kind = label = m.group(m.lastindex or 0)
        group = _GROUP_REF.match(kind) if kind[-1].isdigit() else None
        if group and len(group.group(2)) < 10 and str(int(group.group(2))) == group.group(2) \
                and int(group.group(2)) == len(refs) and is_qualified(group.group(1)):
            kind = group.group(1)  # kind_N: its subgraph is in with section N
        else:
            label = ""
        return self._new_node(graph, kind, kind_pos), outputs, kind_pos, label

    def _python_op(self, graph: Graph, kind_pos: int) -> Node:
        """``^Name[attrs](scalars)``, torch's print of a ``prim::PythonOp``: a call
        back into a Python function that the graph holds by name only (a
        ``torch.autograd.Function``'s ``apply``, an ``@torch.jit.ignore``'d
        function).  The node is ``prim::PythonOp`` with the function's name in
        ``attrs["name"]`` and the text of its scalar arguments in
        ``attrs["scalars"]``, beside any attributes of its own; its inputs follow
        as any node's.  No one but the process that scripted it can run it
        (``torch.jit.save`` refuses it): pyjit's operator lookup says so."""
        m = _PYTHON_OP.match(self.text, self.pos)
        if not m:
            self.fail(f"expected a Python function's name after '^', found {self._found()}")
        node = self._new_node(graph, prim.PythonOp, kind_pos)
        node.attrs[PYTHON_OP_NAME] = m.group(1)
        self.pos = m.end()
        if self.text.startswith("[]", self.pos):
            self.pos += 2
        elif self._at("["):
            self._attributes(node)
        if not self._at("("):
            self.fail(f"expected the Python function's scalar arguments '(...)' after "
                      f"^{m.group(1)}, found {self._found()}")
        end = self._balanced(self.pos)
        node.attrs[PYTHON_OP_SCALARS] = self.text[self.pos + 1:end - 1]
        self.pos = end
        return node

    def _new_node(self, graph: Graph, kind: str, kind_pos: int) -> Node:
        if kind in (prim.Param, prim.Return):
            self.fail(f"{kind} cannot be written as a node: it is implied by a block's "
                      f"inputs/outputs", kind_pos)
        if kind in (prim.Load, prim.Store, prim.Drop) and not self.lowered:
            self.fail(f"{kind} cannot be written in a graph: the code generator's passes "
                      f"insert it (see pyjit.passes)", kind_pos)
        # One string per kind, not one per node: a graph repeats a few kinds.
        kind = self._kinds.setdefault(kind, kind)
        return Node._trusted(graph, kind)  # _KIND matched: a qualified kind

    def _comment(self, node: Node) -> None:
        """``, scope: a/b`` and ``# file:line:col`` at the end of a node's line."""
        if self.text.startswith("\n", self.pos):
            return  # the usual case: neither
        self._spaces()
        line_end = self.text.find("\n", self.pos)
        if line_end < 0:
            line_end = self.n
        if self._at(","):
            self.pos += 1
            self._spaces()
            if not self._at("scope:"):
                self.fail(f"expected 'scope:' after the node's inputs, found {self._found()}")
            self.pos += 6
            if self._at(" "):
                self.pos += 1
            rest = self.text[self.pos:line_end]
            cut = rest.find(" # ")
            scope = rest if cut < 0 else rest[:cut]
            node.scope = scope.rstrip("\r") if cut < 0 else scope
            self.pos += len(scope)
            self._spaces()
        if self._at("#"):
            start = self.pos
            self.pos += 1
            if self._at(" "):
                self.pos += 1
            text = self.text[self.pos:line_end].rstrip(" \t\r")
            m = _LOCATION.match(text)
            if not m or len(m.group(2)) > _MAX_DIGITS or len(m.group(3)) > _MAX_DIGITS:
                self.fail("expected a source location 'file:line:col' after '#'", start)
            node.source_location = SourceLocation(m.group(1), int(m.group(2)), int(m.group(3)),
                                                  self._lines)
            self.pos = line_end

    def _check_node(self, node: Node, pos: int,
                    outputs: List[Tuple[str, int, T.Type]]) -> None:
        """What a node's inputs and outputs must be, known from its own line
        (``outputs``: name, position and type of each output, as written)."""
        kind, ins, outs = node.kind, node._inputs, node._outputs
        if kind == prim.Constant and ins:
            self.fail(f"prim::Constant takes no inputs, got {len(ins)}", pos)
        if kind == prim.If and len(ins) != 1:
            self.fail(f"prim::If takes one input (the condition), got {len(ins)}", pos)
        if kind == prim.Loop:
            if len(ins) != len(outs) + 2:
                self.fail(f"prim::Loop with {len(outs)} output(s) takes {len(outs) + 2} inputs "
                          f"(max trip count, condition and {len(outs)} initial value(s)), "
                          f"got {len(ins)}", pos)
            for j, (init, out) in enumerate(zip(ins[2:], outs)):
                if not fits(init.type, out.type):
                    self.fail(f"type mismatch: prim::Loop carries %{out.debug_name} : "
                              f"{out.type} but its initial value %{init.debug_name} is "
                              f"{init.type}", outputs[j][1])

    def _finish(self, frame: _Frame) -> None:
        """The pending node's blocks are done: check their number and bring its
        outputs into scope."""
        node = frame.pending
        if node is None:
            return
        frame.pending = None
        wanted = _BLOCKS_OF.get(node._kind)
        if wanted is not None and len(node._blocks) != wanted:
            self.fail(f"{node.kind} needs {'two blocks' if wanted == 2 else 'one block'}, "
                      f"found {len(node._blocks)}", frame.pending_pos)
        visible, names = self.visible, frame.names
        for v in node._outputs:
            name = v.debug_name
            visible[name] = v
            names.append(name)

    def _block_header(self, frames: List[_Frame]) -> None:
        """``blockN(%a : T, ...):`` opening block N of the node just parsed."""
        frame = frames[-1]
        start = self.pos
        m = _BLOCK.match(self.text, self.pos)
        number = self._int(m.group(1), start, "block number")
        owner = frame.pending
        if owner is None:
            self.fail(f"block{number} must follow the node it belongs to", start)
        have = len(owner._blocks)
        if number != have:
            self.fail(f"expected block{have} of {owner.kind}, found block{number}", start)
        if owner.kind == prim.If and number >= 2:
            self.fail("prim::If has two blocks, block0 and block1", start)
        if owner.kind == prim.Loop and number >= 1:
            self.fail("prim::Loop has one block, block0", start)
        self.pos = m.end()
        block = owner.add_block()
        inner = _Frame(block)
        self._expect("(", f" after 'block{number}'")
        positions = self._defs(inner, block.param_node)
        self._expect(")", f" after the inputs of block{number}")
        self._expect(":", f" after 'block{number}(...)'")
        self._eol()
        ins, outs = block.inputs, owner._outputs
        if owner.kind == prim.If and ins:
            self.fail(f"the blocks of prim::If take no inputs, block{number} has {len(ins)}",
                      start)
        if owner.kind == prim.Loop:
            if len(ins) != len(outs) + 1:
                self.fail(f"the body of a prim::Loop with {len(outs)} output(s) takes "
                          f"{len(outs) + 1} inputs (the iteration number and {len(outs)} "
                          f"carried value(s)), got {len(ins)}", start)
            for j, (v, out) in enumerate(zip(ins[1:], outs)):
                if not (fits(v.type, out.type) or fits(out.type, v.type)):
                    self.fail(f"type mismatch: prim::Loop carries %{out.debug_name} : "
                              f"{out.type} but its body takes %{v.debug_name} : {v.type}",
                              positions[j + 1])
        frames.append(inner)

    def _block_end(self, frames: List[_Frame]) -> None:
        """``-> (%a, %b)`` closing the innermost block."""
        frame = frames[-1]
        self._finish(frame)
        start = self.pos
        self.pos += 2
        positions: List[int] = []
        values = self._refs("->", positions)
        block = frame.block
        for v in values:
            block.register_output(v)
        self._eol()
        owner = block.owning_node
        number = owner._blocks.index(block)
        outs = owner._outputs
        if owner.kind == prim.If:
            if len(values) != len(outs):
                self.fail(f"block{number} of prim::If returns {len(values)} value(s), but the "
                          f"If has {len(outs)} output(s)", start)
            expected = list(zip(values, outs, positions))
        elif owner.kind == prim.Loop:
            if len(values) != len(outs) + 1:
                self.fail(f"the body of a prim::Loop with {len(outs)} output(s) returns "
                          f"{len(outs) + 1} values (the condition and {len(outs)} carried "
                          f"value(s)), got {len(values)}", start)
            expected = list(zip(values[1:], outs, positions[1:]))
        else:
            expected = []
        for v, out, pos in expected:
            if not fits(v.type, out.type):
                self.fail(f"type mismatch: block{number} of {owner.kind} returns "
                          f"%{v.debug_name} : {v.type} for its output %{out.debug_name} : "
                          f"{out.type}", pos)
        for name in frame.names:
            del self.visible[name]
        frames.pop()

    # -- attributes -------------------------------------------------------------------------
    def _attributes(self, node: Node) -> None:
        """``[name=value, ...]``."""
        self.pos += 1
        while True:
            self._ws()
            pos = self.pos
            m = _IDENT.match(self.text, pos)
            if not m:
                self.fail(f"expected an attribute name, found {self._found()}")
            name = m.group()
            self.pos = m.end()
            if name in node.attrs:
                self.fail(f"duplicate attribute '{name}'", pos)
            if name == SUBGRAPH:
                self.fail("a Subgraph attribute is written as a with section: kind_N(...) "
                          "and 'with kind_N = graph(...)' after the graph", pos)
            self._expect("=", f" after attribute '{name}'")
            if name == "value":  # for the constant's type check
                self.value_pos = _WS.match(self.text, self.pos).end()
            node.attrs[name] = self._value(0, True)
            self._ws()
            if self._eat("]"):
                return
            if not self._eat(","):
                self.fail(f"expected ',' or ']' in the attributes, found {self._found()}")

    def _value(self, depth: int, allow_type: bool) -> Any:
        """One attribute value (see the module docstring for the forms)."""
        if depth > _MAX_DEPTH:
            self.fail("attribute value nested too deeply")
        tensor = self._tensor_print()
        if tensor is not None:
            return tensor
        self._ws()
        text, pos = self.text, self.pos
        for opaque in _OPAQUE:
            if text.startswith(opaque, pos):
                self.pos += len(opaque)
                return (TensorLiteral if opaque == "<Tensor>" else Literal)(opaque)
        c = text[pos] if pos < self.n else ""
        if c == '"':
            return self._string()
        if c == "{":
            m = _ONE_ELEMENT.match(text, pos)
            if m:
                self.pos = m.end()
                return TensorLiteral(m.group())
            return self._dict(depth)
        if c == "[":
            return self._list(depth, allow_type)
        if c == "(":
            # A tuple constant, or a tuple type such as (int, float): try the first,
            # and if it fails report whichever reading got further.
            try:
                value = self._tuple(depth)
                if not (self._at("[]") or self._at("?")):
                    return value
                # ()[] or (int, int)?: the tuple was a type after all.
                self.fail("a tuple type with a suffix", pos)
            except ParseError as literal_error:
                if not allow_type:
                    raise
                self.pos = pos
                try:
                    return self._type(depth)
                except ParseError as type_error:
                    far = (literal_error.line, literal_error.col) >= (type_error.line,
                                                                       type_error.col)
                    raise (literal_error if far else type_error) from None
        m = _NUMBER.match(text, pos)
        if m:
            self.pos = m.end()
            return self._number(m, pos)
        for word, value in (("True", True), ("False", False), ("None", None)):
            if self._at_word(word):
                self.pos += len(word)
                return value
        if text.startswith("annotate(", pos):
            return self._annotated(depth)
        if text.startswith("object(", pos):
            end = self._balanced(pos + 6)
            self.pos = end
            return Literal(text[pos:end])
        m = _DOTTED.match(text, pos)
        if m:
            after = text[m.end():m.end() + 1]
            if "." in m.group() and after not in ("(", "[", "<", "?"):
                # A qualified name that is not a type: an enum value such as
                # __torch__.Color.RED (a class type prints the same; kept as text).
                self.pos = m.end()
                return Literal(m.group())
            if allow_type:
                return self._type(depth)
        self.fail(f"expected an attribute value, found {self._found()}")

    def _tensor_print(self) -> Optional[TensorLiteral]:
        """``at::print`` output with its newlines made spaces, ending in a
        ``[ CPUFloatType{2} ]`` trailer, e.g. `` 1  2 [ CPULongType{2} ]``."""
        text, pos = self.text, self.pos
        # Torch prints at most 10 elements this way: a short window keeps a long
        # list attribute ([1, 2, ..., 10000]) from costing quadratic time.
        special = _SPECIAL.search(text, pos, pos + _TENSOR_PRINT_WINDOW)
        if special is None or special.group() != "[":
            return None
        m = TENSOR_TRAILER.match(text, special.start())
        if not m or not is_tensor_print_body(text[pos:special.start()]):
            return None
        after = _SPACES.match(text, m.end()).end()
        if after < self.n and text[after] not in ",])}":
            return None
        self.pos = m.end()
        return TensorLiteral(text[pos:m.end()])

    def _number(self, m: "re.Match[str]", pos: int) -> Any:
        real, sign, imag = m.group(1), m.group(2), m.group(3)
        if sign is not None:
            im = float(imag)
            return complex(float(real), -im if sign == "-" else im)
        if _INT.match(real):
            return self._int(real, pos, "integer literal")
        return float(real)

    def _string(self) -> str:
        """``"..."`` with torch's escapes (see :func:`~pyjit.ir.printer.quote_string`)."""
        text, start = self.text, self.pos
        pos = start + 1
        out = bytearray()
        while True:
            if pos >= self.n or text[pos] == "\n":
                self.fail("unterminated string", start)
            c = text[pos]
            if c == '"':
                break
            if c != "\\":
                out += c.encode("utf-8", "surrogatepass")
                pos += 1
                continue
            nxt = text[pos + 1:pos + 2]
            simple = _ESCAPES.get(nxt)
            if simple is not None:
                out += simple
                pos += 2
                continue
            code = text[pos + 1:pos + 4]
            byte = _escaped_byte(code)
            if byte is None:
                shown = code if nxt and nxt in _ESCAPE_DIGITS else nxt
                self.fail(f"invalid escape '\\{shown}' in a string", pos)
            out.append(byte)
            pos += 4
        self.pos = pos + 1
        try:
            return out.decode("utf-8")
        except UnicodeDecodeError:
            self.fail("the string's escapes do not spell valid UTF-8", start)

    def _list(self, depth: int, allow_type: bool) -> list:
        self.pos += 1
        items: list = []
        if self._eat("]"):
            return items
        while True:
            items.append(self._value(depth + 1, allow_type))
            if self._eat("]"):
                return items
            if not self._eat(","):
                self.fail(f"expected ',' or ']' in a list, found {self._found()}")

    def _tuple(self, depth: int) -> tuple:
        self.pos += 1
        items: list = []
        if self._eat(")"):
            return ()
        while True:
            items.append(self._value(depth + 1, False))
            if self._eat(")"):
                if len(items) == 1:
                    self.fail("a one-element tuple is written with a comma: (x,)", self.pos - 1)
                return tuple(items)
            if not self._eat(","):
                self.fail(f"expected ',' or ')' in a tuple, found {self._found()}")
            if len(items) == 1 and self._eat(")"):
                return (items[0],)

    def _dict(self, depth: int) -> dict:
        self.pos += 1
        items: dict = {}
        if self._eat("}"):
            return items
        while True:
            self._ws()
            pos = self.pos
            key = self._value(depth + 1, False)
            try:
                hash(key)
            except TypeError:
                self.fail("a dict key must be a number, string or tuple", pos)
            self._expect(":", " after a dict key")
            items[key] = self._value(depth + 1, False)
            if self._eat("}"):
                return items
            if not self._eat(","):
                self.fail(f"expected ',' or '}}' in a dict, found {self._found()}")

    def _annotated(self, depth: int) -> Any:
        """``annotate(List[int], [])``: a container constant with its type, which
        torch prints for empty lists and dicts."""
        start = self.pos + len("annotate(")
        end = self._balanced(start - 1)
        inner = 0
        for i in range(start, end - 1):
            c = self.text[i]
            if c in "([{":
                inner += 1
            elif c in ")]}":
                inner -= 1
            elif c == "," and inner == 0:
                break
        else:
            self.fail("expected 'annotate(<type>, <value>)'", start)
        annotation = self.text[start:i].strip()
        self.pos = i + 1
        value = self._value(depth + 1, False)
        if not isinstance(value, (list, dict)):
            self.fail("annotate() holds a list or a dict", i + 1)
        self._ws()
        self._expect(")", " after annotate(...)")
        return annotated(value, annotation)

    def _balanced(self, pos: int) -> int:
        return balanced(self.text, pos, self.fail)

    # -- types (the grammar is pyjit.ir.type_grammar's) ----------------------------------
    def _type_at(self) -> T.Type:
        return self._type(0)

    def _simple_type(self, pos: int, text: str) -> T.Type:
        """The type whose text ``text`` (a name and ``[]``/``?`` suffixes, as
        matched by the fast path) starts at ``pos``: read by the type grammar the
        first time, then shared (types are immutable)."""
        t = self._simple_types.get(text)
        if t is None:
            t, end = self._types_reader.read(pos)
            assert end == pos + len(text), (text, end)
            self._simple_types[text] = t
        return t

    def _type(self, depth: int) -> T.Type:
        t, self.pos = self._types_reader.read(self.pos, depth)
        return t


def _as_type(value: Any, t: T.Type) -> Any:
    """A constant's value as its output type says: torch prints the float 1e10 as
    ``10000000000``, which reads as an int; a ``float`` (or ``float[]``, or tuple
    element) constant makes it a float again, when the float prints as the same
    digits (an int 5 stays an int: a float 5 would print as ``5.``)."""
    if t == T.FLOAT and type(value) is int and abs(value) >= 10 ** 10:
        try:
            f = float(value)
        except OverflowError:
            return value
        return f if format_float(f) == str(value) else value
    if isinstance(t, T.ListType) and isinstance(value, list):
        items = [_as_type(v, t.elem) for v in value]
        annotation = getattr(value, "annotation", None)
        return items if annotation is None else annotated(items, annotation)
    if isinstance(t, T.TupleType) and isinstance(value, tuple) and len(t.elems) == len(value):
        return tuple(_as_type(v, e) for v, e in zip(value, t.elems))
    return value


def _escaped_byte(code: str) -> Optional[int]:
    """The byte of a three-character escape, or None if it is not one.

    Torch writes ``\\ddd`` by C arithmetic on a *signed* char: ordinary octal below
    0x80, and for bytes from 0x80 "digits" at or below ``0`` (``\\0)+`` is 0xC3).
    Both read back as ``64*d0 + 8*d1 + d2`` with ``di = ord(ci) - ord("0")``; only
    the combinations torch can produce are accepted.
    """
    if len(code) != 3 or not all(c in _ESCAPE_DIGITS for c in code):
        return None
    d0, d1, d2 = (ord(c) - 48 for c in code)
    value = 64 * d0 + 8 * d1 + d2
    if min(d0, d1, d2) >= 0:
        return value if value < 256 else None
    if max(d0, d1, d2) <= 0 and -128 <= value < 0:
        return value + 256
    return None
