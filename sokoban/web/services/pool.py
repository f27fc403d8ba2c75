"""The solver pool: worker processes with warm kernels, a bounded queue and a result cache.

A solve holds a slot from the moment it is asked until its worker answers; there are
``processes + queue`` slots, and a request that finds none is refused at once
(:class:`Busy`, a 503 with Retry-After) rather than queued without end. One client (an
address) holds at most ``share`` slots at once: past that its request is refused
(:class:`ShareUsed`, a 429 with Retry-After), so a burst from one client leaves slots for
the others' hints. Solves wait for a free worker in a fair queue: one line per client,
served in turn, so a client's second solve waits behind the others' first. Answers are kept
in a least-recently-used cache keyed by the canonical XSB of the position, the method and
the time limit; a request identical to one still running waits for that one.

Workers are started with ``spawn`` (a fork of a threaded server is unsafe) and their
initializer solves a tiny level and runs the deadlock check once, so that numba's kernels
are loaded before the first request (:meth:`SolverPool.start` waits for every worker).
"""

from __future__ import annotations

import asyncio
import collections
import concurrent.futures
import math
import multiprocessing
import time
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from sokoban.level import Level

#: The level every worker solves at start-up (and the server checks).
WARM_LEVEL = "#######\n#@ $ .#\n#.$   #\n#######"
#: Seconds a worker may overrun its time limit (building tables for a large board)
#: before the request is answered 503; the worker's slot stays taken until it ends.
GRACE = 30.0


class Busy(Exception):
    """Every solver slot is taken: try again in ``retry_after`` seconds."""

    def __init__(self, message: str, retry_after: int) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class ShareUsed(Busy):
    """The client holds its share of the slots: try again in ``retry_after`` seconds."""


def warm() -> None:
    """Load the kernels: a ``fast`` solve of a tiny level and one deadlock check."""
    from sokoban.solve import Limits, solve
    from sokoban.solve.check import check

    level = Level.from_xsb(WARM_LEVEL)
    solve(level, "fast", Limits(time=60))
    check(level)


def _ready() -> bool:
    # Holds its worker for a moment, so that each start-up task lands on its own process.
    time.sleep(0.2)
    return True


def solve_task(text: str, method: str, time_limit: float, memory: int) -> dict[str, Any]:
    """One solve in a worker: the answer as plain data (it crosses a process boundary)."""
    from sokoban.solve import Limits, solve

    level = Level.from_xsb(text)
    started = time.perf_counter()
    result = solve(level, method, Limits(time=time_limit, memory=memory))
    solution = result.solution
    return {
        "status": result.status.value,
        "lurd": solution.lurd() if solution is not None else None,
        "moves": solution.moves if solution is not None else None,
        "pushes": solution.pushes if solution is not None else None,
        "optimal": bool(result.optimal and result.solved),
        "seconds": round(time.perf_counter() - started, 4),
        "message": result.message,
        "method": method,
    }


Key = tuple[str, str, float]


