"""Running a Code: :class:`InterpreterState` (the seed's) and :class:`Function`.

An ``InterpreterState`` is one run of a :class:`~pyjit.code.Code`: a ``Frame`` of
the active loop (registers, value stack, pc) plus what the seed keeps beside it.
``run(stack)`` has the seed's contract: the inputs are on ``stack`` before, the
outputs after.  ``Function`` is the friendly form, ``f(*args) -> output``.

Errors: an exception raised while an instruction runs is re-raised as
:class:`~pyjit.InterpreterError` naming the node and its source location, with the
original exception as ``__cause__``; a ``prim::RaiseException`` in the graph
surfaces as :class:`~pyjit.JITException`.  The state is unusable afterwards.

Asynchronous runs (the seed's ``runAsync``/``InterpreterContinuation``): a run
that meets ``aten::wait`` on a pending future *suspends*.  Its frame keeps pc and
registers; ``run_async`` returns the run's :class:`~pyjit.Future` at once and a
continuation, registered on the pending future, resumes the frame on the run's
work queue (:mod:`pyjit.workqueue`) when it completes, inside the
``contextvars`` context captured at suspension (the seed restores grad mode), so
context variables seen before the wait are seen after it.  A blocking ``run``
resumes inline instead, in the thread that waits.  ``prim::fork`` starts its
subgraph with :func:`fork`: a new state on the forking run's executor, with the
forking run's loop, in a copy of its context; on an executor of other processes
(a ``ProcessPoolExecutor``, a Dask client's), the subgraph and its inputs are
pickled and run there whole (:mod:`pyjit.workqueue` says what cannot cross).

Pickling: a :class:`Function` pickles as its Code's recipe, its loop's name and
its signature, and is compiled at its first call on the other side
(:mod:`pyjit.pickling`).

Stopping: cancelling a run's future (:meth:`~pyjit.Future.cancel`) stops a
suspended or queued run and frees its frame at once; an executor that cancels a
queued step (``shutdown(cancel_futures=True)``) fails the run's future instead of
leaving it pending.  A state is one run at a time, guarded by its own lock: a
second thread's ``run`` is refused with a message naming the running thread.

Calls: a ``prim::CallFunction``/``prim::CallMethod`` is an ``INVOKE``, which runs
the callee in a new activation of the same frame (no Python recursion per call);
a run that fails inside calls raises an error whose traceback
(``InterpreterError.frames``) has a frame per activation, innermost last.  How
deep calls may nest is :func:`set_recursion_limit`'s to say.

Floating-point errors: a Code whose operators run faster with numpy's
floating-point errors ignored once for the whole run (``Code.quiet_fp``: the
library's pointwise operators) runs between :func:`pyjit.fperrors.run_enter`
and ``run_leave``; the setting is undone when the run returns or suspends.  torch
computes infinities and NaN silently, and the library's operators ignore the
errors anyway: the run only saves them setting it per call.  An operator of the
user's in such a run sees the errors ignored too.  A Code whose graph has
tensors also runs with numpy's data allocator set to the run arena
(``Code.run_settings``; :mod:`pyjit.fperrors`).

Linking: a :class:`~pyjit.code.Code` says what its forks, awaitables and calls run
(:class:`~pyjit.code.ForkSite`, :class:`~pyjit.code.AwaitableSite`,
:class:`~pyjit.code.CallSite`), the runtime how: :func:`program_of` turns each
fork site into a :class:`Fork`, each awaitable site into an :class:`Awaitable`
and each call site into a :class:`Link` when it builds the loop's ``Program``.
An awaitable is lazy: its subgraph runs at the first ``prim::awaitable_wait``,
with :func:`run_inline`.
"""

from __future__ import annotations

import contextvars
import functools
import pickle
import threading
import weakref
from types import ModuleType
from typing import Any, List, NamedTuple, Optional, Sequence, Union

from . import _backend
from ._backend import loop as _default_loop
from .arguments import Signature
from .code import AwaitableSite, CallSite, Code, ForkSite
from .errors import (REPEATED_FRAMES_SHOWN, GraphRecursionError, InterpreterError,
                     JITException, TraceFrame, format_frames, repeated_note)
from .futures import Await, Future
from .ir import Graph
from .ir.printer import node_header
from .fperrors import run_enter as _run_enter, run_leave as _run_leave
from ._backend import loop_named
from .pickling import cached, token
from .registry import Registry
from .workqueue import Executor, crosses_processes, default_queue

__all__ = ["InterpreterState", "Function", "located_error", "drive", "fork", "run_forked", "Fork",
           "Awaitable", "Link", "program_of", "code_of", "run_inline", "set_recursion_limit",
           "get_recursion_limit"]


