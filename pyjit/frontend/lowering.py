"""Control flow without jumps: how Python's ``if``, loops, ``break``, ``continue`` and
``return`` become ``prim::If`` and ``prim::Loop`` with block outputs.

TorchScript emits exits as special statements and removes them afterwards with
its exit transform; this emitter never creates them.  Exits are boolean
*variables* (``$brk``, ``$cont``, ``$ret`` and the returned value ``$retval``,
see :mod:`.environment`) that merge through Ifs and Loops like any other
variable, and code that may run after an exit is placed where the exit cannot
reach it:

* ``if c: return x`` followed by more statements: the branch cannot fall
  through, so the statements that follow go into the *other* branch (a branch
  that only raises sets no flag and leaves them after the If)::

      if x is None:                 %r : int = prim::If(%is_none)
          return 0                    block0():  -> (%zero)
      return x + 1                    block1():  %y = unchecked_cast(%x) ...
                                                 -> (%x_plus_1)

* a statement after which an exit *may* have happened (a loop that may return,
  an If with a nested ``break``) is followed by a guard, ``prim::If($flag)``
  whose else branch holds the rest of the block;
* a loop body ends by computing the loop's condition: false when ``$brk`` or
  ``$ret`` is set, otherwise the ``while`` test (true for ``for``)::

      %c : bool = prim::If(%stop)
        block0():  -> (%false)
        block1():  %t = aten::lt(%i, %n)  -> (%t)

* ``$ret`` and ``$retval`` are loop-carried through every loop that contains a
  ``return``, so that after the loop a guard can skip the rest of the function.

Unused flag outputs are removed at the end (:mod:`.cleanup`).
"""

from __future__ import annotations

import ast
from typing import Callable, Dict, List, Optional, Sequence, Tuple

from ..ir import Block, Node, Value
from ..ir import types as T
from ..ir.type_relation import unify
from .builder import GraphBuilder
from .environment import BRK, CONT, FLAGS, RET, RETVAL, Env, Flow, Refinements, Var

__all__ = ["merge_branches", "Branch", "apply_refinements", "loop_carried", "LoopPlan"]


class Branch:
    """One filled branch of an If: its block, its final Env and how it flowed."""

    __slots__ = ("block", "env", "flow")

    def __init__(self, block: Block, env: Env, flow: Flow) -> None:
        self.block = block
        self.env = env
        self.flow = flow


def apply_refinements(env: Env, refinements: Refinements) -> None:
    """Narrow variables in ``env`` (``x: int?`` known to be ``int`` here)."""
    for name, t in refinements.items():
        var = env.get(name)
        if var is not None:
            env.vars[name] = var._replace(refined=t)
            env.casts.pop(name, None)


def _fill(b: GraphBuilder, block: Block, name: str, t: T.Type, at: ast.AST) -> Value:
    """The value a branch contributes for a variable it does not hold: False for a
    flag, ``prim::Uninitialized`` otherwise (the branch never reaches a read)."""
    with b.at_end_of(block):
        if name in FLAGS:
            return b.const(False, at)
        return b.uninitialized(t, at)


