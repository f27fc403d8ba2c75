"""The built-in push-level methods: configurations of the best-first kernel."""

from __future__ import annotations

import dataclasses
from typing import Any

from sokoban.errors import SokobanError
from sokoban.level import Level
from sokoban.solve import DEFAULT_MEMORY, Limits, SearchStats, SolveResult, Status, register
from sokoban.solve._board import INF, Board
from sokoban.solve._fess import KEY_BOUND, KEY_FEATURES, KEY_MIXED, KEY_WEIGHT, Fess, interleave
from sokoban.solve._packing import packing_order
from sokoban.solve._path import expand
from sokoban.solve._search import EXHAUSTED, SOLVED, Search

_LIMIT_STATUS = {
    "time": Status.TIME_LIMIT,
    "nodes": Status.NODE_LIMIT,
    "memory": Status.MEMORY_LIMIT,
}


def run_best_first(
    level: Level,
    limits: Limits,
    method: str,
    optimal: bool,
    *,
    progress: Any = None,
    **search: Any,
) -> SolveResult:
    """Run :class:`~sokoban.solve._search.Search` on ``level`` and make the result.

    Tunnel macros may cut off every solution in odd layouts, so a search with them that
    runs out of positions is run again without them (in the limits left) before the level
    is called unsolvable.
    """
    result = _run_once(level, limits, method, optimal, progress=progress, **search)
    if result.status is not Status.UNSOLVABLE or not search.get("tunnels"):
        return result
    spent = result.stats

    def rest(limit: float | int | None, used: float | int) -> Any:
        return None if limit is None else max(0, limit - used)

    left = Limits(
        rest(limits.time, spent.seconds), rest(limits.nodes, spent.expanded), limits.memory
    )
    search["tunnels"] = False
    again = _run_once(level, left, method, optimal, progress=progress, **search)
    total = SearchStats(
        spent.expanded + again.stats.expanded,
        spent.generated + again.stats.generated,
        max(spent.stored, again.stats.stored),
        max(spent.peak_bytes, again.stats.peak_bytes),
        spent.seconds + again.stats.seconds,
    )
    return dataclasses.replace(again, stats=total)


def _run_once(
    level: Level,
    limits: Limits,
    method: str,
    optimal: bool,
    *,
    progress: Any = None,
    **search: Any,
) -> SolveResult:
    board = Board(level)
    try:
        engine = Search(board, **search)
    except ValueError as error:
        raise SokobanError(str(error)) from None
    memory = limits.memory if limits.memory is not None else DEFAULT_MEMORY
    out = engine.run(limits.time, limits.nodes, memory, progress)
    stats = SearchStats(out.expanded, out.generated, out.stored, out.peak_bytes, out.seconds)
    bound = engine.root_bound if search.get("bound", "matching") != "none" else -1
    if bound >= INF:
        bound = -1
    if out.code == SOLVED:
        solution = expand(board, out.path)
        unit = ("move", "moves") if search.get("exact") else ("push", "pushes")
        message = f"solved in {out.cost} {unit[out.cost != 1]}" + (" (optimal)" if optimal else "")
        return SolveResult(Status.SOLVED, solution, method, optimal, stats, message, bound)
    if out.code == EXHAUSTED and not out.limit:
        return SolveResult(
            Status.UNSOLVABLE, None, method, False, stats, "no solution exists", bound
        )
    status = _LIMIT_STATUS[out.limit]
    return SolveResult(
        status, None, method, False, stats, f"stopped by the {out.limit} limit", bound
    )


def _check(options: dict[str, Any], allowed: set[str], method: str) -> None:
    unknown = set(options) - allowed
    if unknown:
        raise SokobanError(
            f"unknown option {sorted(unknown)[0]!r} for method {method!r}"
            + (f"; it takes {', '.join(sorted(allowed))}" if allowed else "")
        )


def _bound_option(options: dict[str, Any]) -> str:
    bound = options.get("bound", "matching")
    if bound not in ("matching", "nearest"):
        raise SokobanError(f"unknown bound {bound!r}; choose matching or nearest")
    return str(bound)


def _deadlock_options(options: dict[str, Any]) -> dict[str, bool]:
    """The deadlock tests every method takes: ``pairs`` (the two-box table, on by default)
    and ``corral_deadlocks`` (sub-searches of corral fences, off by default: they prune
    about 1% more positions and cost 5-10% of the node rate; see benchmarks/solver.md)."""
    return {
        "pairs": bool(options.get("pairs", True)),
        "corral_deadlocks": bool(options.get("corral_deadlocks", False)),
    }


