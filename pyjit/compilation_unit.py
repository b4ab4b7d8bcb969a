"""Graphs that call one another: :class:`CompilationUnit`.

torch keeps every TorchScript function and method in a compilation unit and
prints a call by name: a function as ``prim::Constant[name="helper"]`` and
``prim::CallFunction``, a method as ``prim::CallMethod[name="forward"]`` on a
receiver whose type is the class (``%self : __torch__.M``)::

    unit = pyjit.CompilationUnit({"helper": HELPER_TEXT, "f": F_TEXT})
    unit.f(3)                                   # runs f, which calls helper
    unit.define_method("__torch__.M", "forward", FORWARD_TEXT)
    unit.method("__torch__.M", "forward")(obj, x)  # obj: any Python object

A unit holds graphs by those names and compiles each once per level into a
:class:`~pyjit.code.Code` that calls the others by ``INVOKE`` (a new activation
of the same loop, :mod:`pyjit.opcodes`): asking for one Code compiles every Code
it can reach, so a missing operator anywhere is found then, not halfway through
a run.  A function may call itself, directly or through others (the runtime
links calls when they first run); how deep is :func:`pyjit.set_recursion_limit`'s
to say.

Methods run on any Python object given as ``self``: ``prim::GetAttr`` and
``prim::SetAttr`` read and write its attributes (a list's items by their index,
as torch names the modules of a ``ModuleList``), and a method call on a
receiver finds the method by the receiver's type in the graph, as TorchScript
does, so the object needs no methods of its own.

A unit also defines the enum classes its graphs use (``enums=[Color]``): a graph
names a member (``__torch__.Color.RED``), and the unit's Python class gives it.

A unit pickles as its graphs (as text), its enum classes (by reference) and the
name of its registry (:mod:`pyjit.pickling`); so do its Codes and Functions,
which refer to it.  The other side compiles each Code when it is first asked
for, and a process that unpickles the same unit again gets the same one back.
"""

from __future__ import annotations

import enum
import threading
from types import ModuleType
from typing import Dict, Iterable, List, Mapping, Optional, Tuple, Union

from . import gcpause
from .code import Code, default_optimize
from .interpreter import Function
from .ir import Graph
from .ir.calls import describe_target
from .ir.parser import parse_ir
from .ir.types import class_type_name
from .pickling import cached, registry_name, registry_named, token
from .registry import Registry

__all__ = ["CompilationUnit"]

GraphLike = Union[Graph, str]
_Key = Tuple[Optional[str], str]     # (class name or None for a function, name)


class _Callee:
    """A function or method of a unit, as the code generator sees a callee
    (:class:`pyjit.codegen.calls.Callee`)."""

    __slots__ = ("unit", "key", "graph", "qualified_name")

    def __init__(self, unit: "CompilationUnit", key: _Key, graph: Graph) -> None:
        self.unit = unit
        self.key = key
        self.graph = graph
        cls, name = key
        self.qualified_name = name if cls is None else f"{cls}.{name}"

    def code(self, optimize: bool) -> Code:
        return self.unit._code(self, optimize)

    def __repr__(self) -> str:
        return f"<{self.qualified_name} in {self.unit!r}>"


