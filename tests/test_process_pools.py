"""Models on process pools: ``multiprocessing.Pool.map`` (spawn and fork) and
``ProcessPoolExecutor.map`` over Functions, script functions and loaded models,
and ``prim::fork`` on a ``ProcessPoolExecutor``.  Every wait is bounded."""

import multiprocessing
import os
import pickle
from concurrent.futures import ProcessPoolExecutor

import numpy as np
import pytest

import pyjit
from pyjit.ir.parser import parse_ir

from helpers import pickled_models as models

TIMEOUT = 120   # seconds; a spawned worker imports numpy and pyjit first

METHODS = [m for m in ("spawn", "fork") if m in multiprocessing.get_all_start_methods()]


@pytest.fixture(scope="module", params=METHODS)
def pool(request):
    with multiprocessing.get_context(request.param).Pool(2) as p:
        yield p


@pytest.fixture(scope="module")
def executor():
    with ProcessPoolExecutor(2, mp_context=multiprocessing.get_context("spawn"),
                             initializer=models.prepare) as ex:
        yield ex


def test_pool_map_runs_a_function_and_a_script_function(pool):
    got = pool.starmap_async(models.mul_add, [(i, 3) for i in range(20)]).get(TIMEOUT)
    assert got == [i + 1 for i in range(20)]
    assert pool.map_async(models.collatz_steps, [1, 6, 7, 27]).get(TIMEOUT) == [0, 8, 16, 111]
    assert pool.map_async(models.steps_all, [[6], [7, 27]]).get(TIMEOUT) == [[8], [16, 111]]


def test_pool_map_of_a_function_made_here_travels_with_its_tasks(pool):
    f = pyjit.Function(parse_ir(models.MUL_ADD.replace("value=1", "value=100")))
    tasks = [(f, (i, 2)) for i in range(10)]
    assert pool.starmap_async(models.call_with, tasks).get(TIMEOUT) == \
        [i + 100 for i in range(10)]


def test_a_worker_given_the_model_with_every_task_compiles_it_once():
    f = pyjit.Function(parse_ir(models.MUL_ADD.replace("value=1", "value=7")))
    with multiprocessing.get_context("spawn").Pool(1) as p:
        got = p.starmap_async(models.call_with, [(f, (i, 1)) for i in range(30)],
                              chunksize=1).get(TIMEOUT)
        misses = p.apply_async(models.cache_misses).get(TIMEOUT)
    assert got == [i + 7 for i in range(30)]
    assert misses == 2   # the Function and its Code, for thirty tasks


def test_process_pool_executor_map(executor):
    assert list(executor.map(models.mul_add, range(8), [2] * 8, timeout=TIMEOUT)) == \
        [i + 1 for i in range(8)]
    assert list(executor.map(models.collatz_steps, [27, 97], timeout=TIMEOUT)) == [111, 118]


def test_an_error_in_a_worker_comes_back_located(executor):
    with pytest.raises(pyjit.InterpreterError) as info:
        executor.submit(models.mul_add, 1, 0).result(TIMEOUT)
    assert str(info.value).startswith("ZeroDivisionError: division by 0\n  at model.py:3:11\n")
    assert info.value.location == pyjit.ir.SourceLocation("model.py", 3, 11)


# -- prim::fork on a ProcessPoolExecutor -----------------------------------------------------

def test_a_fork_runs_in_a_worker_process(executor):
    state = pyjit.InterpreterState(models.forking, executor=executor)
    stack = [21, 1]
    state.run(stack)
    assert stack == [42]


PID_FORK = """
graph(%x : int):
  %f : Future[int] = prim::fork_0(%x)
  %pid : int = aten::wait(%f)
  return (%pid)
with prim::fork_0 = graph(%a : int):
  %pid : int = test_process_pools::pid(%a)
  return (%pid)
"""


def test_the_fork_ran_elsewhere_and_the_forking_run_here(executor):
    # The forked subgraph calls an operator of a registry both sides name.
    from pyjit.pickling import registry_named
    registry = registry_named(models.PID_REGISTRY)
    code = pyjit.Code(parse_ir(PID_FORK), registry=registry)
    state = pyjit.InterpreterState(code, executor=executor)
    stack = [0]
    state.run(stack)
    assert stack[0] != os.getpid()
    assert stack[0] in set(executor.map(models.worker_pid, range(8), timeout=TIMEOUT)) | \
        {stack[0]}


