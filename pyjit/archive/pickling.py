"""Loaded models pickle: as an archive of their code and their current state.

``pickle.dumps(m)`` of an object :func:`pyjit.load` returned (a module, a
submodule, an object of a scripted class) writes it as a ``torch.jit.save``-shaped
archive -- the code members as they were read, and a ``data.pkl`` and storages
written afresh from the objects as they are now -- so a mutated attribute travels
too, and the pickle is about the size of the archive.  ``pickle.loads`` reads it
back with :func:`pyjit.load`'s own loader (the archive is untrusted input there
as anywhere), on the loop of the same name and with the same limits::

    m = pyjit.load("model.pt")
    m.scale = 0.5
    m2 = pickle.loads(pickle.dumps(m))       # m2.scale == 0.5; m2(x) == m(x)

A worker process that unpickles one model for every task compiles it once: the
code side (classes, constants, compiled methods) of an archive read back this
way is kept, keyed by the digest of its code, constants and format version, and
serves every later one (each gets objects of its own).  ``m.forward`` pickles as
the method of the pickled module.

What pickles: the values an archive holds (None, bools, ints, floats, strings,
lists, tuples, dicts, numpy arrays of torch's dtypes, the archive's objects,
shared and cyclic references kept); anything else an attribute was set to is a
``pickle.PicklingError`` naming it.
"""

from __future__ import annotations

import collections
import hashlib
import io
import pickle
import struct
import threading
import zipfile
from typing import Any, Dict, List, Optional, Tuple

import numpy as np

from .limits import Limits
from .records import Record
from .unpickler import STORAGE_DTYPES

__all__ = ["dumps_module", "restore"]

_STORAGE_NAMES = {dtype: name for name, dtype in STORAGE_DTYPES.items()}


