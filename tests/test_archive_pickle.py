"""Loaded models pickle (pyjit/archive/pickling.py): as an archive of their code
and current state, read back by the archive loader, on the same loop."""

from __future__ import annotations

import concurrent.futures
import json
import multiprocessing
import os
import pickle

import numpy as np
import pytest

import pyjit

from helpers.archive_cases import HERE, NAMES, assert_close, call_model, decode
from helpers.crafted import MODULE_CODE, archive, module_state, tensor


def _calls(name):
    with open(os.path.join(HERE, f"{name}.json")) as f:
        return json.load(f)["calls"]


@pytest.mark.parametrize("name", NAMES)
def test_every_fixture_round_trips_with_torchs_results(name, loop):
    path = os.path.join(HERE, f"{name}.pt")
    m = pickle.loads(pickle.dumps(pyjit.load(path, loop=loop)))
    assert type(m)._loop is loop
    for i, call in enumerate(_calls(name)):
        method = getattr(m, call["method"])
        where = f"{name} call {i} ({call['method']}), unpickled"
        if "error" in call:
            with pytest.raises(pyjit.JITException) as info:
                method(*decode(call["args"]))
            assert call["error"].split(": ", 1)[1] in str(info.value), where
        else:
            assert_close(method(*decode(call["args"])), decode(call["result"]), where)
    blob = pickle.dumps(m)
    assert len(blob) <= 1.2 * os.path.getsize(path) + 65536


def test_the_current_state_travels():
    m = pyjit.load(os.path.join(HERE, "containers.pt"))
    m(np.ones((1, 4), np.float32))
    m.sub.lin.weight[0, 0] = 42.0            # in place, in a view of a storage
    m2 = pickle.loads(pickle.dumps(m))
    assert m2.count == 1 and m2.sub.lin.weight[0, 0] == 42.0
    assert sorted(m2.state_dict()) == sorted(m.state_dict())
    m2(np.ones((1, 4), np.float32))
    assert (m.count, m2.count) == (1, 2)      # two objects from then on


def test_views_of_one_storage_and_shared_objects_stay_shared():
    code = MODULE_CODE.replace("  n : int\n", "  n : int\n  t : Tensor\n  u : Tensor\n")
    data = module_state(t=tensor("FloatStorage", "0", 4, (2, 2), (2, 1)),
                        u=tensor("FloatStorage", "0", 4, (2,), (1,), offset=2))
    m = pyjit.load(archive({"data/0": np.arange(4, dtype="<f4").tobytes()}, code=code,
                           data=data))
    m2 = pickle.loads(pickle.dumps(m))
    m2.u[0] = 30
    assert m2.t.tolist() == [[0, 1], [30, 3]] and m.t.tolist() == [[0, 1], [2, 3]]
    m.t = np.full((3,), 7, np.float32)        # a tensor of no storage: one of its own
    assert pickle.loads(pickle.dumps(m)).t.tolist() == [7, 7, 7]
    m.t = np.array(2.5, np.float32)           # 0-dim, as a run leaves a counter
    t = pickle.loads(pickle.dumps(m)).t
    assert t.shape == () and t.dtype == np.float32 and t == 2.5


def test_a_method_pickles_with_its_module(loop):
    m = pyjit.load(os.path.join(HERE, "int_math.pt"), loop=loop)
    forward = pickle.loads(pickle.dumps(m.forward))
    assert forward(7, 2) == m.forward(7, 2) == (3, 1, 5, 3.5, True)


def test_one_unpickled_code_is_compiled_once_and_the_objects_are_apart():
    blob = pickle.dumps(pyjit.load(os.path.join(HERE, "int_math.pt")))
    a, b = pickle.loads(blob), pickle.loads(blob)
    assert type(a)._program is type(b)._program and a is not b
    assert a(7, 2) == b(7, 2)
    assert a.forward.function() is b.forward.function()     # compiled once
    c = pyjit.load(os.path.join(HERE, "int_math.pt"))        # a load shares nothing
    assert type(c)._program is not type(a)._program


def test_what_an_archive_cannot_hold_does_not_pickle():
    code = MODULE_CODE.replace("  n : int\n", "  n : int\n  a : Any\n")
    m = pyjit.load(archive(code=code, data=module_state(a=None)))
    m.a = object()
    with pytest.raises(pickle.PicklingError, match="an archive holds no object"):
        pickle.dumps(m)


def test_a_process_pool_runs_a_loaded_model():
    m = pyjit.load(os.path.join(HERE, "sequential.pt"))
    call = _calls("sequential")[0]
    x = decode(call["args"])[0]
    ctx = multiprocessing.get_context("spawn")
    with concurrent.futures.ProcessPoolExecutor(2, mp_context=ctx) as pool:
        outs = list(pool.map(call_model, [(m, x), (m, x * 2)], timeout=120))
    assert_close(outs[0], decode(call["result"]), "sequential in a worker")
    assert_close(outs[1], m(x * 2), "sequential in a worker, doubled")
