"""The operator registry: which Python callable runs a node.

Every node kind that is not one of the interpreter's own instructions (``If``,
``Loop``, ``Constant``, ``Load``/``Store``/``Drop``, ``wait``) is run by an operator
looked up here **when the Code is built**, from the node's kind and the types of its
inputs, so the hot loop never dispatches on types::

    aten::add(int, int)              -> operator.add
    aten::add(str, str)              -> operator.add
    aten::add(Tensor, Tensor, Scalar) -> a wrapper applying alpha
    aten::add(t[], t[])              -> list concatenation

An operator is one of:

* a plain callable, called with the node's inputs as positional arguments and
  returning its output (a tuple for several outputs, anything for none).  Where a
  function of ``operator``, ``math`` or numpy already has the right semantics it is
  registered directly, so the compiled loop calls C code with no Python frame;
* a *factory* ``factory(node) -> callable``, for operators that depend on the node
  itself (its attributes, its number of inputs, its output types);
* with ``stack=True``, a callable using the seed's stack protocol: it receives a
  list holding its inputs, leaves its outputs in it, and may return a relative jump.

Input type patterns follow torch's schema types: ``int``, ``float``, ``bool``,
``str``, ``Tensor``, ``Scalar`` (int, float or complex: not bool, as in torch), ``Any``, ``T?``,
``T[]``, ``Dict(K, V)``, tuples; a lower-case letter, perhaps with a digit (``t``,
``t1``), is a type variable, one type for all the inputs of a node that it stands
in (``aten::append(t[], t)`` takes ``int[]`` and ``int``, not ``int[]`` and
``str``).  Which inputs a pattern takes is
:func:`pyjit.ir.type_relation.match_argument`'s to say, without conversions.

Which overload runs a node, when several accept its input types, is this rule:

1. the most specific (the one with the fewest wildcards, :meth:`Operator.specificity`);
2. among equally specific ones, a registration of your own (``register_operator``,
   :meth:`Registry.register`) over the library's, whenever either was made;
3. among your own, the last registered.  The library has no ties to break: no two
   of its overloads of one kind have the same types (``tests/test_lazy_library.py``).

The library (:mod:`pyjit.ops`) is loaded explicitly, not by importing pyjit:
its families declare their operators in :data:`library` as they are imported, and
a registry made with ``Registry(library=True)`` -- :data:`default_registry` is
one -- imports them and registers those declarations into itself on its first
lookup.  ``import pyjit.ir`` or ``import pyjit.codegen`` therefore loads no
operator.
"""

from __future__ import annotations

import importlib
import re
import sys
import threading
from typing import Callable, Dict, List, NamedTuple, Optional, Sequence, Tuple, Union

from .errors import OperatorNotFoundError, PyjitError
from .ir import IRError
from .ir import types as T
from .ir.type_grammar import parse_type
from .ir.type_relation import Bindings, concreteness, matches, widens
from .ir.symbols import is_qualified

__all__ = ["Operator", "Registry", "register_operator", "default_registry", "Resolved",
           "Intrinsic", "Library", "library", "torch_declares"]

TypeSpec = Union[str, T.Type]

class Operator(NamedTuple):
    """One registered overload."""

    kind: str
    fn: Optional[Callable]
    factory: Optional[Callable]
    types: Optional[Tuple[T.Type, ...]]   # None: any inputs
    varargs: bool                         # the last pattern type repeats (or any count if no types)
    stack: bool                           # the seed's stack protocol
    serial: int                           # registration order
    intrinsic: Optional[str] = None       # the instruction that computes exactly fn
    library: bool = False                 # declared by pyjit.ops, not by a user
    #: The torch overload it was declared as (``"aten::norm.ScalarOpt_dim"``),
    #: its types taken from torch's schema list; None when declared by types.
    overload: Optional[str] = None

    def signature(self) -> str:
        if self.types is None:
            return f"{self.kind}(...)"
        args = ", ".join(map(str, self.types)) + (", ..." if self.varargs else "")
        return f"{self.kind}({args})"

    def specificity(self) -> int:
        return 0 if self.types is None else sum(concreteness(t) for t in self.types)

    def rank(self) -> Tuple[int, bool, int]:
        """What the module docstring's rule compares: the overload with the highest
        rank among those that accept a node runs it."""
        return self.specificity(), not self.library, self.serial


