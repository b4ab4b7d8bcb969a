"""Mutated archives (docs/security.md): the fixtures with their pickles, code, debug
records, storages and zip structure changed at random, loaded and compiled for as
long as the budget allows.  Each must load and compile, or fail with a pyjit
error; none may open a file, crash, or change what a clean archive loads as.

The budget is ``PYJIT_ARCHIVE_FUZZ_SECONDS`` (default 10 s; raise it to look
harder, e.g. 600).  Every case is reproducible from its seed, printed on failure.
"""

from __future__ import annotations

import io
import json
import os
import random
import time
import zipfile


import pyjit
from pyjit.errors import PyjitError

from helpers.archive_cases import HERE, NAMES, assert_close, decode
from helpers.audit import watch
from helpers.signals import alarm, needs_setitimer

BUDGET = float(os.environ.get("PYJIT_ARCHIVE_FUZZ_SECONDS", "10"))

_OPCODES = b"()].012NKJMGX\x8c\x85\x86\x87tuesabRQ\x81hjqrc\x88\x89\x80.io\x82\x92}"
_WORDS = ["__class__", "__globals__", "__dict__", "a.b", "self", "x", "0", "-1", "1e308",
          "getattr", "torch.add", "unchecked_cast", "Dict[str, str]", "(", ")", "[", ":",
          "\n", "    ", "ops.prim.RaiseException", "__torch__", "None", "99999999999999999999"]


def _members(name: str) -> dict:
    with zipfile.ZipFile(os.path.join(HERE, f"{name}.pt")) as z:
        return {i.filename: z.read(i) for i in z.infolist()}


def _zip(members: dict) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as z:
        for name, data in members.items():
            z.writestr(name, data)
    return out.getvalue()


def _flip(rng: random.Random, data: bytes, alphabet: bytes = b"") -> bytes:
    b = bytearray(data)
    for _ in range(rng.randint(1, 4)):
        if not b:
            break
        i = rng.randrange(len(b))
        how = rng.random()
        if how < 0.5:
            b[i] = rng.choice(alphabet) if alphabet and rng.random() < 0.6 else rng.randrange(256)
        elif how < 0.75:
            del b[i]
        else:
            b.insert(i, rng.choice(alphabet) if alphabet else rng.randrange(256))
    return bytes(b)


def _edit_code(rng: random.Random, text: bytes) -> bytes:
    lines = text.decode("utf-8", "replace").split("\n")
    i = rng.randrange(len(lines))
    how = rng.randrange(5)
    if how == 0:
        del lines[i]
    elif how == 1:
        lines.insert(i, lines[rng.randrange(len(lines))])
    elif how == 2:
        words = lines[i].split(" ")
        words[rng.randrange(len(words))] = rng.choice(_WORDS)
        lines[i] = " ".join(words)
    elif how == 3:
        j = rng.randrange(len(lines))
        lines[i], lines[j] = lines[j], lines[i]
    else:
        depth = rng.choice([50, 120, 400])
        lines[i] = lines[i] + " " + "(" * depth + "x" + ")" * depth
    return "\n".join(lines).encode("utf-8")


def mutate(rng: random.Random, name: str) -> tuple:
    """A mutated archive of fixture ``name``: (what was changed, the file's bytes)."""
    members = _members(name)
    kind = rng.choice(["pickle", "pickle", "code", "debug", "storage", "zip", "version"])
    if kind == "zip":
        raw = _zip(members)
        if rng.random() < 0.3:
            return kind, raw[:rng.randrange(len(raw))]
        return kind, _flip(rng, raw)
    pick = {
        "pickle": lambda n: n.endswith(("data.pkl", "constants.pkl")),
        "code": lambda n: n.endswith(".py"),
        "debug": lambda n: n.endswith(".debug_pkl"),
        "storage": lambda n: "/data/" in n or "/constants/" in n,
        "version": lambda n: n.endswith("version"),
    }[kind]
    chosen = [n for n in members if pick(n)]
    if not chosen:
        return mutate(rng, name)
    part = rng.choice(chosen)
    data = members[part]
    if kind == "code":
        members[part] = _edit_code(rng, data)
    elif kind == "storage":
        members[part] = data[:rng.randrange(len(data) + 1)] if rng.random() < 0.5 else \
            data + bytes(rng.randrange(1, 64))
    elif kind == "version":
        members[part] = rng.choice([b"", b"2", b"11", b"-1", b"3\x00", b"9" * 30, b"\xff"])
    else:
        members[part] = _flip(rng, data, _OPCODES)
    return f"{kind} {part}", _zip(members)


def _compile_and_call(m, name: str) -> None:
    """Compile the module's forward (and what it calls); run it briefly on the
    fixture's arguments when it compiles."""
    if "forward" not in type(m)._class.methods:
        return
    m.forward.graph
    with open(os.path.join(HERE, f"{name}.json")) as f:
        calls = json.load(f)["calls"]
    forward = [c for c in calls if c["method"] == "forward"]
    if not forward:
        return
    try:
        with alarm(0.5, KeyboardInterrupt):
            m(*decode(forward[0]["args"]))
    except (PyjitError, KeyboardInterrupt):
        pass
    except TypeError as exc:      # a call whose arguments the mutated signature refuses
        if "argument" not in str(exc):
            raise


@needs_setitimer
def test_mutated_archives_fail_only_with_pyjit_errors():
    deadline = time.monotonic() + BUDGET
    seed, ran, raised = 0, 0, {}
    problems = []
    with watch() as opened:
        while time.monotonic() < deadline or ran < 50:
            seed += 1
            rng = random.Random(seed)
            name = rng.choice(NAMES)
            what, data = mutate(rng, name)
            try:
                m = pyjit.load(io.BytesIO(data))
                _compile_and_call(m, name)
                raised["loaded"] = raised.get("loaded", 0) + 1
            except PyjitError as exc:
                key = type(exc).__name__
                raised[key] = raised.get(key, 0) + 1
            except Exception as exc:  # what the test is for
                problems.append(f"seed {seed} ({name}, {what}): {type(exc).__name__}: "
                                f"{str(exc)[:200]}")
            ran += 1
    print(f"\n{ran} mutated archives in {BUDGET:g} s: {raised}")
    assert not problems, "\n".join(problems[:20])
    # Files opened: the tests' own files, pyjit's own data (torch's schemas),
    # modules Python imports on first use (zipfile's cp437 codec); nothing else
    # (the archives are in memory).
    import sys
    import sysconfig
    ours = (os.path.dirname(HERE), os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
            os.path.dirname(pyjit.__file__), sys.prefix, sys.base_prefix,
            sysconfig.get_paths()["purelib"])
    from pyjit.archive.source import PARSED_AS    # CPython tries it on a syntax error
    assert [p for p in opened if not str(p).startswith(ours) and p != PARSED_AS] == []
    # Nothing of all that is visible to a clean load.
    m = pyjit.load(os.path.join(HERE, "sequential.pt"))
    with open(os.path.join(HERE, "sequential.json")) as f:
        call = json.load(f)["calls"][0]
    assert_close(m(*decode(call["args"])), decode(call["result"]), "sequential after fuzz")
