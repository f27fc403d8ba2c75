"""The method ``fast``: greedy search, then the feature-space search, then A*, each in a
share of the limits."""

from __future__ import annotations

import dataclasses
from typing import Any

from sokoban.level import Level
from sokoban.solve._best_first import astar, greedy
from sokoban.solve._fess import fess
from sokoban.solve._options import FESS_DEADLOCK_OPTIONS, PACKED_WALLS_OPTION
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
#: may have used by its end, the seconds it may have used by then at least (within the
#: time limit), its node budget when there are no limits at all, its cap on
#: expansions whatever the limits (``None``: none), and its options (the deadlock options
#: of ``fast``, corral deadlocks with the fence's neighbours on by default as for
#: ``fess``, go to every stage). Greedy search settles most levels in milliseconds, the
#: feature-space search the ones whose goals must be packed in order, and A* the small
#: tricky ones both miss. The heuristic packed-walls test is off here: on small levels it
#: costs more than it saves (Microban II 126: 2.3 s with it, 1.4 s without).
Stage = tuple[str, float, float, int | None, int | None, dict[str, Any]]
#: What a box out of the packing order's plan adds to greedy search's key in the first
#: half of its time on small levels (Microban 139 0.65 s -> 0.25 s, 93 0.62 s -> 0.37 s);
#: the plain key follows, as open goal areas make the plan arbitrary (XSokoban 43: 0.4 s
#: plain, not within 3 s with it).
GREEDY_PLAN = 3
#: On small levels the first stages end by their caps on expansions, well before their
#: shares of a time limit (a second of 10 s holds 50,000 greedy expansions at less than
#: half the speed of a quiet core here), so that a level is solved by the same stage on
#: a busy machine as on a quiet one: Microban 93, solved by greedy search in 0.4 s of a
#: 0.5 s share, was lost whenever the machine was busy. After greedy search, a short
#: look by the feature-space search with the keys that settle in a few thousand
#: expansions some levels greedy search drowns in (Microban II 120: 5,700 expansions,
#: greedy search past 50,000; XSokoban 6, 38, 43 and 86), then the full one. Greedy
#: search with the plain key comes after it: on Microban, Microban II and the small
#: XSokoban levels it solved none that the stages before it miss, and it cost Microban
#: 153 50,000 expansions (0.5 s) before the feature-space search that solves it. The full
#: feature-space search runs the weight key alone here, not fess's two keys by turns: on
#: these levels the mixed key's turns mostly delay it (Microban 153: 64,510 expansions
#: alone, 116,242 by turns; Microban 4.0 -> 3.1 s, Microban II 29.5 -> 28.5 s), and
#: XSokoban 44 is solved in 32 s, lost at 60 s by turns.
FAST_STAGES: tuple[Stage, ...] = (
    ("greedy", 0.1, 0.0, 50_000, 50_000, {"plan": GREEDY_PLAN}),
    ("fess", 0.15, 0.0, 8_000, 8_000, {"packed_walls": "off", "key": "features,bound"}),
    ("fess", 0.6, 0.0, 300_000, None, {"packed_walls": "off", "key": "weight"}),
    ("greedy", 0.7, 0.0, 50_000, 100_000, {}),
    ("astar", 1.0, 0.0, None, None, {}),
)
#: Expansions of the feature-space search's first look at a level with many boxes: it
#: solves some of them (Microban 146, 12 boxes) in a hundred, where greedy search drowns.
FESS_PROBE = 300
#: Expansions of the feature-space search by the features key alone (a move costs 1
#: unless it improves a feature, the bound ignored) on a level with many boxes: at 15 s
#: alone it solves 8 XSokoban levels the other stages miss (19, 61 and 70 in under 500
#: expansions, 48 2,460, 71 12,902, 25 36,760, 13 76,826, 36 92,210; benchmarks/solver.md,
#: session 12), where the full search's keys drown; and 39 in 173,534 with the packing
#: order's parking steps (session 13).
FESS_FEATURES = 200_000
#: Then a short one by the features key without the packed-walls test, which prunes
#: the way to some solutions (XSokoban 52: 12,071 expansions without it or with the
#: prefix variant, not within 15 s with the default chain variant; and the other way
#: round on 36: 92,210 expansions with the chain variant, 265,825 with the prefix one).
FESS_FEATURES_OPEN = 30_000
FEATURES_OPEN = {"key": "features", "packed_walls": "off"}
#: The stages on levels with more than :data:`FAST_ASTAR_BOXES` boxes: a short look by
#: the feature-space search; greedy search, which settles the ones it solves there in
#: 130,000 expansions (7% of the limit at most; XSokoban 72 in 123,127: a run is the same in
#: expansions on any machine, but took 2.4-3.6 s here, so a time share of 0.04 missed it
#: whenever the machine was busy and the last stage solved it at 49 s), 0.6 s at least
#: (Microban 144 needs 20,640 expansions, 0.3-0.4 s on a quiet core; a whole second
#: cost the Microban II levels fess solves after it 0.3-0.8 s each); the feature-space
#: search by the features key alone (:data:`FESS_FEATURES` expansions, 30% of the limit
#: at most), then without the packed-walls test (:data:`FESS_FEATURES_OPEN`); the
#: feature-space search with its own keys up to 75% of the limit
#: (XSokoban 45 needs 21 s of it at 60 s since session 11's faster nodes, 42 s before,
#: when it was lost at 75%; 35, solved by the last stage in about 4 s, ended at 53 s
#: with 82%); A* finds nothing there in a quarter of the limit, while
#: the feature-space search without packing macros solves levels the one with them
#: misses (XSokoban 35, in about 7 s; see benchmarks/solver.md); it runs without the
#: heuristic packed-walls test, which loses levels the plain search solves (XSokoban 35
#: and 44).
FAST_STAGES_BIG: tuple[Stage, ...] = (
    ("fess", 0.01, 0.3, FESS_PROBE, FESS_PROBE, {}),
    ("greedy", 0.07, 0.6, 50_000, 130_000, {}),
    ("fess", 0.3, 0.0, FESS_FEATURES, FESS_FEATURES, {"key": "features"}),
    ("fess", 0.32, 0.0, FESS_FEATURES_OPEN, FESS_FEATURES_OPEN, FEATURES_OPEN),
    ("fess", 0.75, 0.0, 300_000, None, {}),
    ("fess", 1.0, 0.0, None, None, {"macros": False, "packed_walls": "off"}),
)
FAST_ASTAR_BOXES = 10


