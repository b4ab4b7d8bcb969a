"""pyjit against torch's own operator list: ``pyjit/ir/torch_schemas.txt.xz`` is
torch 2.13's ``torch._C._jit_get_all_schemas()`` as torch prints each schema
(``tools/schemas/make_torch_schemas.py``), read by ``pyjit.ir.schema``;
``pyjit.ops.coverage.surface_coverage`` classifies every schema as implemented,
out of scope (with a reason) or missing, and ``pyjit info --ops`` prints it."""

import collections
import contextlib
import io
import re

import pytest

from pyjit.ir import types as T
from pyjit.ir.schema import REQUIRED, parse
from pyjit.ir.torch_schemas import read_text as torch_schemas_text
from pyjit.ops import coverage
from pyjit.ops.coverage import (RULES, SCHEMAS, implementation, out_of_scope, surface_coverage,
                                torch_schemas)
from pyjit.registry import Registry, default_registry

SCHEMA_LIST = torch_schemas()
BY_NAME = {s.name: s for s in SCHEMA_LIST}
SURFACE = surface_coverage()


def test_the_list_is_torch_2_13_whole():
    header = torch_schemas_text().split("\n", 1)[0]
    assert header.startswith("# torch 2.13.0: torch._C._jit_get_all_schemas(), 4374 schemas")
    assert len(SCHEMA_LIST) == 4374
    assert len(BY_NAME) == 4374          # an overload name is unique within its kind
    assert collections.Counter(s.namespace for s in SCHEMA_LIST).most_common(3) == [
        ("aten", 3754), ("quantized", 174), ("prim", 128)]


def test_every_line_reads_back_to_itself():
    lines = [l for l in torch_schemas_text().splitlines()
             if l and not l.startswith("#")]
    assert [s.text for s in SCHEMA_LIST] == lines


def test_a_schema_keeps_everything_torch_printed():
    s = BY_NAME["aten::add_.Tensor"]
    assert (s.kind, s.overload, s.name, s.base) == ("aten::add_", "Tensor", "aten::add_.Tensor",
                                                    "add_")
    self_, other, alpha = s.arguments
    assert (self_.name, self_.type, self_.type_text, self_.alias, self_.writes) == (
        "self", T.TENSOR, "Tensor(a!)", "a!", True)
    assert (other.default, other.kwarg_only, other.writes) == (REQUIRED, False, False)
    assert (alpha.name, alpha.type, alpha.default, alpha.kwarg_only) == ("alpha", T.NUMBER, 1,
                                                                         True)
    assert [(r.type, r.alias) for r in s.returns] == [(T.TENSOR, "a!")]

    s = BY_NAME["aten::max.dim"]
    assert [(r.name, r.type) for r in s.returns] == [("values", T.TENSOR), ("indices", T.TENSOR)]
    s = BY_NAME["aten::split.Tensor"]
    assert (s.arguments[0].alias, s.arguments[1].type, s.arguments[1].type_text) == (
        "a -> *", T.INT, "SymInt")
    assert (s.returns[0].type, s.returns[0].alias) == (T.ListType(T.TENSOR), "a")
    s = BY_NAME["aten::avg_pool2d"]
    assert [a.default for a in s.arguments[2:4]] == [[], [0, 0]]    # int[2] padding=0
    s = BY_NAME["aten::items.Tensor"]                               # a tuple-typed return
    assert [str(r.type) for r in s.returns] == ["(Tensor, t)[]"]
    s = BY_NAME["aten::dict.Dict_str"]                              # an annotated Dict
    assert (str(s.arguments[0].type), s.arguments[0].alias) == ("Dict(str, t)", "a")
    s = BY_NAME["prim::awaitable_nowait"]                           # Await(t) is no alias
    assert (str(s.returns[0].type), s.returns[0].alias) == ("Await(t)", None)
    s = BY_NAME["aten::format"]
    assert (s.varargs, s.varret) == (True, False)
    assert (BY_NAME["prim::rpc_async"].varargs, BY_NAME["prim::rpc_async"].varret) == (True, True)
    s = BY_NAME["aten::layer_norm"]
    assert s.arguments[4].default == 1e-05 and s.arguments[2].type == T.OptionalType(T.TENSOR)


@pytest.mark.parametrize("line, message", [
    ("add(Tensor self) -> Tensor", "expected 'ns::name[.overload](...)'"),
    ("aten::f(Tensor self -> Tensor", "its argument list is not closed"),
    ("aten::f(Tensor self)", "no '->' after its arguments"),
    ("aten::f(Tensor) -> Tensor", "argument 'Tensor' has no name"),
    ("aten::f(int x=foo) -> int", "a default that is not a literal: 'foo'"),
])
def test_a_malformed_schema_is_refused_by_name(line, message):
    with pytest.raises(ValueError) as info:
        parse(line)
    assert str(info.value) == f"malformed schema {line!r}: {message}"