def test_a_fork_whose_registry_the_worker_lacks_fails_saying_so():
    from pyjit.pickling import registry_named
    code = pyjit.Code(parse_ir(PID_FORK), registry=registry_named(models.PID_REGISTRY))
    with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) as ex:
        state = pyjit.InterpreterState(code, executor=ex)
        with pytest.raises(pyjit.InterpreterError,
                           match=r"^LookupError: the pickle names the registry "
                                 r"'tests.helpers.pickled_models.pids', which this process "
                                 r"has not registered"):
            state.run([0])
        assert ex.submit(models.worker_pid).result(TIMEOUT) > 0   # the worker lives on


def test_a_forks_failure_comes_back_with_both_locations(executor):
    state = pyjit.InterpreterState(models.forking, executor=executor)
    with pytest.raises(pyjit.InterpreterError) as info:
        state.run([1, 0])
    assert str(info.value) == (
        "ZeroDivisionError: division by 0\n"
        "  at sub.py:7:8\n"
        "  while running: %e : int = aten::floordiv(%b, %d) # sub.py:7:8\n"
        "  while running: %y : int = aten::wait(%f) # main.py:3:8\n"
        "  at main.py:3:8")
    inner = info.value.__cause__
    assert isinstance(inner, pyjit.InterpreterError)
    assert inner.location == pyjit.ir.SourceLocation("sub.py", 7, 8)


FUTURE_IN = """
graph(%x : int):
  %f : Future[int] = prim::fork_0(%x)
  %g : Future[int] = prim::fork_1(%f) # pass.py:3:8
  %y : int = aten::wait(%g) # pass.py:4:8
  return (%y)
with prim::fork_0 = graph(%a : int):
  return (%a)
with prim::fork_1 = graph(%h : Future[int]):
  %v : int = aten::wait(%h)
  return (%v)
"""


def test_a_future_cannot_cross_and_the_fork_says_so(executor):
    state = pyjit.InterpreterState(pyjit.Code(parse_ir(FUTURE_IN)), executor=executor)
    with pytest.raises(pyjit.InterpreterError,
                       match=r"a pyjit.Future cannot be pickled: a run or a thread of this "
                             r"process completes it(.|\n)*at pass.py:4:8"):
        state.run([5])


def test_a_run_given_a_process_executor_resumes_here():
    # The run's own continuation after the wait cannot go to another process.
    with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) as ex:
        state = pyjit.InterpreterState(models.forking, executor=ex)
        fut = state.run_async([5, 1])
        assert fut.wait(TIMEOUT) == 10


# -- loaded models ---------------------------------------------------------------------------

@pytest.mark.parametrize("method", METHODS)
def test_pool_map_over_a_loaded_model(method):
    model = models.load_int_math()
    args = [a for a, _ in models.INT_MATH_CALLS]
    with multiprocessing.get_context(method).Pool(2) as p:
        assert p.starmap_async(model, args).get(TIMEOUT) == [r for _, r in models.INT_MATH_CALLS]
        assert p.starmap_async(model.forward, args).get(TIMEOUT) == \
            [r for _, r in models.INT_MATH_CALLS]


def test_process_pool_executor_map_over_a_loaded_model(executor):
    model = models.load_int_math()
    args = [a for a, _ in models.INT_MATH_CALLS]
    assert list(executor.map(model, *zip(*args), timeout=TIMEOUT)) == \
        [r for _, r in models.INT_MATH_CALLS]


SMALL_CNN = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                         "examples", "small_cnn.pt")


def test_a_pickled_model_is_about_the_size_of_its_archive():
    model = pyjit.load(SMALL_CNN)
    assert len(pickle.dumps(model)) <= 1.2 * os.path.getsize(SMALL_CNN) + 64 * 1024


def test_a_saved_model_that_ran_pickles_too():
    # Its BatchNorms' 0-dim num_batches_tracked were once written 1-dim (eeaa939).
    model = pyjit.load(SMALL_CNN)
    x = np.ones((2, 3, 12, 12), np.float32)
    want = model(x)
    back = pickle.loads(pickle.dumps(model))
    np.testing.assert_array_equal(back(x), want)
