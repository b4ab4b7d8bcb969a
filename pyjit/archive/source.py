"""TorchScript's serialized source, parsed: the classes and functions of an
archive's ``code/`` files, found by qualified name.

A qualified name says where its definition is: ``__torch__.torch.nn.modules.linear.Linear``
is class ``Linear`` of ``code/__torch__/torch/nn/modules/linear.py``, and
``__torch__.M`` class ``M`` of ``code/__torch__.py``.  A file is parsed with
:mod:`ast` (never run) the first time a name in it is needed.  A class body
declares, as torch prints it::

    class Linear(Module):
      __parameters__ = ["weight", "bias", ]    # which attributes are parameters
      __buffers__ = []                         # ... and buffers (for state_dict)
      weight : Tensor                          # an attribute and its type
      in_features : Final[int] = 4             # a constant
      __annotations__["0"] = __torch__...Linear  # an attribute whose name is no identifier
      def forward(self: __torch__...Linear, input: Tensor) -> Tensor: ...

:func:`type_of` turns an annotation into a pyjit type (``Optional[Tensor]`` ->
``Tensor?``, ``__torch__.Sub`` -> the class's NamedType).
"""

from __future__ import annotations

import ast
import os
import re
from typing import Any, Dict, List, NoReturn, Optional, Tuple

from ..errors import ArchiveCompileError, ArchiveError
from ..ir import SourceLocation
from ..ir import types as T
from ..ir.source import SourceLines
from ..ir.type_grammar import ANNOTATION_NAMES, annotation_type
from ..ir.symbols import attribute_name_problem
from .debug_info import DebugRanges
from .limits import DEFAULT_LIMITS, Limits

__all__ = ["CodeFile", "ClassDef", "Sources", "type_of", "dotted", "literal"]

#: The file name the code is parsed under.  Not the part's name: on a syntax
#: error, CPython opens the file of that name (relative to the working directory)
#: to quote the line.  A path below os.devnull is no file anyone can create.
PARSED_AS = os.path.join(os.devnull, "pyjit-archive-code")

def dotted(node: ast.AST) -> Optional[str]:
    """``a.b.c`` for an attribute chain of names, else None."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(node.id)
    return ".".join(reversed(parts))


class CodeFile:
    """One parsed ``code/...py`` file, and its debug ranges (:mod:`.debug_info`)
    when the archive has them: nodes are then located in the user's source.

    The text is the archive's, so it is checked before anything walks it: UTF-8,
    parsed by :mod:`ast` (never run), and no deeper than ``Limits.nesting`` levels
    of statements and expressions, so that nothing that compiles it recurses
    without bound.  Every failure is an :class:`~pyjit.errors.ArchiveCompileError`
    at the line.
    """

    def __init__(self, part: str, raw: bytes, debug: Optional[DebugRanges] = None,
                 limits: Limits = DEFAULT_LIMITS) -> None:
        self.part = part
        self.debug = debug
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise ArchiveError(f"{part} is not UTF-8 text ({exc.reason} at byte "
                               f"{exc.start})") from None
        self.lines = text.splitlines()
        #: The lines for messages: the archive's own text, never a file on disk.
        self.source_lines = SourceLines(text)
        # Byte offsets of the lines' starts: ast's columns and the debug records
        # count bytes.
        self._starts = [0]
        for line in text.encode("utf-8").splitlines(True):
            self._starts.append(self._starts[-1] + len(line))
        try:
            self.tree = ast.parse(text, filename=PARSED_AS)
        except SyntaxError as exc:
            raise self.error_at(exc.lineno or 1, (exc.offset or 1) - 1,
                                f"the archive's code does not parse: {exc.msg}") from None
        except (ValueError, RecursionError, MemoryError) as exc:
            raise self.error_at(1, 0, f"the archive's code cannot be parsed "
                                f"({type(exc).__name__}: {str(exc)[:120]})") from None
        self._nesting = limits.nesting
        self._checked: set = set()
        self.defs: Dict[str, ast.stmt] = {
            n.name: n for n in self.tree.body if isinstance(n, (ast.ClassDef, ast.FunctionDef))}

    def location(self, node: ast.AST) -> SourceLocation:
        """Where a node made for ``node`` is: the user's source the code was
        printed from, else the line of the archive's code."""
        line, col = getattr(node, "lineno", 1), getattr(node, "col_offset", 0)
        if self.debug is not None and line <= len(self._starts):
            original = self.debug.original(self._starts[line - 1] + col)
            if original is not None:
                return original
        return SourceLocation(self.part, line, col, self.source_lines)

    def line_of(self, node: ast.AST) -> int:
        """The line of ``node`` in this file (for messages naming two places)."""
        return getattr(node, "lineno", 1)

    def col_of(self, node: ast.AST) -> int:
        return getattr(node, "col_offset", 0)

    def check_nesting(self, node: ast.AST) -> None:
        """``node`` nests at most ``Limits.nesting`` levels deep, so that what walks
        it recursively (the compiler, ``type_of``, ``literal_eval``) cannot recurse
        without bound.  Checked once per node, when it is first needed: a class's
        declarations when the class is read, a function when it is first bound or
        compiled."""
        if id(node) in self._checked:
            return
        todo = [(node, 0)]
        limit = self._nesting
        while todo:
            n, depth = todo.pop()
            if depth > limit:
                self.fail(n, f"the code nests more than {limit} levels deep (Limits.nesting)")
            todo.extend((child, depth + 1) for child in ast.iter_child_nodes(n))
        self._checked.add(id(node))

    def error_at(self, line: int, col: int, message: str) -> ArchiveCompileError:
        text = self.lines[line - 1] if 0 < line <= len(self.lines) else None
        return ArchiveCompileError(message, line, col, file=self.part, line_text=text)

    def error(self, node: ast.AST, message: str) -> ArchiveCompileError:
        return self.error_at(getattr(node, "lineno", 1), getattr(node, "col_offset", 0),
                             message)

    def fail(self, node: ast.AST, message: str) -> NoReturn:
        raise self.error(node, message)