class _RunSettings(NamedTuple):
    """What a run hands down to the runs it forks."""

    loop: ModuleType
    executor: Optional[Executor]   # None: the process-wide default queue


# The settings of the run executing in this context, set around every Frame.run.
# A ContextVar follows a run across threads: its continuations run in the context
# captured when it suspended, its forks in a copy of the context that forked.
_current_run: contextvars.ContextVar[Optional[_RunSettings]] = contextvars.ContextVar(
    "pyjit_current_run", default=None)

# Guards InterpreterState._future against a get_future() racing a run's end.
_future_lock = threading.Lock()


_OUTSIDE = _RunSettings(_default_loop, None)   # what no run in the context means


def _inherited_executor() -> Optional[Executor]:
    run = _current_run.get()
    return run.executor if run is not None else None


def _enter_run(loop: ModuleType, executor: Optional[Executor]):
    """Make ``(loop, executor)`` the current run's settings (``executor=None``:
    keep the current one).  Returns the token to reset them with, or None when
    they are the current ones already -- the common case, kept cheap for
    :class:`Function` calls."""
    cur = _current_run.get() or _OUTSIDE
    if cur.loop is loop and (executor is None or executor is cur.executor):
        return None
    return _current_run.set(_RunSettings(loop, executor if executor is not None
                                         else cur.executor))


def program_of(code: Code, loop: Optional[ModuleType] = None):
    """The validated ``Program`` of ``code`` for ``loop`` (the active one by
    default), built once per loop and kept with the Code, which any number of
    runs share.  Fork, awaitable and call sites are linked to :class:`Fork`,
    :class:`Awaitable` and :class:`Link` callables here."""
    loop = loop or _default_loop
    prog = code._programs.get(loop.__name__)
    if prog is None:
        with code._lock:
            prog = code._programs.get(loop.__name__)
            if prog is None:
                c = code.columns
                callbacks = tuple(_linked(cb, loop) for cb in code.callbacks)
                prog = loop.Program(c["op"], c["in_start"], c["in_size"], c["flag_start"],
                                    c["out_start"], c["out_size"], c["arg"],
                                    code.int_data, code.bool_data, callbacks,
                                    code.constants, code.register_size, Future,
                                    code.scalar_kinds, code.scalar_init, code.preload)
                code._programs[loop.__name__] = prog
                _codes[id(prog)] = code
    return prog


# The Code of each Program program_of built, by the Program's id (a Program has
# no room for a reference back, and must not keep its Code alive).
_codes: "weakref.WeakValueDictionary[int, Code]" = weakref.WeakValueDictionary()


def code_of(program: Any) -> Optional[Code]:
    """The Code whose ``program`` :func:`program_of` built (while the Code
    lives; None once it is gone, or for a Program built by hand).  The
    profiler's way back from the loop's tallies, which are by Program, to nodes."""
    code = _codes.get(id(program))
    return code if code is not None and program in code._programs.values() else None


def _linked(callback: Any, loop: ModuleType) -> Any:
    kind = type(callback)
    if kind is CallSite:
        return Link(callback, loop)
    site = _SITE_CALLABLES.get(kind)
    return callback if site is None else site(callback.code)


class Link:
    """What an ``INVOKE`` calls for its callee: ``Link(site, loop)()`` is the
    callee's Program for that loop (the loop calls it the first time the
    instruction runs, so the callee's Code is compiled and linked then: a
    function may call itself).

    Attributes:
        site: the :class:`~pyjit.code.CallSite` (its callee and level).
    """

    __slots__ = ("site", "_loop")

    def __init__(self, site: CallSite, loop: ModuleType) -> None:
        self.site = site
        self._loop = loop

    def __call__(self) -> Any:
        return program_of(self.site.code, self._loop)

    def __repr__(self) -> str:
        return f"<call of {self.site.name}>"


def set_recursion_limit(limit: int) -> None:
    """Set how deeply graphs may call one another: the activations one run may hold
    at once (its own, plus one per call in progress; 1000 to begin with, as
    Python's own limit).  A call beyond it raises
    :class:`~pyjit.GraphRecursionError`, which names the limit.  Calls do not
    recurse in Python or C, so the limit is only a guard against runaway
    recursion: it may be raised far beyond Python's."""
    for loop in _loops():
        loop.set_max_depth(limit)


def get_recursion_limit() -> int:
    """How deeply graphs may call one another (see :func:`set_recursion_limit`)."""
    return _backend.pure().get_max_depth()


def _loops():
    yield _backend.pure()
    try:
        yield _backend.compiled()
    except ImportError:  # no compiled loop: the pure one is all there is
        pass