def merge_branches(b: GraphBuilder, node: Node, outer: Env, then: Branch, other: Branch,
                   at: ast.AST) -> Tuple[Env, Flow]:
    """Give the If ``node`` one output per variable the branches disagree on, and
    return the Env after the If (at ``outer``'s depth) and its Flow.

    Per name, with ``a``/``c`` the two bindings:

    * the same value in both: kept, no output (a narrowed type survives if both
      narrow it alike, or if only the branch that falls through does);
    * two values of one type (or types that unify, such as ``None`` and ``int``
      for a name new in both branches): an output;
    * missing, or of another type, in a branch that cannot fall through (it
      returned, raised, broke...): that branch gives ``prim::Uninitialized`` (or
      False for a flag), since nothing after the If reads it there;
    * otherwise the name is unusable after the If, and a use says why (defined in
      one branch only, or with two types: naming both places).
    """
    merged = Env(outer.depth)
    merged.undefined = dict(outer.undefined)
    merged.casts = dict(outer.casts)
    names: Dict[str, None] = {}
    for env in (then.env, other.env):
        for name in env.vars:
            names.setdefault(name, None)
    branches = (then, other)
    for name in names:
        a, c = then.env.vars.get(name), other.env.vars.get(name)
        if a is not None and c is not None and a.value is c.value:
            merged.vars[name] = a._replace(refined=_merged_refinement(a, c, then, other))
            continue
        if name in FLAGS or name == RETVAL:
            t = (a or c).type
            vals = [v.value if v is not None else _fill(b, br.block, name, t, at)
                    for v, br in zip((a, c), branches)]
            merged.vars[name] = (a or c)._replace(value=_add_output(node, branches, vals, t, None),
                                                  refined=None)
            continue
        result = _merge_user_var(b, node, name, a, c, then, other, outer, at)
        if isinstance(result, str):
            merged.undefined[name] = result
        elif result is not None:
            merged.vars[name] = result
    for env in (then.env, other.env):
        for name, why in env.undefined.items():
            if name not in merged.vars:
                merged.undefined.setdefault(name, why)
    return merged, then.flow.join(other.flow)


def _merged_refinement(a: Var, c: Var, then: Branch, other: Branch) -> Optional[T.Type]:
    if a.refined == c.refined:
        return a.refined
    if not then.flow.falls:
        return c.refined
    if not other.flow.falls:
        return a.refined
    return None


def _add_output(node: Node, branches: Sequence[Branch], values: Sequence[Value], t: T.Type,
                name: Optional[str]) -> Value:
    for br, v in zip(branches, values):
        br.block.register_output(v)
    out = node.add_output(t)
    if name:
        out.set_debug_name(name)
    return out


def _merge_user_var(b: GraphBuilder, node: Node, name: str, a: Optional[Var], c: Optional[Var],
                    then: Branch, other: Branch, outer: Env, at: ast.AST):
    """The merged :class:`Var`, or a message (str) saying why ``name`` is unusable."""
    src = b.src
    branches = (then, other)
    present = [v is not None for v in (a, c)]
    if all(present):
        t = a.type if a.type == c.type else None
        if t is None and name not in outer.vars:
            t = unify(a.type, c.type)
        if t is not None:
            base = outer.vars.get(name, a)
            out = _add_output(node, branches, [a.value, c.value], t, name)
            return base._replace(value=out, type=t, declared=a.declared or c.declared,
                                 refined=None, depth=min(base.depth, outer.depth))
    # One side is missing the name, or the types disagree: only fine if that side
    # cannot fall through.
    for keep, drop, keep_br, drop_br in ((a, c, then, other), (c, a, other, then)):
        if keep is not None and keep_br.flow.falls and not drop_br.flow.falls:
            filler = _fill(b, drop_br.block, name, keep.type, at)
            vals = [keep.value, filler] if keep is a else [filler, keep.value]
            out = _add_output(node, branches, vals, keep.type, name)
            return keep._replace(value=out, refined=None, depth=min(keep.depth, outer.depth))
    if not then.flow.falls and not other.flow.falls:
        return None  # nothing after the If is reachable
    if all(present):
        return (f"variable '{name}' has type {a.type} where it is assigned at line {a.line} "
                f"but type {c.type} where it is assigned at line {c.line}; a variable must "
                "keep one type on every path that reaches its use")
    have = a if a is not None else c
    missing = "false" if a is not None else "true"
    return (f"'{name}' is not defined in the {missing} branch of the if at line "
            f"{src.line_of(at)} (it is assigned at line {have.line} only)")


# -- loops ------------------------------------------------------------------------------

