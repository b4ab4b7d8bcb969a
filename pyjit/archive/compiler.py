"""Serialized TorchScript methods and functions compiled into pyjit graphs.

The code torch writes into an archive is the printed form of its graphs, so it
is a narrow subset of Python that maps back onto nodes almost one to one::

    y = (sub).forward(x, )              prim::CallMethod[name="forward"](%sub, %x)
    _0 = getattr(layers, "0")            prim::GetAttr[name="0"](%layers)
    self.count = torch.add(count, 1)     aten::add (the int overload), prim::SetAttr
    o = unchecked_cast(Tensor, opt)      prim::unchecked_cast
    ops.prim.RaiseException("..", "builtins.ValueError")
    _1 = __torch__.torch.nn.functional.relu(input, False, )   prim::CallFunction
    w = CONSTANTS.c0                     a tensor constant of constants.pkl

Operators are chosen by :mod:`.schemas` with the overload torch picks, their
left-out arguments filled in with the schema's defaults, as in torch's graph.
Control flow is structured already: an ``if`` whose branches assign a variable
is a ``prim::If`` with that output (a branch that raises gives it
``prim::Uninitialized``), ``for i in range(n)`` and ``while c`` are
``prim::Loop`` s carrying the variables they reassign::

    s0 = s                           %s0.1 : int = prim::Loop(%max, %c0, %s)
    _0 = torch.gt(s, 3)                block0(%i, %s0):
    while _0:                            %s1 = aten::floordiv(%s0, %2)
      s1 = torch.floordiv(s0, 2)         %c = aten::gt(%s1, %3)
      _0, s0 = torch.gt(s1, 3), s1       -> (%c, %s1)

This module is the *archive dialect* of the emitter core
(:mod:`pyjit.frontend.core`): the core's statement and loop emitters, the same
that compile ``@pyjit.script`` functions, walk the statements and lower ``if``,
``for`` and ``while`` (merging the variables of branches and loop bodies); this
dialect says what serialized code's names and calls mean (``__torch__.``
names, ``CONSTANTS.cN``, ``ops.prim.*``, ``torch.*`` operators by schema, the
archive's classes), and refuses, before the core emits anything, every
statement torch does not write (:func:`_check_syntax`), so an archive reaches
no more of Python than it did with a compiler of its own.  The core's
expression emitter walks the expressions, with the archive's leaves and an
expression-level check (:mod:`.expressions`); calls, attributes and subscripts
are this dialect's (``calls``, ``attrs``, ``items``).
``isinstance`` and ``Tensor.tolist()`` are the core's
(:mod:`pyjit.frontend.intrinsics`).  Every node carries the location of the
line it came from (``code/__torch__.py:12:4``, or the user's own file where the
archive's debug records say, :mod:`.debug_info`).
"""

from __future__ import annotations

import ast
from typing import Any, Dict, List, Optional, Protocol, Sequence, Tuple

from ..frontend.arguments import REQUIRED as _REQUIRED, Param, bind, typed_arguments
from ..frontend.builder import GraphBuilder
from ..frontend.core import Emitter
from ..frontend.environment import FALLS, RAISES, Condition, Env, Flow, Var
from ..frontend.interfaces import OTHER, Callee
from ..frontend.intrinsics import BARE_CONTAINERS, is_tolist, isinstance_value, tolist_value
from ..frontend.loops import LoopEmitter
from ..frontend.operators import OperatorEmitter
from ..frontend.statements import StatementEmitter
from ..ir import Graph, Value
from ..ir import types as T
from ..ir.literals import TensorValue
from ..ir.type_relation import Conversion, implicit_conversion, is_subtype
from .expressions import ArchiveExpressions, FunctionRef
from .schemas import REQUIRED, match, schemas_of
from .source import ClassDef, CodeFile, dotted, literal, type_of
from .upgraders import upgrader

__all__ = ["Signature", "REQUIRED", "compile_function"]