def trace_frames(code: Code, pcs: Union[int, Sequence[int]]) -> List[TraceFrame]:
    """The traceback of a run of ``code`` whose activations are at ``pcs``
    (outermost first, as ``Frame.pcs`` gives them; an int for one): each caller's
    pc is an INVOKE, which says what the next activation runs."""
    if isinstance(pcs, int):
        pcs = (pcs,)
    frames = []
    for i, pc in enumerate(pcs):
        node = code.node_at(pc)
        frames.append(TraceFrame(code.name, node_header(node), node.source_location))
        if i + 1 < len(pcs):
            site = code.callbacks[int(code.columns["arg"][pc])]
            if type(site) is not CallSite:  # pragma: no cover - the loops never do this
                break
            code = site.code
    return frames


def located_error(code: Code, pcs: Union[int, Sequence[int]],
                  exc: BaseException) -> BaseException:
    """:func:`_locate` ``exc``, unless that is too deep: describing a location
    takes a few Python calls, and a run that failed with the recursion limit
    nearly used up may not have them (Python 3.13 can meet its own limit inside
    an operator before pyjit's check).  Then ``exc`` itself is returned, to be
    raised ``from`` its ``__cause__`` as the located error would be: it goes on
    up to the first run with room to describe it, and nothing it met on the way
    is chained to it."""
    try:
        return _locate(code, pcs, exc)
    except RecursionError:
        return exc


def _locate(code: Code, pcs: Union[int, Sequence[int]],
            exc: BaseException) -> InterpreterError:
    """The :class:`InterpreterError` (or :class:`JITException`) for ``exc`` raised by
    a run of ``code`` whose activations were at ``pcs`` (``Frame.pcs``; an int for a
    run without calls): the original message, then every activation, innermost
    last, with the node it was at and its ``file:line:col``, the source line and a
    caret when the file is readable (:func:`pyjit.errors.format_frames`).

    Raise it ``from`` its ``__cause__``, which is ``exc`` except in a recursion
    through an operator (the same node running the same graph again, level after
    level): there the first ``REPEATED_FRAMES_SHOWN`` levels add their line and
    their link to the chain as any nesting does, the others are counted
    (``[Previous frame repeated N more times]``, as Python's traceback cuts a
    recursion) and chain from the innermost failure itself, so that neither the
    message nor the chain grows with the depth."""
    frames = trace_frames(code, pcs)
    inner = frames[-1]
    header, loc = inner.node, inner.location
    cause: BaseException = exc
    nesting = None
    if isinstance(exc, JITException) and exc.node is None:
        # torch names no class for `assert` and a bare `raise E`: it says RuntimeError.
        text = f"{exc.python_class or 'RuntimeError'}: {exc.msg}" + format_frames(frames,
                                                                                 "raised by")
        cls = JITException
    elif isinstance(exc, InterpreterError):
        # Already located (e.g. by a nested graph); add where this run met it.
        if len(frames) == 1:
            where = f"\n  at {loc.highlight()}" if loc is not None else ""
            level = f"\n  while running: {header}{where}"
        else:
            level = format_frames(frames)
        head, repeated, times = getattr(exc, "_nesting", None) or (str(exc), None, 0)
        if level != repeated:
            head, times = str(exc), 0
        times += 1
        text = head + level * min(times, REPEATED_FRAMES_SHOWN)
        if times > REPEATED_FRAMES_SHOWN:
            text += repeated_note(times - REPEATED_FRAMES_SHOWN)
            # Chained to what the recursion's innermost level met, not to a
            # located error of the levels the note counts.
            while isinstance(cause, InterpreterError) and cause.__cause__ is not None:
                cause = cause.__cause__
        nesting = (head, level, times)
        cls = type(exc)
    else:
        text = f"{type(exc).__name__}: {exc}" + format_frames(frames)
        cls = GraphRecursionError if isinstance(exc, RecursionError) else InterpreterError
    if issubclass(cls, JITException):
        err: InterpreterError = cls(text, msg=exc.msg, python_class=exc.python_class,
                                    node=header, location=loc, frames=frames)
    else:
        err = cls(text, node=header, location=loc, frames=frames)
    err._nesting = nesting  # type: ignore[attr-defined]
    err.__cause__ = cause
    return err


def _run_frame(frame: Any, stack: List[Any], settings: int) -> Optional[Future]:
    """``frame.run(stack)``, with numpy's settings for a run made for its time
    (the Code's ``run_settings``; see :mod:`pyjit.fperrors`)."""
    fp = _run_enter(settings) if settings else None
    try:
        return frame.run(stack)
    finally:
        if fp is not None:
            _run_leave(fp)


