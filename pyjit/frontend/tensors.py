"""numpy arrays as Tensors: numpy functions, array methods and attributes, and
indexing, spelled as the aten operators torch emits for the same code.

==========================  =========================================================
numpy                       graph
==========================  =========================================================
``np.exp(x)`` (tanh, ...)   ``aten::exp(x)``
``np.dot(a, b)``, ``a @ b``  ``aten::matmul(a, b)``
``np.sum(x)``               ``aten::sum(x, None)``  (``dtype`` None)
``np.sum(x, axis=1)``       ``aten::sum(x, [1], False, None)``
``np.maximum(a, b)``        ``aten::maximum(a, b)``
``np.reshape(x, (2, 3))``   ``aten::reshape(x, [2, 3])``
``x.T``, ``np.transpose(x)``  ``aten::numpy_T(x)``
``x.shape``                 ``aten::size(x)``  (a list of ints)
``x[0]``                    ``aten::select(x, 0, 0)``
``x[1:3, 2]``               ``aten::slice(x, 0, 1, 3, 1)`` then ``aten::select(_, 1, 2)``
==========================  =========================================================
"""

from __future__ import annotations

import ast
from typing import List, Optional

from ..ir import Value
from ..ir import types as T
from .environment import Env
from .operators import is_number, is_tensor

__all__ = ["TensorEmitter"]

_UNARY = {n: "aten::" + n for n in ("exp", "log", "tanh", "sqrt", "abs", "sin", "cos", "tan",
                                    "floor", "ceil", "sign", "log1p", "expm1", "square",
                                    "log2", "log10", "arctan", "sinh", "cosh")}
_UNARY.update({"negative": "aten::neg", "absolute": "aten::abs", "arctan": "aten::atan"})
_BINARY = {"add": ast.Add, "subtract": ast.Sub, "multiply": ast.Mult, "divide": ast.Div,
           "power": ast.Pow, "matmul": ast.MatMult, "dot": ast.MatMult}
_ELEMENTWISE2 = {"maximum": "aten::maximum", "minimum": "aten::minimum"}


