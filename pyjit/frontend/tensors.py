"""numpy arrays as Tensors: numpy functions, array methods and array attributes,
emitted from the table of :mod:`.numpy_api` as the aten operators torch emits for
the same code.

A call is bound to the row's parameters (:func:`.arguments.bind`, with numpy's
calling conventions), each argument read as its parameter's kind says (an
``axis=(0, 1)`` literal becomes a ``prim::ListConstruct`` of ints), and the row's
lowering emits the node.  A wrong call is a CompileError at the call::

    np.max()            np.max() is missing its argument 'a'
    np.sum(x, 1, True)  np.sum() with dtype is not supported
    x.reshape(2.5)      shape entries must be ints, not float

Indexing arrays is :mod:`.subscripts`'s, their operators :mod:`.operators`'s.
"""

from __future__ import annotations

import ast
from typing import Optional, Sequence

from ..ir import Value
from ..ir import types as T
from .arguments import Arguments, bind
from .context import Emitter
from .environment import Env
from .numpy_api import (ARRAY, ARRAY_API, ARRAY_ATTRIBUTES, ARRAYS, AXES, BOOL, BOUND, INT,
                        SHAPE, ArrayOp, Call, Extremum, Operator, Reduction)
from .operators import is_number, is_tensor
from .signatures import UNSUPPORTED, Param

__all__ = ["TensorEmitter"]


class TensorEmitter(Emitter):
    """numpy on Tensors (:class:`~.interfaces.Tensors`)."""

    # -- the interface ----------------------------------------------------------------------
    def call_function(self, name: str, node: ast.Call, env: Env) -> Value:
        op = ARRAY_API.get(name)
        if op is None or op.function is None:
            self.src.fail(node.func, f"np.{name} is not supported by pyjit.script")
        return self._emit(op, op.function, node, env, f"np.{name}()")

    def call_method(self, array: Value, name: str, node: ast.Call, env: Env) -> Value:
        op = ARRAY_API.get(name)
        if op is None or op.method is None:
            self.src.fail(node.func, f"ndarray.{name}() is not supported by pyjit.script")
        return self._emit(op, op.method, node, env, f"ndarray.{name}()", array)

    def attribute(self, array: Value, node: ast.Attribute) -> Value:
        op = ARRAY_ATTRIBUTES.get(node.attr)
        if op is None:
            self.src.fail(node, f"array attribute '{node.attr}' is not supported")
        return self.b.emit1(op.kind, [array], op.result, node)

    # -- one call -----------------------------------------------------------------------------
    def _emit(self, op: ArrayOp, params: Sequence[Param], node: ast.Call, env: Env, what: str,
              receiver: Optional[Value] = None) -> Value:
        def read(p: Param, a: ast.expr) -> Optional[Value]:
            return self._read(p, a, env, what)

        args = bind(self.b, params, node, what, read, receiver,
                    unknown_keyword="{what} does not support the keyword '{name}'")
        lowering = op.lowering
        if isinstance(lowering, Call):
            inputs = [args[p.name] for p in params if p.kind != UNSUPPORTED]
            return self._call(lowering, inputs, node)
        if isinstance(lowering, Operator):
            lhs, rhs = (args[p.name] for p in params[:2])
            return self.ctx.ops.binary(lowering.op, lhs, rhs, node)
        if isinstance(lowering, Extremum):
            return self._extremum(lowering, *(args[p.name] for p in params[:2]), node, what)
        return self._reduction(lowering, args, node)

    def _call(self, call: Call, inputs: Sequence[Value], at: ast.AST) -> Value:
        extra = [self.b.const(c, at) for c in call.extra]
        return self.b.emit1(call.kind, [*inputs, *extra], call.result, at)

    def _extremum(self, lowering: Extremum, a: Value, b: Value, node: ast.Call,
                  what: str) -> Value:
        if is_tensor(b.type) and is_number(a.type):  # np.maximum(0, x)
            a, b = b, a
        if not (is_tensor(a.type) and (is_tensor(b.type) or is_number(b.type))):
            self.src.fail(node, f"{what} expects an array and an array or a number, "
                          f"not {a.type} and {b.type}")
        return self.b.emit1(lowering.kind, [a, b], T.TENSOR, node)

    def _reduction(self, lowering: Reduction, args: Arguments, node: ast.Call) -> Value:
        x, axes = args["a"], args["axis"]
        if axes is None:
            if args.given("keepdims"):
                self.src.fail(node, "keepdims without an axis is not supported")
            return self._call(Call(lowering.whole, lowering.extra), [x], node)
        return self._call(Call(lowering.along, lowering.extra), [x, axes, args["keepdims"]], node)

    # -- arguments ----------------------------------------------------------------------------
    def _read(self, p: Param, a: ast.expr, env: Env, what: str) -> Optional[Value]:
        """The argument ``a`` for the parameter ``p``, read as its kind says."""
        kind = p.kind
        if kind == AXES:
            if isinstance(a, ast.Constant) and a.value is None:
                return None  # the whole array
            return self._int_list(a, env, "axes")
        if kind == SHAPE:
            return self._int_list(a, env, "shape entries")
        if kind == ARRAYS:
            return self._arrays(a, env, what)
        v = self.ctx.exprs.emit(a, env)
        t = v.type
        if kind == ARRAY and not is_tensor(t):
            self.src.fail(a, f"{what} expects an array (Tensor), not {t}")
        if kind == BOOL and t != T.BOOL:
            self.src.fail(a, f"{what}: {p.name} must be a bool, not {t}")
        if kind == INT and t != T.INT:
            self.src.fail(a, f"{what}: {p.name} must be an int, not {t}")
        if kind == BOUND and not (is_number(t) or t == T.NONE):
            self.src.fail(a, f"{what} bounds must be numbers or None, not {t}")
        return v

    def _int_list(self, node: ast.expr, env: Env, what: str) -> Value:
        """A shape or an axis list: a tuple/list literal of ints becomes
        ``prim::ListConstruct``; an int a one-element list."""
        exprs = self.ctx.exprs
        if isinstance(node, (ast.Tuple, ast.List)):
            values = [exprs.emit(e, env) for e in node.elts]
        else:
            v = exprs.emit(node, env)
            if v.type == T.ListType(T.INT):
                return v
            values = [v]
        for v in values:
            if v.type != T.INT:
                self.src.fail(node, f"{what} must be ints, not {v.type}")
        return self.b.emit1("prim::ListConstruct", values, T.ListType(T.INT), node)

    def _arrays(self, node: ast.expr, env: Env, what: str) -> Value:
        """A sequence of arrays: a tuple/list literal of Tensors becomes
        ``prim::ListConstruct``; otherwise a ``Tensor[]``."""
        if isinstance(node, (ast.Tuple, ast.List)):
            arrays = [self._read(_ELEMENT, e, env, what) for e in node.elts]
            return self.b.emit1("prim::ListConstruct", arrays, T.ListType(T.TENSOR), node)
        v = self.ctx.exprs.emit(node, env)
        if v.type != T.ListType(T.TENSOR):
            self.src.fail(node, f"{what} expects a list of arrays, not {v.type}")
        return v


_ELEMENT = Param("element", kind=ARRAY)