def drive(code: Code, frame: Any, stack: List[Any], *, loop: Optional[ModuleType] = None,
          executor: Optional[Executor] = None) -> None:
    """Run ``frame`` to completion, blocking while it waits on a future, and turn a
    failure into a located error.  Both :class:`InterpreterState` and
    :class:`Function` run this way.

    ``loop`` (the frame's loop module) and ``executor`` are what forks started by
    the run use; ``executor=None`` inherits the enclosing run's, if any.  The
    frame is resumed in this thread: a blocking run never needs a pool thread
    for itself (see :mod:`pyjit.workqueue`)."""
    token = _enter_run(loop or _default_loop, executor)
    settings = code.run_settings
    try:
        pending = _run_frame(frame, stack, settings)
        while pending is not None:
            # No raise here: the WAIT reads the future again and raises its error,
            # so the frame fails (and releases its registers) at the WAIT.
            pending.join()
            pending = _run_frame(frame, stack, settings)
    except Exception as exc:
        err = located_error(code, frame.pcs, exc)
        raise err from err.__cause__
    finally:
        if token is not None:
            _current_run.reset(token)


# What an InterpreterState is doing; changed under its lock.
_IDLE = 0        # no run in progress: before one, or after a blocking run
_RUNNING = 1     # a thread executes its frame (run(), or a step of an async run)
_SUSPENDED = 2   # an async run waits on a future; a callback there resumes it
_QUEUED = 3      # its next step (a resume, or a fork's start) is on the executor
_ENDED = 4       # an async run completed, failed, or was stopped


class _Released:
    """What replaces the frame of a run stopped before its end (its future was
    cancelled, or its executor dropped its continuation): the frame, and every
    value in its registers, is freed; the pc is kept for messages."""

    __slots__ = ("pc", "why")

    failed = True
    finished = False

    def __init__(self, pc: int, why: str) -> None:
        self.pc = pc
        self.why = why


def _on_own_future_done(ref: "weakref.ref[InterpreterState]", fut: Future) -> None:
    # Held by the state's future through a weak reference: a future kept by the
    # caller must not keep a suspended run (and its values) alive.
    state = ref()
    if state is not None:
        state._stop("its future was cancelled" if fut.cancelled() else
                    "its future was completed by someone else")


