"""The ``pyjit`` command as a user meets it: the installed entry point, run in a
child process, its exit status and both of its streams.

What the commands compute is tested where the computing is (test_interpreter,
test_archives, test_dot...); here, what surrounds it: ``--version``, help with
examples, one error line for a damaged archive or an unknown operator, and a
quiet end when the reader of the output goes away.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import zipfile
from importlib.metadata import version

import pytest

import pyjit
from pyjit import cli
from helpers.subprocesses import CHECKOUT, checkout_env

FIB = CHECKOUT / "examples" / "fib.ir"
CNN = CHECKOUT / "examples" / "small_cnn.pt"


def _command():
    """The ``pyjit`` console script installed beside this Python, else ``python -m
    pyjit`` (the same ``main``)."""
    script = shutil.which("pyjit", path=os.path.dirname(sys.executable))
    return [script] if script else [sys.executable, "-m", "pyjit"]


def pyjit_cmd(*args, stdout=subprocess.PIPE):
    """Run the command; its status, standard output and standard error."""
    done = subprocess.run(_command() + [str(a) for a in args], stdout=stdout,
                          stderr=subprocess.PIPE, text=True, env=checkout_env(), timeout=120)
    return done.returncode, done.stdout, done.stderr


# -- version -------------------------------------------------------------------------

def test_version_is_the_installed_metadata_and_pyprojects():
    status, out, err = pyjit_cmd("--version")
    assert (status, err) == (0, "")
    assert out == f"pyjit {version('pyjit')}\n"
    assert pyjit.__version__ == version("pyjit")
    pyproject = CHECKOUT / "pyproject.toml"
    if pyproject.exists():  # the checkout, or an unpacked sdist
        import tomllib
        with open(pyproject, "rb") as f:
            assert tomllib.load(f)["project"]["version"] == pyjit.__version__


def test_version_is_in_info_too():
    status, out, _ = pyjit_cmd("info")
    assert status == 0 and out.splitlines()[0] == f"pyjit {pyjit.__version__}"


# -- help ----------------------------------------------------------------------------

@pytest.mark.parametrize("command", [[], ["run"], ["dump"], ["dot"], ["info"], ["bench"]])
def test_help_ends_with_examples_of_the_command(command):
    status, out, err = pyjit_cmd(*command, "--help")
    assert (status, err) == (0, "")
    examples = out.split("examples:\n", 1)[1].splitlines()
    commands = [line.split("#")[0].split() for line in examples if line.startswith("  pyjit")]
    assert len(commands) >= 2
    if command:
        assert all(c[1] == command[0] for c in commands)


def test_quick_is_worded_as_the_readme_words_it():
    readme = (CHECKOUT / "README.md").read_text(encoding="utf-8")
    line = next(ln for ln in readme.splitlines() if ln.startswith("pyjit bench --quick "))
    assert "a few minutes" in cli.QUICK_HELP and "a few minutes" in line


# -- broken pipes --------------------------------------------------------------------

@pytest.mark.parametrize("args", [["info"], ["info", "--ops"], ["dump", "--opcodes", FIB],
                                  ["run", FIB, "30"]])
def test_a_reader_that_went_away_ends_the_command_quietly(args):
    """As in ``pyjit info | head -1``, but certain: the pipe's reading end is closed
    before the command writes, so its first write fails."""
    read, write = os.pipe()
    os.close(read)
    try:
        status, _, err = pyjit_cmd(*args, stdout=write)
    finally:
        os.close(write)
    assert (status, err) == (cli.BROKEN_PIPE_STATUS, "")


def test_head_of_the_operator_list_in_a_shell_pipe():
    shell = shutil.which("sh")
    if shell is None:
        pytest.skip("no sh")
    command = " ".join(map(repr, _command())) + " info --ops | head -1"
    done = subprocess.run([shell, "-c", command], capture_output=True, text=True,
                          env=checkout_env(), timeout=120)
    assert (done.returncode, done.stdout, done.stderr) == (0, f"pyjit {pyjit.__version__}\n", "")


# -- damaged archives ----------------------------------------------------------------

def _member_data_offset(data: bytes, info: zipfile.ZipInfo) -> int:
    """Where ``info``'s bytes start: after its local header, name and extra field."""
    h = info.header_offset
    name_len = int.from_bytes(data[h + 26:h + 28], "little")
    extra_len = int.from_bytes(data[h + 28:h + 30], "little")
    return h + 30 + name_len + extra_len