def test_every_pyjit_kind_is_torchs_or_an_extension_with_a_reason():
    """Every kind of the library (aten::, prim::, torchvision:: and pyjit::;
    other tests register operators of their own namespaces into the default
    registry)."""
    def library(kinds):
        return {k for k in kinds
                if k.split("::")[0] in ("aten", "prim", "torchvision", "pyjit")}
    surface = surface_coverage()
    torch_kinds = {s.kind for s in SCHEMA_LIST}
    assert library(surface.extensions) == library(default_registry.kinds()) - torch_kinds
    assert [k for k, why in surface.extensions.items() if not why and k in library([k])] == []
    assert SURFACE.extensions["aten::fmax_"] == "the in-place form of aten::fmax, from its " \
                                                 "family's row"
    assert SURFACE.extensions["aten::flatten_copy"].startswith("the copying form of aten::flatten")
    assert SURFACE.extensions["prim::ListConstruct"].startswith("a node of the IR")


def test_every_schema_is_classified():
    statuses = collections.Counter(s.status for s in SURFACE.schemas)
    assert set(statuses) <= {"implemented", "out of scope", "missing"}
    assert sum(statuses.values()) == len(SCHEMA_LIST)
    for s in SURFACE.schemas:
        if s.status == "out of scope":
            assert s.detail == out_of_scope(s.schema)
        elif s.status == "implemented":
            assert s.detail


def test_every_schema_is_implemented_or_out_of_scope_with_a_reason():
    """Of torch 2.13's 4,374 schemas none is missing: each is run by an
    operator of pyjit's or put out of scope by a rule that says why."""
    assert [s.schema.name for s in SURFACE.by_status("missing")] == []
    assert all(s.detail for s in SURFACE.by_status("out of scope"))


@pytest.mark.parametrize("name, reason", [
    ("prim::grad", coverage._AUTOGRAD),
    ("aten::mm.dtype", coverage._BACKEND), ("aten::baddbmm.dtype_out", coverage._BACKEND),
    ("aten::mm", None), ("aten::mm.out", None), ("aten::bmm.dtype", coverage._BACKEND),
])
def test_the_rules_of_the_last_overloads(name, reason):
    """An overload-level rule: mm.dtype is CUDA's alone, mm everyone's."""
    assert out_of_scope(BY_NAME[name]) == reason


@pytest.mark.parametrize("name, by", [
    ("prim::tolist", "prim::tolist(Tensor, int, int)"),          # "(...)": any overload of it
    ("aten::einsum.sublist", "aten::einsum(Tensor, Any, ...)"),
    ("prim::id", "prim::id(AnyClassType?)"),
    ("aten::zeros_like.out", "aten::zeros_like(Tensor, int?, Tensor)"),  # derived by name
    ("aten::split_copy.Tensor_out", "aten::split_copy(Tensor, int, int, Tensor[])"),
    ("aten::normal.out", "aten::normal(Tensor, float, float, Generator?, Tensor)"),
])
def test_how_the_last_overloads_are_found(name, by):
    assert implementation(default_registry, BY_NAME[name]).signature() == by


#: One schema each rule puts out of scope, and one it must leave in.
@pytest.mark.parametrize("name, reason", [
    ("quantized::add", "quantized tensors and quantization"),
    ("aten::quantize_per_tensor", "quantized tensors and quantization"),
    ("aten::q_scale", "quantized tensors and quantization"),
    ("c10d::allreduce_", "distributed: process groups, RPC, remote references"),
    ("aten::to_here", "distributed: process groups, RPC, remote references"),
    ("prim::rpc_async", "distributed: process groups, RPC, remote references"),
    ("aten::cudnn_convolution", coverage._BACKEND),
    ("aten::miopen_rnn", coverage._BACKEND),
    ("aten::mkldnn_linear", coverage._BACKEND),
    ("aten::batch_norm_stats", coverage._BACKEND),
    ("prims::add", coverage._COMPILER),
    ("prim::FusionGroup", coverage._COMPILER),
    ("prim::profile", coverage._COMPILER),
    ("aten::to_sparse", coverage._SPARSE),
    ("aten::crow_indices", coverage._SPARSE),
    ("aten::sparse_coo_tensor.size", coverage._SPARSE),
    ("aten::convolution_backward", coverage._AUTOGRAD),
    ("aten::retain_grad", coverage._AUTOGRAD),
    ("aten::glu_jvp", coverage._AUTOGRAD),
    ("aten::nested_to_padded_tensor", "nested tensors"),
    ("aten::lift_fresh_copy", "functionalization and export internals (lift, symbolic-shape "
                              "constraints)"),
    ("aten::chalf", "dtypes numpy has no type for (ComplexHalf, BFloat16, float8...)"),
    ("aten::save", "files and storages: serialized I/O is torch.save's, not a graph's"),
    ("aten::_foreach_add.Scalar", "a leading underscore: torch's internals, not its public "
                                  "surface"),
    ("aten::add.Tensor", None), ("aten::__and__.bool", None), ("aten::unsqueeze_", None),
    ("aten::hann_window", None), ("aten::stride.int", None), ("aten::eq.device", None),
    ("prim::is_cpu", None), ("aten::values.int", None),
])
def test_the_out_of_scope_rules(name, reason):
    assert out_of_scope(BY_NAME[name]) == reason


