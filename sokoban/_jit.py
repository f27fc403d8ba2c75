"""numba options for every kernel of the package (solver, analysis, generator), kept in
one place: every kernel is decorated with :data:`njit` from here.

Kernels are cached on disk (``cache=True``) so only the first run on a machine pays the
compilation; ``nogil`` lets threads run searches side by side.

numba's cache notices a change in a kernel's own source file only, not in the kernels it
calls from other modules, and the kernels call across modules (the search calls the
deadlock tests, the bounds, the table...; the generator calls the solver's): an edit to
one of those would leave stale machine code running. So, unless ``NUMBA_CACHE_DIR`` says
otherwise, the cache lives in a directory named by a hash of the source of every module
of the package that defines kernels: any change to one starts afresh.
"""

from __future__ import annotations

import hashlib
import os
import shutil
from pathlib import Path

import numba

_PACKAGE = Path(__file__).resolve().parent


def _sources_digest() -> str:
    """A hash of every module of the package that defines kernels (kernels call only
    kernels), so that an edit to plain Python around them keeps the cache."""
    digest = hashlib.sha256()
    for path in sorted(_PACKAGE.rglob("*.py")):
        if "__pycache__" in path.parts or path.name == "_jit.py":
            continue
        text = path.read_bytes()
        if b"@njit" in text:
            digest.update(path.relative_to(_PACKAGE).as_posix().encode())
            digest.update(text)
    return digest.hexdigest()[:16]


def _cache_dir() -> str | None:
    """A writable directory for this version of the kernels: beside the sources as numba
    would choose, else in the user's cache; ``None`` leaves numba's own choice."""
    name = f"numba-{_sources_digest()}"
    user = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "sokoban"
    for base in (_PACKAGE / "__pycache__", user):
        fresh = not (base / name).exists()
        try:
            (base / name).mkdir(parents=True, exist_ok=True)
        except OSError:
            continue
        if not os.access(base / name, os.W_OK):
            continue
        if fresh:  # the caches of earlier versions of these sources will not be read again
            for old in base.glob("numba-*"):
                if old.name != name:
                    shutil.rmtree(old, ignore_errors=True)
        return str(base / name)
    return None


if not os.environ.get("NUMBA_CACHE_DIR"):
    _dir = _cache_dir()
    if _dir is not None:
        numba.config.CACHE_DIR = _dir  # type: ignore[attr-defined]  # set by numba at run time

#: Decorator for every kernel of the package.
njit = numba.njit(cache=True, nogil=True)
