"""The generator: layout, reverse search, verification by the optimal solver, scoring.

One *attempt* turns a seed into at most one level: make a layout, put goals on it, pull
the boxes away from the goals (:mod:`sokoban.generate.reverse`), solve the result with
the solver's optimal method, measure it (:mod:`sokoban.generate.difficulty`) and keep it
if it is in the band asked for. :func:`generate` runs attempts (here or on workers) until
it has ``count`` distinct levels or has spent ``max_attempts``.

Reproducibility: attempt ``i`` of a run seeded ``S`` draws every random choice from
``numpy.random.default_rng(SeedSequence(S).spawn(...)[i])``, and results are taken in
attempt order whatever the order workers finish in, so a seed gives the same levels
with any number of workers (as long as the solver is bounded by nodes, not time).
"""

from __future__ import annotations

import collections
import dataclasses
import math
import time
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from sokoban.errors import GenerateError
from sokoban.generate import difficulty as _difficulty
from sokoban.generate.dedup import Deduplicator
from sokoban.generate.layouts import LAYOUTS, LayoutError
from sokoban.generate.reverse import MAX_STATES, CompactFloor, pull_search, reverse_walk
from sokoban.level import MAX_FLOOR, MAX_SIDE, Level
from sokoban.lurd import Solution, verify

#: Exhaustive pull search when the number of box placements, C(floor, boxes), is at most this.
BFS_PLACEMENTS = 3_000_000
#: States of the pull search solved per attempt when a band is targeted.
BAND_CANDIDATES = 4
#: Default node limit of the verifying solver: generous for 10 x 10 rooms with 4 boxes.
SOLVER_NODES = 2_000_000
#: Default time limit (seconds) per verification, a guard only: with it a loaded machine
#: could reject a level another run keeps.
SOLVER_TIME = 60.0


@dataclasses.dataclass(frozen=True, slots=True)
class GeneratedLevel:
    """One kept level: the level (title, metadata and optimal solution attached), its
    optimal solution, its difficulty measures and where it came from (``seed`` and
    ``attempt`` reproduce it with :func:`attempt`)."""

    level: Level
    solution: Solution
    difficulty: _difficulty.Difficulty
    seed: int
    attempt: int
    placement: str

    def as_dict(self) -> dict[str, object]:
        """A flat record for JSON or CSV: title, seed, attempt, placement and measures."""
        return {
            "title": self.level.title,
            "seed": self.seed,
            "attempt": self.attempt,
            "placement": self.placement,
            **self.difficulty.as_dict(),
            "solution": self.solution.lurd(),
        }


@dataclasses.dataclass(frozen=True, slots=True)
class GenerateReport:
    """What :func:`generate` did: the levels kept, the attempts spent and why attempts
    were rejected (reason: count)."""

    levels: list[GeneratedLevel]
    requested: int
    attempts: int
    rejected: dict[str, int]
    seed: int
    seconds: float
    #: The run stopped at its time budget.
    out_of_time: bool = False

    @property
    def complete(self) -> bool:
        return len(self.levels) >= self.requested

    def summary(self) -> str:
        """One line: kept, attempts, time, and the rejection reasons."""
        reasons = ", ".join(f"{n} {why}" for why, n in sorted(self.rejected.items()))
        text = (
            f"{len(self.levels)} of {self.requested} levels in {self.attempts} attempts, "
            f"{self.seconds:.1f} s (seed {self.seed})"
        )
        if self.out_of_time:
            text += "; stopped at the time budget"
        return text + (f"; rejected: {reasons}" if reasons else "")


@dataclasses.dataclass(frozen=True, slots=True)
class Spec:
    """Everything an attempt needs, picklable for workers."""

    width: int
    height: int
    boxes: int
    layout: str | None = "walk"
    floor: np.ndarray | None = None
    placement: str = "auto"
    metric: str = "pushes"
    band: str | None = None
    method: str = "astar"
    nodes: int | None = SOLVER_NODES
    seconds: float | None = SOLVER_TIME
    max_states: int = MAX_STATES
    solver: Callable[..., Any] | None = None


@dataclasses.dataclass(frozen=True, slots=True)
class Attempt:
    """The outcome of one attempt: a level or the reason there is none."""

    index: int
    level: GeneratedLevel | None
    reason: str = ""


def _goal_cells(board: CompactFloor) -> np.ndarray:
    """Compact cells a box on a goal could be pulled from: two floor cells in a line."""
    nbr = board.nbr
    ok = np.zeros(board.size, dtype=bool)
    for d in range(4):
        one = nbr[:, d]
        has = one >= 0
        two = np.full(board.size, -1, dtype=np.int32)
        two[has] = nbr[one[has], d]
        ok |= two >= 0
    return np.flatnonzero(ok).astype(np.int32)


