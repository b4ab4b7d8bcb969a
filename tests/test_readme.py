"""The README's examples work as shown."""

import os
import re
import subprocess
import sys

import pytest

from helpers.optional import torch_installed
from helpers.subprocesses import checkout_env

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _read(name):
    with open(os.path.join(ROOT, name), encoding="utf-8") as f:
        return f.read()


def _python_block(marker):
    """The README's python block that mentions ``marker``."""
    blocks = re.findall(r"```python\n(.*?)```", _read("README.md"), re.S)
    return next(b for b in blocks if marker in b)


def test_quick_start_block_is_the_example_file():
    blocks = re.findall(r"```python\n(.*?)```", _read("README.md"), re.S)
    assert blocks and blocks[0] == _read("examples/quickstart.py")


def test_quick_start_runs_and_prints_what_the_readme_says():
    env = checkout_env()  # the checkout's pyjit, as the test session imports it
    out = subprocess.run([sys.executable, "examples/quickstart.py"], cwd=ROOT, check=True,
                         capture_output=True, text=True, env=env).stdout
    lines = out.splitlines()
    assert lines[0] == "111"
    assert lines[1] == "graph(%n.1 : int):"
    assert lines[-1] == "832040"
    # The listing of the preprocessed graph is there too.
    assert " = prim::Load" in out and "= JNE_I " in out


def test_operator_example_prints_what_the_readme_says(tmp_path):
    _prints_what_it_says(_python_block("register_operator"), tmp_path, "operator_example.py")


def test_pictures_section_shows_pictures_that_exist():
    readme = _read("README.md")
    for picture in re.findall(r"\((docs/[\w-]+\.svg)\)", readme):
        with open(os.path.join(ROOT, picture), encoding="utf-8") as f:
            svg = f.read()
        assert "<svg" in svg and "fib.py:9" in svg, picture
    assert "(docs/fib.svg)" in readme and "(docs/fib-code.svg)" in readme


def _prints_what_it_says(example, tmp_path, name):
    """Run ``example`` as a file (scripting reads the source) and compare what it
    prints with the comments after its ``print(...)`` lines."""
    shown = [line.split("# ", 1)[1] for line in example.splitlines()
             if line.startswith("print(")]
    path = tmp_path / name
    path.write_text(example)
    out = subprocess.run([sys.executable, "-W", "ignore", str(path)], check=True,
                         capture_output=True, text=True, env=checkout_env()).stdout
    assert out.splitlines() == shown


def test_calls_and_modules_example_prints_what_the_readme_says(tmp_path):
    _prints_what_it_says(_python_block("CompilationUnit"), tmp_path, "calls_example.py")


def test_from_torch_example_prints_what_the_readme_says(tmp_path):
    if not torch_installed():
        pytest.skip("torch is not installed: the from_torch example needs it")
    _prints_what_it_says(_python_block("from_torch"), tmp_path, "from_torch_example.py")


def test_saved_models_example_prints_what_the_readme_says(tmp_path):
    block = _python_block("pyjit.load")
    assert len(block.strip().splitlines()) == 3
    example = tmp_path / "load_example.py"
    example.write_text(block)
    out = subprocess.run([sys.executable, str(example)], cwd=ROOT, check=True,
                         capture_output=True, text=True, env=checkout_env()).stdout
    shown = [line.split("# ", 1)[1] for line in block.splitlines() if line.startswith("print(")]
    assert out.splitlines() == shown


def test_freezing_example_prints_what_the_readme_says(tmp_path):
    block = _python_block("pyjit.freeze")
    example = tmp_path / "freeze_example.py"
    example.write_text(block)
    out = subprocess.run([sys.executable, str(example)], cwd=ROOT, check=True,
                         capture_output=True, text=True, env=checkout_env()).stdout
    shown = [line.split("# ", 1)[1] for line in block.splitlines() if line.startswith("print(")]
    assert out.splitlines() == shown == ["0", "True"]


def test_how_it_runs_shows_the_table_pyjit_dump_prints():
    """The fib table in "How it runs" is what ``pyjit dump examples/fib.ir`` prints
    after the graph, at the default level."""
    block = re.search(r"the default table is:\n\n```\n(.*?)```", _read("README.md"), re.S)
    out = subprocess.run([sys.executable, "-m", "pyjit", "dump", "-O1", "examples/fib.ir"],
                         cwd=ROOT, check=True, capture_output=True, text=True,
                         env=checkout_env()).stdout
    assert block and out.endswith("\n" + block.group(1))
