"""pyjit's graph IR: graphs, their types, and the text format torch prints."""

from . import types
from .graph import Block, Graph, IRError, Node, Use, Value, constant_type
from .printer import node_header, print_graph
from .source import SourceLocation
from .symbols import aten, prim

__all__ = ["Graph", "Block", "Node", "Value", "Use", "IRError", "SourceLocation",
           "types", "prim", "aten", "print_graph", "node_header", "constant_type"]