@register("astar", "A* over pushes with the matching lower bound", "pushes", optimal=True)
def astar(level: Level, limits: Limits, **options: Any) -> SolveResult:
    """Push-optimal A*; options ``bound`` ("matching" or "nearest"), ``corrals`` (PI-corral
    pruning, default on), ``ties`` ("moves": among positions with the same bound on pushes
    the one reached with fewer moves first, the default; "deeper": the one with the smaller
    lower bound first, often fewer expansions), ``pairs`` and ``corral_deadlocks`` (deadlock
    tests, see :func:`_deadlock_options`; every method takes them) and ``progress`` (called
    between kernel calls)."""
    _check(options, {"bound", "progress", "corrals", "ties", "pairs", "corral_deadlocks"}, "astar")
    ties = options.get("ties", "moves")
    if ties not in ("moves", "deeper"):
        raise SokobanError(f"unknown tie-break {ties!r}; choose moves or deeper")
    return run_best_first(
        level,
        limits,
        "astar",
        True,
        bound=_bound_option(options),
        tiebreak=ties,
        corrals=bool(options.get("corrals", True)),
        **_deadlock_options(options),
        progress=options.get("progress"),
    )


@register("moves", "A* over moves (each push costs its walk plus one)", "moves", optimal=True)
def moves(level: Level, limits: Limits, **options: Any) -> SolveResult:
    """Move-optimal A*: the player's exact cell is part of the state."""
    _check(options, {"bound", "progress", "pairs", "corral_deadlocks"}, "moves")
    return run_best_first(
        level,
        limits,
        "moves",
        True,
        bound=_bound_option(options),
        exact=True,
        **_deadlock_options(options),
        progress=options.get("progress"),
    )


@register("bfs", "breadth-first search over pushes, no lower bound", "pushes", optimal=True)
def bfs(level: Level, limits: Limits, **options: Any) -> SolveResult:
    """Push-optimal breadth-first search: no lower bound, so no bipartite deadlocks; dead
    squares, freeze deadlocks and PI-corrals (option ``corrals``) still prune."""
    _check(options, {"progress", "corrals", "pairs", "corral_deadlocks"}, "bfs")
    return run_best_first(
        level,
        limits,
        "bfs",
        True,
        bound="none",
        wh=0,
        tiebreak="none",
        corrals=bool(options.get("corrals", True)),
        **_deadlock_options(options),
        progress=options.get("progress"),
    )


@register("greedy", "best-first search on the lower bound alone: fast, not optimal")
def greedy(level: Level, limits: Limits, **options: Any) -> SolveResult:
    """Expand the position closest to solved first; options ``bound``, ``corrals`` and
    ``tunnels`` (tunnel macros, default on)."""
    _check(
        options, {"bound", "progress", "corrals", "tunnels", "pairs", "corral_deadlocks"}, "greedy"
    )
    return run_best_first(
        level,
        limits,
        "greedy",
        False,
        bound=_bound_option(options),
        wg=0,
        wh=1,
        tiebreak="none",
        corrals=bool(options.get("corrals", True)),
        tunnels=bool(options.get("tunnels", True)),
        **_deadlock_options(options),
        progress=options.get("progress"),
    )


@register("wastar", "weighted A* (key g + w*h, w=weight, default 3): fast, not optimal")
def wastar(level: Level, limits: Limits, **options: Any) -> SolveResult:
    """Weighted A*: solutions within ``weight`` times the optimum in pushes."""
    _check(
        options,
        {"bound", "progress", "weight", "corrals", "tunnels", "pairs", "corral_deadlocks"},
        "wastar",
    )
    weight = float(options.get("weight", 3.0))
    if not 1.0 <= weight <= 100.0:
        raise SokobanError(f"weight {weight!r} is outside 1..100")
    return run_best_first(
        level,
        limits,
        "wastar",
        weight == 1.0,
        bound=_bound_option(options),
        wg=4,
        wh=round(4 * weight),
        corrals=bool(options.get("corrals", True)),
        tunnels=bool(options.get("tunnels", weight > 1.0)),
        **_deadlock_options(options),
        progress=options.get("progress"),
    )