class Resolved(NamedTuple):
    """What the code generator needs to emit an instruction for a node."""

    fn: Callable
    stack: bool
    operator: Operator
    #: The name of an intrinsic instruction of :mod:`pyjit.opcodes` that computes
    #: exactly what ``fn`` does, which an optimising Code may run instead of a call.
    intrinsic: Optional[str] = None


class Intrinsic(NamedTuple):
    """What a factory returns when the callable it picked for a node has an
    intrinsic instruction (``Intrinsic("EQ_I", operator.eq)``); see
    :meth:`Registry.register`'s ``intrinsic``."""

    name: str
    fn: Callable


_SCHEMA = re.compile(r"^\s*(?P<kind>[A-Za-z_][\w]*::[\w]+)(?:\.[\w]+)?\s*\((?P<args>.*)\)\s*(->.*)?$",
                     re.S)


def _split_top(text: str) -> List[str]:
    """Split on commas that are not inside brackets."""
    parts, depth, cur = [], 0, []
    for ch in text:
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    if "".join(cur).strip():
        parts.append("".join(cur))
    return [p.strip() for p in parts]


def parse_schema(schema: str) -> Tuple[str, Tuple[T.Type, ...], bool]:
    """``"aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor"``
    -> ``("aten::add", (Tensor, Tensor, Scalar), False)``.

    Argument names, defaults and the keyword-only marker are dropped: graphs pass
    every argument positionally.  A trailing ``...`` makes the last type repeat.
    """
    m = _SCHEMA.match(schema)
    if not m:
        raise ValueError(f"malformed operator schema {schema!r}; expected "
                         "'ns::name(Type arg, ...) -> Ret'")
    types: List[T.Type] = []
    varargs = False
    for arg in _split_top(m.group("args")):
        if arg == "*":
            continue
        if arg == "...":
            varargs = True
            continue
        arg = arg.split("=", 1)[0].strip()
        type_text = arg.rsplit(None, 1)[0] if " " in arg else arg
        types.append(parse_type_spec(type_text))
    return m.group("kind"), tuple(types), varargs


def parse_type_spec(spec: TypeSpec) -> T.Type:
    """A type pattern from a Type or its text (``"int"``, ``"t[]"``, ``"Tensor?"``)."""
    if isinstance(spec, T.Type):
        return spec
    if not isinstance(spec, str):
        raise TypeError(f"a type pattern is a pyjit type or its text, not {spec!r}")
    t = _SPECS.get(spec)
    if t is None:
        t = parse_type(spec.strip())
        if len(_SPECS) < 1024:
            _SPECS[spec] = t
    return t


# The types of the texts parsed so far: the library's 2,000 declarations spell
# a few dozen ("Tensor", "int", "Tensor?"), and parsing each again was a tenth
# of a loaded model's first call.  Types are immutable, so one object serves all.
_SPECS: Dict[str, T.Type] = {}


_FOUND_LIMIT = 4096


