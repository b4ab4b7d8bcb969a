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
from typing import Any, Dict, List, NoReturn, Optional, Tuple

from ..errors import ArchiveError, CompileError
from ..ir import SourceLocation
from ..ir import types as T
from .debug_info import DebugRanges

__all__ = ["CodeFile", "ClassDef", "Sources", "type_of", "dotted"]

_NAMED = {"Tensor": T.TENSOR, "int": T.INT, "float": T.FLOAT, "bool": T.BOOL, "str": T.STR,
          "NoneType": T.NONE, "None": T.NONE, "Any": T.ANY, "complex": T.COMPLEX,
          "number": T.NUMBER, "Scalar": T.NUMBER, "Device": T.NamedType("Device")}


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
    when the archive has them: nodes are then located in the user's source."""

    def __init__(self, part: str, text: str, debug: Optional[DebugRanges] = None) -> None:
        self.part = part
        self.debug = debug
        self.lines = text.splitlines()
        # Byte offsets of the lines' starts: ast's columns and the debug records
        # count bytes.
        self._starts = [0]
        for line in text.encode("utf-8").splitlines(True):
            self._starts.append(self._starts[-1] + len(line))
        try:
            self.tree = ast.parse(text, filename=part)
        except SyntaxError as exc:
            raise ArchiveError(f"{part}:{exc.lineno}: the archive's code does not parse: "
                               f"{exc.msg}") from None
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
        return SourceLocation(self.part, line, col)

    def error(self, node: ast.AST, message: str) -> CompileError:
        line = getattr(node, "lineno", 1)
        text = self.lines[line - 1] if 0 < line <= len(self.lines) else None
        return CompileError(message, line, getattr(node, "col_offset", 0), file=self.part,
                            line_text=text)

    def fail(self, node: ast.AST, message: str) -> NoReturn:
        raise self.error(node, message)


def type_of(node: ast.AST, file: CodeFile) -> T.Type:
    """The pyjit type an annotation of serialized code denotes."""
    if isinstance(node, ast.Constant) and node.value is None:
        return T.NONE
    name = dotted(node)
    if name is not None:
        if name in _NAMED:
            return _NAMED[name]
        if name.startswith("__torch__."):
            return T.NamedType(name)
        file.fail(node, f"unknown type '{name}'")
    if isinstance(node, ast.Subscript):
        head = dotted(node.value)
        args = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        inner = [type_of(a, file) for a in args]
        if head == "List" and len(inner) == 1:
            return T.ListType(inner[0])
        if head == "Optional" and len(inner) == 1:
            return T.OptionalType(inner[0])
        if head == "Final" and len(inner) == 1:
            return inner[0]
        if head == "Dict" and len(inner) == 2:
            return T.DictType(inner[0], inner[1])
        if head == "Tuple":
            return T.TupleType([] if inner == [T.TupleType([])] else inner)
        if head == "Union":
            return T.UnionType(inner)
        if head == "Future":
            return T.FutureType(inner[0])
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

    def __init__(self, name: str, file: CodeFile, node: ast.ClassDef) -> None:
        self.name = name
        self.file = file
        self.type = T.NamedType(name)
        self.attributes: Dict[str, T.Type] = {}
        self.constants: Dict[str, Any] = {}
        self.parameters: List[str] = []
        self.buffers: List[str] = []
        self.methods: Dict[str, ast.FunctionDef] = {}
        #: A NamedTuple: a tuple whose items are the attributes, in order.
        self.namedtuple = any(dotted(b) == "NamedTuple" for b in node.bases)
        for stmt in node.body:
            if isinstance(stmt, ast.FunctionDef):
                self.methods[stmt.name] = stmt
            elif isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
                if stmt.value is not None:
                    self.constants[stmt.target.id] = _literal(stmt.value, file)
                else:
                    self.attributes[stmt.target.id] = type_of(stmt.annotation, file)
            elif isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
                target = stmt.targets[0]
                if isinstance(target, ast.Name) and target.id in ("__parameters__",
                                                                   "__buffers__"):
                    names = [_literal(e, file) for e in getattr(stmt.value, "elts", [])]
                    (self.parameters if target.id == "__parameters__" else
                     self.buffers).extend(names)
                elif isinstance(target, ast.Subscript) and \
                        dotted(target.value) == "__annotations__":
                    key = _literal(target.slice, file)
                    self.attributes[key] = type_of(stmt.value, file)
                elif isinstance(target, ast.Name):
                    self.constants[target.id] = _literal(stmt.value, file)
            elif not isinstance(stmt, ast.Pass):
                file.fail(stmt, f"unsupported statement in the body of class {name}")

    def __repr__(self) -> str:
        return f"<archive class {self.name}>"


def _literal(node: ast.AST, file: CodeFile) -> Any:
    try:
        return ast.literal_eval(node)
    except ValueError:
        file.fail(node, "expected a literal value")


class Sources:
    """The ``code/`` files of an archive, parsed on demand, and the definitions
    in them by qualified name."""

    def __init__(self, read) -> None:
        self._read = read              # read(part) -> Optional[bytes]
        self._files: Dict[str, Optional[CodeFile]] = {}
        self._classes: Dict[str, ClassDef] = {}

    def _file(self, module: str) -> Optional[CodeFile]:
        if module not in self._files:
            part = "code/" + module.replace(".", "/") + ".py"
            raw = self._read(part)
            if raw is None:
                self._files[module] = None
            else:
                ranges = self._read(part + ".debug_pkl")
                debug = DebugRanges(ranges, part + ".debug_pkl") if ranges else None
                self._files[module] = CodeFile(part, raw.decode("utf-8"), debug)
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
            c = self._classes[qualified] = ClassDef(qualified, f, node)
        return c
