"""The frontend's structure, checked on its source: its modules import one another
without a circle, and its emitters call one another only through the interfaces
of ``pyjit/frontend/interfaces.py`` (see the package docstring)."""

from __future__ import annotations

import ast
import inspect
from pathlib import Path
from typing import Dict, List, Set

import pyjit.frontend
from pyjit.frontend import interfaces
from pyjit.frontend.context import Compilation
from pyjit.frontend.operators import OperatorEmitter

PACKAGE = Path(pyjit.frontend.__file__).parent
MODULES = {p.stem: ast.parse(p.read_text()) for p in PACKAGE.glob("*.py")}

#: Compilation's emitter slots and the interface each is used through.
SLOTS = {"exprs": interfaces.Expressions, "stmts": interfaces.Statements,
         "loops": interfaces.Loops, "calls": interfaces.Calls,
         "attrs": interfaces.Attributes, "items": interfaces.Items,
         "tensors": interfaces.Tensors, "ops": OperatorEmitter}


def imports_within_the_package(tree: ast.Module) -> Set[str]:
    """The sibling modules ``tree`` imports, wherever the import statement is."""
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level == 1:
            out.update([node.module.split(".")[0]] if node.module else
                       [a.name for a in node.names])
    return out & set(MODULES)


def find_circle(graph: Dict[str, Set[str]]) -> List[str]:
    """A circle in ``graph`` as the modules along it, or [] if there is none."""
    state: Dict[str, int] = {}
    path: List[str] = []

    def visit(m: str) -> List[str]:
        state[m] = 1
        path.append(m)
        for dep in sorted(graph[m]):
            if state.get(dep) == 1:
                return path[path.index(dep):] + [dep]
            if dep not in state:
                circle = visit(dep)
                if circle:
                    return circle
        path.pop()
        state[m] = 2
        return []

    for m in sorted(graph):
        if m not in state:
            circle = visit(m)
            if circle:
                return circle
    return []


def test_find_circle_finds_one():
    assert find_circle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_circle({"a": {"b"}, "b": set()}) == []


def test_no_import_circle_between_frontend_modules():
    graph = {m: imports_within_the_package(tree) for m, tree in MODULES.items()}
    assert find_circle(graph) == []


def interface_methods(cls) -> Set[str]:
    return {name for name, member in vars(cls).items()
            if inspect.isfunction(member) and not name.startswith("_")}


def _slot(node: ast.AST):
    """The slot ``node`` reads if it is ``ctx.<slot>`` or ``self.ctx.<slot>``."""
    if isinstance(node, ast.Attribute) and node.attr in SLOTS:
        owner = node.value
        if (isinstance(owner, ast.Name) and owner.id == "ctx") or (
                isinstance(owner, ast.Attribute) and owner.attr == "ctx"):
            return node.attr
    return None


def sibling_calls(tree: ast.Module):
    """``(line, slot, method)`` for every use of an emitter slot's member in
    ``tree``: ``ctx.<slot>.<method>``, ``self.ctx.<slot>.<method>``, or through a
    local name bound to one (``exprs = self.ctx.exprs``)."""
    for fn in ast.walk(tree):
        if not isinstance(fn, (ast.FunctionDef, ast.Lambda, ast.Module)):
            continue
        aliases: Dict[str, str] = {}
        for node in ast.walk(fn):
            if isinstance(node, ast.Assign):
                pairs = ([(node.targets[0], node.value)] if not isinstance(
                    node.targets[0], ast.Tuple) else
                    zip(node.targets[0].elts, getattr(node.value, "elts", [])))
                for target, value in pairs:
                    if isinstance(target, ast.Name) and _slot(value):
                        aliases[target.id] = _slot(value)
        for node in ast.walk(fn):
            if not isinstance(node, ast.Attribute):
                continue
            slot = _slot(node.value) or (aliases.get(node.value.id) if isinstance(
                node.value, ast.Name) else None)
            if slot is not None:
                yield node.lineno, slot, node.attr


def test_the_scan_sees_calls_into_an_emitter():
    tree = ast.parse("def f(self, ctx):\n    self.ctx.exprs._binop(1)\n    ctx.calls.call(2)\n"
                     "    items, ops = self.ctx.items, ctx.ops\n    items._tuple(ops.binary)\n")
    assert sorted(set(sibling_calls(tree))) == [(2, "exprs", "_binop"), (3, "calls", "call"),
                                                (5, "items", "_tuple"), (5, "ops", "binary")]


def test_the_slots_are_the_compilations():
    # declared by the Compilation or by the core's Dialect it is one of
    declared = {name for cls in Compilation.__mro__
                for name in vars(cls).get("__annotations__", {})}
    assert set(SLOTS) <= declared


def test_emitters_call_each_other_through_their_interfaces():
    calls = {(module, line, slot, method)
             for module, tree in MODULES.items()
             for line, slot, method in sibling_calls(tree)}
    assert len(calls) > 50   # the scan sees the emitters' calls
    outside = [f"{module}.py:{line}: ctx.{slot}.{method}"
               for module, line, slot, method in calls
               if method not in interface_methods(SLOTS[slot])]
    assert outside == []


def test_each_interface_is_small():
    for slot, cls in SLOTS.items():
        assert 1 <= len(interface_methods(cls)) <= 6, slot
