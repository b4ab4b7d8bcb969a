"""How a :class:`~.script_function.ScriptFunction` pickles: as its Python function,
which each pickler then treats as it treats any function.

* ``pickle`` sends a function by reference (module and qualified name), so a
  ``@pyjit.script`` function of an importable module arrives as that module's
  ScriptFunction, compiled nowhere but where it was imported; so does one of a
  script's ``__main__`` for ``multiprocessing``, whose workers run the script's
  top level again (spawn) or are copies of it (fork).
* ``cloudpickle`` (Dask and Ray use it) sends a function of ``__main__``, or one
  that cannot be imported, by value: its code and the globals it uses.  The
  other side scripts it again, from its source, which travels with it (a
  notebook cell or a deleted file is not there to be read), once per process:
  the same source arriving with every task is compiled the first time
  (:func:`pyjit.pickling.cached`).  Its globals are what the first copy to
  arrive brought.

The one trick: the decorator leaves the *ScriptFunction* at the function's name
in its module (``mod.sq``), so pickle, looking the Python function up by name,
would find something else there and refuse ("not the same object as mod.sq").
Pickling a ScriptFunction therefore renames its function ``sq.function``, the
path by which it is found (``mod.sq.function`` is it); cloudpickle carries the
name with the code, and the other side gives the function its own name back,
and its own file name (cloudpickle sends ``<dynamic-code>``), so that nodes and
errors point into the file it was written in.

A method of a scripted class pickles as its class's attribute; a class defined
in ``__main__`` does not travel by value with its methods compiled.
"""

from __future__ import annotations

import importlib
import linecache
import weakref
from typing import Any, Callable, Optional, Tuple

from ..pickling import cached, token

__all__ = ["remember", "reduce_script", "script_token"]

#: ``pyjit.script``, handed over by the package's ``__init__``: the compiler
#: imports ScriptFunction, which imports this module, so importing the compiler
#: here would make a circle of the frontend's modules.
script: Optional[Callable[[Any], Any]] = None

# The ScriptFunction made from each Python function, by the function's id (the
# ScriptFunction holds the function, so the id stays valid while it lives).
_made_from: "weakref.WeakValueDictionary[int, Any]" = weakref.WeakValueDictionary()

Record = Tuple[str, str, int, Tuple[str, ...]]   # qualname, file, first line, lines


def remember(sf) -> None:
    """Note that ``sf`` was made from ``sf.function`` (ScriptFunction's ``__init__``).
    A function scripted again keeps its first ScriptFunction here while that one
    lives (a decorated function's is the decorator's); they compute the same."""
    _made_from.setdefault(id(sf.function), sf)


def _lookup(module: Optional[str], qualname: str) -> Any:
    try:
        obj: Any = importlib.import_module(module)  # type: ignore[arg-type]
        for part in qualname.split("."):
            obj = getattr(obj, part)
        return obj
    except Exception:  # not importable (a local function, a module gone): by value
        return None


def _record(sf) -> Record:
    """The function's source as the file had it when it was scripted, with where
    it starts (the file may be gone since, or changed)."""
    src = sf._compiled.source
    return (sf.__qualname__, src.file, src.first_line, src.lines)


def reduce_script(sf) -> Tuple[Any, ...]:
    """``ScriptFunction.__reduce__``."""
    if sf.owner is not None:
        return (getattr, (sf.owner.cls, sf.__name__))
    fn = sf.function
    qualname = sf.__qualname__
    if fn.__qualname__ == qualname and _lookup(fn.__module__, qualname) is sf:
        fn.__qualname__ = f"{qualname}.function"   # see the module docstring
    return (_unpickled_script, (fn, _record(sf)))


def _unpickled_script(fn, record: Record):
    """The ScriptFunction of ``fn`` here: the one made from it already (it came by
    reference), else ``fn`` scripted from the source that came with it."""
    sf = _made_from.get(id(fn))
    if sf is not None and sf.function is fn:
        return sf
    qualname, file, first, lines = record
    fn.__qualname__ = qualname
    if fn.__code__.co_filename != file:  # cloudpickle sends "<dynamic-code>"
        fn.__code__ = fn.__code__.replace(co_filename=file)
    _provide_source(file, first, lines)
    return cached(("script", fn.__module__, qualname, file, first, lines), lambda: script(fn))


def _provide_source(file: str, first: int, lines: Tuple[str, ...]) -> None:
    """Make ``lines`` readable as lines ``first``... of ``file`` for ``inspect``
    (which scripting reads the source with), unless the file says so already."""
    linecache.checkcache(file)   # forget a file that was read once, and since deleted
    have = linecache.getlines(file)
    if tuple(have[first - 1:first - 1 + len(lines)]) == lines:
        return
    text = ["\n"] * (first - 1) + list(lines)
    # mtime None: linecache.checkcache leaves the entry alone (no file to check).
    linecache.cache[file] = (sum(map(len, text)), None, text, file)


def script_token(sf) -> str:
    """``ScriptFunction.__dask_tokenize__``: its name and its source."""
    if sf.owner is not None:
        return token("pyjit.ScriptFunction", sf.owner.name, sf.__name__, sf.source)
    return token("pyjit.ScriptFunction", sf.function.__module__, sf.__qualname__, sf.source)
