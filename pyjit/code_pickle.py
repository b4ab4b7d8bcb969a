"""What a :class:`~pyjit.code.Code` pickles as: its *recipe*, from which the other
side compiles the same table (see :mod:`pyjit.pickling` for the whole picture).

A recipe is a tuple of plain values (and a unit, which pickles as its graphs)::

    ("graph", text, optimize, registry name, name)   a Code of its own: the graph
                                                     it was compiled from, as text
    ("unit", unit, (class, name), optimize)          a function or method of a unit
    ("unit graph", unit, text, optimize)             a fork's subgraph in a unit

The text is :func:`~pyjit.passes.restore_source` of the Code's preprocessed
graph, worked out at the first pickle and kept with the Code (it is immutable):
printing a graph costs about a third of compiling it, which a pickle of a
Function for each of a million tasks would otherwise pay each time.
"""

from __future__ import annotations

from typing import Any, Tuple

from .pickling import cached, registry_name, registry_named, token

__all__ = ["recipe", "code_from_recipe", "reduce_code", "code_token", "source_text"]


def source_text(code) -> str:
    """The text of the graph ``code`` was compiled from (up to the numbers of
    unnamed values), worked out once."""
    text = code.__dict__.get("_source_text")
    if text is None:
        from .passes.restore_source import restore_source
        with code._lock:
            text = code.__dict__.get("_source_text")
            if text is None:
                text = str(restore_source(code.graph, desugared=not code.optimize))
                code._source_text = text
    return text


def recipe(code) -> Tuple[Any, ...]:
    """What ``code`` pickles as (see the module docstring)."""
    unit = code.unit
    if unit is None:
        return ("graph", source_text(code), code.optimize,
                registry_name(code.registry, repr(code)), code.name)
    key = unit._key_of(code)
    if key is not None:
        return ("unit", unit, key, code.optimize)
    return ("unit graph", unit, source_text(code), code.optimize)


def code_from_recipe(r: Tuple[Any, ...]):
    """The Code ``r`` describes, compiled once per process (:func:`pyjit.pickling.cached`)."""
    return cached(("code",) + tuple(r), lambda: _compile(r))


def _compile(r: Tuple[Any, ...]):
    from .code import Code
    from .ir.parser import parse_ir
    kind = r[0]
    if kind == "graph":
        _, text, optimize, registry, name = r
        return Code(parse_ir(text), registry=registry_named(registry), optimize=optimize,
                    name=name, copy=False)
    if kind == "unit":
        _, unit, (cls, name), optimize = r
        return unit.code(name, cls, optimize=optimize)
    if kind == "unit graph":
        _, unit, text, optimize = r
        return Code(parse_ir(text), registry=unit._registry, optimize=optimize, unit=unit,
                    copy=False)
    raise ValueError(f"not a pickled Code: {kind!r}")


def reduce_code(code) -> Tuple[Any, ...]:
    """``Code.__reduce__``."""
    return (code_from_recipe, (recipe(code),))


def recipe_token(r: Tuple[Any, ...]) -> str:
    """A digest of a recipe, the same in every process."""
    kind = r[0]
    if kind == "graph":
        return token("pyjit.Code", *r)
    unit = r[1]
    return token("pyjit.Code", kind, unit.__dask_tokenize__(), *r[2:])


def code_token(code) -> str:
    """``Code.__dask_tokenize__``."""
    return recipe_token(recipe(code))
