# Hand-written stub for the compiled run loop; pyjit/_pure.py is the same API in
# Python, and the place where it is documented.
from typing import Any

import numpy as np
import numpy.typing as npt

#: The version of Cython the module was compiled with.
CYTHON_VERSION: str

class Program:
    """An immutable, validated instruction table, shared by any number of Frames."""

    def __init__(
        self,
        op: npt.NDArray[np.int32],
        in_start: npt.NDArray[np.int32],
        in_size: npt.NDArray[np.int32],
        flag_start: npt.NDArray[np.int32],
        out_start: npt.NDArray[np.int32],
        out_size: npt.NDArray[np.int32],
        arg: npt.NDArray[np.int32],
        int_data: npt.NDArray[np.int32],
        bool_data: npt.NDArray[np.uint8],
        callbacks: tuple[Any, ...],
        constants: tuple[Any, ...],
        register_size: int,
        future_type: type,
    ) -> None: ...
    @property
    def n_instructions(self) -> int: ...
    @property
    def register_size(self) -> int: ...
    @property
    def max_stack(self) -> int: ...

class Frame:
    """The register file and value stack of one run of a Program."""

    def __init__(self, program: Program) -> None: ...
    @property
    def pc(self) -> int: ...
    @property
    def failed(self) -> bool: ...
    @property
    def finished(self) -> bool: ...
    @property
    def program(self) -> Program: ...
    def registers(self) -> list[Any]: ...
    def run(self, stack: list[Any]) -> Any: ...

# TorchScript's int arithmetic (int64, wrapping), registered by pyjit.ops.scalars
# when the compiled core is active; the Python twins there define the semantics.
def int_add(a: int, b: int, /) -> int: ...
def int_sub(a: int, b: int, /) -> int: ...
def int_mul(a: int, b: int, /) -> int: ...
def int_floordiv(a: int, b: int, /) -> int: ...
def int_remainder(a: int, b: int, /) -> int: ...
