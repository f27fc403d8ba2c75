"""The method ``fast``: a chain of stages (:mod:`sokoban.solve._stages`), greedy search
and the feature-space search in several forms, each within a share of the limits; the
methods fail on different levels, so each stage tries what the stages before it missed.
With ``threads`` > 1 the searches run side by side instead (:mod:`sokoban.solve._threads`).
"""

from __future__ import annotations

from typing import Any

from sokoban.level import Level
from sokoban.solve._options import FESS_DEADLOCK_OPTIONS, PACKED_WALLS_OPTION
from sokoban.solve._portfolio import portfolio
from sokoban.solve._stages import Stage, run_stages
from sokoban.solve._tables import Tables
from sokoban.solve._threads import MAX_THREADS, race
from sokoban.solve.types import Limits, Option, ProgressCallback, SolveResult, register

THREADS_OPTION = Option(
    "threads",
    int,
    1,
    "run the portfolio's searches side by side in this many threads (one per core)",
    minimum=1,
    maximum=MAX_THREADS,
)
#: What a box out of the packing order's plan adds to greedy search's key in its first
#: stage on small levels; the plain key follows later, as open goal areas make any plan
#: arbitrary.
GREEDY_PLAN = 3
PORTFOLIO = True
#: Levels with more boxes than this take :data:`FAST_STAGES_BIG`.
FAST_ASTAR_BOXES = 10
#: The stages on small levels. The first two end by caps on expansions well before their
#: shares of a time limit, so that a level is solved by the same stage on a busy machine
#: as on a quiet one: greedy search with the plan penalty; a short look by the
#: feature-space search with the keys that settle in a few thousand expansions some
#: levels greedy search drowns in; the full feature-space search by the weight key
#: alone; greedy search with the plain key; then push-optimal A* for the small tricky
#: levels the others miss. The heuristic packed-walls test is off here: on small levels
#: it costs more than it saves.
FAST_STAGES: tuple[Stage, ...] = (
    Stage("greedy", {"plan": GREEDY_PLAN}, 0.1, budget=50_000, cap=50_000),
    Stage("fess", {"packed_walls": "off", "key": "features,bound"}, 0.15, budget=8_000, cap=8_000),
    Stage("fess", {"packed_walls": "off", "key": "weight"}, 0.6, budget=300_000),
    Stage("greedy", {}, 0.7, budget=50_000, cap=100_000),
    Stage("astar", {}, 1.0),
)
#: The stages on levels with many boxes, where A* finds nothing: a short look by the
#: feature-space search, which settles some levels in a few hundred expansions; greedy
#: search, capped in expansions (with a floor of time, so a slow start does not cut it
#: short); the feature-space search by the features key alone (a move costs one unless
#: it improves a feature, the bound ignored), then briefly without the packed-walls test,
#: which prunes the way to some solutions; the feature-space search with its own keys;
#: and last without packing macros or the packed-walls test, which solves levels the
#: searches with them miss.
FAST_STAGES_BIG: tuple[Stage, ...] = (
    Stage("fess", {}, 0.01, floor=0.3, budget=300, cap=300),
    Stage("greedy", {}, 0.07, floor=0.6, budget=50_000, cap=130_000),
    Stage("fess", {"key": "features"}, 0.3, budget=200_000, cap=200_000),
    Stage("fess", {"key": "features", "packed_walls": "off"}, 0.32, budget=30_000, cap=30_000),
    Stage("fess", {}, 0.75, budget=300_000),
    Stage("fess", {"macros": False, "packed_walls": "off"}, 1.0),
)


def describe(stages: tuple[Stage, ...]) -> str:
    """The stages in a few words, in order."""
    return ", then ".join(stage.describe() for stage in stages)


@register(
    "fast",
    f"{describe(FAST_STAGES)}; above {FAST_ASTAR_BOXES} boxes: {describe(FAST_STAGES_BIG)}",
    options=(*FESS_DEADLOCK_OPTIONS, PACKED_WALLS_OPTION, THREADS_OPTION),
)
def fast(
    level: Level,
    limits: Limits,
    progress: ProgressCallback | None,
    tables: Tables | None = None,
    **options: Any,
) -> SolveResult:
    """The stages of :data:`FAST_STAGES`, or :data:`FAST_STAGES_BIG` on levels with more
    than :data:`FAST_ASTAR_BOXES` boxes, one after the other (see the method's
    description); the deadlock options go to every stage that takes them. The result
    names the stage that ended it in its message; it is optimal when A* found it. With
    ``threads`` > 1 the searches run side by side instead
    (:func:`sokoban.solve._threads.race`)."""
    threads = options.pop("threads")
    if PORTFOLIO:
        return portfolio(level, limits, progress, options, tables, threads)
    if threads > 1:
        return race(level, limits, progress, threads, "fast", **options)
    stages = FAST_STAGES if len(level.boxes) <= FAST_ASTAR_BOXES else FAST_STAGES_BIG
    return run_stages(level, stages, limits, progress, options, tables, method="fast")
