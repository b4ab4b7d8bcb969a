"""Python functions written to real files, for tests that script source text.

``pyjit.script`` reads a function's source with ``inspect.getsource`` and records
``file:line:col`` in the graph, so a test that builds a program from a string
needs the string in a real module file: :func:`load_function` writes and imports
one, :func:`short_paths` makes the graph's paths independent of the temporary
directory.
"""

from __future__ import annotations

import importlib.util
import inspect
import linecache
import textwrap
from pathlib import Path

__all__ = ["load_function", "short_paths"]


def load_function(source: str, directory, name: str = None, module_name: str = "prog"):
    """Write ``source`` to ``directory/<module_name>.py``, import it and return the
    function ``name`` (the last one defined if not given): a real file, so that
    ``inspect.getsource`` and the graph's source locations work as for any module.
    Graph text then refers to the file as ``<module_name>.py`` after
    :func:`short_paths`."""
    path = Path(directory) / f"{module_name}.py"
    path.write_text(textwrap.dedent(source))
    linecache.checkcache(str(path))
    spec = importlib.util.spec_from_file_location(f"{module_name}_{abs(hash(str(path)))}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    if name is None:
        fns = [v for v in vars(module).values()
               if inspect.isfunction(v) and v.__module__ == module.__name__]
        return fns[-1]
    return getattr(module, name)


def short_paths(text: str, directory) -> str:
    """``text`` with ``directory/`` removed from file paths."""
    return text.replace(str(directory) + "/", "")