def _predicted(depth: np.ndarray, changes: np.ndarray) -> np.ndarray:
    """Score predicted for pull-search states before solving them.

    The pushes are exact; the solver's nodes are estimated from them and the score
    formula's result is corrected by a linear fit against measured scores (300 random
    10 x 10 rooms with 4 boxes; the search's box changes run high, as the shortest path
    it keeps maximises them)."""
    nodes = 10.0 ** (0.5 + 0.073 * depth)
    raw = (
        depth
        + _difficulty.W_CHANGES * changes
        + _difficulty.W_NODES * np.log2(1.0 + nodes / _difficulty.NODES_UNIT)
    )
    return 0.65 * raw + 2.9


def _solve(spec: Spec, level: Level) -> Any:
    if spec.solver is not None:
        return spec.solver(level, spec.method, spec.nodes, spec.seconds)
    from sokoban.solve import Limits, solve

    return solve(level, method=spec.method, limits=Limits(time=spec.seconds, nodes=spec.nodes))


def attempt(spec: Spec, seed: int, index: int) -> Attempt:
    """Attempt ``index`` of a run seeded ``seed``: a level, or the reason for none."""
    sequence = np.random.SeedSequence(seed, spawn_key=(index,))
    return _attempt(spec, sequence, index)


def _attempt(spec: Spec, sequence: np.random.SeedSequence, index: int) -> Attempt:
    rng = np.random.default_rng(sequence)
    try:
        if spec.floor is not None:
            floor = spec.floor
        else:
            assert spec.layout is not None
            floor = LAYOUTS[spec.layout](spec.width, spec.height, rng)
    except LayoutError:
        return Attempt(index, None, "layout rejected")
    board = CompactFloor.from_floor(floor)
    cells = _goal_cells(board)
    if len(cells) < spec.boxes or board.size < spec.boxes + 2:
        return Attempt(index, None, "room too small")
    goal_cells = board.cells[rng.choice(cells, spec.boxes, replace=False)]
    placement = spec.placement
    if placement == "auto":
        placement = "bfs" if math.comb(board.size, spec.boxes) <= BFS_PLACEMENTS else "walk"
    # Candidates: (level, exact optimal pushes or None); the first verified one in the
    # band with the most solver nodes is kept.
    candidates: list[tuple[Level, int | None]] = []
    if placement == "bfs":
        search = pull_search(board, goal_cells, spec.max_states)
        if spec.band is None:
            i = search.farthest(rng, spec.metric)
            picks = [] if i is None else [i]
        else:
            low, high = _difficulty.BANDS[spec.band]
            predicted = _predicted(search.depth, search.changes)
            inside = np.flatnonzero((predicted >= low) & (predicted < high) & (search.depth > 0))
            if len(inside) == 0:
                return Attempt(index, None, "room cannot reach the band")
            # Aim at the middle of the band (the top of an open band is the hardest state)
            # and solve the few states nearest the aim: levels of equal pushes differ most
            # in the search they need, and the band should hold the ones that need more.
            aim = (low + high) / 2 if math.isfinite(high) else predicted.max()
            near = np.abs(predicted[inside] - aim) + rng.random(len(inside)) * 1e-3
            picks = [int(j) for j in inside[np.argsort(near)[:BAND_CANDIDATES]]]
        if not picks:
            return Attempt(index, None, "no box can move")
        candidates = [(search.level(j, rng), int(search.depth[j])) for j in picks]
    elif placement == "walk":
        steps = 30 * spec.boxes + 3 * board.size
        walked = reverse_walk(board, goal_cells, rng, steps=steps)
        if walked is None:
            return Attempt(index, None, "no box can move")
        candidates = [(walked.level, None)]
    else:
        raise GenerateError(f"unknown placement {spec.placement!r}; use auto, bfs or walk")
    best: tuple[Level, Solution, _difficulty.Difficulty] | None = None
    reason = ""
    for level, depth in candidates:
        checked = _verify(spec, level, depth)
        if isinstance(checked, str):
            reason = reason or checked
            continue
        solution, measured = checked
        if spec.band is not None and measured.band != spec.band:
            reason = reason or f"scored {measured.band}"
            continue
        if best is None or measured.nodes > best[2].nodes:
            best = (level, solution, measured)
    if best is None:
        return Attempt(index, None, reason)
    level, solution, measured = best
    kept = GeneratedLevel(
        level=level.with_metadata(solutions=(solution.lurd(),)),
        solution=solution,
        difficulty=measured,
        seed=int(sequence.entropy),  # type: ignore[arg-type]
        attempt=index,
        placement=placement,
    )
    return Attempt(index, kept)


