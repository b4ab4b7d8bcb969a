"""The graph rewrites that run before code generation (the seed's preprocessing).

Each pass lives in a module named after it; :func:`preprocess` runs them in the
seed's order on a copy of the user's graph.
"""

from .desugar_trip_counts import desugar_trip_counts
from .drop_unused import drop_unused
from .find_last_uses import find_last_uses
from .flatten_io import flatten_io
from .preprocess import Preprocessed, preprocess

__all__ = ["desugar_trip_counts", "flatten_io", "drop_unused", "find_last_uses",
           "preprocess", "Preprocessed"]