class InterpreterState:
    """One execution of a Code.

    Args:
        code: what to run.
        loop: the loop module (``pyjit._core`` or ``pyjit._pure``); the active
            backend by default.
        executor: where the run resumes after a suspension and where its forks
            run: anything with ``submit(fn, *args)``, such as a
            ``concurrent.futures.Executor``.  By default the executor of the run
            this state is made in (a fork's parent), else the process-wide
            :func:`~pyjit.workqueue.default_queue`.

    A state is one run at a time: running it from two threads at once, or from
    one of its own operators, is a ``RuntimeError`` saying so (make one state per
    concurrent run; they may share the Code).  ``run`` takes its inputs as the
    seed's raw stack and does not check them against the graph's input types
    (:class:`Function` does; so does :meth:`pyjit.arguments.Signature.check`).
    """

    __slots__ = ("code", "_frame", "_loop", "_executor", "_future", "_lock", "_state",
                 "_owner", "__weakref__")

    def __init__(self, code: Code, *, loop: Optional[ModuleType] = None,
                 executor: Optional[Executor] = None) -> None:
        if not isinstance(code, Code):
            raise TypeError(f"InterpreterState() takes a Code, not {type(code).__name__}")
        if executor is not None and not callable(getattr(executor, "submit", None)):
            raise TypeError(f"executor must have a submit(fn, *args) method; "
                            f"{type(executor).__name__} has none")
        self.code = code
        self._loop = loop or _default_loop
        self._frame = self._loop.Frame(program_of(code, self._loop))
        self._executor = executor if executor is not None else _inherited_executor()
        self._future: Optional[Future] = None
        self._lock = threading.Lock()
        self._state = _IDLE
        self._owner: Optional[threading.Thread] = None  # the thread in _RUNNING

    def run(self, stack: List[Any]) -> None:
        """Run to completion.  ``stack`` holds the inputs (last input last); after the
        run it holds the outputs instead.  A run that suspends on a future blocks
        until the future is done and then continues, in this thread.  If
        :meth:`get_future` was called, the future is completed (or failed) too."""
        if self._frame.failed:
            # Said plainly here: through drive() it would read as the node failing again.
            pc = self._frame.pc
            if isinstance(self._frame, _Released):
                raise InterpreterError(f"this InterpreterState is unusable: its run was "
                                       f"stopped at instruction {pc} ({self._frame.why}); "
                                       "make a new one to run again")
            where = (f" ({node_header(self.code.node_at(pc)).strip()})"
                     if pc < len(self.code) else "")
            raise InterpreterError(
                f"this InterpreterState is unusable: its run failed at instruction {pc}"
                f"{where}; make a new one to run again")
        self._claim()
        try:
            drive(self.code, self._frame, stack, loop=self._loop, executor=self._executor)
        except BaseException as exc:
            fut = self._finish(_IDLE)
            if fut is not None:
                fut._try_complete(None, exc)
            raise
        fut = self._finish(_IDLE)
        if fut is not None:
            fut._try_complete(self._outputs(stack), None)

    def run_async(self, stack: List[Any]) -> Future:
        """Start the run without blocking (the seed's ``runAsync``); return its future.

        The run goes on in this thread until it ends or suspends on a pending
        future.  If it ends, the outputs are appended to ``stack`` (as :meth:`run`
        does) and the returned future is already completed.  If it suspends, the
        rest runs on the executor once the future is done.  The future's value is
        the graph's output, or the tuple of its outputs when it has several (or
        none).  A failure fails the future with the located
        :class:`~pyjit.InterpreterError`; nothing is raised here.  Cancelling the
        future (:meth:`pyjit.Future.cancel`) stops the run and releases its
        values; an executor that drops the run's continuation (shut down with
        ``cancel_futures=True``) fails it with a ``RuntimeError`` saying so.
        """
        self._claim()
        try:
            fut = self.get_future()
        except BaseException:
            self._finish(_IDLE)
            raise
        if fut.done():  # the run ended earlier (run() after get_future())
            self._finish(_IDLE)
            return fut
        fut.add_callback(functools.partial(_on_own_future_done, weakref.ref(self)))
        self._step(stack)
        return fut

    def get_future(self) -> Future:
        """The future the run completes with its outputs, made on first call (the
        seed's ``getFuture``).  Call it before the run ends: afterwards the outputs
        are gone to the caller's stack and there is nothing to complete it with.

        Raises:
            RuntimeError: the run already ended, or failed, without a future.
        """
        with _future_lock:
            if self._future is None:
                if self._frame.failed or self._frame.finished:
                    how = "failed" if self._frame.failed else "finished"
                    raise RuntimeError(f"the run already {how}; call get_future() "
                                       "before the run ends")
                self._future = Future()
            return self._future

    @property
    def pc(self) -> int:
        """The index of the next instruction to run (of the failing one after an error)."""
        return self._frame.pc

    def __reduce__(self):
        raise TypeError("an InterpreterState cannot be pickled: it is one run, with its "
                        "registers, in this process; pickle its Code (or a Function) and "
                        "start a run over there")

    # -- who runs the frame -------------------------------------------------------------
    def _claim(self) -> None:
        """Take the state for a run in this thread, or say why it cannot be."""
        me = threading.current_thread()
        with self._lock:
            state = self._state
            if state == _RUNNING:
                if self._owner is me:
                    raise RuntimeError("this InterpreterState is already running: run() was "
                                       "called from one of its own operators")
                owner = self._owner.name if self._owner is not None else "?"
                raise RuntimeError(f"this InterpreterState is already running in another "
                                   f"thread ({owner}); a state is one run at a time: make "
                                   "one InterpreterState per concurrent run (they may "
                                   "share the Code)")
            if state in (_SUSPENDED, _QUEUED):
                raise RuntimeError("this InterpreterState is running asynchronously; wait on "
                                   "get_future() instead")
            self._state = _RUNNING
            self._owner = me

    def _finish(self, state: int) -> Optional[Future]:
        """Leave _RUNNING for ``state``; return the future to complete, if any."""
        with self._lock:
            self._state = state
            self._owner = None
        with _future_lock:
            return self._future

    def _stop(self, why: str) -> bool:
        """Release the frame of a run that is suspended or queued (not executing):
        it will not go on.  A run executing now notices at its next suspension.
        Returns whether it stopped the run."""
        with self._lock:
            if self._state not in (_SUSPENDED, _QUEUED):
                return False
            self._state = _ENDED
            frame, self._frame = self._frame, _Released(self._frame.pc, why)
        del frame  # its registers are freed here, outside the lock
        return True

    # -- the asynchronous machinery ---------------------------------------------------
    def _outputs(self, stack: List[Any]) -> Any:
        n = self.code.n_outputs
        return stack[-1] if n == 1 else tuple(stack[len(stack) - n:])

    def _step(self, stack: List[Any]) -> None:
        """Run until the end or a suspension (the seed's ``runImpl`` with a future):
        complete the future, fail it, or leave a continuation on the pending one.
        Called in _RUNNING.  Never raises: any failure goes to the future, so no
        waiter hangs."""
        frame = self._frame
        token = _enter_run(self._loop, self._executor)
        try:
            try:
                pending = _run_frame(frame, stack, self.code.run_settings)
            except Exception as exc:
                err = located_error(self.code, frame.pcs, exc)
                raise err from err.__cause__
        except BaseException as exc:
            self._finish(_ENDED)._try_complete(None, exc)  # type: ignore[union-attr]
            return
        finally:
            if token is not None:
                _current_run.reset(token)
        if pending is None:
            # A cancelled future stays cancelled: the outputs are dropped.
            self._finish(_ENDED)._try_complete(self._outputs(stack), None)  # type: ignore
        else:
            self._suspend(frame, pending)

    def _resume(self, stack: List[Any]) -> None:
        """The task on the executor: the next step, unless the run was stopped."""
        with self._lock:
            if self._state != _QUEUED:
                return
            self._state = _RUNNING
            self._owner = threading.current_thread()
        self._step(stack)

    def _suspend(self, frame: Any, pending: Future) -> None:
        with self._lock:
            self._owner = None
            if self._future.done():  # type: ignore[union-attr]  # cancelled meanwhile
                self._state = _ENDED
                self._frame = _Released(frame.pc, "its future was cancelled")
                return  # the frame and its registers go with this call's locals
            self._state = _SUSPENDED
        del frame
        # The context as it is now, for the rest of the run (the seed keeps grad mode).
        ctx = contextvars.copy_context()
        executor = self._executor
        if executor is None or crosses_processes(executor):
            executor = default_queue()   # the frame is this process's to resume

        def resume(_: Future) -> None:
            # On whichever thread completed `pending`: hand the frame to the executor.
            with self._lock:
                if self._state != _SUSPENDED:
                    return  # stopped meanwhile
                self._state = _QUEUED
            try:
                task = executor.submit(ctx.run, self._resume, [])
            except BaseException as exc:  # refused (shut down): the run cannot go on
                self._abandon(exc)
            else:
                self._watch(task)

        # The last step: if `pending` is done by now, resume() runs at once, and the
        # frame may already be running elsewhere when add_callback returns.
        pending.add_callback(resume)

    def _watch(self, task: Any) -> None:
        """Fail the run if the executor cancels the task it was given: a
        ``concurrent.futures`` executor shut down with ``cancel_futures=True``
        drops queued tasks without running them."""
        add_done_callback = getattr(task, "add_done_callback", None)
        if callable(add_done_callback) and callable(getattr(task, "cancelled", None)):
            add_done_callback(self._task_done)

    def _task_done(self, task: Any) -> None:
        if task.cancelled():
            error = RuntimeError("the executor cancelled the run's next step before it ran "
                                 "(was it shut down with cancel_futures=True?); the run "
                                 "cannot go on")
            # Not from here: ThreadPoolExecutor.shutdown cancels under its own lock,
            # and failing the future runs its waiters' callbacks, which may submit
            # to that same executor (a forking run resuming) and would deadlock.
            try:
                default_queue().submit(self._abandon, error)
            except RuntimeError:  # pragma: no cover - the default queue is never shut
                self._abandon(error)

    def _abandon(self, error: BaseException) -> None:
        """The queued step will never run: release the frame, fail the future."""
        if self._stop(str(error)):
            self._future._try_complete(None, error)  # type: ignore[union-attr]


