"""pyjit.load: archives torch.jit.save wrote (tests/fixtures/archives, made by
tools/archives/make_archives.py) load and run on both loops with torch's results,
in order on one module (so mutated attributes carry over between calls); the
raising paths raise torch's message."""

import json
import re
import struct
import os
import subprocess
import sys
import zipfile
import io

import numpy as np
import pytest

import pyjit
from pyjit.registry import default_registry
from helpers.archive_cases import HERE, NAMES, assert_close, decode
from helpers.subprocesses import CHECKOUT, checkout_env

@pytest.mark.parametrize("name", NAMES)
def test_archive_runs_as_torch(name, loop):
    with open(os.path.join(HERE, f"{name}.json")) as f:
        case = json.load(f)
    calls = case["calls"]
    missing = [k for k in case["needs"] if not default_registry.overloads(k)]
    if missing:
        pytest.skip(f"needs {', '.join(missing)}, which this pyjit's library lacks")
    m = pyjit.load(os.path.join(HERE, f"{name}.pt"), loop=loop)
    for i, call in enumerate(calls):
        method = getattr(m, call["method"])
        args = decode(call["args"])
        where = f"{name} call {i} ({call['method']})"
        if "error" in call:
            with pytest.raises(pyjit.JITException) as info:
                method(*args)
            assert call["error"].split(": ", 1)[1] in str(info.value), where
        else:
            assert_close(method(*args), decode(call["result"]), where)


# -- what the archive holds, beside its code ---------------------------------------------------
def test_attributes_state_dict_code_and_graph():
    m = pyjit.load(os.path.join(HERE, "containers.pt"))
    assert sorted(m.state_dict()) == ["buf", "layers.0.bias", "layers.0.weight",
                                      "layers.1.bias", "layers.1.weight", "sub.lin.bias",
                                      "sub.lin.weight"]
    assert m.sub.lin.weight.dtype == np.float32 and m.sub.lin.weight.shape == (3, 4)
    assert m.count == 0 and m.opt is None and m.sub.scale == 2.0
    assert m.sub.lin.in_features == 4                   # a Final constant of the class
    m(np.ones((1, 4), np.float32))
    assert m.count == 1                                 # prim::SetAttr on the object
    assert 'prim::CallMethod[name="helper"]' in str(m.graph)
    assert "prim::CallMethod[__torch__.archive_programs.Containers.helper]" in str(m.code)
    with open(os.path.join(HERE, "containers.pt"), "rb") as f:   # a file object works too
        assert pyjit.load(f).count == 0


def _rewrite(name, replace):
    """The archive ``name`` with some parts replaced: ``replace(part, bytes) -> bytes``."""
    out = io.BytesIO()
    with zipfile.ZipFile(os.path.join(HERE, f"{name}.pt")) as src, \
            zipfile.ZipFile(out, "w") as dst:
        for info in src.infolist():
            dst.writestr(info.filename, replace(info.filename, src.read(info.filename)))
    out.seek(0)
    return out


def test_a_pickle_naming_another_global_is_refused_and_nothing_runs(tmp_path):
    import pickle

    flag = tmp_path / "ran"

    class Evil:
        def __reduce__(self):
            return (os.system, (f"touch {flag}",))

    evil = pickle.dumps(Evil(), protocol=2)
    archive = _rewrite("sequential", lambda part, data: evil if part.endswith("/data.pkl")
                       else data)
    with pytest.raises(pyjit.ArchiveError, match=r"data.pkl names the global (posix|os)\.system,"
                       r" which a TorchScript archive never holds: refused"):
        pyjit.load(archive)
    assert not flag.exists()

    builtins_eval = b"\x80\x02cbuiltins\neval\nX\x08\x00\x00\x00print(1)\x85R."
    archive = _rewrite("sequential", lambda part, data: builtins_eval
                       if part.endswith("/constants.pkl") else data)
    with pytest.raises(pyjit.ArchiveError, match=r"constants.pkl names the global builtins.eval"):
        pyjit.load(archive)


def test_format_versions():
    # torch writes version 3 for most modules, in the older place (version), and
    # from version 6 on .data/version (functional.pt: 10, for gelu's approximate
    # argument): both load, and run (test_archive_runs_as_torch).
    def record(name):
        with zipfile.ZipFile(os.path.join(HERE, f"{name}.pt")) as z:
            return [(n.split("/", 1)[1], z.read(n).strip()) for n in z.namelist()
                    if n.endswith("version")]
    assert record("containers") == [("version", b"3")]
    assert record("functional") == [(".data/version", b"10")]
    assert pyjit.load(os.path.join(HERE, "functional.pt"))._program.version == 10
    unknown = _rewrite("containers", lambda part, data: b"11\n" if part.endswith("version")
                       else data)
    with pytest.raises(pyjit.ArchiveError, match=r"file format version 11 is not supported "
                       r"\(pyjit reads versions 3 to 10"):
        pyjit.load(unknown)
    old = _rewrite("containers", lambda part, data: b"2\n" if part.endswith("version") else data)
    with pytest.raises(pyjit.ArchiveError, match="version 2 is not supported"):
        pyjit.load(old)