def test_the_rules_put_these_many_out_of_scope():
    """Pinned: the rules and the list together decide these, whatever pyjit implements."""
    counts = collections.Counter(out_of_scope(s) for s in SCHEMA_LIST)
    assert {reason[:24]: n for reason, n in counts.items() if reason} == {
        "quantized tensors and qu": 290, "distributed: process gro": 88,
        "another backend's kernel": 261, "the JIT's and compilers'": 210,
        "the profiler and debug m": 7, "sparse tensors (COO, CSR": 177, "ONNX export": 2,
        "torch's own tests": 3, "autograd: gradients, bac": 217, "nested tensors": 34,
        "functionalization and ex": 55, "files and storages: seri": 28,
        "a leading underscore: to": 458, "dtypes numpy has no type": 1}
    assert set(counts) - {None} == {r.reason for r in RULES}   # every rule is used


def test_an_overload_is_matched_by_its_argument_types():
    assert implementation(default_registry, BY_NAME["aten::add.Tensor"]).signature() == \
        "aten::add(Tensor, Tensor, Scalar)"
    assert implementation(default_registry, BY_NAME["aten::add.int"]).signature() == \
        "aten::add(int, int)"
    r = Registry()
    assert implementation(r, BY_NAME["aten::add.int"]) is None
    r.register("aten::linear", lambda *a: None, types=["Tensor", "Tensor", "Tensor"])
    r.register("aten::linear", lambda *a: None, types=["Tensor", "Tensor", "NoneType"])
    # Tensor? bias: met by the overload that takes None
    assert implementation(r, BY_NAME["aten::linear"]).signature() == \
        "aten::linear(Tensor, Tensor, NoneType)"


def _printed(registry=None) -> str:
    from pyjit.cli import _print_surface
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        _print_surface(registry)
    return out.getvalue()


def test_the_figures_printed_are_computed():
    text = _printed()
    kinds = SURFACE.kinds()
    done = sum(v == "implemented" for v in kinds.values())
    out = sum(v == "out of scope" for v in kinds.values())
    assert (f"public aten:: kinds (no leading underscore), implemented: {done} of "
            f"{len(kinds) - out} ({100 * done / (len(kinds) - out):.1f}%); {out} more out of "
            f"scope") in text
    # A registry with one operator: the figures follow it.
    r = Registry()
    r.register("aten::hann_window", lambda n, *a: None, types=["int", "int?", "t", "t", "bool?"])
    text = _printed(r)
    kinds = surface_coverage(r).kinds()
    total = sum(v != "out of scope" for v in kinds.values())
    # hann_window, and aten::wait, which is an instruction of the loops
    assert [k for k, v in kinds.items() if v == "implemented"] == ["aten::wait",
                                                                    "aten::hann_window"]
    assert f"public aten:: kinds (no leading underscore), implemented: 2 of {total} " \
           f"({200 / total:.1f}%)" in text
    assert re.search(r"overloads, every namespace, implemented: 2 of \d+ ", text)
    assert "aten::quantize_per_tensor" in text   # the out-of-scope list, with its reasons
    assert "quantized tensors and quantization (" in text


def test_the_ldl_factorizations_and_hash_tensor_are_implemented():
    """The last four public aten:: kinds (issue 24), their ``out=`` overloads too."""
    names = ["aten::linalg_ldl_factor", "aten::linalg_ldl_factor.out",
             "aten::linalg_ldl_factor_ex", "aten::linalg_ldl_factor_ex.out",
             "aten::linalg_ldl_solve", "aten::linalg_ldl_solve.out",
             "aten::hash_tensor", "aten::hash_tensor.out"]
    status = {s.schema.name: s.status for s in SURFACE.schemas}
    assert {n: status[n] for n in names} == {n: "implemented" for n in names}
