"""Stages: searches run one after the other on one level, each within its share of the
limits, until one settles the level. The one runner behind ``fast`` and the lanes of a
threaded race (:mod:`sokoban.solve._threads`); the tables built from the level alone
(:class:`~sokoban.solve._tables.Tables`) are handed to every stage.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any, NamedTuple

from sokoban.level import Level
from sokoban.solve._tables import Tables
from sokoban.solve.types import (
    METHODS,
    Limits,
    ProgressCallback,
    SearchStats,
    SolveResult,
    Status,
    check_options,
)

#: Ends of a search that settle the level.
FINAL = (Status.SOLVED, Status.UNSOLVABLE)


class Stage(NamedTuple):
    """One search of a chain: the method and its own options; the share of the time
    limit (else of the node limit) the chain may have used by the stage's end; the
    seconds it may have used by then at least (within the time limit); the stage's node
    budget when there are no limits at all; and its cap on expansions whatever the limits
    (``None``: none)."""

    method: str
    options: Mapping[str, Any]
    share: float
    floor: float = 0.0
    budget: int | None = None
    cap: int | None = None

    @property
    def label(self) -> str:
        """The method's name, and the keys of the feature-space search."""
        key = self.options.get("key")
        return f"{self.method} {key}" if key else self.method

    def describe(self) -> str:
        """The stage in a few words, for a portfolio's description."""
        shown = ", ".join(f"{k}={v}" for k, v in self.options.items())
        return f"{self.method} ({shown})" if shown else self.method


def remaining(limits: Limits, spent: SearchStats) -> Limits:
    """What is left of ``limits`` after a search that took ``spent``: the time and the
    expansions used taken off; the memory limit and the stop event kept."""
    time = None if limits.time is None else max(0.0, limits.time - spent.seconds)
    nodes = None if limits.nodes is None else max(0, limits.nodes - spent.expanded)
    return dataclasses.replace(limits, time=time, nodes=nodes)


def stage_limits(stage: Stage, limits: Limits, spent: SearchStats) -> Limits:
    """The limits of ``stage`` when the chain has ``spent`` so much of ``limits``."""
    if limits.time is not None:
        end = min(limits.time, max(limits.time * stage.share, stage.floor))
        nodes = None if limits.nodes is None else max(0, limits.nodes - spent.expanded)
        given = dataclasses.replace(limits, time=max(0.0, end - spent.seconds), nodes=nodes)
    elif limits.nodes is not None:
        nodes = max(0, int(limits.nodes * stage.share) - spent.expanded)
        given = dataclasses.replace(limits, nodes=nodes)
    else:
        given = dataclasses.replace(limits, nodes=stage.budget)
    if stage.cap is not None:
        nodes = stage.cap if given.nodes is None else min(stage.cap, given.nodes)
        given = dataclasses.replace(given, nodes=nodes)
    return given


def run_stages(
    level: Level,
    stages: tuple[Stage, ...],
    limits: Limits,
    progress: ProgressCallback | None,
    options: Mapping[str, Any],
    tables: Tables | None = None,
    method: str | None = None,
) -> SolveResult:
    """Run ``stages`` one after the other within ``limits`` until one settles the level,
    runs out of memory, or :attr:`Limits.stop` is set. ``options`` (such as the deadlock
    options) go to every stage whose method takes them, under the stage's own; the tables
    are built once (or taken from ``tables``) for every stage. The result is the last
    stage's, with the effort of all of them, named ``method`` (else the last stage's
    method), its message saying which stage ended it."""
    tables = tables or Tables(level)
    spent = SearchStats()
    result: SolveResult | None = None
    stage = stages[0]
    for stage in stages:
        spec = METHODS[stage.method]
        taken = {option.name for option in spec.options}
        given = {k: v for k, v in options.items() if k in taken} | dict(stage.options)
        checked = check_options(spec, given)
        result = spec.function(
            level, stage_limits(stage, limits, spent), progress, tables=tables, **checked
        )
        spent = spent + result.stats
        if result.status in (*FINAL, Status.MEMORY_LIMIT):
            break
        if limits.stop is not None and limits.stop.is_set():
            break
    assert result is not None
    return dataclasses.replace(
        result,
        method=method or result.method,
        stats=spent,
        message=f"{stage.label}: {result.message}",
    )
