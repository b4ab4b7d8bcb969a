"""pyjit.load on archives made to attack it (docs/security.md): one test per
weakness found, each with the archive that exploited it, and a fuzz test that
mutates the fixtures.  The promise: loading and running an archive executes
nothing but its own TorchScript on pyjit's operators, reads no file but the
archive, uses memory in proportion to the file, and fails with an ArchiveError
(an ArchiveCompileError for code)."""

from __future__ import annotations

import io
import linecache
import os
import struct
import time
import tracemalloc
import zipfile

import numpy as np
import pytest

import pyjit
from pyjit.archive import Limits
from pyjit.errors import ArchiveCompileError, ArchiveError, CompileError, PyjitError

from helpers.audit import watch
from helpers.crafted import (MODULE_CODE, Call, Global, Obj, Raw, archive,
                             module_state, pickled, tensor)

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures", "archives")


def peak_memory(fn):
    """``fn()``'s result and the peak of the memory it allocated, in bytes."""
    tracemalloc.start()
    try:
        out = fn()
        return out, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def loads(data: io.BytesIO, **kw):
    data.seek(0)
    return pyjit.load(data, **kw)


def with_code(extra: str) -> str:
    return MODULE_CODE + extra


# -- 1. no code runs: objects are records of declared attributes ----------------------------------
@pytest.mark.parametrize("declaration, problem", [
    ('  __annotations__["__class__"] = int\n', "'__class__' is not a TorchScript attribute"),
    ('  __annotations__["a.b"] = int\n', "'a.b' is not a TorchScript attribute name"),
    ("  __dict__ : Dict[str, str]\n", "'__dict__' is not a TorchScript attribute name"),
    ("  n : float\n", "'n' is declared twice"),
    ("  forward : int\n", "'forward' is an attribute and a method"),
])
def test_a_class_declares_only_torchscript_attribute_names(declaration, problem):
    code = MODULE_CODE.replace("  n : int\n", "  n : int\n" + declaration)
    if "forward : int" in declaration:
        code = MODULE_CODE.replace("  training : bool\n", "  training : bool\n" + declaration)
    with pytest.raises(ArchiveCompileError, match=problem) as info:
        loads(archive(code=code))
    assert isinstance(info.value, ArchiveError) and isinstance(info.value, CompileError)
    assert str(info.value).startswith("code/__torch__.py:")


def test_getattr_in_graphs_never_reaches_python_attributes(loop):
    # IR text is untrusted too: a dunder or dotted attribute name is refused when
    # the Code is built, before anything runs.
    for name in ("__class__", "__class__.__init__.__globals__", "a.b"):
        g = pyjit.parse_ir(f'graph(%x : int):\n  %c : Any = prim::GetAttr[name="{name}"](%x)\n'
                           "  return (%c)\n")
        with pytest.raises(PyjitError, match="is not a TorchScript attribute name"):
            pyjit.Function(g, loop=loop)
        g = pyjit.parse_ir(f'graph(%x : int, %v : int):\n   = prim::SetAttr[name="{name}"](%x, %v)\n'
                           "  return (%v)\n")
        with pytest.raises(PyjitError, match="is not a TorchScript attribute name"):
            pyjit.Function(g, loop=loop)


CAST_A_MODULE = """\
  def as_dict(self: __torch__.M) -> str:
    d = unchecked_cast(Dict[str, str], self)
    return d["x"]
"""


def test_a_cast_to_a_type_the_value_does_not_have_is_an_error(loop):
    m = loads(archive(code=with_code(CAST_A_MODULE)), loop=loop)
    with pytest.raises(pyjit.InterpreterError, match=r"unchecked_cast of a __torch__.M object "
                       r"to Dict\(str, str\): the value is not of that type"):
        m.as_dict()


SET_CLASS_GETITEM = """\
  def attack(self: __torch__.M) -> int:
    self.__class_getitem__ = 1
    return 0
"""


