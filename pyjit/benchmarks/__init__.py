"""pyjit's benchmarks: pyjit measured as users run it, against what they would
pick instead, and its interpreter measured alone.

``pyjit bench`` runs every workload (:mod:`.workloads`) on every system
(:mod:`.systems`), interleaved round by round (:mod:`.runner`), and prints per
workload each system's median time per call and per executed operator and its
ratio to ``pyjit`` (``pyjit.Function(graph)``: its own operator library,
optimised, the compiled loop), then a summary of all workloads and the issues'
targets (:mod:`.targets`).  Two measurements share the tables:

* pyjit as users run it (``pyjit``, ``pyjit-O0``, ``pyjit-pure``), against
  natural Python, bare numpy calls and TorchScript: what a user gains;
* the interpreter alone (the systems labelled "shared ops"): pyjit, generated
  Python, a dictionary walker and Python calling the operators, all calling the
  same plain callables (:mod:`.operators`), so that only how each runs a graph
  differs.

``bench/`` in the source tree runs the same workloads and systems under
pytest-benchmark.

The modules:

* :mod:`.workloads`: the computations, each as torch's IR graph and as Python;
* :mod:`.operators`: the shared operator callables;
* :mod:`.codegen`: Python source generated from a graph, one statement per node
  (torch.fx's code generator); kept in the package, not in ``bench/``, so that
  the installed ``pyjit bench`` has it;
* :mod:`.walker`: a dictionary-environment walker (torch.fx's Interpreter);
* :mod:`.systems`: every way of running a workload;
* :mod:`.targets`: what the issues ask, as checks;
* :mod:`.report`: the tables;
* :mod:`.runner`: the measurement and the command.
"""

from .codegen import GeneratedPython, python_code
from .runner import main, run
from .walker import GraphInterpreter
from .workloads import WORKLOADS, Workload

__all__ = ["main", "run", "python_code", "GeneratedPython", "GraphInterpreter", "WORKLOADS",
           "Workload"]
