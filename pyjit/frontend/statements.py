"""Statements: assignments, ``if``, loops, ``return``/``break``/``continue``, ``raise``
and ``assert``, emitted block by block.

``emit_block(stmts, env)`` fills the current block and returns the block's
:class:`~.environment.Flow`.  How exits are lowered is described in
:mod:`.lowering`; in short, the statements after one that may exit are emitted
where the exit cannot reach them, so the graph needs no jumps.
"""

from __future__ import annotations

import ast
from typing import Callable, List, NamedTuple, Optional, Sequence, Union

from ..ir import Value
from ..ir import types as T
from .builder import INT_MAX
from .environment import (BRK, CONT, FALLS, RAISES, RET, RETVAL, Env, Flow, Var,
                          assigned_names, contains_break, contains_return)
from .lowering import Branch, LoopPlan, apply_refinements, loop_carried, merge_branches
from .operators import INPLACE_KINDS, is_tensor
from .typing_rules import is_subtype, unify

__all__ = ["StatementEmitter", "BindTarget", "ImplicitReturn"]

#: What a for-loop target receives: one value, or a tuple kept as separate values
#: (``enumerate``/``zip`` elements) so that unpacking them needs no node.
Element = Union[Value, List["Element"]]

#: The type of ``$retval`` while an unannotated function has not returned yet;
#: replaced by the real return type at the end (``compiler._resolve_pending``).
PENDING_RETURN = T.NamedType("$pending_return")


class BindTarget(ast.stmt):
    """A synthetic statement: bind ``target`` to an already computed ``value`` (the
    per-iteration binding of an unrolled loop over a tuple)."""

    _fields = ("target",)

    def __init__(self, target: ast.expr, value: Value, **kw) -> None:
        super().__init__(target=target, **kw)
        self.value = value


class ImplicitReturn(ast.stmt):
    """A synthetic ``return None`` at the end of a function body."""

    _fields = ()


class Iteration(NamedTuple):
    """A for-loop iterable: the trip count, and how to get element ``i`` inside
    the body."""

    trip: Value
    element: Callable[[Value], Element]


