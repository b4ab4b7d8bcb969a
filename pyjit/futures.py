"""Values that exist later: ``pyjit.Future`` (the seed's ``c10::ivalue::Future``)
and :class:`Await` (torch's ``_Await``, the value of ``torch.jit._awaitable``).

A graph that waits (``aten::wait``) on a future that is not done suspends; it is
resumed when the future completes.  Futures are thread-safe: any thread may
complete one, and any number of threads may wait on it.

Who completes a future: the run of a forked subgraph (``prim::fork``), a run
started with ``InterpreterState.run_async``, or anything else -- an operator
written in Python may return a Future that an I/O thread completes later, and a
graph waits on it like on a fork's.

Neither a Future nor an Await pickles: each is completed in the process that
made it.  A fork run in another process (:mod:`pyjit.workqueue`) gets a future
of this process, completed when the other process sends the outputs back; a
future passed *into* such a fork is an error saying so.
"""

from __future__ import annotations

import threading
from concurrent.futures import CancelledError
from types import TracebackType
from typing import Any, Callable, List, Optional

from .workqueue import blocking, report_unraisable

__all__ = ["Future", "Await"]

_PENDING = object()


class Future:
    """A value or an error that becomes available once.

    >>> f = Future()
    >>> f.add_callback(lambda fut: print("got", fut.value()))
    >>> f.mark_completed(3)
    got 3
    """

    __slots__ = ("_lock", "_cond", "_value", "_error", "_error_tb", "_callbacks",
                 "__weakref__")

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._cond = threading.Condition(self._lock)
        self._value: Any = _PENDING
        self._error: Optional[BaseException] = None
        self._error_tb: Optional[TracebackType] = None
        self._callbacks: List[Callable[["Future"], Any]] = []

    def done(self) -> bool:
        """Whether a value or an error has been set."""
        return self._value is not _PENDING or self._error is not None

    def _complete(self, value: Any, error: Optional[BaseException]) -> None:
        if not self._try_complete(value, error):
            raise RuntimeError("this future is already completed")

    def _try_complete(self, value: Any, error: Optional[BaseException]) -> bool:
        """Complete the future unless it is done already; return whether it did.
        For completers that may race another (a run's end and a cancel)."""
        with self._lock:
            if self.done():
                return False
            if error is not None:
                self._error_tb = error.__traceback__
                self._error = error
            else:
                self._value = value
            callbacks, self._callbacks = self._callbacks, []
            self._cond.notify_all()
        # Outside the lock: a callback may wait on or complete other futures.
        for cb in callbacks:
            _run_callback(cb, self)
        return True

    def mark_completed(self, value: Any) -> None:
        """Set the value and run the callbacks; completing twice is an error."""
        self._complete(value, None)

    def set_error(self, error: BaseException) -> None:
        """Complete with an error that :meth:`value` and :meth:`wait` will raise."""
        if not isinstance(error, BaseException):
            raise TypeError(f"set_error takes an exception, not {type(error).__name__}")
        self._complete(None, error)

    def cancel(self) -> bool:
        """Fail the future with ``concurrent.futures.CancelledError``, unless it is
        done already; return whether it was cancelled.

        If the future is a run's (``InterpreterState.run_async``, a ``prim::fork``),
        the run stops: a run suspended on a wait, or queued to resume, releases
        its values at once; a run executing in another thread stops when it next
        suspends or ends, and its outputs are dropped.  A blocking
        ``InterpreterState.run`` is not stopped.  What the run waits on is left
        alone: other runs may wait on it too."""
        return self._try_complete(None, CancelledError("the future was cancelled"))

    def cancelled(self) -> bool:
        """Whether the future failed with ``CancelledError`` (see :meth:`cancel`)."""
        return isinstance(self._error, CancelledError)

    def join(self, timeout: Optional[float] = None) -> bool:
        """Block until done, without raising the error; return whether it is done
        (False only when ``timeout`` seconds passed first).

        On a :class:`~pyjit.workqueue.WorkQueue` thread the wait counts as
        blocking, so the queue can start another thread meanwhile."""
        if self.done():
            return True
        with blocking():
            with self._lock:
                return self._cond.wait_for(self.done, timeout)

    def wait(self, timeout: Optional[float] = None) -> Any:
        """Block until done; return the value or raise the error.  With a timeout,
        raise ``TimeoutError`` when it passes first."""
        if not self.join(timeout):
            raise TimeoutError("future not completed within the timeout")
        return self.value()

    def value(self) -> Any:
        """The value; raises the error if the future failed, and RuntimeError if it is
        not done yet.

        The error is the object given to :meth:`set_error`, raised again by every
        caller: each raise starts from the traceback it had when it was set, so
        waiting many times does not grow it."""
        error = self._error
        if error is not None:
            raise error.with_traceback(self._error_tb)
        if self._value is _PENDING:
            raise RuntimeError("future is not completed yet")
        return self._value

    def error(self) -> Optional[BaseException]:
        """The error the future failed with, or None."""
        return self._error

    def add_callback(self, fn: Callable[["Future"], Any]) -> None:
        """Run ``fn(future)`` once the future is done: at once if it already is,
        otherwise exactly once on the thread that completes it.  An exception raised
        by one callback is reported (``threading.excepthook``-style, via
        ``sys.unraisablehook``) and does not stop the others."""
        with self._lock:
            if not self.done():
                self._callbacks.append(fn)
                return
        _run_callback(fn, self)

    def __reduce__(self):
        # What cannot cross to another process: a run of this one completes it.
        raise TypeError("a pyjit.Future cannot be pickled: a run or a thread of this "
                        "process completes it, and another process could never see that; "
                        "wait for it here (aten::wait) and send its value instead")

    def __repr__(self) -> str:
        if self._error is not None:
            state = f"failed: {self._error!r}"
        elif self._value is not _PENDING:
            state = f"done: {self._value!r}"
        else:
            state = "pending"
        return f"<pyjit.Future {state}>"


