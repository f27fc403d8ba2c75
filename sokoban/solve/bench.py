"""Benchmark a method over level collections: one row per level, a summary per file.

Used by ``sokoban bench`` and ``benchmarks/bench_solver.py``. Levels run in parallel on
local processes (:mod:`sokoban.batch`); each row is checked against a table of known
push optima (``optimal.csv`` beside the collections) when there is one. Before any level
is timed the method's kernels are loaded (:func:`warm_up`; on a cold numba cache,
compiled); :func:`warm_up_all` compiles many methods' kernels on several processes
(``sokoban compile``).
"""

from __future__ import annotations

import csv
import dataclasses
import io
import os
import statistics
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import numpy as np

from sokoban.level import Level
from sokoban.solve import Limits, solve


@dataclasses.dataclass(frozen=True)
class Task:
    """One level to solve: where it comes from, its board as XSB, the method, limits and
    method options (``(name, value)`` pairs: a task is hashable and goes to workers)."""

    file: str
    number: int
    title: str
    xsb: str
    method: str
    limits: Limits
    options: tuple[tuple[str, Any], ...] = ()


@dataclasses.dataclass(frozen=True)
class Row:
    """The result of one level, as the CSV stores it. ``known`` is the push optimum from
    the table of optima (-1 when absent); ``mismatch`` is set when a solution claimed
    optimal differs from it."""

    file: str
    number: int
    title: str
    method: str
    status: str
    pushes: int
    moves: int
    optimal: bool
    known: int
    mismatch: bool
    expanded: int
    generated: int
    stored: int
    peak_bytes: int
    #: Wall time of the whole solve: encoding, search, path expansion and verification.
    seconds: float
    #: Time in the search loop alone (what nodes per second divide by).
    search_seconds: float


@dataclasses.dataclass(frozen=True)
class Summary:
    """Figures for one collection."""

    file: str
    levels: int
    solved: int
    optimal: int
    mismatches: int
    total_seconds: float
    median_seconds: float
    expanded: int
    nodes_per_second: float
    peak_bytes: int


def run_task(task: Task) -> Row:
    """Solve one task (in a worker process); the row has ``known`` = -1. A process that
    has not loaded the method's kernels yet loads them first, untimed, as the parent
    process does before any level: a level's seconds cover its solve only."""
    if task.method not in _LOADED:
        warm_up(task.method, **dict(task.options))
    level = Level.from_xsb(task.xsb)
    start = time.perf_counter()
    result = solve(level, task.method, task.limits, **dict(task.options))
    wall = time.perf_counter() - start
    solution = result.solution
    stats = result.stats
    return Row(
        file=task.file,
        number=task.number,
        title=task.title,
        method=task.method,
        status=result.status.value,
        pushes=solution.pushes if solution is not None else -1,
        moves=solution.moves if solution is not None else -1,
        optimal=result.optimal,
        known=-1,
        mismatch=False,
        expanded=stats.expanded,
        generated=stats.generated,
        stored=stats.stored,
        peak_bytes=stats.peak_bytes,
        seconds=round(wall, 4),
        search_seconds=round(stats.seconds, 4),
    )


def known_optima(path: str | os.PathLike[str]) -> dict[tuple[str, int], int]:
    """``(file name, level number) -> fewest pushes`` from an ``optimal.csv`` table."""
    table: dict[tuple[str, int], int] = {}
    with open(path, encoding="utf-8") as handle:
        lines = (line for line in handle if not line.startswith("#"))
        for record in csv.DictReader(lines):
            table[(record["file"], int(record["level"]))] = int(record["pushes"])
    return table


def check_known(row: Row, optima: dict[tuple[str, int], int]) -> Row:
    """The row with its known optimum and whether an optimal claim contradicts it."""
    known = optima.get((Path(row.file).name, row.number), -1)
    wrong = row.optimal and row.pushes >= 0 and known >= 0 and row.pushes != known
    return dataclasses.replace(row, known=known, mismatch=wrong)


