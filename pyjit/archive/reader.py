"""The parts of a ``torch.jit.save`` archive: a zip whose entries all sit under one
top-level directory (the file's stem when torch wrote it)::

    model/data.pkl                    the module tree and its attribute values
    model/constants.pkl               the tensors the code calls CONSTANTS.c0, c1 ...
    model/data/0, model/data/1 ...    raw little-endian tensor storages
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
"""

from __future__ import annotations

import io
import os
import zipfile
from typing import IO, List, Optional, Union

from ..errors import ArchiveError

__all__ = ["Archive", "MIN_VERSION", "MAX_VERSION"]

MIN_VERSION = 3
MAX_VERSION = 10

PathOrFile = Union[str, "os.PathLike[str]", IO[bytes]]


class Archive:
    """An open ``torch.jit.save`` archive.

    Attributes:
        name: the file name (or ``<file>`` for a file object), for messages.
        prefix: the top-level directory of the entries, with its ``/``.
        version: the file format version.
    """

    def __init__(self, source: PathOrFile) -> None:
        if isinstance(source, (str, os.PathLike)):
            self.name = os.fspath(source)
            try:
                with open(self.name, "rb") as f:
                    data = f.read()
            except OSError as exc:
                raise ArchiveError(f"cannot read {self.name}: {exc.strerror}") from None
        elif hasattr(source, "read"):
            self.name = getattr(source, "name", "<file>")
            data = source.read()
            if not isinstance(data, bytes):
                raise ArchiveError(f"{self.name}: the file must be opened in binary mode")
        else:
            raise TypeError(f"pyjit.load expects a path or a binary file, not "
                            f"{type(source).__name__}")
        try:
            self._zip = zipfile.ZipFile(io.BytesIO(data))
        except zipfile.BadZipFile:
            raise ArchiveError(f"{self.name} is not a torch.jit.save archive (not a zip file)"
                               ) from None
        names = self._zip.namelist()
        self._names = set(names)
        tops = {n.split("/", 1)[0] for n in names if "/" in n}
        if len(tops) != 1:
            raise ArchiveError(f"{self.name}: a torch.jit.save archive holds its parts under "
                               f"one directory; this zip has {sorted(tops) or 'none'}")
        self.prefix = tops.pop() + "/"
        if "data.pkl" not in self or "code/" not in {p[:5] for p in self.parts()}:
            what = "attributes.pkl" if "attributes.pkl" in self or "model.json" in self \
                else "data.pkl and code/"
            raise ArchiveError(f"{self.name}: no {what.split(' and ')[0]} with the module tree: "
                               "not a TorchScript archive torch 1.5 or later wrote "
                               "(torch.save of a state dict or a module is not one either: "
                               "save with torch.jit.save(torch.jit.script(model), path))")
        self.version = self._read_version()

    def _read_version(self) -> int:
        for part in (".data/version", "version"):
            if part in self:
                text = self.read(part).decode("ascii", "replace").strip()
                break
        else:
            raise ArchiveError(f"{self.name}: no version record (.data/version or version)")
        try:
            version = int(text)
        except ValueError:
            raise ArchiveError(f"{self.name}: the version record holds {text!r}, not a "
                               "number") from None
        if not MIN_VERSION <= version <= MAX_VERSION:
            raise ArchiveError(f"{self.name}: file format version {version} is not supported "
                               f"(pyjit reads versions {MIN_VERSION} to {MAX_VERSION}: "
                               f"archives of torch 1.5 to 2.x)")
        return version

    def __contains__(self, part: str) -> bool:
        return self.prefix + part in self._names

    def parts(self) -> List[str]:
        """The entries' names below the prefix."""
        n = len(self.prefix)
        return [name[n:] for name in self._zip.namelist() if name.startswith(self.prefix)]

    def read(self, part: str) -> bytes:
        """The bytes of entry ``part`` (``"data.pkl"``, ``"data/0"``...)."""
        try:
            return self._zip.read(self.prefix + part)
        except KeyError:
            raise ArchiveError(f"{self.name}: the archive has no part {part!r}") from None

    def get(self, part: str) -> Optional[bytes]:
        """:meth:`read`, or None when the part is absent."""
        return self.read(part) if part in self else None
