"""The pickles of an archive, read without running anything they name.

``data.pkl`` and ``constants.pkl`` are ordinary pickles (protocol 2), so a
plain :mod:`pickle` load would import and call whatever global the file names
(``os.system`` as easily as ``collections.OrderedDict``).  :class:`ArchiveUnpickler`
admits only the globals TorchScript's pickler writes, each mapped to a pyjit
function that builds the value from plain data; any other global is an
:class:`~pyjit.errors.ArchiveError` naming it, raised when the pickle names it,
before anything is called.  Nothing is imported.

What the pickles hold:

* a module or class object: ``GLOBAL '__torch__.x Linear'``, ``NEWOBJ``, then
  ``BUILD`` with the dict of its attributes -- an object of a Python class made
  for that qualified name (``make_object``, supplied by the caller);
* a tensor: ``torch._utils._rebuild_tensor_v2(storage, offset, size, stride,
  requires_grad, hooks)``, whose storage is a *persistent id*
  ``('storage', torch.FloatStorage, '3', 'cpu', numel)``: the raw little-endian
  bytes of ``data/3``, with the dtype the storage type names;
* a device: ``torch.device('cpu')``, kept as its text (pyjit's devices are);
* typed lists of old archives (``torch.jit._pickle.build_intlist`` ...) and
  containers' type tags (``restore_type_tag``), which change nothing in Python.
"""

from __future__ import annotations

import io
import pickle
from typing import Any, Callable, Dict, Tuple

import numpy as np

from ..errors import ArchiveError
from ..ops.conversions import device

__all__ = ["ArchiveUnpickler", "STORAGE_DTYPES"]

#: torch's typed storage classes and the numpy dtype of their elements (all
#: little-endian, as torch writes them whatever the machine).
STORAGE_DTYPES: Dict[str, np.dtype] = {
    "DoubleStorage": np.dtype("<f8"), "FloatStorage": np.dtype("<f4"),
    "HalfStorage": np.dtype("<f2"), "LongStorage": np.dtype("<i8"),
    "IntStorage": np.dtype("<i4"), "ShortStorage": np.dtype("<i2"),
    "CharStorage": np.dtype("i1"), "ByteStorage": np.dtype("u1"),
    "BoolStorage": np.dtype("?"), "ComplexFloatStorage": np.dtype("<c8"),
    "ComplexDoubleStorage": np.dtype("<c16"),
}

# Storage types numpy has no dtype for: named in the refusal.
_NO_NUMPY = {"BFloat16Storage", "QInt8Storage", "QUInt8Storage", "QInt32Storage",
             "QUInt4x2Storage", "QUInt2x4Storage", "Float8_e4m3fnStorage",
             "Float8_e5m2Storage"}


class _StorageType:
    """What ``GLOBAL 'torch FloatStorage'`` gives: the storage's dtype, by name."""

    __slots__ = ("name", "dtype")

    def __init__(self, name: str) -> None:
        self.name = name
        self.dtype = STORAGE_DTYPES.get(name)


def _same(value: Any, *_: Any) -> Any:
    return value


def _ordered_dict(*args: Any) -> Dict[Any, Any]:
    # Module hooks' OrderedDict: empty in every archive; a dict keeps the order.
    return dict(*args)


def _device(spec: Any, index: Any = None) -> str:
    """A ``Device`` attribute (``torch.device('cpu')``), as ``aten::device`` makes it."""
    try:
        return device(spec, index)
    except ValueError as exc:
        raise ArchiveError(f"a device attribute: {exc}") from None


