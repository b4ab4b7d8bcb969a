"""The systems compared: every way of running a workload, built for one workload.

====================  =============================================================
key                   what runs the workload
====================  =============================================================
``pyjit``             ``pyjit.Function(graph, loop=pyjit._core)``: the compiled loop
``pyjit-pure``        the same with ``loop=pyjit._pure``: the pure-Python twin
``python``            plain Python written naturally (``a + b``)
``python-ops``        plain Python calling the graph's operator callables by name
                      (``add(a, b)``); for the chain, the 1,000-line function of
                      issue 3
``generated``         Python generated from the graph, one statement per node
                      (:mod:`pyjit.benchmarks.codegen`, torch.fx's way)
``walker``            a dictionary-environment walker, one method call per node
                      (:mod:`pyjit.benchmarks.walker`, torch.fx.Interpreter's way)
``torchscript``       ``torch.jit`` compiling the natural Python, when torch is
                      importable (pyjit never needs torch)
====================  =============================================================

pyjit, the generated code and the walker all look the graph's operators up in
one :func:`~pyjit.benchmarks.operators.registry`, and "Python calling the ops"
binds the same callables by name, so those systems run identical operator code.
"""

from __future__ import annotations

from typing import Any, Callable, Dict, List, NamedTuple, Optional, Sequence

from .. import _backend
from ..interpreter import Function
from ..registry import Registry
from . import operators
from .codegen import python_code
from .walker import GraphInterpreter
from .workloads import Workload

__all__ = ["System", "SYSTEMS", "build_systems", "natural_python", "torch_version"]

#: key -> label, in the order the tables list them.
SYSTEMS: Dict[str, str] = {
    "pyjit": "pyjit compiled",
    "pyjit-pure": "pyjit pure twin",
    "python": "Python, natural",
    "python-ops": "Python calling the ops",
    "generated": "generated Python (fx)",
    "walker": "dict walker (fx.Interpreter)",
    "torchscript": "TorchScript",
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


def _exec(source: str, name: str, namespace: Dict[str, Any]) -> Callable:
    module = dict(namespace)
    exec(compile(source, f"<benchmark {name}>", "exec"), module)
    return module[name]


def _python_namespace(w: Workload, with_ops: bool) -> Dict[str, Any]:
    import numpy as np
    ns: Dict[str, Any] = {"Tensor": np.ndarray}
    if with_ops:
        ns.update(operators.TENSOR_OPS if w.tensors else operators.INT_OPS)
    return ns


def natural_python(w: Workload) -> Callable:
    """The workload as natural Python: the reference every system is checked
    against."""
    return _exec(w.python, w.entry, _python_namespace(w, with_ops=False))


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


def build_systems(w: Workload, keys: Optional[Sequence[str]] = None,
                  registry: Optional[Registry] = None) -> List[System]:
    """The systems ``keys`` (all of :data:`SYSTEMS` by default) for workload ``w``."""
    keys = list(SYSTEMS) if keys is None else list(keys)
    unknown = [k for k in keys if k not in SYSTEMS]
    if unknown:
        raise ValueError(f"unknown system {unknown[0]!r}; choose from {', '.join(SYSTEMS)}")
    registry = registry or operators.registry()
    graph = w.graph()
    out: List[System] = []
    for key in keys:
        label = SYSTEMS[key]
        if key == "pyjit":
            try:
                core = _backend.compiled()
            except ImportError as exc:
                out.append(System(key, label, None, f"skipped: the compiled core is not "
                                                    f"built ({exc})"))
                continue
            out.append(System(key, label, Function(graph, loop=core, registry=registry)))
        elif key == "pyjit-pure":
            out.append(System(key, label, Function(graph, loop=_backend.pure(),
                                                   registry=registry)))
        elif key == "python":
            out.append(System(key, label, natural_python(w)))
        elif key == "python-ops":
            out.append(System(key, label, _exec(w.python_ops, w.entry,
                                                _python_namespace(w, with_ops=True))))
        elif key == "generated":
            out.append(System(key, label, python_code(graph, registry).fn))
        elif key == "walker":
            out.append(System(key, label, GraphInterpreter(graph, registry).run))
        elif key == "torchscript":
            out.append(_torchscript(w))
    return out
