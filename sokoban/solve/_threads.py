"""One level on several cores: the portfolio's searches run side by side in threads (the
kernels release the GIL), and the first to solve the level, or to prove it unsolvable,
stops the others through :attr:`Limits.stop` (seen between kernel calls).

Each thread runs a *lane*: stages one after the other (:mod:`sokoban.solve._stages`), as
``fast`` does in one thread. Each lane has its own arrays and its own learned deadlocks,
and an equal share of the memory limit; the tables built from the level alone are built
once and shared.
"""

from __future__ import annotations

import concurrent.futures
import dataclasses
import threading
import time
from typing import Any

from sokoban.level import Level
from sokoban.solve._stages import FINAL, Stage, run_stages
from sokoban.solve._tables import Tables
from sokoban.solve.types import Limits, ProgressCallback, SearchStats, SolveResult

#: The lanes, one per thread, taken in this order: ``fast``'s portfolio split in two (the
#: two keys of ``fess`` in two threads, greedy before one and A* after the other), then
#: A* and weighted A* on their own.
LANES: tuple[tuple[Stage, ...], ...] = (
    (
        Stage("greedy", {}, 0.1, budget=50_000),
        Stage("fess", {"key": "weight"}, 1.0, budget=300_000),
    ),
    (Stage("fess", {"key": "mixed"}, 0.75, budget=300_000), Stage("astar", {}, 1.0)),
    (Stage("astar", {}, 1.0),),
    (Stage("wastar", {}, 1.0),),
)
#: Threads used at most (one per lane).
MAX_THREADS = len(LANES)


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
    tables = Tables(level)  # built once, shared by the lanes
    stop = threading.Event()
    memory = limits.memory_bytes // len(lanes)
    shared = dataclasses.replace(limits, memory=memory, stop=stop)
    start = time.perf_counter()
    results: dict[int, SolveResult] = {}
    winner: int | None = None
    with concurrent.futures.ThreadPoolExecutor(len(lanes)) as pool:
        futures = {
            pool.submit(run_stages, level, lane, shared, progress, options, tables): i
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
