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
from typing import Any, NamedTuple, Tuple

from ..ir import Graph
from ..ir import types as T
from ..ir.type_relation import check_value, exact_type
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


class ScriptFunction:
    """A Python function compiled to a pyjit graph.

    Attributes:
        graph: the :class:`~pyjit.ir.Graph`.
        source: the function's source text (dedented).
        function: the original Python function.
        code: the :class:`~pyjit.code.Code` the interpreter runs (built lazily).
    """

    def __init__(self, fn, compiled: CompiledFunction) -> None:
        self.function = fn
        self._compiled = compiled
        self._runner = None
        self._lock = threading.Lock()
        self._signature = inspect.signature(fn)
        # The fast path of a call: all arguments given by position, each of exactly
        # the class its parameter's type passes unchanged (None: there is none).
        exact = tuple(exact_type(t) for t in compiled.param_types)
        self._exact = None if None in exact else exact
        functools.update_wrapper(self, fn, updated=())

    # -- what was compiled ------------------------------------------------------------------
    @property
    def graph(self) -> Graph:
        return self._compiled.graph

    @property
    def source(self) -> str:
        return self._compiled.source.text

    @property
    def param_names(self):
        return self._compiled.param_names

    @property
    def param_types(self):
        return self._compiled.param_types

    @property
    def param_defaults(self):
        return self._compiled.param_defaults

    @property
    def return_type(self):
        return self._compiled.return_type

    @property
    def schema(self) -> str:
        """``name(x : int, y : float) -> int``: the signature in graph types."""
        params = ", ".join(f"{n} : {t}" for n, t in zip(self.param_names, self.param_types))
        return f"{self.__name__}({params}) -> {self.return_type}"

    # -- running -----------------------------------------------------------------------------
    def _function(self):
        runner = self._runner
        if runner is None:
            with self._lock:
                if self._runner is None:
                    from ..interpreter import Function
                    self._runner = Function(self.graph)
                runner = self._runner
        return runner

    @property
    def code(self):
        """The Code (instruction table) of the graph, built on first use."""
        return self._function().code

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        exact = self._exact
        if (not kwargs and exact is not None and len(args) == len(exact)
                and all(map(operator.is_, map(type, args), exact))):
            return (self._runner or self._function())(*args)
        try:
            bound = self._signature.bind(*args, **kwargs)
        except TypeError as exc:
            raise TypeError(f"{self.__name__}(): {exc}") from None
        bound.apply_defaults()
        values = []
        for name, t in zip(self.param_names, self.param_types):
            try:
                values.append(check_value(bound.arguments[name], t))
            except TypeError as exc:
                raise TypeError(f"{self.__name__}(): argument '{name}' must be {t}: "
                                f"{exc}") from None
        return self._function()(*values)

    def __repr__(self) -> str:
        return f"<pyjit.ScriptFunction {self.schema}>"
