"""The solver pool on its own: the cache, shared running solves, the bound on slots, each
client's share and its turn, and recovery when a worker dies."""

from __future__ import annotations

import asyncio
import os
import signal
import time
from collections.abc import Iterator

import pytest

from sokoban import Level
from sokoban.web.services.pool import Busy, ShareUsed, SolverPool

CORRIDOR = Level.from_xsb("#######\n#@ $ .#\n#######")
OTHER = Level.from_xsb("#######\n#@$  .#\n#######")


@pytest.fixture(scope="module")
def pool() -> Iterator[SolverPool]:
    made = SolverPool(1, 1, cache=8, memory=256 << 20)
    made.start()
    yield made
    made.close()


def test_answers_are_cached_and_identical_running_solves_shared(pool: SolverPool) -> None:
    async def run() -> list[tuple[dict[str, object], bool]]:
        # Two identical requests at once: one solve, the second shares it.
        return list(await asyncio.gather(*(pool.solve(CORRIDOR, "astar", 3) for _ in range(2))))

    first, second = asyncio.run(run())
    assert first[0]["lurd"] == "rRR" and not first[1] and second[1]
    misses = pool.misses
    again, cached = asyncio.run(pool.solve(CORRIDOR, "astar", 3))
    assert cached and again == first[0] and pool.misses == misses
    assert asyncio.run(pool.solve(CORRIDOR, "astar", 4))[1] is False  # another time limit


def test_full_pool_refuses_at_once(pool: SolverPool) -> None:
    pool.pending = pool.capacity
    try:
        started = time.perf_counter()
        with pytest.raises(Busy) as refused:
            asyncio.run(pool.solve(OTHER, "bfs", 5))
        assert time.perf_counter() - started < 1 and refused.value.retry_after >= 1
    finally:
        pool.pending = 0


def test_a_killed_worker_restarts_the_pool(pool: SolverPool) -> None:
    assert pool._executor is not None
    for pid in list(pool._executor._processes):  # type: ignore[attr-defined]
        os.kill(pid, signal.SIGKILL)
    time.sleep(0.5)
    with pytest.raises(Busy, match="restarted|died"):
        asyncio.run(pool.solve(OTHER, "fast", 3))
    answer, _ = asyncio.run(pool.solve(OTHER, "fast", 3))
    assert answer["status"] == "solved" and pool.pending == 0


def test_one_client_cannot_take_every_slot(pool: SolverPool) -> None:
    pool.share, pool.held["greedy"] = 1, 1  # the greedy client holds its one slot
    try:
        with pytest.raises(ShareUsed) as refused:
            asyncio.run(pool.solve(OTHER, "bfs", 5, client="greedy"))
        assert refused.value.retry_after >= 1 and pool.pending == 0
        answer, _ = asyncio.run(pool.solve(OTHER, "bfs", 5, client="other"))  # a slot left
        assert answer["status"] == "solved" and "other" not in pool.held  # given back
    finally:
        pool.share = None
        pool.held.clear()


def test_waiting_solves_take_turns_by_client(pool: SolverPool) -> None:
    # One worker: the first solve runs, the rest wait. Client a asks three, then b one:
    # b's is served next (it has none in the workers, a has one), before a's second. a's
    # first runs to its time limit (an open room of five boxes), so that b is surely
    # waiting before the worker is free, however busy the machine.
    slow = (
        "#############\n#@          #\n# $ $ $ $ $ #\n#           #\n# . . . . . #\n#############"
    )
    boards = [slow] + [f"#########\n#@ {' ' * i}$ .#\n#########" for i in range(3)]
    done: list[str] = []

    async def ask(name: str, board: str, seconds: float = 5) -> None:
        await pool.solve(Level.from_xsb(board), "bfs", seconds, client=name)
        done.append(name)

    async def run() -> None:
        tasks = [asyncio.create_task(ask("a", boards[0], 1.0))]
        tasks += [asyncio.create_task(ask("a", b)) for b in boards[1:3]]
        for _ in range(400):  # a's three are asked first
            if pool.pending == 3:
                break
            await asyncio.sleep(0.005)
        tasks.append(asyncio.create_task(ask("b", boards[3])))
        await asyncio.gather(*tasks)

    capacity, pool.capacity = pool.capacity, 8
    try:
        asyncio.run(run())
    finally:
        pool.capacity = capacity
    assert done == ["a", "b", "a", "a"]
    assert pool.pending == 0 and pool.in_workers == 0 and not pool.held and not pool.working
