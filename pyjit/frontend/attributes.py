"""Attribute access: the one place ``x.name`` is read (and refused as a target).

==========================  ==================================================
Python                      graph
==========================  ==================================================
``math.pi``                 a ``prim::Constant``
``mod.LIMIT``               a constant (int, float, bool, str, None, tuples)
``x.shape`` (an array)      ``aten::size(x)``, from :mod:`.numpy_api`
``self.w`` (an object)      ``prim::GetAttr[name="w"](%self)``
``self.w = v``              ``prim::SetAttr[name="w"](%self, %v)``
==========================  ==================================================

An object is a value whose type is a scripted class (:mod:`.classes`): its
attributes are those the class's ``__init__`` declares, which compiling
``__init__`` does here, at each first assignment to ``self`` (an attribute whose
type an annotation gives is declared without compiling the value: Python
computes it when it runs ``__init__``).

Methods are attributes too, but a call resolves them (``ctx.calls``) by the
receiver's type, so that the method is known before its arguments are emitted.
"""

from __future__ import annotations

import ast
import math

from typing import Optional

from ..ir import Value
from ..ir import types as T
from .classes import ScriptClass, find_class
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
        cls = find_class(base.type)
        if cls is not None:
            return self.get(cls, base, node)
        self.src.fail(node, f"attribute '{node.attr}' of {base.type} is not supported")

    def get(self, cls: ScriptClass, obj: Value, node: ast.Attribute) -> Value:
        """Attribute ``node.attr`` of ``obj``, an object of ``cls``."""
        t = cls.attributes.get(node.attr)
        if t is None:
            if node.attr in cls.method_names:
                self.src.fail(node, f"method '{node.attr}' of {cls.cls.__name__} can only be "
                              "called")
            self.src.fail(node, f"'{cls.cls.__name__}' has no attribute '{node.attr}' "
                          "(its attributes are those its __init__ assigns)")
        n = self.b.emit("prim::GetAttr", [obj], [t], node)
        n.attrs["name"] = node.attr
        return n.output()

    def declare(self, node: ast.Attribute, declared: Optional[T.Type]) -> bool:
        ctx = self.ctx
        if not (ctx.declaring and isinstance(node.value, ast.Name)
                and node.value.id == ctx.self_name):
            return False
        have = ctx.owner.attributes.get(node.attr)
        if declared is None:
            return have is not None   # a class annotation gave the type
        if have is not None and have != declared:
            self.src.fail(node, f"attribute '{node.attr}' is declared {have}, not {declared}")
        ctx.owner.attributes[node.attr] = declared
        return True

    def store(self, node: ast.Attribute, value: Value, env: Env,
              declared: Optional[T.Type] = None) -> None:
        obj = self.ctx.exprs.emit(node.value, env)
        cls = find_class(obj.type)
        if cls is None:
            self.src.fail(node, "assignment to an attribute is not supported (but to the "
                          "attributes of an object of a scripted class)")
        name = node.attr
        t = cls.attributes.get(name)
        if t is None:
            ctx = self.ctx
            if not (ctx.declaring and isinstance(node.value, ast.Name)
                    and node.value.id == ctx.self_name):
                self.src.fail(node, f"'{cls.cls.__name__}' has no attribute '{name}': its "
                              "attributes are declared by assigning them in __init__")
            t = cls.attributes[name] = declared or value.type
        elif declared is not None and declared != t:
            self.src.fail(node, f"attribute '{name}' is declared {t}, not {declared}")
        value = self.ctx.ops.coerce(value, t, node, f"attribute '{name}' of "
                                    f"{cls.cls.__name__} is {t}, not {value.type}")
        n = self.b.emit("prim::SetAttr", [obj, value], [], node)
        n.attrs["name"] = name
