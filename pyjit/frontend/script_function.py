"""The :class:`ScriptFunction` that ``pyjit.script`` (:mod:`.compiler`) returns.

::

    @pyjit.script
    def gcd(a: int, b: int) -> int:
        while b != 0:
            a, b = b, a % b
        return a

    gcd(12, 18)          # 6, run by pyjit's interpreter
    print(gcd.graph)     # the graph, in torch's text format
    print(gcd.code)      # the instruction table

The function is compiled when it is decorated: anything outside the supported
subset is a :class:`~pyjit.CompileError` right there, pointing at the line.  The
Code is built on first use.

A call of another function stays a call (``prim::CallFunction``, as torch
prints it): the function's :attr:`~ScriptFunction.unit` holds its graph and those
of every function it calls, which the interpreter runs as calls;
:attr:`~ScriptFunction.inlined_graph` is the same computation as one graph.

Where TorchScript's semantics differ from Python's, the graph has TorchScript's
(these are the operators' semantics, shared with graphs torch prints):

* ``int ** int`` is a float, and ``min``/``max`` of an int and a float a float;
* ``str()`` and f-strings print floats as torch does (``str(1.0)`` is ``"1."``);
* ``x.shape`` of an array is a list of ints, not a tuple;
* a variable keeps one type across the branches and iterations that reach a
  use of it (rebinding it in the same block may change it);
* ``and``/``or`` outside a condition must be on bools (Python would return an
  operand), and ints are 64-bit in the types (Python's big ints at run time).
"""

from __future__ import annotations

import functools
import inspect
import operator
import threading
import types
from typing import Any, Dict, Generic, NamedTuple, ParamSpec, Tuple, TypeVar

from ..arguments import Signature
from ..compilation_unit import CompilationUnit
from ..ir import Graph
from ..ir import types as T
from . import script_pickle
from .source_map import FunctionSource

__all__ = ["ScriptFunction", "CompiledFunction"]


class CompiledFunction(NamedTuple):
    """What compiling a function produces."""

    graph: Graph
    source: FunctionSource
    param_names: Tuple[str, ...]
    param_types: Tuple[T.Type, ...]
    param_defaults: Tuple[Tuple[str, Any], ...]   # (name, default or Parameter.empty)
    return_type: T.Type
    #: What it calls, and what those call: ScriptFunctions by the name calls print.
    callees: Dict[str, Any]
    #: The methods it calls, and those they call, by (class name, method name).
    methods: Dict[Tuple[str, str], Any]


#: The parameters and the return type of the Python function a ScriptFunction was
#: compiled from: to a type checker, calling it is calling that function.
P = ParamSpec("P")
R = TypeVar("R")


