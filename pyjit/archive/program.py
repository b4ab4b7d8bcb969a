"""An archive's program: its code compiled on demand into one
:class:`~pyjit.CompilationUnit`, and its pickles read into objects.

A method is compiled the first time it is called, together with every method
and function its graph can reach (``prim::CallMethod`` by the receiver's class,
``prim::CallFunction`` by name), so that the unit can link the calls; code no
call reaches (a module's ``__len__``, helpers of other methods) is never
compiled.
"""

from __future__ import annotations

import ast
import threading
from typing import Any, Dict, List, Optional, Set, Tuple

from ..compilation_unit import CompilationUnit
from ..errors import ArchiveError
from ..ir import Graph
from .compiler import Signature, compile_function
from .reader import Archive
from .source import ClassDef, CodeFile, Sources
from .unpickler import ArchiveUnpickler

__all__ = ["Program"]

_Key = Tuple[Optional[str], str]


class Program:
    """The code and objects of one archive.

    Attributes:
        archive: the :class:`~.reader.Archive`.
        unit: the :class:`~pyjit.CompilationUnit` the compiled graphs go into.
        root: the top-level module object (from ``data.pkl``).
    """

    def __init__(self, archive: Archive, make_class) -> None:
        self.archive = archive
        self.version = archive.version
        self.sources = Sources(archive.get)
        self.unit = CompilationUnit()
        self._graphs: Dict[_Key, Graph] = {}
        self._signatures: Dict[Tuple[str, str], Signature] = {}
        self._lock = threading.RLock()
        self._make_class = make_class
        self._classes: Dict[str, type] = {}
        raw = archive.get("constants.pkl")
        self.constants: Tuple[Any, ...] = () if raw is None else tuple(
            self._unpickle(raw, "constants.pkl", ("constants/", "data/")))
        self.root = self._unpickle(archive.read("data.pkl"), "data.pkl", ("data/",))

    def _unpickle(self, raw: bytes, part: str, dirs: Tuple[str, ...]) -> Any:
        def read_storage(key: str) -> bytes:
            for d in dirs:
                if d + key in self.archive:
                    return self.archive.read(d + key)
            raise ArchiveError(f"{self.archive.name}: {part} refers to storage {key!r}, "
                               f"which the archive lacks ({dirs[0]}{key})")
        return ArchiveUnpickler(raw, part, read_storage, self.python_class).load()

    # -- objects -------------------------------------------------------------------------------
    def python_class(self, qualified: str) -> type:
        """The Python class of the archive's objects of class ``qualified``."""
        c = self._classes.get(qualified)
        if c is None:
            if self.sources.cls(qualified) is None:
                raise ArchiveError(f"{self.archive.name}: data.pkl holds an object of class "
                                   f"{qualified}, which the archive's code does not define")
            c = self._classes[qualified] = self._make_class(self, qualified)
        return c

    # -- what the compiler asks (compiler.Program) -----------------------------------------------
    def cls(self, name: str) -> Optional[ClassDef]:
        return self.sources.cls(name)

    def function(self, name: str, at: ast.AST, file: CodeFile) -> Tuple[CodeFile, ast.FunctionDef]:
        f, node = self.sources.find(name)
        if not isinstance(node, ast.FunctionDef):
            file.fail(at, f"the archive's code defines no function {name}")
        return f, node

    def constant(self, index: int, at: ast.AST, file: CodeFile) -> Any:
        if not 0 <= index < len(self.constants):
            file.fail(at, f"CONSTANTS.c{index}: constants.pkl holds {len(self.constants)}")
        return self.constants[index]

    def signature(self, class_name: str, name: str) -> Signature:
        """The parameters of method ``name`` of ``class_name`` (for binding calls
        from Python), read once."""
        key = (class_name, name)
        sig = self._signatures.get(key)
        if sig is None:
            cls = self.sources.cls(class_name)
            sig = self._signatures[key] = Signature(cls.methods[name], cls.file)
        return sig

    # -- compiling ---------------------------------------------------------------------------------
    def graph(self, class_name: Optional[str], name: str) -> Graph:
        """The graph of method ``name`` of ``class_name`` (of function ``name`` when
        ``class_name`` is None), compiled with everything it calls into :attr:`unit`."""
        with self._lock:
            key = (class_name, name)
            if key not in self._graphs:
                self._compile_reachable(key)
            return self._graphs[key]

    def _compile_reachable(self, first: _Key) -> None:
        todo: List[_Key] = [first]
        new: Dict[_Key, Graph] = {}
        while todo:
            key = todo.pop()
            if key in self._graphs or key in new:
                continue
            g = new[key] = self._compile(key)
            todo.extend(_calls_in(g))
        for (cls, name), g in new.items():
            if cls is None:
                self.unit.define(name, g)
            else:
                self.unit.define_method(cls, name, g)
        self._graphs.update(new)

    def _compile(self, key: _Key) -> Graph:
        cls_name, name = key
        if cls_name is None:
            f, node = self.sources.find(name)
            if not isinstance(node, ast.FunctionDef):
                raise ArchiveError(f"{self.archive.name}: no function {name} in the code")
            return compile_function(self, f, node, None)
        cls = self.sources.cls(cls_name)
        if cls is None or name not in cls.methods:
            raise AttributeError(f"'{cls_name}' has no method '{name}'")
        return compile_function(self, cls.file, cls.methods[name], cls)


def _calls_in(g: Graph) -> Set[_Key]:
    out: Set[_Key] = set()
    for n in g.all_nodes():
        if n.kind == "prim::CallMethod":
            out.add((n.inputs[0].type.name, n.attrs["name"]))
        elif n.kind == "prim::CallFunction":
            out.add((None, n.inputs[0].node.attrs["name"]))
    return out
