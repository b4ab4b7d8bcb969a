"""What setup.py builds: every Cython module in its one list, compiled stripped.

The build's speed is measured, not tested (README, Set up); what is pinned here
is what would make it slower or the wheel bigger without anyone noticing.
"""

from __future__ import annotations

import importlib
import importlib.util
import struct
import sys

import pytest

from pyjit import _backend
from helpers.subprocesses import CHECKOUT

SETUP = CHECKOUT / "setup.py"


def _setup_py():
    """setup.py's definitions (its ``setup()`` runs only as a script)."""
    pytest.importorskip("setuptools", reason="setup.py needs setuptools (a venv may lack it)")
    spec = importlib.util.spec_from_file_location("_pyjit_setup", SETUP)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def elf_sections(path) -> list:
    """The section names of a 64-bit little-endian ELF file."""
    with open(path, "rb") as f:
        data = f.read()
    assert data[:4] == b"\x7fELF" and data[4] == 2 and data[5] == 1, "not ELF64 LE"
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
    headers = [struct.unpack_from("<IIQQQQ", data, shoff + i * shentsize) for i in range(shnum)]
    strtab = headers[shstrndx][4]       # sh_offset of the section name table
    names = []
    for h in headers:
        start = strtab + h[0]
        names.append(data[start:data.index(b"\0", start)].decode("ascii"))
    return names


@pytest.mark.skipif(not SETUP.exists(), reason="no setup.py beside the tests")
def test_every_cython_module_is_in_the_one_extension_list():
    setup_py = _setup_py()
    listed = {source for _, source, _ in setup_py.EXTENSIONS}
    on_disk = {p.relative_to(CHECKOUT).as_posix() for p in (CHECKOUT / "pyjit").rglob("*.pyx")}
    assert listed == on_disk
    assert {kind for _, _, kind in setup_py.EXTENSIONS} <= set(setup_py.FLAGS)
    for name, source, _ in setup_py.EXTENSIONS:
        assert source == name.replace(".", "/") + ".pyx"


@pytest.mark.skipif(not SETUP.exists(), reason="no setup.py beside the tests")
def test_the_dispatch_loop_is_hot_and_no_module_carries_debug_information():
    setup_py = _setup_py()
    kinds = {name: kind for name, _, kind in setup_py.EXTENSIONS}
    assert kinds["pyjit._core"] == "hot"
    assert "-g0" in setup_py.COMMON_FLAGS


@pytest.mark.skipif(not (_backend.HAS_CEXT and sys.platform.startswith("linux")),
                    reason="the compiled modules are not built, or not ELF")
@pytest.mark.parametrize("module", ["pyjit._core", "pyjit._timed", "pyjit.ops._int64",
                                    "pyjit.ops._ufunc_direct"])
def test_compiled_modules_are_stripped(module):
    path = importlib.import_module(module).__file__
    assert path.endswith(".so")
    sections = elf_sections(path)
    assert ".text" in sections
    assert [s for s in sections if s.startswith(".debug") or s == ".symtab"] == []
