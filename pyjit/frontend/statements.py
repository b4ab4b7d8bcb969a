"""Statements: assignments, ``if``, loops, ``return``/``break``/``continue``, ``raise``
and ``assert``, emitted block by block.

``emit_block(stmts, env)`` fills the current block and returns the block's
:class:`~.environment.Flow`.  How exits are lowered is described in
:mod:`.lowering`; in short, the statements after one that may exit are emitted
where the exit cannot reach them, so the graph needs no jumps.  Loops are in
:mod:`.loops`.
"""

from __future__ import annotations

import ast
from typing import List, Optional, Sequence, Union

from ..ir import Value
from ..ir import types as T
from .environment import BRK, CONT, FALLS, RAISES, RET, RETVAL, Env, Flow, Var
from .lowering import Branch, apply_refinements, merge_branches
from .operators import INPLACE_KINDS, is_tensor
from ..ir.type_relation import is_subtype, unify

__all__ = ["StatementEmitter", "BindTarget", "ImplicitReturn", "Element", "PENDING_RETURN"]

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