class Registry:
    """A table of operators by kind.  Thread-safe for registration and lookup.

    Args:
        library: load the operator library (:data:`library`) on the first
            lookup (``find``, ``lookup``, ``overloads``, ``kinds``); a registry
            made without it holds only what is registered in it.
        derived: register the library's derived overloads of a kind
            (:meth:`Library.derive`) when the kind is first looked up; by
            default, when the registry has the library.
    """

    def __init__(self, library: bool = False, *, derived: Optional[bool] = None) -> None:
        self._library_pending = library
        self._with_library = library if derived is None else derived
        # Kinds whose derived overloads (Library.derive) are registered already:
        # derived per kind when a kind is first looked up, not when the library
        # loads (deriving every kind's out= forms was a third of a first call).
        self._derived: set = set()
        self._deriving: set = set()
        self._library_lock = threading.RLock()
        self._library_loading = False
        self._library_count = 0   # declarations taken so far
        # The library's declarations not registered yet, by kind: a kind's are
        # registered, in the order declared, when it is first looked up (most
        # of the library's two thousand declarations parse a schema of torch's:
        # made all at load, they took the library from ~95 ms to 150-190).
        self._lazy: Dict[str, List[Tuple[str, Optional[Callable], dict]]] = {}
        self._ops: Dict[str, List[Operator]] = {}
        self._serial = 0
        self._lock = threading.Lock()
        # find()'s answers by (kind, input types): a graph's nodes share a few
        # signatures, and matching one against every overload costs tens of
        # microseconds.  A registration replaces the dict (after adding the
        # operator, so no answer computed without it lands in the new one).
        self._found: Dict[Tuple[str, Tuple[T.Type, ...]], Optional[Operator]] = {}
        self._plain: Dict[int, Resolved] = {}  # by Operator.serial

    def register(self, kind: str, fn: Optional[Callable] = None, *,
                 types: Optional[Sequence[TypeSpec]] = None, schema: Optional[str] = None,
                 factory: Optional[Callable] = None, varargs: bool = False,
                 stack: bool = False, intrinsic: Optional[str] = None, _library: bool = False,
                 _overload: bool = False):
        """Register an operator for ``kind``; see the module docstring.

        Args:
            kind: the qualified node kind, e.g. ``"aten::add"`` or ``"myns::op"``
                (:meth:`implement` registers one of torch's overloads by name).
            fn: the callable; omit it to use ``register`` as a decorator.
            types: the input type patterns, e.g. ``["int", "int"]``; omit for any.
            schema: alternatively a torch-style schema string giving kind and types.
            factory: instead of ``fn``, a callable ``factory(node) -> callable``.
            varargs: the last type pattern repeats (``types=["t"], varargs=True``
                for any number of inputs of any type).
            stack: ``fn`` uses the seed's stack protocol.
            intrinsic: the name of an intrinsic instruction of
                :mod:`pyjit.opcodes` (``"ADD_I"``) that computes exactly what
                ``fn`` computes, on exactly these types: an optimising Code runs
                the instruction on unboxed registers instead of calling ``fn``
                (and calls ``fn`` only for errors).  The operator library declares
                its scalar operators this way; an operator registered without it
                is always called, so registering your own ``aten::add(int, int)``
                replaces the library's at every optimisation level.  A factory
                declares an intrinsic by returning :class:`Intrinsic`.
        Returns:
            ``fn`` (or the decorator).
        """
        if fn is None and factory is None:
            def decorate(f: Callable) -> Callable:
                self.register(kind, f, types=types, schema=schema, varargs=varargs, stack=stack,
                              intrinsic=intrinsic, _library=_library, _overload=_overload)
                return f
            return decorate
        if fn is not None and factory is not None:
            raise TypeError("give an operator function or a factory, not both")
        if not callable(fn if fn is not None else factory):
            raise TypeError(f"operator for {kind} must be callable")
        overload_name: Optional[str] = None
        pattern: Optional[Tuple[T.Type, ...]]
        if _overload:
            # An overload's full name: its types are torch's (ir/torch_schemas).
            if types is not None or schema is not None:
                raise TypeError(f"{kind} names a torch overload, whose schema gives the "
                                "types: give no types= or schema= with it")
            from .ir import torch_schemas
            try:
                declared = torch_schemas.overload(kind)
            except KeyError as exc:
                raise ValueError(exc.args[0]) from None
            if varargs and not declared.varargs:
                raise ValueError(f"{declared.text!r} has no trailing '...' but varargs=True "
                                 "was given: say it in one place")
            kind, overload_name = declared.kind, declared.name
            pattern = declared.input_types()
            varargs = declared.varargs
            if varargs:   # "...": any more inputs, of any type (or any inputs at all)
                pattern = pattern + (T.ANY,) if pattern else None
                varargs = pattern is not None
        elif schema is not None:
            if types is not None:
                raise TypeError("give types or a schema, not both")
            skind, stypes, schema_varargs = parse_schema(schema)
            if varargs and not schema_varargs:
                raise ValueError(f"schema {schema!r} has no trailing '...' but varargs=True "
                                 "was given: say it in one place")
            varargs = schema_varargs
            if skind != kind:
                raise ValueError(f"schema {schema!r} is not for {kind}")
            pattern = stypes
        elif types is not None:
            pattern = tuple(parse_type_spec(t) for t in types)
        else:
            pattern = None
        if not is_qualified(kind):
            raise ValueError(f"operator kind must be 'namespace::name', got {kind!r}")
        if varargs and pattern == ():
            raise ValueError("varargs needs at least one type pattern to repeat")
        if intrinsic is not None:
            if fn is None:
                raise TypeError("a factory declares an intrinsic by returning "
                                "Intrinsic(name, fn), not with intrinsic=")
            _check_intrinsic(kind, intrinsic, pattern, varargs)
        with self._lock:
            self._serial += 1
            op = Operator(kind, fn, factory, pattern, varargs, stack, self._serial, intrinsic,
                          _library, overload_name)
            self._ops.setdefault(kind, []).append(op)
            self._found = {}
        return fn if fn is not None else factory

    def implement(self, overload: str, fn: Optional[Callable] = None, **options):
        """Register ``fn`` as one of torch's overloads, named as torch names it:
        ``"aten::norm.ScalarOpt_dim"``, or ``"aten::relu"`` for a kind's
        default overload.  Its input types (and a trailing ``...``) are the
        schema's, from torch's list (:mod:`pyjit.ir.torch_schemas`), and the
        operator records the name (:attr:`Operator.overload`); an overload torch
        does not have is refused with the names of those it has.  ``options``
        are :meth:`register`'s but ``types`` and ``schema``, which the name
        replaces; like it, this is a decorator when ``fn`` is omitted::

            @registry.implement("aten::hardtanh")
            def hardtanh(x, lo, hi): ...
        """
        return self.register(overload, fn, _overload=True, **options)

    def load_library(self) -> None:
        """Register the operator library here, if this registry wants it and has
        not got it yet (the first lookup calls this).  Its families are imported
        in the order :data:`pyjit.ops.LIBRARY` declares; the rule of the module
        docstring makes that order matter to nothing."""
        with self._library_lock:
            if not self._library_pending:
                return
            if self._library_loading:
                raise RuntimeError("a family of pyjit.ops looked an operator up while the "
                                   "library was loading: a family may only declare its "
                                   "operators (import what it calls from its module)")
            self._library_loading = True
            try:
                importlib.import_module("pyjit.ops")
                # From where a failed load stopped, if one did: none twice.
                for declared in library.declarations()[self._library_count:]:
                    self._lazy.setdefault(_kind_of(declared[0]), []).append(declared)
                    self._library_count += 1
                self._library_pending = False
            finally:
                self._library_loading = False

    def _register_lazy(self, kind: str) -> None:
        """Register the library's declarations of ``kind`` (see ``_lazy``), once;
        one that fails stays pending, and fails again at the next lookup."""
        with self._library_lock:
            pending = self._lazy.get(kind)
            while pending:
                name, fn, options = pending[0]
                self.register(name, fn, _library=True, **options)
                pending.pop(0)
            self._lazy.pop(kind, None)

    def register_library(self) -> None:
        """Register every declaration of the library now (a registry registers a
        kind's when it is first looked up): for a tool that reads every
        operator, and to check every declaration at once."""
        if self._library_pending:
            self.load_library()
        for kind in list(self._lazy):
            self._register_lazy(kind)

    def _derive(self, kind: str) -> None:
        """Register the library's derived overloads of ``kind``, once.  A
        deriver may look kinds up here, this one included (it then sees the
        overloads registered so far); another thread waits for the lock."""
        with self._library_lock:
            if kind in self._derived or kind in self._deriving:
                return
            self._deriving.add(kind)
            try:
                for deriver in library.derivers():
                    for fn, options in deriver(kind, self):
                        self.register(kind, fn, _library=True, **options)
                self._derived.add(kind)
            finally:
                self._deriving.discard(kind)

    def overloads(self, kind: str) -> List[Operator]:
        if self._library_pending:
            self.load_library()
        if kind in self._lazy:
            self._register_lazy(kind)
        if self._with_library and kind not in self._derived:
            self._derive(kind)
        return list(self._ops.get(kind, ()))

    def kinds(self) -> List[str]:
        if self._library_pending:
            self.load_library()
        return sorted(set(self._ops) | set(self._lazy))

    def find(self, kind: str, input_types: Sequence[T.Type]) -> Optional[Operator]:
        """The best overload of ``kind`` for these input types, or None."""
        if self._library_pending:
            self.load_library()
        found = self._found
        key = (kind, tuple(input_types))
        try:
            return found[key]
        except KeyError:
            pass
        if kind in self._lazy:
            self._register_lazy(kind)
            found = self._found
        if self._with_library and kind not in self._derived:
            self._derive(kind)
            found = self._found
        best = self._best(kind, input_types)
        if len(found) >= _FOUND_LIMIT:  # refined tensor types can make many keys
            found.clear()
        found[key] = best
        return best

    def _best(self, kind: str, input_types: Sequence[T.Type]) -> Optional[Operator]:
        best: Optional[Operator] = None
        for op in self._ops.get(kind, ()):
            if not _accepts(op, input_types):
                continue
            if best is None or op.rank() > best.rank():
                best = op
        return best

    def lookup(self, node) -> Resolved:
        """The callable that runs ``node``; raises :class:`OperatorNotFoundError`
        naming the node, its input types, its source location and the overloads
        that exist."""
        input_types = [v.type for v in node.inputs]
        op = self.find(node.kind, input_types)
        if op is None:
            from .ir.printer import node_header
            where = f" at {node.source_location}" if node.source_location else ""
            sig = f"{node.kind}({', '.join(map(str, input_types))})"
            known = self._ops.get(node.kind)
            if node.kind == "prim::PythonOp":
                name = (node._attrs or {}).get("name", "?")
                msg = (f"the graph calls back into Python{where}: ^{name}() is a Python function "
                       f"(a torch.autograd.Function's apply, or an @torch.jit.ignore'd function) "
                       f"that the graph names but does not hold, so only the process that "
                       f"scripted it can run it; torch.jit.save refuses it too (\"Could not "
                       f"export Python function call '{name}'\").  To run the graph, register "
                       f"an operator for prim::PythonOp in its Registry (a factory choosing "
                       f"by node.attrs['name'])")
            elif not known:
                msg = f"unknown operator {node.kind}{where}: no operator is registered for it"
            else:
                listed = "; ".join(o.signature() for o in known)
                msg = f"no overload of {node.kind} accepts {sig}{where}; registered: {listed}"
            raise OperatorNotFoundError(f"{msg}\n  in: {node_header(node)}")
        if op.factory is None:
            # One Resolved per operator, shared by its nodes (a graph of a
            # million nodes would otherwise hold a million equal ones).
            resolved = self._plain.get(op.serial)
            if resolved is None:
                resolved = self._plain[op.serial] = Resolved(op.fn, op.stack, op, op.intrinsic)
            return resolved
        try:
            fn = op.factory(node)
        except PyjitError:
            raise
        except Exception as exc:  # the factory refuses the node (an attribute, an arity)
            raise IRError.at(node, str(exc)) from exc
        intrinsic = None
        if isinstance(fn, Intrinsic):
            _check_intrinsic(op.kind, fn.name, tuple(input_types), False)
            intrinsic, fn = fn.name, fn.fn
        if not callable(fn):
            raise TypeError(f"the factory for {op.signature()} returned {fn!r}, not a callable")
        return Resolved(fn, op.stack, op, intrinsic)


