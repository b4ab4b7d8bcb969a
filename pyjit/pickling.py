"""Pickling: how pyjit's objects cross to another process, and the cache that
compiles what arrives there once.

Nothing compiled is sent.  A compiled table holds operator callables, a Program
of the loop and a lock, none of which another process could use; what is sent is
what the table was made from, and the other side compiles it again:

==========================  ===============================================================
``Code``                    the graph it was compiled from, as text (its preprocessed
                            graph with the passes undone, :mod:`pyjit.passes.restore_source`),
                            its level, name and registry; a unit's Code as its unit and
                            its name.  Unpickling compiles it (a Code *is* the table).
``Function``                its Code's recipe, the loop by name and the signature;
                            compiled at its first call (or first ``.code``)
``CompilationUnit``         its graphs as text, its enum classes (by reference) and its
                            registry; each Code compiled when first asked for, as ever
``ScriptFunction``          its Python function: by reference when importable, by
                            value (source and the globals it uses) under cloudpickle
                            (:mod:`pyjit.frontend.script_pickle`)
errors                      their message, node, location and frames (:mod:`pyjit.errors`)
``Future``, ``Await``,      refused: a run of this process completes the first two, and
``InterpreterState``        the third is a run (send its Code)
==========================  ===============================================================

Options travel as names: the loop by its module's name (``pyjit._core`` or
``pyjit._pure``), the registry as None for the default one and, for another, by
the name it was given with :func:`register_registry` in a module both sides
import.  A Registry holds Python callables and a lock, so it cannot itself be
sent: pickling something whose registry has no name is a ``PicklingError`` that
says so.

The cache.  A worker of a pool or a cluster typically unpickles the same model
with every task.  Every rebuild goes through one process-wide cache keyed by the
content (the graph text and the options, never an object's identity): the first
task compiles, the others get the same Code, Function or unit back.  It is
bounded (:func:`set_cache_size`, least recently used first out) and thread-safe:
threads unpickling the same thing at once compile it once, the others wait for
it.  :func:`cache_info` counts hits and compilations.

Dask: every one of these objects has ``__dask_tokenize__``, a digest of the same
content, so that ``client.map(model, xs)`` hashes it deterministically.
"""

from __future__ import annotations

import collections
import pickle
import threading
from typing import Any, Callable, Dict, Hashable, NamedTuple, Optional


__all__ = ["register_registry", "registry_name", "registry_named",
           "cached", "cache_info", "clear_cache", "set_cache_size", "CacheInfo",
           "token", "refuse"]


# -- registries by name --------------------------------------------------------------------

_registries: Dict[str, Any] = {}
_registries_lock = threading.Lock()


def register_registry(name: str, registry: Any) -> Any:
    """Give ``registry`` a name under which pickles refer to it, so that Codes and
    Functions using it can be pickled; returns ``registry``.  Call it at import
    time of a module the receiving side imports too (the receiving side looks the
    name up when it compiles)::

        MY_OPS = pyjit.pickling.register_registry("myproject.ops", Registry())

    Raises:
        ValueError: another registry has the name already.
    """
    if not isinstance(name, str) or not name:
        raise TypeError(f"a registry's name is a non-empty str, not {name!r}")
    with _registries_lock:
        if _registries.get(name, registry) is not registry:
            raise ValueError(f"a different registry is registered as {name!r} already")
        _registries[name] = registry
    return registry


def registry_name(registry: Any, what: str) -> Optional[str]:
    """What a pickle holds for ``registry``: None for the default one, else the
    name :func:`register_registry` gave it.  ``what`` names the object being
    pickled, for the error.

    Raises:
        pickle.PicklingError: the registry has no name.
    """
    from .registry import default_registry
    if registry is None or registry is default_registry:
        return None
    with _registries_lock:
        for name, r in _registries.items():
            if r is registry:
                return name
    raise pickle.PicklingError(
        f"cannot pickle {what}: it looks its operators up in a custom Registry, which "
        "holds Python callables and cannot be sent; give it a name both sides know "
        "with pyjit.pickling.register_registry(name, registry), at import time of a "
        "module the other side imports too")