class CompilationUnit:
    """Named graphs -- functions, and methods of classes -- that call one another.

    Args:
        functions: ``{name: graph}``, each graph a :class:`~pyjit.ir.Graph` or the
            text torch prints; ``name`` is what calls print
            (``prim::Constant[name="helper"]``).
        methods: ``{class name: {method name: graph}}``; the class name is the
            receiver's type as torch prints it (``__torch__.M``).
        enums: the Python ``enum.Enum`` classes whose members the graphs name
            (``prim::Constant[value=__torch__.Color.RED]``, of type
            ``Enum<__torch__.Color>``), each known by the name torch gives it
            (:func:`~pyjit.ir.types.class_type_name`): graphs print a member's
            name, never its value.
        registry: where every Code of the unit looks its operators up.

    Raises:
        ParseError: a graph's text is malformed.
        ValueError: a name is defined twice.
        TypeError: an enum is not an ``enum.Enum`` class.
    """

    def __init__(self, functions: Optional[Mapping[str, GraphLike]] = None, *,
                 methods: Optional[Mapping[str, Mapping[str, GraphLike]]] = None,
                 enums: Iterable[type] = (),
                 registry: Optional[Registry] = None) -> None:
        self._registry = registry
        self._enums: Dict[str, type] = {}
        for cls in enums:
            self.define_enum(cls)
        self._callees: Dict[_Key, _Callee] = {}
        self._codes: Dict[Tuple[_Key, bool], Code] = {}
        self._functions: Dict[Tuple[_Key, bool, str], Function] = {}
        self._lock = threading.RLock()
        for name, graph in (functions or {}).items():
            self.define(name, graph)
        for cls, table in (methods or {}).items():
            for name, graph in table.items():
                self.define_method(cls, name, graph)

    # -- defining -------------------------------------------------------------------
    def define(self, name: str, graph: GraphLike) -> None:
        """Add function ``name``."""
        self._add((None, name), graph)

    def define_enum(self, cls: type) -> None:
        """Add the enum class ``cls``, under the name torch gives it
        (``__torch__.<module>.<class>``)."""
        if not (isinstance(cls, type) and issubclass(cls, enum.Enum)):
            raise TypeError(f"an enum must be an enum.Enum class, not {cls!r}")
        name = class_type_name(cls)
        if self._enums.get(name, cls) is not cls:
            raise ValueError(f"enum {name} is defined already")
        self._enums[name] = cls

    def define_method(self, class_name: str, name: str, graph: GraphLike) -> None:
        """Add method ``name`` of ``class_name``; its first input is ``self``."""
        g = self._add((class_name, name), graph)
        if not g.inputs:
            del self._callees[(class_name, name)]
            raise ValueError(f"method {class_name}.{name} has no inputs: its first input "
                             "is self")

    def _add(self, key: _Key, graph: GraphLike) -> Graph:
        cls, name = key
        for what, text in (("class name", cls), ("name", name)):
            if text is not None and (not isinstance(text, str) or not text):
                raise TypeError(f"a {what} must be a non-empty str, not {text!r}")
        if isinstance(graph, str):
            graph = parse_ir(graph)
        if not isinstance(graph, Graph):
            raise TypeError(f"{name}: expected a Graph or IR text, got {type(graph).__name__}")
        with self._lock:
            if key in self._callees:
                raise ValueError(f"{self._callees[key].qualified_name} is defined already")
            self._callees[key] = _Callee(self, key, graph)
        return graph

    # -- what it holds ----------------------------------------------------------------
    @property
    def functions(self) -> Tuple[str, ...]:
        """The names of its functions, in the order they were defined."""
        return tuple(name for cls, name in self._callees if cls is None)

    @property
    def classes(self) -> Dict[str, Tuple[str, ...]]:
        """``{class name: method names}``."""
        out: Dict[str, List[str]] = {}
        for cls, name in self._callees:
            if cls is not None:
                out.setdefault(cls, []).append(name)
        return {cls: tuple(names) for cls, names in out.items()}

    def graph(self, name: str, class_name: Optional[str] = None) -> Graph:
        """The graph of function ``name`` (of method ``name`` of ``class_name``)."""
        return self._get((class_name, name)).graph

    # The unit the code generator resolves calls in (pyjit.codegen.calls.Unit).
    def find_function(self, name: str) -> Optional[_Callee]:
        """Function ``name``, or None."""
        return self._callees.get((None, name))

    def find_method(self, class_name: str, name: str) -> Optional[_Callee]:
        """Method ``name`` of ``class_name``, or None."""
        return self._callees.get((class_name, name))

    def find_enum(self, name: str) -> Optional[type]:
        """The enum class torch names ``name`` (``__torch__.Color``), or None."""
        return self._enums.get(name)

    def _get(self, key: _Key) -> _Callee:
        callee = self._callees.get(key)
        if callee is None:
            raise LookupError(f"the compilation unit holds no {describe_target(key)}")
        return callee

    # -- compiling ----------------------------------------------------------------------
    def code(self, name: str, class_name: Optional[str] = None, *,
             optimize: Optional[bool] = None) -> Code:
        """The Code of function ``name`` (of method ``name`` of ``class_name``), at
        the default level unless ``optimize`` says; compiled once, together with
        every Code it can call."""
        level = default_optimize() if optimize is None else bool(optimize)
        return self._code(self._get((class_name, name)), level)

    def _code(self, callee: _Callee, optimize: bool) -> Code:
        code = self._codes.get((callee.key, optimize))
        if code is not None:
            return code
        with self._lock, gcpause.paused():   # Codes are objects, not garbage
            built: List[_Key] = []
            todo = [callee]
            try:
                while todo:
                    c = todo.pop()
                    if (c.key, optimize) in self._codes:
                        continue
                    new = Code(c.graph, registry=self._registry, optimize=optimize,
                               unit=self, name=c.qualified_name)
                    self._codes[c.key, optimize] = new
                    built.append(c.key)
                    todo.extend(_callees_of(new))
            except BaseException:
                # Nothing half-linked stays: the next request compiles again.
                for key in built:
                    del self._codes[key, optimize]
                raise
            return self._codes[callee.key, optimize]

    # -- running ------------------------------------------------------------------------
    def function(self, name: str, *, loop: Optional[ModuleType] = None,
                 optimize: Optional[bool] = None) -> Function:
        """Function ``name`` as a Python callable (a :class:`~pyjit.Function`)."""
        return self._function((None, name), loop, optimize)

    def method(self, class_name: str, name: str, *, loop: Optional[ModuleType] = None,
               optimize: Optional[bool] = None) -> Function:
        """Method ``name`` of ``class_name`` as a Python callable taking ``self``
        (any object with the attributes the methods read) first."""
        return self._function((class_name, name), loop, optimize)

    def _function(self, key: _Key, loop: Optional[ModuleType],
                  optimize: Optional[bool]) -> Function:
        level = default_optimize() if optimize is None else bool(optimize)
        from ._backend import loop as default_loop
        loop = loop or default_loop
        fn = self._functions.get((key, level, loop.__name__))
        if fn is None:
            fn = Function(self._code(self._get(key), level), loop=loop)
            self._functions[key, level, loop.__name__] = fn
        return fn

    def __getattr__(self, name: str) -> Function:
        # unit.helper(3): functions as attributes, as torch's CompilationUnit has them.
        if name.startswith("__") or (None, name) not in self.__dict__.get("_callees", {}):
            raise AttributeError(f"{type(self).__name__!s} has no function {name!r}")
        return self.function(name)

    def _key_of(self, code: Code) -> Optional[_Key]:
        """The function or method whose Code ``code`` is, or None (a fork's subgraph)."""
        for (key, optimize), c in list(self._codes.items()):
            if c is code:
                return key
        return None

    # -- pickling (pyjit.pickling) ------------------------------------------------------
    def _pickled(self) -> tuple:
        """What the unit pickles as: its graphs as text, its enum classes and the
        name of its registry; its Codes are compiled again on the other side."""
        with self._lock:
            callees = list(self._callees.values())
        functions = tuple((c.key[1], str(c.graph)) for c in callees if c.key[0] is None)
        methods = tuple((c.key, str(c.graph)) for c in callees if c.key[0] is not None)
        return (functions, methods, tuple(self._enums.values()),
                registry_name(self._registry, repr(self)))

    def __reduce__(self):
        return (_unpickled_unit, self._pickled())

    def __dask_tokenize__(self) -> str:
        functions, methods, enums, registry = self._pickled()
        return token("pyjit.CompilationUnit", functions, methods,
                     tuple(class_type_name(e) for e in enums), registry)

    def __repr__(self) -> str:
        n_methods = sum(len(m) for m in self.classes.values())
        return (f"<pyjit CompilationUnit: {len(self.functions)} functions, "
                f"{len(self.classes)} classes, {n_methods} methods>")


def _unpickled_unit(functions: tuple, methods: tuple, enums: tuple,
                    registry: Optional[str]) -> CompilationUnit:
    """A pickled unit, on the other side: the one the cache holds for the same
    graphs, enums and registry (with whatever it compiled already), else a new one."""
    def make() -> CompilationUnit:
        tables: Dict[str, Dict[str, str]] = {}
        for (cls, name), text in methods:
            tables.setdefault(cls, {})[name] = text
        return CompilationUnit(dict(functions), methods=tables, enums=enums,
                               registry=registry_named(registry))
    return cached(("unit", functions, methods, enums, registry), make)


def _callees_of(code: Code) -> List[_Callee]:
    """The callees of ``code``'s calls, and of the calls in its forks' subgraphs."""
    out = []
    codes = [code]
    while codes:
        c = codes.pop()
        out.extend(site.callee for _, site in c._call_sites())
        codes.extend(c.subcodes())
    return out
