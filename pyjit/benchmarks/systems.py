"""The systems compared: every way of running a workload, built for one workload.

pyjit as users run it, with its own operator library (the default registry):

=====================  ============================================================
key                    what runs the workload
=====================  ============================================================
``pyjit``              ``pyjit.Function(graph)``: the library, optimised
                       (``optimize=True``), the compiled loop.  Every ratio is
                       a time over this one's
``pyjit-O0``           the same at ``optimize=False``: the seed's table
``pyjit-pure``         the same as ``pyjit`` on the pure-Python twin
=====================  ============================================================

The interpreter-only measurement: the shared operator callables of
:mod:`pyjit.benchmarks.operators` (``operator.add``, ``numpy.multiply``), with
which no intrinsic applies, so that the systems that run a graph differ only in
how they run it:

=====================  ============================================================
``pyjit-shared``       ``pyjit.Function(graph, registry=shared)``, optimised,
                       compiled loop
``pyjit-pure-shared``  the same on the pure-Python twin
``python-ops``         plain Python calling the shared callables by name
                       (``add(a, b)``); for the chain, the 1,000-line function of
                       issue 3
``generated``          Python generated from the graph, one statement per node
                       (:mod:`pyjit.benchmarks.codegen`, torch.fx's way)
``walker``             a dictionary-environment walker, one method call per node
                       (:mod:`pyjit.benchmarks.walker`, torch.fx.Interpreter's way)
=====================  ============================================================

And what a user would write instead:

=====================  ============================================================
``python``             plain Python written naturally (``a + b``): the reference
                       every system's result is checked against
``numpy``              bare numpy calls (``np.add(x, y)``), tensor workloads only:
                       issue 11's reference for small tensors
``torchscript``        ``torch.jit`` compiling the natural Python, when torch is
                       importable (pyjit never needs torch)
=====================  ============================================================
"""

from __future__ import annotations

import linecache
from typing import Any, Callable, Dict, List, NamedTuple, Optional, Sequence

import numpy as np

from .. import _backend
from ..interpreter import Function
from ..registry import Registry
from . import operators
from .codegen import python_code
from .walker import GraphInterpreter
from .workloads import Workload

__all__ = ["System", "SYSTEMS", "LIBRARY", "SHARED", "build_systems", "natural_python",
           "torch_version"]

#: key -> label, in the order the tables list them.
SYSTEMS: Dict[str, str] = {
    "pyjit": "pyjit",
    "pyjit-O0": "pyjit -O0",
    "pyjit-pure": "pyjit pure twin",
    "pyjit-shared": "pyjit, shared ops",
    "pyjit-pure-shared": "pyjit pure twin, shared ops",
    "python-ops": "Python calling shared ops",
    "generated": "generated Python (fx), shared ops",
    "walker": "dict walker (fx.Interpreter), shared ops",
    "python": "Python, natural",
    "numpy": "bare numpy calls",
    "torchscript": "TorchScript",
}

#: The systems that run pyjit's own library, and those that run the shared
#: callables (the interpreter-only measurement).
LIBRARY = ("pyjit", "pyjit-O0", "pyjit-pure")
SHARED = ("pyjit-shared", "pyjit-pure-shared", "python-ops", "generated", "walker")

# How each pyjit system builds its Function: (compiled loop, optimise, shared ops).
_PYJIT = {
    "pyjit": (True, True, False),
    "pyjit-O0": (True, False, False),
    "pyjit-pure": (False, True, False),
    "pyjit-shared": (True, True, True),
    "pyjit-pure-shared": (False, True, True),
}


def _identity(x: Any) -> Any:
    return x


class System(NamedTuple):
    """One way of running a workload: ``fn(*convert_args(args))``, or a reason it
    cannot run here (``fn`` None)."""

    key: str
    label: str
    fn: Optional[Callable[..., Any]]
    note: str = ""
    #: Applied once to the workload's arguments before timing (TorchScript wants
    #: torch tensors), and to a result before it is compared.
    convert_args: Callable[[tuple], tuple] = _identity
    convert_result: Callable[[Any], Any] = _identity


