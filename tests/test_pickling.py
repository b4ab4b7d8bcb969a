"""Pickling (pyjit.pickling): everything a user holds pickles as what it was
compiled from, compiles again on the other side, once per process, and gives
the same results; errors come back whole; what cannot cross says why."""

import glob
import io
import os
import pickle
import subprocess
import sys
import threading

import pytest

import pyjit
from pyjit import pickling
from pyjit.interpreter import Function, _Uncompiled, loop_named
from pyjit.ir.parser import parse_ir
from pyjit.passes.inference import optimize_for_inference
from pyjit.passes.restore_source import restore_source
from pyjit.registry import Registry, default_registry

from helpers import pickled_models as models
from helpers.subprocesses import CHECKOUT, PYJIT_HOME, checkout_env

LOOP_GRAPH = """
graph(%n : int, %x : float):
  %c : bool = prim::Constant[value=1]()
  %r : float = prim::Loop(%n, %c, %x) # f.py:3:4
    block0(%i : int, %acc : float):
      %fi : float = aten::Float(%i)
      %acc.2 : float = aten::add(%acc, %fi) # f.py:4:8
      -> (%c, %acc.2)
  return (%r)
"""


def round_trip(obj):
    return pickle.loads(pickle.dumps(obj))


@pytest.fixture(autouse=True)
def fresh_cache():
    pickling.clear_cache()
    yield
    pickling.clear_cache()


# -- Code and Function ---------------------------------------------------------------------

def test_a_function_pickles_small_and_is_compiled_at_its_first_call(loop):
    f = Function(parse_ir(LOOP_GRAPH), loop=loop)
    data = pickle.dumps(f)
    assert len(data) < 2000
    g = pickle.loads(data)
    assert type(g) is _Uncompiled and isinstance(g, Function)
    assert pickling.cache_info().misses == 1   # the Function; no Code compiled yet
    assert g(4, 0.5) == f(4, 0.5) == 6.5
    assert type(g) is Function
    assert g._loop is loop
    assert g.code.optimize == f.code.optimize
    assert g.code.dump() == f.code.dump()


def test_an_uncompiled_function_pickles_again_without_compiling():
    f = round_trip(models.mul_add)
    again = pickle.dumps(f)
    assert type(f) is _Uncompiled
    assert round_trip(f) is f   # the cache's
    assert pickle.loads(again)(6, 7) == 7


def test_a_code_pickles_as_its_graph_and_builds_the_same_table(loop):
    code = pyjit.Code(parse_ir(LOOP_GRAPH))
    back = round_trip(code)
    assert back is not code and back.optimize == code.optimize
    assert back.dump() == code.dump()
    assert str(back.graph) == str(code.graph)
    assert Function(back, loop=loop)(3, 1.0) == 4.0


def test_a_code_built_from_a_graph_it_was_handed_pickles_too():
    code = pyjit.Code(parse_ir(LOOP_GRAPH), copy=False, optimize=False)
    assert round_trip(code).dump() == code.dump()


def _standalone_codes(optimize):
    """The Codes of the corpus's graphs, and of the JIT suite's forks and
    awaitables that compile on their own (the others call functions of a unit)."""
    paths = sorted(glob.glob(os.path.join(CHECKOUT, "tests/fixtures/corpus/*.ir")))
    suite = []
    for kind in ("async", "await"):
        suite += sorted(glob.glob(os.path.join(CHECKOUT, f"tests/fixtures/jit_suite/{kind}/*.ir")))
    for path in paths + suite:
        with open(path, encoding="utf-8") as f:
            graph = parse_ir(f.read())
        try:
            code = pyjit.Code(graph, optimize=optimize)
        except pyjit.OperatorNotFoundError:
            assert path in suite, path
            continue
        yield path, graph, code


@pytest.mark.parametrize("optimize", [False, True], ids=["O0", "O1"])
def test_restoring_the_source_of_every_corpus_graph_builds_the_same_table(optimize):
    built = forks = 0
    for path, graph, code in _standalone_codes(optimize):
        restored = restore_source(code.graph, desugared=not optimize)
        # The same graph, up to the numbers of unnamed inputs (the passes renumber
        # them), as the inference passes of O1 left it (restore_source keeps them).
        if optimize:
            graph = graph.copy()
            optimize_for_inference(graph, default_registry)
        if all(v.has_debug_name() for v in graph.inputs):
            assert str(restored) == str(graph), path
        again = pyjit.Code(parse_ir(str(restored)), optimize=optimize)
        assert again.dump() == code.dump(), path
        assert [c.dump() for c in again.subcodes()] == [c.dump() for c in code.subcodes()]
        built += 1
        forks += bool(code.subcodes())
    assert built > 200 and forks > 10
