"""Attribute access: the one place ``x.name`` is read (and refused as a target).

==========================  ==================================================
Python                      graph
==========================  ==================================================
``math.pi``                 a ``prim::Constant``
``mod.LIMIT``               a constant (int, float, bool, str, None, tuples)
``x.shape`` (an array)      ``aten::size(x)``, from :mod:`.numpy_api`
==========================  ==================================================

Methods are attributes too, but a call resolves them (``ctx.calls``) by the
receiver's type, so that the method is known before its arguments are emitted.
"""

from __future__ import annotations

import ast
import math

from ..ir import Value
from .context import Emitter
from .environment import Env
from .operators import is_tensor
from .signatures import MATH_CONSTANTS

__all__ = ["AttributeEmitter"]


class AttributeEmitter(Emitter):
    """``x.name`` (:class:`~.interfaces.Attributes`)."""

    def load(self, node: ast.Attribute, env: Env) -> Value:
        module = self.ctx.scope.module_of(node.value, env)
        if module is not None:
            if module is math:
                if node.attr in MATH_CONSTANTS:
                    return self.b.const(MATH_CONSTANTS[node.attr], node)
                self.src.fail(node, f"math.{node.attr} is not supported as a value")
            obj = getattr(module, node.attr, None)
            value = self.b.python_constant(obj, node) if obj is not None else None
            if value is None:
                self.src.fail(node, f"{module.__name__}.{node.attr} cannot be used as a value "
                              "in a scripted function")
            return value
        base = self.ctx.exprs.emit(node.value, env)
        if is_tensor(base.type):
            return self.ctx.tensors.attribute(base, node)
        self.src.fail(node, f"attribute '{node.attr}' of {base.type} is not supported")

    def store(self, node: ast.Attribute, value: Value, env: Env) -> None:
        self.src.fail(node, "assignment to an attribute is not supported")