#: The methods whose kernels this process has loaded (:func:`warm_up`).
_LOADED: set[str] = set()
#: Methods that call others' kernels beyond the one that solves a tiny level.
_STAGES = {"fast": ("fess", "astar")}
#: Methods that share their search kernel, heaviest first by cold compile seconds in a
#: process of its own (the board's set-up and deadlock tests included, which every
#: process compiles once): fess 21, the best-first family 16, SMA* 7, the rest 1-3.
#: :func:`warm_up_all` gives each group to one process, so no search kernel is compiled
#: twice; a method in no group (``fast``, which runs fess and A*) loads them last.
COMPILE_GROUPS: tuple[tuple[str, ...], ...] = (
    ("fess",),
    ("astar", "moves", "bfs", "greedy", "wastar"),
    ("sma",),
    ("bidirectional",),
    ("ida",),
    ("bfs-moves",),
)


#: The warm-up level: every method solves it in milliseconds by searching (a level proved
#: unsolvable at the start would compile only the set-up), and fess's solution carries a
#: box round a corner (a packing macro, found again by a push search when expanded).
WARM_LEVEL = "#######\n#@    #\n# $   #\n#   $.#\n#   . #\n#######"
#: Options a method also runs the warm-up level with, for the kernels only they call
#: (fess without the packed-walls test, as fast's stages run it, orders goals by
#: ``must_precede``).
_WARM_OPTIONS: dict[str, tuple[dict[str, Any], ...]] = {"fess": ({"packed_walls": "off"},)}


def warm_up(method: str, **options: Any) -> float:
    """Seconds to load (or on a cold cache compile) the kernels ``method`` uses."""
    start = time.perf_counter()
    level = Level.from_xsb(WARM_LEVEL)
    for name, given in [(method, options), *((stage, {}) for stage in _STAGES.get(method, ()))]:
        solve(level, name, **given)
        for extra in _WARM_OPTIONS.get(name, ()):
            solve(level, name, **(given | extra))
    if method == "fast":
        _warm_portfolio(level)
    if method in ("fast", "fess"):
        _warm_deadlock_sets()
    _warm_growth(method)
    _LOADED.add(method)
    return time.perf_counter() - start


def _warm_portfolio(level: Level) -> None:
    """Each search of ``fast``'s portfolio alone on ``level``: together the first to
    settle it ends the others before the rest have run (the backward search's kernels
    among them)."""
    from sokoban.solve import METHODS, _portfolio
    from sokoban.solve._tables import Tables
    from sokoban.solve._turns import take_turns

    options = {o.name: o.default for o in METHODS["fast"].options if o.name != "threads"}
    tables = Tables(level)
    p = _portfolio
    for entry in (*p.SMALL, *p.SPARE_SMALL, *p.LATE_SMALL, *p.BIG, *p.SPARE_BIG, *p.LATE_BIG):
        take_turns(p.make_all((entry,), tables, options), Limits(time=60))
    take_turns(p.make_all(p.BIG, tables, options), Limits(time=60))


#: A level with enough boxes for deadlock sets (the warm-up level has two).
WARM_SETS_LEVEL = "########\n#@     #\n# $$   #\n# $ $  #\n#  ..  #\n#  ..  #\n########"


def _warm_deadlock_sets() -> None:
    """The proofs of the deadlock sets, which a level solved in its first turn never
    reaches."""
    from sokoban.solve._board import Board
    from sokoban.solve._corral_deadlock import new_learned
    from sokoban.solve._deadlock_sets import DeadlockSets
    from sokoban.solve._pairs import pair_table

    board = Board(Level.from_xsb(WARM_SETS_LEVEL))
    DeadlockSets(board, board.search_board(pair_table(board)), new_learned(board.n)).prove_all()


def _warm_growth(method: str) -> None:
    """The kernels a search calls only when its arrays grow (past thousands of nodes,
    which the warm-up level never needs): the rebuild of its transposition table."""
    from sokoban.solve import _sma, _table

    table, hashes = np.full(2, -1, np.int32), np.zeros(1, np.uint64)
    if method == "sma":
        _sma.rebuild(table, hashes, np.zeros(1, np.int32), 1)
    else:
        _table.rebuild(table, hashes, 1)


