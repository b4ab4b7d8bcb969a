# Hand-written stub for the compiled run loop; pyjit/_pure.py is the same API in
# Python, and the place where it is documented.
from typing import Any, Sequence

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
        scalar_kinds: str = "",
        scalar_init: npt.NDArray[np.int64] | None = None,
        preload: Sequence[tuple[int, Any]] = (),
    ) -> None: ...
    @property
    def n_instructions(self) -> int: ...
    @property
    def register_size(self) -> int: ...
    @property
    def scalar_size(self) -> int: ...
    @property
    def max_stack(self) -> int: ...
    def packed_opcodes(self) -> list[int]: ...

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
    @property
    def pcs(self) -> tuple[int, ...]: ...
    @property
    def depth(self) -> int: ...
    def registers(self) -> list[Any]: ...
    def scalars(self) -> list[Any]: ...
    def run(self, stack: list[Any]) -> Any: ...

def set_max_depth(n: int) -> None: ...
def get_max_depth() -> int: ...
def set_profile(tallies: dict[Any, Any] | None) -> None: ...
def get_profile() -> dict[Any, Any] | None: ...

