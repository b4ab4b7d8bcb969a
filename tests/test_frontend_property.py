"""Random small integer programs, as Python source: scripted, they compute what
CPython computes.

The generator writes functions of three ints made of assignments, augmented
assignments, ``if``/``elif``/``else``, ``for`` over ``range`` and bounded ``while``
loops nested up to three deep, with ``break``, ``continue`` and ``return``
anywhere inside.  Every loop is bounded (constant trip counts, a counter in each
``while``), every division is by a non-zero constant, so CPython always finishes
quickly; the scripted function runs on both loops and must return the same int.
"""

from __future__ import annotations

import itertools
import random
import tempfile

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pyjit import CompileError
from pyjit.frontend import script
from pyjit.interpreter import Function

from helpers.source_files import load_function

VARS = ("x", "y", "z")
_dir = tempfile.TemporaryDirectory(prefix="pyjit_frontend_property_")
_counter = itertools.count()


class ProgramGenerator:
    """Writes one random program from a seed.  (Hypothesis draws the seed and the
    inputs; drawing every node of the program through hypothesis made generation
    ten times slower than compiling and running it.)"""

    def __init__(self, seed: int) -> None:
        self.r = random.Random(seed)
        self.loop_ids = itertools.count()

    def int_expr(self, names, depth=0) -> str:
        """An int expression over ``names``; products only by small constants, so
        values stay small even in nested loops."""
        r = self.r
        if depth >= 2 or r.random() < 0.35:
            return r.choice(names) if r.random() < 0.7 else str(r.randint(-5, 9))
        kind = r.choice(["add", "sub", "mulk", "div", "mod", "neg", "minmax", "abs", "ifexp"])
        sub = lambda: self.int_expr(names, depth + 1)  # noqa: E731
        if kind in ("add", "sub"):
            return f"({sub()} {'+' if kind == 'add' else '-'} {sub()})"
        if kind == "mulk":
            return f"({sub()} * {r.randint(-3, 3)})"
        if kind in ("div", "mod"):
            return f"({sub()} {'//' if kind == 'div' else '%'} {r.randint(1, 4)})"
        if kind == "neg":
            return f"(-{sub()})"
        if kind == "minmax":
            return f"{r.choice(['min', 'max'])}({sub()}, {sub()})"
        if kind == "abs":
            return f"abs({sub()})"
        return f"({sub()} if {self.cond(names, depth + 1)} else {sub()})"

    def cond(self, names, depth=0) -> str:
        r = self.r
        kind = r.choice(["cmp", "cmp", "chain", "not", "and", "or"] if depth < 2 else ["cmp"])
        e = lambda: self.int_expr(names, 2)  # noqa: E731
        if kind == "cmp":
            return f"{e()} {r.choice(['<', '<=', '>', '>=', '==', '!='])} {e()}"
        if kind == "chain":
            return f"{e()} < {e()} <= {e()}"
        if kind == "not":
            return f"not ({self.cond(names, depth + 1)})"
        op = "and" if kind == "and" else "or"
        return f"({self.cond(names, depth + 1)}) {op} ({self.cond(names, depth + 1)})"

    def block(self, names, indent, depth, in_loop):
        lines = []
        for _ in range(self.r.randint(1, 4 if depth < 2 else 2)):
            lines += self.statement(names, indent, depth, in_loop)
        return lines

    def statement(self, names, indent, depth, in_loop):
        r = self.r
        pad = "    " * indent
        kinds = ["assign", "assign", "aug"]
        if depth < 3:
            kinds += ["if", "if", "for", "while"]
        if in_loop:
            kinds += ["break", "continue"]
        kinds += ["return"]
        kind = r.choice(kinds)
        target = r.choice(VARS)
        if kind == "assign":
            return [f"{pad}{target} = {self.int_expr(names)}"]
        if kind == "aug":
            op = r.choice(["+=", "-=", "*=", "//=", "%="])
            if op == "*=":
                return [f"{pad}{target} {op} {r.randint(-2, 3)}"]
            if op in ("//=", "%="):
                return [f"{pad}{target} {op} {r.randint(1, 5)}"]
            return [f"{pad}{target} {op} {self.int_expr(names)}"]
        if kind in ("break", "continue"):
            # guarded, so that the code after it is not always dead
            return [f"{pad}if {self.cond(names)}:", f"{pad}    {kind}"]
        if kind == "return":
            return [f"{pad}if {self.cond(names)}:",
                    f"{pad}    return {self.int_expr(names)}"]
        if kind == "if":
            lines = [f"{pad}if {self.cond(names)}:"]
            lines += self.block(names, indent + 1, depth + 1, in_loop)
            if r.random() < 0.5:
                lines.append(f"{pad}elif {self.cond(names)}:")
                lines += self.block(names, indent + 1, depth + 1, in_loop)
            if r.random() < 0.5:
                lines.append(f"{pad}else:")
                lines += self.block(names, indent + 1, depth + 1, in_loop)
            return lines
        k = next(self.loop_ids)
        if kind == "for":
            var = f"i{k}"
            bounds = r.choice(["{n}", "{lo}, {n}", "{lo}, {n}, {s}"])
            rng = bounds.format(n=r.randint(0, 4), lo=r.randint(-2, 2), s=r.choice([1, 2, -1]))
            return [f"{pad}for {var} in range({rng}):"] + \
                self.block(names + (var,), indent + 1, depth + 1, True)
        counter = f"w{k}"
        extra = f" and ({self.cond(names)})" if r.random() < 0.5 else ""
        lines = [f"{pad}{counter} = 0", f"{pad}while {counter} < {r.randint(0, 4)}{extra}:",
                 f"{pad}    {counter} += 1"]
        return lines + self.block(names + (counter,), indent + 1, depth + 1, True)

    def program(self) -> str:
        lines = ["def f(a: int, b: int, c: int) -> int:", "    x = a", "    y = b", "    z = c"]
        lines += self.block(("a", "b", "c") + VARS, 1, 0, False)
        lines.append(f"    return {self.int_expr(VARS)}")
        return "\n".join(lines) + "\n"


