"""Archives made by hand, as an attacker would: any code text, any pickle, any zip.

:func:`pickled` writes protocol-2 pickles of plain values and of the markers below
(what torch's pickler writes for tensors and objects, and whatever else a test
wants to try); :func:`archive` zips parts under one directory as
``torch.jit.save`` does.  Nothing here imports torch.
"""

from __future__ import annotations

import io
import struct
import zipfile
from typing import Any, Dict, NamedTuple, Optional


class Global(NamedTuple):
    """``GLOBAL module name``."""
    module: str
    name: str


class Call(NamedTuple):
    """``fn(*args)``: ``GLOBAL``, the argument tuple, ``REDUCE``."""
    fn: Any
    args: tuple


class Obj(NamedTuple):
    """An object of class ``cls`` (a :class:`Global`): ``NEWOBJ`` of ``()``, then
    ``BUILD`` with ``state`` (skipped when None)."""
    cls: Global
    state: Any = None


class Storage(NamedTuple):
    """A persistent id ``('storage', torch.<kind>, key, 'cpu', numel)``."""
    kind: str
    key: str
    numel: int


class Raw(NamedTuple):
    """Opcodes written as they are."""
    data: bytes


class Memo(NamedTuple):
    """``value``, stored in memo slot ``index`` (``LONG_BINPUT``)."""
    index: int
    value: Any


class Get(NamedTuple):
    """Memo slot ``index`` (``LONG_BINGET``)."""
    index: int


def tensor(kind: str, key: str, numel: int, size: tuple, stride: tuple, offset: int = 0):
    """What torch writes for a tensor: ``_rebuild_tensor_v2(storage, ...)``."""
    return Call(Global("torch._utils", "_rebuild_tensor_v2"),
                (Storage(kind, key, numel), offset, tuple(size), tuple(stride), False,
                 Call(Global("collections", "OrderedDict"), ())))


def pickled(value: Any) -> bytes:
    """A protocol-2 pickle of ``value`` (see the module docstring)."""
    out = io.BytesIO()
    out.write(b"\x80\x02")
    _write(out, value)
    out.write(b".")
    return out.getvalue()


def _write(out: io.BytesIO, v: Any) -> None:  # noqa: C901  (one case per kind)
    w = out.write
    if isinstance(v, Raw):
        w(v.data)
    elif isinstance(v, Memo):
        _write(out, v.value)
        w(b"r" + struct.pack("<I", v.index))
    elif isinstance(v, Get):
        w(b"j" + struct.pack("<I", v.index))
    elif isinstance(v, Global):
        w(b"c" + v.module.encode() + b"\n" + v.name.encode() + b"\n")
    elif isinstance(v, Call):
        _write(out, v.fn)
        _write(out, tuple(v.args))
        w(b"R")
    elif isinstance(v, Obj):
        _write(out, v.cls)
        w(b")\x81")
        if v.state is not None:
            _write(out, v.state)
            w(b"b")
    elif isinstance(v, Storage):
        _write(out, ("storage", Global("torch", v.kind), v.key, "cpu", v.numel))
        w(b"Q")
    elif v is None:
        w(b"N")
    elif v is True:
        w(b"\x88")
    elif v is False:
        w(b"\x89")
    elif isinstance(v, int):
        if 0 <= v < 256:
            w(b"K" + bytes([v]))
        elif -(1 << 31) <= v < (1 << 31):
            w(b"J" + struct.pack("<i", v))
        else:
            raw = v.to_bytes((v.bit_length() + 8) // 8, "little", signed=True)
            w(b"\x8a" + bytes([len(raw)]) + raw)
    elif isinstance(v, float):
        w(b"G" + struct.pack(">d", v))
    elif isinstance(v, str):
        raw = v.encode("utf-8", "surrogatepass")
        w(b"X" + struct.pack("<I", len(raw)) + raw)
    elif isinstance(v, tuple):
        if not v:
            w(b")")
            return
        w(b"(")
        for x in v:
            _write(out, x)
        w(b"t")
    elif isinstance(v, list):
        w(b"]")
        if v:
            w(b"(")
            for x in v:
                _write(out, x)
            w(b"e")
    elif isinstance(v, dict):
        w(b"}")
        if v:
            w(b"(")
            for k, x in v.items():
                _write(out, k)
                _write(out, x)
            w(b"u")
    else:
        raise TypeError(f"cannot pickle {v!r} here")


#: A module of one class with an int attribute and a forward, the smallest
#: archive pyjit loads; tests replace its parts.
MODULE_CODE = """\
class M(Module):
  __parameters__ = []
  __buffers__ = []
  training : bool
  n : int
  def forward(self: __torch__.M, x: int) -> int:
    return torch.add(x, self.n)
"""


def module_state(**more: Any) -> Obj:
    state: Dict[str, Any] = {"training": False, "n": 3}
    state.update(more)
    return Obj(Global("__torch__", "M"), state)


def archive(parts: Optional[Dict[str, bytes]] = None, *, code: str = MODULE_CODE,
            data: Any = None, version: bytes = b"3",
            compression: int = zipfile.ZIP_STORED) -> io.BytesIO:
    """A ``torch.jit.save``-shaped zip (under directory ``m/``): ``code`` as
    ``code/__torch__.py``, ``data`` pickled as ``data.pkl`` (or given as bytes),
    the version record, and any other ``parts`` (name -> bytes) as given."""
    files: Dict[str, bytes] = {
        "data.pkl": data if isinstance(data, bytes) else pickled(
            module_state() if data is None else data),
        "code/__torch__.py": code.encode("utf-8"),
        "version": version,
    }
    files.update(parts or {})
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", compression) as z:
        for name, raw in files.items():
            z.writestr("m/" + name, raw)
    out.seek(0)
    return out
