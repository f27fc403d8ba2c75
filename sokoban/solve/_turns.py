"""Searches of one level by turns on one core: each keeps its tree between turns and gets
slices of CPU time that grow from a tenth of a second, until one of them solves the level
or proves it unsolvable, or the limits (shared: total time, total expansions) are spent.
The feature-space search runs its keys this way, and the portfolio of ``fast`` its
searches (:mod:`sokoban.solve._portfolio`).

Turns are slices of CPU time, not of expansions: the searches' expansions differ in cost,
and each search should get an equal share of the core; CPU time, unlike wall time, stays
the same on a busy machine. A search that runs out of positions ends the turns when that
proves the level unsolvable (its pruning is sound), and otherwise leaves them; a search
that outgrows its share of the memory leaves them too. The memory limit is shared among
the searches still taking turns: what the searches that left still hold is taken off, and
the rest is split equally, so a search that leaves hands its share on. Under a limit of
expansions, a turn takes at most an equal part of the expansions left, so that every
search gets its turn then too.

Some searches take only their first turns: greedy search settles the levels it settles
within them, and later turns are better spent on the others. It takes turns again should
every other search leave. Some searches join late: they settle levels the others miss,
but as one more search from the start they take time from the levels the others settle
within seconds. They join at the first round of the longest turns, once the level has
shown itself hard, and only when no search running holds more than the smaller share of
memory they leave. Spare searches wait too, but join sooner: each in the place of a
search that retires or leaves, so that the number of searches sharing the core stays the
same.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable
from typing import Any

from sokoban.lurd import Solution
from sokoban.solve import _driver
from sokoban.solve._driver import BUDGET, EXHAUSTED, SOLVED
from sokoban.solve._path import expand
from sokoban.solve._store import GENERATED, NODES
from sokoban.solve.types import Limits, Progress, ProgressCallback, SearchStats

#: The first turn's CPU seconds, how much each round of turns grows, and the longest turn.
FIRST_TURN, TURN_GROWTH, LONGEST_TURN = 0.1, 1.5, 2.0


@dataclasses.dataclass
class Entrant:
    """A search that takes turns: its label (for the result's message), the search (run
    by :func:`sokoban.solve._driver.drive`, with ``board``, ``counters``, ``path()`` and
    ``cost``), or what makes it at its first turn (a level settled before that turn needs
    none of its set-up); whether running out of positions proves the level unsolvable,
    whether its solutions are optimal, whether it joins late, or as a spare (in the place
    of a search that retires or leaves, or late, whichever comes first); the most turns
    it takes while others still take theirs (see the module); the turns it has taken."""

    label: str
    search: Any = None
    proves: bool = False
    optimal: bool = False
    peak: int = 0
    make: Callable[[], Any] | None = None
    late: bool = False
    spare: bool = False
    most_turns: int | None = None
    turns: int = 0

    def made(self) -> Any:
        """The search, made now if it was not yet."""
        if self.search is None:
            assert self.make is not None, f"{self.label}: neither a search nor its maker"
            self.search = self.make()
        return self.search

    @property
    def expanded(self) -> int:
        return 0 if self.search is None else int(self.search.expanded)

    @property
    def nbytes(self) -> int:
        return 0 if self.search is None else int(self.search.nbytes)

    def counter(self, index: int) -> int:
        return 0 if self.search is None else int(self.search.counters[index])


@dataclasses.dataclass
class Turns:
    """What :func:`take_turns` found: how it ended, the entrant that ended it (the last to
    run when none did), and every entrant; the :class:`~sokoban.solve._driver.Found` of
    the result."""

    run: _driver.Run
    last: Entrant
    entrants: list[Entrant]

    @property
    def expanded(self) -> int:
        return sum(e.expanded for e in self.entrants)

    @property
    def generated(self) -> int:
        return sum(e.counter(GENERATED) for e in self.entrants)

    @property
    def solved(self) -> bool:
        return self.run.solved

    def stats(self, run: _driver.Run) -> SearchStats:
        return SearchStats(
            self.expanded,
            self.generated,
            sum(e.counter(NODES) for e in self.entrants),
            sum(e.peak for e in self.entrants),
            run.seconds,
        )

    def solution(self) -> Solution:
        return expand(self.last.search.board, self.last.search.path())

    def solved_message(self, optimal: bool) -> str:
        cost = self.last.search.cost
        return f"solved in {cost} push{'es' if cost != 1 else ''}" + (
            " (optimal)" if optimal else ""
        )


def memory_share(
    entrants: list[Entrant], live: list[Entrant], limits: Limits, joining: int = 0
) -> int:
    """The bytes each search still taking turns (``live``, of ``entrants``, and
    ``joining`` more) may hold: the memory limit less what the searches that left still
    hold, split equally."""
    running = {id(e) for e in live}
    held = sum(e.nbytes for e in entrants if id(e) not in running)
    return max(0, limits.memory_bytes - held) // max(1, len(live) + joining)


def room_to_join(entrants: list[Entrant], live: list[Entrant], limits: Limits) -> bool:
    """Whether one more search can join ``live`` with no search running holding more
    than its share would then be."""
    share = memory_share(entrants, live, limits, joining=1)
    return all(e.nbytes <= share for e in live)


def take_turns(
    entrants: list[Entrant], limits: Limits, progress: ProgressCallback | None = None
) -> Turns:
    """Run ``entrants`` by turns within ``limits`` (see the module), each in an equal share
    of the memory the searches that left do not hold; the late ones join at the first
    round of the longest turns that has room for them, the spares then too, or sooner,
    each in the place of a search that retires or leaves. The run is solved when one solved
    the level; exhausted when one that proves it ran out of positions, or when every one
    left without a solution; else stopped by the limit that ended it."""
    start = time.perf_counter()
    live = [e for e in entrants if not (e.late or e.spare)]
    waiting = [e for e in entrants if e.late or e.spare]
    retired: list[Entrant] = []
    turn = FIRST_TURN
    last: Entrant | None = None
    code, limit = BUDGET, ""

    def fill_place() -> None:
        """A spare joins in the place that a search leaving ``live`` has freed."""
        spare = next((e for e in waiting if e.spare), None)
        if spare is not None and room_to_join(entrants, live, limits):
            waiting.remove(spare)
            live.append(spare)  # its first turn comes in the next round

    def report(seen: Progress) -> None:
        if progress is not None:
            total = sum(e.expanded for e in entrants)
            progress(seen._replace(expanded=total, seconds=time.perf_counter() - start))

    while live and not (code in (SOLVED, EXHAUSTED) and not limit):
        while waiting and turn >= LONGEST_TURN and room_to_join(entrants, live, limits):
            live.append(waiting.pop(0))
        for entrant in list(live):
            search = entrant.made()
            time_left = None
            if limits.time is not None:
                time_left = limits.time - (time.perf_counter() - start)
                if time_left <= 0:
                    limit = "time"
                    break
            nodes = None
            if limits.nodes is not None:
                left = limits.nodes - sum(e.expanded for e in entrants)
                if left <= 0:
                    limit = "nodes"
                    break
                # A turn takes an equal part of the expansions left, as of the time.
                nodes = search.expanded + max(1, left // len(live))
            # The limits as given (their stop flag too), the time left, nodes and memory.
            given = dataclasses.replace(
                limits, time=time_left, nodes=nodes, memory=memory_share(entrants, live, limits)
            )
            run = _driver.drive(search, given, report, turn=turn)
            entrant.peak = max(entrant.peak, run.peak_bytes)
            last = entrant
            if run.solved:
                code, limit = SOLVED, ""
                break
            if run.exhausted:
                live.remove(entrant)
                if entrant.proves:
                    code, limit = EXHAUSTED, ""
                    break
                fill_place()
                continue
            if run.limit == "memory":
                live.remove(entrant)
                limit = "memory"
                fill_place()
                continue
            spent_all = limits.nodes is not None and (
                sum(e.expanded for e in entrants) >= limits.nodes
            )
            if run.limit in ("stop", "time") or (run.limit == "nodes" and spent_all):
                limit = run.limit
                break
            limit = ""
            entrant.turns += 1
            if entrant.most_turns is not None and entrant.turns >= entrant.most_turns:
                live.remove(entrant)
                retired.append(entrant)
                fill_place()
        else:
            turn = min(LONGEST_TURN, turn * TURN_GROWTH)
            if not live and retired:
                live, retired = retired, []  # no other search is left to take the time
                continue
            if not live and limit != "memory":
                code = EXHAUSTED  # every entrant ran out of positions, none with a proof
            continue
        break
    if last is None:  # the limits were spent before the first turn
        last = entrants[0]
        limit = limit or "time"
    seconds = time.perf_counter() - start
    return Turns(_driver.Run(code if not limit else BUDGET, limit, seconds, 0), last, entrants)