programs = st.integers(0, 2**32 - 1).map(lambda seed: ProgramGenerator(seed).program())


INPUTS = st.tuples(st.integers(-6, 6), st.integers(-6, 6), st.integers(-6, 6))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(source=programs, inputs=st.lists(INPUTS, min_size=1, max_size=4))
def test_random_programs_match_cpython(backends, source, inputs):
    fn = load_function(source, _dir.name, module_name=f"prog{next(_counter)}")
    f = script(fn)
    runs = [Function(f.graph, loop=loop) for loop in backends]
    for args in inputs:
        want = fn(*args)
        for run in runs:
            assert run(*args) == want, source


def test_the_generator_covers_every_construct():
    """The generator really produces nested loops with all three exits."""
    seen = set()
    for seed in range(200):
        source = ProgramGenerator(seed).program()
        for word in ("for ", "while ", "break", "continue", "        return", "elif ",
                     "else:", " if ", " and ", " or ", "not ", "min(", "//"):
            if word in source:
                seen.add(word)
    assert len(seen) == 13, seen


@pytest.mark.parametrize("source, args, want", [
    # a return inside a while inside a for, after a continue
    ("def f(a: int, b: int, c: int) -> int:\n"
     "    x = a\n"
     "    for i0 in range(4):\n"
     "        if i0 == 1:\n"
     "            continue\n"
     "        w1 = 0\n"
     "        while w1 < 3:\n"
     "            w1 += 1\n"
     "            x += i0 * w1\n"
     "            if x > b:\n"
     "                return x\n"
     "    return -x\n", (0, 10, 0), 12),
    # break out of the inner loop only
    ("def f(a: int, b: int, c: int) -> int:\n"
     "    x = 0\n"
     "    for i0 in range(a):\n"
     "        for i1 in range(b):\n"
     "            if i1 > i0:\n"
     "                break\n"
     "            x += 1\n"
     "    return x\n", (3, 5, 0), 6),
])
def test_known_programs(source, args, want):
    fn = load_function(source, _dir.name, module_name=f"prog{next(_counter)}")
    assert fn(*args) == want
    assert script(fn)(*args) == want


# -- never a crash ------------------------------------------------------------------------------

