"""One level on several cores: the portfolio's searches run side by side in threads (the
kernels release the GIL), and the first to solve the level, or to prove it unsolvable,
stops the others through :attr:`Limits.stop` (seen between kernel calls).

Each thread runs a *lane*: stages one after the other, each a method with options and
the share of the time limit it may have used by its end, as ``fast`` does in one
thread. Each lane has its own arrays and its own learned deadlocks, and an equal share of
the memory limit.
"""

from __future__ import annotations

import concurrent.futures
import dataclasses
import threading
import time
from typing import Any

from sokoban.level import Level
from sokoban.solve.types import (
    METHODS,
    Limits,
    ProgressCallback,
    SearchStats,
    SolveResult,
    Status,
    check_options,
)

#: A stage: method, its options, the share of the time (else node) limit it may have
#: used by its end, its node budget when there are no limits.
Stage = tuple[str, dict[str, Any], float, int | None]
#: The lanes, one per thread, taken in this order: ``fast``'s portfolio split in two (the
#: two keys of ``fess`` in two threads, greedy before one and A* after the other), then
#: A* and weighted A* on their own.
LANES: tuple[tuple[Stage, ...], ...] = (
    (("greedy", {}, 0.1, 50_000), ("fess", {"key": "weight"}, 1.0, 300_000)),
    (("fess", {"key": "mixed"}, 0.75, 300_000), ("astar", {}, 1.0, None)),
    (("astar", {}, 1.0, None),),
    (("wastar", {}, 1.0, None),),
)
#: Threads used at most (one per lane).
MAX_THREADS = len(LANES)
#: Ends of a search that settle the level.
FINAL = (Status.SOLVED, Status.UNSOLVABLE)


def run_lane(
    level: Level,
    stages: tuple[Stage, ...],
    limits: Limits,
    progress: ProgressCallback | None,
    options: dict[str, Any],
) -> SolveResult:
    """Run ``stages`` one after the other within ``limits`` until one settles the level;
    ``options`` (such as the deadlock options) go to every method that takes them. The
    result's message names the stage that ended it."""
    spent = SearchStats()
    result: SolveResult | None = None
    name = stages[0][0]
    for name, own, share, budget in stages:
        if limits.time is not None:
            nodes = None if limits.nodes is None else max(0, limits.nodes - spent.expanded)
            left = max(0.0, limits.time * share - spent.seconds)
            stage = dataclasses.replace(limits, time=left, nodes=nodes)
        elif limits.nodes is not None:
            stage = dataclasses.replace(
                limits, nodes=max(0, int(limits.nodes * share) - spent.expanded)
            )
        else:
            stage = dataclasses.replace(limits, nodes=budget)
        method = METHODS[name]
        taken = {option.name for option in method.options}
        given = {k: v for k, v in options.items() if k in taken} | own
        result = method.function(level, stage, progress, **check_options(method, given))
        spent = spent + result.stats
        if result.status in (*FINAL, Status.MEMORY_LIMIT):
            break
        if limits.stop is not None and limits.stop.is_set():
            break
    assert result is not None
    label = name if name != "fess" else f"fess {own['key']}"
    return dataclasses.replace(result, stats=spent, message=f"{label}: {result.message}")


def race(
    level: Level,
    limits: Limits,
    progress: ProgressCallback | None,
    threads: int,
    method: str,
    **options: Any,
) -> SolveResult:
    """Run the first ``threads`` lanes of :data:`LANES` side by side; the first to settle
    the level stops the others. The result is that lane's, its message saying which
    thread and stage found it; its statistics sum every lane's work, its seconds are the
    wall time. When none settles it, the result is the first lane's."""
    lanes = LANES[: max(1, min(threads, MAX_THREADS))]
    stop = threading.Event()
    memory = limits.memory_bytes // len(lanes)
    shared = dataclasses.replace(limits, memory=memory, stop=stop)
    start = time.perf_counter()
    results: dict[int, SolveResult] = {}
    winner: int | None = None
    with concurrent.futures.ThreadPoolExecutor(len(lanes)) as pool:
        futures = {
            pool.submit(run_lane, level, lane, shared, progress, options): i
            for i, lane in enumerate(lanes)
        }
        try:
            for future in concurrent.futures.as_completed(futures):
                i = futures[future]
                results[i] = future.result()
                if winner is None and results[i].status in FINAL:
                    winner = i
                    stop.set()
        finally:
            stop.set()  # an error in one lane stops the others too
    seconds = time.perf_counter() - start
    total = SearchStats()
    for result in results.values():
        total = total + result.stats
    total = dataclasses.replace(total, seconds=seconds)
    chosen = results[winner if winner is not None else 0]
    thread = f"thread {winner + 1} of {len(lanes)}, " if winner is not None else ""
    return dataclasses.replace(
        chosen, method=method, stats=total, message=f"{thread}{chosen.message}"
    )
