"""The parts of a ``torch.jit.save`` archive: a zip whose entries all sit under one
top-level directory (the file's stem when torch wrote it)::

    model/data.pkl                    the module tree and its attribute values
    model/constants.pkl               the tensors the code calls CONSTANTS.c0, c1 ...
    model/data/0, model/data/1 ...    raw tensor storages (little-endian unless
    model/byteorder                   ... this record says "big")
    model/code/__torch__.py           the module classes, as TorchScript source
    model/code/__torch__.py.debug_pkl source ranges back to the user's file
    model/version                     the file format version (newer archives:
    model/.data/version               .data/version instead)

:class:`Archive` opens the zip, finds that directory, checks the format version
and hands out the parts by name.  torch writes the lowest version that gives
its operators their current meaning (3 for most modules; 4 once ``aten::div``
appears, whose integer division changed then; 5 for ``aten::full``, ...; from
version 6 on the record moved to ``.data/version``), and reads old archives
through *upgraders* that keep the old meaning, which :mod:`.upgraders` does
too.  pyjit reads versions 3 to 10, archives with ``data.pkl`` and type-tagged
containers, and refuses any other with an :class:`~pyjit.errors.ArchiveError`
naming it (versions 1 and 2 predate the type tags; the earliest kept the
module tree as JSON).

The zip is untrusted input.  Every failure of the zip layer (a bad CRC, a broken
deflate stream, a local header that disagrees with the directory, an encrypted or
unknown compression method, a name that is not UTF-8) is an ``ArchiveError``
naming the member; a member is read within the size the directory declares, and
all members together within :meth:`Limits.budget` of the file's size.  Every part
but the tensor storages is read while the archive loads and the file is closed
then: a loaded module holds no file open and reads nothing later.
"""

from __future__ import annotations

import io
import os
import zipfile
import zlib
from typing import IO, Dict, List, Optional, Union

import numpy as np

from ..errors import ArchiveError
from .limits import DEFAULT_LIMITS, Limits

__all__ = ["Archive", "MIN_VERSION", "MAX_VERSION", "quote"]

MIN_VERSION = 3
MAX_VERSION = 10

PathOrFile = Union[str, "os.PathLike[str]", IO[bytes]]

# Parts read whole at load time: everything but the tensor storages.
_EAGER_DIRS = ("code/",)
_EAGER = ("data.pkl", "constants.pkl", "version", ".data/version", "byteorder")
_SMALL_RECORD = 64          # the version and byteorder records are a few bytes


def quote(text: object, limit: int = 80) -> str:
    """``repr(text)`` cut to ``limit`` characters: the form in which messages quote
    what an archive holds (a 10 MB version record is not repeated whole)."""
    r = repr(text) if not isinstance(text, str) or len(text) <= 4 * limit else \
        repr(text[:4 * limit])
    return r if len(r) <= limit else r[:limit - 3] + "..."


