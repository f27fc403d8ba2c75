"""Kernels called from other kernels compile once for every signed integer type of an
argument (:class:`sokoban._jit._Kernel`): the duplicate specialisations numba would make
for int16, int32 and literal arguments cost most of a minute of cold compile."""

from __future__ import annotations

import numpy as np
import pytest
from numba.core import types
from numba.core.errors import TypingError

from sokoban import _jit


def _twice_py(x):  # type: ignore[no-untyped-def]
    return x * 2


# Not cached, so that the signatures seen are the ones compiled in this process.
_twice = _jit._kernel(_twice_py, cache=False)


def _caller_py(a16, a32, flag):  # type: ignore[no-untyped-def]
    ints = _twice(a16[0]) + _twice(a32[0]) + _twice(0) + _twice(-1)
    return ints + _twice(flag) + _twice(True)


_caller = _jit._kernel(_caller_py, cache=False)


def _countdown_py(n, total):  # type: ignore[no-untyped-def]
    if n <= 0:
        return total
    return _countdown(n - 1, total + np.int16(n))


_countdown = _jit._kernel(_countdown_py, cache=False)


def _recursion_caller_py(a32):  # type: ignore[no-untyped-def]
    return _countdown(a32[0], 0)


_recursion_caller = _jit._kernel(_recursion_caller_py, cache=False)


def test_a_kernel_called_with_int16_int32_and_literals_compiles_once_for_int64() -> None:
    a16 = np.array([30000], np.int16)  # doubled, overflows an int16: the callee's int64 does not
    a32 = np.array([5], np.int32)
    assert _caller(a16, a32, False) == 60000 + 10 + 0 - 2 + 0 + 2
    # One for the integers, one for the bools (the literal True among them).
    assert sorted(map(str, _twice.signatures)) == ["(bool,)", "(int64,)"]


def test_a_recursive_kernel_called_with_narrow_integers_still_compiles() -> None:
    assert _recursion_caller(np.array([4], np.int32)) == 10
    assert _countdown.signatures == [(types.int64, types.int64)]


def test_calls_from_python_are_typed_by_their_values() -> None:
    assert _twice(np.float64(1.5)) == 3.0
    assert (types.float64,) in _twice.signatures


def test_the_widened_types() -> None:
    assert _jit._widened(types.IntegerLiteral(0)) == types.int64
    assert _jit._widened(types.int16) == types.int64
    assert _jit._widened(types.uint64) == types.uint64  # hashes stay unsigned
    assert _jit._widened(types.BooleanLiteral(False)) == types.boolean
    assert _jit._widened(types.boolean) == types.boolean
    assert _jit._widened(types.float32) == types.float32


def _kernels() -> list[object]:
    """Every kernel of the package's solver modules (imported by the solver)."""
    import sys

    import sokoban.solve  # noqa: F401  # imports every engine

    found = []
    for name, module in list(sys.modules.items()):
        if name.startswith("sokoban.") and module is not None:
            found += [v for v in vars(module).values() if isinstance(v, _jit._Kernel)]
    return list({id(k): k for k in found}.values())


def test_the_warm_up_loads_every_kernel_a_solve_needs() -> None:
    # What bench.warm_up (sokoban compile, bench, the web pool) leaves out is compiled at
    # first use instead, in the middle of a timed level (XSokoban 2 paid for three kernels:
    # fess's carry round a corner, its order without the packed-walls test, the rebuild of
    # a growing table).
    from sokoban.solve import Limits, bench, solve
    from tests.public import public_levels

    level = public_levels().level("xsokoban.xsb", 2)
    bench.warm_up("fast")
    before = {id(k): len(k.overloads) for k in _kernels()}  # type: ignore[attr-defined]
    result = solve(level, "fast", Limits(nodes=30_000))
    after = {id(k): (k, len(k.overloads)) for k in _kernels()}  # type: ignore[attr-defined]
    late = [k.py_func.__qualname__ for i, (k, n) in after.items() if n > before.get(i, 0)]
    assert result.solved and late == []


def _allocating_py(n):  # type: ignore[no-untyped-def]
    return np.zeros(n)[0]


def test_a_kernel_that_allocates_must_say_so() -> None:
    # Without numba's runtime (the default) an allocation is refused when compiling, not
    # left to fail at run time; allocates=True keeps the runtime.
    with pytest.raises(TypingError):
        _jit._kernel(_allocating_py, cache=False)(3)
    assert _jit._kernel(_allocating_py, cache=False, allocates=True)(3) == 0.0


def test_the_search_loops_work_without_reference_counting() -> None:
    # The arrays these hand on per child would be counted by atomic increments and
    # decrements, a large share of a search's time (benchmarks/solver.md measures it).
    from sokoban.solve import (
        _best_first,
        _carry,
        _children,
        _corral_deadlock,
        _fess_kernel,
        _push_moves,
        _reach,
    )

    bodies = [_fess_kernel._fess_steps, _fess_kernel._place, _best_first._expand_steps]
    bodies += [_children.corral_mask, _children.child_dead, _push_moves.push_moves]
    bodies += [_carry.carry, _reach.reach, _corral_deadlock.corral_dead]
    assert all(kernel.targetoptions["_nrt"] is False for kernel in bodies)
    # The loops' work arrays are made in plain Python: no wrapper kernel recompiles them.
    assert not hasattr(_fess_kernel.expand_batch, "targetoptions")
    assert not hasattr(_best_first.expand_batch, "targetoptions")


def _half_py(x):  # type: ignore[no-untyped-def]
    return x // 2


_half = _jit._kernel(_half_py, cache=False, internal=True)


def _halves_py(a):  # type: ignore[no-untyped-def]
    return _half(a[0]) + _half(a[1])


_halves = _jit._kernel(_halves_py, cache=False)


def test_an_internal_kernel_runs_from_kernels_and_from_python() -> None:
    # Compiled without the Python wrapper for its callers; a call from Python goes to a
    # twin compiled with it, under a name of its own in numba's cache.
    assert _halves(np.array([7, 9], np.int32)) == 3 + 4
    assert _half.signatures == [(types.int64,)]
    assert _half.targetoptions["no_cpython_wrapper"] is True
    assert _half(11) == 5
    twin = _half._twin  # type: ignore[attr-defined]
    assert twin.py_func.__qualname__ == "_half_py__from_python"
    assert "no_cpython_wrapper" not in twin.targetoptions


def test_the_solvers_call_no_internal_kernel_from_python(monkeypatch: pytest.MonkeyPatch) -> None:
    # A slip in the marking would compile a twin of the kernel in every cold run.
    from sokoban.solve import METHODS, bench

    called: list[str] = []
    original = _jit._InternalKernel.__call__

    def record(self, *args, **kws):  # type: ignore[no-untyped-def]
        called.append(self.py_func.__qualname__)
        return original(self, *args, **kws)

    monkeypatch.setattr(_jit._InternalKernel, "__call__", record)
    for method in METHODS:
        bench.warm_up(method)
    assert called == []
    assert sum(isinstance(k, _jit._InternalKernel) for k in _kernels()) > 40