class _Writer:
    """Writes one pickle of archive values, protocol 2, as torch's pickler does."""

    def __init__(self, storages: "_Storages") -> None:
        self.out = io.BytesIO()
        self.memo: Dict[int, int] = {}
        self.keep: List[Any] = []            # what the memo's ids refer to, kept alive
        self.storages = storages

    def dump(self, value: Any) -> bytes:
        self.out.write(b"\x80\x02")
        self._write(value)
        self.out.write(b".")
        return self.out.getvalue()

    def _put(self, value: Any) -> None:
        index = self.memo[id(value)] = len(self.memo)
        self.keep.append(value)
        self.out.write(b"r" + struct.pack("<I", index))

    def _global(self, module: str, name: str) -> None:
        self.out.write(f"c{module}\n{name}\n".encode("utf-8"))

    def _write(self, v: Any) -> None:  # noqa: C901  (one case per kind, as pickle's)
        w = self.out.write
        got = self.memo.get(id(v))
        if got is not None:
            w(b"j" + struct.pack("<I", got))
            return
        if v is None:
            w(b"N")
        elif v is True:
            w(b"\x88")
        elif v is False:
            w(b"\x89")
        elif type(v) is int:
            raw = v.to_bytes((v.bit_length() + 8) // 8, "little", signed=True)
            w(b"\x8a" + bytes([len(raw)]) + raw)
        elif type(v) is float:
            w(b"G" + struct.pack(">d", v))
        elif type(v) is str:
            raw = v.encode("utf-8")
            w(b"X" + struct.pack("<I", len(raw)) + raw)
        elif type(v) is tuple:
            w(b"(")
            for x in v:
                self._write(x)
            w(b"t")
        elif type(v) is list:
            w(b"]")
            self._put(v)
            self._items(v, b"e")                    # APPENDS
        elif type(v) is dict:
            w(b"}")
            self._put(v)
            self._items(_flat(v), b"u")             # SETITEMS
        elif isinstance(v, np.ndarray):
            self._tensor(v)
        elif isinstance(v, Record):
            module, _, name = type(v)._class.name.rpartition(".")
            self._global(module, name)
            w(b")\x81")
            self._put(v)
            w(b"}")
            self._items(_flat(v._fields), b"u")
            w(b"b")
        else:
            raise pickle.PicklingError(f"a loaded model pickles as an archive, and an archive "
                                       f"holds no {type(v).__name__} ({str(v)[:60]})")

    def _items(self, items: List[Any], op: bytes) -> None:
        """``MARK``, the items, ``op``: what fills the list or dict below them."""
        if items:
            self.out.write(b"(")
            for x in items:
                self._write(x)
            self.out.write(op)

    def _tensor(self, a: np.ndarray) -> None:
        key, storage, offset, strides = self.storages.place(a)
        self._global("torch._utils", "_rebuild_tensor_v2")
        self.out.write(b"(")
        self.out.write(b"(")
        self._write("storage")
        self._global("torch", _STORAGE_NAMES[storage.dtype.newbyteorder("<")
                                             if storage.dtype.itemsize > 1 else storage.dtype])
        self._write(key)
        self._write("cpu")
        self._write(storage.size)
        self.out.write(b"tQ")
        self._write(offset)
        self._write(tuple(a.shape))
        self._write(strides)
        self._write(False)
        self._global("collections", "OrderedDict")
        self.out.write(b")R")
        self.out.write(b"tR")


def _flat(d: Dict[Any, Any]) -> List[Any]:
    return [x for item in d.items() for x in item]


class _Storages:
    """The storages of the tensors written: a tensor that is a view of a storage
    the archive was read with is written as that view (so views of one storage
    still share it), any other as a storage of its own."""

    def __init__(self, known: Any, directory: str) -> None:
        self.known = [s for s in list(known.values())]
        self.directory = directory
        self.written: Dict[int, Tuple[str, np.ndarray]] = {}
        self.parts: Dict[str, bytes] = {}

    def place(self, a: np.ndarray) -> Tuple[str, np.ndarray, int, tuple]:
        if a.dtype.newbyteorder("<") not in _STORAGE_NAMES and a.dtype not in _STORAGE_NAMES:
            raise pickle.PicklingError(f"a tensor of dtype {a.dtype}, which torch has no "
                                       "storage for")
        item = a.itemsize
        start = a.__array_interface__["data"][0]
        for s in self.known:
            base = s.__array_interface__["data"][0]
            if s.dtype != a.dtype or not base <= start < base + max(s.nbytes, 1):
                continue
            if any(st < 0 or st % item for st in a.strides) or (start - base) % item:
                continue
            end = start + sum((n - 1) * st for n, st in zip(a.shape, a.strides)) + item
            if a.size and end > base + s.nbytes:
                continue
            return (self._key(s), s, (start - base) // item,
                    tuple(st // item for st in a.strides))
        own = np.array(a, order="C", copy=True)      # a 0-dim tensor stays 0-dim
        return self._key(own), own, 0, tuple(st // item for st in own.strides)

    def _key(self, s: np.ndarray) -> str:
        got = self.written.get(id(s))
        if got is None:
            key = str(len(self.written))
            got = self.written[id(s)] = (key, s)
            little = s.astype(s.dtype.newbyteorder("<"), copy=False)
            self.parts[f"{self.directory}{key}"] = little.tobytes()
        return got[0]


def dumps_module(obj: Record) -> bytes:
    """The archive ``pickle`` writes for ``obj``: its program's code, ``obj`` as the
    root of ``data.pkl``, the constants, and the storages of both."""
    program = type(obj)._program
    data_storages = _Storages(program.storages, "data/")
    data = _Writer(data_storages).dump(obj)
    constant_storages = _Storages(program.storages, "constants/")
    constants = _Writer(constant_storages).dump(tuple(program.constants))
    out = io.BytesIO()
    # Storages stored, as torch stores them; the text and pickles deflated.
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("archive/version", str(program.version))
        z.writestr("archive/data.pkl", data)
        z.writestr("archive/constants.pkl", constants)
        for name, raw in program.code_parts.items():
            z.writestr("archive/" + name, raw)
        for name, raw in {**data_storages.parts, **constant_storages.parts}.items():
            z.writestr("archive/" + name, raw, compress_type=zipfile.ZIP_STORED)
    return out.getvalue()


# -- reading back, with the code side kept ---------------------------------------------------
_CACHE_SIZE = 8
_programs: "collections.OrderedDict[Tuple[str, Optional[str], Limits], Any]" = \
    collections.OrderedDict()
_programs_lock = threading.Lock()


def _code_digest(archive: Any) -> str:
    h = hashlib.sha256(str(archive.version).encode())
    for part in sorted(archive.parts()):
        if part.startswith(("code/", "constants")):
            h.update(part.encode() + b"\0" + archive.read(part) + b"\0")
    return h.hexdigest()


def restore(blob: bytes, loop_name: Optional[str], limits: Limits) -> Record:
    """What ``pickle.loads`` calls: the object :func:`dumps_module` wrote, read back
    by the archive loader, its code side shared with earlier ones of the same code."""
    import functools
    import importlib

    from .module import make_class
    from .program import Program
    from .reader import Archive

    loop = importlib.import_module(loop_name) if loop_name in ("pyjit._core", "pyjit._pure") \
        else None
    archive = Archive(io.BytesIO(blob), limits)
    try:
        key = (_code_digest(archive), loop_name, limits)
        with _programs_lock:
            program = _programs.get(key)
            if program is not None:
                _programs.move_to_end(key)
        if program is None:
            program = Program(archive, functools.partial(make_class, loop=loop))
            with _programs_lock:
                _programs[key] = program
                while len(_programs) > _CACHE_SIZE:
                    _programs.popitem(last=False)
        return program.load_root(archive)
    finally:
        archive.close()
