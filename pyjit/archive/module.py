"""What :func:`pyjit.load` returns: the archive's objects, their methods runnable.

Every object of ``data.pkl`` is an instance of a Python class made for its
TorchScript class (``__torch__.M``), a subclass of :class:`ScriptModule`: its
attributes are in its ``__dict__`` (numpy arrays for tensors, Python values,
submodules -- a ``ModuleList``'s under the names ``"0"``, ``"1"``...), which is
what ``prim::GetAttr`` and ``prim::SetAttr`` read and write, and its methods
are the class's methods in the archive's code, compiled on first use::

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
from .schemas import REQUIRED

__all__ = ["ScriptModule", "Method", "make_class"]


class Method:
    """A method of a loaded object, bound to it."""

    __slots__ = ("_owner", "name")

    def __init__(self, owner: "ScriptModule", name: str) -> None:
        self._owner = owner
        self.name = name

    def _cls(self) -> str:
        return type(self._owner)._qualified_name

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
        return self.function()(self._owner, *self.bind(args, kwargs))

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

    def __repr__(self) -> str:
        return f"<method {self.name} of {self._cls()}>"


class ScriptModule:
    """An object of a loaded archive (a module, or an object of a scripted class).

    The class attributes ``_program``, ``_qualified_name`` and ``_loop`` are set
    on the subclass made for each TorchScript class (:func:`make_class`).
    """

    _program: Any = None
    _qualified_name = ""
    _loop: Optional[ModuleType] = None

    def __getattr__(self, name: str) -> Any:
        # Only for what the instance's attributes lack: methods, code and graph.
        if name.startswith("__"):
            raise AttributeError(name)
        cls = type(self)._program.cls(type(self)._qualified_name)
        if name in cls.methods:
            return Method(self, name)
        if name in ("code", "graph") and "forward" in cls.methods:
            return getattr(Method(self, "forward"), name)
        if name in cls.constants:
            return cls.constants[name]
        raise AttributeError(f"'{type(self)._qualified_name}' object has no attribute '{name}'")

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.forward(*args, **kwargs)

    def state_dict(self, prefix: str = "") -> Dict[str, np.ndarray]:
        """Parameters and buffers by their dotted names, as torch's ``state_dict``
        (the arrays themselves, not copies)."""
        out: Dict[str, np.ndarray] = {}
        cls = type(self)._program.cls(type(self)._qualified_name)
        for name in cls.parameters + cls.buffers:
            value = self.__dict__.get(name)
            if value is not None:
                out[prefix + name] = value
        for name, value in self.__dict__.items():
            if isinstance(value, ScriptModule):
                out.update(value.state_dict(f"{prefix}{name}."))
        return out

    def __dir__(self):
        cls = type(self)._program.cls(type(self)._qualified_name)
        return sorted(set(self.__dict__) | set(cls.methods) | {"state_dict", "code", "graph"})

    def __repr__(self) -> str:
        return f"<pyjit.load object {type(self)._qualified_name}>"


def make_class(program: Any, qualified: str, loop: Optional[ModuleType]) -> type:
    """The Python class of the archive's objects of TorchScript class ``qualified``."""
    return type(qualified.rpartition(".")[2], (ScriptModule,),
                {"_program": program, "_qualified_name": qualified, "_loop": loop,
                 "__module__": "pyjit.archive.loaded"})