class StatementEmitter:
    """Mixin of the function compiler: statements and blocks."""

    # -- blocks ---------------------------------------------------------------------------
    def emit_block(self, stmts: Sequence[ast.stmt], env: Env) -> Flow:
        """Emit ``stmts`` at the insertion point, updating ``env``; returns how the
        block can end.  Statements that cannot be reached are not emitted."""
        stmts = list(stmts)
        flow = FALLS
        for i, stmt in enumerate(stmts):
            rest = stmts[i + 1:]
            if isinstance(stmt, ast.If):
                flow, consumed = self.stmt_If(stmt, rest, env)
                if consumed:
                    return flow
            else:
                flow = self.emit_stmt(stmt, env)
            if not flow.falls:
                return flow
            if flow.exits and rest:
                return self.emit_guarded(rest, env, flow)
        return flow

    def emit_continuation(self, rest: List[ast.stmt], env: Env, flow: Flow, depth: int) -> Flow:
        """Emit ``rest`` after statements that ended with ``flow`` (which falls),
        back at the block depth ``depth`` of the statements they follow."""
        env.depth = depth
        if flow.exits:
            return self.emit_guarded(rest, env, flow)
        return self.emit_block(rest, env)

    def emit_guarded(self, rest: List[ast.stmt], env: Env, flow: Flow) -> Flow:
        """``prim::If(exited)`` with ``rest`` in its else branch: the code after a
        statement that may have run a ``break``/``continue``/``return``."""
        at = rest[0]
        names = ([BRK, CONT] if flow.loop_exit else []) + ([RET] if flow.returns else [])
        flags = [env.vars[n].value for n in names if n in env.vars]
        if not flags:  # pragma: no cover - an exit always sets its flag
            return self.emit_block(rest, env)
        cond = self.any_of(flags, at)
        node = self.emit("prim::If", [cond], [], at)
        b_then, b_else = node.add_block(), node.add_block()
        then_env, else_env = env.child(env.depth), env.child(env.depth)
        with self.at_end_of(b_else):
            else_flow = self.emit_block(rest, else_env)
        exited = Flow(False, flow.loop_exit, flow.returns)
        merged, out = merge_branches(self, node, env, Branch(b_then, then_env, exited),
                                     Branch(b_else, else_env, else_flow), at)
        _replace_env(env, merged)
        return out

    def emit_stmt(self, stmt: ast.stmt, env: Env) -> Flow:
        method = getattr(self, "stmt_" + type(stmt).__name__, None)
        if method is None:
            self.src.fail(stmt, f"{_describe(stmt)} is not supported by pyjit.script")
        return method(stmt, env)

    # -- simple statements ----------------------------------------------------------------------
    def stmt_Pass(self, stmt: ast.Pass, env: Env) -> Flow:
        return FALLS

    def stmt_Expr(self, stmt: ast.Expr, env: Env) -> Flow:
        if isinstance(stmt.value, ast.Constant):  # a docstring, or a bare literal
            return FALLS
        self.emit_expr(stmt.value, env)
        return FALLS

    def stmt_Assign(self, stmt: ast.Assign, env: Env) -> Flow:
        value = stmt.value
        if len(stmt.targets) == 1 and isinstance(stmt.targets[0], (ast.Tuple, ast.List)) and \
                isinstance(value, ast.Tuple) and len(value.elts) == len(stmt.targets[0].elts) \
                and not any(isinstance(e, ast.Starred) for e in value.elts):
            # a, b = b, a + b: every right-hand side first, then the bindings, and
            # no tuple in between.
            values = [self.emit_expr(e, env) for e in value.elts]
            for target, v in zip(stmt.targets[0].elts, values):
                self.assign_target(target, v, env, stmt)
            return FALLS
        v = self.emit_expr(value, env, self._target_type(stmt.targets[0], value, env))
        for target in stmt.targets:
            self.assign_target(target, v, env, stmt)
        return FALLS

    def _target_type(self, target: ast.expr, value: ast.expr, env: Env) -> Optional[T.Type]:
        """The type an assignment target already has, when it is known without
        evaluating anything and binds the value: the variable's type if it must
        keep it (declared, or of an enclosing block), the element type of the
        container assigned into.  It gives ``x = []`` or ``d[k] = []`` their type."""
        if isinstance(target, ast.Name):
            var = env.get(target.id)
            if var is None:
                return None
            empty = isinstance(value, (ast.List, ast.Dict)) and not (
                value.elts if isinstance(value, ast.List) else value.keys)
            return var.type if (var.declared or var.depth < env.depth or empty) else None
        if isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name):
            var = env.get(target.value.id)
            t = var.type if var is not None else None
            if isinstance(t, T.ListType):
                return t.elem
            if isinstance(t, T.DictType):
                return t.value
        return None

    def stmt_AnnAssign(self, stmt: ast.AnnAssign, env: Env) -> Flow:
        if not isinstance(stmt.target, ast.Name):
            self.src.fail(stmt, "annotated assignments are supported for plain names only")
        if stmt.value is None:
            self.src.fail(stmt, "a variable annotation needs a value ('x: int = 0')")
        declared = self.annotation_type(stmt.annotation)
        v = self.emit_expr(stmt.value, env, declared)
        v = self.coerce(v, declared, stmt.value,
                        f"'{stmt.target.id}' is declared {declared} but assigned a {v.type}")
        self.bind_name(stmt.target.id, v, stmt.target, env, declared=declared)
        return FALLS

    def stmt_AugAssign(self, stmt: ast.AugAssign, env: Env) -> Flow:
        op = type(stmt.op)
        target = stmt.target
        if isinstance(target, ast.Name):
            old = self.lookup(target.id, target, env)
            rhs = self.emit_expr(stmt.value, env)
            if isinstance(old.type, T.ListType) and op is ast.Add:
                if rhs.type != old.type:
                    self.src.fail(stmt, f"cannot extend {old.type} with {rhs.type}")
                new = self.emit1("aten::add_", [old, rhs], old.type, stmt)
            elif is_tensor(old.type) and op in INPLACE_KINDS:
                extra = [self.const(1, stmt)] if op in (ast.Add, ast.Sub) else []
                if not (is_tensor(rhs.type) or rhs.type in (T.INT, T.FLOAT, T.BOOL)):
                    self.src.fail(stmt, f"unsupported operand types for augmented assignment: "
                                  f"{old.type} and {rhs.type}")
                new = self.emit1(INPLACE_KINDS[op], [old, rhs, *extra], T.TENSOR, stmt)
            else:
                new = self.binary(op, old, rhs, stmt)
            self.bind_name(target.id, new, target, env)
            return FALLS
        if isinstance(target, ast.Subscript):
            if isinstance(target.slice, ast.Slice):
                self.src.fail(target, "augmented assignment to a slice is not supported")
            container = self.emit_expr(target.value, env)
            index = self.emit_expr(target.slice, env)
            old = self.getitem(container, index, target)
            new = self.binary(op, old, self.emit_expr(stmt.value, env), stmt)
            self.set_item(container, index, new, stmt)
            return FALLS
        self.src.fail(target, "augmented assignment is supported to names and items only")

    def stmt_BindTarget(self, stmt: BindTarget, env: Env) -> Flow:
        self.assign_target(stmt.target, stmt.value, env, stmt)
        return FALLS

    # -- binding names -------------------------------------------------------------------------
    def assign_target(self, target: ast.expr, v: Element, env: Env, at: ast.AST) -> None:
        """Bind ``target`` (a name, a tuple/list of targets, or an item) to ``v``."""
        if isinstance(target, ast.Name):
            if isinstance(v, list):
                v = self.tuple_value([self._materialize(e, at) for e in v], at)
            self.bind_name(target.id, v, target, env)
            return
        if isinstance(target, (ast.Tuple, ast.List)):
            if any(isinstance(e, ast.Starred) for e in target.elts):
                self.src.fail(target, "starred assignment targets (a, *b = ...) are not "
                              "supported")
            parts = self._unpack(v, len(target.elts), target)
            for t, p in zip(target.elts, parts):
                self.assign_target(t, p, env, at)
            return
        if isinstance(target, ast.Subscript):
            if isinstance(target.slice, ast.Slice):
                self.src.fail(target, "assignment to a slice is not supported")
            container = self.emit_expr(target.value, env)
            index = self.emit_expr(target.slice, env)
            self.set_item(container, index, self._materialize(v, at), target)
            return
        if isinstance(target, ast.Attribute):
            self.src.fail(target, "assignment to an attribute is not supported")
        self.src.fail(target, f"cannot assign to {type(target).__name__}")

    def _materialize(self, v: Element, at: ast.AST) -> Value:
        return v if isinstance(v, Value) else self.tuple_value(
            [self._materialize(e, at) for e in v], at)

    def _unpack(self, v: Element, n: int, target: ast.expr) -> List[Element]:
        if isinstance(v, list):
            if len(v) != n:
                self.src.fail(target, f"cannot unpack {len(v)} values into {n} targets")
            return v
        t = v.type
        if isinstance(t, T.TupleType):
            if len(t.elems) != n:
                self.src.fail(target, f"cannot unpack a tuple of {len(t.elems)} elements into "
                              f"{n} targets")
            return list(self.emit("prim::TupleUnpack", [v], list(t.elems), target).outputs)
        if isinstance(t, T.ListType):
            return list(self.emit("prim::ListUnpack", [v], [t.elem] * n, target).outputs)
        self.src.fail(target, f"cannot unpack a value of type {t}")

    def set_item(self, container: Value, index: Value, v: Value, at: ast.AST) -> None:
        t = container.type
        if isinstance(t, T.ListType):
            if index.type != T.INT:
                self.src.fail(at, f"list indices must be int, not {index.type}")
            v = self.coerce(v, t.elem, at, f"cannot store {v.type} in {t}")
        elif isinstance(t, T.DictType):
            if index.type != t.key:
                self.src.fail(at, f"keys of {t} must be {t.key}, not {index.type}")
            v = self.coerce(v, t.value, at, f"cannot store {v.type} in {t}")
        else:
            self.src.fail(at, f"item assignment is not supported on {t}")
        self.emit("aten::_set_item", [container, index, v], [], at)

    def coerce(self, v: Value, want: T.Type, at: ast.AST, message: str) -> Value:
        """``v`` as a ``want``: subtypes as they are, an int turned into a float."""
        if is_subtype(v.type, want):
            return v
        if v.type == T.INT and want in (T.FLOAT, T.OptionalType(T.FLOAT)):
            return self.emit1("aten::Float", [v], T.FLOAT, at)
        self.src.fail(at, message)

    def bind_name(self, name: str, v: Value, at: ast.AST, env: Env,
                  declared: Optional[T.Type] = None) -> None:
        """Bind ``name`` to ``v`` in ``env``, with the typing rules of torch: a
        declared variable keeps its declared type; a variable of an enclosing block
        keeps its type; in its own block a name may be rebound to any type."""
        line, col = self.src.line_of(at), self.src.col_of(at)
        old = env.get(name)
        outer = old is not None and old.depth < env.depth
        if declared is not None:
            if outer and old.type != declared:
                self.src.fail(at, f"variable '{name}' previously had type {old.type} (line "
                              f"{old.line}) but is declared {declared} here")
            var = Var(v, declared, line, col, old.depth if outer else env.depth, True)
        elif old is not None and (old.declared or outer):
            if not is_subtype(v.type, old.type):
                if v.type == T.INT and old.type == T.FLOAT and old.declared:
                    v = self.emit1("aten::Float", [v], T.FLOAT, at)
                else:
                    hint = (f"; annotate it where it is first assigned, e.g. '{name}: "
                            f"Optional[{v.type}] = None'" if old.type == T.NONE else "")
                    self.src.fail(at, f"variable '{name}' previously had type {old.type} "
                                  f"(assigned at line {old.line}) but is now assigned a value of "
                                  f"type {v.type}{hint}")
            var = Var(v, old.type, line, col, old.depth if outer else env.depth, old.declared)
        else:
            var = Var(v, v.type, line, col, env.depth)
        if not v.has_debug_name() and v.node.kind != "prim::Param":
            v.set_debug_name(name)
        env.bind(name, var)

    # -- exits ---------------------------------------------------------------------------------
    def stmt_Return(self, stmt: ast.Return, env: Env) -> Flow:
        want = self.return_type
        if stmt.value is None:
            v = self.const(None, stmt)
        else:
            v = self.emit_expr(stmt.value, env, want)
        self._set_return(v, stmt, env)
        return Flow(False, returns=True)

    def stmt_ImplicitReturn(self, stmt: ImplicitReturn, env: Env) -> Flow:
        if self.return_annotated and not is_subtype(T.NONE, self.return_type):
            self.src.fail(self.src.tree, f"function '{self.src.tree.name}' is declared to return "
                          f"{self.return_type} but can reach the end of its body without a "
                          "return statement")
        self._set_return(self.const(None, stmt), stmt, env)
        return Flow(False, returns=True)

    def _set_return(self, v: Value, at: ast.AST, env: Env) -> None:
        """Make ``v`` the value returned.  With an annotation it must fit it; without
        one, the return type is what all returns unify to (``int`` and ``None``
        give ``int?``), and the values carried around meanwhile are typed
        :data:`PENDING_RETURN` until the end."""
        if self.return_annotated:
            v = self.coerce(v, self.return_type, at,
                            f"the function returns {self.return_type} (the type of its "
                            f"annotation) but this return gives {v.type}")
            var_type = self.return_type
        else:
            t = v.type if self.return_type is None else unify(self.return_type, v.type)
            if t is None:
                self.src.fail(at, f"this return gives {v.type} but an earlier one gives "
                              f"{self.return_type}; annotate the return type")
            self.return_type = t
            var_type = PENDING_RETURN
        line, col = self.src.line_of(at), self.src.col_of(at)
        env.bind(RETVAL, Var(v, var_type, line, col, 0))
        env.bind(RET, Var(self.const(True, at), T.BOOL, line, col, 0))

    def stmt_Break(self, stmt: ast.Break, env: Env) -> Flow:
        self._check_loop_exit(stmt, "break")
        env.bind(BRK, Var(self.const(True, stmt), T.BOOL, self.src.line_of(stmt), 0, 0))
        return Flow(False, loop_exit=True)

    def stmt_Continue(self, stmt: ast.Continue, env: Env) -> Flow:
        self._check_loop_exit(stmt, "continue")
        env.bind(CONT, Var(self.const(True, stmt), T.BOOL, self.src.line_of(stmt), 0, 0))
        return Flow(False, loop_exit=True)

    def _check_loop_exit(self, stmt: ast.stmt, what: str) -> None:
        if not self.loops:
            self.src.fail(stmt, f"'{what}' outside a loop")
        if self.loops[-1] == "unrolled":
            self.src.fail(stmt, f"'{what}' in a for loop over a tuple is not supported (the "
                          "loop is unrolled); loop over a list instead")

    def stmt_Raise(self, stmt: ast.Raise, env: Env) -> Flow:
        if stmt.exc is None:
            self.src.fail(stmt, "a bare 'raise' (re-raise) is not supported")
        if stmt.cause is not None:
            self.src.fail(stmt, "'raise ... from ...' is not supported")
        exc = stmt.exc
        call = exc if isinstance(exc, ast.Call) else None
        cls_node = call.func if call is not None else exc
        cls = self._exception_class(cls_node, env)
        if call is not None and (call.keywords or len(call.args) > 1):
            self.src.fail(call, "exceptions take at most one (message) argument here")
        if call is not None and call.args:
            msg = self.emit_expr(call.args[0], env)
            if msg.type != T.STR:
                msg = self.emit1("aten::str", [msg], T.STR, call.args[0])
        else:
            msg = self.const("", stmt)
        name = f"{cls.__module__}.{cls.__qualname__}"
        self.emit("prim::RaiseException", [msg, self.const(name, cls_node)], [], stmt)
        return RAISES

    def _exception_class(self, node: ast.expr, env: Env) -> type:
        obj = None
        if isinstance(node, ast.Name) and node.id not in env.vars:
            obj = self.resolve_global(node.id, node)
        elif isinstance(node, ast.Attribute):
            module = self._module_of(node.value, env)
            obj = getattr(module, node.attr, None) if module is not None else None
        if not (isinstance(obj, type) and issubclass(obj, BaseException)):
            self.src.fail(node, "raise needs an exception class, e.g. raise ValueError('...')")
        return obj

    def stmt_Assert(self, stmt: ast.Assert, env: Env) -> Flow:
        """``assert c, m`` is ``If(c) -> () else: RaiseException("AssertionError: m")``,
        and what ``c`` proves (``x is not None``) holds after it."""
        cond, rt, rf = self.emit_condition(stmt.test, env)
        node = self.emit("prim::If", [cond], [], stmt)
        b_then, b_else = node.add_block(), node.add_block()
        then_env, else_env = env.child(env.depth), env.child()
        apply_refinements(then_env, rt)
        with self.at_end_of(b_else):
            prefix = "AssertionError: "
            if stmt.msg is None:
                msg = self.const(prefix, stmt)
            elif isinstance(stmt.msg, ast.Constant) and isinstance(stmt.msg.value, str):
                msg = self.const(prefix + stmt.msg.value, stmt)
            else:
                m = self.emit_expr(stmt.msg, else_env)
                if m.type != T.STR:
                    m = self.emit1("aten::str", [m], T.STR, stmt.msg)
                msg = self.emit1("aten::add", [self.const(prefix, stmt), m], T.STR, stmt)
            self.emit("prim::RaiseException", [msg, self.const(None, stmt)], [], stmt)
        merged, flow = merge_branches(self, node, env, Branch(b_then, then_env, FALLS),
                                      Branch(b_else, else_env, RAISES), stmt)
        _replace_env(env, merged)
        return flow

    # -- if ----------------------------------------------------------------------------------------
    def stmt_If(self, stmt: ast.If, rest: List[ast.stmt], env: Env):
        """Emit the If; when one branch cannot fall through, ``rest`` (the
        statements after the If) goes into the other branch.  Returns the Flow and
        whether ``rest`` was consumed."""
        cond, rt, rf = self.emit_condition(stmt.test, env)
        node = self.emit("prim::If", [cond], [], stmt)
        b_then, b_else = node.add_block(), node.add_block()
        then_env, else_env = env.child(), env.child()
        apply_refinements(then_env, rt)
        apply_refinements(else_env, rf)
        with self.at_end_of(b_then):
            f_then = self.emit_block(stmt.body, then_env)
        with self.at_end_of(b_else):
            f_else = self.emit_block(stmt.orelse, else_env)
        consumed = False
        # A branch that only raises needs nothing after it: the rest can follow
        # the If as usual.  One that returns/breaks/continues takes the rest into
        # the other branch, where no exit flag needs testing.
        if rest:
            if not f_then.falls and f_then.exits and f_else.falls:
                with self.at_end_of(b_else):
                    f_else = self.emit_continuation(rest, else_env, f_else, env.depth)
                consumed = True
            elif not f_else.falls and f_else.exits and f_then.falls:
                with self.at_end_of(b_then):
                    f_then = self.emit_continuation(rest, then_env, f_then, env.depth)
                consumed = True
            elif not f_then.falls and not f_else.falls:
                consumed = True  # unreachable
        merged, flow = merge_branches(self, node, env, Branch(b_then, then_env, f_then),
                                      Branch(b_else, else_env, f_else), stmt)
        _replace_env(env, merged)
        return flow, consumed

    # -- loops -----------------------------------------------------------------------------------
    def stmt_While(self, stmt: ast.While, env: Env) -> Flow:
        if stmt.orelse:
            self.src.fail(stmt, "'while ... else' is not supported")
        cond, rt, _ = self.emit_condition(stmt.test, env)
        infinite = isinstance(stmt.test, ast.Constant) and stmt.test.value is True and \
            not contains_break(stmt.body)
        carried = loop_carried(env, assigned_names(stmt.body), contains_return(stmt.body))
        plan = LoopPlan(self, self.const(INT_MAX, stmt), cond, env, carried,
                        self.pending_return_type(), stmt)
        apply_refinements(plan.body_env, rt)
        flow = self._loop_body(plan, stmt.body)

        def next_cond(e: Env) -> Value:
            return self.emit_condition(stmt.test, e)[0]

        return plan.finish(flow, next_cond, infinite)

    def _loop_body(self, plan: LoopPlan, body: List[ast.stmt],
                   before: Optional[Callable[[Env], None]] = None) -> Flow:
        self.loops.append("loop")
        try:
            with self.at_end_of(plan.block):
                if before is not None:
                    before(plan.body_env)
                return self.emit_block(body, plan.body_env)
        finally:
            self.loops.pop()

    def stmt_For(self, stmt: ast.For, env: Env) -> Flow:
        if stmt.orelse:
            self.src.fail(stmt, "'for ... else' is not supported")
        it = self._iteration_call(stmt.iter, env)
        if it is None:
            v = self.emit_expr(stmt.iter, env)
            if isinstance(v.type, T.TupleType):
                elems = self.emit("prim::TupleUnpack", [v], list(v.type.elems), stmt.iter).outputs
                return self._unrolled_for(stmt, list(elems), env)
            it = self.iteration_of_value(v, stmt.iter)
        targets = assigned_names([ast.Assign(targets=[stmt.target], value=ast.Constant(0))])
        carried = loop_carried(env, targets + assigned_names(stmt.body),
                               contains_return(stmt.body))
        plan = LoopPlan(self, it.trip, self.const(True, stmt), env, carried,
                        self.pending_return_type(), stmt)

        def bind(body_env: Env) -> None:
            self.assign_target(stmt.target, it.element(plan.iter), body_env, stmt)

        flow = self._loop_body(plan, stmt.body, bind)
        return plan.finish(flow, None, False)

    def _unrolled_for(self, stmt: ast.For, values: List[Value], env: Env) -> Flow:
        """A loop over a tuple runs its body once per element, in line (the
        elements may have different types), as torch unrolls it."""
        seq: List[ast.stmt] = []
        for v in values:
            seq.append(ast.copy_location(BindTarget(stmt.target, v), stmt))
            seq.extend(stmt.body)
        self.loops.append("unrolled")
        try:
            return self.emit_block(seq, env)
        finally:
            self.loops.pop()

    def iteration(self, node: ast.expr, env: Env) -> Iteration:
        """How to iterate ``node``: ``range(...)``, ``enumerate``, ``zip``, a list, a
        string or a dict (its keys)."""
        it = self._iteration_call(node, env)
        return it if it is not None else self.iteration_of_value(self.emit_expr(node, env), node)

    def _iteration_call(self, node: ast.expr, env: Env) -> Optional[Iteration]:
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and \
                node.func.id not in env.vars:
            fn = self.resolve_global(node.func.id, node.func)
            if fn is range:
                return self._range(node, env)
            if fn is enumerate:
                return self._enumerate(node, env)
            if fn is zip:
                return self._zip(node, env)
        return None

    def iteration_of_value(self, v: Value, node: ast.expr) -> Iteration:
        t = v.type
        if isinstance(t, T.DictType):
            v = self.emit1("aten::keys", [v], T.ListType(t.key), node)
            t = v.type
        if isinstance(t, T.ListType) or t == T.STR:
            elem = t.elem if isinstance(t, T.ListType) else T.STR
            trip = self.emit1("aten::len", [v], T.INT, node)
            return Iteration(trip, lambda i: self.emit1("aten::__getitem__", [v, i], elem, node))
        if isinstance(t, T.TupleType):
            self.src.fail(node, "only a for statement can loop over a tuple (it is unrolled)")
        self.src.fail(node, f"cannot iterate over a value of type {t}")

    def _range(self, node: ast.Call, env: Env) -> Iteration:
        if node.keywords or not 1 <= len(node.args) <= 3:
            self.src.fail(node, "range() takes one to three int arguments")
        args = [self.emit_expr(a, env) for a in node.args]
        for a, n in zip(args, node.args):
            if a.type != T.INT:
                self.src.fail(n, f"range() arguments must be int, not {a.type}")
        if len(args) == 1:
            return Iteration(args[0], lambda i: i)
        start, stop = args[0], args[1]
        step = args[2] if len(args) == 3 else self.const(1, node)
        trip = self.emit1("aten::__range_length", [start, stop, step], T.INT, node)
        return Iteration(trip, lambda i: self.emit1("aten::__derive_index", [i, start, step],
                                                    T.INT, node))

    def _enumerate(self, node: ast.Call, env: Env) -> Iteration:
        if node.keywords or not 1 <= len(node.args) <= 2:
            self.src.fail(node, "enumerate() takes an iterable and an optional int start")
        inner = self.iteration(node.args[0], env)
        start = self.emit_expr(node.args[1], env) if len(node.args) == 2 else None
        if start is not None and start.type != T.INT:
            self.src.fail(node.args[1], "the start of enumerate() must be an int")

        def element(i: Value) -> Element:
            index = i if start is None else self.emit1(
                "aten::__derive_index", [i, start, self.const(1, node)], T.INT, node)
            return [index, inner.element(i)]

        return Iteration(inner.trip, element)

    def _zip(self, node: ast.Call, env: Env) -> Iteration:
        if node.keywords or len(node.args) < 2:
            self.src.fail(node, "zip() takes two or more iterables here")
        inners = [self.iteration(a, env) for a in node.args]
        lengths = self.emit1("prim::ListConstruct", [it.trip for it in inners],
                             T.ListType(T.INT), node)
        trip = self.emit1("prim::min", [lengths], T.INT, node)
        return Iteration(trip, lambda i: [it.element(i) for it in inners])

    # -- comprehensions --------------------------------------------------------------------------
    def emit_comprehension(self, gens: List[ast.comprehension], env: Env,
                           body: Callable[[Env], None], node: ast.AST) -> None:
        """The loops of a comprehension, innermost calling ``body`` (which appends).
        Comprehension variables are local to it, as in Python 3."""
        gen = gens[0]
        if gen.is_async:
            self.src.fail(gen.iter, "async comprehensions are not supported")
        it = self.iteration(gen.iter, env)
        plan = LoopPlan(self, it.trip, self.const(True, node), env, [], None, node)
        sub = plan.body_env
        for name in assigned_names([ast.Assign(targets=[gen.target], value=ast.Constant(0))]):
            sub.forget(name)
            sub.undefined.pop(name, None)
        self.loops.append("comprehension")
        try:
            with self.at_end_of(plan.block):
                self.assign_target(gen.target, it.element(plan.iter), sub, gen.target)
                self._comprehension_filters(gen.ifs, gens[1:], sub, body, node)
        finally:
            self.loops.pop()
        plan.finish(FALLS, None, False)

    def _comprehension_filters(self, ifs: List[ast.expr], more: List[ast.comprehension],
                               env: Env, body: Callable[[Env], None], node: ast.AST) -> None:
        if ifs:
            cond, rt, _ = self.emit_condition(ifs[0], env)
            n = self.emit("prim::If", [cond], [], ifs[0])
            b_then, _ = n.add_block(), n.add_block()
            sub = env.child()
            apply_refinements(sub, rt)
            with self.at_end_of(b_then):
                self._comprehension_filters(ifs[1:], more, sub, body, node)
            return
        if more:
            self.emit_comprehension(more, env, body, node)
        else:
            body(env)

    def pending_return_type(self) -> T.Type:
        """The type of ``$retval`` in loops (see :meth:`_set_return`)."""
        return self.return_type if self.return_annotated else PENDING_RETURN


def _replace_env(env: Env, merged: Env) -> None:
    env.vars = merged.vars
    env.undefined = merged.undefined
    env.casts = merged.casts


def _describe(stmt: ast.stmt) -> str:
    names = {
        "FunctionDef": "a nested function definition", "AsyncFunctionDef": "an async function",
        "ClassDef": "a class definition", "Delete": "the del statement",
        "With": "the with statement", "AsyncWith": "async with", "AsyncFor": "async for",
        "Try": "try/except", "TryStar": "try/except*", "Global": "the global statement",
        "Nonlocal": "the nonlocal statement", "Import": "import", "ImportFrom": "import",
        "Match": "the match statement",
    }
    return names.get(type(stmt).__name__, f"the statement '{type(stmt).__name__}'")