def test_an_archive_sets_only_declared_attributes():
    with pytest.raises(ArchiveCompileError, match="__torch__.M has no attribute "
                       "'__class_getitem__' to assign"):
        loads(archive(code=with_code(SET_CLASS_GETITEM))).attack()
    m = loads(archive())
    with pytest.raises(AttributeError, match="has no attribute 'forwardx' to set"):
        m.forwardx = 1
    with pytest.raises(TypeError, match="attribute 'n' of __torch__.M is a int, not a str"):
        m.n = "three"
    m.n = 10
    assert m(1) == 11


KEYS_METHOD = """\
  def keys(self: __torch__.M) -> List[str]:
    ops.prim.RaiseException("keys ran", "builtins.RuntimeError")
    return ["n"]
"""


def test_unpickling_calls_no_method_of_what_it_built():
    # collections.OrderedDict(<the module>) made CPython call module.keys(), a
    # method compiled from the archive, while pyjit.load was still loading.
    data = Call(Global("collections", "OrderedDict"), (module_state(),))
    with pytest.raises(ArchiveError, match="OrderedDict is called with something other "
                       "than a list of pairs"):
        loads(archive(code=with_code(KEYS_METHOD), data=data))
    # What torch writes is still read: no arguments, or a list of pairs.
    ok = Obj(Global("__torch__", "M"), Call(Global("collections", "OrderedDict"),
                                           ([("training", False), ("n", 5)],)))
    assert loads(archive(code=with_code(KEYS_METHOD), data=ok))(1) == 6
    m = loads(archive(code=with_code(KEYS_METHOD)))
    assert not hasattr(type(m), "keys") and list(dict.fromkeys(["a"])) == ["a"]
    with pytest.raises(pyjit.JITException, match="keys ran"):   # only when called
        m.keys()


@pytest.mark.parametrize("data, problem", [
    # BUILD on a global the unpickler maps (the way _device.__defaults__ was set)
    (Call(Global("torch", "device"), ("cpu",)), None),
    (Raw(b"ctorch\ndevice\n}(X\x0c\x00\x00\x00__defaults__(K\x07tub"),
     "BUILD on a function device"),
    # a second BUILD of an object, and a BUILD of slot state
    (Raw(pickled(module_state())[2:-1] + b"}b"), "BUILD on a __torch__.M object"),
    (Raw(b"c__torch__\nM\n)\x81(}}tb"), "BUILD of __torch__.M with a tuple"),
    # an instance entry that shadows forward
    (module_state(forward=1), "sets attribute 'forward', which its class does not declare"),
    (module_state(__dict__={}), "sets attribute '__dict__', which its class does not"),
    # objects Python's pickle would make
    (Raw(b"(c__torch__\nM\no"), "opcode OBJ"),
    (Raw(b"(i__torch__\nM\n"), "opcode INST"),
    (Raw(b"\x82\x01"), "opcode EXT1"),
    (Raw(b"c__torch__\nM\n)}\x92"), "opcode NEWOBJ_EX"),
    (Call(Global("__torch__", "M"), ()), "REDUCE calls a class __torch__.M"),
    (Call(Global("builtins", "getattr"), ()), "names the global builtins.getattr"),
    (Call(Global("torch.jit._pickle", "build_intlist"), (module_state(),)),
     "build_intlist is called with something other than a list of int"),
    (Call(Global("torch.jit._pickle", "restore_type_tag"), (module_state(), "int")),
     "restore_type_tag is called with something other"),
])
def test_the_pickle_machine_builds_only_what_torch_writes(data, problem):
    if problem is None:
        with pytest.raises(ArchiveError, match="data.pkl holds a str, not a module"):
            loads(archive(data=data))
        return
    with pytest.raises(ArchiveError, match=problem):
        loads(archive(data=pickled(data)))


