"""The compiled kernels (numba), one module per family of algorithms, apart from the API.

Every kernel is decorated with :func:`njit`, numba's ``njit`` with a cache that works on a
read-only install; that machinery, and the notices of first-use compiling the command line
shows, live in :mod:`bnfs._kernels._compile`.
"""

from bnfs._kernels._compile import (
    CACHE,
    compiling_for,
    entry_point,
    njit,
    on_compiles_done,
    on_compiles_start,
)

__all__ = [
    "CACHE",
    "compiling_for",
    "entry_point",
    "njit",
    "on_compiles_done",
    "on_compiles_start",
]
