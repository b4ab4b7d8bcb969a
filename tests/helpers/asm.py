"""A tiny assembler: instruction tables for tests, written as readable tuples.

Each instruction is ``(name, inputs, flags, outputs)`` or ``(name, inputs, flags,
outputs, arg)``, where ``name`` is an opcode name from ``pyjit.opcodes`` (or a raw
int, to write invalid tables), ``inputs``/``outputs`` are register numbers and
``flags`` the inputs' move flags (1 = move, 0 = copy)::

    table = asm([("LOAD", [], [], [0, 1]),
                 ("CALL", [0, 1], [1, 1], [2], 0),    # R2 := F[0](R0, R1), moving both
                 ("STORE", [2], [1], [])],
                callbacks=(operator.add,))
    program = loop.Program(**table)

The result is the dict of ``Program`` keyword arguments, arrays included, so a
test can break one field before building (``table["op"][1] = 99``).  Nothing is
validated here: that is ``Program``'s job.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from pyjit import opcodes


class NoFuture:
    """The default ``future_type``: a class nothing in the tests is an instance of."""


def asm(code: Sequence[tuple], callbacks: tuple = (), constants: tuple = (),
        register_size: int | None = None, future_type: type = NoFuture) -> dict[str, Any]:
    """Encode ``code`` as the struct-of-arrays table ``Program`` takes.

    ``register_size`` defaults to one more than the highest register mentioned.
    """
    cols: dict[str, list[int]] = {k: [] for k in (
        "op", "in_start", "in_size", "flag_start", "out_start", "out_size", "arg")}
    ints: list[int] = []
    bools: list[int] = []
    for inst in code:
        name, ins, flags, outs, *rest = inst
        cols["op"].append(opcodes.BY_NAME[name].code if isinstance(name, str) else name)
        cols["in_start"].append(len(ints))
        cols["in_size"].append(len(ins))
        ints.extend(ins)
        cols["flag_start"].append(len(bools))
        bools.extend(flags)
        cols["out_start"].append(len(ints))
        cols["out_size"].append(len(outs))
        ints.extend(outs)
        cols["arg"].append(rest[0] if rest else 0)
    if register_size is None:
        register_size = max(ints, default=-1) + 1
    table: dict[str, Any] = {k: np.array(v, dtype=np.int32) for k, v in cols.items()}
    table.update(int_data=np.array(ints, dtype=np.int32),
                 bool_data=np.array(bools, dtype=np.uint8),
                 callbacks=tuple(callbacks), constants=tuple(constants),
                 register_size=register_size, future_type=future_type)
    return table
