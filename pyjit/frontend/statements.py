"""Statements: assignments, ``if``, ``return``/``break``/``continue``, ``raise`` and
``assert``, emitted block by block; loops are handed to ``ctx.loops``.

``block(stmts, env)`` fills the current block and returns the block's
:class:`~.environment.Flow`.  How exits are lowered is described in
:mod:`.lowering`; in short, the statements after one that may exit are emitted
where the exit cannot reach them, so the graph needs no jumps.
"""

from __future__ import annotations

import ast
from typing import Callable, Dict, List, Optional, Sequence, Tuple

from ..ir import Value
from ..ir import types as T
from ..ir.type_relation import is_subtype, unify
from .core import PENDING_RETURN, Dialect, Emitter
from .environment import BRK, CONT, FALLS, RAISES, RET, RETVAL, Element, Env, Flow, Var
from .lowering import Branch, apply_refinements, merge_branches

__all__ = ["StatementEmitter", "BindTarget", "ImplicitReturn"]


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


class StatementEmitter(Emitter):
    """Statements and blocks (:class:`~.interfaces.Statements`)."""

    def __init__(self, ctx: Dialect) -> None:
        super().__init__(ctx)
        self._dispatch: Dict[type, Callable[[ast.stmt, Env], Flow]] = {
            ast.Pass: self._pass, ast.Expr: self._expr, ast.Assign: self._assign,
            ast.AnnAssign: self._annassign, ast.AugAssign: self._augassign,
            BindTarget: self._bindtarget, ast.Return: self._return,
            ImplicitReturn: self._implicit_return, ast.Break: self._break,
            ast.Continue: self._continue, ast.Raise: self._raise, ast.Assert: self._assert,
            ast.While: lambda stmt, env: ctx.loops.while_loop(stmt, env),
            ast.For: lambda stmt, env: ctx.loops.for_loop(stmt, env),
        }

    # -- the interface: blocks ----------------------------------------------------------------
    def block(self, stmts: Sequence[ast.stmt], env: Env) -> Flow:
        """Statements that cannot be reached are not emitted."""
        stmts = list(stmts)
        flow = FALLS
        for i, stmt in enumerate(stmts):
            rest = stmts[i + 1:]
            if isinstance(stmt, ast.If):
                flow, consumed = self._if(stmt, rest, env)
                if consumed:
                    return flow
            else:
                flow = self._stmt(stmt, env)
            if not flow.falls:
                return flow
            if flow.exits and rest:
                return self._guarded(rest, env, flow)
        return flow

    def _continuation(self, rest: List[ast.stmt], env: Env, flow: Flow, depth: int) -> Flow:
        """Emit ``rest`` after statements that ended with ``flow`` (which falls),
        back at the block depth ``depth`` of the statements they follow."""
        env.depth = depth
        if flow.exits:
            return self._guarded(rest, env, flow)
        return self.block(rest, env)

    def _guarded(self, rest: List[ast.stmt], env: Env, flow: Flow) -> Flow:
        """``prim::If(exited)`` with ``rest`` in its else branch: the code after a
        statement that may have run a ``break``/``continue``/``return``."""
        b = self.b
        at = rest[0]
        names = ([BRK, CONT] if flow.loop_exit else []) + ([RET] if flow.returns else [])
        flags = [env.vars[n].value for n in names if n in env.vars]
        if not flags:  # pragma: no cover - an exit always sets its flag
            return self.block(rest, env)
        cond = b.any_of(flags, at)
        node = b.emit("prim::If", [cond], [], at)
        b_then, b_else = node.add_block(), node.add_block()
        then_env, else_env = env.child(env.depth), env.child(env.depth)
        with b.at_end_of(b_else):
            else_flow = self.block(rest, else_env)
        exited = Flow(False, flow.loop_exit, flow.returns)
        merged, out = merge_branches(b, node, env, Branch(b_then, then_env, exited),
                                     Branch(b_else, else_env, else_flow), at)
        _replace_env(env, merged)
        return out

    def _stmt(self, stmt: ast.stmt, env: Env) -> Flow:
        own = self.ctx.statement_handlers.get(type(stmt))
        if own is not None:   # the dialect's (the archive's ``with obj:``)
            flow = own(stmt, env)
            if flow is not None:
                return flow
        method = self._dispatch.get(type(stmt))
        if method is None:
            self.src.fail(stmt, f"{_describe(stmt)} is not supported by pyjit.script")
        return method(stmt, env)

    # -- simple statements ----------------------------------------------------------------------
    def _pass(self, stmt: ast.Pass, env: Env) -> Flow:
        return FALLS

    def _expr(self, stmt: ast.Expr, env: Env) -> Flow:
        if isinstance(stmt.value, ast.Constant):  # a docstring, or a bare literal
            return FALLS
        self.ctx.exprs.emit(stmt.value, env)
        return FALLS

    def _assign(self, stmt: ast.Assign, env: Env) -> Flow:
        exprs = self.ctx.exprs
        value = stmt.value
        if len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Attribute) and \
                self.ctx.attrs.declare(stmt.targets[0], None):
            return FALLS
        if len(stmt.targets) == 1 and isinstance(stmt.targets[0], (ast.Tuple, ast.List)) and \
                isinstance(value, ast.Tuple) and len(value.elts) == len(stmt.targets[0].elts) \
                and not any(isinstance(e, ast.Starred) for e in value.elts):
            # a, b = b, a + b: every right-hand side first, then the bindings, and
            # no tuple in between.
            values = [exprs.emit(e, env) for e in value.elts]
            for target, v in zip(stmt.targets[0].elts, values):
                self.assign(target, v, env, stmt)
            return FALLS
        v = exprs.emit(value, env, self._target_type(stmt.targets[0], value, env))
        for target in stmt.targets:
            self.assign(target, v, env, stmt)
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

    def _annassign(self, stmt: ast.AnnAssign, env: Env) -> Flow:
        target = stmt.target
        if not isinstance(target, (ast.Name, ast.Attribute)):
            self.src.fail(stmt, "annotated assignments are supported for names and "
                          "attributes only")
        if stmt.value is None:
            self.src.fail(stmt, "a variable annotation needs a value ('x: int = 0')")
        declared = self.ctx.scope.annotation(stmt.annotation, stmt.annotation)
        if isinstance(target, ast.Attribute) and self.ctx.attrs.declare(target, declared):
            return FALLS  # self.x: T = v, in __init__
        v = self.ctx.exprs.emit(stmt.value, env, declared)
        if isinstance(target, ast.Attribute):
            self.ctx.attrs.store(target, v, env, declared)
            return FALLS
        v = self.ctx.ops.coerce(v, declared, stmt.value,
                                f"'{target.id}' is declared {declared} but assigned a "
                                f"{v.type}")
        self._bind_name(target.id, v, target, env, declared=declared)
        return FALLS

    def _augassign(self, stmt: ast.AugAssign, env: Env) -> Flow:
        exprs, ops = self.ctx.exprs, self.ctx.ops
        op = type(stmt.op)
        target = stmt.target
        if isinstance(target, ast.Name):
            old = exprs.lookup(target.id, target, env)
            rhs = exprs.emit(stmt.value, env)
            self._bind_name(target.id, ops.augmented(op, old, rhs, stmt), target, env)
            return FALLS
        if isinstance(target, ast.Subscript):
            if isinstance(target.slice, ast.Slice):
                self.src.fail(target, "augmented assignment to a slice is not supported")
            items = self.ctx.items
            container = exprs.emit(target.value, env)
            index = exprs.emit(target.slice, env)
            old = items.get(container, index, target)
            new = ops.binary(op, old, exprs.emit(stmt.value, env), stmt)
            items.set(container, index, new, stmt)
            return FALLS
        if isinstance(target, ast.Attribute):
            attrs = self.ctx.attrs
            new = ops.augmented(op, attrs.load(target, env), exprs.emit(stmt.value, env), stmt)
            attrs.store(target, new, env)
            return FALLS
        self.src.fail(target, "augmented assignment is supported to names, items and "
                      "attributes only")

    def _bindtarget(self, stmt: BindTarget, env: Env) -> Flow:
        self.assign(stmt.target, stmt.value, env, stmt)
        return FALLS

    # -- the interface: binding names --------------------------------------------------------
    def assign(self, target: ast.expr, value: Element, env: Env, at: ast.AST) -> None:
        if isinstance(target, ast.Name):
            if isinstance(value, list):
                value = self.b.tuple_value([self._materialize(e, at) for e in value], at)
            self._bind_name(target.id, value, target, env)
            return
        if isinstance(target, (ast.Tuple, ast.List)):
            if any(isinstance(e, ast.Starred) for e in target.elts):
                self.src.fail(target, "starred assignment targets (a, *b = ...) are not "
                              "supported")
            parts = self._unpack(value, len(target.elts), target)
            for t, p in zip(target.elts, parts):
                self.assign(t, p, env, at)
            return
        if isinstance(target, ast.Subscript):
            if isinstance(target.slice, ast.Slice):
                self.src.fail(target, "assignment to a slice is not supported")
            container = self.ctx.exprs.emit(target.value, env)
            index = self.ctx.exprs.emit(target.slice, env)
            self.ctx.items.set(container, index, self._materialize(value, at), target)
            return
        if isinstance(target, ast.Attribute):
            self.ctx.attrs.store(target, self._materialize(value, at), env)
            return
        self.src.fail(target, f"cannot assign to {type(target).__name__}")

    def _materialize(self, v: Element, at: ast.AST) -> Value:
        return v if isinstance(v, Value) else self.b.tuple_value(
            [self._materialize(e, at) for e in v], at)

    def _unpack(self, v: Element, n: int, target: ast.expr) -> List[Element]:
        if isinstance(v, list):
            if len(v) != n:
                self.src.fail(target, f"cannot unpack {len(v)} values into {n} targets")
            return v
        t = v.type
        fields = self.ctx.unpack_types(t) if isinstance(t, T.NamedType) else None
        if fields is not None:      # a NamedTuple of an archive
            t = T.TupleType(fields)
        if isinstance(t, T.TupleType):
            if len(t.elems) != n:
                self.src.fail(target, f"cannot unpack a tuple of {len(t.elems)} elements into "
                              f"{n} targets")
            return list(self.b.emit("prim::TupleUnpack", [v], list(t.elems), target).outputs)
        if isinstance(t, T.ListType):
            return list(self.b.emit("prim::ListUnpack", [v], [t.elem] * n, target).outputs)
        self.src.fail(target, f"cannot unpack a value of type {t}")

    def _bind_name(self, name: str, v: Value, at: ast.AST, env: Env,
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
                    v = self.b.emit1("aten::Float", [v], T.FLOAT, at)
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
    def _return(self, stmt: ast.Return, env: Env) -> Flow:
        if stmt.value is None:
            v = self.b.const(None, stmt)
        else:
            v = self.ctx.exprs.emit(stmt.value, env, self.ctx.return_type)
        self._set_return(v, stmt, env)
        return Flow(False, returns=True)

    def _implicit_return(self, stmt: ImplicitReturn, env: Env) -> Flow:
        ctx = self.ctx
        if ctx.return_annotated and not is_subtype(T.NONE, ctx.return_type):
            self.src.fail(self.src.tree, f"function '{self.src.tree.name}' is declared to return "
                          f"{ctx.return_type} but can reach the end of its body without a "
                          "return statement")
        self._set_return(self.b.const(None, stmt), stmt, env)
        return Flow(False, returns=True)

    def _set_return(self, v: Value, at: ast.AST, env: Env) -> None:
        """Make ``v`` the value returned.  With an annotation it must fit it; without
        one, the return type is what all returns unify to (``int`` and ``None``
        give ``int?``), and the values carried around meanwhile are typed
        :data:`~.core.PENDING_RETURN` until the end."""
        ctx = self.ctx
        if ctx.return_annotated:
            v = ctx.ops.coerce(v, ctx.return_type, at,
                               f"the function returns {ctx.return_type} (the type of its "
                               f"annotation) but this return gives {v.type}",
                               conversions=True)
            var_type = ctx.return_type
        else:
            t = v.type if ctx.return_type is None else unify(ctx.return_type, v.type)
            if t is None:
                self.src.fail(at, f"this return gives {v.type} but an earlier one gives "
                              f"{ctx.return_type}; annotate the return type")
            ctx.return_type = t
            var_type = PENDING_RETURN
        line, col = self.src.line_of(at), self.src.col_of(at)
        env.bind(RETVAL, Var(v, var_type, line, col, 0))
        env.bind(RET, Var(self.b.const(True, at), T.BOOL, line, col, 0))

    def _break(self, stmt: ast.Break, env: Env) -> Flow:
        self._check_loop_exit(stmt, "break")
        env.bind(BRK, Var(self.b.const(True, stmt), T.BOOL, self.src.line_of(stmt), 0, 0))
        return Flow(False, loop_exit=True)

    def _continue(self, stmt: ast.Continue, env: Env) -> Flow:
        self._check_loop_exit(stmt, "continue")
        env.bind(CONT, Var(self.b.const(True, stmt), T.BOOL, self.src.line_of(stmt), 0, 0))
        return Flow(False, loop_exit=True)

    def _check_loop_exit(self, stmt: ast.stmt, what: str) -> None:
        loop = self.ctx.loops.innermost()
        if loop is None:
            self.src.fail(stmt, f"'{what}' outside a loop")
        if loop == "unrolled":
            self.src.fail(stmt, f"'{what}' in a for loop over a tuple is not supported (the "
                          "loop is unrolled); loop over a list instead")

    def _raise(self, stmt: ast.Raise, env: Env) -> Flow:
        if stmt.exc is None:
            self.src.fail(stmt, "a bare 'raise' (re-raise) is not supported")
        if stmt.cause is not None:
            self.src.fail(stmt, "'raise ... from ...' is not supported")
        b = self.b
        exc = stmt.exc
        call = exc if isinstance(exc, ast.Call) else None
        cls_node = call.func if call is not None else exc
        cls = self._exception_class(cls_node, env)
        if call is not None and (call.keywords or len(call.args) > 1):
            self.src.fail(call, "exceptions take at most one (message) argument here")
        if call is not None and call.args:
            msg = self.ctx.exprs.emit(call.args[0], env)
            if msg.type != T.STR:
                msg = b.emit1("aten::str", [msg], T.STR, call.args[0])
        else:
            msg = b.const("", stmt)
        name = f"{cls.__module__}.{cls.__qualname__}"
        b.emit("prim::RaiseException", [msg, b.const(name, cls_node)], [], stmt)
        return RAISES

    def _exception_class(self, node: ast.expr, env: Env) -> type:
        scope = self.ctx.scope
        obj = None
        if isinstance(node, ast.Name) and node.id not in env.vars:
            obj = scope.resolve(node.id, node)
        elif isinstance(node, ast.Attribute):
            module = scope.module_of(node.value, env)
            obj = getattr(module, node.attr, None) if module is not None else None
        if not (isinstance(obj, type) and issubclass(obj, BaseException)):
            self.src.fail(node, "raise needs an exception class, e.g. raise ValueError('...')")
        return obj

    def _assert(self, stmt: ast.Assert, env: Env) -> Flow:
        """``assert c, m`` is ``If(c) -> () else: RaiseException("AssertionError: m")``,
        and what ``c`` proves (``x is not None``) holds after it."""
        b = self.b
        cond, rt, rf = self.ctx.exprs.condition(stmt.test, env)
        node = b.emit("prim::If", [cond], [], stmt)
        b_then, b_else = node.add_block(), node.add_block()
        then_env, else_env = env.child(env.depth), env.child()
        apply_refinements(then_env, rt)
        with b.at_end_of(b_else):
            prefix = "AssertionError: "
            if stmt.msg is None:
                msg = b.const(prefix, stmt)
            elif isinstance(stmt.msg, ast.Constant) and isinstance(stmt.msg.value, str):
                msg = b.const(prefix + stmt.msg.value, stmt)
            else:
                m = self.ctx.exprs.emit(stmt.msg, else_env)
                if m.type != T.STR:
                    m = b.emit1("aten::str", [m], T.STR, stmt.msg)
                msg = b.emit1("aten::add", [b.const(prefix, stmt), m], T.STR, stmt)
            b.emit("prim::RaiseException", [msg, b.const(None, stmt)], [], stmt)
        merged, flow = merge_branches(b, node, env, Branch(b_then, then_env, FALLS),
                                      Branch(b_else, else_env, RAISES), stmt)
        _replace_env(env, merged)
        return flow

    # -- if ----------------------------------------------------------------------------------------
    def _if(self, stmt: ast.If, rest: List[ast.stmt], env: Env) -> Tuple[Flow, bool]:
        """Emit the If; when one branch cannot fall through, ``rest`` (the
        statements after the If) goes into the other branch.  Returns the Flow and
        whether ``rest`` was consumed."""
        b = self.b
        cond, rt, rf = self.ctx.exprs.condition(stmt.test, env)
        node = b.emit("prim::If", [cond], [], stmt)
        b_then, b_else = node.add_block(), node.add_block()
        then_env, else_env = env.child(), env.child()
        apply_refinements(then_env, rt)
        apply_refinements(else_env, rf)
        with b.at_end_of(b_then):
            f_then = self.block(stmt.body, then_env)
        with b.at_end_of(b_else):
            f_else = self.block(stmt.orelse, else_env)
        consumed = False
        # A branch that only raises needs nothing after it: the rest can follow
        # the If as usual.  One that returns/breaks/continues takes the rest into
        # the other branch, where no exit flag needs testing.
        if rest:
            if not f_then.falls and f_then.exits and f_else.falls:
                with b.at_end_of(b_else):
                    f_else = self._continuation(rest, else_env, f_else, env.depth)
                consumed = True
            elif not f_else.falls and f_else.exits and f_then.falls:
                with b.at_end_of(b_then):
                    f_then = self._continuation(rest, then_env, f_then, env.depth)
                consumed = True
            elif not f_then.falls and not f_else.falls:
                consumed = True  # unreachable
        merged, flow = merge_branches(b, node, env, Branch(b_then, then_env, f_then),
                                      Branch(b_else, else_env, f_else), stmt)
        _replace_env(env, merged)
        return flow, consumed


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
