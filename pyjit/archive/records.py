"""An archive's objects are data: records of the attributes their class declares.

A TorchScript object (a module, an object of a scripted class) is a record: a
table of the attributes its class declares in the archive's code
(``weight : Tensor``, ``__annotations__["0"] = ...``), and nothing else.  It is
not a Python object with a Python attribute namespace, because everything an
archive names is attacker-chosen:

* ``prim::GetAttr``/``SetAttr`` in the archive's graphs reach only a declared
  attribute of a record of the class the graph says, never ``getattr`` on a
  Python object (:func:`archive_registry`'s operators replace the library's
  for the archive's :class:`~pyjit.CompilationUnit`);
* ``prim::unchecked_cast`` checks the value has the type it is cast to, so no
  value can pass for a record, a dict or a list it is not;
* ``prim::CreateObject`` makes a record of the archive's own class;
* attribute names are TorchScript's: no dots, no ``__dunder__``
  (:func:`~pyjit.ir.symbols.attribute_name_problem`, checked where the class is
  read, :class:`~.source.ClassDef`);
* a record's Python class has no methods of the archive's code as Python
  methods or protocols (``keys``, ``__iter__``, ``__eq__``...): only
  :class:`~.module.ScriptModule`'s own, for the caller.

The records of one load are of Python classes of that load only, so nothing one
archive does reaches another's objects.
"""

from __future__ import annotations

from typing import Any, Callable, Dict

from ..errors import ArchiveError
from ..ir import types as T
from ..ir.type_relation import Checker, ValueMismatch, describe_value, value_checker
from ..registry import Registry

__all__ = ["Record", "check_fields", "archive_registry"]

class Record:
    """An object of an archive class: its attribute values, by name, in ``_fields``.

    The Python subclass made for each archive class (:func:`~.module.make_class`)
    sets the class attributes ``_class`` (the :class:`~.source.ClassDef`, whose
    ``attributes`` are the declared names and types) and ``_program``.
    """

    __slots__ = ("_fields", "__weakref__")
    _class: Any = None
    _program: Any = None

    @classmethod
    def _new(cls) -> "Record":
        """An object with no attributes set yet (``NEWOBJ``, ``prim::CreateObject``)."""
        obj = object.__new__(cls)
        object.__setattr__(obj, "_fields", {})
        return obj

    def _build(self, state: Dict[str, Any]) -> None:
        """Set the attributes of a pickle's ``BUILD`` state: declared names only
        (their values are checked against their types once the pickle is read,
        :func:`check_fields`)."""
        declared = type(self)._class.attributes
        for name, value in state.items():
            if name not in declared:
                raise ArchiveError(
                    f"an object of {type(self)._class.name} sets attribute "
                    f"{name[:80]!r}, which its class does not declare")
            self._fields[name] = value


def check_fields(record: Record, checker: Callable[[Any, str], Checker]) -> None:
    """Every attribute of ``record`` is a value of its declared type;
    ``checker(cls, name)`` is the archive's check of one
    (:meth:`.program.Program.field_checker`)."""
    cls = type(record)._class
    for name, value in record._fields.items():
        try:
            checker(cls, name)(value)
        except ValueMismatch as m:
            detail = f" ({m.reason})" if m.reason else ""
            raise ArchiveError(f"attribute '{name}' of a {cls.name} object is a "
                               f"{describe_value(value)}, not a {cls.attributes[name]}"
                               f"{detail}") from None


# -- the operators of archive graphs ----------------------------------------------------------
class _ArchiveRegistry(Registry):
    """The library's operators, but for the kinds this registry has itself, which
    it answers alone (an archive's object operators: nothing of the library's
    ``getattr`` on Python objects is reachable from an archive)."""

    def __init__(self, base: Registry) -> None:
        super().__init__()
        self._base = base

    def find(self, kind: str, input_types):
        if kind in self._ops:
            return super().find(kind, input_types)
        return self._base.find(kind, input_types)

    def overloads(self, kind: str):
        return super().overloads(kind) if kind in self._ops else self._base.overloads(kind)

    def kinds(self):
        return sorted(set(self._ops) | set(self._base.kinds()))

    def lookup(self, node):
        if node.kind in self._ops:
            return super().lookup(node)
        return self._base.lookup(node)


def archive_registry(program: Any, base: Registry) -> Registry:
    """The registry of one archive's unit: ``base`` (the library), with the object
    operators of this module for the archive's records.

    ``program`` answers ``record_class(name)`` (the Python class of the archive's
    class ``name``, or None) and ``named_check(t)`` (the value checks of the
    archive's own named types, for casts).
    """
    r = _ArchiveRegistry(base)

    def receiver(node) -> tuple:
        t = node.inputs[0].type if node.inputs else None
        cls = program.record_class(t.name) if isinstance(t, T.NamedType) else None
        if cls is None:
            raise TypeError(f"{node.kind} on a {t}: in an archive, attributes are those of "
                            "an object of the archive's classes")
        name = node.attrs.get("name") if node.attrs else None
        if not isinstance(name, str) or name not in cls._class.attributes:
            raise TypeError(f"{cls._class.name} declares no attribute {str(name)[:80]!r}")
        return cls, name

    def get_attr(node) -> Callable[[Any], Any]:
        cls, name = receiver(node)

        def get_field(obj: Any) -> Any:
            if type(obj) is not cls:
                raise TypeError(f"attribute '{name}' of a {_described(obj)}: expected a "
                                f"{cls._class.name} object")
            try:
                return obj._fields[name]
            except KeyError:
                raise AttributeError(f"attribute '{name}' of a {cls._class.name} object "
                                     "was never set") from None
        get_field.__name__ = f"get_attr_{name}"
        return get_field

    def set_attr(node) -> Callable[[Any, Any], None]:
        cls, name = receiver(node)
        t = cls._class.attributes[name]
        check = value_checker(t, items=False, named=program.named_check)

        def set_field(obj: Any, value: Any) -> None:
            if type(obj) is not cls:
                raise TypeError(f"attribute '{name}' of a {_described(obj)}: expected a "
                                f"{cls._class.name} object")
            try:
                check(value)
            except ValueMismatch:
                raise TypeError(f"attribute '{name}' of {cls._class.name} is a {t}, not a "
                                f"{describe_value(value)}") from None
            obj._fields[name] = value
        set_field.__name__ = f"set_attr_{name}"
        return set_field

    def create_object(node) -> Callable[[], Any]:
        t = node.outputs[0].type
        cls = program.record_class(t.name) if isinstance(t, T.NamedType) else None
        if cls is None:
            raise TypeError(f"prim::CreateObject of {t}, which is no class of the archive's "
                            "code")
        return cls._new

    def unchecked_cast(node) -> Callable[[Any], Any]:
        t = node.outputs[0].type
        check: Checker = value_checker(t, items=False, named=program.named_check)

        def checked_cast(value: Any) -> Any:
            try:
                return check(value)
            except ValueMismatch:
                raise TypeError(f"unchecked_cast of a {_described(value)} to {t}: the value "
                                "is not of that type") from None
        return checked_cast

    r.register("prim::GetAttr", factory=get_attr, types=["Any"])
    r.register("prim::SetAttr", factory=set_attr, types=["Any", "Any"])
    r.register("prim::CreateObject", factory=create_object, types=[])
    r.register("prim::unchecked_cast", factory=unchecked_cast, types=["t"])
    return r


def _described(value: Any) -> str:
    if isinstance(value, Record):
        return f"{type(value)._class.name} object"
    return describe_value(value)
