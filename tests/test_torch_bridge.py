"""``pyjit.from_torch``: TorchScript functions and modules, run by pyjit.

Where torch is installed, a scripted or traced function or module, converted, gives
what Python (or torch's eager mode) gives, on both run loops.  Where it is not (CI),
those tests skip with the reason; the last tests check, in subprocesses with torch
hidden, that pyjit never imports torch and that this file then skips cleanly.
"""

from __future__ import annotations

import copy
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import pyjit
from pyjit import JITException, OperatorNotFoundError, TorchConversionError, from_torch
from pyjit.ir.literals import TensorValue

from helpers import frontend_programs
from helpers.optional import needs_torch
from helpers.subprocesses import CHECKOUT, checkout_env
from helpers.values import assert_same

# torch.jit warns that TorchScript is deprecated on every script/trace.
pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning",
                                        "ignore::FutureWarning")


@pytest.fixture(scope="module")
def torch():
    import torch
    return torch


# -- the frontend's corpus, scripted by torch --------------------------------------------------

#: The corpus programs torch 2.13 cannot script, and what it says; the others all run.
TORCH_CANNOT_SCRIPT = {
    "digit_sum": "unsupported kind of augmented assignment: FloorDiv",
    "newton_sqrt": "does not return along all paths",
    "even_squares": "Comprehension ifs are not supported yet",
    "flatten": "Only a single generator is currently supported",
    "settle": "Arguments for call are not valid",
    "positions": "Arguments for call are not valid",
    **{name: "Unknown type name 'np.ndarray'" for name in (
        "mlp_forward", "softmax_rows", "scale_steps", "gradient_steps",
        "leaky_signed_squares", "min_max_scale", "hyperbolic_identities")},
}
SCRIPTABLE = [pytest.param(fn, cases, id=fn.__name__) for fn, cases in frontend_programs.CASES
              if fn.__name__ not in TORCH_CANNOT_SCRIPT]

_converted = {}


def _from_script(torch, fn, loop):
    key = (fn, loop.__name__)
    if key not in _converted:
        _converted[key] = from_torch(torch.jit.script(fn), loop=loop)
    return _converted[key]


@needs_torch
def test_torch_scripts_the_corpus_but_these(torch):
    refused = {}
    for fn, _ in frontend_programs.CASES:
        try:
            torch.jit.script(fn)
        except Exception as exc:
            refused[fn.__name__] = str(exc)
    assert sorted(refused) == sorted(TORCH_CANNOT_SCRIPT)
    for name, why in TORCH_CANNOT_SCRIPT.items():
        assert why in refused[name]
    assert len(SCRIPTABLE) >= 60


@needs_torch
@pytest.mark.parametrize("fn, cases", SCRIPTABLE)
def test_corpus_program_from_torch_equals_python(torch, fn, cases, loop):
    """``from_torch(torch.jit.script(f))(x) == f(x)``; where f raises, the graph's
    ``raise`` surfaces as a JITException with f's message."""
    f = _from_script(torch, fn, loop)
    for args in cases:
        try:
            want, error = fn(*copy.deepcopy(args)), None
        except Exception as exc:
            want, error = None, exc
        if error is not None:
            with pytest.raises(JITException) as info:
                f(*copy.deepcopy(args))
            assert str(error) in info.value.msg
        else:
            assert_same(f(*copy.deepcopy(args)), want, f"{fn.__name__}{args}")


# -- tensor functions (tests/torch_programs.py) -----------------------------------------------

@pytest.fixture(scope="module")
def programs(torch):
    from helpers import torch_programs
    return torch_programs


def _assert_tensor(got, want, torch):
    assert isinstance(got, torch.Tensor)
    assert got.dtype == want.dtype and got.shape == want.shape
    tol = 1e-6 if want.dtype == torch.float32 else 1e-12
    torch.testing.assert_close(got, want, rtol=tol, atol=tol)


@needs_torch
def test_scripted_tensor_functions(torch, programs, loop):
    for fn, args in programs.tensor_cases():
        f = from_torch(torch.jit.script(fn), return_torch=True, loop=loop)
        _assert_tensor(f(*args), fn(*args), torch)
        # without return_torch, the same values as numpy arrays
        plain = from_torch(torch.jit.script(fn), loop=loop)(*args)
        assert isinstance(plain, np.ndarray)
        np.testing.assert_array_equal(plain, f(*args).numpy())


@needs_torch
def test_arguments_share_memory_with_the_tensors(torch, programs):
    """A graph writing into a tensor argument writes into the caller's tensor, as
    torch's own interpreter does."""
    x = torch.zeros(3)
    out = from_torch(torch.jit.script(programs.in_place), return_torch=True)(x)
    assert x.tolist() == [1.0, 1.0, 1.0] and out.tolist() == [2.0, 2.0, 2.0]


