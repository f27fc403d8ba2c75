"""The portfolio behind ``fast``: several different searches of one level, each with its
own tree, taking turns on one core (:mod:`sokoban.solve._turns`); the first to solve the
level, or to prove it unsolvable, ends them all. With ``threads`` > 1 the same searches
are dealt to that many threads, each thread taking its share by turns.

The searches fail on different levels: greedy search settles most levels in
milliseconds; the backward search, pulling boxes from the solved positions, settles
others and proves levels unsolvable; the feature-space search by its keys settles the
ones whose goals must be packed in order, each key a few that the others miss. They
share what the level alone decides (the board, the two-box table, the packing plans:
:class:`~sokoban.solve._tables.Tables`) and the deadlock patterns the corral
sub-searches prove (a proof holds for every search).
"""

from __future__ import annotations

import concurrent.futures
import dataclasses
import functools
import threading
import time
from collections.abc import Mapping
from typing import Any, NamedTuple

from sokoban.level import Level
from sokoban.solve import _driver
from sokoban.solve._best_first import Search
from sokoban.solve._board import INF
from sokoban.solve._corral_deadlock import Learned, new_learned, no_learned
from sokoban.solve._deadlock_sets import sets_entrants
from sokoban.solve._fess import FESS_KEYS, MACRO_BOXES, Fess
from sokoban.solve._pull_search import PullSearch
from sokoban.solve._tables import Tables
from sokoban.solve._turns import Entrant, Turns, take_turns
from sokoban.solve.check import check_start
from sokoban.solve.types import Limits, ProgressCallback, SearchStats, SolveResult, Status

#: Levels with more boxes than this take the bigger portfolio.
SMALL_BOXES = 10


class Entry(NamedTuple):
    """A search of the portfolio: ``greedy``, ``fess`` or ``astar``, and its settings
    (``plan``: greedy's penalty per box out of plan; ``key``, ``macros``,
    ``packed_walls``, ``tunnels``, ``rooms`` for fess)."""

    method: str
    settings: Mapping[str, Any] = {}

    @property
    def label(self) -> str:
        shown = " ".join(f"{k}={v}" for k, v in self.settings.items() if k != "key")
        key = self.settings.get("key")
        name = f"{self.method} {key}" if key else self.method
        return f"{name} ({shown})" if shown else name


#: The portfolio on levels of at most :data:`SMALL_BOXES` boxes, and on bigger ones. On
#: small levels one fess search starts (by `mixed`); the searches by its other keys are
#: spares (:data:`SPARE_SMALL`). Above 10 boxes the searches differ in their feature space
#: as in their keys: the `weight`
#: keys go without the room connectivity feature (``rooms``), which spreads a search over
#: up to four times the cells, and settle the levels whose plan leads straight to the goals;
#: the `mixed` and `features` keys take it and settle some multi-room levels the others
#: miss.
SMALL: tuple[Entry, ...] = (
    Entry("greedy", {"plan": 3}),
    Entry("backward"),
    Entry("fess", {"key": "mixed", "packed_walls": "off"}),
)
#: The spare searches on small levels (see :mod:`sokoban.solve._turns`): the first joins
#: in the place of greedy once its turns are over, the others in the place of a search
#: that leaves, or once the turns are longest. First the search guided by the plan's
#: phases (:mod:`sokoban.solve._phases`): it keeps pushing the box whose goals' turn it
#: is, and settles some levels sooner than the fess keys that follow. The fess keys
#: settle the same small levels at about the same cost, so that from the start one of
#: them does, and the level it settles first takes a third of the time instead of a
#: fifth; those whose plan one key misses, the others settle later.
SPARE_SMALL: tuple[Entry, ...] = (
    Entry("greedy", {"phases": True}),
    Entry("fess", {"key": "features", "packed_walls": "off"}),
    Entry("fess", {"key": "weight", "packed_walls": "off"}),
)
#: On big levels fess without macros or the packed-walls test is a spare: it settles
#: levels whose packing plan misleads the others, and takes the place of greedy after its
#: turns, or of a fess search whose packed-walls test prunes the start at once.
SPARE_BIG: tuple[Entry, ...] = (
    Entry("fess", {"key": "weight", "macros": False, "packed_walls": "off", "rooms": False}),
)
BIG: tuple[Entry, ...] = (
    Entry("greedy"),
    Entry("backward"),
    Entry("fess", {"key": "weight", "rooms": False}),
    Entry("fess", {"key": "mixed"}),
    Entry("fess", {"key": "features"}),
)


#: The searches that join late (see :mod:`sokoban.solve._turns`), on small levels and on
#: big ones: fess by FESS's advisors settles multi-room levels that no other search
#: settles first, but as one more search from the start it costs the levels near a short
#: limit more than it gains.
LATE_SMALL: tuple[Entry, ...] = (Entry("fess", {"key": "advisors", "packed_walls": "off"}),)
LATE_BIG: tuple[Entry, ...] = (Entry("fess", {"key": "advisors"}),)

