"""The README's examples work as shown."""

import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _read(name):
    with open(os.path.join(ROOT, name), encoding="utf-8") as f:
        return f.read()


def test_quick_start_block_is_the_example_file():
    blocks = re.findall(r"```python\n(.*?)```", _read("README.md"), re.S)
    assert blocks and blocks[0] == _read("examples/quickstart.py")


def test_quick_start_runs_and_prints_what_the_readme_says():
    # The checkout's pyjit, as the test session imports it.
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [ROOT] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]))
    out = subprocess.run([sys.executable, "examples/quickstart.py"], cwd=ROOT, check=True,
                         capture_output=True, text=True, env=env).stdout
    lines = out.splitlines()
    assert lines[0] == "111"
    assert lines[1] == "graph(%n.1 : int):"
    assert lines[-1] == "832040"
    # The listing of the preprocessed graph is there too.
    assert " = prim::Load" in out and "= JNE_I " in out


def test_operator_example_runs_as_shown():
    import numpy as np
    blocks = re.findall(r"```python\n(.*?)```", _read("README.md"), re.S)
    example = next(b for b in blocks if "register_operator" in b)
    *setup, last = example.strip().splitlines()
    call, shown = last.split("#")
    namespace: dict = {}
    exec("\n".join(setup), namespace)
    result = eval(call, namespace)
    assert repr(result) == shown.strip()
    assert result.dtype == np.float32
