"""What :func:`pyjit.load` returns: the archive's objects, their methods runnable.

Every object of ``data.pkl`` is a record (:mod:`.records`) of a Python class made
for its TorchScript class (``__torch__.M``), a subclass of :class:`ScriptModule`:
its attributes are the ones the class declares (numpy arrays for tensors, Python
values, submodules -- a ``ModuleList``'s under the names ``"0"``, ``"1"``...),
which is what ``prim::GetAttr`` and ``prim::SetAttr`` read and write, and its
methods are the class's methods in the archive's code, compiled on first use::

    m = pyjit.load("model.pt")
    y = m(x)                    # m.forward(x)
    m.helper(y)                 # any method
    m.sub.weight                # a submodule's parameter, a numpy array
    m.state_dict()              # {"sub.lin.weight": array(...), ...}
    print(m.graph, m.code)      # forward's graph and instruction listing
"""

from __future__ import annotations

from types import ModuleType
from typing import Any, Dict, Optional

import numpy as np

from ..interpreter import Function
from ..ir.type_relation import ValueMismatch, describe_value
from .records import Record
from .schemas import REQUIRED
from .specialize import specialized

__all__ = ["ScriptModule", "Method", "make_class", "freeze", "Frozen"]


class Method:
    """A method of a loaded object, bound to it."""

    __slots__ = ("_owner", "name")

    def __init__(self, owner: "ScriptModule", name: str) -> None:
        self._owner = owner
        self.name = name

    def _cls(self) -> str:
        return type(self._owner)._class.name

    def function(self, loop: Optional[ModuleType] = None,
                 optimize: Optional[bool] = None) -> Function:
        """The :class:`~pyjit.Function` running it (``self`` its first argument), on
        ``loop`` (the one given to :func:`~pyjit.load` by default) at level
        ``optimize`` (the default level by default)."""
        owner = type(self._owner)
        program = owner._program
        program.graph(self._cls(), self.name)
        return program.unit.method(self._cls(), self.name, loop=loop or owner._loop,
                                   optimize=optimize)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        bound = self.bind(args, kwargs)
        # from its second call, the method specialised for this object
        # (pyjit.archive.specialize), while the object stays as it was
        fn = specialized(self._owner, self.name) or self.function()
        return fn(self._owner, *bound)

    def bind(self, args: tuple, kwargs: dict) -> list:
        """The arguments after ``self`` in order, keywords placed and the defaults
        of the method's serialized signature filled in, as Python binds them."""
        sig = type(self._owner)._program.signature(self._cls(), self.name)
        names, defaults = sig.names[1:], sig.defaults[1:]
        label = f"{self._cls()}.{self.name}()"
        if len(args) > len(names):
            raise TypeError(f"{label} takes {len(names)} arguments but {len(args)} were given")
        out = list(args)
        for name, default in zip(names[len(args):], defaults[len(args):]):
            if name in kwargs:
                out.append(kwargs.pop(name))
            elif default is not REQUIRED:
                out.append(default)
            else:
                raise TypeError(f"{label} missing required argument '{name}'")
        if kwargs:
            raise TypeError(f"{label} got an unexpected keyword argument "
                            f"'{next(iter(kwargs))}'")
        return out

    @property
    def graph(self):
        """The graph pyjit compiled the method's code into."""
        return type(self._owner)._program.graph(self._cls(), self.name)

    @property
    def code(self):
        """Its :class:`~pyjit.Code` (``print`` shows the instruction listing)."""
        return self.function().code

    def __reduce__(self):
        # The method of the module it is bound to, pickled with it.
        return (getattr, (self._owner, self.name))

    def __repr__(self) -> str:
        return f"<method {self.name} of {self._cls()}>"


