"""Throughput of one loaded model called from one thread and from two, in one
process, with BLAS on one thread (pyjit's kernels release the GIL, so two
threads can each keep a core busy).

    python bench/threads.py resnet18 6      # model name of pyjit bench --models, seconds

The model's archive must exist (``bench/models/generate.py``, with torch).
Prints the calls per second on one thread (before and after the two-thread
run) and on two, and the ratio of two to the mean of one.
"""
import os
import sys
import threading
import time

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("MKL_NUM_THREADS", "1")

import pyjit  # noqa: E402
from pyjit.benchmarks.models import MODELS, archive_path, inputs_for  # noqa: E402


def throughput(module, args, threads: int, seconds: float) -> float:
    """Calls per second of ``module(*args)`` from ``threads`` threads at once."""
    counts = [0] * threads
    stop = time.perf_counter() + seconds

    def work(i):
        while time.perf_counter() < stop:
            module(*args)
            counts[i] += 1
    workers = [threading.Thread(target=work, args=(i,)) for i in range(threads)]
    start = time.perf_counter()
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    return sum(counts) / (time.perf_counter() - start)


def main() -> None:
    name = sys.argv[1] if len(sys.argv) > 1 else "resnet18"
    seconds = float(sys.argv[2]) if len(sys.argv) > 2 else 6.0
    model = MODELS[name]
    args = inputs_for(model)
    module = pyjit.load(str(archive_path(model)))
    for _ in range(3):
        module(*args)
    one = throughput(module, args, 1, seconds)
    two = throughput(module, args, 2, seconds)
    one_again = throughput(module, args, 1, seconds)
    print(f"{name}: 1 thread {one:.1f}/s and {one_again:.1f}/s, 2 threads {two:.1f}/s: "
          f"{two / ((one + one_again) / 2):.2f}x")


if __name__ == "__main__":
    main()