def _damaged(kind: str) -> bytes:
    """examples/small_cnn.pt with one kind of damage."""
    data = bytearray(CNN.read_bytes())
    infos = zipfile.ZipFile(CNN).infolist()
    if kind == "stored-crc":      # a byte of a stored tensor storage
        info = next(i for i in infos if i.filename.endswith("data/0"))
        data[_member_data_offset(data, info) + 10] ^= 0xFF
    elif kind == "pickle-crc":    # a byte of data.pkl
        info = next(i for i in infos if i.filename.endswith("data.pkl"))
        data[_member_data_offset(data, info) + 5] ^= 0x01
    elif kind == "deflate":       # the deflate stream of a code file
        info = next(i for i in infos if i.compress_type == zipfile.ZIP_DEFLATED)
        start = _member_data_offset(data, info)
        for k in range(5, 40):
            data[start + k] ^= 0x5A
    elif kind.startswith("cut-"):
        del data[int(kind[4:]):]
    return bytes(data)


# Each kind of damage with `run`; `dump` reads archives the same way (one each).
@pytest.mark.parametrize("command, kind, says", [
    ("run", "stored-crc", "Bad CRC-32 for file 'cnn/data/0'"),
    ("run", "pickle-crc", "Bad CRC-32 for file 'cnn/data.pkl'"),
    ("run", "deflate", "Error -3 while decompressing data"),
    ("run", "cut-4", "not a zip file"),
    ("run", "cut-3000", "not a zip file"),
    ("run", "cut-33000", "not a zip file"),
    ("dump", "deflate", "Error -3 while decompressing data"),
    ("dump", "cut-20000", "not a zip file"),
])
def test_a_damaged_archive_is_one_error_line(tmp_path, command, kind, says):
    path = tmp_path / "model.pt"
    path.write_bytes(_damaged(kind))
    status, out, err = pyjit_cmd(command, path, *(["x.npy"] if command == "run" else []))
    assert (status, out) == (1, "")
    assert err.count("\n") == 1 and err.startswith(f"pyjit: error: {path}"), err
    assert says in err and "Traceback" not in err


def test_an_archive_is_told_by_its_content_not_its_name(tmp_path):
    """A truncated archive under an .ir name is still an archive that is cut short,
    not a text that is not UTF-8; IR text under a .pt name is still IR text."""
    cut = tmp_path / "cut.ir"
    cut.write_bytes(_damaged("cut-3000"))
    status, _, err = pyjit_cmd("run", cut, "1")
    assert status == 1 and "UTF-8" not in err and "not a zip file" in err
    text = tmp_path / "fib.pt"
    shutil.copy(FIB, text)
    assert pyjit_cmd("run", text, "30") == (0, "832040\n", "")
    whole = tmp_path / "cnn.bin"
    shutil.copy(CNN, whole)
    status, out, _ = pyjit_cmd("dump", whole)
    assert status == 0 and out.startswith("# ")


def test_is_archive_reads_the_zip_magic(tmp_path):
    (tmp_path / "a").write_bytes(b"PK\x03\x04 and then nothing")
    (tmp_path / "b").write_bytes(b"graph():\n  return ()\n")
    (tmp_path / "c").write_bytes(b"")
    assert [cli._is_archive(str(tmp_path / n)) for n in "abc"] == [True, False, False]
    assert cli._is_archive(str(tmp_path / "missing")) is False


# -- unknown operators ---------------------------------------------------------------

# Each kind of node with `run`; `dump` and `dot` build the Code the same way.
@pytest.mark.parametrize("command, node, col, says", [
    ("run", "%y : int = foo::bar(%x)", 13, "unknown operator foo::bar: no operator is registered"),
    ("run", "%y : int = aten::add(%x)", 13, "no overload of aten::add accepts aten::add(int)"),
    ("run", "%y : int = foo::bar[n=1](%x)", 13, "unknown operator foo::bar"),
    ("dump", "%y : int = foo::bar(%x)", 13, "unknown operator foo::bar"),
    ("dot --code", "%y : int = foo::bar(%x)", 13, "unknown operator foo::bar"),
])
def test_an_unknown_operator_is_reported_at_its_line_and_column(tmp_path, command, node, col,
                                                                says):
    path = tmp_path / "g.ir"
    path.write_text("graph(%x : int):\n  %z : int = aten::mul(%x, %x)\n"
                    f"  {node}\n  return (%y)\n", encoding="utf-8")
    status, out, err = pyjit_cmd(*command.split(), path, *(["1"] if command == "run" else []))
    assert (status, out) == (1, "")
    assert re.fullmatch(rf"pyjit: error: {re.escape(str(path))}:3:{col}: {re.escape(says)}.*\n",
                        err), err


def test_find_node_takes_the_node_the_error_quotes():
    text = "graph(%a : int):\n  %b : int = foo::f(%a)\n  %c : int = foo::f(%b)\n  return (%c)\n"
    message = ("unknown operator foo::f: no operator is registered for it\n"
               "  in: %c : int = foo::f(%b)")
    assert cli._find_node(text, message) == (3, 13)
    assert cli._find_node(text, "no header here") is None
    assert cli._find_node(text, "unknown\n  in: %d : int = foo::g(%a)") is None
