"""The types that annotate values, printed exactly as torch prints them in graphs.

Types are immutable and compare structurally::

    >>> ListType(INT) == ListType(INT)
    True
    >>> str(DictType(STR, OptionalType(ListType(FLOAT))))
    'Dict(str, float[]?)'

Which type accepts which is :mod:`pyjit.ir.type_relation`'s to say.

Names torch knows but pyjit gives no meaning to (``Device``, ``ScalarType``,
``__torch__.MyModule``...) are kept as opaque :class:`NamedType`s, so that any graph
torch prints can be read and written back unchanged.
"""

from __future__ import annotations

from typing import Optional, Tuple

__all__ = [
    "Type", "NamedType", "TensorType", "ListType", "TupleType", "DictType",
    "OptionalType", "UnionType", "GenericType", "FutureType", "EnumType",
    "INT", "FLOAT", "BOOL", "STR", "NONE", "TENSOR", "ANY", "FUNCTION", "NUMBER", "COMPLEX",
    "ANY_ENUM", "ANY_CLASS", "class_type_name", "annotation_str",
]


class Type:
    """Base of all types.  Subclasses define ``_key`` (for equality) and ``__str__``."""

    __slots__ = ()

    def _key(self) -> tuple:  # pragma: no cover - abstract
        raise NotImplementedError

    def __eq__(self, other: object) -> bool:
        return self is other or (type(self) is type(other)
                                 and self._key() == other._key())  # type: ignore[attr-defined]

    def __hash__(self) -> int:
        return hash((type(self).__name__, self._key()))

    def __repr__(self) -> str:
        return f"<type {self}>"

    def contained(self) -> Tuple["Type", ...]:
        """The types this one is built from (empty for leaf types)."""
        return ()


class _Named(Type):
    """A leaf type that is its name (the base of :class:`NamedType` and
    :class:`EnumType`, which print it differently)."""

    __slots__ = ("name", "_hash")

    def __init__(self, name: str) -> None:
        self.name = name
        self._hash = hash((type(self).__name__, (name,)))

    def _key(self) -> tuple:
        return (self.name,)

    # The commonest types (``int``, ``Tensor``...) are compared and hashed for
    # every node a build looks up: these skip the generic ``_key`` tuples.
    def __eq__(self, other: object) -> bool:
        return self is other or (type(other) is type(self)
                                 and other.name == self.name)  # type: ignore[attr-defined]

    def __hash__(self) -> int:
        return self._hash

    def __reduce__(self) -> tuple:  # the hash is per process: rebuild it
        return (type(self), (self.name,))


class NamedType(_Named):
    """A leaf type known by its name: ``int``, ``float``, ``str``, ``NoneType``, ``Any``,
    ``Function``, ``Device``, a class such as ``__torch__.M``..."""

    __slots__ = ()

    def __str__(self) -> str:
        return self.name


class TensorType(Type):
    """``Tensor``, or a refined tensor type as the tracer prints it.

    A refined type keeps its scalar name and the text between its parentheses, e.g.
    ``Float(2, 3, strides=[3, 1], requires_grad=0, device=cpu)`` has ``scalar="Float"``
    and ``detail="2, 3, strides=[3, 1], requires_grad=0, device=cpu"``; pyjit does
    not check shapes, it only carries them.  ``detail=None`` means the rank is
    unknown, which torch prints without parentheses: ``FloatTensor``.
    """

    __slots__ = ("scalar", "detail")

    def __init__(self, scalar: Optional[str] = None, detail: Optional[str] = None) -> None:
        self.scalar = scalar
        self.detail = detail

    def _key(self) -> tuple:
        return (self.scalar, self.detail)

    def __str__(self) -> str:
        # torch writes the parenthesised part only when the rank is known, and
        # "<scalar>Tensor" for a dtype without a rank: Tensor, Tensor(2, *),
        # FloatTensor, Float(2, 3), Float() (rank 0, nothing else known).
        if self.detail is None:
            return f"{self.scalar or ''}Tensor"
        return f"{self.scalar or 'Tensor'}({self.detail})"


class _Of(Type):
    """A type made of one other, its ``elem`` (the base of :class:`ListType` and
    :class:`OptionalType`, which print it differently)."""

    __slots__ = ("elem",)

    def __init__(self, elem: Type) -> None:
        self.elem = elem

    def _key(self) -> tuple:
        return (self.elem,)

    def contained(self) -> Tuple[Type, ...]:
        return (self.elem,)


class ListType(_Of):
    """``T[]``."""

    __slots__ = ()

    def __str__(self) -> str:
        return f"{self.elem}[]"


