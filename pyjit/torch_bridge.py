"""From torch to pyjit: :func:`from_torch` turns a TorchScript function or module into
a pyjit :class:`~pyjit.Function` that runs on pyjit's interpreter::

    import torch, pyjit

    @torch.jit.script
    def scale(x: torch.Tensor, k: float = 2.0) -> torch.Tensor:
        return x * k

    f = pyjit.from_torch(scale)
    f(torch.ones(3))                # array([2., 2., 2.], dtype=float32)
    f(np.ones(3), k=0.5)            # numpy arrays are tensors to pyjit already
    pyjit.from_torch(scale, return_torch=True)(torch.ones(3))   # tensor([2., 2., 2.])

What it takes:

* a ``torch.jit.ScriptFunction``: ``torch.jit.script(f)`` of a function, or
  ``torch.jit.trace(f, example)``;
* a ``torch.jit.ScriptModule``: ``torch.jit.script(module)`` or
  ``torch.jit.trace(module, example)``, of which it runs ``forward`` (or the
  exported method named by ``method=``).

How: the graph torch holds, with every call inlined (inside fork subgraphs too),
is printed and read back with :func:`~pyjit.ir.parser.parse_ir`: the text format
is the contract between torch and pyjit, as for graphs saved to files.  The
printed text rounds tensor constants (``0.1411``) or leaves their values out
(``<Tensor>``), so each tensor constant then gets its exact values and dtype from
torch's graph (:class:`~pyjit.ir.literals.TensorValue`).

A module is *frozen* first: a deep copy of it is put in eval mode and
``torch._C._freeze_module`` turns its parameters, buffers and plain attributes
into constants and inlines its submodules' methods, so the graph no longer reads
anything from ``self`` and the ``self`` input is dropped.  The user's module is
left as it was (its mode included).  This is the first half of
``torch.jit.freeze``; the second half, its numerics-changing rewrites (linear
layers turned into matmuls of transposed weights, folded batch norms), is left
out so that pyjit runs the module's graph as written.

Not supported yet:

* Module attributes at run time and method calls (``prim::GetAttr``,
  ``prim::SetAttr``, ``prim::CallMethod`` left after freezing: a ``forward``
  that assigns an attribute, or calls through an interface) and class objects
  (``prim::CreateObject``): they come with calls and modules in the interpreter
  (issue 12).  Until then :func:`from_torch` raises
  :class:`~pyjit.TorchConversionError` naming the node and its line.
* Training mode: a module runs as in eval mode (dropout off, batch norm with its
  running statistics), since that is what freezing fixes in the graph.
* Autograd: tensors are numpy arrays, ``requires_grad`` is dropped; and dtypes
  numpy lacks (``bfloat16``, quantized tensors) are refused.
* Operators pyjit's library does not have are an
  :class:`~pyjit.OperatorNotFoundError` when the Function is built, naming the
  node (tracing, for instance, records ``aten::to`` and ``aten::detach`` where a
  traced function calls ``torch.tensor``).

pyjit never imports torch: an object of torch's can only exist once torch is
imported, so :func:`from_torch` finds torch in ``sys.modules``.
"""

from __future__ import annotations

import copy
import inspect
import sys
from types import ModuleType
from typing import Any, Iterator, List, Optional, Tuple

from .errors import TorchConversionError
from .interpreter import Function
from .ir import Graph, Node, node_header
from .ir.literals import TensorValue
from .ir.parser import parse_ir
from .ir.traversal import nodes_depth_first
from .registry import Registry

__all__ = ["from_torch", "TorchFunction"]

# What each kind pyjit cannot run yet stands for, in the error message.
_NOT_YET = {
    "prim::GetAttr": "reading an attribute at run time",
    "prim::SetAttr": "assigning an attribute at run time",
    "prim::CallMethod": "calling a method",
    "prim::CallFunction": "calling a function that was not inlined",
    "prim::CreateObject": "creating a class instance",
}


