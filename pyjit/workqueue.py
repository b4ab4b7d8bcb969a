"""Where forked subgraphs and resumed runs execute: the seed's ``global_work_queue``.

A run that suspends on a future is resumed, when the future completes, by a task
submitted to a *work queue*; ``prim::fork`` starts its subgraph the same way.
A work queue is anything with ``submit(fn, *args)``: a
``concurrent.futures.Executor`` will do (its return value is ignored; pyjit's
tasks catch their own errors and put them in a :class:`~pyjit.Future`), and so
will :class:`WorkQueue`, the thread pool used when a run is given no executor::

    pyjit.workqueue.set_default_workers(8)               # the process-wide pool
    InterpreterState(code, executor=my_executor)         # or any Executor, per run
                                                         # (its forks inherit it)

Executors of other processes.  A ``concurrent.futures.ProcessPoolExecutor``, or
the executor of a Dask client (``client.get_executor()``), runs a task in
another process, so it cannot take the tasks above, which resume a frame of
this one.  pyjit knows such an executor (:func:`crosses_processes`) and gives it
only whole forks: ``prim::fork`` sends the subgraph's Code and its inputs,
pickled (:mod:`pyjit.pickling`), the worker runs the subgraph to its end, and
its outputs, or its located error, come back to complete the fork's future
here.  What follows from the copy:

* the subgraph works on copies of its inputs: a list or an object it changes
  is changed over there, not in the run that forked it;
* a :class:`~pyjit.Future` cannot cross (it is completed in the process that
  made it): a fork whose inputs hold the future of another fork fails, saying
  so; wait for that future in the forking graph and pass its value;
* the operators it calls must exist over there, as importable code or in a
  registry given a name (:func:`pyjit.pickling.register_registry`);
* the forking run's context variables (its grad mode among them) stay here:
  the subgraph runs in the worker's own.

The forking run itself stays here: it suspends on the fork's future as on any
other, and is resumed on the :func:`default_queue` (the process executor could
not run it).  Register any other executor class that crosses processes with
:func:`register_process_executor`.

Deadlocks.  A graph never blocks a thread to wait: ``aten::wait`` on a pending
future suspends the run and frees its thread, so forks waiting on forks cannot
exhaust a pool, however small.  A thread blocks only when Python code waits:
``InterpreterState.run()`` or ``Function(...)`` called from an operator,
``Future.wait()`` in an operator.  Two rules keep those safe on a :class:`WorkQueue`:

* a blocking ``run()`` resumes its own run inline, in the thread that waits,
  so it never needs a second thread for its own continuation;
* a worker that blocks (``Future.wait``/``join``, which ``run()`` uses) tells its
  queue so (:func:`blocking`), and the queue may start one more thread for as long
  as it is blocked: the number of workers that *can run* stays the configured one,
  like Java's ``ForkJoinPool.managedBlock`` and Go's scheduler.

The alternative, letting the blocked thread run queued tasks itself while it
waits ("helping"), was rejected: it would run an unrelated task on top of the
blocked operator's stack, deadlocking as soon as that task needs a lock the
operator holds.  A blocked worker costs one idle thread instead.  An executor
that is not a WorkQueue gets no such help: blocking inside its threads on work
queued behind them is the application's own deadlock, as with any executor.
"""

from __future__ import annotations

import collections
import os
import sys
import threading
from contextlib import contextmanager
from typing import Any, Callable, Deque, Iterator, Optional, Protocol, Tuple

__all__ = ["Executor", "WorkQueue", "default_queue", "set_default_workers",
           "default_workers", "blocking", "crosses_processes", "register_process_executor"]


class Executor(Protocol):
    """What pyjit needs of a work queue: ``submit(fn, *args)`` runs ``fn(*args)`` soon,
    on some thread.  The return value is ignored; raising means the task was refused."""

    def submit(self, fn: Callable[..., Any], *args: Any) -> Any: ...


# Executor classes whose tasks run in another process, besides those below.
_process_executors: Tuple[type, ...] = ()


