"""pyjit's coverage of torch, measured two ways.

* torch's operator database, as ``opdb.txt`` (beside this module) records it,
  entry by entry; ``tests/test_opdb.py`` checks every line against torch's
  recorded results, so the counts here are measured, not claimed.
* torch's operator surface: every schema torch registers for TorchScript
  (``torch_schemas.txt.xz``, torch's own text, one a line), classified as
  implemented by the registry, out of scope by one of :data:`RULES` (each a
  reason), or missing (:func:`surface_coverage`); ``pyjit info --ops`` prints it.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Dict, FrozenSet, List, NamedTuple, Optional, Tuple

from ..ir import torch_schemas as torch_list, types as T
from ..ir.schema import Schema, parse as parse_schema
from ..ir.schema import REQUIRED
from ..ir.type_relation import matches
from ..registry import Operator, Registry, _accepts

__all__ = ["Coverage", "opdb_coverage", "Rule", "RULES", "SchemaStatus", "Surface",
           "torch_schemas", "out_of_scope", "implementation",
           "surface_coverage", "OWN_OVERLOADS", "Declaration", "declaration", "declarations"]

OPDB = Path(__file__).with_name("opdb.txt")


class Coverage(NamedTuple):
    """``status`` by entry name: ``"pass"``, ``"fail: <reason>"`` or
    ``"unscriptable: <why>"``."""

    status: Dict[str, str]

    @property
    def passing(self):
        return sorted(n for n, s in self.status.items() if s == "pass")

    @property
    def failing(self) -> Dict[str, str]:
        return {n: s[len("fail: "):] for n, s in self.status.items() if s.startswith("fail: ")}

    @property
    def scriptable(self) -> int:
        return sum(not s.startswith("unscriptable") for s in self.status.values())


def opdb_coverage(path: Path = OPDB) -> Coverage:
    """Read ``opdb.txt``: one entry a line, ``<name> <status>``; ``#`` comments."""
    status = {}
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        name, _, rest = line.partition(" ")
        rest = rest.strip()
        if not (rest == "pass" or rest.startswith(("fail: ", "unscriptable: "))):
            raise ValueError(f"{path.name}:{number}: expected 'pass', 'fail: <reason>' or "
                             f"'unscriptable: <why>' after the entry name, got {rest!r}")
        if name in status:
            raise ValueError(f"{path.name}:{number}: {name} is listed twice")
        status[name] = rest
    return Coverage(status)


# -- torch's operator surface ---------------------------------------------------------------
#
# Every schema of torch's list (torch_schemas.txt.xz, written by
# tools/schemas/make_torch_schemas.py) is one of three things, decided in this
# order: *implemented* (pyjit's registry runs a node of its kind with its
# argument types), *out of scope* (a rule below says why pyjit will not run it),
# or *missing*.  Nothing here is a stored count: every figure is computed from
# the file and the registry when asked.

SCHEMAS = torch_list.PATH


class Rule(NamedTuple):
    """Schemas out of scope for one reason: those of a namespace in
    ``namespaces`` (empty: any), whose kind's name (after ``ns::``) matches
    ``name`` (a regular expression, matched whole; empty: any) and, with
    ``on_tensors``, that take or return a tensor (``aten::values.int`` reads a
    dict; ``aten::values`` of a tensor is a sparse tensor's) and, with
    ``overload``, whose overload name matches it (``aten::mm.dtype`` is CUDA's
    alone; ``aten::mm`` is everyone's)."""

    reason: str
    namespaces: Tuple[str, ...] = ()
    name: str = ""
    on_tensors: bool = False
    overload: str = ""      # a regular expression the overload name matches whole; empty: any

    def applies(self, schema: Schema) -> bool:
        if self.namespaces and schema.namespace not in self.namespaces:
            return False
        if self.overload and re.fullmatch(self.overload, schema.overload) is None:
            return False
        if self.on_tensors and not any(isinstance(a.type, T.TensorType)
                                       for a in schema.arguments + schema.returns):
            return False
        return not self.name or re.fullmatch(self.name, schema.base) is not None


