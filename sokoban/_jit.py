"""numba options for every kernel of the package (solver, analysis, generator), kept in
one place: every kernel is decorated with :func:`njit` from here.

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
from collections.abc import Callable
from pathlib import Path
from types import FunctionType
from typing import Any, cast

try:
    import fcntl
except ImportError:  # not on Windows: one process at a time writes the cache there
    fcntl = None  # type: ignore[assignment]

import numba
from numba.core import types
from numba.core.registry import CPUDispatcher

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


def cache_is_cold() -> bool:
    """Whether the on-disk cache holds no compiled kernel yet: the first run on this
    machine, or the first since the kernels' sources changed (False when numba chose the
    cache's place itself: not known)."""
    directory = getattr(numba.config, "CACHE_DIR", "")
    return bool(directory) and not any(Path(directory).rglob("*.nbi"))


def _widened(t: types.Type) -> types.Type:
    """The type a kernel is compiled for when another kernel passes it ``t``: int64 for
    every signed integer, literal or not; the plain type for other literals."""
    t = types.unliteral(t)  # type: ignore[no-untyped-call]  # numba is untyped
    if isinstance(t, types.Integer) and t.signed:  # type: ignore[attr-defined]
        return types.int64
    return t


class _Kernel(CPUDispatcher):
    """A dispatcher that compiles a kernel called from other kernels once for every signed
    integer type of an argument: int64, to which the caller casts. numba would compile
    the callee once per type it meets (int16, int32, a literal 0 or -1, a literal bool),
    each time in full: fess's child kernels three times, the corral sub-search twice,
    SMA*'s heaps four times (about a third of a cold compile of every method, measured in
    benchmarks/solver.md). Only the typing of calls between kernels changes: calls
    from Python are typed by their values as before, and a recursive call is matched to
    the signature being compiled by the same widened types."""

    def get_call_template(self, args: Any, kws: Any) -> Any:
        args = tuple(_widened(a) for a in args)
        kws = {name: _widened(a) for name, a in kws.items()}
        return super().get_call_template(args, kws)

    def fold_argument_types(self, args: Any, kws: Any) -> Any:
        # What a recursive call is matched by against the signature being compiled.
        pysig, folded = super().fold_argument_types(args, kws)
        return pysig, tuple(_widened(a) for a in folded)


def _locked_save(save: Callable[[Any, Any], None], lock: str) -> Callable[[Any, Any], None]:
    """numba's ``IndexDataCacheFile.save`` made atomic across processes. It reads the
    kernel's index, picks the first free data-file number for a new signature, writes the
    index, then the data: two processes compiling one kernel for different signatures at
    once (``sokoban compile``'s workers, the web pool's) could both pick number 1, and
    the index would then name the other signature's machine code, a crash when loaded."""

    def locked(key: Any, data: Any) -> None:
        with open(lock, "a") as handle:
            fcntl.flock(handle, fcntl.LOCK_EX)
            try:
                save(key, data)
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)

    return locked


class _InternalKernel(_Kernel):
    """A kernel that the package calls from other kernels only, compiled without the
    wrapper that converts Python objects to its arguments: that wrapper is about a third
    of a small kernel's compile time, and calls between kernels never run it. A call
    from Python (a test, a notebook) goes to a twin compiled with the wrapper, made at
    the first such call and cached under a name of its own (numba's cache keys an entry
    by name and types, not by options)."""

    #: ``cache`` and ``allocates`` of :func:`_kernel`, for the twin.
    _twin_options: tuple[bool, bool]

    def __call__(self, *args: Any, **kws: Any) -> Any:
        twin = self.__dict__.get("_twin")
        if twin is None:
            f = self.py_func
            copy = FunctionType(
                f.__code__, f.__globals__, f.__name__, f.__defaults__, f.__closure__
            )
            copy.__qualname__ = f"{f.__qualname__}__from_python"
            copy.__module__, copy.__doc__ = f.__module__, f.__doc__
            cache, allocates = self._twin_options
            twin = self._twin = _kernel(copy, cache, allocates)
        return twin(*args, **kws)


def _kernel(
    function: Callable[..., Any], cache: bool, allocates: bool = False, internal: bool = False
) -> Any:
    """``function`` as a :class:`_Kernel` (``cache``: on disk; the tests build kernels
    without, to see what one process compiles; ``allocates``: with numba's reference-
    counted memory, see :func:`njit`; ``internal``: an :class:`_InternalKernel`)."""
    # numba's own options, which its type stubs do not list: its runtime, and the entry
    # point for C callers (``numba.cfunc``'s), which no caller of ours uses.
    options: dict[str, Any] = {"cache": cache, "nogil": True, "_nrt": allocates}
    options["no_cfunc_wrapper"] = True
    if internal:
        options["no_cpython_wrapper"] = True
    kernel = numba.njit(**options)(function)
    if isinstance(kernel, CPUDispatcher):  # not so with NUMBA_DISABLE_JIT
        kernel.__class__ = _InternalKernel if internal else _Kernel
        if internal:
            cast(_InternalKernel, kernel)._twin_options = (cache, allocates)
        files = getattr(getattr(kernel, "_cache", None), "_cache_file", None)
        if cache and fcntl is not None and files is not None:
            lock = os.path.join(files._cache_path, ".sokoban-cache.lock")
            files.save = _locked_save(files.save, lock)
    return kernel


def njit(
    function: Callable[..., Any] | None = None, *, allocates: bool = False, internal: bool = False
) -> Any:
    """Decorator for every kernel of the package: cached, without the GIL, and a
    :class:`_Kernel` (compiled once per set of array types when other kernels call it).

    A kernel works on the arrays its caller gives it, without numba's runtime (NRT):
    with it, numba counts references to every array a kernel takes, views and arrays
    in named tuples included, by atomic increments and decrements at each call, and
    the search kernels call small kernels for every child (fess's child kernels take
    about 40 arrays): a fifth of fess's time went to those counts (benchmarks/solver.md).
    numba then refuses, at compile time, a kernel
    that allocates an array or returns one it did not take. ``@njit(allocates=True)``
    keeps the runtime, for the kernels that allocate (a search's scratch, its tables).

    ``@njit(internal=True)`` marks a kernel that the package calls from kernels only
    (:class:`_InternalKernel`): it compiles faster, and a call from Python still works.
    """
    if function is None:
        return lambda f: _kernel(f, cache=True, allocates=allocates, internal=internal)
    return _kernel(function, cache=True, allocates=allocates, internal=internal)
