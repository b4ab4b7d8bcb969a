"""Write pyjit/ir/torch_schemas.txt.xz (xz-compressed text): every operator schema torch registers for
TorchScript (``torch._C._jit_get_all_schemas()``), one a line, as torch prints it.

torch's own text is the format because it is complete and exact: the name and
overload name, each argument's type with its alias annotation (``Tensor(a!)``),
name, default and keyword-only marker (the ``*``), and the returns, all in one
line a person can read and grep; ``pyjit.ir.torch_schemas`` reads it back (with ``pyjit.ir.schema.parse``).  The
lines keep torch's order (the archive's overload matching depends on it) and
the header names the torch version.  The file is what ``pyjit.ops.coverage``
measures the library against and ``pyjit info --ops`` reports.

Run with torch 2.13 installed (a CPU build is enough)::

    python tools/schemas/make_torch_schemas.py
"""

import lzma
import os
import sys

import torch

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OUT = os.path.join(ROOT, "pyjit", "ir", "torch_schemas.txt.xz")


def main() -> None:
    lines = [str(s) for s in torch._C._jit_get_all_schemas()]
    for line in lines:
        if "\n" in line:   # one schema a line is the format's one rule
            raise SystemExit(f"a schema spans lines: {line!r}")
    version = torch.__version__.split("+")[0]
    with lzma.open(OUT, "wt", encoding="utf-8", preset=9 | lzma.PRESET_EXTREME) as f:
        f.write(f"# torch {version}: torch._C._jit_get_all_schemas(), {len(lines)} schemas, "
                "in torch's order; written by tools/schemas/make_torch_schemas.py\n")
        f.write("\n".join(lines) + "\n")
    print(f"{len(lines)} schemas -> {OUT}")


if __name__ == "__main__":
    main()