class TorchFunction(Function):
    """A :class:`~pyjit.Function` made by :func:`from_torch`: called with the torch
    function's signature (keywords and defaults from its schema), torch tensors
    among the arguments (also inside lists, tuples and dicts) are converted to
    numpy arrays, and with ``return_torch`` the results are converted back.

    Attributes:
        name: the torch function's name (the module's class name for a module).
        schema: its TorchScript schema, e.g. ``scale(Tensor x, float k=2.) -> Tensor``.
        signature: the :class:`inspect.Signature` calls are bound with.
        return_torch: whether numpy arrays in results become torch tensors.
    """

    __slots__ = ("name", "schema", "signature", "return_torch", "_torch")

    def __init__(self, graph: Graph, *, name: str, schema: str, signature: inspect.Signature,
                 return_torch: bool, torch: ModuleType, loop: Optional[ModuleType] = None,
                 registry: Optional[Registry] = None) -> None:
        super().__init__(graph, loop=loop, registry=registry)
        self.name = name
        self.schema = schema
        self.signature = signature
        self.return_torch = return_torch
        self._torch = torch

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        try:
            bound = self.signature.bind(*args, **kwargs)
        except TypeError as exc:
            raise TypeError(f"{self.name}(): {exc}") from None
        values = []
        for name, param in self.signature.parameters.items():
            if name in bound.arguments:
                values.append(_to_numpy(self._torch, bound.arguments[name], self.name, name))
            else:
                # A fresh copy per call: a graph may mutate a list it was given.
                values.append(copy.deepcopy(param.default))
        result = super().__call__(*values)
        return _to_torch(self._torch, result) if self.return_torch else result

    def __repr__(self) -> str:
        return f"<pyjit.from_torch {self.schema}>"


def from_torch(obj: Any, *, method: str = "forward", return_torch: bool = False,
               loop: Optional[ModuleType] = None,
               registry: Optional[Registry] = None) -> TorchFunction:
    """A pyjit Function running ``obj``'s graph (see the module docstring).

    Args:
        obj: a ``torch.jit.ScriptFunction`` (scripted or traced function) or a
            ``torch.jit.ScriptModule`` (scripted or traced module).
        method: for a module, the method to run (``forward`` unless an exported
            method is named).
        return_torch: convert numpy arrays in the results to torch tensors
            (``torch.from_numpy``, sharing memory).
        loop, registry: as for :class:`~pyjit.Function`.

    Raises:
        TypeError: ``obj`` is not a TorchScript function or module (a plain
            ``nn.Module`` or Python function must be scripted or traced first).
        TorchConversionError: the graph needs what pyjit cannot run yet (module
            attributes or method calls at run time), or holds a tensor constant
            numpy has no dtype for.
        OperatorNotFoundError: a node has no operator in pyjit's library.
    """
    torch = sys.modules.get("torch")
    if torch is None:  # then obj cannot be one of torch's objects
        raise TypeError(f"from_torch() takes a TorchScript function or module, not "
                        f"{type(obj).__name__} (torch is not imported)")
    tgraph, tschema, name, module = _torch_graph(torch, obj, method)
    _inline_all(torch, tgraph)
    # The caller's own torch object: its locations are the caller's files.
    graph = parse_ir(str(tgraph), file=f"<torch graph of {name}>", read_sources=True)
    _attach_tensor_values(torch, tgraph, graph)
    _check_supported(graph)
    arguments = list(tschema.arguments)
    if module:
        _drop_self(graph, name)
        arguments = arguments[1:]
    if len(arguments) != len(graph.inputs):
        raise TorchConversionError(f"{name}: the schema {tschema} has {len(arguments)} "
                                   f"argument(s) but the graph {len(graph.inputs)} input(s)")
    return TorchFunction(graph, name=name, schema=str(tschema),
                         signature=_signature(arguments), return_torch=return_torch,
                         torch=torch, loop=loop, registry=registry)


# -- finding the graph ----------------------------------------------------------------------