def _verify(
    spec: Spec, level: Level, depth: int | None
) -> tuple[Solution, _difficulty.Difficulty] | str:
    """Solve with the optimal method and measure; or the reason the level is refused."""
    result = _solve(spec, level)
    if not result.solved or result.solution is None:
        return f"solver {result.status.name.lower().replace('_', ' ')}"
    if not result.optimal:
        return "solution not proved optimal"
    solution = verify(level, result.solution).solution
    if depth is not None and solution.pushes != depth:
        # The exhaustive search knows the optimum: a mismatch is a bug worth reporting.
        return "solver disagrees with the pull search"
    return solution, _difficulty.measure(level, solution, result.stats.expanded)


def _run_attempt(task: tuple[Spec, np.random.SeedSequence, int]) -> Attempt:
    spec, sequence, index = task
    return _attempt(spec, sequence, index)


def _check(spec: Spec) -> None:
    if spec.boxes < 1:
        raise GenerateError(f"boxes must be at least 1, not {spec.boxes}")
    if spec.floor is None:
        if spec.layout not in LAYOUTS:
            raise GenerateError(
                f"unknown layout {spec.layout!r}; choose one of {', '.join(LAYOUTS)}"
            )
        if spec.width < 4 or spec.height < 4:
            raise GenerateError(
                f"size {spec.width}x{spec.height} is too small: at least 4x4 with the walls"
            )
        # Checked before any layout is drawn: a huge board would take minutes to lay out
        # and still make levels the level model refuses.
        if spec.width > MAX_SIDE or spec.height > MAX_SIDE:
            raise GenerateError(
                f"size {spec.width}x{spec.height} is too large: at most {MAX_SIDE} a side"
            )
        inner = (spec.width - 2) * (spec.height - 2)
        if inner > MAX_FLOOR:
            raise GenerateError(
                f"size {spec.width}x{spec.height} is too large: {inner} interior cells, "
                f"over the {MAX_FLOOR} a level may have"
            )
        # A box needs its own cell and room to be pushed: half the interior is a fair cap.
        if 2 * spec.boxes + 1 > inner:
            raise GenerateError(
                f"{spec.boxes} boxes do not fit a {spec.width}x{spec.height} board "
                f"({inner} interior cells; at most {(inner - 1) // 2} boxes)"
            )
    else:
        cells = int(np.count_nonzero(spec.floor))
        if 2 * spec.boxes + 1 > cells:
            raise GenerateError(
                f"{spec.boxes} boxes do not fit the layout's {cells} floor cells "
                f"(at most {(cells - 1) // 2} boxes)"
            )
    if spec.band is not None:
        _difficulty.check_band(spec.band)
    if spec.placement not in ("auto", "bfs", "walk"):
        raise GenerateError(f"unknown placement {spec.placement!r}; use auto, bfs or walk")
    if spec.metric not in ("pushes", "changes"):
        raise GenerateError(f"unknown metric {spec.metric!r}; use pushes or changes")


def _spec(
    size: tuple[int, int],
    boxes: int,
    layout: str | np.ndarray,
    placement: str,
    metric: str,
    difficulty: str | None,
) -> Spec:
    width, height = size
    floor = None
    layout_name: str | None
    if isinstance(layout, str):
        layout_name = layout
    else:
        floor = np.asarray(layout, dtype=bool)
        layout_name = None
        height, width = floor.shape
    return Spec(
        width=width,
        height=height,
        boxes=boxes,
        layout=layout_name,
        floor=floor,
        placement=placement,
        metric=metric,
        band=difficulty,
    )


def check_request(
    size: tuple[int, int] = (10, 10),
    boxes: int = 4,
    *,
    layout: str | np.ndarray = "walk",
    placement: str = "auto",
    metric: str = "pushes",
    difficulty: str | None = None,
) -> None:
    """Raise :class:`GenerateError` for a request :func:`generate` would refuse (a board
    too small or over the level model's limits, more boxes than fit, unknown names), so
    that a caller can refuse it before it starts anything else."""
    _check(_spec(size, boxes, layout, placement, metric, difficulty))