class Signature:
    """A method's or function's parameters (names, types, defaults) and return type."""

    def __init__(self, fdef: ast.FunctionDef, file: CodeFile) -> None:
        file.check_nesting(fdef)
        args = fdef.args
        self.names = [a.arg for a in args.args]
        self.types: List[T.Type] = []
        for a in args.args:
            if a.annotation is None:
                file.fail(a, f"parameter '{a.arg}' has no type")
            self.types.append(type_of(a.annotation, file))
        defaults: List[Any] = [REQUIRED] * (len(args.args) - len(args.defaults))
        for d in args.defaults:
            defaults.append(literal(d, file, "a default must be a literal"))
        self.defaults = defaults
        self.returns = type_of(fdef.returns, file) if fdef.returns is not None else T.NONE


class Program(Protocol):
    """What a compilation asks of the whole archive (:class:`.program.Program`)."""

    version: int      # the archive's format version

    def cls(self, name: str) -> Optional[ClassDef]: ...

    def function(self, name: str, at: ast.AST,
                 file: CodeFile) -> Tuple[CodeFile, ast.FunctionDef]: ...

    def constant(self, index: int, at: ast.AST, file: CodeFile) -> Any: ...


def compile_function(program: "Program", file: CodeFile, fdef: ast.FunctionDef,
                     owner: Optional[ClassDef]) -> Graph:
    """The graph of one serialized method (``owner`` its class) or function.

    Raises:
        ArchiveCompileError: code pyjit cannot compile, at its line in the archive.
    """
    try:
        return _Compiler(program, file, fdef, owner).compile()
    except RecursionError:
        # The code's nesting is bounded (Limits.nesting), so this is a deep
        # stack of the caller's own; it is still no reason for a RecursionError.
        raise file.error(fdef, "the function is too deeply nested to compile here") from None