class ScriptModule(Record):
    """An object of a loaded archive (a module, or an object of a scripted class).

    Its attributes read as Python attributes (``m.sub.weight``), and a declared one
    may be set (``m.training = False``: checked against its declared type); its
    methods are the class's methods (``m.forward(x)``, ``m(x)``).  The class
    attributes ``_program``, ``_class``, ``_qualified_name`` and ``_loop`` are set on
    the subclass made for each TorchScript class (:func:`make_class`).
    """

    __slots__ = ()
    _qualified_name = ""
    _loop: Optional[ModuleType] = None

    def __getattr__(self, name: str) -> Any:
        # Only for what is not a ScriptModule's own: attributes, methods, code, graph.
        # Python's protocols (__iter__, __eq__, keys...) are never answered with
        # the archive's code.
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        fields = object.__getattribute__(self, "_fields")
        if name in fields:
            return fields[name]
        cls = type(self)._class
        if name in cls.methods:
            return Method(self, name)
        if name in ("code", "graph") and "forward" in cls.methods:
            return getattr(Method(self, "forward"), name)
        if name in cls.constants:
            return cls.constants[name]
        if name in cls.attributes:
            raise AttributeError(f"attribute '{name}' of a {cls.name} object was never set")
        raise AttributeError(f"'{type(self)._qualified_name}' object has no attribute '{name}'")

    def __setattr__(self, name: str, value: Any) -> None:
        cls = type(self)._class
        if name not in cls.attributes:
            raise AttributeError(f"'{cls.name}' object has no attribute '{name}' to set "
                                 f"(its class declares {', '.join(cls.attributes) or 'none'})")
        try:
            value = type(self)._program.field_checker(cls, name)(value)
        except ValueMismatch:
            raise TypeError(f"attribute '{name}' of {cls.name} is a {cls.attributes[name]}, "
                            f"not a {describe_value(value)}") from None
        self._fields[name] = value

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.forward(*args, **kwargs)

    def state_dict(self, prefix: str = "") -> Dict[str, np.ndarray]:
        """Parameters and buffers by their dotted names, as torch's ``state_dict``
        (the arrays themselves, not copies)."""
        out: Dict[str, np.ndarray] = {}
        cls = type(self)._class
        for name in cls.parameters + cls.buffers:
            value = self._fields.get(name)
            if value is not None:
                out[prefix + name] = value
        for name, value in self._fields.items():
            if isinstance(value, ScriptModule):
                out.update(value.state_dict(f"{prefix}{name}."))
        return out

    def __dir__(self):
        cls = type(self)._class
        return sorted(set(self._fields) | set(cls.methods) | {"state_dict", "code", "graph"})

    def __reduce__(self):
        """Pickled as an archive of its code and current state (:mod:`.pickling`)."""
        from .pickling import dumps_module, restore
        loop = type(self)._loop
        return (restore, (dumps_module(self), loop.__name__ if loop is not None else None,
                          type(self)._program.limits))

    def __repr__(self) -> str:
        return f"<pyjit.load object {type(self)._qualified_name}>"


def make_class(program: Any, cls: Any, loop: Optional[ModuleType]) -> type:
    """The Python class of the archive's objects of class ``cls`` (a
    :class:`~.source.ClassDef`), one per class of one load."""
    return type(cls.name.rpartition(".")[2], (ScriptModule,),
                {"__slots__": (), "_program": program, "_class": cls,
                 "_qualified_name": cls.name, "_loop": loop,
                 "__module__": "pyjit.archive.loaded"})


def freeze(module: ScriptModule, method: str = "forward", *,
           loop: Optional[ModuleType] = None, optimize: Optional[bool] = None) -> "Frozen":
    """Method ``method`` of loaded ``module`` frozen, as ``torch.jit.freeze``
    freezes a module: one graph with every call inlined, the attributes it only
    reads constants, the branches they decide taken
    (:func:`pyjit.passes.freeze.freeze_graph`), so that the inference passes
    fold its batch norms and fuse its activations (:mod:`pyjit.passes.inference`)::

        m = pyjit.load("resnet18.pt")
        forward = pyjit.freeze(m)      # m's weights and m.training as they are now
        y = forward(x)

    The frozen method sees the module as it was when frozen: a later
    assignment (``m.training = True``, new weights) is not seen by it; freeze
    again.  Its tensor constants are read-only views of the module's arrays,
    not copies, so an in-place write into those is seen, and the folded ones
    (a batch norm folded into a convolution's weight) are not: freeze again
    after changing weights.  Attributes its code writes stay attributes, read
    at every run.
    """
    from ..code import Code
    from ..passes.freeze import freeze_graph
    if not isinstance(module, ScriptModule):
        raise TypeError(f"pyjit.freeze takes a module pyjit.load returned, not a "
                        f"{type(module).__name__}")
    cls = type(module)
    program = cls._program
    if method not in cls._class.methods:
        raise AttributeError(f"'{cls._qualified_name}' object has no method '{method}' to freeze")
    graph = program.graph(cls._class.name, method)
    unit = program.unit
    g = freeze_graph(graph, module, unit, unit._registry, _attribute,
                     lambda v: isinstance(v, Record))
    code = Code(g, registry=unit._registry, optimize=optimize, unit=unit,
                name=f"{cls._class.name}.{method} (frozen)", copy=False)
    return Frozen(module, method, Function(code, loop=loop or cls._loop))


def _attribute(obj: Record, name: str) -> Any:
    fields = object.__getattribute__(obj, "_fields")
    if name in fields:
        return fields[name]
    constants = type(obj)._class.constants
    if name in constants:
        return constants[name]
    raise AttributeError(name)


class Frozen:
    """A frozen method (:func:`freeze`): called with the method's arguments.

    Attributes:
        function: the :class:`~pyjit.Function` running the frozen graph (its
            first argument the module, for the attributes it still reads).
        code: its Code (``print(frozen.code)``; ``frozen.code.graph``).
    """

    __slots__ = ("_module", "_method", "function")

    def __init__(self, module: ScriptModule, method: str, function: Function) -> None:
        self._module = module
        self._method = method
        self.function = function

    @property
    def code(self):
        return self.function.code

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        bound = Method(self._module, self._method).bind(args, kwargs)
        return self.function(self._module, *bound)

    def __repr__(self) -> str:
        return f"<frozen {self._method} of {type(self._module)._qualified_name}>"
