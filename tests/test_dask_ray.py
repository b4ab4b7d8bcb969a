"""Models on Dask (a real ``LocalCluster`` of worker processes, started with the
spawn method) and on Ray (a local instance), and the README's batch-inference
example on each engine.  Skipped where ``pyjit[distributed]`` is not installed;
CI installs it in one step.  Every wait is bounded."""

import os
import re
import runpy
import subprocess
import sys

import pytest

import pyjit
from pyjit.ir.parser import parse_ir

from helpers import pickled_models as models
from helpers.optional import needs_dask, needs_ray, needs_tqdm
from helpers.subprocesses import CHECKOUT, checkout_env

TIMEOUT = 120


def worker_env() -> dict:
    """PYTHONPATH for workers that do not inherit this process's sys.path (Ray's):
    the tested pyjit, and tests/ for the helpers they import."""
    env = checkout_env()
    return {"PYTHONPATH": os.pathsep.join([str(CHECKOUT / "tests"), env["PYTHONPATH"]])}


# -- Dask ------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def client():
    import dask
    from dask.distributed import Client, LocalCluster
    with dask.config.set({"distributed.worker.multiprocessing-method": "spawn"}):
        with LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                          dashboard_address=None, silence_logs=40) as cluster, \
                Client(cluster, timeout=TIMEOUT) as c:
            c.wait_for_workers(2, timeout=TIMEOUT)
            yield c


@needs_dask
def test_models_hash_deterministically_for_dask():
    import dask
    from dask.base import tokenize
    with dask.config.set({"tokenize.ensure-deterministic": True}):
        assert tokenize(models.mul_add) == tokenize(models.mul_add)
        assert tokenize(models.steps_all) != tokenize(models.collatz_steps)


@needs_dask
def test_client_map_and_submit_on_worker_processes(client):
    futures = client.map(models.mul_add, range(10), [3] * 10)
    assert client.gather(futures, errors="raise") == [i + 1 for i in range(10)]
    assert client.submit(models.collatz_steps, 27).result(TIMEOUT) == 111
    assert client.submit(models.steps_all, [6, 7]).result(TIMEOUT) == [8, 16]
    pids = set(client.run(models.worker_pid).values())
    assert os.getpid() not in pids and len(pids) == 2


@needs_dask
def test_a_function_made_here_is_sent_and_compiled_once_per_worker(client):
    f = pyjit.Function(parse_ir(models.MUL_ADD.replace("value=1", "value=50")))
    before = client.run(models.cache_misses)
    futures = client.map(models.call_with, [f] * 20, [(i, 1) for i in range(20)], pure=False)
    assert client.gather(futures) == [i + 50 for i in range(20)]
    after = client.run(models.cache_misses)
    assert all(after[w] - before[w] <= 2 for w in after)   # its Function and its Code


@needs_dask
def test_an_error_comes_back_from_a_worker_located(client):
    with pytest.raises(pyjit.InterpreterError) as info:
        client.submit(models.mul_add, 1, 0).result(TIMEOUT)
    assert info.value.location == pyjit.ir.SourceLocation("model.py", 3, 11)
    assert type(info.value.__cause__) is ZeroDivisionError


INTERACTIVE = '''
import pyjit

@pyjit.script
def triple_all(xs: list[int]) -> list[int]:
    return [3 * x for x in xs]
'''


@needs_dask
def test_an_interactive_script_function_goes_by_value(client, tmp_path):
    path = tmp_path / "notebook_cell.py"
    path.write_text(INTERACTIVE)
    triple_all = runpy.run_path(str(path), run_name="__main__")["triple_all"]
    path.unlink()   # the workers could not read it: the source travels
    assert client.submit(triple_all, [1, 2]).result(TIMEOUT) == [3, 6]


