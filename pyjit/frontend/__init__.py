"""The Python frontend: ``pyjit.script`` compiles a type-annotated Python function
into a pyjit graph, in the structured form torch's scripting emits (SSA values,
``prim::If``/``prim::Loop`` with block outputs, no jumps), and runs it with the
interpreter; a call of another function stays a call (``prim::CallFunction``),
and a class's methods become graphs on ``self`` (``prim::GetAttr``,
``prim::SetAttr``, ``prim::CallMethod``: :mod:`.classes`).

How it is put together
----------------------

One function is compiled by one :class:`~.context.Compilation`, which
:class:`~.compiler.FunctionCompiler` creates and fills.  It holds what the whole
function shares, and one emitter object per part of the language::

    Compilation
      src       FunctionSource   the parsed source; positions; errors with a caret
      b         GraphBuilder     the graph; every node is made here, typed and located
      scope     PythonScope      what names outside the function denote; annotations
      return_type, compiling, compile_callee      function-level facts
      ops       OperatorEmitter  operators on computed values, truthiness, int->float
      exprs     Expressions      emit(expr) -> Value; condition(expr) -> (bool, refinements)
      stmts     Statements       block(stmts) -> Flow; assign(target, value)
      loops     Loops            while_loop, for_loop, comprehension
      calls     Calls            resolve(func) -> Callee; call(node) -> Value
      attrs     Attributes       load(x.name); store(x.name = v)
      items     Items            load(x[i]); get; set
      tensors   Tensors          numpy functions, array methods and attributes

Each emitter keeps the Compilation (``self.ctx``) and reaches another only
through the small interface :mod:`.interfaces` defines for it (the table above),
never through its internals: ``stmts`` emits ``x = f(a)[0]`` by asking
``exprs.emit`` for the value, which hands the subscript to ``items.load``, which
asks ``exprs.emit`` for ``f(a)``, which hands the call to ``calls.call``, which
resolves ``f`` once (a builtin, ``math``/``np`` function, a method found by the
receiver's type, or a scripted function) and emits it through the emitter that
owns that kind of callee; ``stmts.assign`` then binds ``x``.  Only
:mod:`.compiler` imports the emitters; they import the shared layers below them,
so the modules form no import circle.

Modules, from the outside in:

==================  ============================================================
compiler            ``script``, FunctionCompiler: wires the emitters, compiles;
                    scripted classes (``script_class``)
script_function     ScriptFunction (the public API) and CompiledFunction
classes             ScriptClass: a scripted class's type, attributes, methods
context             Compilation: what the emitters of one function share
interfaces          the emitters' interfaces, and Callee
statements          statements and blocks; if; assignments; exits
loops               for/while loops, iteration, comprehensions
expressions         operators, conditions, literals, comprehensions
calls               call targets resolved; calls of scripted functions
builtin_calls       len, min, int, print ...
spec_calls          list/dict/str methods and math, from :mod:`.signatures`
tensors             numpy functions and array methods, from :mod:`.numpy_api`
attributes          ``x.name``
subscripts          ``x[i]``, slices, ``x[i] = v``
arguments           binding a call's arguments to a signature (Python's rules),
                    for both dialects; Param
signatures          the method and math tables
numpy_api           the numpy table: every function, method and attribute
operators           Python operators -> node kinds and result types; emission
core                the emitter core both dialects share (this package's
                    core modules and the archive's dialect): Emitter, Dialect
intrinsics          isinstance (bare list/tuple/dict too) and Tensor.tolist()
lowering            If/Loop construction: merging Envs, loop-carried values
environment         variables (Var, Env) and control-flow facts (Flow)
scope               closure, globals and builtins; annotations
typing_rules        annotations -> types; the types of constants
builder             typed, located node creation
cleanup             dead flag removal and constant pooling
operator_check      every node has an operator, checked at decoration
source_map          the function's source and its positions in the file
==================  ============================================================

Where to add things: a statement or an expression form is a method of the
emitter that owns it, added to that emitter's dispatch table; a numpy function
is a row of :mod:`.numpy_api`; a builtin a handler in :mod:`.builtin_calls`; a
new kind of call target a Callee kind resolved in
:meth:`.calls.CallEmitter.resolve`; a new kind of attribute a case of
:meth:`.attributes.AttributeEmitter.load`.  TorchScript's serialized code (an
archive's) is compiled by the same statement, loop and expression emitters and
binds calls with the same :mod:`.arguments`, with the archive's dialect in
place of :class:`~.context.Compilation` (see :mod:`.core`).
"""

from . import script_pickle
from .compiler import script
from .script_function import ScriptFunction

script_pickle.script = script   # what a script function pickled by value is compiled with

__all__ = ["script", "ScriptFunction"]