def test_a_failure_after_the_round_trip_points_at_the_same_node():
    f = round_trip(models.mul_add)
    with pytest.raises(pyjit.InterpreterError) as info:
        f(1, 0)
    assert str(info.value) == ("ZeroDivisionError: division by 0\n  at model.py:3:11\n"
                               "  while running: %q : int = aten::floordiv(%p, %y) "
                               "# model.py:3:11")


def test_the_signature_travels_with_the_function():
    sf = models.collatz_steps
    runner = sf._function()
    back = round_trip(runner)
    with pytest.raises(TypeError, match=r"collatz_steps\(\) Expected a value of type 'int' "
                                        r"for argument 'n'"):
        back("x")
    assert back(27) == 111


# -- the cache -------------------------------------------------------------------------------

def test_a_worker_unpickling_the_same_function_for_every_task_compiles_it_once():
    data = pickle.dumps(models.mul_add)
    fns = [pickle.loads(data) for _ in range(50)]
    assert all(f is fns[0] for f in fns)
    assert [f(i, 2) for i, f in enumerate(fns)] == [i + 1 for i in range(50)]
    info = pickling.cache_info()
    assert (info.misses, info.hits) == (2, 49)   # the Function, its Code


def test_threads_unpickling_at_once_compile_once():
    data = pickle.dumps(pyjit.Code(parse_ir(LOOP_GRAPH)))
    barrier = threading.Barrier(8)
    codes = []

    def work():
        barrier.wait()
        codes.append(pickle.loads(data))

    threads = [threading.Thread(target=work) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert len(codes) == 8 and all(c is codes[0] for c in codes)
    assert pickling.cache_info().misses == 1


def test_the_cache_is_bounded_and_can_be_turned_off():
    pickling.set_cache_size(2)
    try:
        texts = [f"graph(%x : int):\n  %c : int = prim::Constant[value={i}]()\n"
                 f"  %y : int = aten::add(%x, %c)\n  return (%y)\n" for i in range(4)]
        for text in texts:
            assert round_trip(pyjit.Code(parse_ir(text))) is not None
        assert pickling.cache_info().size == 2
        pickling.set_cache_size(0)
        data = pickle.dumps(pyjit.Code(parse_ir(texts[0])))
        assert pickle.loads(data) is not pickle.loads(data)
        with pytest.raises(ValueError, match="the cache size is an int >= 0"):
            pickling.set_cache_size(-1)
    finally:
        pickling.set_cache_size(64)


# -- units ----------------------------------------------------------------------------------

UNIT = {
    "helper": """
graph(%x : int):
  %two : int = prim::Constant[value=2]()
  %y : int = aten::mul(%x, %two)
  return (%y)
""",
    "f": """
graph(%x : int):
  %name : Function = prim::Constant[name="helper"]()
  %y : int = prim::CallFunction(%name, %x)
  %one : int = prim::Constant[value=1]()
  %z : int = aten::add(%y, %one)
  return (%z)
""",
}
METHOD = """
graph(%self : __torch__.M, %x : int):
  %k : int = prim::GetAttr[name="k"](%self)
  %y : int = aten::mul(%x, %k)
  return (%y)
"""


class Obj:
    def __init__(self, k):
        self.k = k


def test_a_unit_pickles_as_its_graphs_and_compiles_on_demand(loop):
    unit = pyjit.CompilationUnit(UNIT, methods={"__torch__.M": {"forward": METHOD}})
    assert unit.f(4) == 9
    back = round_trip(unit)
    assert back is not unit and back._codes == {}
    assert back.f(4) == 9 and back.helper(5) == 10
    assert back.method("__torch__.M", "forward", loop=loop)(Obj(3), 5) == 15
    assert round_trip(unit) is back   # the same content: the cache's unit


def test_a_unit_function_and_its_code_pickle_as_the_unit_and_a_name():
    unit = pyjit.CompilationUnit(UNIT)
    f = unit.function("f")
    back = round_trip(f)
    assert back(10) == 21
    code = round_trip(unit.code("helper"))
    assert code.name == "helper" and code.unit is back.code.unit
    assert Function(code)(4) == 8


FORKS_IN_A_UNIT = """
graph(%x : int):
  %f : Future[int] = prim::fork_0(%x)
  %y : int = aten::wait(%f)
  return (%y)
with prim::fork_0 = graph(%a : int):
  %name : Function = prim::Constant[name="helper"]()
  %b : int = prim::CallFunction(%name, %a)
  return (%b)
"""


def test_a_forks_subgraph_in_a_unit_pickles_with_its_unit(loop):
    unit = pyjit.CompilationUnit({**UNIT, "forks": FORKS_IN_A_UNIT})
    code = unit.code("forks")
    (sub,) = code.subcodes()
    back = round_trip(sub)
    assert back.unit is round_trip(unit) and back.dump() == sub.dump()
    assert Function(back, loop=loop)(21) == 42
    assert round_trip(unit.function("forks"))(5) == 10


# -- registries ------------------------------------------------------------------------------

def _triple(x):
    return 3 * x


MY_OPS = Registry()
MY_OPS.register("test_pickling::triple", _triple, types=["int"])
TRIPLE = """
graph(%x : int):
  %y : int = test_pickling::triple(%x)
  return (%y)
"""


def test_a_custom_registry_travels_by_the_name_it_was_given():
    f = Function(parse_ir(TRIPLE), registry=MY_OPS)
    with pytest.raises(pickle.PicklingError, match=r"cannot pickle <pyjit Code: .*custom "
                       r"Registry.*register_registry\(name, registry\)"):
        pickle.dumps(f)
    pickling.register_registry("tests.test_pickling.MY_OPS", MY_OPS)
    try:
        back = round_trip(f)
        assert back(5) == 15 and back.code.registry is MY_OPS
        with pytest.raises(ValueError, match="a different registry"):
            pickling.register_registry("tests.test_pickling.MY_OPS", Registry())
        data = pickle.dumps(f)
    finally:
        del pickling._registries["tests.test_pickling.MY_OPS"]
    pickling.clear_cache()
    with pytest.raises(LookupError, match="the pickle names the registry "
                                          "'tests.test_pickling.MY_OPS', which this process"):
        pickle.loads(data)(5)


def test_the_compiled_loop_by_name_needs_it_built():
    with pytest.raises(ValueError, match="'pyjit._fast' is not one of pyjit's loops"):
        loop_named("pyjit._fast")


# -- script functions --------------------------------------------------------------------------

def test_an_importable_script_function_pickles_by_reference():
    assert round_trip(models.steps_all) is models.steps_all
    assert round_trip(models.steps_all)([6, 7]) == [8, 16]
    # Scripted beside its function (which other tests script too): one made from it.
    back = round_trip(models.collatz_steps)
    assert back.function is models.collatz_steps.function and back(27) == 111
    # A decorated function is found where the decorator left the ScriptFunction.
    assert models.steps_all.function.__qualname__ == "steps_all.function"
    assert models.steps_all.__qualname__ == "steps_all"
    # One scripted beside the function keeps its name.
    assert models.collatz_steps.function.__qualname__ == "collatz_steps"


SCRIPT_MAIN = '''
import sys, pyjit, cloudpickle
OFFSET = 10

@pyjit.script
def shifted(xs: list[int]) -> list[int]:
    return [x + OFFSET for x in xs]

if __name__ == "__main__":
    sys.stdout.buffer.write(cloudpickle.dumps(shifted))
'''

LOAD = '''
import pickle, sys
f = pickle.loads(sys.stdin.buffer.read())
print(f([1, 2]), f.__qualname__, f.graph.nodes().front().source_location)
try:
    f("no")
except TypeError as e:
    print(str(e).splitlines()[0])
'''


def test_an_interactive_script_function_pickles_by_value_under_cloudpickle(tmp_path):
    pytest.importorskip("cloudpickle")
    script = tmp_path / "interactive.py"
    script.write_text(SCRIPT_MAIN)
    data = subprocess.run([sys.executable, str(script)], check=True, capture_output=True,
                          env=checkout_env(), timeout=120).stdout
    script.unlink()   # the other side reads the source from the pickle
    out = subprocess.run([sys.executable, "-c", LOAD], input=data, check=True,
                         capture_output=True, env=checkout_env(), timeout=120).stdout.decode()
    lines = out.splitlines()
    assert lines[0] == f"[11, 12] shifted {script}:7:11"
    assert lines[1] == ("shifted() Expected a value of type 'int[]' for argument 'xs' but "
                        "instead found type 'str' ('no')")


def test_a_method_of_a_scripted_class_pickles_as_its_class_attribute():
    method = round_trip(Counter.bump)
    assert method is Counter.bump


@pyjit.script
class Counter:
    def __init__(self, start: int):
        self.count = start

    def bump(self, by: int) -> int:
        self.count += by
        return self.count


# -- dask tokens ------------------------------------------------------------------------------

TOKEN = '''
import pyjit, pickle, sys
from helpers import pickled_models as m
print(m.mul_add.__dask_tokenize__())
print(m.forking.__dask_tokenize__())
print(m.collatz_steps.__dask_tokenize__())
print(pickle.loads(pickle.dumps(m.mul_add)).__dask_tokenize__())
'''


def test_dask_tokens_are_the_same_in_another_process_and_differ_by_content():
    mine = [models.mul_add.__dask_tokenize__(), models.forking.__dask_tokenize__(),
            models.collatz_steps.__dask_tokenize__()]
    env = checkout_env()
    env["PYTHONPATH"] = os.pathsep.join([str(CHECKOUT / "tests"), env["PYTHONPATH"]])
    # Not in the working directory, whose pyjit/ (an unpacked sdist's source tree,
    # without the compiled loop) `python -c` would import ahead of PYTHONPATH.
    out = subprocess.run([sys.executable, "-c", TOKEN], check=True, capture_output=True,
                         text=True, env=env, timeout=120, cwd=str(PYJIT_HOME)).stdout.split()
    assert out == mine + [mine[0]]
    assert len(set(mine)) == 3
    other = Function(parse_ir(models.MUL_ADD.replace("value=1", "value=2")))
    assert other.__dask_tokenize__() != mine[0]
    unit = pyjit.CompilationUnit(UNIT)
    assert unit.__dask_tokenize__() == round_trip(unit).__dask_tokenize__()


# -- errors -------------------------------------------------------------------------------------

def _error_of(fn, *args):
    try:
        fn(*args)
    except Exception as exc:
        return exc
    raise AssertionError("no error")


def test_a_located_error_pickles_whole_with_its_cause():
    err = _error_of(models.mul_add, 1, 0)
    back = round_trip(err)
    assert type(back) is pyjit.InterpreterError and str(back) == str(err)
    assert back.node == err.node and back.location == err.location
    assert back.frames == err.frames
    assert type(back.__cause__) is ZeroDivisionError


RAISING = """
graph(%x : int):
  %msg : str = prim::Constant[value="too big"]()
  %cls : str = prim::Constant[value="builtins.ValueError"]()
   = prim::RaiseException(%msg, %cls) # r.py:2:4
  return (%x)
"""


def test_errors_of_every_kind_pickle_with_their_attributes():
    jit = _error_of(Function(parse_ir(RAISING)), 1)
    back = round_trip(jit)
    assert type(back) is pyjit.JITException
    assert (back.msg, back.python_class, str(back)) == (jit.msg, jit.python_class, str(jit))
    parse = _error_of(parse_ir, "graph(%x : int):\n  return (%y)\n")
    back = round_trip(parse)
    assert type(back) is pyjit.ParseError and str(back) == str(parse)
    assert (back.line, back.col, back.message) == (parse.line, parse.col, parse.message)
    compile_error = pyjit.CompileError("unsupported", 3, 4, file="x.py", line_text="  y = z")
    back = round_trip(compile_error)
    assert (str(back), back.file, back.line_text) == (str(compile_error), "x.py", "  y = z")
    missing = _error_of(pyjit.Code, parse_ir("graph(%x : int):\n"
                                             "  %y : int = nope::op(%x)\n  return (%y)\n"))
    assert type(round_trip(missing)) is pyjit.OperatorNotFoundError


class Unpicklable(Exception):
    def __reduce__(self):
        raise TypeError("no")


def test_a_cause_that_cannot_be_pickled_is_described_instead():
    err = pyjit.InterpreterError("it failed", node="%y = f(%x)")
    err.__cause__ = Unpicklable("deep")
    # dask.distributed, once imported, installs tblib's pickling of every exception
    # process-wide (copyreg), which takes precedence over __reduce__: pyjit's own
    # pickling is tested with a dispatch table of none.
    buf = io.BytesIO()
    pickler = pickle.Pickler(buf)
    pickler.dispatch_table = {}
    pickler.dump(err)
    back = pickle.loads(buf.getvalue())
    assert type(back.__cause__) is RuntimeError and str(back.__cause__) == "Unpicklable: deep"


# -- what cannot cross ------------------------------------------------------------------------

def test_futures_and_awaits_refuse_to_be_pickled_and_say_why():
    with pytest.raises(TypeError, match="a pyjit.Future cannot be pickled: a run or a thread "
                                        "of this process completes it"):
        pickle.dumps(pyjit.Future())
    from pyjit.futures import Await
    with pytest.raises(TypeError, match="a pyjit.Await cannot be pickled"):
        pickle.dumps(Await(value=3))
    with pytest.raises(TypeError, match="an InterpreterState cannot be pickled: it is one "
                                        "run, with its registers, in this process"):
        pickle.dumps(pyjit.InterpreterState(models.forking))