class SolverPool:
    """``processes`` solver processes, ``queue`` more solves waiting, ``cache`` answers."""

    def __init__(
        self,
        processes: int,
        queue: int,
        cache: int,
        memory: int,
        warm: bool = True,
        share: int | None = None,
    ) -> None:
        self.processes = processes
        #: Slots one client may hold at once (all of them when ``None``).
        self.share = share
        self.capacity = processes + queue
        self.cache_size = cache
        self.memory = memory
        self.warm = warm
        self.pending = 0
        #: Slots held per client.
        self.held: collections.Counter[str] = collections.Counter()
        self._cache: collections.OrderedDict[Key, dict[str, Any]] = collections.OrderedDict()
        self._running: dict[Key, asyncio.Future[dict[str, Any]]] = {}
        #: Solves handed to the workers, and the solves waiting for one, by client.
        self.in_workers = 0
        #: Solves in the workers per client.
        self.working: collections.Counter[str] = collections.Counter()
        #: When each client with solves running or waiting was last given a worker.
        self._served: dict[str, int] = {}
        self._grants = 0
        self._waiting: collections.OrderedDict[str, collections.deque[asyncio.Future[None]]] = (
            collections.OrderedDict()
        )
        self._executor: concurrent.futures.ProcessPoolExecutor | None = None
        self.hits = 0
        self.misses = 0
        self._generation = 0

    def _new_executor(self) -> concurrent.futures.ProcessPoolExecutor:
        return concurrent.futures.ProcessPoolExecutor(
            self.processes,
            mp_context=multiprocessing.get_context("spawn"),
            initializer=warm if self.warm else None,
        )

    def start(self) -> None:
        """Start every worker and wait until each has loaded its kernels."""
        self._executor = self._new_executor()
        # Workers start on demand, one per task that finds none idle: one task per worker.
        futures = [self._executor.submit(_ready) for _ in range(self.processes)]
        for future in futures:
            future.result()

    def close(self) -> None:
        if self._executor is not None:
            self._executor.shutdown(wait=False, cancel_futures=True)
            self._executor = None

    def retry_after(self, time_limit: float) -> int:
        """Seconds until a slot is likely free: the queue ahead, solved in parallel."""
        return max(1, math.ceil(time_limit * self.pending / max(1, self.processes)))

    async def solve(
        self, level: Level, method: str, time_limit: float, client: str | None = None
    ) -> tuple[dict[str, Any], bool]:
        """Solve ``level`` (a valid level) in a worker; returns the answer and whether it came
        from the cache. Raises :class:`Busy` when every slot is taken, :class:`ShareUsed`
        when ``client`` holds its share of them."""
        key = (level.xsb(), method, float(time_limit))
        cached = self._cache.get(key)
        if cached is not None:
            self._cache.move_to_end(key)
            self.hits += 1
            return cached, True
        running = self._running.get(key)
        if running is not None:
            return await asyncio.shield(running), True
        if client is not None and self.share is not None and self.held[client] >= self.share:
            raise ShareUsed(
                f"this client has {self.held[client]} solves running or waiting (the most "
                "one client may have); try again when one has ended",
                self.retry_after(time_limit),
            )
        if self.pending >= self.capacity:
            raise Busy(
                f"all {self.capacity} solver slots are busy; try again shortly",
                self.retry_after(time_limit),
            )
        if self._executor is None:
            self._executor = self._new_executor()
        self.misses += 1
        loop = asyncio.get_running_loop()
        self.pending += 1
        if client is not None:
            self.held[client] += 1
        # A task of its own: an identical request waits for it too, and a request that
        # goes away does not stop the solve the others share (its answer is cached).
        task = loop.create_task(self._solve(key, client, self._generation))
        self._running[key] = task
        task.add_done_callback(lambda done: self._done(key, done))
        return await asyncio.shield(task), False

    def _done(self, key: Key, task: asyncio.Task[dict[str, Any]]) -> None:
        self._running.pop(key, None)
        if not task.cancelled():
            task.exception()  # retrieved, also when the request that asked has gone

    async def _solve(self, key: Key, client: str | None, generation: int) -> dict[str, Any]:
        """Wait for this client's turn, then solve in a worker (the slot is held)."""
        text, method, time_limit = key
        try:
            await self._turn("" if client is None else client)
        except BaseException:
            if generation == self._generation:
                self.pending -= 1
                self._let_go(client)
            raise
        loop = asyncio.get_running_loop()
        assert self._executor is not None
        try:
            work = self._executor.submit(solve_task, text, method, time_limit, self.memory)
        except BrokenProcessPool:
            self._restart()
            raise Busy("the solver pool restarted; try again", 1) from None
        work.add_done_callback(
            lambda _: loop.call_soon_threadsafe(self._release, generation, client)
        )
        answer: asyncio.Future[dict[str, Any]] = asyncio.wrap_future(work)
        try:
            result = await asyncio.wait_for(asyncio.shield(answer), time_limit + GRACE)
        except TimeoutError:
            raise Busy("the solver did not answer in time; try again", 5) from None
        except BrokenProcessPool:
            self._restart()
            raise Busy("a solver process died; try again", 1) from None
        self._cache[key] = result
        if len(self._cache) > self.cache_size:
            self._cache.popitem(last=False)
        return result

    async def _turn(self, client: str) -> None:
        """Return when a worker is free for this client: at once if one is and no one
        waits, else in turn (see :meth:`_next`)."""
        if self.in_workers < self.processes and not self._waiting:
            self._work(client, +1)
            return
        turn: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiting.setdefault(client, collections.deque()).append(turn)
        try:
            await turn
        except asyncio.CancelledError:
            if turn.done() and not turn.cancelled():  # given a worker, then cancelled
                self._work(client, -1)
                self._next()
            raise

    def _work(self, client: str, change: int) -> None:
        self.in_workers += change
        self.working[client] += change
        if change > 0:
            self._grants += 1
            self._served[client] = self._grants
        if self.working[client] <= 0:
            del self.working[client]
            if client not in self._waiting:
                self._served.pop(client, None)

    def _next(self) -> None:
        """Hand free workers to the waiting solves: first to the waiting client with the
        fewest solves in the workers, ties to the one given a worker least recently."""
        while self.in_workers < self.processes and self._waiting:
            client = min(
                self._waiting, key=lambda name: (self.working[name], self._served.get(name, 0))
            )
            line = self._waiting[client]
            turn = line.popleft()
            if not line:
                del self._waiting[client]
            if turn.done():  # cancelled while it waited
                if client not in self._waiting and not self.working[client]:
                    self._served.pop(client, None)
                continue
            self._work(client, +1)
            turn.set_result(None)

    def _release(self, generation: int, client: str | None) -> None:
        if generation == self._generation:  # slots of a pool since restarted are gone
            self.pending -= 1
            self._let_go(client)
            self._work("" if client is None else client, -1)
            self._next()

    def _let_go(self, client: str | None) -> None:
        if client is not None:
            self.held[client] -= 1
            if self.held[client] <= 0:
                del self.held[client]

    def _restart(self) -> None:
        old, self._executor = self._executor, None
        if old is not None:
            old.shutdown(wait=False, cancel_futures=True)
        self.pending = 0
        self.held.clear()
        self.in_workers = 0
        self.working.clear()
        self._served.clear()
        waiting, self._waiting = self._waiting, collections.OrderedDict()
        for line in waiting.values():
            for turn in line:
                if not turn.done():
                    turn.set_exception(Busy("the solver pool restarted; try again", 1))
        self._generation += 1
        self._executor = self._new_executor()
        for _ in range(self.processes):  # start and warm the new workers, without waiting
            self._executor.submit(_ready)