def crosses_processes(executor: Any) -> bool:
    """Whether ``executor`` runs its tasks in another process: a
    ``ProcessPoolExecutor``, the executor of a Dask client (a class of the
    ``distributed`` package), or a class given to :func:`register_process_executor`."""
    cls = type(executor)
    if cls.__module__.startswith("distributed.") or issubclass(cls, _process_executors):
        return True
    # Looked up, not imported: a ProcessPoolExecutor's module is loaded already.
    process = sys.modules.get("concurrent.futures.process")
    return process is not None and isinstance(executor, process.ProcessPoolExecutor)


def register_process_executor(cls: type) -> None:
    """Say that the executors of class ``cls`` run their tasks in other processes,
    so that forks are sent to them whole (see the module docstring)."""
    global _process_executors
    if not isinstance(cls, type):
        raise TypeError(f"register_process_executor takes a class, not {cls!r}")
    if not issubclass(cls, _process_executors):
        _process_executors = _process_executors + (cls,)


# The queue the current thread works for (unset outside WorkQueue threads), and
# whether that thread is inside a blocking wait already (nested waits count once).
_local = threading.local()


class WorkQueue:
    """A thread pool of ``workers`` threads, started as tasks arrive.

    Tasks run in submission order (first in, first out); the threads are daemons,
    named ``pyjit-worker-N``.  A task that raises is reported with
    ``sys.unraisablehook`` (pyjit's own tasks never raise: they fail a Future).

    ``workers`` is the number of threads that may be *running* tasks: a worker
    that blocks in a wait (see :func:`blocking`) does not count while it waits,
    so the pool can start another (this is how nested blocking never deadlocks).
    Threads beyond ``workers`` exit when they find no work.

    Args:
        workers: at least 1.
        name: prefix of the threads' names.
    """

    def __init__(self, workers: int, *, name: str = "pyjit-worker") -> None:
        self._workers = _check_workers(workers)
        self._name = name
        self._lock = threading.Lock()
        self._cv = threading.Condition(self._lock)
        self._tasks: Deque[Tuple[Callable[..., Any], Tuple[Any, ...]]] = collections.deque()
        self._threads = 0      # live threads
        self._waiting = 0      # threads in cv.wait() that nobody has woken yet
        self._blocked = 0      # threads inside a blocking wait (not counted as running)
        self._started = 0      # for thread names
        self._shutdown = False

    # -- the Executor protocol ---------------------------------------------------------
    def submit(self, fn: Callable[..., Any], *args: Any) -> None:
        """Queue ``fn(*args)``.

        Raises:
            RuntimeError: the queue was shut down.
        """
        with self._lock:
            if self._shutdown:
                raise RuntimeError("cannot submit to a WorkQueue that was shut down")
            self._tasks.append((fn, args))
            self._dispatch()

    def _dispatch(self) -> None:
        # Lock held.  Wake a waiting thread (claiming it, so the next submit does
        # not count it again), or start one if fewer than `workers` can run.
        if self._waiting:
            self._waiting -= 1
            self._cv.notify()
        elif self._threads - self._blocked < self._workers:
            self._threads += 1
            self._started += 1
            t = threading.Thread(target=self._work, name=f"{self._name}-{self._started}",
                                 daemon=True)
            try:
                t.start()
            except BaseException:
                self._threads -= 1
                raise

    def _surplus(self) -> bool:
        return self._threads - self._blocked > self._workers

    def _work(self) -> None:
        _local.queue = self
        _local.blocked = False
        lock, tasks = self._lock, self._tasks
        while True:
            with lock:
                while not tasks:
                    if self._shutdown or self._surplus():
                        self._threads -= 1
                        return
                    self._waiting += 1
                    # Only notify() wakes us, and the notifier took us out of
                    # `_waiting` (a Condition has no spurious wake-ups).
                    self._cv.wait()
                fn, args = tasks.popleft()
            try:
                fn(*args)
            except BaseException as exc:  # a worker outlives any task
                report_unraisable(exc, fn, "Exception ignored in a pyjit WorkQueue task")
                del exc
            # Drop the task before waiting for the next one: it may hold big values.
            fn = args = None  # type: ignore[assignment]

    # -- blocking waits -----------------------------------------------------------------
    def _enter_blocking(self) -> None:
        with self._lock:
            self._blocked += 1
            # Work already queued must not wait for this thread to come back.
            if self._tasks and not self._waiting and not self._shutdown:
                self._dispatch()

    def _leave_blocking(self) -> None:
        with self._lock:
            self._blocked -= 1
            # Now one thread too many may run; the first to find no work exits.

    # -- configuration ------------------------------------------------------------------
    @property
    def workers(self) -> int:
        """The number of threads that may run tasks at once."""
        return self._workers

    def resize(self, workers: int) -> None:
        """Change ``workers``; extra threads exit once they find no work."""
        workers = _check_workers(workers)
        with self._lock:
            self._workers = workers
            # Idle threads re-check: the surplus exits.
            self._waiting = 0
            self._cv.notify_all()
            # More room: start threads for work already queued.
            for _ in range(min(len(self._tasks), workers)):
                if self._threads - self._blocked >= workers:
                    break
                self._dispatch()

    def shutdown(self) -> None:
        """Refuse new tasks; the threads exit once the queued ones have run."""
        with self._lock:
            self._shutdown = True
            self._waiting = 0
            self._cv.notify_all()

    def stats(self) -> dict:
        """A snapshot, for tests and debugging: threads, queued, blocked, workers."""
        with self._lock:
            return {"workers": self._workers, "threads": self._threads,
                    "queued": len(self._tasks), "blocked": self._blocked}

    def __repr__(self) -> str:
        s = self.stats()
        return (f"<pyjit WorkQueue workers={s['workers']} threads={s['threads']} "
                f"queued={s['queued']} blocked={s['blocked']}>")


