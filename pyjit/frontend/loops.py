"""Loops: ``while``, ``for`` over ranges, lists, strings, dicts, ``enumerate`` and
``zip`` (a ``prim::Loop``), ``for`` over a tuple (unrolled), and comprehensions.

A ``for`` loop is trip-counted, as torch emits it::

    for i in range(a, b, 2):        %n : int = aten::__range_length(%a, %b, %2)
        s += i                      %s : int = prim::Loop(%n, %true, %s.1)
                                      block0(%k : int, %s.2 : int):
                                        %i : int = aten::__derive_index(%k, %a, %2)
                                        ...
                                        -> (%true, %s.3)

    for x in xs:                    %n : int = aten::len(%xs)   then
                                    %x : int = aten::__getitem__(%xs, %k) in the body

A ``while`` loop has no trip count (``INT_MAX``) and evaluates its test before
the loop and again at the end of the body.  What the loop carries, and how
``break``/``continue``/``return`` end it, is :class:`~.lowering.LoopPlan`'s;
the body is emitted by ``ctx.stmts``, and ``range``/``enumerate``/``zip`` are
recognised through ``ctx.calls.resolve``, as any other call target.
"""

from __future__ import annotations

import ast
from typing import Callable, List, NamedTuple, Optional

from ..ir import Value
from ..ir import types as T
from .builder import INT_MAX
from .core import Dialect, Emitter
from .environment import (FALLS, Element, Env, Flow, assigned_names, contains_break,
                          contains_return)
from .lowering import LoopPlan, apply_refinements, loop_carried
from .statements import BindTarget

__all__ = ["LoopEmitter", "Iteration"]


class Iteration(NamedTuple):
    """A for-loop iterable: the trip count, and how to get element ``i`` inside
    the body."""

    trip: Value
    element: Callable[[Value], Element]