def test_one_load_changes_nothing_of_another():
    # The attempt on torch.device's defaults, then a clean archive: its device
    # attribute is what it says, and the two loads share no class.
    attack = Raw(b"ctorch\ndevice\n}(X\x0c\x00\x00\x00__defaults__(K\x07tub")
    with pytest.raises(ArchiveError):
        loads(archive(data=pickled(attack)))
    code = MODULE_CODE.replace("  n : int\n", "  n : int\n  d : Device\n")
    data = module_state(d=Call(Global("torch", "device"), ("cpu",)))
    a, b = loads(archive(code=code, data=data)), loads(archive(code=code, data=data))
    assert a.d == "cpu" and type(a) is not type(b)
    a.n = 100
    assert (a(1), b(1)) == (101, 4)
    with pytest.raises(pyjit.InterpreterError, match="expected a __torch__.M object"):
        a.forward.function()(b, 1)      # another load's object is not this one's


def test_attributes_have_their_declared_types():
    for bad, problem in [({"n": "3"}, "attribute 'n' of a __torch__.M object is a str, "
                                      "not a int"),
                         ({"n": 1 << 70}, "outside int64"),
                         ({"n": [1]}, "is a list")]:
        with pytest.raises(ArchiveError, match=problem):
            loads(archive(data=pickled(module_state(**bad))))


# -- 2. no file outside the archive is read --------------------------------------------------------
def _raising_with_debug_path(path: bytes):
    """The fixture raising.pt with its debug records naming ``path``."""
    import re
    out = io.BytesIO()
    with zipfile.ZipFile(os.path.join(HERE, "raising.pt")) as src, \
            zipfile.ZipFile(out, "w") as dst:
        for info in src.infolist():
            data = src.read(info.filename)
            if info.filename.endswith("archive_programs.py.debug_pkl"):
                (old,) = set(re.findall(rb"[\w/.\-]*archive_programs\.py", data))
                before = b"X" + struct.pack("<I", len(old)) + old
                data = data.replace(before, b"X" + struct.pack("<I", len(path)) + path)
            dst.writestr(info.filename, data)
    out.seek(0)
    return out


def test_debug_records_naming_a_file_make_pyjit_read_it_never(tmp_path, loop):
    secret = tmp_path / "secret.py"
    secret.write_text("".join(f"SECRET LINE {i}\n" for i in range(1, 400)))
    before = dict(linecache.cache)
    arc = _raising_with_debug_path(str(secret).encode())
    with watch() as opened:
        m = loads(arc, loop=loop)
        with pytest.raises(pyjit.JITException) as info:
            m(np.array([-1.0], np.float32), "sqrt")
        text = str(info.value)
    assert "SECRET" not in text and str(secret) in text      # named, never read
    assert 'raise RuntimeError("negative input")' in text      # the archive's own text
    assert opened == [] and str(secret) not in linecache.cache
    assert linecache.cache == before            # and nothing else was written there


def test_loading_and_running_opens_no_file_but_the_archive(loop):
    path = os.path.join(HERE, "containers.pt")
    with watch() as opened:
        m = pyjit.load(path, loop=loop)
        m(np.ones((1, 4), np.float32))
    assert opened == [path]


# -- 3. memory and time in proportion to the file ----------------------------------------------------
def test_a_stride_0_tensor_is_a_view_of_its_one_element():
    code = MODULE_CODE.replace("  n : int\n", "  n : int\n  t : Tensor\n")
    data = module_state(t=tensor("FloatStorage", "0", 1, (10 ** 9,), (0,)))
    arc = archive({"data/0": struct.pack("<f", 2.5)}, code=code, data=data)
    m, peak = peak_memory(lambda: loads(arc))
    assert m.t.shape == (10 ** 9,) and m.t.strides == (0,) and m.t[123456789] == 2.5
    assert peak < 5_000_000
    # views of one storage share it, as torch's do
    code = code.replace("  t : Tensor\n", "  t : Tensor\n  u : Tensor\n")
    data = module_state(t=tensor("FloatStorage", "0", 4, (2, 2), (2, 1)),
                        u=tensor("FloatStorage", "0", 4, (2,), (1,), offset=2))
    arc = archive({"data/0": struct.pack("<4f", 1, 2, 3, 4)}, code=code, data=data)
    m = loads(arc)
    assert m.t.tolist() == [[1, 2], [3, 4]] and m.u.tolist() == [3, 4]
    m.u[0] = 30
    assert m.t.tolist() == [[1, 2], [30, 4]]