#: The turns greedy search takes while other searches take theirs (0.8 CPU s of its own):
#: on the development suite it settles levels within its first turns or not at all
#: (benchmarks/solver.md, "Greedy's first turns only").
GREEDY_TURNS = 4

#: Threads used at most: one per search of the bigger portfolio.
MAX_THREADS = max(len(SMALL) + len(SPARE_SMALL), len(BIG) + len(SPARE_BIG))


def entries_for(level: Level) -> tuple[Entry, ...]:
    """The portfolio's searches for ``level``."""
    return SMALL if len(level.boxes) <= SMALL_BOXES else BIG


def late_for(level: Level) -> tuple[Entry, ...]:
    """The portfolio's searches that join late for ``level``."""
    return LATE_SMALL if len(level.boxes) <= SMALL_BOXES else LATE_BIG


def spare_for(level: Level) -> tuple[Entry, ...]:
    """The portfolio's spare searches for ``level``."""
    return SPARE_SMALL if len(level.boxes) <= SMALL_BOXES else SPARE_BIG


def describe() -> str:
    """The portfolio in a few words (``sokoban methods``)."""
    small = ", ".join(entry.label for entry in SMALL)
    spare = ", ".join(entry.label for entry in SPARE_SMALL)
    big = ", ".join(entry.label for entry in BIG)
    big_spare = ", ".join(entry.label for entry in SPARE_BIG)
    late = ", ".join(entry.label for entry in LATE_BIG)
    return (
        f"by turns: {small}, then each in the place of one that retires or leaves {spare};"
        f" above {SMALL_BOXES} boxes: {big}, then so {big_spare}; greedy its first"
        f" {GREEDY_TURNS} turns only; joining once the turns are longest: {late}"
        " (the first to settle the level ends the others)"
    )


def new_shared_learned(tables: Tables, options: Mapping[str, Any]) -> Learned:
    """The deadlock patterns the searches of a level share, per the deadlock options."""
    if not options["corral_deadlocks"]:
        return no_learned()
    return new_learned(
        tables.board.n,
        learn=options["learn"],
        neighbours=options["neighbours"],
        tangles=options["tangles"],
    )


def make(
    entry: Entry,
    tables: Tables,
    learned: Learned,
    options: Mapping[str, Any],
    meet: PullSearch | None = None,
) -> Entrant:
    """The search of ``entry`` on the level of ``tables``, made at its first turn, with
    the deadlock ``options`` of ``fast`` and the shared ``learned`` patterns; a forward
    search ends when it meets a position of the backward search ``meet``."""
    board = tables.board
    if entry.method == "backward":
        # Complete: every position it drops has a box that can never get back.
        return Entrant(entry.label, meet or PullSearch(board), proves=True)
    settings = dict(entry.settings)
    common: dict[str, Any] = dict(
        pairs=tables.pairs(options["pairs"]),
        learned=learned,
        frozen_goals=options["frozen_goals"],
        meet=meet,
    )
    if entry.method == "fess":
        packed_walls = settings.get("packed_walls", options["packed_walls"])
        tunnels = settings.get("tunnels", True)

        def fess() -> Fess:
            return Fess(
                board,
                plan=tables.plan(parking=True),
                key=FESS_KEYS[settings["key"]],
                tunnels=tunnels,
                macros=MACRO_BOXES if settings.get("macros", True) else 0,
                packed_walls=packed_walls,
                rooms=settings.get("rooms", True),
                **common,
            )

        # Without tunnel macros or the packed-walls test its pruning is sound.
        proves = not tunnels and packed_walls == "off"
        return Entrant(entry.label, make=fess, proves=proves)
    plan_penalty = settings.get("plan", 0)
    phases = settings.get("phases", False)

    def best_first(**how: Any) -> Search:
        plan = tables.plan(parking=False) if plan_penalty or phases else None
        return Search(board, plan_penalty=plan_penalty, plan=plan, phases=phases, **how, **common)

    if entry.method == "greedy" and phases:
        # Guided by the plan's phases it keeps on: pushes count, so it is no mere dive.
        guided = functools.partial(best_first, wg=1, wh=1, tiebreak="none", tunnels=True)
        return Entrant(entry.label, make=guided)
    if entry.method == "greedy":
        greedy = functools.partial(best_first, wg=0, wh=1, tiebreak="none", tunnels=True)
        return Entrant(entry.label, make=greedy, most_turns=GREEDY_TURNS)
    if entry.method == "astar":
        astar = functools.partial(best_first, tiebreak="moves")
        return Entrant(entry.label, make=astar, proves=True, optimal=True)
    raise ValueError(
        f"no portfolio search {entry.method!r}; choose from greedy, fess, astar, backward"
    )