_QUANT = "quantized tensors and quantization"
_SPARSE = "sparse tensors (COO, CSR, CSC, BSR, BSC)"
_BACKEND = "another backend's kernels (CUDA, cuDNN, MIOpen, MPS, oneDNN/MKLDNN, FBGEMM, Vulkan)"
_AUTOGRAD = "autograd: gradients, backward kernels, the graph's bookkeeping"
_DIST = "distributed: process groups, RPC, remote references"
_COMPILER = "the JIT's and compilers' own nodes (fusion groups, guards, profiling, prims)"

#: Why a schema is out of scope, first match wins.  The order matters only for
#: which reason a schema gets: every rule is a reason on its own.
RULES: Tuple[Rule, ...] = (
    Rule(_QUANT, ("quantized", "_quantized", "quantization")),
    Rule(_DIST, ("c10d", "_c10d_functional", "_c10d_functional_autograd", "symm_mem",
                 "_dtensor")),
    Rule(_BACKEND, ("mkldnn", "mkldnn_prepacked", "onednn", "mkl")),
    Rule(_COMPILER, ("prims", "debugprims", "inductor", "inductor_prims", "rngprims", "export",
                     "static_runtime", "_native")),
    Rule("the profiler and debug modes", ("profiler", "debug_mode_ops")),
    Rule(_SPARSE, ("sparse",)),
    Rule("ONNX export", ("onnx",)),
    Rule("torch's own tests", ("_test",)),
    Rule(_COMPILER, ("prim",),
         r"AddStatValue|Autograd\w+|Bail\w+|\w*MKLDNN\w*|BroadcastSizes|ChunkSizes|"
         r"ConstantChunk|DifferentiableGraph|FallbackGraph|FusedConcat|FusionGroup|Guard|"
         r"IfThenElse|IgnoredPythonOp|PythonOp|MMBatchSide|MMTreeReduce|ReductionSizes|"
         r"RequiresGradCheck|StaticRuntimeCopyOuts|StaticSubgraph|TensorExpr\w+|TimePoint|"
         r"TypeCheck|VarConcat|VarStack|oneDNN\w+|mkldnn_convolution|profile|profile_ivalue|"
         r"ModuleContainerIndex"),
    Rule(_DIST, ("prim",), r"rpc_\w+"),
    Rule(_AUTOGRAD, ("prim",), r"grad"),
    Rule(_DIST, ("aten",), r"confirmed_by_owner|is_owner|local_value|owner|owner_name|to_here|"
                           r"get_gradients|is_distributed"),
    Rule(_QUANT, ("aten",), r"_?(?:quantize\w*|dequantize\w*|q_\w+|qscheme|int_repr|"
                            r"fake_quantize\w*|\w*quantized\w*|fused_moving_avg_obs_fake_quant|"
                            r"choose_qparams\w*|fbgemm\w*|\w*_qtensor\w*|\w*per_tensor\w*|"
                            r"\w*per_channel\w*|make_per_\w+|saturate_weight_to_fp16|"
                            r"\w*_quant_\w*|\w*observer\w*|\w*_qparams\w*)"),
    Rule(_SPARSE, ("aten",), r"_?(?:\w*sparse\w*|indices|values|\w+_indices|indices_copy|"
                             r"values_copy|\w+_indices_copy|coalesce|_?coalesced\w*|is_coalesced|"
                             r"dense_dim|sparse_dim|hspmm|smm|sspaddmm|\w*to_dense\w*|"
                             r"_nnz|\w*csr\w*|\w*csc\w*|\w*bsr\w*|\w*bsc\w*|\w*coo\w*|"
                             r"_?compressed\w*|\w*_semi_structured\w*|_?cslt\w*|_spsolve|"
                             r"_validate_compressed\w*|_mixed_dtypes_linear)", on_tensors=True),
    Rule(_BACKEND, ("aten",), r"_?(?:cudnn\w*|miopen\w*|\w*mkldnn\w*|mps_\w*|\w*_mps\w*|cuda|"
                              r"is_vulkan_available|record_stream|_cufft\w*|_cuda\w*|\w*_cudnn\w*|"
                              r"_nnpack\w*|_use_cudnn\w*|\w*_flash_attention\w*|"
                              r"\w*efficient_attention\w*|_scaled_dot_product_cudnn\w*|"
                              r"_fused_sdp_choice|_triton\w*|_vulkan\w*|_xpu\w*|\w*_mtia\w*|"
                              r"_cummax_helper|_cummin_helper|_weight_int\w*|_convert_weight\w*|"
                              r"_fbgemm\w*|_has_compatible_shallow_copy_type|_is_zerotensor|"
                              r"_pin_memory|_dyn_quant\w*|_cslt\w*|_scaled_mm\w*|"
                              r"_scaled_grouped\w*|_grouped_mm|_fused_rms_norm\w*|_cudnn_\w*|"
                              r"_jagged\w*|_fused_adam\w*|"
                              r"_fused_adagrad\w*|_fused_sgd\w*|_fused_dropout|_masked_softmax\w*|"
                              r"_thnn_\w*|_mps\w*|conv_depthwise3d|convolution_overrideable|"
                              r"batch_norm_stats|batch_norm_elemt|batch_norm_gather_stats\w*)"),
    # torch has these only as CUDA kernels: its CPU build refuses them ("Could not run
    # 'aten::mm.dtype' with arguments from the 'CPU' backend")
    Rule(_BACKEND, ("aten",), r"mm|bmm|addmm|baddbmm", overload=r"dtype(?:_out)?"),
    Rule(_AUTOGRAD, ("aten",), r"_?(?:\w+_backward(?:_\w+)?|\w+_jvp|backward|grad|retain_grad|"
                               r"retains_grad|is_leaf|output_nr|set_data|_version|_fw_primal\w*|"
                               r"_make_dual\w*|_unpack_dual)"),
    Rule("nested tensors", ("aten",), r"_?\w*nested\w*"),
    Rule("functionalization and export internals (lift, symbolic-shape constraints)",
         ("aten",), r"lift|lift_fresh\w*|sym_constrain_range\w*|_assert\w*|_print|"
                    r"_functionalize\w*|_unsafe_view|_reshape_alias\w*|_make_per\w*|_mkldnn\w*|"
                    r"_add_batch_dim|_remove_batch_dim|_local_scalar_dense|_fake_quantize\w*|"
                    r"_dimI|_dimV|_values\w*|_indices\w*|_to_cpu|_chunk_cat|_unsafe_\w+|"
                    r"_test_\w+|_batch_norm_impl_index|_sym_constrain\w*|_enable_functionalization|"
                    r"_disable_functionalization|_dynamo\w*|_debug\w*"),
    Rule("files and storages: serialized I/O is torch.save's, not a graph's",
         ("aten",), r"save|from_file|set|set_|_set_\w*|is_set_to|_sparse\w*|_storage\w*|"
                    r"_copy_from\w*|resize_as_sparse\w*"),
    Rule("dtypes numpy has no type for (ComplexHalf, BFloat16, float8...)", ("aten",),
         r"chalf"),
    Rule("a leading underscore: torch's internals, not its public surface", ("aten",),
         r"_(?!_)\w+"),
)

