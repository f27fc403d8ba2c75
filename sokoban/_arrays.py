"""Small array helpers for the kernels."""

from __future__ import annotations

from sokoban._jit import njit


@njit(internal=True)
def copy_into(dst, src):
    """Copy the 1-d array ``src`` into the first ``len(src)`` places of the 1-d array
    ``dst`` (any dtypes numba casts between). A slice assignment (``dst[:] = src``) would
    do the same, but each one compiles numba's shape-mismatch message, string formatting
    that cost about 5 s of a cold compile; one loop here costs a fraction of a second."""
    for i in range(src.shape[0]):
        dst[i] = src[i]
