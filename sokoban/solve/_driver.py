"""The one loop every search runs in: it hands the kernel a number of expansions that
takes about 50 ms (less near the time limit), checks the limits between calls, grows the
arrays when the kernel asks (within the memory limit), reports progress, and turns what
the search found into a :class:`~sokoban.solve.types.SolveResult`.

A search is an object with its arrays and a :meth:`Search.step` that calls its kernel
once; kernels answer with the codes below (a kernel may have more codes of its own,
which its object turns into these).
"""

from __future__ import annotations

import dataclasses
import time
from typing import Protocol

from sokoban.lurd import Solution
from sokoban.solve.types import (
    Limits,
    Progress,
    ProgressCallback,
    SearchStats,
    SolveResult,
    Status,
)

#: Kernel results: solved, no more positions, the budget of expansions used (call
#: again), the arrays are full (grow them, then call again).
SOLVED, EXHAUSTED, BUDGET, FULL = 1, 2, 3, 4
#: A search's own answer: the call ended early, but the search goes on (call again).
AGAIN = 0

LIMIT_STATUS = {
    "time": Status.TIME_LIMIT,
    "nodes": Status.NODE_LIMIT,
    "memory": Status.MEMORY_LIMIT,
    "stop": Status.TIME_LIMIT,
    "turn": Status.TIME_LIMIT,
}


def remaining(limits: Limits, spent: SearchStats) -> Limits:
    """What is left of ``limits`` after a search that took ``spent``: the time and the
    expansions used taken off; the memory limit and the stop event kept."""
    time_left = None if limits.time is None else max(0.0, limits.time - spent.seconds)
    nodes = None if limits.nodes is None else max(0, limits.nodes - spent.expanded)
    return dataclasses.replace(limits, time=time_left, nodes=nodes)


#: Expansions of the first kernel call; the driver adapts the budget from there.
FIRST_BUDGET = 256
#: Seconds a kernel call should take: progress and limits are seen about this often.
CALL_SECONDS = 0.05


class Search(Protocol):
    """What the driver needs of a search."""

    @property
    def expanded(self) -> int:
        """Nodes expanded so far."""

    @property
    def nbytes(self) -> int:
        """Bytes of the search's arrays now."""

    @property
    def exhausted(self) -> bool:
        """Whether there is nothing to search before the first call."""

    def step(self, budget: int) -> int:
        """Call the kernel for up to ``budget`` expansions: :data:`SOLVED`,
        :data:`EXHAUSTED`, :data:`BUDGET`, :data:`FULL` or :data:`AGAIN`."""

    def grow(self, code: int, memory: int) -> bool:
        """Grow what a :data:`FULL` (or the kernel's own code, passed on) asks for; False
        when that would take more than ``memory`` bytes."""


@dataclasses.dataclass(frozen=True)
class Run:
    """How a run of the driver ended: :data:`SOLVED`, :data:`EXHAUSTED`, or
    :data:`BUDGET` with the limit that stopped it (``"time"``, ``"nodes"``, ``"memory"``,
    ``"stop"``: :attr:`Limits.stop` was set; ``"turn"``: the CPU seconds of a turn were
    used, see :func:`drive`);
    its seconds and the most bytes the arrays took."""

    code: int
    limit: str
    seconds: float
    peak_bytes: int

    @property
    def solved(self) -> bool:
        return self.code == SOLVED and not self.limit

    @property
    def exhausted(self) -> bool:
        return self.code == EXHAUSTED and not self.limit


def drive(
    search: Search,
    limits: Limits,
    progress: ProgressCallback | None = None,
    turn: float | None = None,
) -> Run:
    """Run ``search`` until it is solved, exhausted, or a limit is reached; with ``turn``,
    also until this thread has used that many seconds of CPU time (a turn among searches
    that take turns: CPU time, unlike wall time, is the same on a busy machine)."""
    start = time.perf_counter()
    cpu = time.thread_time() if turn is not None else 0.0
    memory = limits.memory_bytes
    budget = FIRST_BUDGET
    code = EXHAUSTED if search.exhausted else BUDGET
    limit = "memory" if search.nbytes > memory else ""
    peak = search.nbytes
    while code not in (SOLVED, EXHAUSTED) and not limit:
        elapsed = time.perf_counter() - start
        if limits.time is not None and elapsed >= limits.time:
            limit = "time"
            break
        if limits.stop is not None and limits.stop.is_set():
            limit = "stop"
            break
        if turn is not None and time.thread_time() - cpu >= turn:
            limit = "turn"
            break
        expanded = search.expanded
        if limits.nodes is not None and expanded >= limits.nodes:
            limit = "nodes"
            break
        steps = budget if limits.nodes is None else min(budget, limits.nodes - expanded)
        t0 = time.perf_counter()
        code = search.step(steps)
        took = time.perf_counter() - t0
        if code not in (SOLVED, EXHAUSTED, BUDGET, AGAIN):
            if search.grow(code, memory):
                peak = max(peak, search.nbytes)
            else:
                limit = "memory"
            continue
        peak = max(peak, search.nbytes)
        if code == BUDGET and took > 0:
            target = CALL_SECONDS
            if limits.time is not None:
                target = min(target, max(0.002, (limits.time - (t0 - start) - took) / 4))
            if turn is not None:
                target = min(target, max(0.002, (turn - (time.thread_time() - cpu)) / 4))
            budget = int(min(max(16, budget * target / took), 4 * budget + 16))
        if progress is not None:
            seconds = time.perf_counter() - start
            progress(Progress(search.expanded, search.nbytes, seconds))
    return Run(code, limit, time.perf_counter() - start, peak)


class Found(Protocol):
    """What :func:`result` needs of a search that ran."""

    def stats(self, run: Run) -> SearchStats:
        """The effort of the run."""

    def solution(self) -> Solution:
        """The solution found (after a solved run)."""

    def solved_message(self, optimal: bool) -> str:
        """``"solved in ..."`` (after a solved run), saying whether it is optimal."""


def result(
    search: Found,
    run: Run,
    method: str,
    optimal: bool,
    lower_bound: int | None = None,
    exhausted: tuple[Status, str] = (Status.UNSOLVABLE, "no solution exists"),
) -> SolveResult:
    """The :class:`SolveResult` of a run: solved (``optimal`` says whether the method
    proves it), ``exhausted`` (what running out of positions means), or stopped."""
    stats = search.stats(run)
    if run.solved:
        solution = search.solution()
        message = search.solved_message(optimal)
        return SolveResult(Status.SOLVED, solution, method, optimal, stats, message, lower_bound)
    if run.exhausted:
        status, message = exhausted
        return SolveResult(status, None, method, False, stats, message, lower_bound)
    return stopped(method, run.limit, stats, lower_bound)


def stopped(
    method: str, limit: str, stats: SearchStats, lower_bound: int | None = None
) -> SolveResult:
    """The result of a search stopped by ``limit`` (``"time"``, ``"nodes"``, ``"memory"``,
    ``"stop"``)."""
    message = f"stopped by the {limit} limit"
    if limit == "stop":
        message = "stopped: another search ended first"
    return SolveResult(LIMIT_STATUS[limit], None, method, False, stats, message, lower_bound)


def unsolvable(method: str, stats: SearchStats | None = None) -> SolveResult:
    """The result of a search that proved the level has no solution."""
    return SolveResult(
        Status.UNSOLVABLE, None, method, False, stats or SearchStats(), "no solution exists"
    )