def fork(code: Code, args: Sequence[Any]) -> Future:
    """Start a run of ``code`` with ``args`` as its inputs and return its future (what
    ``prim::fork`` does).

    The new :class:`InterpreterState` uses the loop and executor of the run that
    forks (the defaults outside a run), and starts on that executor in a copy of
    the current ``contextvars`` context.  The future fails with the run's located
    :class:`~pyjit.InterpreterError` if it fails, and with a ``RuntimeError`` if
    the executor drops the task; cancelling it stops the run.  On an executor of
    other processes the run happens there, whole (:func:`_fork_elsewhere`).

    Raises:
        RuntimeError: the executor refused the task (e.g. it was shut down).
    """
    run = _current_run.get()
    loop, executor = run if run is not None else (_default_loop, None)
    if executor is not None and crosses_processes(executor):
        return _fork_elsewhere(code, args, loop, executor)
    state = InterpreterState(code, loop=loop, executor=executor)
    fut = state.get_future()
    state._state = _QUEUED
    fut.add_callback(functools.partial(_on_own_future_done, weakref.ref(state)))
    ctx = contextvars.copy_context()
    task = (executor if executor is not None else default_queue()).submit(
        ctx.run, state._resume, list(args))
    state._watch(task)
    return fut


def _fork_elsewhere(code: Code, args: Sequence[Any], loop: ModuleType, executor: Any) -> Future:
    """:func:`fork` on an executor of other processes (see :mod:`pyjit.workqueue`):
    the Code and the inputs go pickled, the worker runs the subgraph to its end
    (:func:`run_forked`), and the outputs, or the located error, complete the
    future here.  Cancelling the future cancels the task if it has not started."""
    fut = Future()
    # The Code goes pickled inside the task: a Code that cannot be compiled over
    # there (its registry unknown, say) fails the task, where unpickling it with
    # the task would end the worker process (concurrent.futures cannot report it).
    task = executor.submit(run_forked, pickle.dumps(code), loop.__name__, tuple(args))

    def task_done(t: Any) -> None:
        if t.cancelled():
            fut._try_complete(None, RuntimeError("the executor cancelled the fork before "
                                                 "it ran (was it shut down?)"))
            return
        error = t.exception()
        fut._try_complete(None if error is not None else t.result(), error)

    def fork_done(f: Future) -> None:
        if f.cancelled():
            task.cancel()

    fut.add_callback(fork_done)
    task.add_done_callback(task_done)
    return fut


