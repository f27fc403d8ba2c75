"""Benchmark a method over level collections: one row per level, a summary per file.

Used by ``sokoban bench`` and ``benchmarks/bench_solver.py``. Levels run in parallel on
local processes (:mod:`sokoban.batch`); each row is checked against a table of known
push optima (``optimal.csv`` beside the collections) when there is one.
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


def warm_up(method: str, **options: Any) -> float:
    """Seconds to load (or on a cold cache compile) the kernels ``method`` uses."""
    start = time.perf_counter()
    # Solvable, so that the search kernel itself runs (a level proved unsolvable at the
    # start would compile only the set-up).
    tiny = Level.from_xsb("#######\n#@$ . #\n# $ . #\n#######")
    solve(tiny, method, **options)
    for stage in _STAGES.get(method, ()):
        solve(tiny, stage)
    _LOADED.add(method)
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