def test_not_an_archive(tmp_path):
    p = tmp_path / "x.pt"
    p.write_bytes(b"not a zip")
    with pytest.raises(pyjit.ArchiveError, match=r"x.pt is not a torch.jit.save archive"):
        pyjit.load(str(p))
    with pytest.raises(pyjit.ArchiveError, match=r"cannot read .*missing.pt"):
        pyjit.load(str(tmp_path / "missing.pt"))


def test_a_tensor_reaching_past_its_storage_is_refused():
    def shrink(part, data):
        return data[:4] if part.endswith("/data/1") else data
    with pytest.raises(pyjit.ArchiveError, match=r"reaches past its storage"):
        pyjit.load(_rewrite("containers", shrink))


def test_compile_errors_point_at_the_archive_code():
    def break_code(part, data):
        if part.endswith("code/__torch__/archive_programs.py"):
            return data.replace(b"torch.relu(", b"torch.no_such_op(")
        return data
    m = pyjit.load(_rewrite("containers", break_code))
    with pytest.raises(pyjit.CompileError, match=r"code/__torch__/archive_programs.py:\d+:\d+: "
                       r"unknown operator aten::no_such_op"):
        m(np.ones((1, 4), np.float32))


def test_torch_is_never_imported():
    script = (
        "import sys, numpy as np, pyjit\n"
        f"m = pyjit.load({os.path.join(HERE, 'cnn.pt')!r})\n"
        "y = m(np.zeros((1, 3, 12, 12), np.float32))\n"
        "assert y.shape == (1, 10), y.shape\n"
        "print('torch' in sys.modules)\n")
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         env=checkout_env(), cwd=str(CHECKOUT), timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "False"


def test_cli_runs_and_dumps_archives(tmp_path, capsys):
    from pyjit.cli import main
    assert main(["run", os.path.join(HERE, "int_math.pt"), "17", "5"]) == 0
    assert capsys.readouterr().out.splitlines() == ["3", "2", "12", "3.4", "True"]
    x = tmp_path / "x.npy"
    np.save(x, np.full((3,), 50.0, np.float32))
    assert main(["run", "--method", "helper", os.path.join(HERE, "containers.pt"),
                 str(x)]) == 1
    assert "builtins.ValueError: too big" in capsys.readouterr().err
    assert main(["run", "--method", "nope", os.path.join(HERE, "containers.pt")]) == 1
    assert "the module has no method 'nope'" in capsys.readouterr().err
    assert main(["dump", os.path.join(HERE, "containers.pt")]) == 0
    headers = [line for line in capsys.readouterr().out.splitlines() if line.startswith("# ")]
    assert headers[:2] == ["# __torch__.archive_programs.Containers.forward",
                           "# __torch__.archive_programs.Containers.helper"]
    assert "# __torch__.torch.nn.functional.relu" in headers


# -- locations from the debug records --------------------------------------------------------
PROGRAMS = os.path.join(CHECKOUT, "tools", "archives", "archive_programs.py")


def _line_of(text):
    with open(PROGRAMS) as f:
        return next(i for i, line in enumerate(f, 1) if text in line)


def test_run_time_errors_name_the_users_source_line():
    m = pyjit.load(os.path.join(HERE, "raising.pt"))
    with pytest.raises(pyjit.JITException) as info:
        m(np.array([-1.0], np.float32), "sqrt")
    text = str(info.value)
    raise_line = _line_of('raise RuntimeError("negative input")')
    call_line = _line_of("return torch.sqrt(self.check(x))")
    assert f"archive_programs.py:{raise_line}:12, in __torch__.archive_programs.Raising.check" \
        in text
    assert f"archive_programs.py:{call_line}:30, in __torch__.archive_programs.Raising.forward" \
        in text
    assert 'raise RuntimeError("negative input")\n' in text


def test_the_saved_source_is_shown_when_the_file_is_elsewhere():
    def move(part, data):
        # The debug pickle names torch's own globals (torch.jit._pickle), so it
        # cannot be loaded here, where torch may be missing: its file name is
        # replaced in the bytes, a protocol-2 string (BINUNICODE: "X", a 4-byte
        # length, the UTF-8), which no frame or offset elsewhere depends on.
        if part.endswith("archive_programs.py.debug_pkl"):
            assert data[:2] == b"\x80\x02"
            (path,) = set(re.findall(rb"[\w/.\-]*archive_programs\.py", data))
            new = b"/elsewhere/user_model.py"
            before = b"X" + struct.pack("<I", len(path)) + path
            assert data.count(before) == 1
            return data.replace(before, b"X" + struct.pack("<I", len(new)) + new)
        return data
    m = pyjit.load(_rewrite("raising", move))
    with pytest.raises(pyjit.JITException) as info:
        m(np.array([1.0], np.float32), "cube")
    line = _line_of('raise ValueError("unknown mode " + mode)')
    assert f"/elsewhere/user_model.py:{line}:8" in str(info.value)
    assert '        raise ValueError("unknown mode " + mode)\n            ^' in str(info.value)