class ArchiveUnpickler(pickle.Unpickler):
    """Unpickles one archive pickle.

    Args:
        data: the pickle's bytes.
        part: its name in the archive, for messages.
        read_storage: ``read_storage(key) -> bytes`` of ``data/<key>`` (or the
            directory the caller chose).
        make_object: ``make_object(qualified_name) -> class`` for ``__torch__``
            classes: NEWOBJ creates an instance and BUILD fills its ``__dict__``.
    """

    def __init__(self, data: bytes, part: str, read_storage: Callable[[str], bytes],
                 make_object: Callable[[str], type]) -> None:
        super().__init__(io.BytesIO(data))
        self._part = part
        self._read_storage = read_storage
        self._make_object = make_object
        self._storages: Dict[str, np.ndarray] = {}
        self._globals: Dict[Tuple[str, str], Any] = {
            ("torch._utils", "_rebuild_tensor_v2"): self._rebuild_tensor,
            ("torch._utils", "_rebuild_tensor"): self._rebuild_tensor,
            ("collections", "OrderedDict"): _ordered_dict,
            ("torch.jit._pickle", "restore_type_tag"): _same,
            ("torch", "device"): _device,
        }
        for kind in ("intlist", "doublelist", "boollist", "tensorlist", "list"):
            self._globals["torch.jit._pickle", f"build_{kind}"] = list

    def load(self) -> Any:
        try:
            return super().load()
        except ArchiveError:
            raise
        except (pickle.UnpicklingError, EOFError, ValueError, TypeError, IndexError,
                KeyError, AttributeError) as exc:
            raise ArchiveError(f"{self._part} is malformed: {exc}") from None

    # -- globals: the allow-list ------------------------------------------------------------
    def find_class(self, module: str, name: str) -> Any:
        found = self._globals.get((module, name))
        if found is not None:
            return found
        if module == "torch" and name.endswith("Storage"):
            if name in STORAGE_DTYPES:
                return _StorageType(name)
            if name in _NO_NUMPY:
                raise ArchiveError(f"{self._part}: tensors of {name} have no numpy dtype; "
                                   "pyjit cannot load them")
        if module == "__torch__" or module.startswith("__torch__."):
            return self._make_object(f"{module}.{name}")
        raise ArchiveError(f"{self._part} names the global {module}.{name}, which a "
                           "TorchScript archive never holds: refused (not imported, not run)")

    # -- tensors ------------------------------------------------------------------------------
    def persistent_load(self, pid: Any) -> Any:
        if not (isinstance(pid, tuple) and len(pid) == 5 and pid[0] == "storage"
                and isinstance(pid[1], _StorageType) and isinstance(pid[2], str)):
            raise ArchiveError(f"{self._part}: unknown persistent reference {pid!r:.80}")
        _, stype, key, location, numel = pid
        if stype.dtype is None:
            raise ArchiveError(f"{self._part}: storage type {stype.name} is not supported")
        storage = self._storages.get(key)
        if storage is None:
            raw = self._read_storage(key)
            usable = len(raw) - len(raw) % stype.dtype.itemsize
            storage = np.frombuffer(raw[:usable], dtype=stype.dtype)
            if isinstance(numel, int) and 0 <= numel <= storage.size:
                storage = storage[:numel]
            self._storages[key] = storage
        return storage

    def _rebuild_tensor(self, storage: Any, offset: Any, size: Any, stride: Any,
                        *_: Any) -> np.ndarray:
        """A tensor as a numpy array of its own (native byte order), copied out of
        ``storage`` by ``offset``, ``size`` and ``stride`` in elements, every index
        checked against the storage first."""
        if not isinstance(storage, np.ndarray):
            raise ArchiveError(f"{self._part}: a tensor whose storage is {type(storage).__name__}")
        shape, strides = tuple(size), tuple(stride)
        if not (isinstance(offset, int) and len(shape) == len(strides)
                and all(isinstance(s, int) and s >= 0 for s in shape + strides)
                and offset >= 0):
            raise ArchiveError(f"{self._part}: a tensor with offset {offset!r}, size {size!r} "
                               f"and stride {stride!r}")
        if 0 in shape:
            return np.zeros(shape, dtype=storage.dtype.newbyteorder("="))
        last = offset + sum((n - 1) * s for n, s in zip(shape, strides))
        if last >= storage.size:
            raise ArchiveError(f"{self._part}: a tensor of size {list(shape)} and stride "
                               f"{list(strides)} at offset {offset} reaches past its storage "
                               f"of {storage.size} elements")
        item = storage.itemsize
        view = np.lib.stride_tricks.as_strided(storage[offset:], shape,
                                               tuple(s * item for s in strides), writeable=False)
        return np.array(view, dtype=storage.dtype.newbyteorder("="), copy=True)
