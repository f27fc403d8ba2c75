"""Solve levels: :func:`solve` and its registry of search methods.

>>> from sokoban import Level
>>> from sokoban.solve import solve, Limits
>>> level = Level.from_xsb('''
... #######
... #@ $ .#
... #######''')
>>> result = solve(level, "astar", Limits(time=10))
>>> result.status, result.solution.lurd(), result.optimal
(<Status.SOLVED: 'solved'>, 'rRR', True)

Every method works on one engine (private kernels: :mod:`sokoban.solve._board` encoding,
:mod:`~sokoban.solve._table` transposition table, :mod:`~sokoban.solve._queue` bucket
queue, :mod:`~sokoban.solve._deadlock` freeze deadlocks, :mod:`~sokoban.solve._bounds`
lower bounds) and one driver (:mod:`~sokoban.solve._driver`); each method lives in a
module of its own beside its kernel (:mod:`~sokoban.solve._best_first`,
:mod:`~sokoban.solve._fess`, :mod:`~sokoban.solve._ida` ...). Every solution is expanded
to full LURD and replayed by :func:`sokoban.lurd.verify` before it is returned.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from sokoban.errors import SokobanError
from sokoban.level import Level
from sokoban.lurd import Solution, verify

# The method modules register their methods on import.
from sokoban.solve import (  # noqa: F401
    _best_first,
    _bfs_moves,
    _bidirectional,
    _fast,
    _fess,
    _ida,
    _sma,
)
from sokoban.solve.types import (
    DEFAULT_MEMORY,
    METHODS,
    Limits,
    Method,
    Option,
    Progress,
    ProgressCallback,
    SearchStats,
    SolveResult,
    Status,
    check_options,
    method_named,
    parse_option,
    register,
)

__all__ = [
    "DEFAULT_MEMORY",
    "METHODS",
    "Limits",
    "Method",
    "Option",
    "Progress",
    "SearchStats",
    "SolveResult",
    "Status",
    "method_named",
    "parse_option",
    "register",
    "solve",
]


def solve(
    level: Level,
    method: str = "astar",
    limits: Limits | None = None,
    *,
    progress: ProgressCallback | None = None,
    **options: Any,
) -> SolveResult:
    """Solve ``level`` with a method of :data:`METHODS` within ``limits``.

    ``options`` are the method's (see :attr:`Method.options`); ``progress`` is called
    with a :class:`Progress` between kernel calls. A level with problems (see
    :meth:`Level.problems`) gives :attr:`Status.INVALID`; an unknown method, an unknown
    option or a bad value raises :class:`~sokoban.errors.SokobanError`. A returned
    solution has been replayed and ends solved; a solution that fails that is a bug and
    raises :class:`RuntimeError`.
    """
    spec = method_named(method)
    checked = check_options(spec, options)
    limits = limits or Limits()
    problems = level.problems()
    if problems:
        return SolveResult(Status.INVALID, None, method, False, SearchStats(), "; ".join(problems))
    if level.is_solved:
        return SolveResult(
            Status.SOLVED, Solution(), method, spec.optimal, SearchStats(), "already solved", 0
        )
    result = spec.function(level, limits, progress, **checked)
    if result.solution is not None:
        try:
            replay = verify(level, result.solution)
        except SokobanError as error:
            raise RuntimeError(
                f"solver bug: {method} returned a wrong solution: {error}"
            ) from error
        result = dataclasses.replace(result, solution=replay.solution)
    return result