#: Kinds pyjit registers that torch's list does not have, each with why.  The
#: families generate in-place and ``_copy`` forms from one table row where torch
#: registers only some (``fmax_``, ``flatten_copy``); the rest are the nodes of
#: the IR itself, which torch's interpreter runs without a schema.
EXTENSION_RULES: Tuple[Tuple[str, str], ...] = (
    (r"prim::(?:ListConstruct|ListUnpack|TupleConstruct|TupleSlice|DictConstruct|CreateObject|"
     r"GetAttr|SetAttr|Enter|Exit|isinstance)",
     "a node of the IR that torch's interpreter runs without a schema"),
    (r"aten::ndimension", "Tensor.ndimension(), which torch's frontend lowers to aten::dim"),
    (r"torchvision::\w+", "torchvision's operators, declared by torchvision's own schemas "
                           "(ops/vision.SCHEMAS), which torch's list does not hold"),
    (r"torchaudio::\w+", "torchaudio's operators, declared by torchaudio's own schemas "
                          "(ops/audio.SCHEMAS), which torch's list does not hold"),
    (r"pyjit::\w+", "pyjit's fused kernels, which only its inference passes emit "
                     "(passes/fuse_activations.py)"),
)


def _derived_extension(kind: str, torch_kinds: FrozenSet[str]) -> Optional[str]:
    """Why a kind torch lacks is a form of one it has: ``aten::fmax_`` (in place)
    or ``aten::flatten_copy`` (a view's copy), each generated from its family's
    row for the operator torch has."""
    if kind.endswith("_copy") and kind[:-len("_copy")] in torch_kinds:
        return f"the copying form of {kind[:-len('_copy')]}, from its family's row"
    if kind.endswith("_") and kind[:-1] in torch_kinds:
        return f"the in-place form of {kind[:-1]}, from its family's row"
    return None


