"""The method ``fast``: greedy search, then the feature-space search, then A*, each in a
share of the limits."""

from __future__ import annotations

import dataclasses
from typing import Any

from sokoban.level import Level
from sokoban.solve._best_first import DEADLOCK_OPTIONS, astar, greedy
from sokoban.solve._fess import fess
from sokoban.solve._threads import MAX_THREADS, race
from sokoban.solve.types import (
    METHODS,
    Limits,
    Option,
    ProgressCallback,
    SearchStats,
    SolveResult,
    Status,
    check_options,
    register,
)

THREADS_OPTION = Option(
    "threads",
    int,
    1,
    "run the portfolio's searches side by side in this many threads (one per core)",
    minimum=1,
    maximum=MAX_THREADS,
)
#: The stages of ``fast``: each method with the share of the limits (time, else nodes) it
#: may have used by its end, and its node budget when there are no limits at all. Greedy
#: search settles most levels in milliseconds, the feature-space search the ones whose
#: goals must be packed in order, and A* the small tricky ones both miss.
FAST_STAGES = (("greedy", 0.1, 50_000), ("fess", 0.75, 300_000), ("astar", 1.0, None))


@register(
    "fast",
    "greedy, then the feature-space search, then A*: the widest net at a limit",
    options=(*DEADLOCK_OPTIONS, THREADS_OPTION),
)
def fast(
    level: Level, limits: Limits, progress: ProgressCallback | None, **options: Any
) -> SolveResult:
    """Greedy search for a tenth of the time limit, the feature-space search
    (:func:`~sokoban.solve._fess.fess`) up to three quarters of it, then push-optimal A*
    for the rest (see :data:`FAST_STAGES`): the methods fail on different levels. The
    result names the stage that ended it in its message; it is optimal when A* found it.
    The deadlock options go to every stage that takes them. With ``threads`` > 1 the
    stages run side by side instead (:func:`sokoban.solve._threads.race`)."""
    if options["threads"] > 1:
        return race(level, limits, progress, options.pop("threads"), "fast", **options)
    stages = {"greedy": greedy, "fess": fess, "astar": astar}
    spent = SearchStats()
    for name, share, budget in FAST_STAGES:
        if limits.time is not None:
            nodes = None if limits.nodes is None else max(0, limits.nodes - spent.expanded)
            stage = Limits(max(0.0, limits.time * share - spent.seconds), nodes, limits.memory)
        elif limits.nodes is not None:
            stage = Limits(None, max(0, int(limits.nodes * share) - spent.expanded), limits.memory)
        else:
            stage = Limits(None, budget, limits.memory)
        taken = {option.name for option in METHODS[name].options}
        extra = {key: value for key, value in options.items() if key in taken}
        result = stages[name](level, stage, progress, **check_options(METHODS[name], extra))
        spent = spent + result.stats
        if result.status in (Status.SOLVED, Status.UNSOLVABLE, Status.MEMORY_LIMIT):
            break
    return dataclasses.replace(
        result, method="fast", stats=spent, message=f"{name}: {result.message}"
    )