#: The stages of ``fast``: each method with the share of the limits (time, else nodes) it
#: may have used by its end, and its node budget when there are no limits at all. Greedy
#: search settles most levels in milliseconds, the feature-space search the ones whose
#: goals must be packed in order, and A* the small tricky ones both miss.
FAST_STAGES = (("greedy", 0.1, 50_000), ("fess", 0.75, 300_000), ("astar", 1.0, None))


@register("fast", "greedy, then the feature-space search, then A*: the widest net at a limit")
def fast(level: Level, limits: Limits, **options: Any) -> SolveResult:
    """Greedy search for a tenth of the time limit, the feature-space search (:func:`fess`)
    up to three quarters of it, then push-optimal A* for the rest (see
    :data:`FAST_STAGES`): the methods fail on different levels. The result names the stage
    that ended it in its message; it is optimal when A* found it. The deadlock options go to
    the greedy and A* stages."""
    _check(options, {"progress", "pairs", "corral_deadlocks"}, "fast")
    progress = options.get("progress")
    deadlocks = _deadlock_options(options)
    stages = {"greedy": greedy, "fess": fess, "astar": astar}
    spent = SearchStats(0, 0, 0, 0, 0.0)
    for name, share, budget in FAST_STAGES:
        if limits.time is not None:
            nodes = None if limits.nodes is None else max(0, limits.nodes - spent.expanded)
            stage = Limits(max(0.0, limits.time * share - spent.seconds), nodes, limits.memory)
        elif limits.nodes is not None:
            stage = Limits(None, max(0, int(limits.nodes * share) - spent.expanded), limits.memory)
        else:
            stage = Limits(None, budget, limits.memory)
        extra = {} if name == "fess" else deadlocks
        result = stages[name](level, stage, progress=progress, **extra)
        stats = result.stats
        spent = SearchStats(
            spent.expanded + stats.expanded,
            spent.generated + stats.generated,
            max(spent.stored, stats.stored),
            max(spent.peak_bytes, stats.peak_bytes),
            spent.seconds + stats.seconds,
        )
        if result.status in (Status.SOLVED, Status.UNSOLVABLE, Status.MEMORY_LIMIT):
            break
    return dataclasses.replace(
        result, method="fast", stats=spent, message=f"{name}: {result.message}"
    )


#: The keys within a feature cell, by name (see :mod:`sokoban.solve._fess`).
FESS_KEYS = {
    "bound": KEY_BOUND,
    "weight": KEY_WEIGHT,
    "mixed": KEY_MIXED,
    "features": KEY_FEATURES,
}


@register("fess", "feature-space search along a packing order: fast, not optimal")
def fess(level: Level, limits: Limits, **options: Any) -> SolveResult:
    """Feature-space search (:mod:`sokoban.solve._fess`): takes turns among cells of
    (goals packed in the packing order, regions, boxes out of plan). Option ``key``: how a
    cell orders its positions, a name of :data:`FESS_KEYS` or several joined by commas,
    run by turns (default ``"weight,mixed"``); ``corrals`` (default on)."""
    _check(options, {"progress", "corrals", "key"}, "fess")
    names = str(options.get("key", "weight,mixed")).split(",")
    for name in names:
        if name not in FESS_KEYS:
            raise SokobanError(f"unknown fess key {name!r}; choose from {', '.join(FESS_KEYS)}")
    board = Board(level)
    plan = packing_order(board)
    corrals = bool(options.get("corrals", True))
    engines = [Fess(board, plan=plan, corrals=corrals, key=FESS_KEYS[n]) for n in names]
    memory = limits.memory if limits.memory is not None else DEFAULT_MEMORY
    out = interleave(engines, limits.time, limits.nodes, memory, options.get("progress"))
    stats = SearchStats(out.expanded, out.generated, out.stored, out.peak_bytes, out.seconds)
    root = engines[0].root_bound
    bound = root if root < INF else -1
    if out.code == SOLVED:
        solution = expand(board, out.path)
        message = f"solved in {out.cost} pushes"
        return SolveResult(Status.SOLVED, solution, "fess", False, stats, message, bound)
    if out.code == EXHAUSTED and not out.limit:
        unsolvable = "no solution exists"
        return SolveResult(Status.UNSOLVABLE, None, "fess", False, stats, unsolvable, bound)
    message = f"stopped by the {out.limit} limit"
    return SolveResult(_LIMIT_STATUS[out.limit], None, "fess", False, stats, message, bound)