def test_storages_are_read_in_the_archives_byte_order_and_one_dtype():
    code = MODULE_CODE.replace("  n : int\n", "  n : int\n  t : Tensor\n  u : Tensor\n")
    data = module_state(t=tensor("FloatStorage", "0", 2, (2,), (1,)),
                        u=tensor("FloatStorage", "0", 2, (1,), (1,), offset=1))
    big = archive({"data/0": struct.pack(">2f", 1.5, -2.0), "byteorder": b"big"},
                  code=code, data=data)
    m = loads(big)
    assert m.t.tolist() == [1.5, -2.0] and m.t.dtype == np.float32 and m.u.tolist() == [-2.0]
    data = module_state(t=tensor("FloatStorage", "0", 2, (2,), (1,)),
                        u=tensor("IntStorage", "0", 2, (2,), (1,)))
    with pytest.raises(ArchiveError, match="storage 0 is read as IntStorage and as a storage "
                       "of float32"):
        loads(archive({"data/0": bytes(8)}, code=code, data=data))
    with pytest.raises(ArchiveError, match="the byteorder record holds 'middle'"):
        loads(archive({"byteorder": b"middle"}))


@pytest.mark.parametrize("size, stride, offset, numel", [
    ((3,), (1,), 2, 4), ((2, 2), (3, 1), 0, 4), ((5,), (-1,), 4, 5), ((2,), (1,), -1, 4),
    ((1 << 62, 2), (0, 1 << 62), 0, 4)])
def test_a_tensor_reaching_outside_its_storage_is_refused(size, stride, offset, numel):
    code = MODULE_CODE.replace("  n : int\n", "  n : int\n  t : Tensor\n")
    data = module_state(t=tensor("FloatStorage", "0", numel, size, stride, offset))
    with pytest.raises(ArchiveError, match="tensor"):
        loads(archive({"data/0": bytes(4 * numel)}, code=code, data=data))


def test_a_member_that_inflates_far_beyond_the_file_is_refused_before_it_is_read():
    big = b"\0" * (40 << 20)          # 40 MB of zeros deflate to some 40 KB
    arc = archive({"data/0": big}, compression=zipfile.ZIP_DEFLATED)
    size = len(arc.getvalue())
    assert size < 200_000
    code = MODULE_CODE.replace("  n : int\n", "  n : int\n  t : Tensor\n")
    data = module_state(t=tensor("ByteStorage", "0", 4, (4,), (1,)))
    arc = archive({"data/0": big}, code=code, compression=zipfile.ZIP_DEFLATED, data=data)

    def refused():
        with pytest.raises(ArchiveError, match=r"data/0 is 41943040 bytes decompressed, "
                           r"which takes the archive past .* \(Limits.inflation\): a zip "
                           r"bomb"):
            loads(arc)
    _, peak = peak_memory(refused)
    assert peak < 5_000_000
    # a caller who trusts the file raises the limit
    assert loads(arc, limits=Limits(inflation=2000)).t.tolist() == [0, 0, 0, 0]


def test_records_are_a_few_bytes():
    version = b"3" + b" " * (1 << 20)
    arc = archive(version=version, compression=zipfile.ZIP_DEFLATED)
    with pytest.raises(ArchiveError, match=r"the version record is 1048577 bytes, not a few"):
        loads(arc)
    with pytest.raises(ArchiveError) as info:
        loads(archive(version=b"9" * 60))
    assert len(str(info.value)) < 300