#: Kinds whose nodes the code generator turns into instructions of the loop, so
#: that no operator is registered for them.
INSTRUCTIONS = {"aten::wait": "the loops' WAIT instruction"}


def torch_schemas(path: Path = SCHEMAS) -> List[Schema]:
    """torch's schemas, in torch's order: the shared, parsed-once list of
    :mod:`pyjit.ir.torch_schemas` (or, for another ``path``, that file's, read now)."""
    if path == SCHEMAS:
        return torch_list.all_schemas()
    out = []
    for number, line in enumerate(torch_list.read_text(path).splitlines(), 1):
        if line.strip() and not line.startswith("#"):
            try:
                out.append(parse_schema(line))
            except ValueError as exc:
                raise ValueError(f"{path.name}:{number}: {exc}") from None
    return out


def out_of_scope(schema: Schema) -> Optional[str]:
    """The reason ``schema`` is out of pyjit's scope, or None."""
    for rule in RULES:
        if rule.applies(schema):
            return rule.reason
    return None


def _probes(t: T.Type) -> Tuple[T.Type, ...]:
    """The argument types a node of an overload may carry for a schema's type:
    the type itself, and for an optional one its element and None, which is
    what a graph passes when the caller left the argument out."""
    if isinstance(t, T.OptionalType):
        return (t, t.elem, T.NONE)
    return (t,)


def implementation(registry: Registry, schema: Schema) -> Optional[Operator]:
    """The operator of ``registry`` that runs a node of this overload, or None.

    A node passes every argument, at its declared type; where the registry has
    no overload for that, one that takes each optional argument as its element
    type or as None (registered apart, as some families do) counts as well, so
    long as every argument finds one form that the same operator accepts.
    """
    ops = registry.overloads(schema.kind)
    if not ops:
        return None
    if schema.varargs and not schema.arguments:
        # "(...) -> ...": torch checks such a node's inputs itself (prim::tolist
        # takes the tensor, its dimensions and its element type), so any overload
        # of the kind runs it
        return ops[0]
    for form in _node_forms(_declared(schema)):   # the declared types before any probe
        for op in ops:
            if _runs(op, form):
                return op
    return None


def _declared(schema: Schema, n: Optional[int] = None) -> Tuple[T.Type, ...]:
    """The types a node of ``schema`` passes (of its first ``n`` arguments); a
    ``...`` is at least one more, of any type."""
    declared = schema.input_types()
    if n is not None:
        return declared[:n]
    return declared + (T.ANY,) if schema.varargs else declared


def _node_forms(declared: Tuple[T.Type, ...]):
    """The argument types a node may carry for these declared ones: as declared,
    then the forms the families register apart, each optional argument as None
    (the default a call leaves) or as its element; one combination is enough."""
    yield declared
    for choice in (lambda p: p[-1], lambda p: p[1 if len(p) > 1 else 0]):
        yield tuple(choice(_probes(t)) for t in declared)