def run_forked(code: bytes, loop: str, args: Sequence[Any]) -> Any:
    """The task a fork on another process's executor runs there: the pickled
    ``code`` on ``args`` to its end with the loop named ``loop``, its outputs
    returned (a tuple for several); a failure raises its located
    :class:`~pyjit.InterpreterError`, which pickles whole back to the fork."""
    state = InterpreterState(pickle.loads(code), loop=loop_named(loop))
    stack = list(args)
    state.run(stack)
    return state._outputs(stack)


class Fork:
    """What a ``prim::fork`` calls: ``Fork(code)(*inputs)`` starts a run of the
    subgraph's Code with :func:`fork` and returns the run's Future.

    Attributes:
        code: the subgraph's Code, compiled once with the Code that forks.
    """

    __slots__ = ("code",)

    def __init__(self, code: Code) -> None:
        self.code = code

    def __call__(self, *inputs: Any) -> Future:
        return fork(self.code, inputs)

    def __repr__(self) -> str:
        return f"<prim::fork of {self.code!r}>"


class Awaitable:
    """What a ``prim::awaitable`` calls: ``Awaitable(code)(*inputs)`` is an
    :class:`~pyjit.futures.Await` that runs the subgraph's Code on the inputs, with
    :func:`run_inline`, when it is first waited for.

    Attributes:
        code: the subgraph's Code, compiled once with the Code that holds it.
    """

    __slots__ = ("code",)

    def __init__(self, code: Code) -> None:
        self.code = code

    def __call__(self, *inputs: Any) -> Await:
        return Await(functools.partial(run_inline, self.code, inputs))

    def __repr__(self) -> str:
        return f"<prim::awaitable of {self.code!r}>"


#: The runtime's callable for each kind of subgraph site.
_SITE_CALLABLES = {ForkSite: Fork, AwaitableSite: Awaitable}


def run_inline(code: Code, args: Sequence[Any]) -> Any:
    """Run ``code`` on ``args`` to completion in this thread, with the loop of the
    run that calls it (the default loop outside a run), and return its output (a
    tuple for several).  ``prim::awaitable_wait`` runs an awaitable's subgraph so;
    a failure is the located :class:`~pyjit.InterpreterError` of the subgraph."""
    run = _current_run.get()
    state = InterpreterState(code, loop=run.loop if run is not None else None)
    stack = list(args)
    state.run(stack)
    return state._outputs(stack)


