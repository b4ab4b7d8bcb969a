"""The one helper the program modules of the JIT-suite corpus share: ``@program``.

Each module beside this one holds TorchScript functions taken from PyTorch's own
JIT test suite (``test/jit/*.py``, ``test/test_jit_string.py``), unchanged but for
a function name made unique where one test file reuses it, each marked with the
test it comes from and the inputs that test runs it on::

    @program("test/jit/test_list_dict.py::TestList::test_in_check", ([1, 2, 3],), ([1, 3, 3],))
    def int_in(x: List[int]) -> bool:
        return 2 in x

Functions without the mark are helpers: callees of the marked ones.  Classes
whose instances are a program's ``self`` are marked with ``@module_program``.
``make_suite.py`` scripts every marked function with torch and records what torch
prints and computes.  Nothing here runs without torch.
"""

import torch

__all__ = ["program", "module_program", "seeded"]


def program(origin, *cases, **options):
    """Mark a function as a corpus program run on each argument tuple of ``cases``.

    ``options``: ``stdout=True`` records what the program prints."""
    def mark(fn):
        fn.__suite__ = dict(origin=origin, cases=list(cases), **options)
        return fn
    return mark


def module_program(origin, *cases, make=None):
    """Mark an ``nn.Module`` class: ``make()`` (or the class itself) builds the
    instance whose ``forward`` is run on each argument tuple of ``cases``."""
    def mark(cls):
        cls.__suite__ = dict(origin=origin, cases=list(cases), make=make or cls)
        return cls
    return mark


def seeded(seed, *shape, dtype=torch.float32):
    """A reproducible ``randn`` tensor, where the test used ``torch.rand``/``randn``."""
    gen = torch.Generator().manual_seed(seed)
    return torch.randn(*shape, generator=gen).to(dtype)