class TupleType(Type):
    """``(T1, T2)``; torch prints a named tuple as its class name, kept as NamedType."""

    __slots__ = ("elems",)

    def __init__(self, elems) -> None:
        self.elems = tuple(elems)

    def _key(self) -> tuple:
        return self.elems

    def contained(self) -> Tuple[Type, ...]:
        return self.elems

    def __str__(self) -> str:
        return "(" + ", ".join(map(str, self.elems)) + ")"


class DictType(Type):
    """``Dict(K, V)``."""

    __slots__ = ("key", "value")

    def __init__(self, key: Type, value: Type) -> None:
        self.key = key
        self.value = value

    def _key(self) -> tuple:
        return (self.key, self.value)

    def contained(self) -> Tuple[Type, ...]:
        return (self.key, self.value)

    def __str__(self) -> str:
        return f"Dict({self.key}, {self.value})"


class OptionalType(_Of):
    """``T?``: a T or None."""

    __slots__ = ()

    def __str__(self) -> str:
        return f"{self.elem}?"


class UnionType(Type):
    """``Union(T1, T2)``.  As in torch, equality ignores the order of the members
    (``Union(int, str) == Union(str, int)``); printing keeps it."""

    __slots__ = ("elems",)

    def __init__(self, elems) -> None:
        self.elems = tuple(elems)

    def _key(self) -> tuple:
        return (frozenset(self.elems),)

    def contained(self) -> Tuple[Type, ...]:
        return self.elems

    def __str__(self) -> str:
        return "Union(" + ", ".join(map(str, self.elems)) + ")"


class GenericType(Type):
    """A named type with parameters: ``Future[T]``, ``RRef[T]``, and ``Await(T)``,
    which torch prints with parentheses."""

    __slots__ = ("name", "args")

    def __init__(self, name: str, args) -> None:
        self.name = name
        self.args = tuple(args)

    def _key(self) -> tuple:
        return (self.name, self.args)

    def contained(self) -> Tuple[Type, ...]:
        return self.args

    def __str__(self) -> str:
        args = ", ".join(map(str, self.args))
        if self.name == "Await":  # torch's AwaitType::str() uses parentheses
            return f"Await({args})"
        return f"{self.name}[{args}]"


class EnumType(_Named):
    """``Enum<__torch__.Color>``: the members of one enum class, named by the
    class's qualified name (``__torch__.Color``).  A graph names a member by the
    class's name and its own (``prim::Constant[value=__torch__.Color.RED]``) but
    never prints its value: the class's definition gives it
    (:class:`pyjit.CompilationUnit`'s ``enums``)."""

    __slots__ = ()

    def __str__(self) -> str:
        return f"Enum<{self.name}>"


def class_type_name(cls: type) -> str:
    """``__torch__.<module>.<qualified name>``: the name torch gives the type of a
    Python class it compiles (an enum, a class, a module); a class of ``__main__``
    has no module part, and a class defined in a function drops ``<locals>``."""
    module = "" if cls.__module__ == "__main__" else cls.__module__ + "."
    return f"__torch__.{module}{cls.__qualname__.replace('<locals>.', '')}"


def annotation_str(t: Type) -> str:
    """``t`` as a Python annotation, the form torch's messages use
    (``List[int]``, ``Dict[str, Tensor]``, ``Tuple[int, float]``, ``Optional[int]``)
    where graphs print ``int[]``, ``Dict(str, Tensor)``, ``(int, float)``, ``int?``."""
    if isinstance(t, ListType):
        return f"List[{annotation_str(t.elem)}]"
    if isinstance(t, DictType):
        return f"Dict[{annotation_str(t.key)}, {annotation_str(t.value)}]"
    if isinstance(t, TupleType):
        return "Tuple[" + ", ".join(annotation_str(e) for e in t.elems) + "]"
    if isinstance(t, OptionalType):
        return f"Optional[{annotation_str(t.elem)}]"
    if isinstance(t, UnionType):
        return "Union[" + ", ".join(annotation_str(e) for e in t.elems) + "]"
    if isinstance(t, TensorType):
        return "Tensor"
    return str(t)


def FutureType(elem: Type) -> GenericType:
    """``Future[T]``, the type of ``prim::fork``'s result."""
    return GenericType("Future", (elem,))


INT = NamedType("int")
FLOAT = NamedType("float")
BOOL = NamedType("bool")
STR = NamedType("str")
NONE = NamedType("NoneType")
ANY = NamedType("Any")
FUNCTION = NamedType("Function")
COMPLEX = NamedType("complex")
ANY_ENUM = NamedType("AnyEnumType")  # torch's schemas: a member of any enum class
ANY_CLASS = NamedType("AnyClassType")  # torch's schemas: an object of any class
NUMBER = NamedType("Scalar")  # torch's NumberType: int, float or complex; prints "Scalar"
TENSOR = TensorType()