def type_of(node: ast.AST, file: CodeFile) -> T.Type:
    """The pyjit type an annotation of serialized code denotes.  This dialect's
    name lookup (TorchScript's names, :data:`~pyjit.ir.type_grammar.ANNOTATION_NAMES`,
    and the archive's classes, ``__torch__.*``); the generic forms are read as a
    scripted function's are (:func:`pyjit.ir.type_grammar.annotation_type`)."""
    if isinstance(node, ast.Constant) and node.value is None:
        return T.NONE
    name = dotted(node)
    if name is not None:
        if name in ANNOTATION_NAMES:
            return ANNOTATION_NAMES[name]
        if name.startswith("__torch__."):
            return T.NamedType(name)
        file.fail(node, f"unknown type '{name}'")
    if isinstance(node, ast.Subscript):
        head = dotted(node.value) or ""
        args = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        inner = [... if isinstance(a, ast.Constant) and a.value is Ellipsis else type_of(a, file)
                 for a in args]
        try:
            return annotation_type(head, inner, ast.unparse(node))
        except ValueError as exc:
            file.fail(node, str(exc))
    if isinstance(node, ast.Tuple) and not node.elts:   # Tuple[()]
        return T.TupleType([])
    file.fail(node, f"unsupported type annotation {ast.unparse(node)!r}")


