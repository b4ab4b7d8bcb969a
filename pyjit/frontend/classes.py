"""Scripted classes: ``pyjit.script`` on a class compiles its methods to graphs that
read and write ``self``'s attributes and call its methods, as TorchScript compiles
a class or a module::

    @pyjit.script
    class Counter:
        def __init__(self, start: int):
            self.count = start            # the attribute and its type: int
            self.seen: List[int] = []

        def bump(self, by: int) -> int:
            self.count += by              # prim::GetAttr, aten::add, prim::SetAttr
            self.seen.append(self.count)
            return self.count

        def forward(self, n: int) -> int:
            for _ in range(n):
                self.bump(1)              # prim::CallMethod[name="bump"](%self, %1)
            return self.count

    c = Counter(10)        # Python runs __init__: c is an ordinary instance
    c(3)                   # 13: forward's graph, run by the interpreter with c as self
    c.bump(5)              # 18

The class is the same class, its methods replaced by
:class:`~.script_function.ScriptFunction` s (``Counter.bump.graph``).  Its
TorchScript type is named as torch names it, ``__torch__.<module>.<class>``
(``ScriptClass.name``).

Attributes are declared by ``__init__``, which is compiled first, for their
types only (Python runs it): every ``self.x = value`` declares ``x`` with the
type of ``value`` (``self.x: T = value`` or a class-level annotation ``x: T``
with ``T``), as TorchScript infers them; creating another scripted class's
object there (``self.sub = Scale(2.0)``) gives the attribute that class's type,
and a list of them a list type.  The methods may then read and assign the
declared attributes only, call the methods of ``self`` and of objects in
attributes (``self.sub.forward(x)``, ``self.sub(x)`` for its ``forward``, and in
a loop over a list of them), and are called with any Python object that has
the attributes as ``self``.  A method may not call itself (TorchScript refuses
recursion too).
"""

from __future__ import annotations

import inspect
import threading
import weakref
from typing import Any, Callable, Dict, FrozenSet, List, Optional

from ..ir import types as T

__all__ = ["ScriptClass", "find_class", "type_name"]

# Scripted classes by their type's name, for the emitters that meet a value of
# that type (weakly: a class that goes away takes its name with it).
_CLASSES: "weakref.WeakValueDictionary[str, ScriptClass]" = weakref.WeakValueDictionary()
_names_lock = threading.Lock()


def type_name(cls: type) -> str:
    """``__torch__.<module>.<qualified name>``, as torch names a scripted class (a
    class of ``__main__`` has no module part; a name another class holds already
    gets a ``___torch_mangle_N`` part, as torch's)."""
    base = T.class_type_name(cls)
    name, n = base, 0
    while name in _CLASSES and _CLASSES[name].cls is not cls:
        prefix, _, last = base.rpartition(".")
        name = f"{prefix}.___torch_mangle_{n}.{last}"
        n += 1
    return name


def find_class(t: T.Type) -> Optional["ScriptClass"]:
    """The scripted class whose type ``t`` is, or None."""
    return _CLASSES.get(t.name) if isinstance(t, T.NamedType) else None


class ScriptClass:
    """What ``pyjit.script`` makes of a class (``cls.__pyjit_class__``); the
    compiler (:func:`.compiler.script_class`) fills it in, and compiles methods
    with ``compile_method(script_class, function, compiling)``.

    Attributes:
        cls: the Python class.
        name: its TorchScript type's name; ``type`` the type.
        attributes: ``{name: type}`` of the attributes ``__init__`` declares, in
            the order it assigns them.
        method_names: the methods compiled, in the order the class defines them.
        init_graph: the graph of ``__init__``, compiled for the attributes' types
            only (Python runs ``__init__``); None without one.
    """

    def __init__(self, cls: type, compile_method: Callable[..., Any]) -> None:
        self.cls = cls
        self._compile_method = compile_method
        with _names_lock:
            self.name = type_name(cls)
            _CLASSES[self.name] = self
        self.type = T.NamedType(self.name)
        self.attributes: Dict[str, T.Type] = {}
        self.method_names: List[str] = [
            name for name, member in vars(cls).items()
            if inspect.isfunction(member) and name != "__init__"
            and not (name.startswith("__") and name.endswith("__") and name != "__call__")]
        self.init_graph = None
        self._methods: Dict[str, Any] = {}
        self._unit = None
        self._lock = threading.RLock()

    def method(self, name: str, compiling: FrozenSet = frozenset()):
        """The :class:`~.script_function.ScriptFunction` of method ``name``,
        compiled on first use (on behalf of the functions ``compiling``).

        Raises:
            LookupError: the class has no such method.
        """
        sf = self._methods.get(name)
        if sf is None:
            if name not in self.method_names:
                raise LookupError(f"'{self.cls.__name__}' has no method '{name}'")
            with self._lock:
                sf = self._methods.get(name)
                if sf is None:
                    sf = self._methods[name] = self._compile_method(
                        self, vars(self.cls)[name], compiling)
        return sf

    @property
    def unit(self):
        """The compilation unit of its methods and of everything they call."""
        if self._unit is None:
            with self._lock:
                if self._unit is None:
                    from ..compilation_unit import CompilationUnit
                    functions: Dict[str, Any] = {}
                    methods: Dict[Any, Any] = {}
                    for name in self.method_names:
                        sf = self.method(name)
                        functions.update(sf.functions)
                        methods.update(sf.methods)
                    tables: Dict[str, Dict[str, Any]] = {}
                    for (cls, name), sf in methods.items():
                        tables.setdefault(cls, {})[name] = sf.graph
                    self._unit = CompilationUnit(
                        {name: sf.graph for name, sf in functions.items()}, methods=tables)
        return self._unit

    def __repr__(self) -> str:
        return f"<pyjit.ScriptClass {self.name}>"