@needs_dask
def test_a_fork_runs_on_a_dask_worker(client):
    executor = client.get_executor()
    state = pyjit.InterpreterState(models.forking, executor=executor)
    stack = [21, 1]
    state.run(stack)
    assert stack == [42]
    state = pyjit.InterpreterState(models.forking, executor=executor)
    with pytest.raises(pyjit.InterpreterError) as info:
        state.run([1, 0])
    assert str(info.value).endswith("  while running: %y : int = aten::wait(%f) # main.py:3:8"
                                    "\n  at main.py:3:8")
    assert info.value.__cause__.location == pyjit.ir.SourceLocation("sub.py", 7, 8)


@needs_dask
def test_client_map_and_submit_over_a_loaded_model(client):
    model = models.load_int_math()
    args = [a for a, _ in models.INT_MATH_CALLS]
    futures = client.map(model, *zip(*args))
    assert client.gather(futures) == [r for _, r in models.INT_MATH_CALLS]
    assert client.submit(model.forward, 17, 5).result(TIMEOUT) == models.INT_MATH_CALLS[0][1]


# -- Ray -------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def ray():
    ray = pytest.importorskip("ray")
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False,
             runtime_env={"env_vars": worker_env()})
    try:
        yield ray
    finally:
        ray.shutdown()


@needs_ray
def test_a_ray_task_calls_a_model_from_the_object_store(ray):
    call = ray.remote(models.call_with)
    shared = ray.put(models.mul_add)
    assert ray.get([call.remote(shared, (i, 2)) for i in range(6)], timeout=TIMEOUT) == \
        [i + 1 for i in range(6)]
    script = ray.put(models.steps_all)
    assert ray.get(call.remote(script, ([27],)), timeout=TIMEOUT) == [111]


@needs_ray
def test_an_error_in_a_ray_task_is_the_located_error(ray):
    call = ray.remote(models.call_with)
    with pytest.raises(pyjit.InterpreterError, match=r"at model.py:3:11"):
        ray.get(call.remote(ray.put(models.mul_add), (1, 0)), timeout=TIMEOUT)


@needs_ray
def test_a_ray_task_calls_a_loaded_model_from_the_object_store(ray):
    call = ray.remote(models.call_with)
    shared = ray.put(models.load_int_math())
    args, want = models.INT_MATH_CALLS[0]
    assert ray.get(call.remote(shared, args), timeout=TIMEOUT) == want


# -- the README's example --------------------------------------------------------------------

EXAMPLE = CHECKOUT / "examples" / "batch_inference.py"


def test_the_readmes_saved_model_on_a_process_pool_prints_what_it_says(tmp_path):
    readme = (CHECKOUT / "README.md").read_text(encoding="utf-8")
    block = next(b for b in re.findall(r"```python\n(.*?)```", readme, re.S)
                 if "ProcessPoolExecutor" in b and "small_cnn.pt" in b)
    path = tmp_path / "saved_model_pool.py"
    path.write_text(block)
    out = subprocess.run([sys.executable, str(path)], cwd=CHECKOUT, capture_output=True,
                         text=True, env=checkout_env(), timeout=300, check=True).stdout
    shown = [line.split("# ", 1)[1] for line in block.splitlines()
             if line.strip().startswith("print(")]
    assert out.splitlines() == shown == ["(128, 10)"]


def test_the_readme_shows_the_example_file():
    readme = (CHECKOUT / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", readme, re.S)
    assert EXAMPLE.read_text(encoding="utf-8") in blocks


@pytest.mark.parametrize("engine", [
    pytest.param("pool", marks=needs_tqdm),
    pytest.param("dask", marks=[needs_dask, needs_tqdm]),
    pytest.param("ray", marks=[needs_ray, needs_tqdm]),
])
def test_the_batch_inference_example_runs_on(engine):
    out = subprocess.run([sys.executable, str(EXAMPLE), engine], cwd=CHECKOUT,
                         capture_output=True, text=True, env=checkout_env(),
                         timeout=300, check=True).stdout
    # The last line, after the progress bar Dask draws on the same stream.
    assert re.split(r"[\r\n]|\x1b\[2K", out.strip())[-1] == "100000 81 4114786"