def generate(
    size: tuple[int, int] = (10, 10),
    boxes: int = 4,
    count: int = 1,
    *,
    difficulty: str | None = None,
    seed: int | None = None,
    layout: str | np.ndarray = "walk",
    placement: str = "auto",
    metric: str = "pushes",
    workers: int | None = 0,
    scheduler: str | None = None,
    max_attempts: int | None = None,
    nodes: int | None = SOLVER_NODES,
    seconds: float | None = SOLVER_TIME,
    method: str = "astar",
    budget: float | None = None,
    on_level: Callable[[GeneratedLevel], None] | None = None,
    on_attempt: Callable[[Attempt], None] | None = None,
    solver: Callable[..., Any] | None = None,
) -> GenerateReport:
    """Generate ``count`` distinct levels, each solved optimally by the solver.

    :param size: ``(width, height)`` of the board, walls included.
    :param difficulty: a band of :data:`sokoban.generate.difficulty.BANDS` to keep only.
    :param seed: reproduces the run exactly; ``None`` picks one (in the report).
    :param layout: a name of :data:`~sokoban.generate.layouts.LAYOUTS`, or a floor array
        (``bool[height, width]``, e.g. from :func:`~sokoban.generate.layouts.from_level`).
    :param placement: ``"bfs"`` (exhaustive pull search), ``"walk"`` (random reverse
        walk) or ``"auto"`` (bfs when the room is small enough).
    :param metric: what "farthest" means for the pull search: ``"pushes"`` or ``"changes"``.
    :param workers: ``0`` runs here; ``None`` uses every core; ``scheduler`` a Dask cluster.
    :param max_attempts: give up after this many attempts (default ``50 * count + 50``,
        ``200 * count + 200`` with a difficulty target); the report says what went wrong.
    :param nodes: node limit of the verifying solver; ``seconds`` its time limit.
    :param budget: stop after this many seconds in all (the report says so); attempts
        already running finish first.
    :param on_level: called with each kept level, in order (for progress bars).
    :param solver: a stand-in for :func:`sokoban.solve.solve` called as
        ``solver(level, method, nodes, seconds)``, for tests.
    """
    spec = _spec(size, boxes, layout, placement, metric, difficulty)
    spec = dataclasses.replace(spec, method=method, nodes=nodes, seconds=seconds, solver=solver)
    width, height = spec.width, spec.height
    _check(spec)
    if count < 1:
        raise GenerateError(f"count must be at least 1, not {count}")
    if max_attempts is None:
        max_attempts = (200 if difficulty else 50) * count + (200 if difficulty else 50)
    if seed is None:
        seed = int(np.random.SeedSequence().entropy) % (1 << 63)  # type: ignore[arg-type]
    root = np.random.SeedSequence(seed)
    started = time.perf_counter()

    def tasks() -> Iterator[tuple[Spec, np.random.SeedSequence, int]]:
        for index in range(max_attempts):
            yield spec, root.spawn(1)[0], index

    kept: list[GeneratedLevel] = []
    rejected: collections.Counter[str] = collections.Counter()
    seen = Deduplicator()
    waiting: dict[int, Attempt] = {}
    next_index = 0
    out_of_time = False
    from sokoban.batch import run

    # In this process a task runs when submitted: submit one at a time, so none is wasted.
    in_flight = 1 if workers == 0 and scheduler is None else None
    results = run(_run_attempt, tasks(), workers=workers, scheduler=scheduler, in_flight=in_flight)
    try:
        for _, outcome in results:
            waiting[outcome.index] = outcome
            # Take outcomes in attempt order, so the kept set does not depend on timing.
            while next_index in waiting and len(kept) < count:
                outcome = waiting.pop(next_index)
                next_index += 1
                if on_attempt is not None:
                    on_attempt(outcome)
                if outcome.level is None:
                    rejected[outcome.reason] += 1
                elif not seen.add(outcome.level.level):
                    rejected["duplicate"] += 1
                else:
                    number = len(kept) + 1
                    level = outcome.level.level.with_metadata(
                        title=f"Generated {width}x{height} #{number}",
                        metadata=(
                            ("Seed", str(seed)),
                            ("Attempt", str(outcome.index)),
                            (
                                "Difficulty",
                                f"{outcome.level.difficulty.score} "
                                f"({outcome.level.difficulty.band})",
                            ),
                        ),
                    )
                    item = dataclasses.replace(outcome.level, level=level)
                    kept.append(item)
                    if on_level is not None:
                        on_level(item)
            if len(kept) >= count:
                break
            if budget is not None and time.perf_counter() - started > budget:
                out_of_time = True
                break
    finally:
        results.close()  # type: ignore[attr-defined]
    return GenerateReport(
        levels=kept,
        requested=count,
        attempts=next_index,
        rejected=dict(rejected),
        seed=seed,
        seconds=time.perf_counter() - started,
        out_of_time=out_of_time,
    )