class Function:
    """A graph as a Python callable: ``Function(graph)(*args)``.

    Returns the graph's single output, or a tuple when it has several (none: None).
    ``loop`` picks the run loop (the active backend by default); ``registry`` is
    where the Code looks its operators up (the default registry unless given);
    ``optimize`` is the Code's level (see :class:`~pyjit.code.Code`).  A Code
    built already (a :class:`~pyjit.CompilationUnit`'s) may be given instead of
    the graph.  ``copy=False`` hands the graph over to its Code instead of
    having it copied (see :class:`~pyjit.code.Code`): for a graph made only to
    be run, such as one just read from a file.

    Each call checks its arguments against the graph's input types first (see
    :mod:`pyjit.arguments`): a wrong number of arguments, or a value the type does
    not accept, is a ``TypeError`` naming the parameter, its type and what was
    given.  Arguments may be given by keyword, by the inputs' names: ``%n.1`` is
    ``n.1``, or ``n`` where that is unambiguous (:meth:`~pyjit.arguments.Signature.bind`).
    ``signature`` replaces the names those messages use (``@pyjit.script``
    passes the Python function's); its types must be the graph's.
    """

    __slots__ = ("code", "signature", "_check", "_program", "_loop", "_n_inputs",
                 "_n_outputs", "_settings")

    def __init__(self, graph: Union[Graph, Code], *, loop: Optional[ModuleType] = None,
                 registry: Optional[Registry] = None, optimize: Optional[bool] = None,
                 signature: Optional[Signature] = None, copy: bool = True) -> None:
        if isinstance(graph, Code):
            if registry is not None or optimize is not None or not copy:
                raise TypeError("Function(code) takes the Code as it was built: no "
                                "registry, optimize or copy")
            self.code = graph
        else:
            self.code = Code(graph, registry=registry, optimize=optimize, copy=copy)
        if signature is None:
            signature = Signature.of_code(self.code)
        elif list(signature.types) != list(self.code.input_types):
            raise ValueError(f"the signature {signature.declaration()} does not match the "
                             f"graph's input types")
        self.signature = signature
        self._check = signature.check
        self._loop = loop or _default_loop
        self._program = program_of(self.code, self._loop)
        self._n_inputs = self.code.n_inputs
        self._n_outputs = self.code.n_outputs
        self._settings = self.code.run_settings

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if kwargs:  # by the inputs' names (see Signature.bind)
            args = self.signature.bind(args, kwargs)
        if len(args) != self._n_inputs:
            raise self.signature.arity_error(len(args))
        stack = self._check(*args)
        frame = self._loop.Frame(self._program)
        if (_current_run.get() or _OUTSIDE).loop is self._loop:
            # drive()'s common case inlined, since for a small graph the call
            # costs as much as the run: the run settings are this loop's
            # already, so there is nothing to set.  A run that suspends on a
            # future goes on in drive(), which waits for it.
            fp = _run_enter(self._settings) if self._settings else None
            try:
                pending = frame.run(stack)
            except Exception as exc:
                err = located_error(self.code, frame.pcs, exc)
                raise err from err.__cause__
            finally:
                if fp is not None:
                    _run_leave(fp)
            if pending is not None:
                drive(self.code, frame, stack, loop=self._loop)
        else:
            drive(self.code, frame, stack, loop=self._loop)
        if self._n_outputs == 1:
            return stack[0]
        return tuple(stack) if self._n_outputs else None

    @property
    def graph(self) -> Graph:
        return self.code.graph

    def __repr__(self) -> str:
        return f"<pyjit Function: {self.code!r}>"

    # -- pickling (pyjit.pickling) ----------------------------------------------------------
    def _pickled(self) -> tuple:
        """What the Function pickles as: its Code's recipe, its loop's name and its
        signature."""
        from .code_pickle import recipe
        sig = self.signature
        return (recipe(self.code), self._loop.__name__,
                (sig.name, sig.names, sig.types, sig.returns))

    def __reduce__(self):
        return (_unpickled_function, self._pickled())

    def __dask_tokenize__(self) -> str:
        from .code_pickle import recipe_token
        code, loop, sig = self._pickled()
        return token("pyjit.Function", recipe_token(code), loop,
                     tuple(map(str, sig[2])), sig[:2], sig[3])


def _unpickled_function(code_recipe: tuple, loop: str, signature: tuple) -> Function:
    """A pickled Function, on the other side: the one the cache holds for the same
    content, else a new :class:`_Uncompiled` one (compiled when first used)."""
    def make() -> Function:
        f = Function.__new__(_Uncompiled)
        _SLOT["_program"].__set__(f, (code_recipe, loop, signature))
        return f
    return cached(("function", code_recipe, loop, signature), make)


class _Uncompiled(Function):
    """A Function unpickled and not yet compiled: its first call (or a look at
    ``code`` or ``signature``) compiles its Code, through the cache of
    :mod:`pyjit.pickling`, and makes it an ordinary Function.  Until then its
    ``_program`` slot holds what it was pickled as.

    Why a class of its own: ``Function.__call__`` is as short as a call can be
    (a small graph costs no more to run than to call), and a test of whether the
    Function was compiled yet would be paid by every call of every Function."""

    __slots__ = ()

    def __call__(self, *args: Any) -> Any:
        return self._compile()(*args)

    @property
    def code(self) -> Code:  # type: ignore[override]
        return self._compile().code

    @property
    def signature(self) -> Signature:  # type: ignore[override]
        return self._compile().signature

    def _pickled(self) -> tuple:
        with _uncompiled_lock:
            if type(self) is _Uncompiled:
                return _SLOT["_program"].__get__(self)
        return Function._pickled(self)

    def _compile(self) -> Function:
        from .code_pickle import code_from_recipe
        with _uncompiled_lock:
            if type(self) is not _Uncompiled:
                return self
            code_recipe, loop, sig = _SLOT["_program"].__get__(self)
        # Compiled outside the lock: threads compiling other Functions go on, and
        # the cache compiles the same Code once for threads compiling this one.
        real = Function(code_from_recipe(code_recipe), loop=loop_named(loop),
                        signature=Signature(*sig))
        with _uncompiled_lock:
            if type(self) is _Uncompiled:
                for slot in _SLOT.values():
                    slot.__set__(self, slot.__get__(real))
                # Last: a thread that sees the class Function sees every slot set.
                self.__class__ = Function
        return self


_uncompiled_lock = threading.Lock()
# Function's slots themselves (_Uncompiled shadows two of them with properties).
_SLOT = {name: vars(Function)[name] for name in Function.__slots__}