class LoopEmitter(Emitter):
    """Loops and comprehensions (:class:`~.interfaces.Loops`)."""

    def __init__(self, ctx: Dialect) -> None:
        super().__init__(ctx)
        self._open: List[str] = []   # the kinds of the loops being emitted, innermost last

    # -- the interface ----------------------------------------------------------------------
    def innermost(self) -> Optional[str]:
        return self._open[-1] if self._open else None

    def while_loop(self, stmt: ast.While, env: Env) -> Flow:
        if stmt.orelse:
            self.src.fail(stmt, "'while ... else' is not supported")
        ctx = self.ctx
        cond, rt, _ = ctx.exprs.condition(stmt.test, env)
        infinite = isinstance(stmt.test, ast.Constant) and stmt.test.value is True and \
            not contains_break(stmt.body)
        carried = loop_carried(env, assigned_names(stmt.body), contains_return(stmt.body))
        plan = LoopPlan(self.b, self.b.const(INT_MAX, stmt), cond, env, carried,
                        ctx.pending_return_type(), stmt)
        apply_refinements(plan.body_env, rt)
        flow = self._loop_body(plan, stmt.body)

        def next_cond(e: Env) -> Value:
            return ctx.exprs.condition(stmt.test, e).value

        return plan.finish(flow, next_cond, infinite)

    def for_loop(self, stmt: ast.For, env: Env) -> Flow:
        if stmt.orelse:
            self.src.fail(stmt, "'for ... else' is not supported")
        ctx = self.ctx
        it = self._iteration_call(stmt.iter, env)
        if it is None:
            v = ctx.exprs.emit(stmt.iter, env)
            if isinstance(v.type, T.TupleType):
                elems = self.b.emit("prim::TupleUnpack", [v], list(v.type.elems),
                                    stmt.iter).outputs
                return self._unrolled_for(stmt, list(elems), env)
            it = self._iteration_of_value(v, stmt.iter)
        targets = assigned_names([ast.Assign(targets=[stmt.target], value=ast.Constant(0))])
        carried = loop_carried(env, targets + assigned_names(stmt.body),
                               contains_return(stmt.body))
        plan = LoopPlan(self.b, it.trip, self.b.const(True, stmt), env, carried,
                        ctx.pending_return_type(), stmt)

        def bind(body_env: Env) -> None:
            ctx.stmts.assign(stmt.target, it.element(plan.iter), body_env, stmt)

        flow = self._loop_body(plan, stmt.body, bind)
        return plan.finish(flow, None, False)

    def comprehension(self, generators: List[ast.comprehension], env: Env,
                      body: Callable[[Env], None], node: ast.AST) -> None:
        """Comprehension variables are local to it, as in Python 3."""
        gen = generators[0]
        if gen.is_async:
            self.src.fail(gen.iter, "async comprehensions are not supported")
        it = self._iteration(gen.iter, env)
        plan = LoopPlan(self.b, it.trip, self.b.const(True, node), env, [], None, node)
        sub = plan.body_env
        for name in assigned_names([ast.Assign(targets=[gen.target], value=ast.Constant(0))]):
            sub.forget(name)
            sub.undefined.pop(name, None)
        self._open.append("comprehension")
        try:
            with self.b.at_end_of(plan.block):
                self.ctx.stmts.assign(gen.target, it.element(plan.iter), sub, gen.target)
                self._comprehension_filters(gen.ifs, generators[1:], sub, body, node)
        finally:
            self._open.pop()
        plan.finish(FALLS, None, False)

    # -- bodies ---------------------------------------------------------------------------
    def _loop_body(self, plan: LoopPlan, body: List[ast.stmt],
                   before: Optional[Callable[[Env], None]] = None) -> Flow:
        self._open.append("loop")
        try:
            with self.b.at_end_of(plan.block):
                if before is not None:
                    before(plan.body_env)
                return self.ctx.stmts.block(body, plan.body_env)
        finally:
            self._open.pop()

    def _unrolled_for(self, stmt: ast.For, values: List[Value], env: Env) -> Flow:
        """A loop over a tuple runs its body once per element, in line (the
        elements may have different types), as torch unrolls it."""
        seq: List[ast.stmt] = []
        for v in values:
            seq.append(ast.copy_location(BindTarget(stmt.target, v), stmt))
            seq.extend(stmt.body)
        self._open.append("unrolled")
        try:
            return self.ctx.stmts.block(seq, env)
        finally:
            self._open.pop()

    def _comprehension_filters(self, ifs: List[ast.expr], more: List[ast.comprehension],
                               env: Env, body: Callable[[Env], None], node: ast.AST) -> None:
        if ifs:
            cond, rt, _ = self.ctx.exprs.condition(ifs[0], env)
            n = self.b.emit("prim::If", [cond], [], ifs[0])
            b_then, _ = n.add_block(), n.add_block()
            sub = env.child()
            apply_refinements(sub, rt)
            with self.b.at_end_of(b_then):
                self._comprehension_filters(ifs[1:], more, sub, body, node)
            return
        if more:
            self.comprehension(more, env, body, node)
        else:
            body(env)

    # -- iterables ---------------------------------------------------------------------------
    def _iteration(self, node: ast.expr, env: Env) -> Iteration:
        """How to iterate ``node``: ``range(...)``, ``enumerate``, ``zip``, a list, a
        string or a dict (its keys)."""
        it = self._iteration_call(node, env)
        return it if it is not None else self._iteration_of_value(
            self.ctx.exprs.emit(node, env), node)

    def _iteration_call(self, node: ast.expr, env: Env) -> Optional[Iteration]:
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and \
                node.func.id not in env.vars:
            fn = self.ctx.calls.resolve(node.func, env).obj
            if fn is range:
                return self._range(node, env)
            if fn is enumerate:
                return self._enumerate(node, env)
            if fn is zip:
                return self._zip(node, env)
        return None

    def _iteration_of_value(self, v: Value, node: ast.expr) -> Iteration:
        b = self.b
        t = v.type
        if isinstance(t, T.DictType):
            v = b.emit1("aten::keys", [v], T.ListType(t.key), node)
            t = v.type
        if isinstance(t, T.ListType) or t == T.STR:
            elem = t.elem if isinstance(t, T.ListType) else T.STR
            trip = b.emit1("aten::len", [v], T.INT, node)
            return Iteration(trip, lambda i: b.emit1("aten::__getitem__", [v, i], elem, node))
        if isinstance(t, T.TupleType):
            self.src.fail(node, "only a for statement can loop over a tuple (it is unrolled)")
        self.src.fail(node, f"cannot iterate over a value of type {t}")

    def _range(self, node: ast.Call, env: Env) -> Iteration:
        b = self.b
        if node.keywords or not 1 <= len(node.args) <= 3:
            self.src.fail(node, "range() takes one to three int arguments")
        args = [self.ctx.exprs.emit(a, env) for a in node.args]
        for a, n in zip(args, node.args):
            if a.type != T.INT:
                self.src.fail(n, f"range() arguments must be int, not {a.type}")
        if len(args) == 1:
            return Iteration(args[0], lambda i: i)
        start, stop = args[0], args[1]
        step = args[2] if len(args) == 3 else b.const(1, node)
        trip = b.emit1("aten::__range_length", [start, stop, step], T.INT, node)
        return Iteration(trip, lambda i: b.emit1("aten::__derive_index", [i, start, step],
                                                 T.INT, node))

    def _enumerate(self, node: ast.Call, env: Env) -> Iteration:
        b = self.b
        if node.keywords or not 1 <= len(node.args) <= 2:
            self.src.fail(node, "enumerate() takes an iterable and an optional int start")
        inner = self._iteration(node.args[0], env)
        start = self.ctx.exprs.emit(node.args[1], env) if len(node.args) == 2 else None
        if start is not None and start.type != T.INT:
            self.src.fail(node.args[1], "the start of enumerate() must be an int")

        def element(i: Value) -> Element:
            index = i if start is None else b.emit1(
                "aten::__derive_index", [i, start, b.const(1, node)], T.INT, node)
            return [index, inner.element(i)]

        return Iteration(inner.trip, element)

    def _zip(self, node: ast.Call, env: Env) -> Iteration:
        if node.keywords or len(node.args) < 2:
            self.src.fail(node, "zip() takes two or more iterables here")
        inners = [self._iteration(a, env) for a in node.args]
        lengths = self.b.emit1("prim::ListConstruct", [it.trip for it in inners],
                               T.ListType(T.INT), node)
        trip = self.b.emit1("prim::min", [lengths], T.INT, node)
        return Iteration(trip, lambda i: [it.element(i) for it in inners])