@contextmanager
def blocking() -> Iterator[None]:
    """Mark the current thread as blocked for the duration of the ``with`` body.

    On a :class:`WorkQueue` thread, the queue may start another thread meanwhile,
    so that work this thread waits for can run.  Anywhere else it does nothing.
    ``Future.wait`` and ``Future.join`` use it; use it around any other blocking
    call in an operator (a socket read, a lock) that may wait on pyjit work.
    """
    queue: Optional[WorkQueue] = getattr(_local, "queue", None)
    if queue is None or _local.blocked:
        yield
        return
    _local.blocked = True
    queue._enter_blocking()
    try:
        yield
    finally:
        queue._leave_blocking()
        _local.blocked = False


def _check_workers(workers: Any) -> int:
    if isinstance(workers, bool) or not isinstance(workers, int):
        raise TypeError(f"workers must be an int, not {type(workers).__name__}")
    if workers < 1:
        raise ValueError(f"workers must be at least 1, got {workers}")
    return workers


def report_unraisable(exc: BaseException, obj: Any, message: str) -> None:
    """Report an exception nobody can catch (a failing callback or task) through
    ``sys.unraisablehook``, as CPython does for errors in ``__del__``."""
    sys.unraisablehook(_Unraisable(exc, obj, message))  # type: ignore[arg-type]


class _Unraisable:
    """The argument ``sys.unraisablehook`` expects."""

    def __init__(self, exc: BaseException, obj: Any, message: str) -> None:
        self.exc_type = type(exc)
        self.exc_value = exc
        self.exc_traceback = exc.__traceback__
        self.err_msg = message
        self.object = obj


# -- the process-wide default ----------------------------------------------------------

_default: Optional[WorkQueue] = None
_default_lock = threading.Lock()
_default_size = max(1, os.cpu_count() or 1)


def default_queue() -> WorkQueue:
    """The process-wide :class:`WorkQueue` (made on first use, ``os.cpu_count()``
    workers unless :func:`set_default_workers` said otherwise)."""
    global _default
    q = _default
    if q is None:
        with _default_lock:
            if _default is None:
                _default = WorkQueue(_default_size)
            q = _default
    return q


def set_default_workers(workers: int) -> None:
    """Set the number of workers of the process-wide queue (now, if it exists)."""
    global _default_size
    workers = _check_workers(workers)
    with _default_lock:
        _default_size = workers
        if _default is not None:
            _default.resize(workers)


def default_workers() -> int:
    """The number of workers of the process-wide queue."""
    return _default_size