def _runs(op: Operator, types: Tuple[T.Type, ...]) -> bool:
    return op.types == types or _accepts(op, types)   # AnyEnumType takes only enums


# -- each of the library's overloads against torch's list -------------------------------------
#
# The other direction: every overload the library registers is one of torch's
# (declared by its overload name, or with types that are a schema's), a shorter
# form of one (trailing arguments with defaults left out), a kind torch lacks
# (EXTENSION_RULES), or one of pyjit's own overloads below, each with why.

#: pyjit's own overloads of kinds torch has, which no schema of torch's declares
#: (matched against :meth:`Operator.signature`), each with why it exists.
OWN_OVERLOADS: Tuple[Tuple[str, str], ...] = (
    (r"aten::(?:__and__|__or__|__xor__|__lshift__|__rshift__|mul|multiply)\(Scalar, Tensor\)|"
     r"aten::(?:maximum|minimum)\(Tensor, Scalar\)",
     "a number as either operand of a binary tensor operator, for IR written by hand "
     "(both frontends swap or respell such calls, as torch's does)"),
    (r"aten::(?:sum|mean|nansum|nanmean|amax|amin|logsumexp|special_logsumexp|count_nonzero|"
     r"prod)\(Tensor(?:, int, bool)?\)|aten::roll\(Tensor, int, int\)|"
     r"aten::unsafe_split\(Tensor, int\[\], int\)|aten::narrow_copy\(Tensor, int, Tensor, int\)",
     "a reduction or view over one dimension given as an int, or over every one with no "
     "further argument, as IR written by hand passes them (torch's graphs pass int[])"),
    (r"aten::(?:softmax|log_softmax|special_softmax|special_log_softmax)\(Tensor, int, bool\)",
     "softmax with half_to_float, the form of aten::_softmax that older graphs call by "
     "the public name"),
    (r"aten::(?:lt|le|gt|ge)\((?:bool, bool|t\[\], t\[\])\)|aten::eq\(NoneType, NoneType\)|"
     r"aten::Bool\(bool\)|aten::(?:isnan|isinf|isfinite)\(int\)|aten::log2\((?:int|float|Scalar)\)|"
     r"aten::__not__\(Tensor\)|aten::__getitem__\(Tensor, int\)|aten::copy_\(Tensor, Scalar, bool\)|"
     r"aten::mul\(str, int\)|aten::__contains__\(str, str\)|aten::format\(str\)",
     "Python semantics that @pyjit.script compiles directly where TorchScript converts first "
     "or refuses (bools and lists compared, math.log2 of a number, a tensor indexed by an "
     "int, str * int, a format string with no arguments)"),
    (r"prim::tolist\(Tensor, int, int\)",
     "prim::tolist as torch's graphs call it: the tensor, its dimension count and element "
     "type code (torch's schema says only '...')"),
)


class Declaration(NamedTuple):
    """How one of the library's overloads relates to torch's list."""

    operator: Operator
    how: str                      # "overload", "schema", "short form", "extension", "own"
    schema: Optional[Schema]      # the torch schema, for the first three
    detail: str                   # the reason, for the last two; "" if unexplained


def _fits(op: Operator, schema: Schema, n: Optional[int] = None) -> bool:
    """Whether ``op`` runs a node of ``schema`` (of its first ``n`` arguments):
    it accepts the schema's types (or a node's probes of them), or takes only
    types the schema's accept (``aten::add(int, float)`` of ``add.int_float``)."""
    declared = _declared(schema, n)
    if any(_runs(op, form) for form in _node_forms(declared)):
        return True
    return op.types is not None and len(op.types) == len(declared) and all(
        matches(a, b, {}) for a, b in zip(op.types, declared))