def _check_intrinsic(kind: str, name: str, types: Optional[Tuple[T.Type, ...]],
                     varargs: bool) -> None:
    """An intrinsic must exist and implement this very operator: its schema's kind and
    types are the registration's, but for an ``int`` where the instruction reads a
    float (:func:`~pyjit.ir.type_relation.widens`: the code generator converts it,
    as torch's mixed arithmetic does)."""
    from . import opcodes
    d = opcodes.BY_NAME.get(name)
    if d is None or d.implements is None:
        raise ValueError(f"{name!r} is not an intrinsic instruction of pyjit.opcodes")
    skind, stypes, _ = parse_schema(d.implements)
    if types is None or varargs or skind != kind or len(stypes) != len(types) or not all(
            t == s or widens(t, s) for t, s in zip(types, stypes)):
        sig = f"{kind}({', '.join(map(str, types))})" if types is not None else kind
        raise ValueError(f"intrinsic {name} implements {d.implements}, not {sig}")


def _accepts(op: Operator, input_types: Sequence[T.Type]) -> bool:
    pattern = op.types
    if pattern is None:
        return True
    # a trailing "..." repeats the last type once or more
    if len(input_types) < len(pattern) or (not op.varargs and len(input_types) != len(pattern)):
        return False
    fixed = len(pattern) - 1 if op.varargs else len(pattern)
    env: Bindings = {}  # one call: a variable stands for one type in all its inputs...
    if not all(matches(a, p, env) for a, p in zip(input_types[:fixed], pattern)):
        return False
    # ... but each of the inputs a trailing "..." repeats is matched on its own
    # (``aten::format(str, t, ...)`` takes an int and a list)
    return all(matches(a, pattern[-1], dict(env)) for a in input_types[fixed:])