def test_a_pickle_asking_for_a_huge_memo_slot_costs_nothing():
    data = b"\x80\x02]r\x00\x00\x00\x08."          # LONG_BINPUT 2**27
    arc = archive(data=data)

    def refused():
        with pytest.raises(ArchiveError, match="data.pkl holds a list, not a module"):
            loads(arc)
    _, peak = peak_memory(refused)
    assert peak < 2_000_000


def test_colliding_dict_keys_are_refused_at_once():
    # The attack used ints k * (2**61 - 1), which all hash to 0: ints outside
    # int64, which TorchScript has none of.
    code = MODULE_CODE.replace("  n : int\n", "  n : int\n  d : Dict[int, int]\n")
    p = (1 << 61) - 1
    keys = {k * p: 1 for k in range(1, 20001)}
    start = time.perf_counter()
    with pytest.raises(ArchiveError, match="outside int64"):
        loads(archive(code=code, data=pickled(module_state(d=keys))))
    assert time.perf_counter() - start < 5     # generous: 58 s before, ~0.1 s now
    # Floats x * 2**(61 k) collide too; more than Limits.same_hash_keys are refused.
    code = code.replace("Dict[int, int]", "Dict[float, int]")
    floats = {1.5 * 2.0 ** (61 * k): 1 for k in range(16)}
    assert len({hash(k) for k in floats}) == 1
    with pytest.raises(ArchiveError, match="more than 4 keys with one hash .* a "
                       "hash-collision attack"):
        loads(archive(code=code, data=pickled(module_state(d=floats))))
    assert loads(archive(code=code, data=pickled(module_state(d={1.0: 2, 3.5: 4})))).d == {
        1.0: 2, 3.5: 4}


def test_nesting_and_self_reference_are_bounded():
    code = MODULE_CODE.replace("  n : int\n", "  n : int\n  a : Any\n")
    lists = Raw(b"]" * 5000 + b"K\x01" + b"a" * 5000)        # [[[...[1]...]]]
    with pytest.raises(ArchiveError, match="nested more than 100 deep"):
        loads(archive(code=code, data=pickled(module_state(a=lists))))
    tuples = Raw(b"K\x01" + b"\x85" * 100000)                # 100 KB of TUPLE1
    with pytest.raises(ArchiveError, match="nested more than 100 deep"):
        loads(archive(code=code, data=pickled(module_state(a=tuples))))
    cycle = Raw(b"]r\x01\x00\x00\x00j\x01\x00\x00\x00a")      # a list holding itself
    with pytest.raises(ArchiveError, match="a container that holds itself"):
        loads(archive(code=code, data=pickled(module_state(a=cycle))))
    within = Raw(b"]" * 99 + b"K\x01" + b"a" * 99)
    assert loads(archive(code=code, data=pickled(module_state(a=within)))).n == 3


def test_debug_records_cost_what_their_text_costs():
    # first_line = 10**9: the lines are kept from there on, not padded to it.
    from pyjit.archive.debug_info import DebugRanges
    raw = pickled([(0, (("def f(x):\n  return x\n", "/u.py", 10 ** 9), 0, 5), 0)])
    (ranges, peak) = peak_memory(lambda: DebugRanges(raw, "code/x.py.debug_pkl"))
    where = ranges.original(0)
    assert (where.line, where.source_line(), peak < 1_000_000) == (10 ** 9, "def f(x):", True)
    # one string of the table joined two thousand times
    table = ("FORMAT_WITH_STRING_TABLE", ["x" * 1000, "/u.py"],
             [(0, ((Raw(b"](" + b"K\x00" * 2000 + b"e"), 1, 1), 0, 1), 0)])
    ranges = DebugRanges(pickled(table), "code/x.py.debug_pkl")
    with pytest.raises(ArchiveError, match="a function's saved text of 2000000 characters "):
        ranges.original(0)


