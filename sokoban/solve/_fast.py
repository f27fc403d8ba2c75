"""The method ``fast``: the portfolio of :mod:`sokoban.solve._portfolio`, several different
searches of the level by turns on one core, or dealt to ``threads`` cores.
"""

from __future__ import annotations

from typing import Any

from sokoban.level import Level
from sokoban.solve._options import FESS_DEADLOCK_OPTIONS, PACKED_WALLS_OPTION
from sokoban.solve._portfolio import MAX_THREADS, describe, portfolio
from sokoban.solve._tables import Tables
from sokoban.solve.types import Limits, Option, ProgressCallback, SolveResult, register

THREADS_OPTION = Option(
    "threads",
    int,
    1,
    "run the portfolio's searches side by side in this many threads (one per core)",
    minimum=1,
    maximum=MAX_THREADS,
)


@register(
    "fast",
    describe(),
    options=(*FESS_DEADLOCK_OPTIONS, PACKED_WALLS_OPTION, THREADS_OPTION),
)
def fast(
    level: Level,
    limits: Limits,
    progress: ProgressCallback | None,
    tables: Tables | None = None,
    **options: Any,
) -> SolveResult:
    """The portfolio's searches of ``level`` by turns (see the method's description);
    the deadlock options go to every search. The result names the search that ended it
    in its message. With ``threads`` > 1 the searches are dealt to that many threads
    (:func:`sokoban.solve._portfolio.race`)."""
    threads = options.pop("threads")
    return portfolio(level, limits, progress, options, tables, threads)