def registry_named(name: Optional[str]) -> Any:
    """The registry a pickle names (None: the default registry)."""
    from .registry import default_registry
    if name is None:
        return default_registry
    with _registries_lock:
        registry = _registries.get(name)
    if registry is None:
        raise LookupError(f"the pickle names the registry {name!r}, which this process has "
                          "not registered: import the module that calls "
                          f"pyjit.pickling.register_registry({name!r}, ...) first")
    return registry


def token(kind: str, *parts: Any) -> str:
    """A digest of ``parts`` (strings, numbers, None, tuples of them) for
    ``__dask_tokenize__``: the same in every process for the same content."""
    import hashlib   # here: every run imports this module, few ever make a token
    h = hashlib.sha256(kind.encode())
    h.update(repr(parts).encode())
    return f"{kind}-{h.hexdigest()}"


def refuse(obj: Any, why: str) -> None:
    """Raise the ``TypeError`` pickling ``obj`` meets: pickle reports it as is."""
    raise TypeError(f"cannot pickle {type(obj).__module__}.{type(obj).__qualname__}: {why}")


# -- the cache -------------------------------------------------------------------------------

class CacheInfo(NamedTuple):
    """What :func:`cache_info` returns."""

    hits: int       # rebuilds answered from the cache
    misses: int     # rebuilds that compiled
    size: int       # entries held now
    maxsize: int


class _Entry:
    __slots__ = ("ready", "value", "failed")

    def __init__(self) -> None:
        self.ready = threading.Event()
        self.value: Any = None
        self.failed = False


class _Cache:
    """A bounded map from content keys to what was compiled from them."""

    def __init__(self, maxsize: int) -> None:
        self._entries: "collections.OrderedDict[Hashable, _Entry]" = collections.OrderedDict()
        self._lock = threading.Lock()
        self.maxsize = maxsize
        self.hits = 0
        self.misses = 0

    def get(self, key: Hashable, build: Callable[[], Any]) -> Any:
        with self._lock:
            entry = self._entries.get(key)
            if entry is None:
                entry = self._entries[key] = _Entry()
                self.misses += 1
                self._evict()
                mine = True
            else:
                self._entries.move_to_end(key)
                self.hits += 1
                mine = False
        if mine:
            try:
                entry.value = build()
            except BaseException:
                entry.failed = True
                with self._lock:
                    if self._entries.get(key) is entry:
                        del self._entries[key]
                raise
            finally:
                entry.ready.set()
            return entry.value
        entry.ready.wait()
        if entry.failed:  # the thread that built it raised: try again here, and raise too
            return self.get(key, build)
        return entry.value

    def _evict(self) -> None:
        # Lock held.  Entries being built count too: a burst of new keys must not
        # make the cache grow past its bound.
        while len(self._entries) > self.maxsize:
            self._entries.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
            self.hits = self.misses = 0


_cache = _Cache(64)


def cached(key: Hashable, build: Callable[[], Any]) -> Any:
    """What ``build()`` returns, compiled once per ``key`` while it stays in the
    cache; ``key`` is the content (texts and option names), never an identity."""
    if _cache.maxsize == 0:
        return build()
    return _cache.get(key, build)


def cache_info() -> CacheInfo:
    """The cache's counts since it was last cleared."""
    with _cache._lock:
        return CacheInfo(_cache.hits, _cache.misses, len(_cache._entries), _cache.maxsize)


def clear_cache() -> None:
    """Forget everything compiled from pickles (and the counts)."""
    _cache.clear()


def set_cache_size(maxsize: int) -> None:
    """Keep at most ``maxsize`` compiled objects (64 to begin with; 0: no cache)."""
    if isinstance(maxsize, bool) or not isinstance(maxsize, int) or maxsize < 0:
        raise ValueError(f"the cache size is an int >= 0, not {maxsize!r}")
    with _cache._lock:
        _cache.maxsize = maxsize
        _cache._evict()