class ChaosGenerator:
    """Programs mixing every type and construct with little regard for typing: most
    are outside the subset.  Compiling one may succeed or raise CompileError,
    nothing else (an AttributeError or an IR error would be a frontend bug)."""

    ATOMS = ["i", "f", "s", "l", "o", "b", "d", "t", "1", "2.5", "'ab'", "None", "True",
             "[1, 2]", "(1, 'x')", "{'a': 1}", "[]", "{}"]

    def __init__(self, seed: int) -> None:
        self.r = random.Random(seed)

    def expr(self, depth=0) -> str:
        r = self.r
        if depth > 2 or r.random() < 0.3:
            return r.choice(self.ATOMS)
        e = lambda: self.expr(depth + 1)  # noqa: E731
        return r.choice([
            lambda: f"({e()} {r.choice(['+', '-', '*', '/', '//', '%', '**', '&', '<<', '@'])} {e()})",
            lambda: f"({e()} {r.choice(['<', '==', '!=', 'in', 'not in', 'is'])} {e()})",
            lambda: f"{r.choice(['len', 'min', 'max', 'abs', 'int', 'str', 'sum', 'sorted'])}({e()})",
            lambda: f"{e()}.{r.choice(['append', 'pop', 'get', 'keys', 'upper', 'split'])}("
                    f"{r.choice(['', e()])})",
            lambda: f"{e()}[{e()}]", lambda: f"{e()}[{r.choice(['1:', '::-1'])}]",
            lambda: f"(not {e()})", lambda: f"({e()} if {e()} else {e()})",
            lambda: f"({e()} {r.choice(['and', 'or'])} {e()})", lambda: "f'{" + e() + "}x'",
            lambda: f"[q for q in {e()}]", lambda: f"{e()}.{r.choice(['shape', 'real'])}",
            lambda: f"(-{e()})",
        ])()

    def block(self, indent: int, depth: int):
        r, pad, out = self.r, "    " * indent, []
        for _ in range(r.randint(1, 3)):
            kind = r.choice(["assign", "aug", "ret", "expr", "assert", "raise", "item", "unpack"]
                            + (["if", "for", "while"] if depth < 2 else []))
            v = r.choice(["i", "f", "s", "l", "o", "b", "d", "t", "n"])
            out += {
                "assign": lambda: [f"{pad}{v} = {self.expr()}"],
                "aug": lambda: [f"{pad}{v} += {self.expr()}"],
                "ret": lambda: [f"{pad}return {self.expr()}"],
                "expr": lambda: [f"{pad}{self.expr()}"],
                "assert": lambda: [f"{pad}assert {self.expr()}, {self.expr()}"],
                "raise": lambda: [f"{pad}raise ValueError({self.expr()})"],
                "item": lambda: [f"{pad}{r.choice(['l', 'd'])}[{self.expr()}] = {self.expr()}"],
                "unpack": lambda: [f"{pad}{v}, m = {self.expr()}"],
                "if": lambda: [f"{pad}if {self.expr()}:"] + self.block(indent + 1, depth + 1),
                "for": lambda: [f"{pad}for {v} in {self.expr()}:"] +
                self.block(indent + 1, depth + 1) + [f"{pad}    break"],
                "while": lambda: [f"{pad}while {self.expr()}:"] +
                self.block(indent + 1, depth + 1) + [f"{pad}    continue"],
            }[kind]()
        return out

    def program(self) -> str:
        lines = ["from typing import Dict, List, Optional, Tuple",
                 "def f(i: int, f: float, s: str, l: List[int], o: Optional[int], b: bool,",
                 "      d: Dict[str, int], t: Tuple[int, str]):"]
        return "\n".join(lines + self.block(1, 0)) + "\n"


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1))
def test_the_compiler_never_crashes(seed):
    import warnings
    source = ChaosGenerator(seed).program()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SyntaxWarning)  # 'x is 1' and friends
        try:
            fn = load_function(source, _dir.name, module_name=f"chaos{next(_counter)}")
        except SyntaxError:
            return
    try:
        script(fn)
    except CompileError as err:
        assert err.line >= 2 and err.line_text is not None, source
