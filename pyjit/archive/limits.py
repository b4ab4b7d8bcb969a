"""How much of the machine one archive may ask for while it loads.

An archive is untrusted input (``docs/security.md``): a few hundred bytes can
describe gigabytes -- a zip member that inflates without end, a pickle that asks
for memo slot 2**27, a debug record whose text is one string joined a million
times.  Every quantity the loader computes from the file is therefore bounded,
either by what the file itself holds (a tensor is a view of the storage it names,
never a copy) or by one of the numbers below.  The defaults admit every archive
torch writes for the models we know, with room to spare; a caller who trusts a
larger file says so::

    pyjit.load(path, limits=pyjit.archive.Limits(code_bytes=32 << 20))

Exceeding a limit is an :class:`~pyjit.errors.ArchiveError` that names the limit,
so the fix is in the message.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Limits", "DEFAULT_LIMITS"]

_MiB = 1 << 20


@dataclass(frozen=True)
class Limits:
    """The bounds :func:`pyjit.load` holds an archive to.

    Attributes:
        inflation: the bytes of all the members read, decompressed, at most this
            many times the file's own size, plus ``inflation_slack``.  torch stores
            its members uncompressed (ratio 1); a re-zipped archive compresses its
            tensors little and its code some five-fold.
        inflation_slack: see ``inflation``: what a small file may inflate to anyway.
        code_bytes: the serialized code pyjit parses, all files together.  Parsed
            code holds about 50 bytes of syntax tree per byte of text, so this is
            the limit that bounds a load's memory: 1 MiB of code parses into some
            200 MB of trees (the largest fixture has 66 KB of code).
        pickle_expansion: the objects a pickle builds, in bytes (estimated as
            CPython lays them out), at most this many times the pickle's size plus
            ``inflation_slack``.  A debug pickle, tuples of small ints, needs about 13.
        nesting: containers (lists, tuples, dicts) nested in a pickled value, and
            statements and expressions nested in the code, at most this deep.
        name_chars: the length of a class, attribute or storage name, and of any
            string an error message quotes.
        source_chars: the text of one function a debug record saves, at most this
            long, and all of a code file's saved texts at most
            ``pickle_expansion`` times its debug pickle.
        same_hash_keys: distinct keys of one dict that share a hash, at most this
            many: more is a hash-collision attack that makes building the dict
            quadratic (no real dict has two).
    """

    inflation: float = 4.0
    inflation_slack: int = 16 * _MiB
    code_bytes: int = 1 * _MiB
    pickle_expansion: int = 24
    nesting: int = 100
    name_chars: int = 256
    source_chars: int = 1 * _MiB
    same_hash_keys: int = 4

    def __post_init__(self) -> None:
        for name in ("inflation_slack", "code_bytes", "pickle_expansion", "nesting",
                     "name_chars", "source_chars", "same_hash_keys"):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise ValueError(f"Limits.{name} must be a positive int, not {value!r}")
        if not isinstance(self.inflation, (int, float)) or not self.inflation >= 1:
            raise ValueError(f"Limits.inflation must be a number >= 1, not {self.inflation!r}")

    def budget(self, file_size: int) -> int:
        """The decompressed bytes a file of ``file_size`` bytes may be read as."""
        return int(self.inflation * file_size) + self.inflation_slack


#: The limits :func:`pyjit.load` uses unless given others.
DEFAULT_LIMITS = Limits()