def _run_callback(cb: Callable[[Future], Any], fut: Future) -> None:
    try:
        cb(fut)
    except Exception as exc:  # a callback must not break the others
        report_unraisable(exc, cb, "Exception ignored in pyjit.Future callback")


class Await:
    """A value computed when it is first waited for (torch's ``torch.jit._Await``).

    ``Await(compute)`` calls ``compute()`` at the first :meth:`wait`, in the
    waiting thread, and keeps its result for every later wait; if it raises, the
    wait raises, nothing is kept, and the next wait calls it again (as torch's
    ``Await`` does).  ``Await(value=v)`` holds ``v`` from the start (``nowait``).
    Threads waiting together compute it once.
    """

    __slots__ = ("_compute", "_value", "_lock")

    def __init__(self, compute: Optional[Callable[[], Any]] = None, *,
                 value: Any = _PENDING) -> None:
        if (compute is None) == (value is _PENDING):
            raise TypeError("an Await computes its value or holds one: give exactly one")
        self._compute = compute
        self._value = value
        self._lock = threading.Lock()

    def done(self) -> bool:
        """Whether the value is there (computed, or held from the start)."""
        return self._value is not _PENDING

    def wait(self) -> Any:
        """The value: computed by the first call, kept for the others."""
        if self._value is _PENDING:
            with self._lock:
                if self._value is _PENDING:
                    self._value = self._compute()  # type: ignore[misc]
                    self._compute = None  # its inputs are no longer needed
        return self._value

    def __reduce__(self):
        raise TypeError("a pyjit.Await cannot be pickled: it computes its value with a "
                        "subgraph and inputs of this process when first waited for; wait "
                        "for it here (prim::awaitable_wait) and send its value instead")

    def __repr__(self) -> str:
        return f"<pyjit.Await {'done: ' + repr(self._value) if self.done() else 'pending'}>"