def torch_declares(kind: str, types: Sequence[TypeSpec]) -> bool:
    """Whether torch's schema list has an overload of ``kind`` that a node with
    these input types calls (``torch_declares("aten::neg", ["Tensor", "Tensor"])``:
    ``aten::neg.out``).  A family whose table generates forms for every row (an
    ``out=`` form, a generic reduction over ``int[]``) asks this first, so that it
    declares only what torch's graphs can call."""
    from .ir import torch_schemas
    op = Operator(kind, None, None, tuple(parse_type_spec(t) for t in types), False, False, 0)
    return any(_accepts(op, s.input_types()) for s in torch_schemas.schemas_of(kind)
               if not s.varargs)


class Library:
    """The operator library's declarations: what :mod:`pyjit.ops`'s families
    register, recorded as each is imported, for :meth:`Registry.load_library`.

    A family declares its operators exactly as it would register them in a
    registry (``R.register("aten::add", operator.add, types=["int", "int"])``,
    or as a decorator); nothing is looked up here, so a family never depends on
    another having been loaded first.
    """

    def __init__(self) -> None:
        self._declared: List[Tuple[str, Optional[Callable], dict]] = []
        self._families: List[str] = []   # the module that made each declaration
        self._derivers: List[Callable] = []
        self._lock = threading.Lock()

    def register(self, kind: str, fn: Optional[Callable] = None, **options):
        """Declare an operator (the arguments of :meth:`Registry.register`)."""
        family = _declaring_module()
        if fn is None and options.get("factory") is None:
            def decorate(f: Callable) -> Callable:
                self._declare(family, kind, f, options)
                return f
            return decorate
        self._declare(family, kind, fn, options)
        return fn if fn is not None else options["factory"]

    def implement(self, overload: str, fn: Optional[Callable] = None, **options):
        """Declare one of torch's overloads by name (:meth:`Registry.implement`)."""
        return self.register(overload, fn, _overload=True, **options)

    def _declare(self, family: str, kind: str, fn: Optional[Callable], options: dict) -> None:
        with self._lock:
            self._declared.append((kind, fn, options))
            self._families.append(family)

    def derive(self, deriver: Callable) -> Callable:
        """Declare overloads made from others, kind by kind, when a registry
        with the library first looks the kind up: ``deriver(kind, registry)``
        returns ``[(fn, options)]``, each registered in that registry as
        :meth:`Registry.register`'s ``fn`` and options, as the library's.  It
        may look up the registry's operators (this kind's are those registered
        so far).  ``ops/out_variants`` derives the ``out=`` forms this way: a
        model names a few dozen kinds of the library's thousand.  Returns
        ``deriver``, so it can decorate."""
        with self._lock:
            self._derivers.append(deriver)
        return deriver

    def derivers(self) -> List[Callable]:
        with self._lock:
            return list(self._derivers)

    def declarations(self) -> List[Tuple[str, Optional[Callable], dict]]:
        """Every declaration so far, in the order made: ``(kind, fn, options)``."""
        with self._lock:
            return list(self._declared)

    def kinds_by_family(self) -> Dict[str, List[str]]:
        """The kinds each module of the library declares, by its name
        (``{"pyjit.ops.fft": ["aten::fft_fft", ...]}``), sorted."""
        with self._lock:
            pairs = list(zip(self._families, self._declared))
        by: Dict[str, set] = {}
        for family, (kind, _, _) in pairs:
            by.setdefault(family, set()).add(_kind_of(kind))
        return {family: sorted(kinds) for family, kinds in by.items()}


def _kind_of(name: str) -> str:
    """The kind a declaration's name is of: an overload's name is its kind, a dot
    and the overload (``"aten::norm.ScalarOpt_dim"``), a kind's is the kind."""
    return name.split(".", 1)[0]


def _declaring_module() -> str:
    """The module whose import is making a declaration: the nearest caller that
    is a module's top level (a family may declare through another's helper, as
    ``activations`` does through ``pointwise.register_unary``)."""
    frame = sys._getframe(2)
    while frame is not None and frame.f_code.co_name != "<module>":
        frame = frame.f_back
    return frame.f_globals.get("__name__", "?") if frame is not None else "?"


#: Where the families of :mod:`pyjit.ops` declare their operators.
library = Library()

#: The registry that ``Code`` uses by default and ``register_operator`` adds to;
#: it loads the library on its first lookup.
default_registry = Registry(library=True)


def register_operator(kind: str, fn: Optional[Callable] = None, **options):
    """Register an operator in the default registry (see :meth:`Registry.register`).

    Example::

        @pyjit.register_operator("myns::scale", types=["Tensor", "float"])
        def scale(x, k):
            return x * k
    """
    return default_registry.register(kind, fn, **options)
