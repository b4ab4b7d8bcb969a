"""The graph rewrites that run before code generation (the seed's preprocessing),
and :func:`inline_calls`, which replaces calls by the graphs they call.

Each pass lives in a module named after it; :func:`preprocess` runs the seed's in
its order on a copy of the user's graph.
"""

from .desugar_trip_counts import desugar_trip_counts
from .drop_unused import drop_unused
from .find_last_uses import find_last_uses
from .flatten_io import flatten_io
from .inline_calls import inline_calls
from .preprocess import Preprocessed, preprocess

__all__ = ["desugar_trip_counts", "flatten_io", "drop_unused", "find_last_uses",
           "preprocess", "Preprocessed", "inline_calls"]
