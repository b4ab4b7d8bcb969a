"""Running ``torch.jit.save`` archives without torch: :func:`load`.

==============  ==============================================================
reader          the zip, its parts, the format version
unpickler       data.pkl and constants.pkl, with an allow-list of globals
schemas         torch's operator schemas: the overload a call means
source          the code files parsed: classes, functions, annotations
compiler        serialized methods and functions -> pyjit graphs
upgraders       operators read with the meaning of an older format version
debug_info      the .debug_pkl source ranges: nodes located in the user's file
program         compiling on demand into one CompilationUnit
module          the loaded objects and their methods
==============  ==============================================================
"""

from __future__ import annotations

import functools
from types import ModuleType
from typing import Optional

from ..errors import ArchiveError
from .module import Method, ScriptModule, make_class
from .program import Program
from .reader import Archive, PathOrFile

__all__ = ["load", "ScriptModule", "Method"]


def load(source: PathOrFile, *, loop: Optional[ModuleType] = None) -> ScriptModule:
    """The module a ``torch.jit.save`` archive holds, ready to run on numpy arrays.

    Args:
        source: the archive's path, or a binary file object.
        loop: the interpreter loop its methods run on (the active one by default).

    Raises:
        ArchiveError: not an archive pyjit can read, an unknown format version, or
            a pickle naming a global outside the allow-list (nothing is run).
        CompileError: (when a method is first called) code pyjit cannot compile,
            at its line in the archive.
    """
    archive = Archive(source)
    program = Program(archive, functools.partial(make_class, loop=loop))
    root = program.root
    if not isinstance(root, ScriptModule):
        raise ArchiveError(f"{archive.name}: data.pkl holds a {type(root).__name__}, not a "
                           "module")
    return root
