"""numba options for the solver kernels, kept in one place.

Kernels are cached on disk (``cache=True``) so only the first run on a machine pays the
compilation; ``nogil`` lets threads run searches side by side.
"""

from __future__ import annotations

import numba

#: Decorator for every solver kernel.
njit = numba.njit(cache=True, nogil=True)
