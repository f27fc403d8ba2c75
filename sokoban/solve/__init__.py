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
lower bounds, :mod:`~sokoban.solve._search` the best-first kernel). Every solution is
expanded to full LURD and replayed by :func:`sokoban.lurd.verify` before it is returned.
"""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Callable
from typing import Any

from sokoban.errors import SokobanError
from sokoban.level import Level
from sokoban.lurd import Solution, verify

__all__ = [
    "DEFAULT_MEMORY",
    "METHODS",
    "Limits",
    "Method",
    "SearchStats",
    "SolveResult",
    "Status",
    "register",
    "solve",
]

#: The memory budget when :class:`Limits` gives none: searches stop rather than swap.
DEFAULT_MEMORY = 2 << 30


@dataclasses.dataclass(frozen=True)
class Limits:
    """Where a search stops: seconds of wall time, expanded nodes, bytes of search memory.

    ``None`` means no limit (memory then defaults to :data:`DEFAULT_MEMORY`).
    """

    time: float | None = None
    nodes: int | None = None
    memory: int | None = None

    def __post_init__(self) -> None:
        for name in ("time", "nodes", "memory"):
            value = getattr(self, name)
            if value is not None and value < 0:
                raise SokobanError(f"limit {name}={value!r} is negative")


class Status(enum.Enum):
    """How a search ended."""

    SOLVED = "solved"
    UNSOLVABLE = "unsolvable"
    TIME_LIMIT = "time limit"
    NODE_LIMIT = "node limit"
    MEMORY_LIMIT = "memory limit"
    INVALID = "invalid"


@dataclasses.dataclass(frozen=True)
class SearchStats:
    """Effort of a search: nodes expanded, generated (children made, duplicates included),
    stored (distinct states kept), peak bytes of search arrays, wall-clock seconds."""

    expanded: int = 0
    generated: int = 0
    stored: int = 0
    peak_bytes: int = 0
    seconds: float = 0.0

    @property
    def nodes_per_second(self) -> float:
        return self.expanded / self.seconds if self.seconds > 0 else 0.0


@dataclasses.dataclass(frozen=True)
class SolveResult:
    """The outcome of :func:`solve`: a verified solution when solved, whether it is proven
    optimal for what the method optimises, statistics, and a one-line message."""

    status: Status
    solution: Solution | None
    method: str
    optimal: bool
    stats: SearchStats
    message: str = ""
    #: The start position's lower bound on pushes (-1 when the method computes none).
    lower_bound: int = -1

    @property
    def solved(self) -> bool:
        return self.status is Status.SOLVED


@dataclasses.dataclass(frozen=True)
class Method:
    """A registered search method: ``function(level, limits, **options) -> SolveResult``,
    what it is, what it minimises (``"pushes"``, ``"moves"`` or ``""``), and whether its
    solutions are proven optimal for that."""

    name: str
    function: Callable[..., SolveResult]
    description: str
    optimises: str
    optimal: bool


#: The search methods by name.
METHODS: dict[str, Method] = {}


def register(
    name: str, description: str, optimises: str = "", optimal: bool = False
) -> Callable[[Callable[..., SolveResult]], Callable[..., SolveResult]]:
    """Decorator adding a method to :data:`METHODS`.

    The function receives a valid, unsolved level, a :class:`Limits` and the options;
    :func:`solve` checks the level before and verifies the solution after.
    """

    def decorate(function: Callable[..., SolveResult]) -> Callable[..., SolveResult]:
        METHODS[name] = Method(name, function, description, optimises, optimal)
        return function

    return decorate


def solve(
    level: Level, method: str = "astar", limits: Limits | None = None, **options: Any
) -> SolveResult:
    """Solve ``level`` with a method of :data:`METHODS` within ``limits``.

    A level with problems (see :meth:`Level.problems`) gives :attr:`Status.INVALID`; an
    unknown method or option raises :class:`~sokoban.errors.SokobanError`. A returned
    solution has been replayed and ends solved; a solution that fails that is a bug and
    raises :class:`RuntimeError`.
    """
    spec = METHODS.get(method)
    if spec is None:
        raise SokobanError(f"unknown method {method!r}; choose from {', '.join(sorted(METHODS))}")
    limits = limits or Limits()
    problems = level.problems()
    if problems:
        return SolveResult(Status.INVALID, None, method, False, SearchStats(), "; ".join(problems))
    if level.is_solved:
        return SolveResult(
            Status.SOLVED, Solution(), method, spec.optimal, SearchStats(), "already solved", 0
        )
    result = spec.function(level, limits, **options)
    if result.solution is not None:
        try:
            replay = verify(level, result.solution)
        except SokobanError as error:
            raise RuntimeError(
                f"solver bug: {method} returned a wrong solution: {error}"
            ) from error
        result = dataclasses.replace(result, solution=replay.solution)
    return result


# Built-in methods register themselves on import.
from sokoban.solve import _methods  # noqa: E402, F401, I001
from sokoban.solve import _family  # noqa: E402, F401
