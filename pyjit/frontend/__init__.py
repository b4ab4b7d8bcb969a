"""The Python frontend: ``pyjit.script`` compiles a type-annotated Python function
into a pyjit graph, in the structured form torch's scripting emits (SSA values,
``prim::If``/``prim::Loop`` with block outputs, no jumps), and runs it with the
interpreter.

Modules, from the outside in:

==================  ============================================================
script_function     ``script`` and ``ScriptFunction`` (the public API)
compiler            compiles one function: signature, body, output
statements          statements and blocks; if; assignments; exits
loops               for/while loops, iteration, comprehensions
expressions         operators, conditions, literals, indexing, comprehensions
calls               builtins, math, list/dict/str methods, inlined calls
signatures          the method and math function tables calls binds against
tensors             numpy functions and array methods as aten Tensor ops
operators           Python operators -> node kinds and result types
lowering            If/Loop construction: merging Envs, loop-carried values
environment         variables (Var, Env) and control-flow facts (Flow)
typing_rules        annotations -> types, unification, argument checks
builder             typed, located node creation
cleanup             dead flag removal and constant pooling
operator_check      every node has an operator, checked at decoration
inlining            copying a callee graph into a caller
source_map          the function's source and its positions in the file
==================  ============================================================
"""

from .script_function import ScriptFunction, script

__all__ = ["script", "ScriptFunction"]
