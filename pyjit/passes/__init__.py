"""The graph rewrites that run before code generation (the seed's preprocessing),
:func:`inline_calls`, which replaces calls by the graphs they call, and
:func:`call_context_methods`, which makes ``with`` statements on objects of a
unit's classes call their ``__enter__``/``__exit__``.

Each pass lives in a module named after it; :func:`preprocess` runs the seed's in
its order on a copy of the user's graph (after ``call_context_methods``, given a
unit).
"""

from .context_methods import call_context_methods

from .desugar_trip_counts import desugar_trip_counts
from .drop_unused import drop_unused
from .find_last_uses import find_last_uses
from .flatten_io import flatten_io
from .inline_calls import inline_calls
from .preprocess import Preprocessed, preprocess

__all__ = ["desugar_trip_counts", "flatten_io", "drop_unused", "find_last_uses",
           "preprocess", "Preprocessed", "inline_calls", "call_context_methods"]