class TensorEmitter:
    """Mixin of the function compiler: everything specific to Tensors."""

    def _tensor_arg(self, node: ast.expr, env: Env, what: str) -> Value:
        v = self.emit_expr(node, env)
        if not is_tensor(v.type):
            self.src.fail(node, f"{what} expects an array (Tensor), not {v.type}")
        return v

    def _int_list(self, node: ast.expr, env: Env, what: str) -> Value:
        """A shape or an axis list: a tuple/list literal of ints becomes
        ``prim::ListConstruct``; an int a one-element list."""
        if isinstance(node, (ast.Tuple, ast.List)):
            values = [self.emit_expr(e, env) for e in node.elts]
        else:
            v = self.emit_expr(node, env)
            if v.type == T.ListType(T.INT):
                return v
            values = [v]
        for v in values:
            if v.type != T.INT:
                self.src.fail(node, f"{what} must be ints, not {v.type}")
        return self.emit1("prim::ListConstruct", values, T.ListType(T.INT), node)

    def _keywords(self, node: ast.Call, allowed: List[str], what: str) -> dict:
        out = {}
        for k in node.keywords:
            if k.arg not in allowed:
                self.src.fail(k, f"{what} does not support the keyword '{k.arg}' here")
            out[k.arg] = k.value
        return out

    def _reduce(self, kind: str, x: Value, axis: Optional[ast.expr], keepdims: Optional[ast.expr],
                env: Env, node: ast.AST) -> Value:
        """``sum``/``mean`` over everything (``kind(x, None)``) or over axes
        (``kind(x, [axes], keepdim, None)``)."""
        if axis is None or (isinstance(axis, ast.Constant) and axis.value is None):
            if keepdims is not None:
                self.src.fail(node, "keepdims without an axis is not supported")
            return self.emit1(kind, [x, self.const(None, node)], T.TENSOR, node)
        dims = self._int_list(axis, env, "axes")
        keep = self.emit_expr(keepdims, env) if keepdims is not None else self.const(False, node)
        if keep.type != T.BOOL:
            self.src.fail(keepdims, "keepdims must be a bool")
        return self.emit1(kind, [x, dims, keep, self.const(None, node)], T.TENSOR, node)

    # -- numpy functions ------------------------------------------------------------------
    def call_numpy(self, name: str, node: ast.Call, env: Env) -> Value:
        what = f"np.{name}()"
        if name in _UNARY:
            self._keywords(node, [], what)
            if len(node.args) != 1:
                self.src.fail(node, f"{what} takes one array")
            x = self._tensor_arg(node.args[0], env, what)
            return self.emit1(_UNARY[name], [x], T.TENSOR, node)
        if name in _BINARY or name in _ELEMENTWISE2:
            self._keywords(node, [], what)
            if len(node.args) != 2:
                self.src.fail(node, f"{what} takes two arguments")
            a = self.emit_expr(node.args[0], env)
            b = self.emit_expr(node.args[1], env)
            if name in _ELEMENTWISE2:
                if is_tensor(b.type) and is_number(a.type):  # np.maximum(0, x)
                    a, b = b, a
                if not (is_tensor(a.type) and (is_tensor(b.type) or is_number(b.type))):
                    self.src.fail(node, f"{what} expects an array and an array or a number, "
                                  f"not {a.type} and {b.type}")
                return self.emit1(_ELEMENTWISE2[name], [a, b], T.TENSOR, node)
            if not is_tensor(a.type):
                self.src.fail(node.args[0], f"{what} expects an array first, not {a.type}")
            return self.binary(_BINARY[name], a, b, node)
        if name in ("sum", "mean"):
            kw = self._keywords(node, ["axis", "keepdims"], what)
            if not node.args or len(node.args) > 2:
                self.src.fail(node, f"{what} takes an array and an optional axis")
            x = self._tensor_arg(node.args[0], env, what)
            axis = node.args[1] if len(node.args) > 1 else kw.get("axis")
            return self._reduce("aten::" + name, x, axis, kw.get("keepdims"), env, node)
        if name in ("max", "min", "amax", "amin"):
            kw = self._keywords(node, ["axis", "keepdims"], what)
            x = self._tensor_arg(node.args[0], env, what)
            axis = node.args[1] if len(node.args) > 1 else kw.get("axis")
            short = name[-3:]
            if axis is None:
                return self.emit1("aten::" + short, [x], T.TENSOR, node)
            dims = self._int_list(axis, env, "axes")
            keep = self.emit_expr(kw["keepdims"], env) if "keepdims" in kw else \
                self.const(False, node)
            return self.emit1("aten::a" + short, [x, dims, keep], T.TENSOR, node)
        if name == "reshape":
            self._keywords(node, [], what)
            if len(node.args) != 2:
                self.src.fail(node, f"{what} takes an array and a shape")
            x = self._tensor_arg(node.args[0], env, what)
            shape = self._int_list(node.args[1], env, "shape entries")
            return self.emit1("aten::reshape", [x, shape], T.TENSOR, node)
        if name == "transpose":
            if len(node.args) != 1 or node.keywords:
                self.src.fail(node, f"{what} with axes is not supported")
            x = self._tensor_arg(node.args[0], env, what)
            return self.emit1("aten::numpy_T", [x], T.TENSOR, node)
        if name in ("concatenate", "stack"):
            kw = self._keywords(node, ["axis"], what)
            if len(node.args) not in (1, 2):
                self.src.fail(node, f"{what} takes a list of arrays and an optional axis")
            seq = node.args[0]
            if isinstance(seq, (ast.Tuple, ast.List)):
                arrays = [self._tensor_arg(e, env, what) for e in seq.elts]
                lst = self.emit1("prim::ListConstruct", arrays, T.ListType(T.TENSOR), seq)
            else:
                lst = self.emit_expr(seq, env)
                if lst.type != T.ListType(T.TENSOR):
                    self.src.fail(seq, f"{what} expects a list of arrays, not {lst.type}")
            axis = node.args[1] if len(node.args) > 1 else kw.get("axis")
            dim = self.emit_expr(axis, env) if axis is not None else self.const(0, node)
            if dim.type != T.INT:
                self.src.fail(node, "axis must be an int")
            kind = "aten::cat" if name == "concatenate" else "aten::stack"
            return self.emit1(kind, [lst, dim], T.TENSOR, node)
        if name == "where":
            if len(node.args) != 3 or node.keywords:
                self.src.fail(node, f"{what} takes a condition and two arrays")
            args = [self._tensor_arg(a, env, what) for a in node.args]
            return self.emit1("aten::where", args, T.TENSOR, node)
        if name == "clip":
            if len(node.args) != 3 or node.keywords:
                self.src.fail(node, f"{what} takes an array, a minimum and a maximum")
            x = self._tensor_arg(node.args[0], env, what)
            lo, hi = (self.emit_expr(a, env) for a in node.args[1:])
            for b in (lo, hi):
                if not (is_number(b.type) or b.type == T.NONE):
                    self.src.fail(node, f"{what} bounds must be numbers or None")
            return self.emit1("aten::clamp", [x, lo, hi], T.TENSOR, node)
        self.src.fail(node.func, f"np.{name} is not supported by pyjit.script")

    # -- array methods and attributes ---------------------------------------------------------
    def call_tensor_method(self, x: Value, name: str, node: ast.Call, env: Env) -> Value:
        what = f"ndarray.{name}()"
        if name in ("sum", "mean"):
            kw = self._keywords(node, ["axis", "keepdims"], what)
            axis = node.args[0] if node.args else kw.get("axis")
            return self._reduce("aten::" + name, x, axis, kw.get("keepdims"), env, node)
        if name in ("max", "min") and not node.args and not node.keywords:
            return self.emit1("aten::" + name, [x], T.TENSOR, node)
        if name == "reshape":
            self._keywords(node, [], what)
            if len(node.args) == 1:
                shape = self._int_list(node.args[0], env, "shape entries")
            else:
                shape = self._int_list(ast.copy_location(ast.Tuple(node.args, ast.Load()), node),
                                       env, "shape entries")
            return self.emit1("aten::reshape", [x, shape], T.TENSOR, node)
        if name == "dot":
            if len(node.args) != 1 or node.keywords:
                self.src.fail(node, f"{what} takes one array")
            other = self._tensor_arg(node.args[0], env, what)
            return self.emit1("aten::matmul", [x, other], T.TENSOR, node)
        if name == "copy" and not node.args and not node.keywords:
            return self.emit1("aten::clone", [x, self.const(None, node)], T.TENSOR, node)
        if name == "transpose" and not node.args and not node.keywords:
            return self.emit1("aten::numpy_T", [x], T.TENSOR, node)
        if name == "flatten" and not node.args and not node.keywords:
            return self.emit1("aten::flatten", [x, self.const(0, node), self.const(-1, node)],
                              T.TENSOR, node)
        self.src.fail(node.func, f"{what} is not supported by pyjit.script")

    def tensor_attribute(self, x: Value, node: ast.Attribute) -> Value:
        if node.attr == "shape":
            return self.emit1("aten::size", [x], T.ListType(T.INT), node)
        if node.attr == "ndim":
            return self.emit1("aten::dim", [x], T.INT, node)
        if node.attr == "size":
            return self.emit1("aten::numel", [x], T.INT, node)
        if node.attr == "T":
            return self.emit1("aten::numpy_T", [x], T.TENSOR, node)
        self.src.fail(node, f"array attribute '{node.attr}' is not supported")

    def tensor_subscript(self, x: Value, node: ast.Subscript, env: Env) -> Value:
        """Basic indexing: ints select (dropping a dimension), slices slice, one
        dimension after another."""
        parts = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        dim = 0
        for part in parts:
            d = self.const(dim, node)
            if isinstance(part, ast.Slice):
                start, end, step = self._slice_args(part, env, node)
                x = self.emit1("aten::slice", [x, d, start, end, step], T.TENSOR, node)
                dim += 1
                continue
            i = self.emit_expr(part, env)
            if i.type != T.INT:
                self.src.fail(part, f"arrays can be indexed by ints and slices, not {i.type}")
            x = self.emit1("aten::select", [x, d, i], T.TENSOR, node)
        return x