class ScriptFunction(Generic[P, R]):
    """A Python function compiled to a pyjit graph.

    To a type checker a ``ScriptFunction[P, R]`` is called as the function it was
    compiled from (``@pyjit.script`` keeps its parameters ``P`` and return type
    ``R``), and has the attributes below.

    Attributes:
        graph: the :class:`~pyjit.ir.Graph`.
        source: the function's source text (dedented).
        function: the original Python function.
        code: the :class:`~pyjit.code.Code` the interpreter runs (built lazily).
        unit: the :class:`~pyjit.CompilationUnit` of its graph and its callees'.
        owner: for a method, its :class:`~.classes.ScriptClass`; else None.
    """

    def __init__(self, fn, compiled: CompiledFunction, owner=None) -> None:
        self.function = fn
        self.owner = owner
        self._compiled = compiled
        self._runner = None
        self._unit = None
        self._lock = threading.Lock()
        self._signature = inspect.signature(fn)
        functools.update_wrapper(self, fn, updated=())
        script_pickle.remember(self)

    # -- what was compiled ------------------------------------------------------------------
    @property
    def graph(self) -> Graph:
        return self._compiled.graph

    @property
    def source(self) -> str:
        return self._compiled.source.text

    # The signature as it was compiled, read from the compiled function.
    param_names = property(operator.attrgetter("_compiled.param_names"),
                           doc="The parameters' names, in order.")
    param_types = property(operator.attrgetter("_compiled.param_types"),
                           doc="The parameters' pyjit types, in order.")
    param_defaults = property(operator.attrgetter("_compiled.param_defaults"),
                              doc="(name, default or inspect.Parameter.empty) for each parameter.")
    return_type = property(operator.attrgetter("_compiled.return_type"),
                           doc="The pyjit type of what a call returns.")

    @property
    def functions(self) -> Dict[str, "ScriptFunction"]:
        """This function (not a method) and every function it calls, directly or
        not, by the names calls print (``prim::Constant[name=...]``)."""
        own = {} if self.owner is not None else {self.__name__: self}
        return {**own, **self._compiled.callees}

    @property
    def methods(self) -> Dict[Tuple[str, str], "ScriptFunction"]:
        """This method and every method it calls, directly or not, by
        ``(class name, method name)``."""
        own = {(self.owner.name, self.__name__): self} if self.owner is not None else {}
        return {**own, **self._compiled.methods}

    @property
    def unit(self) -> CompilationUnit:
        """The compilation unit of the graphs of :attr:`functions` and
        :attr:`methods` (a method's is its class's), made on first use."""
        if self.owner is not None:
            return self.owner.unit
        if self._unit is None:
            with self._lock:
                if self._unit is None:
                    tables: Dict[str, Dict[str, Graph]] = {}
                    for (cls, name), sf in self.methods.items():
                        tables.setdefault(cls, {})[name] = sf.graph
                    self._unit = CompilationUnit({name: sf.graph for name, sf
                                                  in self.functions.items()}, methods=tables)
        return self._unit

    @property
    def inlined_graph(self) -> Graph:
        """The graph with every call replaced by the graph it calls (torch's
        ``inlined_graph``; :func:`pyjit.passes.inline_calls`)."""
        from ..passes import inline_calls
        g = self.graph.copy()
        inline_calls(g, self.unit)
        return g

    @property
    def schema(self) -> str:
        """``name(x : int, y : float) -> int``: the signature in graph types."""
        params = ", ".join(f"{n} : {t}" for n, t in zip(self.param_names, self.param_types))
        return f"{self.__name__}({params}) -> {self.return_type}"

    # -- running -----------------------------------------------------------------------------
    def _function(self):
        runner = self._runner
        if runner is None:
            unit = self.unit
            with self._lock:
                if self._runner is None:
                    if self.owner is None:
                        # The unit's Code, checking arguments under the Python names.
                        from ..interpreter import Function
                        signature = Signature(self.__name__, self.param_names,
                                              self.param_types, str(self.return_type))
                        self._runner = Function(unit.function(self.__name__).code,
                                                signature=signature)
                    else:
                        self._runner = unit.method(self.owner.name, self.__name__)
                runner = self._runner
        return runner

    def __get__(self, obj: Any, objtype: Any = None) -> Any:
        # A method of a scripted class, looked up on an instance: bound to it.
        if obj is None or self.owner is None:
            return self
        return types.MethodType(self, obj)

    @property
    def code(self):
        """The Code (instruction table) of the graph, built on first use."""
        return self._function().code

    def __call__(self, *args: P.args, **kwargs: P.kwargs) -> R:
        if kwargs or len(args) != len(self.param_names):
            # Keywords and defaults: Python's own binding, then positional.
            try:
                bound = self._signature.bind(*args, **kwargs)
            except TypeError as exc:
                raise TypeError(f"{self.__name__}(): {exc}") from None
            bound.apply_defaults()
            args = tuple(bound.arguments[name] for name in self.param_names)
        # The Function checks the arguments (pyjit.arguments: one generated guard
        # per parameter, as cheap as a test of exact classes here would be).
        return (self._runner or self._function())(*args)

    def __repr__(self) -> str:
        return f"<pyjit.ScriptFunction {self.schema}>"

    # By reference, or by value under cloudpickle: see .script_pickle.
    def __reduce__(self):
        return script_pickle.reduce_script(self)

    def __dask_tokenize__(self) -> str:
        return script_pickle.script_token(self)
