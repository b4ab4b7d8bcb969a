"""``mypy --strict`` on a user's script (the README's quick start, and more): a
scripted function keeps its Python signature (``ScriptFunction[P, R]``), a
scripted class stays the class, and a wrong call is an error at its line.
Skipped where mypy is not installed (it is in the test extras).

mypy reads the pyjit under test: installed (py.typed), or the checkout through
MYPYPATH, since the default editable install is an import hook mypy cannot
follow (README, Set up).  pyjit's own modules are not strictly typed, so their
errors are silenced for this check: it is about what a user sees.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import sysconfig

import pytest

from helpers.subprocesses import CHECKOUT, PYJIT_HOME

pytest.importorskip("mypy")

#: The README's quick start (examples/quickstart.py), then more of what users
#: write: a decorator called, a scripted class, keywords, and one wrong call.
MORE = '''

from typing import List

import numpy as np


@pyjit.script()
def scaled(x: float, k: float = 2.0) -> float:
    return x * k


@pyjit.script
class Counter:
    def __init__(self, start: int) -> None:
        self.count = start
        self.seen: List[int] = []

    def bump(self, by: int) -> int:
        self.count += by
        return self.count


steps: int = collatz_steps(27) + collatz_steps(n=9)
half: float = scaled(1.0, k=0.5)
counter = Counter(1)
total: int = counter.bump(2)
print(steps, half, total, fib(n=30), pyjit.__version__, np.float32(1))
reveal_type(collatz_steps)
reveal_type(scaled)
reveal_type(counter.bump)
collatz_steps("27")
'''
USER_SCRIPT = (CHECKOUT / "examples" / "quickstart.py").read_text(encoding="utf-8") + MORE


CONFIG = """\
[mypy]
strict = True
cache_dir = {cache}

[mypy-pyjit.*]
ignore_errors = True
"""


def _installed(path) -> bool:
    """Whether ``path`` is a site-packages directory (mypy refuses it in MYPYPATH)."""
    roots = {sysconfig.get_paths()[k] for k in ("purelib", "platlib")}
    return os.path.realpath(path) in {os.path.realpath(r) for r in roots}


def test_mypy_strict_sees_the_functions_own_signature(tmp_path):
    script = tmp_path / "user.py"
    script.write_text(USER_SCRIPT)
    config = tmp_path / "mypy.ini"
    config.write_text(CONFIG.format(cache=tmp_path / "cache"))
    env = dict(os.environ)
    env.pop("MYPYPATH", None)
    if not _installed(PYJIT_HOME):
        env["MYPYPATH"] = str(PYJIT_HOME)
    done = subprocess.run([sys.executable, "-m", "mypy", "--config-file", str(config),
                           "--no-error-summary", str(script)],
                          capture_output=True, text=True, cwd=tmp_path, env=env, timeout=300)
    # Paths as mypy prints them: relative to its working directory.
    lines = [line.split(": ", 1)[1] for line in done.stdout.splitlines()
             if line.startswith("user.py:")]
    int_ = r"(builtins\.)?int"
    float_ = r"(builtins\.)?float"
    reveals = [line for line in lines if line.startswith("note: Revealed type")]
    assert len(reveals) == 3, done.stdout + done.stderr
    assert re.search(rf"ScriptFunction\[\[n: {int_}\], {int_}\]", reveals[0]), reveals[0]
    assert re.search(rf"ScriptFunction\[\[x: {float_}, k: {float_} =", reveals[1]), reveals[1]
    assert re.search(rf"def \(by: {int_}\) -> {int_}", reveals[2]), reveals[2]
    errors = [line for line in lines if line.startswith("error:")]
    assert len(errors) == 1, done.stdout
    assert 'has incompatible type "str"; expected "int"' in errors[0]
    line_of_error = USER_SCRIPT.splitlines().index('collatz_steps("27")') + 1
    assert f"user.py:{line_of_error}: error:" in done.stdout