class _Compiler(Emitter):
    """The archive dialect of the emitter core (:class:`~pyjit.frontend.core.Dialect`):
    the core's statements and loops (``stmts``, ``loops``) emit the function,
    asking this object for what names, calls, attributes and annotations mean in
    serialized code.  Before anything is emitted, :func:`_check_syntax` refuses
    every statement torch does not write, so the core's richer Python
    (``break``, ``raise``, item assignment...) is never reached from an archive."""

    def __init__(self, program, file: CodeFile, fdef: ast.FunctionDef,
                 owner: Optional[ClassDef]) -> None:
        self.program = program
        self.file = file
        self.fdef = fdef
        self.owner = owner
        self.src = file
        self.b = GraphBuilder(file)  # type: ignore[arg-type]  # CodeFile: location, fail
        super().__init__(self)
        self.graph = self.b.graph
        self.scope = self           # annotations: annotation()
        self.exprs = ArchiveExpressions(self)
        self.calls = self           # call; resolve (``range`` for the core's loops)
        self.attrs = self           # load, store, declare
        self.items = _Items(self)   # load
        self.ops = OperatorEmitter(self.b)
        self.stmts = StatementEmitter(self)
        self.loops = LoopEmitter(self)
        self.statement_handlers = {ast.Expr: self._expr_statement, ast.With: self.with_,
                                   ast.Assign: self._function_ref}
        self.return_type: Optional[T.Type] = None
        self.return_annotated = True
        self.refs: Dict[str, FunctionRef] = {}   # _0 = __torch__...softmax

    # -- the function -----------------------------------------------------------------------
    def compile(self) -> Graph:
        sig = Signature(self.fdef, self.file)
        self.return_type = sig.returns
        env = Env(0)
        for name, t in zip(sig.names, sig.types):
            v = self.graph.add_input(name, t)
            env.bind(name, Var(v, t, self.file.line_of(self.fdef), 0, 0, True))
        body = self.fdef.body
        last = body[-1]
        head = body[:-1] if isinstance(last, ast.Return) else body
        _check_syntax(head, self.file)
        with self.b.at_end_of(self.graph.block):
            flow = self.stmts.block(head, env)
            if isinstance(last, ast.Return):
                out = self.value(self.exprs.raw(last.value, env, sig.returns), last) \
                    if last.value is not None else self.b.const(None, last)
            elif not flow.falls:   # the body always raises
                out = self.b.uninitialized(sig.returns, last)
            else:
                out = self.b.const(None, last)
        if not is_subtype(out.type, sig.returns):
            self.file.fail(last, f"returns a {out.type}, but is declared to return "
                                 f"{sig.returns}")
        self.graph.register_output(out)
        self.graph.lint()
        return self.graph

    # -- what the core asks of a dialect ----------------------------------------------------
    def pending_return_type(self) -> T.Type:
        return self.return_type

    def unpack_types(self, t: T.Type) -> Optional[List[T.Type]]:
        return self._fields(t)

    def annotation(self, ann: ast.expr, node: ast.AST) -> T.Type:
        return type_of(ann, self.file)

    def isinstance_types(self, node: ast.Call) -> List[T.Type]:
        """Serialized code names a bare container by its name (``list``), any
        other type as an annotation."""
        if len(node.args) != 2:
            self.file.fail(node, "isinstance() takes 2 arguments")
        spec = node.args[1]
        return [T.NamedType(t.id) if isinstance(t, ast.Name) and t.id in BARE_CONTAINERS
                else type_of(t, self.file)
                for t in (spec.elts if isinstance(spec, ast.Tuple) else [spec])]

    def resolve(self, func: ast.expr, env: Env) -> Callee:
        """Only ``range`` means something to the core (a counted loop)."""
        name = dotted(func)
        return Callee(OTHER, name or "", range if name == "range" else None)

    def declare(self, target: ast.Attribute, declared: Optional[T.Type]) -> bool:
        return False     # serialized code declares attributes in its class, not __init__

    def store(self, target: ast.Attribute, v: Value, env: Env,
              declared: Optional[T.Type] = None) -> None:
        obj = self.exprs.value(target.value, env)
        cls = self._class_of(obj, target)
        want = cls.attributes.get(target.attr)
        if want is None:
            self.file.fail(target, f"{cls.name} has no attribute '{target.attr}' to assign")
        if not is_subtype(v.type, want):
            self.file.fail(target, f"assigning a {v.type} to attribute '{target.attr}' "
                                   f"of type {want}")
        self.b.emit("prim::SetAttr", [obj, v], [], target).attrs["name"] = target.attr

    # -- the statements of serialized code the core does not know --------------------------------
    def _expr_statement(self, s: ast.Expr, env: Env) -> Flow:
        """A call for its effect; ``ops.prim.RaiseException(...)`` ends the block."""
        self.exprs.raw(s.value, env)
        return RAISES if _raises(s) else FALLS

    def _function_ref(self, s: ast.Assign, env: Env) -> Optional[Flow]:
        """``_0 = __torch__.m.softmax``: a function named for a later call, no value."""
        name = dotted(s.value)
        if isinstance(s.targets[0], ast.Name) and name is not None and \
                name.startswith("__torch__."):
            self.refs[s.targets[0].id] = FunctionRef(name)
            return FALLS
        return None

    def with_(self, s: ast.With, env: Env) -> Flow:
        """``with obj:`` (an object of an archive class, e.g. torch's ``no_grad``):
        its ``__enter__``, the body, its ``__exit__(None, None, None)`` -- what
        torch's ``prim::Enter``/``prim::Exit`` run (TorchScript code cannot catch
        an exception, so a raising body leaves without ``__exit__`` there too)."""
        obj = self.exprs.value(s.items[0].context_expr, env)
        cls = self._class_of(obj, s)
        for name in ("__enter__", "__exit__"):
            if name not in cls.methods:
                self.file.fail(s, f"{cls.name} has no {name} method")
        self._emit_call_method(obj, cls, "__enter__", [], s)
        flow = self.stmts.block(s.body, env)
        if not flow.falls:
            return flow
        none = self.b.const(None, s)
        self._emit_call_method(obj, cls, "__exit__", [none, none, none], s)
        return FALLS

    # -- expressions -------------------------------------------------------------------------
    def value(self, v: Any, at: ast.AST) -> Value:
        """One Value: several outputs of an operator become a tuple."""
        if isinstance(v, tuple):
            return self.b.tuple_value(list(v), at)
        if v is None:
            self.file.fail(at, "the call returns nothing")
        if isinstance(v, FunctionRef):
            self.file.fail(at, f"the function {v.name} is not a value")
        return v

    def load(self, e: ast.Attribute, env: Env) -> Any:
        """``x.name`` (``ctx.attrs`` for the core), and the qualified names that are
        no attribute: ``CONSTANTS.c0``, ``__torch__.m.f`` (a function named for a
        later call)."""
        name = dotted(e)
        if name is not None and name.startswith("CONSTANTS.c"):
            return self._tensor_constant(e)
        if name is not None and name.startswith("__torch__."):
            return FunctionRef(name)     # _0 = __torch__...softmax, called later
        return self._get_attr(self.exprs.value(e.value, env), e.attr, e)

    def _tensor_constant(self, e: ast.Attribute) -> Value:
        array = self.program.constant(int(e.attr[1:]), e, self.file)
        n = self.graph.create("prim::Constant")
        n.attrs["value"] = TensorValue("<Tensor>", array)
        n.output().set_type(T.TENSOR)
        n.source_location = self.file.location(e)
        self.graph.insert_node(n)
        return n.output()

    def load_item(self, e: ast.Subscript, env: Env) -> Value:
        """``x[i]`` (``ctx.items.load`` for the core): a tuple's item by a constant,
        else ``aten::__getitem__``."""
        obj = self.exprs.value(e.value, env)
        fields = self._fields(obj.type)
        if isinstance(obj.type, T.TupleType) or fields is not None:
            index = _constant_index(e.slice)
            if index is None:
                self.file.fail(e, "a tuple is indexed by a constant")
            elems = obj.type.elems if fields is None else fields
            if not -len(elems) <= index < len(elems):
                self.file.fail(e, f"tuple index {index} out of range")
            index %= len(elems)  # torch prints (t)[-1] for the last item
            return self.b.emit1("prim::TupleIndex", [obj, self.b.const(index, e)],
                                elems[index], e)
        return self.op("aten::__getitem__", [obj, self.value(self.exprs.raw(e.slice, env), e)],
                       {}, e)

    # -- attributes ---------------------------------------------------------------------------
    def _class_of(self, obj: Value, at: ast.AST) -> ClassDef:
        cls = self.program.cls(obj.type.name) if isinstance(obj.type, T.NamedType) else None
        if cls is None:
            self.file.fail(at, f"a {obj.type} has no attributes")
        return cls

    def _fields(self, t: T.Type) -> Optional[List[T.Type]]:
        """The item types of a NamedTuple type, else None."""
        cls = self.program.cls(t.name) if isinstance(t, T.NamedType) else None
        return list(cls.attributes.values()) if cls is not None and cls.namedtuple else None

    def _get_attr(self, obj: Value, name: str, at: ast.AST) -> Value:
        cls = self._class_of(obj, at)
        if cls.namedtuple and name in cls.attributes:
            i = list(cls.attributes).index(name)
            return self.b.emit1("prim::TupleIndex", [obj, self.b.const(i, at)],
                                cls.attributes[name], at)
        if name in cls.attributes:
            n = self.b.emit("prim::GetAttr", [obj], [cls.attributes[name]], at)
            n.attrs["name"] = name
            return n.output()
        if name in cls.constants:
            return self.b.python_constant(cls.constants[name], at) or \
                self.file.fail(at, f"constant '{name}' of {cls.name} is not a scalar or tuple")
        self.file.fail(at, f"{cls.name} has no attribute '{name}'")

    # -- calls ---------------------------------------------------------------------------------
    def call(self, e: ast.Call, env: Env, hint: Optional[T.Type] = None) -> Any:
        name = dotted(e.func)
        root = name.split(".", 1)[0] if name else None
        if isinstance(e.func, ast.Name) and e.func.id not in env and e.func.id in self.refs:
            return self._call_function(self.refs[e.func.id].name, e, env)
        if isinstance(e.func, ast.Attribute) and (root is None or root in env):
            obj = self.exprs.value(e.func.value, env)
            return self._call_method(obj, e.func.attr, e, env, hint)
        if name is None:
            self.file.fail(e.func, "unsupported call in serialized code")
        if name.startswith("torch.") and name.count(".") == 1:
            return self._op_call(f"aten::{name[6:]}", e, env)
        if name.startswith("ops.") and name.count(".") == 2:
            _, ns, op = name.split(".")
            return self._op_call(f"{ns}::{op}", e, env)
        if name.startswith("__torch__.") and name.endswith(".__new__"):
            return self._new_object(name[:-len(".__new__")], e)
        if name.startswith("__torch__."):
            cls = self.program.cls(name)
            if cls is not None and cls.namedtuple:
                return self._new_tuple(cls, e, env)
            return self._call_function(name, e, env)
        special = _SPECIAL.get(name)
        if special is not None:
            return special(self, e, env)
        for ns in ("aten", "prim"):   # builtins torch prints by their Python name (sorted)
            if "." not in name and schemas_of(f"{ns}::{name}"):
                return self._op_call(f"{ns}::{name}", e, env)
        self.file.fail(e.func, f"unknown function '{name}' in serialized code")

    def _new_tuple(self, cls: ClassDef, e: ast.Call, env: Env) -> Value:
        """``__torch__.Point(x, 3)``: a NamedTuple, a tuple of its class's type."""
        items = self._bind_arguments(list(cls.attributes), list(cls.attributes.values()),
                                     [REQUIRED] * len(cls.attributes), e, env, cls.name)
        return self.b.emit1("prim::TupleConstruct", items, cls.type, e)

    def _new_object(self, qualified: str, e: ast.Call) -> Value:
        """``__torch__.C.__new__(__torch__.C)``: a new object of class C, whose
        ``__init__`` the code calls next (``(obj).__init__(...)``)."""
        cls = self.program.cls(qualified)
        if cls is None:
            self.file.fail(e, f"the archive's code defines no class {qualified}")
        return self.b.emit1("prim::CreateObject", [], cls.type, e)

    def _arguments(self, e: ast.Call, env: Env) -> Tuple[List[Value], Dict[str, Value]]:
        args = [self.exprs.value(a, env) for a in e.args]
        kwargs = {k.arg: self.exprs.value(k.value, env) for k in e.keywords}
        return args, kwargs

    def _op_call(self, kind: str, e: ast.Call, env: Env) -> Any:
        args, kwargs = self._arguments(e, env)
        return self.op(kind, args, kwargs, e)

    def op(self, kind: str, args: List[Value], kwargs: Dict[str, Value], at: ast.AST,
           upgrade: bool = True) -> Any:
        """An operator node of the overload torch picks (:func:`.schemas.match`), or
        the graph of its upgrader when the archive is older than its meaning."""
        old = upgrader(kind, self.program.version) if upgrade else None
        if old is not None:
            return old(self, kind, args, kwargs, at)
        m = match(kind, [(v, v.type) for v in args], {k: (v, v.type) for k, v in kwargs.items()})
        if m is None:
            have = ", ".join(str(v.type) for v in args) + "".join(
                f", {k}={v.type}" for k, v in kwargs.items())
            known = schemas_of(kind)
            if not known:
                self.file.fail(at, f"unknown operator {kind} (pyjit's library has no such "
                                   "operator)")
            self.file.fail(at, f"no overload of {kind} takes ({have}); torch's are:\n  " +
                           "\n  ".join(s.text for s in known))
        inputs = []
        for i, x in enumerate(m.inputs):
            if isinstance(x, tuple) and x and x[0] == "default":
                v = self._default(x[1], x[2], at)
            else:
                v = x
            want = m.convert.get(i)
            if want is not None:
                v = self._convert(v, want, at)
            inputs.append(v)
        node = self.b.emit(kind, inputs, list(m.returns), at)
        if len(m.returns) == 1:
            return node.output()
        return tuple(node.outputs) if m.returns else None

    def _default(self, value: Any, t: T.Type, at: ast.AST) -> Value:
        """A schema's default: a constant, or a list of constants of the
        parameter's element type."""
        if isinstance(value, list):
            elem = t.elem if isinstance(t, T.ListType) else T.INT
            if isinstance(elem, T.OptionalType):
                elem = elem.elem
            return self.b.emit1("prim::ListConstruct", [self.b.const(x, at) for x in value],
                                T.ListType(elem), at)
        return self.b.const(value, at)

    def _convert(self, v: Value, conversion: Conversion, at: ast.AST) -> Value:
        return self.b.emit1(conversion.kind, [v], conversion.type, at)

    def _call_method(self, obj: Value, name: str, e: ast.Call, env: Env,
                     hint: Optional[T.Type] = None) -> Value:
        if is_tolist(obj, name, e):
            # the one Tensor method torch prints as a method, under annotate(T, ...)
            return tolist_value(self.b, obj, hint, e, self.file.fail)
        cls = self._class_of(obj, e.func)
        fdef = cls.methods.get(name)
        if fdef is None:
            self.file.fail(e.func, f"{cls.name} has no method '{name}'")
        sig = Signature(fdef, cls.file)
        return self._emit_call_method(obj, cls, name,
                                      self._bind_call(sig, 1, e, env, f"{cls.name}.{name}"), e)

    def _emit_call_method(self, obj: Value, cls: ClassDef, name: str, args: List[Value],
                          at: ast.AST) -> Value:
        sig = Signature(cls.methods[name], cls.file)
        n = self.b.emit("prim::CallMethod", [obj] + args, [sig.returns], at)
        n.attrs["name"] = name
        return n.output()

    def _call_function(self, qualified: str, e: ast.Call, env: Env) -> Value:
        file, fdef = self.program.function(qualified, e, self.file)
        sig = Signature(fdef, file)
        inputs = self._bind_call(sig, 0, e, env, qualified)
        fn = self.b.function_constant(qualified)
        return self.b.emit1("prim::CallFunction", [fn] + inputs, sig.returns, e)

    def _bind_call(self, sig: Signature, skip: int, e: ast.Call, env: Env,
                   label: str) -> List[Value]:
        return self._bind_arguments(sig.names[skip:], sig.types[skip:], sig.defaults[skip:],
                                    e, env, label)

    def _bind_arguments(self, names: List[str], types: List[T.Type], defaults: List[Any],
                        e: ast.Call, env: Env, label: str) -> List[Value]:
        """A call's arguments bound to parameters as Python binds them (the core's
        :func:`~pyjit.frontend.arguments.bind`): defaults filled in, torch's
        implicit conversions made (a bool for an int parameter), the types
        checked."""
        params = [Param(n, _REQUIRED if d is REQUIRED else d) for n, d in zip(names, defaults)]
        declared = dict(zip(names, types))
        what = f"{label}()"
        args = bind(self.b, params, e, what, lambda p, a: self.exprs.value(a, env),
                    default=lambda p, at: self._default(p.default, declared[p.name], at)
                    if isinstance(p.default, list) else self.b.python_constant(p.default, at))
        return typed_arguments(self.b, params, args.in_order(), types, what, e,
                               implicit_conversion)

    # -- the printer's own functions -------------------------------------------------------
    def _type_arg(self, e: ast.Call, n: int) -> T.Type:
        if len(e.args) != n:
            self.file.fail(e, f"{dotted(e.func)}() takes {n} arguments")
        return type_of(e.args[0], self.file)

    def _annotate(self, e: ast.Call, env: Env) -> Value:
        t = self._type_arg(e, 2)
        inner = e.args[1]
        if isinstance(inner, ast.Constant) and inner.value is None:
            return self.b.const(None, e, t)
        v = self.exprs.value(inner, env, t)
        if is_subtype(v.type, t):
            return v
        # torch's annotate converts as a call's argument does (tryConvertToType
        # with allow_conversions): annotate(int, <Tensor>) is an aten::IntImplicit
        conversion = implicit_conversion(v.type, t)
        if conversion is None:
            self.file.fail(e, f"annotate({t}, ...) of a {v.type}")
        return self._convert(v, conversion, e)

    def _unchecked_cast(self, e: ast.Call, env: Env) -> Value:
        t = self._type_arg(e, 2)
        v = self.exprs.value(e.args[1], env)
        return self.b.emit1("prim::unchecked_cast", [v], t, e)

    def _uninitialized(self, e: ast.Call, env: Env) -> Value:
        return self.b.uninitialized(self._type_arg(e, 1), e)

    def _getattr(self, e: ast.Call, env: Env) -> Value:
        if len(e.args) != 2 or not isinstance(e.args[1], ast.Constant) or \
                not isinstance(e.args[1].value, str):
            self.file.fail(e, "getattr(obj, \"name\") with a constant name")
        obj = self.exprs.value(e.args[0], env)
        return self._get_attr(obj, e.args[1].value, e)

    def _builtin(kind: str):  # noqa: N805  (a factory of methods)
        def convert(self, e: ast.Call, env: Env) -> Any:
            return self._op_call(kind, e, env)
        return convert

    def _isinstance(self, e: ast.Call, env: Env) -> Value:
        want = self.isinstance_types(e)
        return isinstance_value(self.b, self.exprs.value(e.args[0], env), want, e)