class ClassDef:
    """A class of the archive: attributes and their types, constants, methods.

    Attributes:
        name: the qualified name (``__torch__.M``).
        file: its :class:`CodeFile`.
        attributes: ``{name: type}`` in declaration order.
        constants: ``{name: value}`` of its ``Final`` attributes.
        parameters, buffers: the attribute names torch lists as such.
        methods: ``{name: ast.FunctionDef}``.
    """

    def __init__(self, name: str, file: CodeFile, node: ast.ClassDef,
                 limits: Limits = DEFAULT_LIMITS) -> None:
        self.name = name
        self.file = file
        self.type = T.NamedType(name)
        self.attributes: Dict[str, T.Type] = {}
        self.constants: Dict[str, Any] = {}
        self.parameters: List[str] = []
        self.buffers: List[str] = []
        self.methods: Dict[str, ast.FunctionDef] = {}
        bases = {dotted(b) for b in node.bases}
        #: A NamedTuple: a tuple whose items are the attributes, in order.
        self.namedtuple = "NamedTuple" in bases
        #: An interface: any object of the archive's classes may stand for it.
        self.interface = bool(bases & {"Interface", "ModuleInterface"})

        def declare(table: Dict[str, Any], key: Any, value: Any, at: ast.AST) -> None:
            problem = attribute_name_problem(key, limits.name_chars)
            if problem is None and (key in self.attributes or key in self.constants or
                                    key in self.methods):
                problem = f"'{key}' is declared twice"
            if problem is not None:
                file.fail(at, f"class {name}: {problem}")
            table[key] = value

        for stmt in node.body:
            if not isinstance(stmt, ast.FunctionDef):
                file.check_nesting(stmt)
            if isinstance(stmt, ast.FunctionDef):
                if stmt.name in self.attributes or stmt.name in self.constants:
                    file.fail(stmt, f"class {name}: '{stmt.name}' is an attribute and a method")
                self.methods[stmt.name] = stmt
            elif isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
                if stmt.value is not None:
                    declare(self.constants, stmt.target.id, literal(stmt.value, file), stmt)
                else:
                    declare(self.attributes, stmt.target.id, type_of(stmt.annotation, file),
                            stmt)
            elif isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
                target = stmt.targets[0]
                if isinstance(target, ast.Name) and target.id in ("__parameters__",
                                                                   "__buffers__"):
                    names = [literal(e, file) for e in getattr(stmt.value, "elts", [])]
                    if not all(isinstance(n, str) for n in names):
                        file.fail(stmt, f"{target.id} lists names, as strings")
                    (self.parameters if target.id == "__parameters__" else
                     self.buffers).extend(names)
                elif isinstance(target, ast.Subscript) and \
                        dotted(target.value) == "__annotations__":
                    declare(self.attributes, literal(target.slice, file),
                            type_of(stmt.value, file), stmt)
                elif isinstance(target, ast.Name):
                    declare(self.constants, target.id, literal(stmt.value, file), stmt)
                else:
                    file.fail(stmt, f"unsupported statement in the body of class {name}")
            elif not isinstance(stmt, ast.Pass):
                file.fail(stmt, f"unsupported statement in the body of class {name}")

    def __repr__(self) -> str:
        return f"<archive class {self.name}>"


def literal(node: ast.AST, file: CodeFile, message: str = "expected a literal value") -> Any:
    """The value of a literal of the code (``ast.literal_eval``: nothing runs)."""
    try:
        return ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError) as exc:
        # TypeError: {[1]}, an unhashable key
        file.fail(node, f"{message} ({type(exc).__name__})")


class Sources:
    """The ``code/`` files of an archive, parsed on demand, and the definitions
    in them by qualified name.  All the files parsed together are at most
    ``Limits.code_bytes`` of text."""

    def __init__(self, read, limits: Limits = DEFAULT_LIMITS) -> None:
        self._read = read              # read(part) -> Optional[bytes]
        self._limits = limits
        self._parsed_bytes = 0
        self._files: Dict[str, Optional[CodeFile]] = {}
        self._classes: Dict[str, ClassDef] = {}

    def _file(self, module: str) -> Optional[CodeFile]:
        if module not in self._files:
            part = "code/" + module.replace(".", "/") + ".py"
            raw = self._read(part) if _MODULE.fullmatch(module) else None
            if raw is None:
                self._files[module] = None
            else:
                self._parsed_bytes += len(raw)
                if self._parsed_bytes > self._limits.code_bytes:
                    raise ArchiveError(
                        f"{part}: the archive's code is more than {self._limits.code_bytes} "
                        "bytes (Limits.code_bytes)")
                ranges = self._read(part + ".debug_pkl")
                debug = DebugRanges(ranges, part + ".debug_pkl", self._limits) \
                    if ranges else None
                self._files[module] = CodeFile(part, raw, debug, self._limits)
        return self._files[module]

    def find(self, qualified: str) -> Tuple[Optional[CodeFile], Optional[ast.stmt]]:
        """The file and definition of ``qualified``, or (None, None)."""
        module, _, name = qualified.rpartition(".")
        f = self._file(module) if module else None
        return (f, f.defs.get(name)) if f is not None else (None, None)

    def cls(self, qualified: str) -> Optional[ClassDef]:
        """The class ``qualified``, or None when the code has no such class."""
        c = self._classes.get(qualified)
        if c is None:
            f, node = self.find(qualified)
            if not isinstance(node, ast.ClassDef):
                return None
            c = self._classes[qualified] = ClassDef(qualified, f, node, self._limits)
        return c


# A module of qualified names: dotted identifiers (torch's mangled ___torch_mangle_3 too).
_MODULE = re.compile(r"__torch__(\.[A-Za-z_][A-Za-z0-9_]*){0,32}")
