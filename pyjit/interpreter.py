"""Running a Code: :class:`InterpreterState` (the seed's) and :class:`Function`.

An ``InterpreterState`` is one run of a :class:`~pyjit.code.Code`: a ``Frame`` of
the active loop (registers, value stack, pc) plus what the seed keeps beside it.
``run(stack)`` has the seed's contract: the inputs are on ``stack`` before, the
outputs after.  ``Function`` is the friendly form, ``f(*args) -> output``.

Errors: an exception raised while an instruction runs is re-raised as
:class:`~pyjit.InterpreterError` naming the node and its source location, with the
original exception as ``__cause__``; a ``prim::RaiseException`` in the graph
surfaces as :class:`~pyjit.JITException`.  The state is unusable afterwards.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any, List, Optional

from ._backend import loop as _default_loop
from .code import Code
from .errors import InterpreterError, JITException
from .ir import Graph
from .ir.printer import node_header

__all__ = ["InterpreterState", "Function", "located_error", "drive"]


def located_error(code: Code, pc: int, exc: BaseException) -> InterpreterError:
    """The :class:`InterpreterError` (or :class:`JITException`) for ``exc`` raised by
    instruction ``pc`` of ``code``: the original message, the failing node, and its
    ``file:line:col`` with the source line and a caret when the file is readable."""
    node = code.node_at(pc)
    header = node_header(node)
    loc = node.source_location
    where = f"\n  at {loc.highlight()}" if loc is not None else ""
    if isinstance(exc, JITException):
        cls = exc.python_class or "Exception"
        text = f"{cls}: {exc.msg}{where}\n  raised by: {header}"
        return JITException(text, msg=exc.msg, python_class=exc.python_class,
                            node=header, location=loc)
    if isinstance(exc, InterpreterError):
        # Already located (e.g. by a nested graph); add where this graph met it.
        text = f"{exc}\n  while running: {header}{where}"
        return type(exc)(text, node=header, location=loc)
    text = f"{type(exc).__name__}: {exc}{where}\n  while running: {header}"
    return InterpreterError(text, node=header, location=loc)


def drive(code: Code, frame: Any, stack: List[Any]) -> None:
    """Run ``frame`` to completion, blocking while it waits on a future, and turn a
    failure into a located error.  Both :class:`InterpreterState` and
    :class:`Function` run this way."""
    try:
        pending = frame.run(stack)
        while pending is not None:
            pending.wait()  # an error surfaces when WAIT reads the future again
            pending = frame.run(stack)
    except Exception as exc:
        raise located_error(code, frame.pc, exc) from exc


class InterpreterState:
    """One execution of a Code.

    Args:
        code: what to run.
        loop: the loop module (``pyjit._core`` or ``pyjit._pure``); the active
            backend by default.
    """

    __slots__ = ("code", "_frame")

    def __init__(self, code: Code, *, loop: Optional[ModuleType] = None) -> None:
        if not isinstance(code, Code):
            raise TypeError(f"InterpreterState() takes a Code, not {type(code).__name__}")
        self.code = code
        self._frame = (loop or _default_loop).Frame(code.program(loop))

    def run(self, stack: List[Any]) -> None:
        """Run to completion.  ``stack`` holds the inputs (last input last); after the
        run it holds the outputs instead.  A run that suspends on a future blocks
        until the future is done and then continues."""
        if self._frame.failed:
            # Said plainly here: through drive() it would read as the node failing again.
            pc = self._frame.pc
            where = (f" ({node_header(self.code.node_at(pc)).strip()})"
                     if pc < len(self.code) else "")
            raise InterpreterError(
                f"this InterpreterState is unusable: its run failed at instruction {pc}"
                f"{where}; make a new one to run again")
        drive(self.code, self._frame, stack)

    @property
    def pc(self) -> int:
        """The index of the next instruction to run (of the failing one after an error)."""
        return self._frame.pc


class Function:
    """A graph as a Python callable: ``Function(graph)(*args)``.

    Returns the graph's single output, or a tuple when it has several (none: None).
    """

    __slots__ = ("code", "_program", "_loop", "_n_inputs", "_n_outputs")

    def __init__(self, graph: Graph, *, loop: Optional[ModuleType] = None) -> None:
        self.code = Code(graph)
        self._loop = loop or _default_loop
        self._program = self.code.program(self._loop)
        self._n_inputs = self.code.n_inputs
        self._n_outputs = self.code.n_outputs

    def __call__(self, *args: Any) -> Any:
        if len(args) != self._n_inputs:
            raise TypeError(f"graph takes {self._n_inputs} argument(s) but {len(args)} "
                            "were given")
        stack = list(args)
        drive(self.code, self._loop.Frame(self._program), stack)
        if self._n_outputs == 1:
            return stack[0]
        return tuple(stack) if self._n_outputs else None

    @property
    def graph(self) -> Graph:
        return self.code.graph

    def __repr__(self) -> str:
        return f"<pyjit Function: {self.code!r}>"