_SPECIAL = {
    "annotate": _Compiler._annotate,
    "unchecked_cast": _Compiler._unchecked_cast,
    "uninitialized": _Compiler._uninitialized,
    "getattr": _Compiler._getattr,
    "isinstance": _Compiler._isinstance,
    "int": _Compiler._builtin("aten::Int"),
    "float": _Compiler._builtin("aten::Float"),
    "bool": _Compiler._builtin("aten::Bool"),
    "str": _Compiler._builtin("aten::str"),
    "len": _Compiler._builtin("aten::len"),
    "print": _Compiler._builtin("prim::Print"),
}


class _Items:
    """``x[i]`` for the core (``ctx.items``): :meth:`_Compiler.load_item`."""

    def __init__(self, ctx: _Compiler) -> None:
        self.load = ctx.load_item


def _constant_index(e: ast.expr) -> Optional[int]:
    """The int an index written as a constant stands for (``2``, or ``-1``, which
    Python's parser reads as a negation), else None."""
    if isinstance(e, ast.UnaryOp) and isinstance(e.op, ast.USub):
        inner = _constant_index(e.operand)
        return None if inner is None else -inner
    if isinstance(e, ast.Constant) and type(e.value) is int:
        return e.value
    return None


def _raises(s: ast.stmt) -> bool:
    return isinstance(s, ast.Expr) and isinstance(s.value, ast.Call) and \
        dotted(s.value.func) == "ops.prim.RaiseException"