def make_all(
    entries: tuple[Entry, ...],
    tables: Tables,
    options: Mapping[str, Any],
    late: tuple[Entry, ...] = (),
    spare: tuple[Entry, ...] = (),
) -> list[Entrant]:
    """The searches of ``entries``, of ``spare`` (joining in the place of a search that
    retires) and, joining late, of ``late``, sharing learned patterns and, when one of
    them is the backward search, meeting it."""
    learned = new_shared_learned(tables, options)
    backward = PullSearch(tables.board) if any(e.method == "backward" for e in entries) else None
    entrants = [make(entry, tables, learned, options, backward) for entry in entries]
    if options["deadlock_sets"]:
        # Second, after the first search has had its turn: a level solved in it needs no
        # proofs, and the proofs serve every search that takes its turn later.
        entrants[1:1] = sets_entrants(tables.board, tables.pairs(options["pairs"]), learned)
    for entry in spare:
        made = make(entry, tables, learned, options, backward)
        entrants.append(dataclasses.replace(made, spare=True))
    for entry in late:
        made = make(entry, tables, learned, options, backward)
        entrants.append(dataclasses.replace(made, late=True))
    return entrants


def result(found: Turns, label: str = "fast") -> SolveResult:
    """The :class:`SolveResult` of the turns, named ``label``, its message naming the
    search that ended them."""
    last = found.last
    optimal = last.optimal and found.run.solved
    bound = getattr(last.search, "root_bound", INF)
    out = _driver.result(
        found, found.run, label, optimal, bound if bound < INF and optimal else None
    )
    return dataclasses.replace(out, message=f"{last.label}: {out.message}")


def portfolio(
    level: Level,
    limits: Limits,
    progress: ProgressCallback | None,
    options: Mapping[str, Any],
    tables: Tables | None = None,
    threads: int = 1,
) -> SolveResult:
    """Solve ``level`` with the portfolio's searches by turns (see the module), on
    ``threads`` threads; ``options``: the deadlock options of ``fast``."""
    tables = tables or Tables(level)
    # Only the backward search proves a big level unsolvable, and not soon: a start the
    # deadlock tests prove dead is settled here.
    start = check_start(tables.board, tables.pairs(options["pairs"]))
    if start.dead:
        return dataclasses.replace(
            _driver.unsolvable("fast"),
            message=f"no solution exists: the start is a deadlock ({start.reason})",
        )
    entries, late, spare = entries_for(level), late_for(level), spare_for(level)
    if threads <= 1:
        entrants = make_all(entries, tables, options, late, spare)
        return result(take_turns(entrants, limits, progress))
    # On more than one core the spares start with the others: there is room for them.
    return race(level, entries + spare, late, limits, progress, options, tables, threads)


def race(
    level: Level,
    entries: tuple[Entry, ...],
    late: tuple[Entry, ...],
    limits: Limits,
    progress: ProgressCallback | None,
    options: Mapping[str, Any],
    tables: Tables,
    threads: int,
) -> SolveResult:
    """The portfolio's searches (``late`` ones joining late) dealt to ``threads`` threads
    (the kernels release the GIL), each thread taking its share by turns with deadlock
    patterns of its own (the kernels write them); the first thread to settle the level
    stops the others through :attr:`Limits.stop`. Statistics sum every thread's work;
    seconds are the wall time."""
    count = max(1, min(threads, len(entries)))
    hands = [(entries[i::count], late[i::count]) for i in range(count)]
    stop = threading.Event()
    shared = dataclasses.replace(limits, memory=limits.memory_bytes // count, stop=stop)
    start = time.perf_counter()

    def run(hand: tuple[tuple[Entry, ...], tuple[Entry, ...]]) -> SolveResult:
        entrants = make_all(hand[0], tables, options, hand[1])
        return result(take_turns(entrants, shared, progress))

    results: dict[int, SolveResult] = {}
    winner: int | None = None
    with concurrent.futures.ThreadPoolExecutor(count) as pool:
        futures = {pool.submit(run, hand): i for i, hand in enumerate(hands)}
        try:
            for future in concurrent.futures.as_completed(futures):
                i = futures[future]
                results[i] = future.result()
                if winner is None and results[i].status in (Status.SOLVED, Status.UNSOLVABLE):
                    winner = i
                    stop.set()
        finally:
            stop.set()  # an error in one thread stops the others too
    total = SearchStats()
    for found in results.values():
        total = total + found.stats
    total = dataclasses.replace(total, seconds=time.perf_counter() - start)
    chosen = results[winner if winner is not None else 0]
    thread = f"thread {winner + 1} of {count}, " if winner is not None else ""
    return dataclasses.replace(chosen, stats=total, message=f"{thread}{chosen.message}")
