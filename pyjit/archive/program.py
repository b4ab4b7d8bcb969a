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
import weakref
from typing import Any, Dict, List, Optional, Set, Tuple

from .. import gcpause
from ..compilation_unit import CompilationUnit
from ..errors import ArchiveError
from ..ir import Graph
from ..ir import types as T
from ..ir.type_relation import Checker, ValueMismatch, value_checker
from ..registry import default_registry
from .compiler import Signature, compile_function
from .reader import Archive, quote
from .records import Record, archive_registry, check_fields
from .source import ClassDef, CodeFile, Sources
from .unpickler import ArchiveUnpickler

__all__ = ["Program"]

_Key = Tuple[Optional[str], str]


class Program:
    """The code and objects of one archive.

    The code side (classes, constants, compiled graphs) is the Program; the
    objects are read from ``data.pkl`` by :meth:`load_root`, so that one Program
    can serve several loads of the same code (:mod:`.pickling` does, for the
    models a process unpickles again and again).

    Attributes:
        archive: the :class:`~.reader.Archive`.
        unit: the :class:`~pyjit.CompilationUnit` the compiled graphs go into.
        code_parts: the archive's ``code/`` members, as they were read.
    """

    def __init__(self, archive: Archive, make_class) -> None:
        self.archive = archive
        self.limits = archive.limits
        self.version = archive.version
        self.sources = Sources(archive.get, self.limits)
        self.unit = CompilationUnit(registry=archive_registry(self, default_registry))
        self._graphs: Dict[_Key, Graph] = {}
        self._signatures: Dict[Tuple[str, str], Signature] = {}
        self._lock = threading.RLock()
        self._make_class = make_class
        self._classes: Dict[str, type] = {}
        self._field_checkers: Dict[Tuple[str, str], Checker] = {}
        self.code_parts = {p: archive.read(p) for p in archive.parts() if p.startswith("code/")}
        #: The storages the objects' tensors are views of (by id; while they live),
        #: for pickling.
        self.storages: "weakref.WeakValueDictionary[int, Any]" = weakref.WeakValueDictionary()
        raw = archive.get("constants.pkl")
        self.constants: Tuple[Any, ...] = () if raw is None else self._unpickle_constants(raw)

    def load_root(self, archive: Archive) -> Any:
        """The objects of ``archive``'s ``data.pkl`` (an archive of this Program's
        code): the top-level module."""
        return self._unpickle(archive, archive.read("data.pkl"), "data.pkl", ("data/",))

    def _unpickle_constants(self, raw: bytes) -> Tuple[Any, ...]:
        value = self._unpickle(self.archive, raw, "constants.pkl", ("constants/", "data/"))
        if type(value) is not tuple:
            raise ArchiveError(f"{self.archive.name}: constants.pkl holds a "
                               f"{type(value).__name__}, not the tuple of the code's constants")
        return value

    def _unpickle(self, archive: Archive, raw: bytes, part: str, dirs: Tuple[str, ...]) -> Any:
        def read_storage(key: str, dtype: Any) -> Any:
            for d in dirs:
                if d + key in archive:
                    return archive.read_storage(d + key, dtype)
            raise ArchiveError(f"{archive.name}: {part} refers to storage {key!r}, "
                               f"which the archive lacks ({dirs[0]}{key})")
        u = ArchiveUnpickler(raw, part, read_storage, self.python_class, limits=self.limits,
                             byteorder=archive.byteorder)
        value = u.load()
        for storage in u.storages():
            self.storages[id(storage)] = storage
        for record in u.records:
            try:
                check_fields(record, self.field_checker)
            except ArchiveError as exc:
                raise ArchiveError(f"{archive.name}: {part}: {exc}") from None
        return value

    # -- objects -------------------------------------------------------------------------------
    def python_class(self, qualified: str) -> type:
        """The Python class of the archive's objects of class ``qualified``."""
        c = self.record_class(qualified)
        if c is None:
            raise ArchiveError(f"{self.archive.name}: data.pkl holds an object of class "
                               f"{quote(qualified, self.limits.name_chars)[1:-1]}, which the "
                               "archive's code does not define")
        return c

    def record_class(self, qualified: str) -> Optional[type]:
        """The Python class of the records of archive class ``qualified``, or None
        when the archive's code defines no such class (or a NamedTuple, whose
        values are tuples)."""
        c = self._classes.get(qualified)
        if c is None:
            with self._lock:
                c = self._classes.get(qualified)
                if c is None:
                    cls = self.sources.cls(qualified)
                    if cls is None or cls.namedtuple:
                        return None
                    c = self._classes[qualified] = self._make_class(self, cls)
        return c

    def named_check(self, t: T.NamedType) -> Optional[Checker]:
        """The check of a value of named type ``t`` in this archive (for
        :func:`~pyjit.ir.type_relation.value_checker`): an object of the archive's
        class ``t`` is a record of its class; a NamedTuple a tuple of its fields; a
        ``Device`` its text."""
        if t.name == "Device":
            return _is_str
        if not t.name.startswith("__torch__."):
            return None
        cls = self.sources.cls(t.name)
        if cls is None:
            return _refuse
        if cls.namedtuple:
            return value_checker(T.TupleType(list(cls.attributes.values())), named=self.named_check)
        if cls.interface:
            return _is_record
        record = self.record_class(t.name)

        def check(value: Any) -> Any:
            if type(value) is record:
                return value
            raise ValueMismatch
        return check

    def field_checker(self, cls: ClassDef, name: str) -> Checker:
        """The check of a value of attribute ``name`` of class ``cls``."""
        key = (cls.name, name)
        c = self._field_checkers.get(key)
        if c is None:
            c = self._field_checkers[key] = value_checker(cls.attributes[name],
                                                          named=self.named_check)
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
        with gcpause.paused():   # graphs are objects, not garbage (pyjit.gcpause)
            self._compile_all(first)

    def _compile_all(self, first: _Key) -> None:
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


def _is_str(value: Any) -> Any:
    if type(value) is str:
        return value
    raise ValueMismatch


def _is_record(value: Any) -> Any:
    if isinstance(value, Record):
        return value
    raise ValueMismatch


def _refuse(value: Any) -> Any:
    raise ValueMismatch


def _calls_in(g: Graph) -> Set[_Key]:
    out: Set[_Key] = set()
    for n in g.all_nodes():
        if n.kind == "prim::CallMethod":
            out.add((n.inputs[0].type.name, n.attrs["name"]))
        elif n.kind == "prim::CallFunction":
            out.add((None, n.inputs[0].node.attrs["name"]))
    return out