def test_a_version_3_archive_divides_integers_as_torch_did():
    # division_v3.pt is division.pt with version record 3: torch.div of integer
    # tensors then rounded toward zero, and torch reads it so (its upgrader).
    a, b = np.array([7, -7, 5]), np.array([2, 2, 3])
    new = pyjit.load(os.path.join(HERE, "division.pt"))(a, b, 2, 2.0)
    old = pyjit.load(os.path.join(HERE, "division_v3.pt"))(a, b, 2, 2.0)
    assert new[0].tolist() == pytest.approx([3.5, -3.5, 5 / 3]) and new[0].dtype == np.float32
    assert old[0].tolist() == [3, -3, 1] and old[0].dtype == np.int64
    assert old[1].tolist() == [3, -3, 2] and old[3].dtype == np.float32
    graph = str(pyjit.load(os.path.join(HERE, "division_v3.pt")).graph)
    assert graph.count("aten::is_floating_point") == 4 and graph.count('value="trunc"') == 4


def test_packed_recurrence_runs_each_sequence_to_its_own_end():
    # The .data (PackedSequence) form of the recurrent kernels, which the padded
    # fixtures do not reach: each sequence's outputs and final state are those
    # of the padded form run on that sequence alone.
    from pyjit.ops.nn_recurrent import _packed, _padded
    rng = np.random.default_rng(0)
    lengths = [4, 3, 1]
    seqs = [rng.standard_normal((n, 3)).astype(np.float32) for n in lengths]
    params = [rng.standard_normal(s).astype(np.float32)
              for s in [(16, 3), (16, 4), (16,), (16,), (16, 3), (16, 4), (16,), (16,)]]
    h0 = rng.standard_normal((2, 3, 4)).astype(np.float32)
    c0 = rng.standard_normal((2, 3, 4)).astype(np.float32)
    sizes = np.array([sum(n > t for n in lengths) for t in range(max(lengths))])
    data = np.concatenate([np.stack([s[t] for s in seqs if len(s) > t])
                           for t in range(max(lengths))])
    out, h, c = _packed("lstm")(data, sizes, [h0, c0], params, True, 1, 0.0, False, True)
    rows = np.cumsum([0] + list(sizes))
    for b, s in enumerate(seqs):
        alone = _padded("lstm")(s[:, None], [h0[:, b:b + 1], c0[:, b:b + 1]], params, True, 1,
                                0.0, False, True, False)
        np.testing.assert_allclose(np.stack([out[rows[t] + b] for t in range(len(s))]),
                                   alone[0][:, 0], rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(h[:, b], alone[1][:, 0], rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(c[:, b], alone[2][:, 0], rtol=1e-5, atol=1e-6)


def test_keywords_defaults_and_objects_held_as_attributes():
    m = pyjit.load(os.path.join(HERE, "object_attributes.pt"))
    x = np.ones((3, 2), np.float32)
    y, n = m(x)                           # scale=2.0, the serialized default
    y2, n2 = m(x, scale=0.5)
    np.testing.assert_allclose(y2 * 4, y, rtol=1e-6)
    assert (n, n2) == (6, 7)
    stats = m.inner.stats                 # a scripted class's object, from data.pkl
    assert stats.n == 7 and stats.seen == [6.0, 6.0]
    assert m.inner.k == (2, 3) and m.proj is None
    with pytest.raises(TypeError, match=r"Outer.forward\(\) got an unexpected keyword "
                       r"argument 'bias'"):
        m(x, bias=1.0)
    with pytest.raises(TypeError, match=r"missing required argument 'x'"):
        m()


def test_devices_named_in_code_and_attributes(loop):
    # torch.device("cpu") in serialized code, and a Device attribute of data.pkl
    # (torch.device in the pickle's allow-list): both are the device's text.
    graph = pyjit.parse_ir('graph(%s : str, %i : int):\n'
                           '  %d : Device = aten::device(%s)\n'
                           '  %e : Device = aten::device(%s, %i)\n'
                           '  %t : (Device, Device) = prim::TupleConstruct(%d, %e)\n'
                           '  return (%t)\n')
    f = pyjit.Function(graph, loop=loop)
    assert f("cpu", 0) == ("cpu", "cpu:0")
    with pytest.raises(pyjit.InterpreterError, match="Invalid device string: 'cpu 0'"):
        f("cpu 0", 0)
    from pyjit.archive.unpickler import ArchiveUnpickler
    data = b"\x80\x02ctorch\ndevice\nX\x04\x00\x00\x00cuda\x85R."
    assert ArchiveUnpickler(data, "data.pkl", None, None).load() == "cuda"
