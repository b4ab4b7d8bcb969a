"""Running ``torch.jit.save`` archives without torch: :func:`load`.

==============  ==============================================================
limits          how much of the machine one archive may ask for
reader          the zip, its parts, the format version
unpickler       data.pkl and constants.pkl: pyjit's own pickle machine
records         the archive's objects as data, and the operators reaching them
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

from .. import gcpause
from ..errors import ArchiveError, PyjitError
from .limits import DEFAULT_LIMITS, Limits
from .module import Frozen, Method, ScriptModule, freeze, make_class
from .program import Program
from .reader import Archive, PathOrFile

__all__ = ["load", "freeze", "Frozen", "ScriptModule", "Method", "Limits"]


def load(source: PathOrFile, *, loop: Optional[ModuleType] = None,
         limits: Limits = DEFAULT_LIMITS) -> ScriptModule:
    """The module a ``torch.jit.save`` archive holds, ready to run on numpy arrays.

    The archive is untrusted input (``docs/security.md``): loading and running it
    executes nothing but its own TorchScript on pyjit's operators, reads nothing
    but the archive, uses memory in proportion to its size (within ``limits``),
    and fails with an :class:`~pyjit.errors.ArchiveError`.

    Args:
        source: the archive's path, or a binary file object.
        loop: the interpreter loop its methods run on (the active one by default).
        limits: the bounds a larger trusted archive may need raised
            (:class:`~pyjit.archive.Limits`).

    Raises:
        ArchiveError: not an archive pyjit can read, an unknown format version, a
            pickle naming a global outside the allow-list (nothing is run), or an
            archive asking for more than ``limits`` allow.  An error in the archive's
            code is an :class:`~pyjit.errors.ArchiveCompileError` (also a
            ``CompileError``), at its line in the archive; a method's code is
            compiled when the method is first called, and fails then.
    """
    if not isinstance(limits, Limits):
        raise TypeError(f"limits must be a pyjit.archive.Limits, not {type(limits).__name__}")
    archive = Archive(source, limits)
    try:
        # a load makes objects (records, arrays, the code's syntax trees), not
        # garbage: no collection scans them on the way (see pyjit.gcpause)
        with gcpause.paused():
            program = Program(archive, functools.partial(make_class, loop=loop))
            root = program.load_root(archive)
    except PyjitError:
        raise
    except (RecursionError, MemoryError) as exc:
        raise ArchiveError(f"{archive.name} is too large or too deep to load "
                           f"({type(exc).__name__})") from None
    except Exception as exc:
        # Every check above should have named the problem; this one keeps the
        # promise that a load fails with an ArchiveError if one did not.
        raise ArchiveError(f"{archive.name} cannot be loaded: {type(exc).__name__}: "
                           f"{str(exc)[:200]}") from exc
    finally:
        archive.close()
    if not isinstance(root, ScriptModule):
        raise ArchiveError(f"{archive.name}: data.pkl holds a {type(root).__name__}, not a "
                           "module")
    return root
