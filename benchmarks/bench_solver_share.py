"""The solver's fair share: one client floods the pool with 14 move-optimal solves (3 s
each), another then asks one hint; without a share and with the default share of 2.

    .venv/bin/python benchmarks/bench_solver_share.py

One solver process, a queue of 8; the flood is XSokoban's first 14 levels from
``../shared/levels/xsokoban.xsb`` beside the clone.
"""

import asyncio
import time
from pathlib import Path

from sokoban import Level, xsb
from sokoban.web.services.library import builtin_path
from sokoban.web.services.pool import Busy, SolverPool

levels = xsb.load(builtin_path()).levels
# XSokoban's first levels: move-optimal solves that run to their time limit.
SHARED = Path(__file__).resolve().parents[2] / "shared" / "levels"
heavy = xsb.load(SHARED / "xsokoban.xsb").levels[:14]
hint = levels[0]


async def run(pool: SolverPool, share: int | None) -> tuple[float, str, dict[str, float]]:
    pool.share = share
    outcomes: dict[str, float] = {}

    async def flood(level: Level) -> None:
        try:
            await pool.solve(level, "moves", 3, client="greedy")
            outcomes["solved"] = outcomes.get("solved", 0) + 1
        except Busy as error:
            kind = type(error).__name__
            outcomes[kind] = outcomes.get(kind, 0) + 1

    tasks = [asyncio.create_task(flood(lv)) for lv in heavy]
    await asyncio.sleep(0)
    started = time.perf_counter()
    try:
        await pool.solve(hint, "fast", 5, client="other")
        status = "answered"
    except Busy as error:
        status = f"{type(error).__name__}, Retry-After {error.retry_after}"
    waited = time.perf_counter() - started
    await asyncio.gather(*tasks)
    outcomes["flood seconds"] = round(time.perf_counter() - started, 1)
    return waited, status, outcomes


if __name__ == "__main__":
    for share in (None, 2):
        pool = SolverPool(1, 8, cache=0, memory=256 << 20)
        pool.start()
        waited, status, outcomes = asyncio.run(run(pool, share))
        pool.close()
        print(
            f"share={share}: the other client's hint {status} after {waited:.2f} s; "
            f"flood: {outcomes}"
        )