def _exec(source: str, name: str, filename: str, namespace: Dict[str, Any]) -> Callable:
    """Compile ``source`` as the file ``filename`` and return its function ``name``.
    linecache learns the text, so tracebacks show it and :func:`pyjit.script` can
    read the function's source."""
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    module = dict(namespace)
    exec(compile(source, filename, "exec"), module)
    return module[name]


#: What the Python spellings see: their annotations' ``Tensor``, and numpy.
_NAMESPACE: Dict[str, Any] = {"Tensor": np.ndarray, "np": np}


def natural_python(w: Workload) -> Callable:
    """The workload as natural Python: the reference every system is checked
    against."""
    return _exec(w.python, w.entry, f"<benchmark {w.name}: python>", _NAMESPACE)


def torch_version() -> Optional[str]:
    """torch's version when it is importable, else None."""
    try:
        import torch
    except Exception:  # any failure to import means: not available
        return None
    return torch.__version__


def _torchscript(w: Workload) -> System:
    label = SYSTEMS["torchscript"]
    try:
        import torch
    except Exception as exc:
        return System("torchscript", label, None,
                      f"skipped: torch is not importable ({type(exc).__name__})")
    # numpy's ufuncs use one thread: so does torch here, for the same work.
    torch.set_num_threads(1)
    fn = getattr(torch.jit.CompilationUnit(w.python), w.entry)
    if w.tensors:
        return System("torchscript", label, fn, "torch.set_num_threads(1)",
                      convert_args=lambda args: tuple(torch.from_numpy(a) for a in args),
                      convert_result=lambda r: r.numpy())
    return System("torchscript", label, fn)


def _pyjit(key: str, w_graph, shared: Registry) -> System:
    compiled, optimize, use_shared = _PYJIT[key]
    label = SYSTEMS[key]
    if compiled:
        try:
            loop = _backend.compiled()
        except ImportError as exc:
            return System(key, label, None, f"skipped: the compiled core is not built ({exc})")
    else:
        loop = _backend.pure()
    return System(key, label, Function(w_graph, loop=loop, optimize=optimize,
                                       registry=shared if use_shared else None))


def build_systems(w: Workload, keys: Optional[Sequence[str]] = None,
                  registry: Optional[Registry] = None) -> List[System]:
    """The systems ``keys`` (all of :data:`SYSTEMS` by default) for workload ``w``;
    ``registry`` replaces the shared callables' registry (for the tests)."""
    keys = list(SYSTEMS) if keys is None else list(keys)
    unknown = [k for k in keys if k not in SYSTEMS]
    if unknown:
        raise ValueError(f"unknown system {unknown[0]!r}; choose from {', '.join(SYSTEMS)}")
    shared = registry or operators.registry()
    graph = w.graph()
    out: List[System] = []
    for key in keys:
        label = SYSTEMS[key]
        if key in _PYJIT:
            out.append(_pyjit(key, graph, shared))
        elif key == "python":
            out.append(System(key, label, natural_python(w)))
        elif key == "python-ops":
            ops = operators.TENSOR_OPS if w.tensors else operators.SCALAR_OPS
            out.append(System(key, label, _exec(w.python_ops, w.entry,
                                                f"<benchmark {w.name}: python-ops>",
                                                {**_NAMESPACE, **ops})))
        elif key == "numpy":
            if not w.python_numpy:
                out.append(System(key, label, None, "skipped: tensor workloads only"))
                continue
            out.append(System(key, label, _exec(w.python_numpy, w.entry,
                                                f"<benchmark {w.name}: numpy>",
                                                _NAMESPACE)))
        elif key == "generated":
            out.append(System(key, label, python_code(graph, shared).fn))
        elif key == "walker":
            out.append(System(key, label, GraphInterpreter(graph, shared).run))
        elif key == "torchscript":
            out.append(_torchscript(w))
    return out