class Archive:
    """An open ``torch.jit.save`` archive.

    Args:
        source: the archive's path, or a binary file object (read from where it
            stands; it need not be seekable).
        limits: the bounds of :mod:`.limits`.

    Attributes:
        name: the file name (or ``<file>`` for a file object), for messages.
        prefix: the top-level directory of the entries, with its ``/``.
        version: the file format version.
        byteorder: ``"little"`` or ``"big"``: how the storages hold numbers.
        size: the file's size in bytes.
    """

    def __init__(self, source: PathOrFile, limits: Limits = DEFAULT_LIMITS) -> None:
        self.limits = limits
        self._read_so_far = 0
        self._parts: Dict[str, bytes] = {}
        if isinstance(source, (str, os.PathLike)):
            self.name = os.fspath(source)
            try:
                file: IO[bytes] = open(self.name, "rb")
            except OSError as exc:
                raise ArchiveError(f"cannot read {self.name}: {exc.strerror}") from None
        elif hasattr(source, "read"):
            self.name = str(getattr(source, "name", "<file>"))
            file = source
            if not _seekable(file):
                data = file.read()
                if not isinstance(data, bytes):
                    raise ArchiveError(f"{self.name}: the file must be opened in binary mode")
                file = io.BytesIO(data)
        else:
            raise TypeError(f"pyjit.load expects a path or a binary file, not "
                            f"{type(source).__name__}")
        self._file = file
        self._owns_file = file is not source
        try:
            self.size = _size(file)
            self._open()
        except BaseException:
            self.close()
            raise

    def _open(self) -> None:
        try:
            self._zip = zipfile.ZipFile(self._file)
            infos = self._zip.infolist()
        except ArchiveError:
            raise
        except Exception as exc:  # the zip layer, on bytes anyone may have written
            raise ArchiveError(f"{self.name} is not a torch.jit.save archive (not a readable "
                               f"zip file: {_reason(exc)})") from None
        self._infos: Dict[str, zipfile.ZipInfo] = {}
        for info in infos:
            if info.filename in self._infos:
                raise ArchiveError(f"{self.name}: the zip holds two members named "
                                   f"{quote(info.filename)}")
            self._infos[info.filename] = info
        tops = {n.split("/", 1)[0] for n in self._infos if "/" in n}
        if len(tops) != 1:
            shown = sorted(tops)[:5] if tops else "none"
            raise ArchiveError(f"{self.name}: a torch.jit.save archive holds its parts under "
                               f"one directory; this zip has {quote(shown, 200)}")
        self.prefix = tops.pop() + "/"
        if "data.pkl" not in self or "code/" not in {p[:5] for p in self.parts()}:
            what = "attributes.pkl" if "attributes.pkl" in self or "model.json" in self \
                else "data.pkl and code/"
            raise ArchiveError(f"{self.name}: no {what.split(' and ')[0]} with the module tree: "
                               "not a TorchScript archive torch 1.5 or later wrote "
                               "(torch.save of a state dict or a module is not one either: "
                               "save with torch.jit.save(torch.jit.script(model), path))")
        for part in self.parts():
            if part in _EAGER or part.startswith(_EAGER_DIRS):
                self._parts[part] = self._read_member(part)
        self.version = self._read_version()
        self.byteorder = self._read_byteorder()

    # -- members ------------------------------------------------------------------------------
    def _read_member(self, part: str, writable: Optional[np.dtype] = None) -> bytes:
        info = self._infos.get(self.prefix + part)
        if info is None:
            raise ArchiveError(f"{self.name}: the archive has no part {quote(part)}")
        if info.flag_bits & 0x1:
            raise ArchiveError(f"{self.name}: {part} is encrypted")
        if info.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
            raise ArchiveError(f"{self.name}: {part} is compressed with method "
                               f"{info.compress_type}; torch stores its members, and pyjit "
                               "reads stored and deflated ones")
        budget = self.limits.budget(self.size)
        if self._read_so_far + info.file_size > budget:
            raise ArchiveError(
                f"{self.name}: {part} is {info.file_size} bytes decompressed, which takes the "
                f"archive past {budget} bytes, {self.limits.inflation:g} times the file's "
                f"{self.size} bytes plus {self.limits.inflation_slack} (Limits.inflation): a "
                "zip bomb, or an archive to load with larger pyjit.archive.Limits")
        try:
            with self._zip.open(info) as member:
                # open() checked the local header; a stored member is read from
                # the file straight into the buffer its arrays will be, once
                direct = writable is not None and info.compress_type == zipfile.ZIP_STORED \
                    and info.file_size % writable.itemsize == 0
                data = self._read_stored(info, part, writable) if direct else \
                    member.read(info.file_size + 1)
        except ArchiveError:
            raise
        except Exception as exc:  # CRC, deflate stream, local header
            raise ArchiveError(f"{self.name}: {part} cannot be read: {_reason(exc)}") from None
        size = data.nbytes if type(data) is np.ndarray else len(data)
        if size != info.file_size:
            raise ArchiveError(f"{self.name}: {part} holds {size} bytes, not the "
                               f"{info.file_size} its zip directory declares")
        self._read_so_far += size
        return data

    def _read_stored(self, info: zipfile.ZipInfo, part: str, dtype: np.dtype) -> np.ndarray:
        """A stored member's elements in a new array of ``dtype`` (not zero-filled
        first, as a bytearray is), read from the file into it
        (zipfile's read makes bytes, which a writable array would copy again:
        for resnet18's 45 MB, a tenth of its first call).  The member starts
        after its local header, whose name and extra field have the lengths the
        header gives; its CRC is checked as zipfile checks it."""
        f = self._file
        f.seek(info.header_offset)
        header = f.read(30)
        if len(header) != 30 or header[:4] != b"PK\x03\x04":
            raise ArchiveError(f"{self.name}: {part} cannot be read: Bad magic number for "
                               "file header")
        skip = int.from_bytes(header[26:28], "little") + int.from_bytes(header[28:30], "little")
        f.seek(info.header_offset + 30 + skip)
        data = np.empty(info.file_size // dtype.itemsize, dtype)
        got = f.readinto(memoryview(data).cast("B")) if info.file_size else 0
        if got != info.file_size:
            raise ArchiveError(f"{self.name}: {part} holds {got} bytes, not the "
                               f"{info.file_size} its zip directory declares")
        if zlib.crc32(memoryview(data).cast("B")) != info.CRC:
            raise ArchiveError(f"{self.name}: {part} cannot be read: Bad CRC-32 for file "
                               f"{info.filename!r}")
        return data

    def __contains__(self, part: str) -> bool:
        return self.prefix + part in self._infos

    def parts(self) -> List[str]:
        """The entries' names below the prefix."""
        n = len(self.prefix)
        return [name[n:] for name in self._infos if name.startswith(self.prefix)]

    def read(self, part: str) -> bytes:
        """The bytes of entry ``part`` (``"data.pkl"``, ``"data/0"``...).  The parts
        other than storages were read when the archive opened; a storage is read
        now, while the archive is open (it is closed once the module is loaded)."""
        data = self._parts.get(part)
        if data is not None:
            return data
        if self._zip is None:
            raise ArchiveError(f"{self.name}: the archive was closed after loading; "
                               f"{part} was not read")
        return self._read_member(part)

    def read_storage(self, part: str, dtype: np.dtype) -> "bytes | np.ndarray":
        """:meth:`read` of a storage of elements of ``dtype`` (native byte order):
        a stored member whose size is a whole number of them comes as an array
        of ``dtype`` of its own, read into once; any other as its bytes."""
        if part in self._parts or self._zip is None or not dtype.isnative:
            return self.read(part)
        return self._read_member(part, writable=dtype)

    def get(self, part: str) -> Optional[bytes]:
        """:meth:`read`, or None when the part is absent."""
        return self.read(part) if part in self else None

    def close(self) -> None:
        """Close the zip, and the file when the archive opened it."""
        z = getattr(self, "_zip", None)
        self._zip = None
        if z is not None:
            z.close()
        if self._owns_file and self._file is not None:
            self._file.close()
        self._file = None

    # -- records ------------------------------------------------------------------------------
    def _small_record(self, part: str) -> str:
        raw = self.read(part)
        if len(raw) > _SMALL_RECORD:
            raise ArchiveError(f"{self.name}: the {part} record is {len(raw)} bytes, not a "
                               f"few: {quote(raw, 60)}")
        return raw.decode("ascii", "replace").strip()

    def _read_version(self) -> int:
        for part in (".data/version", "version"):
            if part in self:
                text = self._small_record(part)
                break
        else:
            raise ArchiveError(f"{self.name}: no version record (.data/version or version)")
        try:
            version = int(text)
        except ValueError:
            raise ArchiveError(f"{self.name}: the version record holds {quote(text)}, not a "
                               "number") from None
        if not MIN_VERSION <= version <= MAX_VERSION:
            raise ArchiveError(f"{self.name}: file format version {version} is not supported "
                               f"(pyjit reads versions {MIN_VERSION} to {MAX_VERSION}: "
                               f"archives of torch 1.5 to 2.x)")
        return version

    def _read_byteorder(self) -> str:
        if "byteorder" not in self:
            return "little"
        text = self._small_record("byteorder")
        if text not in ("little", "big"):
            raise ArchiveError(f"{self.name}: the byteorder record holds {quote(text)}, not "
                               "'little' or 'big'")
        return text


def _seekable(file: IO[bytes]) -> bool:
    try:
        return bool(file.seekable())
    except Exception:
        return False


def _size(file: IO[bytes]) -> int:
    here = file.tell()
    end = file.seek(0, io.SEEK_END)
    file.seek(here)
    return end - here


def _reason(exc: BaseException) -> str:
    text = str(exc) or type(exc).__name__
    return quote(text, 200)[1:-1] if len(text) > 200 else text