def declaration(op: Operator, torch_kinds: Optional[FrozenSet[str]] = None) -> Declaration:
    """What ``op`` is of torch's list (see :data:`OWN_OVERLOADS`)."""
    if op.overload is not None:
        return Declaration(op, "overload", torch_list.overload(op.overload), "")
    schemas = torch_list.schemas_of(op.kind)
    for s in schemas:
        if _fits(op, s):
            return Declaration(op, "schema", s, "")
    if op.types is not None:
        n = len(op.types)
        for s in schemas:
            if n < len(s.arguments) and all(a.default is not REQUIRED for a in s.arguments[n:]) \
                    and _fits(op, s, n):
                return Declaration(op, "short form", s, "")
    if not schemas:
        kinds = torch_kinds if torch_kinds is not None else torch_list.kinds()
        why = next((reason for pattern, reason in EXTENSION_RULES
                    if re.fullmatch(pattern, op.kind)), None) or \
            _derived_extension(op.kind, kinds)
        return Declaration(op, "extension", None, why or "")
    signature = op.signature()
    why = next((reason for pattern, reason in OWN_OVERLOADS if re.fullmatch(pattern, signature)),
               "")
    return Declaration(op, "own", None, why)


def declarations(registry: Optional[Registry] = None) -> List[Declaration]:
    """:func:`declaration` of every overload the library registered in
    ``registry`` (the default registry if None), by kind."""
    if registry is None:
        from ..registry import default_registry as registry
    kinds = torch_list.kinds()
    return [declaration(op, kinds) for kind in registry.kinds()
            for op in registry.overloads(kind) if op.library]


class SchemaStatus(NamedTuple):
    schema: Schema
    status: str                   # "implemented", "out of scope" or "missing"
    detail: str                   # the operator's signature, or the reason; "" if missing


class Surface(NamedTuple):
    """pyjit's coverage of torch's schema list, schema by schema."""

    torch_version: str
    schemas: Tuple[SchemaStatus, ...]
    extensions: Dict[str, str]    # pyjit's kinds torch lacks -> why; "" if unexplained

    def by_status(self, status: str) -> List[SchemaStatus]:
        return [s for s in self.schemas if s.status == status]

    def kinds(self, public_aten: bool = True) -> Dict[str, str]:
        """Each kind's status: ``implemented`` if any of its overloads is,
        ``out of scope`` if every one of them is, else ``missing``.  With
        ``public_aten``, only ``aten::`` kinds whose names have no leading
        underscore."""
        by: Dict[str, List[str]] = {}
        for s in self.schemas:
            if public_aten and (s.schema.namespace != "aten" or s.schema.base.startswith("_")):
                continue
            by.setdefault(s.schema.kind, []).append(s.status)
        out = {}
        for kind, statuses in by.items():
            if "implemented" in statuses:
                out[kind] = "implemented"
            elif all(st == "out of scope" for st in statuses):
                out[kind] = "out of scope"
            else:
                out[kind] = "missing"
        return out


def surface_coverage(registry: Optional[Registry] = None, path: Path = SCHEMAS) -> Surface:
    """Classify every schema of torch's list against ``registry`` (the default
    registry, with the library, if None)."""
    if registry is None:
        from ..registry import default_registry as registry
    schemas = torch_schemas(path)
    header = torch_list.read_text(path).split("\n", 1)[0]
    version = header.split()[2].rstrip(":") if header.startswith("# torch ") else "?"
    out = []
    for s in schemas:
        op = implementation(registry, s)
        if op is not None:
            out.append(SchemaStatus(s, "implemented", op.signature()))
        elif s.kind in INSTRUCTIONS:
            out.append(SchemaStatus(s, "implemented", INSTRUCTIONS[s.kind]))
        else:
            reason = out_of_scope(s)
            out.append(SchemaStatus(s, "out of scope", reason) if reason else
                       SchemaStatus(s, "missing", ""))
    torch_kinds = frozenset(s.kind for s in schemas)
    extensions = {}
    for kind in registry.kinds():
        if kind in torch_kinds:
            continue
        why = next((reason for pattern, reason in EXTENSION_RULES if re.fullmatch(pattern, kind)),
                   None) or _derived_extension(kind, torch_kinds)
        extensions[kind] = why or ""
    return Surface(version, tuple(out), extensions)