def loop_carried(outer: Env, assigned: Sequence[str], returns: bool) -> List[str]:
    """The names a loop carries: those bound before the loop that the body assigns,
    plus ``$ret``/``$retval`` when the body contains a ``return``."""
    names = [n for n in assigned if n in outer.vars and not n.startswith("$")]
    if returns:
        names += [RET, RETVAL]
    return names


class LoopPlan:
    """A ``prim::Loop`` under construction.

    ``LoopPlan(b, trip, cond, outer, carried, ret_type, at)`` inserts the Loop
    node, with the carried names as block inputs; :attr:`body_env` is the Env to
    fill the body with (carried names rebound to the block inputs, no
    ``$brk``/``$cont``); :meth:`finish` closes the body with the continue
    condition and the carried values, and rebinds the loop's outputs in ``outer``.
    """

    def __init__(self, b: GraphBuilder, trip: Value, cond: Value, outer: Env,
                 carried: List[str], ret_type: Optional[T.Type], at: ast.AST) -> None:
        self.b = b
        self.outer = outer
        self.carried = carried
        self.at = at
        inits: List[Value] = []
        for name in carried:
            var = outer.vars.get(name)
            if var is not None:
                inits.append(var.value)
            elif name == RET:
                inits.append(b.const(False, at))
            else:  # RETVAL before any return ran
                inits.append(b.uninitialized(ret_type, at))
        self.node = b.emit("prim::Loop", [trip, cond, *inits], [], at)
        self.block = self.node.add_block()
        self.iter = self.block.add_input(None, T.INT)
        env = outer.child()
        for name in (BRK, CONT):
            env.forget(name)
        for name, init in zip(carried, inits):
            var = outer.vars.get(name)
            t = var.type if var is not None else init.type
            v = self.block.add_input(None if name.startswith("$") else name, t)
            if var is None:
                var = Var(v, t, b.src.line_of(at), b.src.col_of(at), outer.depth)
            env.vars[name] = var._replace(value=v, refined=None)
            env.casts.pop(name, None)
        self.body_env = env

    def finish(self, flow: Flow, next_cond: Optional[Callable[[Env], Value]],
               infinite: bool) -> Flow:
        """Close the body that left ``body_env`` with ``flow``.

        ``next_cond(env)`` emits the ``while`` test for the next iteration (None for
        ``for`` loops); ``infinite`` marks ``while True`` without ``break``, which
        never falls through.  Returns the Flow of the whole loop statement.
        """
        b, env, at = self.b, self.body_env, self.at
        with b.at_end_of(self.block):
            stops = []
            if BRK in env.vars:
                stops.append(env.vars[BRK].value)
            if RET in self.carried and env.vars[RET].value is not self.block.inputs[
                    1 + self.carried.index(RET)]:
                stops.append(env.vars[RET].value)
            if not (flow.falls or flow.exits):
                cond = b.const(False, at)      # the body always raises
            elif not stops:
                cond = next_cond(env.child(env.depth)) if next_cond else b.const(True, at)
            else:
                stop = b.any_of(stops, at)
                cond = b.value_if(
                    stop, lambda: b.const(False, at),
                    (lambda: next_cond(env.child())) if next_cond else (lambda: b.const(True, at)),
                    at)
            self.block.register_output(cond)
            for name in self.carried:
                var = env.vars.get(name)
                if var is None:  # pragma: no cover - carried names are never dropped
                    b.src.fail(at, f"internal error: loop-carried '{name}' vanished")
                self.block.register_output(var.value)
        for name in self.carried:
            var = env.vars[name]
            out = self.node.add_output(self.block.inputs[1 + self.carried.index(name)].type)
            if not name.startswith("$"):
                out.set_debug_name(name)
            base = self.outer.vars.get(name, var)
            self.outer.bind(name, base._replace(value=out, type=out.type, refined=None))
        return Flow(falls=not infinite, returns=RET in self.carried and flow.returns)
