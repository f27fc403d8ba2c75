"""Small array helpers for the kernels."""

from __future__ import annotations

import numpy as np

from sokoban._jit import njit


def doubled(array: np.ndarray) -> np.ndarray:
    """``array`` with as many zero rows again, for a store that grows by doubling. The new
    rows come from ``np.zeros``: memory the system hands out zeroed at its first write.
    Filling them here (``np.zeros_like``) and copying the zeros in (``np.concatenate``)
    would touch three times the memory, and the first touch of fresh memory is most of a
    growth's cost."""
    out = np.zeros((2 * array.shape[0], *array.shape[1:]), dtype=array.dtype)
    out[: array.shape[0]] = array
    return out


def lengthened(array: np.ndarray, length: int) -> np.ndarray:
    """The 1-d ``array`` in the first places of a new one of ``length``, the rest unset
    (``np.concatenate`` with ``np.empty`` would copy the unset part too)."""
    out = np.empty(length, dtype=array.dtype)
    out[: array.shape[0]] = array
    return out


@njit(internal=True)
def copy_into(dst, src):
    """Copy the 1-d array ``src`` into the first ``len(src)`` places of the 1-d array
    ``dst`` (any dtypes numba casts between). A slice assignment (``dst[:] = src``) would
    do the same, but each one compiles numba's shape-mismatch message, string formatting
    that cost about 5 s of a cold compile; one loop here costs a fraction of a second."""
    for i in range(src.shape[0]):
        dst[i] = src[i]