def _torch_graph(torch: ModuleType, obj: Any, method: str):
    """``(graph, schema, name, is_module)``: a copy of the graph to convert."""
    if isinstance(obj, torch.jit.ScriptFunction):
        return obj.graph.copy(), obj.schema, obj.name, False
    if isinstance(obj, torch.jit.ScriptModule):
        if not obj._c._has_method(method):
            raise TypeError(f"from_torch(): the module {obj.original_name} has no scripted "
                            f"method {method!r}")
        frozen = _freeze(torch, obj, method)
        return (frozen._get_method(method).graph.copy(), getattr(obj, method).schema,
                obj.original_name if method == "forward" else f"{obj.original_name}.{method}",
                True)
    if isinstance(obj, torch.ScriptMethod):
        raise TypeError(f"from_torch() takes the module, not its method: "
                        f"from_torch(module, method={obj.name!r})")
    if isinstance(obj, torch.nn.Module):
        raise TypeError(f"from_torch() takes a scripted or traced module; script this "
                        f"{type(obj).__name__} first: from_torch(torch.jit.script(module))")
    if callable(obj):
        raise TypeError(f"from_torch() takes a TorchScript function; script this "
                        f"{type(obj).__name__} first: from_torch(torch.jit.script(f)) "
                        "(or compile it with pyjit.script)")
    raise TypeError(f"from_torch() takes a TorchScript function or module, not "
                    f"{type(obj).__name__}")


def _freeze(torch: ModuleType, module: Any, method: str):
    """The C++ module of an eval-mode deep copy of ``module``, frozen (see the module
    docstring); ``module`` itself is not touched."""
    try:
        clone = copy.deepcopy(module)
    except Exception as exc:
        raise TorchConversionError(f"cannot copy the module {module.original_name} to "
                                   f"freeze it: {exc}") from exc
    clone.eval()
    return torch._C._freeze_module(clone._c, [] if method == "forward" else [method])


def _inline_all(torch: ModuleType, graph: Any) -> None:
    """Inline every call in ``graph`` and, as torch's inliner does not look inside
    them, in its fork subgraphs (and theirs)."""
    graphs = [graph]
    while graphs:
        g = graphs.pop()
        torch._C._jit_pass_inline(g)
        graphs.extend(n.g("Subgraph") for n in _torch_nodes(g) if n.hasAttribute("Subgraph"))


def _torch_nodes(graph: Any) -> Iterator[Any]:
    """Every node of a torch graph, nested ones included, in the order of
    :meth:`pyjit.ir.Graph.all_nodes` (a node, then its blocks' nodes)."""
    return nodes_depth_first(graph, lambda b: b.nodes(), lambda n: list(n.blocks()))


# -- after parsing ---------------------------------------------------------------------------

def _attach_tensor_values(torch: ModuleType, tgraph: Any, graph: Graph) -> None:
    """Give each tensor constant of ``graph`` the exact values of the same constant
    in torch's graph, walking both (and their subgraphs) in step."""
    pairs: List[Tuple[Any, Graph]] = [(tgraph, graph)]
    while pairs:
        tg, g = pairs.pop()
        tnodes, nodes = list(_torch_nodes(tg)), list(g.all_nodes())
        if [n.kind() for n in tnodes] != [n.kind for n in nodes]:
            raise RuntimeError("the graph pyjit read back from torch's text does not have "
                               "torch's nodes (a bug in pyjit's parser)")
        for tn, n in zip(tnodes, nodes):
            if tn.hasAttribute("Subgraph"):
                pairs.append((tn.g("Subgraph"), n.attrs["Subgraph"]))
            if (tn.kind() == "prim::Constant" and tn.hasAttribute("value")
                    and tn.kindOf("value") == "t"):
                printed = getattr(n.attrs.get("value"), "text", "<Tensor>")
                n.attrs["value"] = TensorValue(printed, _constant_array(tn.t("value"), n))


def _constant_array(tensor: Any, node: Node):
    try:
        return tensor.detach().cpu().resolve_conj().resolve_neg().numpy()
    except (TypeError, RuntimeError) as exc:
        raise TorchConversionError(
            f"{_where(node)}a tensor constant of dtype {tensor.dtype}, which numpy (and so "
            f"pyjit) cannot hold: {node_header(node)}") from exc


