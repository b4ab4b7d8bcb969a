"""A loaded module's method specialised for the object it is called on, and
checked before every run that the object still is as it was.

A loaded module's ``forward`` is a graph shared by every object of its class,
which calls its submodules' methods (graphs of their own) and reads every
attribute at every run: which branch of ``if self.training:`` runs, a
convolution's padding mode, whether a batch norm's statistics are None.  Nothing
there is known when the Code is built, so the inference passes find little to
fuse, and a MobileNet spends a third of its time in separate batch norms,
activations and the calls between them.

``pyjit.freeze`` fixes all of that for one object, weights included, and is
asked for by name because the frozen function no longer sees the module
change.  This module does what a JIT does instead: from an object's second
call of a method on (the first runs the shared graph, so a model called once
compiles nothing more), the method runs as a graph made for that object
(:func:`pyjit.passes.freeze.freeze_graph` with ``tensors=False``):

* every call inlined, every attribute that is a number, a string, a bool or
  None a constant, submodules followed, branches on them taken;
* tensors still read at every run (``prim::GetAttr``): new weights, assigned or
  written into in place, are seen as in the shared graph; only their being
  tensors is relied on (``self.running_mean is None`` is False);

so that the inference passes fuse what they could not (a convolution, its
batch norm and its activation: :mod:`pyjit.passes.fuse_batch_norm`).  Before
every run, each attribute the graph relied on is checked (:class:`Guards`: the
same object, the same constant, still a tensor; a few microseconds for a
MobileNet's 150 modules).  If one changed (``m.training = True``, a submodule
replaced, an attribute set by another method), the method is specialised
again for the object as it is now, or, after :data:`MAX_RESPECIALISATIONS`,
runs the shared graph from then on.

It applies at the optimising level (O1) with the inference passes on
(:func:`pyjit.passes.inference.disabled` turns it off, as does
``PYJIT_SPECIALIZE=0``), to calls through the module (``m(x)``,
``m.forward(x)``, ``m.helper(y)``); :meth:`Method.function
<pyjit.archive.module.Method.function>` and ``m.code`` stay the shared graph's.
A method that cannot be specialised (its graph fails to build) warns once and
runs the shared graph.
"""

from __future__ import annotations

import os
import threading
import warnings
import weakref
from typing import Any, Dict, List, Optional, Tuple

from ..code import default_optimize
from ..interpreter import Function
from ..passes import inference

__all__ = ["specialized", "specialization", "Guards", "MAX_RESPECIALISATIONS", "ENABLED"]

#: Whether calls are specialised at all (``PYJIT_SPECIALIZE=0``: never).
ENABLED = os.environ.get("PYJIT_SPECIALIZE", "1").strip() not in ("0", "false", "no", "off")

#: How many times a method is specialised again for one object whose attributes
#: keep changing before it runs the shared graph for good.
MAX_RESPECIALISATIONS = 3

_MISSING = object()

try:   # the guards' loop, compiled (Guards.hold)
    from .._core import guards_hold as _guards_hold
except ImportError:   # a build without a compiler
    _guards_hold = None


class Guards:
    """What a specialised graph relies on: per attribute, its owner's fields, its
    name, and the value it must still be (``same``) or that it must still be a
    tensor (``tensors``, whose values are read at run time)."""

    __slots__ = ("same", "tensors")

    def __init__(self) -> None:
        self.same: List[Tuple[dict, str, Any]] = []
        self.tensors: List[Tuple[dict, str]] = []

    def hold(self) -> bool:
        """Whether every attribute is still as the graph took it (the compiled
        loop's ``guards_hold`` where it is built, else :meth:`hold_python`)."""
        if _guards_hold is not None:
            return _guards_hold(self.same, self.tensors)
        return self.hold_python()

    def hold_python(self) -> bool:
        """:meth:`hold` in Python: the reference of the compiled one."""
        for fields, name, value in self.same:
            if fields.get(name, _MISSING) is not value:
                return False
        for fields, name in self.tensors:
            if fields.get(name) is None:
                return False
        return True

    def __len__(self) -> int:
        return len(self.same) + len(self.tensors)


class _State:
    """One object's method: its calls so far, and its specialisation."""

    __slots__ = ("calls", "function", "guards", "builds")

    def __init__(self) -> None:
        self.calls = 0
        self.function: Optional[Function] = None
        self.guards: Optional[Guards] = None
        self.builds = 0      # None once it runs the shared graph for good


#: Per object (weakly: a module's states go with it), per method name.
_states: "weakref.WeakKeyDictionary[Any, Dict[str, _State]]" = weakref.WeakKeyDictionary()
_lock = threading.Lock()


def specialized(owner: Any, method: str) -> Optional[Function]:
    """The Function to run ``owner.method`` with: its specialisation for
    ``owner`` when there is one whose guards hold (made or remade now if
    needed), else None (run the shared graph)."""
    if not (ENABLED and default_optimize() and inference.enabled()):
        return None
    states = _states.get(owner)
    if states is None:
        with _lock:
            states = _states.setdefault(owner, {})
    state = states.get(method)
    if state is None:
        state = states.setdefault(method, _State())
    if state.builds is None:
        return None
    state.calls += 1
    if state.calls < 2:
        return None
    fn, guards = state.function, state.guards
    if fn is not None and guards.hold():
        return fn
    with _lock:
        if state.function is fn and state.builds is not None:
            if state.builds > MAX_RESPECIALISATIONS:
                state.function = state.guards = None
                state.builds = None
                return None
            state.builds += 1
            state.function, state.guards = _build(owner, method)
            if state.function is None:
                state.builds = None
                return None
        return state.function


def specialization(owner: Any, method: str = "forward") -> Optional[Function]:
    """The Function ``owner.method`` runs as specialised for ``owner`` now (its
    ``code.graph`` the graph made for the object), or None: not called twice
    yet, not specialised, or running the shared graph for good."""
    state = _states.get(owner, {}).get(method)
    return None if state is None else state.function


def _build(owner: Any, method: str) -> Tuple[Optional[Function], Optional[Guards]]:
    from ..code import Code
    from ..passes.freeze import NOT_NONE, freeze_graph
    from .module import _attribute
    from .records import Record
    cls = type(owner)
    program = cls._program
    guards = Guards()

    def watch(obj: Any, name: str, value: Any, how: str) -> None:
        fields = object.__getattribute__(obj, "_fields")
        if name not in fields:
            return   # a class constant: it cannot change
        if how == NOT_NONE:
            guards.tensors.append((fields, name))
        else:
            guards.same.append((fields, name, value))

    try:
        graph = program.graph(cls._class.name, method)
        unit = program.unit
        g = freeze_graph(graph, owner, unit, unit._registry, _attribute,
                         lambda v: isinstance(v, Record), tensors=False, watch=watch)
        code = Code(g, registry=unit._registry, unit=unit, copy=False,
                    name=f"{cls._class.name}.{method} (specialised)")
    except Exception as e:   # the shared graph still runs it
        warnings.warn(f"pyjit: {cls._class.name}.{method} could not be specialised for its "
                      f"object ({type(e).__name__}: {e}); it runs unspecialised",
                      RuntimeWarning, stacklevel=4)
        return None, None
    return Function(code, loop=cls._loop), guards