def test_deep_code_is_a_compile_error_not_a_recursion_error():
    body = "(" * 1000 + "x" + ")" * 1000                 # refused by Python's parser
    code = with_code(f"  def deep(self: __torch__.M, x: int) -> int:\n    return {body}\n")
    with pytest.raises(ArchiveCompileError, match="cannot be parsed|does not parse"):
        loads(archive(code=code))
    # Too deep for pyjit: refused when the method is first bound or compiled.
    body = "torch.neg(" * 150 + "x" + ")" * 150
    code = with_code(f"  def deep(self: __torch__.M, x: int) -> int:\n    return {body}\n")
    m = loads(archive(code=code))
    with pytest.raises(ArchiveCompileError, match=r"code/__torch__.py:\d+:\d+: the code nests "
                       r"more than 100 levels deep \(Limits.nesting\)"):
        m.deep(3)
    deep_type = "List[" * 200 + "int" + "]" * 200           # a declaration: at load
    code = MODULE_CODE.replace("  n : int\n", f"  n : int\n  t : {deep_type}\n")
    with pytest.raises(ArchiveCompileError, match="nests more than 100 levels"):
        loads(archive(code=code))
    call = "x"
    for _ in range(45):                            # 90 levels: within the limit
        call = f"torch.neg({call})"
    code = with_code(f"  def deep(self: __torch__.M, x: int) -> int:\n    return {call}\n")
    assert loads(archive(code=code)).deep(3) == -3


def test_broken_files_are_archive_errors():
    with pytest.raises(ArchiveError, match="not a readable zip"):
        data = archive().getvalue()
        pyjit.load(io.BytesIO(data[:len(data) // 2]))
    with pytest.raises(ArchiveError, match=r"code/__torch__.py is not UTF-8 text \(invalid "
                       r"start byte at byte 6\)"):
        loads(archive({"code/__torch__.py": MODULE_CODE.encode().replace(b"class M",
                                                                         b"class \xff")}))
    with pytest.raises(ArchiveError, match="not a readable zip"):
        pyjit.load(io.BytesIO(b"PK\x03\x04" + bytes(100)))


def test_zip_level_failures_are_archive_errors():
    good = archive(compression=zipfile.ZIP_DEFLATED).getvalue()
    i = good.index(b"PK\x03\x04", 0)
    central = good.index(b"PK\x01\x02")
    # a CRC that disagrees, a deflate stream that breaks, an unknown method, encryption
    bad_crc = bytearray(good)
    struct.pack_into("<I", bad_crc, central + 16, 0)
    with pytest.raises(ArchiveError, match="data.pkl cannot be read: Bad CRC-32"):
        pyjit.load(io.BytesIO(bytes(bad_crc)))
    name_len = struct.unpack("<H", good[i + 26:i + 28])[0]
    body = i + 30 + name_len
    broken = good[:body] + b"\xff" * 8 + good[body + 8:]
    with pytest.raises(ArchiveError, match="data.pkl cannot be read"):
        pyjit.load(io.BytesIO(broken))
    for field, value, problem in [(8, 99, "compressed with method 99"),
                                  (6, 1, "is encrypted")]:
        arc = bytearray(good)
        central = arc.index(b"PK\x01\x02")
        struct.pack_into("<H", arc, central + 2 + field, value)   # the directory's copy
        struct.pack_into("<H", arc, i + field, value)
        with pytest.raises(ArchiveError, match=problem):
            pyjit.load(io.BytesIO(bytes(arc)))


def test_limits_are_checked_and_documented():
    with pytest.raises(ValueError, match="Limits.nesting must be a positive int"):
        Limits(nesting=0)
    with pytest.raises(TypeError, match="limits must be a pyjit.archive.Limits"):
        pyjit.load(archive(), limits={"nesting": 3})
    with pytest.raises(ArchiveError, match=r"Limits.code_bytes"):
        loads(archive(), limits=Limits(code_bytes=100))