@needs_torch
def test_traced_function_gets_exact_tensor_constants(torch):
    """torch prints a traced constant rounded to four digits; the Function holds
    torch's values exactly, with torch's dtype (a double ``{1.5}`` stays double)."""
    w = torch.tensor([[0.123456789, -1.987654321], [3.14159265358979, 2.71828182845905]],
                     dtype=torch.float64)

    def affine(x):
        return x @ w + 1.5

    traced = torch.jit.trace(affine, torch.ones(3, 2, dtype=torch.float64))
    assert "0.1235" in str(traced.graph)  # what the text says
    f = from_torch(traced, return_torch=True)
    constants = [n.attrs["value"] for n in f.graph.all_nodes()
                 if isinstance(n.attrs.get("value"), TensorValue)]
    assert [c.array.dtype for c in constants] == [np.float64, np.float64]
    np.testing.assert_array_equal(constants[0].array, w.numpy())
    assert constants[1].array.shape == () and constants[1].array == 1.5
    assert not constants[0].array.flags.writeable
    x = torch.randn(3, 2, dtype=torch.float64)
    got = f(x)
    assert got.dtype == torch.float64
    torch.testing.assert_close(got, affine(x), rtol=1e-15, atol=1e-15)
    # the graph still prints as torch printed it
    def constant_lines(graph):
        return [line for line in str(graph).splitlines() if "prim::Constant[value=" in line]

    assert constant_lines(f.graph) == constant_lines(traced.graph)


@needs_torch
def test_fork_subgraphs_are_inlined(torch, programs, loop):
    scripted = torch.jit.script(programs.forked)
    assert "prim::CallFunction" in str(scripted.graph)
    f = from_torch(scripted, return_torch=True, loop=loop)
    assert "CallFunction" not in str(f.graph) and "prim::fork_1" in str(f.graph)
    x = torch.arange(3.0)
    _assert_tensor(f(x), scripted(x), torch)
    # torch's own function is not changed by the inlining
    assert "prim::CallFunction" in str(scripted.graph)


# -- modules ------------------------------------------------------------------------------------

@needs_torch
def test_scripted_and_traced_modules(torch, programs, loop):
    torch.manual_seed(0)
    module = programs.Scaled()
    x = torch.randn(4, 3)
    want = module(x).detach()
    for obj in (torch.jit.script(module), torch.jit.trace(module, x)):
        weight = obj.lin.weight.detach().clone()
        f = from_torch(obj, return_torch=True, loop=loop)
        assert f.name == "Scaled" and len(f.signature.parameters) == 1
        _assert_tensor(f(x), want, torch)
        # the user's module is left as it was, training mode included
        assert obj.training and obj.lin.training
        assert torch.equal(obj.lin.weight, weight)


@needs_torch
def test_exported_method(torch, programs):
    torch.manual_seed(1)
    module = programs.Scaled()
    x = torch.randn(2, 3)
    f = from_torch(torch.jit.script(module), method="shifted", return_torch=True)
    assert f.name == "Scaled.shifted"
    _assert_tensor(f(x), module.shifted(x).detach(), torch)
    _assert_tensor(f(x, by=-2.0), module.shifted(x, -2.0).detach(), torch)
    with pytest.raises(TypeError, match="the module Scaled has no scripted method 'backward'"):
        from_torch(torch.jit.script(module), method="backward")


@needs_torch
def test_module_attributes_at_run_time_are_refused(torch, programs):
    with pytest.raises(TorchConversionError) as info:
        from_torch(torch.jit.script(programs.Counter()))
    message = str(info.value)
    where, _, what = message.partition(": ")
    file, line, col = where.rsplit(":", 2)
    assert Path(file).name == "torch_programs.py" and line.isdigit() and col.isdigit()
    assert what.startswith(
        "pyjit cannot run prim::GetAttr yet (reading the attribute 'count' at run time: "
        "freezing keeps an attribute that the method assigns): "
        "%count.1 : int = prim::GetAttr[name=\"count\"](%self)")


# -- calling ------------------------------------------------------------------------------------

@needs_torch
def test_keywords_defaults_and_schema(torch, programs):
    f = from_torch(torch.jit.script(programs.defaults))
    assert f.schema == "defaults(Tensor x, int n=2, float scale=0.5) -> Tensor"
    assert repr(f) == f"<pyjit.from_torch {f.schema}>"
    assert isinstance(f, pyjit.Function)
    x = np.ones(2, np.float32)
    np.testing.assert_array_equal(f(x), [2.5, 2.5])
    np.testing.assert_array_equal(f(x, scale=2.0), [4.0, 4.0])
    np.testing.assert_array_equal(f(x, 1, 1.0), [2.0, 2.0])
    with pytest.raises(TypeError, match=r"defaults\(\): missing a required argument: 'x'"):
        f()
    with pytest.raises(TypeError, match=r"defaults\(\): got an unexpected keyword"):
        f(x, k=1)


@needs_torch
def test_tensors_inside_containers_and_results(torch, programs):
    scripted = torch.jit.script(programs.cat_and_count)
    out, n = from_torch(scripted, return_torch=True)([torch.ones(2), torch.zeros(1)], 3)
    assert isinstance(out, torch.Tensor) and out.tolist() == [3.0, 3.0, 0.0] and n == 2
    plain = from_torch(scripted)([torch.ones(2)], 2)
    assert isinstance(plain, tuple) and isinstance(plain[0], np.ndarray) and plain[1] == 1


