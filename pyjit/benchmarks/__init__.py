"""pyjit's benchmarks: pyjit measured against what users would pick instead.

``pyjit bench`` runs every workload (:mod:`.workloads`) on every system
(:mod:`.systems`), interleaved round by round (:mod:`.runner`), and prints per
workload the median time per executed operator of each system and its ratio to
pyjit's compiled loop.  ``bench/`` in the source tree runs the same workloads
under pytest-benchmark.

The modules:

* :mod:`.workloads`: the computations, each as an IR graph and as Python;
* :mod:`.operators`: the operator callables every system calls;
* :mod:`.codegen`: Python source generated from a graph, one statement per node
  (torch.fx's code generator); kept in the package, not in ``bench/``, so that
  the installed ``pyjit bench`` has it;
* :mod:`.walker`: a dictionary-environment walker (torch.fx's Interpreter);
* :mod:`.systems`: every way of running a workload;
* :mod:`.runner`: the command.
"""

from .codegen import GeneratedPython, python_code
from .runner import main, run
from .walker import GraphInterpreter
from .workloads import WORKLOADS, Workload

__all__ = ["main", "run", "python_code", "GeneratedPython", "GraphInterpreter", "WORKLOADS",
           "Workload"]