def _check_syntax(stmts: Sequence[ast.stmt], file: CodeFile) -> None:
    """Refuse every statement torch does not serialize, before the core emits
    any: the archive's code reaches only the syntax it reached before the core
    was shared (its ``return`` only last, which :meth:`_Compiler.compile` takes)."""
    todo = list(reversed(stmts))
    while todo:
        s = todo.pop()
        if isinstance(s, ast.Assign):
            if len(s.targets) != 1:
                file.fail(s, "chained assignment is not serialized code")
            _check_target(s.targets[0], file)
            continue
        if isinstance(s, ast.AnnAssign) and s.value is not None:
            _check_target(s.target, file, tuples=False)
            continue
        if isinstance(s, ast.For):
            it = s.iter
            if not (isinstance(s.target, ast.Name) and isinstance(it, ast.Call)
                    and dotted(it.func) == "range" and len(it.args) == 1
                    and not it.keywords and not s.orelse):
                file.fail(s, "serialized loops are 'for i in range(n)'")
        elif isinstance(s, ast.While):
            if s.orelse:
                file.fail(s, "while ... else is not serialized code")
        elif isinstance(s, ast.With):
            if len(s.items) != 1 or s.items[0].optional_vars is not None:
                file.fail(s, "serialized code has 'with obj:' of one object")
        elif isinstance(s, ast.Return):
            file.fail(s, "a return before the end of the function: torch never "
                         "serializes one")
        elif not isinstance(s, (ast.Expr, ast.If, ast.Pass)):
            file.fail(s, f"unsupported statement ({type(s).__name__}) in serialized code")
        for part in ("orelse", "body"):
            todo.extend(reversed(getattr(s, part, [])))


def _check_target(target: ast.expr, file: CodeFile, tuples: bool = True) -> None:
    if tuples and isinstance(target, ast.Tuple):
        for t in target.elts:
            _check_target(t, file, tuples=False)
    elif not isinstance(target, (ast.Name, ast.Attribute)):
        file.fail(target, "unsupported assignment target in serialized code")