@register(
    "fast",
    "greedy, a short fess, fess, greedy without the plan penalty, then A* (above 10 boxes:"
    " a short fess, greedy, fess by features (then without packed walls), fess, fess without"
    " macros)",
    options=(*FESS_DEADLOCK_OPTIONS, PACKED_WALLS_OPTION, THREADS_OPTION),
)
def fast(
    level: Level, limits: Limits, progress: ProgressCallback | None, **options: Any
) -> SolveResult:
    """Greedy search with the plan penalty (50,000 expansions at most), a short look by
    the feature-space search (:func:`~sokoban.solve._fess.fess`, 8,000), the full one up
    to 60% of the time limit, greedy search with the plain key, then push-optimal A* for
    the rest (see :data:`FAST_STAGES`); on levels with many boxes a short look by the
    feature-space search first, greedy search (130,000 expansions, 0.6 s at least), the
    feature-space search by the features key alone (200,000 expansions; 30,000 more
    without the packed-walls test), with its own keys up to 75% of the limit, and the
    feature-space search without packing macros instead of A* (:data:`FAST_STAGES_BIG`):
    the methods fail on different levels. The result names the stage that ended it in its
    message; it is optimal when A* found it. The deadlock options go to every stage that
    takes them.
    With ``threads`` > 1 the stages run side by side instead
    (:func:`sokoban.solve._threads.race`)."""
    if options["threads"] > 1:
        return race(level, limits, progress, options.pop("threads"), "fast", **options)
    methods = {"greedy": greedy, "fess": fess, "astar": astar}
    stages = FAST_STAGES if len(level.boxes) <= FAST_ASTAR_BOXES else FAST_STAGES_BIG
    spent = SearchStats()
    for name, share, floor, budget, cap, fixed in stages:
        if limits.time is not None:
            nodes = None if limits.nodes is None else max(0, limits.nodes - spent.expanded)
            end = min(limits.time, max(limits.time * share, floor))
            stage = Limits(max(0.0, end - spent.seconds), nodes, limits.memory)
        elif limits.nodes is not None:
            stage = Limits(None, max(0, int(limits.nodes * share) - spent.expanded), limits.memory)
        else:
            stage = Limits(None, budget, limits.memory)
        if cap is not None:
            stage = dataclasses.replace(
                stage, nodes=cap if stage.nodes is None else min(cap, stage.nodes)
            )
        taken = {option.name for option in METHODS[name].options}
        extra = {key: value for key, value in options.items() if key in taken} | fixed
        result = methods[name](level, stage, progress, **check_options(METHODS[name], extra))
        spent = spent + result.stats
        if result.status in (Status.SOLVED, Status.UNSOLVABLE, Status.MEMORY_LIMIT):
            break
    return dataclasses.replace(
        result, method="fast", stats=spent, message=f"{name}: {result.message}"
    )
