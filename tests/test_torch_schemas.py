"""torch's schema list, the one declaration of torch's operators that the
registry, ``out=`` derivation, coverage and the archive's overload matching read
(``pyjit.ir.torch_schemas``)."""

import threading

import pytest

from pyjit.archive import schemas as archive_schemas
from pyjit.ir import torch_schemas
from pyjit.ir import types as T


def test_a_kind_keeps_torch_order_and_is_parsed_once():
    first = torch_schemas.schemas_of("aten::add")
    assert [s.overload for s in first[:4]] == ["Tensor", "Scalar", "out", "Scalar_out"]
    assert torch_schemas.schemas_of("aten::add") is first       # shared, parsed once
    assert all(s.kind == "aten::add" for s in first)
    assert torch_schemas.schemas_of("aten::no_such_operator") == []


def test_an_overload_by_its_full_name():
    s = torch_schemas.overload("aten::norm.ScalarOpt_dim")
    assert s.text == ("aten::norm.ScalarOpt_dim(Tensor self, Scalar? p, int[1] dim, "
                      "bool keepdim=False) -> Tensor")
    assert s.input_types() == (T.TENSOR, T.OptionalType(T.NUMBER), T.ListType(T.INT), T.BOOL)
    assert torch_schemas.overload("aten::relu").name == "aten::relu"
    with pytest.raises(KeyError, match=r"no overload aten::relu\.Tensor; aten::relu's are: "
                                       r"aten::relu, aten::relu\.out"):
        torch_schemas.overload("aten::relu.Tensor")
    with pytest.raises(KeyError, match=r"torch 2\.13\.0 registers no operator aten::nope"):
        torch_schemas.overload("aten::nope")


def test_the_whole_list_in_torch_order_is_the_kinds_lists():
    everything = torch_schemas.all_schemas()
    assert len(everything) == 4374 and torch_schemas.version() == "2.13.0"
    assert everything[0].name == "prim::rpc_async"
    lines = [l for l in torch_schemas.read_text().splitlines()
             if l and not l.startswith("#")]
    assert [s.text for s in everything] == lines
    assert {s.kind for s in everything} == torch_schemas.kinds()
    add = [s for s in everything if s.kind == "aten::add"]
    assert all(a is b for a, b in zip(add, torch_schemas.schemas_of("aten::add")))


def test_threads_share_one_parse():
    seen = []
    barrier = threading.Barrier(4)

    def look():
        barrier.wait()
        seen.append(torch_schemas.schemas_of("aten::hardtanh"))

    threads = [threading.Thread(target=look) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert all(s is seen[0] for s in seen)


def test_the_archive_reads_torch_list_and_torchvision_schemas():
    assert archive_schemas.schemas_of("aten::add") is torch_schemas.schemas_of("aten::add")
    nms = archive_schemas.schemas_of("torchvision::nms")
    assert [s.text for s in nms] == [
        "torchvision::nms(Tensor dets, Tensor scores, float iou_threshold) -> Tensor"]
    # a kind torch has and pyjit's library lacks is matched as torch would, so
    # the error that follows names the operator (the registry's), not the call
    m = archive_schemas.match("aten::linalg_ldl_solve",
                              [("a", T.TENSOR), ("b", T.TENSOR), ("c", T.TENSOR)], {})
    assert m is not None and m.schema.name == "aten::linalg_ldl_solve"


def test_an_operator_declared_by_overload_name_takes_torch_types():
    from pyjit.registry import Registry
    r = Registry()
    r.implement("aten::norm.ScalarOpt_dim", lambda *a: "norm")
    (op,) = r.overloads("aten::norm")
    assert op.overload == "aten::norm.ScalarOpt_dim"
    assert op.signature() == "aten::norm(Tensor, Scalar?, int[], bool)"
    assert r.find("aten::norm", [T.TENSOR, T.NONE, T.ListType(T.INT), T.BOOL]) is op

    @r.implement("aten::format")
    def fmt(*args):
        return "x"
    assert r.overloads("aten::format")[0].signature() == "aten::format(str, Any, ...)"
    with pytest.raises(ValueError, match=r"^torch 2\.13\.0 has no overload aten::relu\.Tensor; "
                                         r"aten::relu's are: aten::relu, aten::relu\.out$"):
        r.implement("aten::relu.Tensor", lambda x: x)
    with pytest.raises(TypeError, match="give no types= or schema= with it"):
        r.implement("aten::relu", lambda x: x, types=["Tensor"])


def test_every_library_overload_is_torch_s_or_says_why_not():
    """Each overload the library registers is one of torch's schemas (by name or
    by its types), a shorter form of one, a kind torch lacks with a reason, or
    one of pyjit's own overloads with a reason (coverage.OWN_OVERLOADS); none is
    unexplained, and every name an operator was declared by is torch's."""
    from pyjit.ops.coverage import declarations
    found = declarations()
    unexplained = [d.operator.signature() for d in found
                   if d.how in ("extension", "own") and not d.detail]
    assert unexplained == []
    for d in found:
        if d.operator.overload is not None:
            assert torch_schemas.overload(d.operator.overload).kind == d.operator.kind
    hows = {d.how for d in found}
    assert {"schema", "short form", "extension", "own"} <= hows
    # pyjit's own overloads stay few: a table generating forms torch lacks
    # (out= forms of every row) would show here
    assert sum(d.how == "own" for d in found) <= 50