def _warm_group(methods: tuple[str, ...]) -> dict[str, float]:
    """Load (compile) a group of methods' kernels in a worker: seconds per method."""
    return {method: warm_up(method) for method in methods}


def warm_up_all(
    methods: Iterable[str] | None = None, workers: int | None = None
) -> dict[str, float]:
    """Load, and on a cold numba cache compile, the kernels of ``methods`` (default: every
    method) on ``workers`` local processes (default: one per core; 0 or 1: in this process
    only): the seconds each method took in the process that loaded it (the stages of
    ``fast`` among them).

    numba compiles in one thread per process, so on a cold cache processes side by side
    finish sooner: each takes the heaviest group of :data:`COMPILE_GROUPS` left and writes
    what it compiled to the shared on-disk cache. Then this process loads the methods in
    no group (``fast``) from that cache, and the methods run later by any process on the
    machine find their kernels compiled."""
    from sokoban import batch
    from sokoban.solve import METHODS, method_named

    wanted = list(METHODS) if methods is None else list(dict.fromkeys(methods))
    for method in wanted:
        method_named(method)
    # The wanted methods and their stages, by group, heaviest group first.
    needed = set(wanted) | {stage for method in wanted for stage in _STAGES.get(method, ())}
    groups = [tuple(m for m in g if m in needed) for g in COMPILE_GROUPS]
    groups = [g for g in groups if g]
    count = batch.default_workers() if workers is None else workers
    seconds: dict[str, float] = {}
    if count <= 1 or len(groups) <= 1:
        for group in groups:
            seconds.update(_warm_group(group))
    else:
        count = min(count, len(groups))
        for _, done in batch.run(_warm_group, groups, workers=count, in_flight=count):
            seconds.update(done)
    for method in wanted:
        if method not in seconds:  # in no group: its kernels are in the cache now
            seconds[method] = warm_up(method)
    return seconds


def load_kernels(methods: Iterable[str], **options: Any) -> float:
    """Seconds to load the kernels of ``methods`` (:func:`warm_up`, each with ``options``).
    On a cold cache (:func:`sokoban._jit.cache_is_cold`) they are compiled first on every
    core by :func:`warm_up_all`: a first solve on a machine waits for its heaviest group
    of kernels (``fast``: fess's) instead of for all of them in turn."""
    from sokoban import _jit

    start = time.perf_counter()
    wanted = list(dict.fromkeys(methods))
    if _jit.cache_is_cold():
        warm_up_all(wanted)
    for method in wanted:
        warm_up(method, **options)
    return time.perf_counter() - start


def summarise(rows: Iterable[Row]) -> list[Summary]:
    """One summary per file, in the order files first appear."""
    by_file: dict[str, list[Row]] = {}
    for row in rows:
        by_file.setdefault(row.file, []).append(row)
    out = []
    for file, group in by_file.items():
        times = [r.seconds for r in group]
        total = sum(times)
        expanded = sum(r.expanded for r in group)
        searching = sum(r.search_seconds for r in group)
        out.append(
            Summary(
                file=file,
                levels=len(group),
                solved=sum(r.status == "solved" for r in group),
                optimal=sum(r.status == "solved" and r.optimal for r in group),
                mismatches=sum(r.mismatch for r in group),
                total_seconds=total,
                median_seconds=statistics.median(times) if times else 0.0,
                expanded=expanded,
                nodes_per_second=expanded / searching if searching > 0 else 0.0,
                peak_bytes=max((r.peak_bytes for r in group), default=0),
            )
        )
    return out


def csv_text(rows: Iterable[Row]) -> str:
    """The per-level rows as CSV text with a header."""
    buffer = io.StringIO()
    fields = [f.name for f in dataclasses.fields(Row)]
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(fields)
    for row in rows:
        writer.writerow([getattr(row, name) for name in fields])
    return buffer.getvalue()