@needs_torch
def test_a_dtype_numpy_lacks_is_refused(torch, programs):
    f = from_torch(torch.jit.script(programs.softmax_rows))
    with pytest.raises(TypeError, match=r"softmax_rows\(\): argument 'x' is a "
                                        r"torch.bfloat16 tensor, which numpy"):
        f(torch.ones(2, 2, dtype=torch.bfloat16))


@needs_torch
def test_unknown_operators_name_the_node(torch, programs):
    with pytest.raises(OperatorNotFoundError,
                       match="unknown operator aten::to_sparse at .*torch_programs"):
        from_torch(torch.jit.trace(programs.to_sparse, torch.ones(2), check_trace=False))


@needs_torch
def test_what_is_not_a_torchscript_object(torch, programs):
    with pytest.raises(TypeError, match=r"script this function first: "
                                        r"from_torch\(torch.jit.script\(f\)\)"):
        from_torch(programs.mlp)
    with pytest.raises(TypeError, match=r"script this Scaled first"):
        from_torch(programs.Scaled())
    with pytest.raises(TypeError, match=r"takes the module, not its method: "
                                        r"from_torch\(module, method='forward'\)"):
        from_torch(torch.jit.script(programs.Scaled()).forward)
    with pytest.raises(TypeError, match="not int"):
        from_torch(42)


# -- exact tensor constants (no torch needed) -----------------------------------------------------

def test_tensor_value_prints_its_text_and_runs_its_array(loop):
    """A TensorValue prints as the text torch printed and runs as its array, whose
    dtype wins over the float32 that a bare ``{1.5}`` would get."""
    g = pyjit.parse_ir("graph(%x : Tensor):\n"
                       "  %c : Tensor = prim::Constant[value={0.1235}]()\n"
                       "  %y : Tensor = aten::mul(%x, %c)\n"
                       "  return (%y)\n")
    text = str(g)
    const = next(iter(g.nodes()))
    exact = np.array(0.123456789, dtype=np.float64)
    const.attrs["value"] = TensorValue("{0.1235}", exact)
    assert str(g) == text
    assert str(g.copy()) == text and g.copy().block.nodes().front().attrs == const.attrs
    got = pyjit.Function(g, loop=loop)(np.ones(2))
    assert got.dtype == np.float64 and got.tolist() == [0.123456789, 0.123456789]


def test_tensor_value_compares_values_and_is_read_only():
    a = TensorValue("<Tensor>", np.arange(3.0))
    assert a == TensorValue("<Tensor>", np.arange(3.0)) and hash(a) == hash(
        TensorValue("<Tensor>", np.arange(3.0)))
    assert a != TensorValue("<Tensor>", np.arange(3.0) + 1)
    assert a != TensorValue("<Tensor>", np.arange(3, dtype=np.int64))
    assert TensorValue("{nan}", np.array(np.nan)) == TensorValue("{nan}", np.array(np.nan))
    source = np.arange(3.0)
    b = TensorValue("<Tensor>", source)
    source[0] = 9.0  # a copy was taken
    assert b.value().tolist() == [0.0, 1.0, 2.0]
    with pytest.raises(ValueError, match="read-only"):
        b.value()[0] = 1.0


# -- without torch -------------------------------------------------------------------------------

def _python(code: str, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code, *args], capture_output=True,
                          text=True, env=checkout_env(), cwd=CHECKOUT, timeout=300)


def test_pyjit_never_imports_torch():
    done = _python("import sys, pyjit\n"
                   "pyjit.from_torch, pyjit.TorchFunction\n"
                   "assert 'torch' not in sys.modules, 'pyjit imported torch'\n")
    assert done.returncode == 0, done.stderr


HIDE_TORCH = "import sys; sys.modules['torch'] = None\n"


def test_from_torch_without_torch_says_what_it_takes():
    done = _python(HIDE_TORCH + "import pyjit\n"
                   "try:\n"
                   "    pyjit.from_torch(len)\n"
                   "except TypeError as exc:\n"
                   "    print(exc)\n")
    assert done.returncode == 0, done.stderr
    assert done.stdout == ("from_torch() takes a TorchScript function or module, not "
                           "builtin_function_or_method (torch is not imported)\n")


def test_this_file_skips_cleanly_without_torch():
    done = _python(HIDE_TORCH + "import pytest\n"
                   "sys.exit(pytest.main(sys.argv[1:]))\n",
                   "-q", "-p", "no:cacheprovider", "-rs", "tests/test_torch_bridge.py",
                   "-k", "not skips_cleanly")
    out = done.stdout
    assert done.returncode == 0, out + done.stderr
    assert " failed" not in out and " error" not in out
    assert "torch is not installed: pyjit never needs it" in out
    # the tests that need no torch ran: TensorValue's, and the subprocess ones above
    assert int(re.search(r"(\d+) passed", out).group(1)) >= 5