def _where(node: Node) -> str:
    """``file:line:col: `` of ``node``; freezing leaves attribute reads without a
    location, so failing that, of the first node using its outputs or after it."""
    candidates = [node] + [use.user for v in node.outputs for use in v.uses]
    after = node.next
    while after is not None and after.kind != "prim::Return":
        candidates.append(after)
        after = after.next
    loc = next((n.source_location for n in candidates if n.source_location is not None), None)
    return f"{loc}: " if loc is not None else ""


def _check_supported(graph: Graph) -> None:
    graphs = [graph]
    while graphs:
        for n in graphs.pop().all_nodes():
            what = _NOT_YET.get(n.kind)
            if what is not None:
                if n.kind in ("prim::GetAttr", "prim::SetAttr"):
                    what = (what.replace("an attribute", f"the attribute {n.attrs.get('name')!r}")
                            + ": freezing keeps an attribute that the method assigns")
                raise TorchConversionError(
                    f"{_where(n)}pyjit cannot run {n.kind} yet ({what}): {node_header(n)}")
            sub = n.attrs.get("Subgraph")
            if isinstance(sub, Graph):
                graphs.append(sub)


def _drop_self(graph: Graph, name: str) -> None:
    """Remove a frozen method's ``self`` input, which nothing may use any more."""
    me = graph.inputs[0]
    if me.has_uses():
        user = me.uses[0].user
        raise TorchConversionError(
            f"{_where(user)}{name} uses the module object itself, which pyjit cannot "
            f"hold yet: {node_header(user)}")
    graph.erase_input(0)


def _signature(arguments) -> inspect.Signature:
    params = []
    for arg in arguments:
        kind = (inspect.Parameter.KEYWORD_ONLY if arg.kwarg_only
                else inspect.Parameter.POSITIONAL_OR_KEYWORD)
        default = arg.default_value if arg.has_default_value() else inspect.Parameter.empty
        params.append(inspect.Parameter(arg.name, kind, default=default))
    return inspect.Signature(params)


# -- values across the bridge ---------------------------------------------------------------

def _to_numpy(torch: ModuleType, value: Any, fn: str, arg: str) -> Any:
    """``value`` with every torch tensor in it (in lists, tuples, dicts) a numpy
    array sharing its memory (a copy for a tensor off the CPU); containers without
    tensors are passed on as they are, so a graph mutating them is seen."""
    if isinstance(value, torch.Tensor):
        t = value.detach().cpu().resolve_conj().resolve_neg()
        try:
            return t.numpy()
        except (TypeError, RuntimeError) as exc:
            raise TypeError(f"{fn}(): argument '{arg}' is a {t.dtype} tensor, which numpy "
                            f"(and so pyjit) cannot hold ({exc}); convert it first, e.g. "
                            "with .float()") from None
    return _map_containers(value, lambda v: _to_numpy(torch, v, fn, arg))


def _to_torch(torch: ModuleType, value: Any) -> Any:
    """``value`` with every numpy array in it a torch tensor (``torch.from_numpy``,
    sharing memory; a read-only or negatively strided array is copied first, as
    torch cannot take those)."""
    import numpy as np

    if isinstance(value, np.ndarray):
        if not value.flags.writeable or any(s < 0 for s in value.strides):
            value = value.copy()
        return torch.from_numpy(value)
    return _map_containers(value, lambda v: _to_torch(torch, v))


def _map_containers(value: Any, convert) -> Any:
    """``convert`` applied inside lists, tuples (named ones too) and dicts; the
    container itself when nothing in it changed."""
    if isinstance(value, (list, tuple)):
        items = [convert(v) for v in value]
        if all(a is b for a, b in zip(items, value)):
            return value
        if isinstance(value, list):
            return items
        return type(value)(*items) if hasattr(value, "_fields") else type(value)(items)
    if isinstance(value, dict):
        converted = {k: convert(v) for k, v in value.items()}
        if all(converted[k] is v for k, v in value.items()):
            return value
        return converted
    return value
