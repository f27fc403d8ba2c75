"""The generator: pull search against a plain push BFS, reverse walks, generate() end to end.

``naive_search`` is the oracle: a slow, obviously correct breadth-first search over pushes.
``generate()`` runs with the real solver engine and its results are checked against the
oracle; ``naive_solver`` (the oracle behind the ``solver=`` hook) tests the hook itself.
"""

from __future__ import annotations

import dataclasses
import enum
from collections import deque

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sokoban import Level, Solution, verify
from sokoban.generate import GenerateError, attempt, generate, layouts, pull_search, reverse_walk
from sokoban.generate.dedup import canonical
from sokoban.generate.difficulty import BANDS, band, measure, score
from sokoban.generate.generator import Spec, _goal_cells
from sokoban.generate.reverse import CompactFloor
from sokoban.lurd import walk

# --- the oracle --------------------------------------------------------------------------


def _region(level: Level, boxes: frozenset[int], start: int) -> set[int]:
    seen = {start}
    todo = [start]
    while todo:
        cell = todo.pop()
        for _, n in level.neighbours(cell):
            if n not in seen and n not in level.walls and n not in boxes:
                seen.add(n)
                todo.append(n)
    return seen


def naive_search(level: Level) -> tuple[Solution | None, int]:
    """A push-optimal solution (``None`` if unsolvable) and the states expanded."""
    player = level.player
    assert player is not None
    start = (level.boxes, min(_region(level, level.boxes, player)))
    parent: dict[tuple[frozenset[int], int], tuple | None] = {start: None}
    todo = deque([start])
    expanded = 0
    goal = None
    while todo:
        state = todo.popleft()
        boxes, normal = state
        if boxes <= level.goals:
            goal = state
            break
        expanded += 1
        for p in _region(level, boxes, normal):
            for direction, b in level.neighbours(p):
                if b not in boxes:
                    continue
                beyond = level.neighbour(b, direction)
                if beyond is None or beyond in level.walls or beyond in boxes:
                    continue
                moved = (boxes - {b}) | {beyond}
                nxt = (moved, min(_region(level, moved, b)))
                if nxt not in parent:
                    parent[nxt] = (state, p, direction)
                    todo.append(nxt)
    if goal is None:
        return None, expanded
    pushes = []
    state = goal
    while parent[state] is not None:
        state, p, direction = parent[state]  # type: ignore[misc]
        pushes.append((p, direction))
    steps = Solution()
    position = level
    for p, direction in reversed(pushes):
        path = walk(position, position.player, p)  # type: ignore[arg-type]
        assert path is not None
        steps = steps + path + Solution(((direction, True),))
        position = verify_prefix(level, steps)
    return steps, expanded


def verify_prefix(level: Level, steps: Solution) -> Level:
    return level.replay(steps).final


class Status(enum.Enum):
    SOLVED = 1
    NODE_LIMIT = 2


@dataclasses.dataclass
class Stats:
    expanded: int


@dataclasses.dataclass
class Result:
    status: Status
    solution: Solution | None
    optimal: bool
    stats: Stats

    @property
    def solved(self) -> bool:
        return self.status is Status.SOLVED


def naive_solver(level: Level, method: str, nodes: int | None, seconds: float | None) -> Result:
    """The ``solver=`` hook of generate(), answered by the oracle."""
    solution, expanded = naive_search(level)
    if solution is None or (nodes is not None and expanded > nodes):
        return Result(Status.NODE_LIMIT, None, False, Stats(expanded))
    return Result(Status.SOLVED, solution, True, Stats(expanded))


# --- pull search -------------------------------------------------------------------------


def _room(seed: int, size: int = 7) -> np.ndarray:
    return layouts.obstacles(size, size, np.random.default_rng(seed), density=0.2)


def _goals(floor: np.ndarray, k: int, rng: np.random.Generator) -> np.ndarray:
    """``k`` goal cells from which a box can be pulled (grid cells)."""
    board = CompactFloor.from_floor(floor)
    return board.cells[rng.choice(_goal_cells(board), k, replace=False)]


@pytest.mark.parametrize("seed", range(4))
def test_pull_search_depth_is_the_optimal_push_count(seed: int) -> None:
    rng = np.random.default_rng(seed)
    floor = _room(seed)
    goals = _goals(floor, 2, rng)
    search = pull_search(floor, goals)
    assert search.complete and len(search) > 10
    for i in rng.choice(len(search), 8, replace=False):
        level = search.level(int(i), rng)
        solution, _ = naive_search(level)
        assert solution is not None
        assert verify(level, solution).is_solved
        assert solution.pushes == search.depth[i]


def test_pull_search_on_a_corridor() -> None:
    floor = np.zeros((3, 7), dtype=bool)
    floor[1, 1:6] = True
    search = pull_search(floor, [1 * 7 + 5])
    # The box can be pulled back to cell 2 (three pushes); cell 1 needs the player behind it.
    assert search.max_depth == 3
    assert sorted(search.depth.tolist()) == [0, 1, 2, 3]
    i = search.farthest(np.random.default_rng(0))
    assert search.level(i, np.random.default_rng(0)).xsb() == "#######\n#@$  .#\n#######"


def test_truncated_search_keeps_exact_depths() -> None:
    rng = np.random.default_rng(3)
    floor = layouts.obstacles(8, 8, rng, density=0.1)
    goals = _goals(floor, 3, rng)
    full = pull_search(floor, goals)
    cut = pull_search(floor, goals, max_states=200)
    assert full.complete and not cut.complete
    assert 200 <= len(cut) < len(full)
    depth = {tuple(row): d for row, d in zip(full.states.tolist(), full.depth, strict=True)}
    assert all(
        depth[tuple(row)] == d for row, d in zip(cut.states.tolist(), cut.depth, strict=True)
    )


def test_farthest_by_changes_and_depth_window() -> None:
    rng = np.random.default_rng(1)
    floor = _room(1, 8)
    goals = _goals(floor, 3, rng)
    search = pull_search(floor, goals)
    by_push = search.farthest(rng, "pushes")
    by_change = search.farthest(rng, "changes")
    assert search.depth[by_push] == search.max_depth
    assert search.changes[by_change] == search.changes.max()
    i = search.farthest(rng, depths=(2, 3))
    assert 2 <= search.depth[i] <= 3
    assert search.farthest(rng, depths=(10_000, 20_000)) is None
    with pytest.raises(ValueError, match="metric 'moves'"):
        search.farthest(rng, "moves")


def test_reverse_walk_is_solvable_and_reproducible() -> None:
    floor = _room(2, 8)
    goals = _goals(floor, 3, np.random.default_rng(2))
    a = reverse_walk(floor, goals, np.random.default_rng(9), steps=80)
    b = reverse_walk(floor, goals, np.random.default_rng(9), steps=80)
    assert a is not None and b is not None
    assert a.level == b.level and a.score == b.score and a.score > 0
    solution, _ = naive_search(a.level)
    assert solution is not None and solution.pushes <= a.pulls


# --- difficulty --------------------------------------------------------------------------


def test_measure_and_bands() -> None:
    level = Level.from_xsb("#######\n#@$ . #\n#  $ .#\n#######")
    solution, nodes = naive_search(level)
    assert solution is not None
    d = measure(level, solution, nodes)
    assert (d.pushes, d.box_changes) == (4, 2)
    assert d.score == pytest.approx(score(4, 2, nodes), abs=0.01)
    assert d.moves == len(solution) and d.walk_ratio == pytest.approx((d.moves - 4) / 4, abs=1e-3)
    assert d.cells_visited >= 5
    lows = [low for low, _ in BANDS.values()]
    assert lows == sorted(lows)
    assert [band(low) for low in lows] == list(BANDS)


# --- generate() --------------------------------------------------------------------------


def test_generate_keeps_distinct_optimally_solved_levels() -> None:
    report = generate((7, 7), boxes=2, count=6, seed=11)
    assert report.complete and len(report.levels) == 6
    assert len({canonical(g.level) for g in report.levels}) == 6
    for g in report.levels:
        assert verify(g.level, g.solution).is_solved
        optimum, _ = naive_search(g.level)
        assert optimum is not None and g.solution.pushes == optimum.pushes
        assert g.level.solutions == (g.solution.lurd(),)
        assert g.level.title.startswith("Generated 7x7 #")
        assert g.difficulty.pushes >= 1


def test_same_seed_same_levels_and_attempt_reproduces_one() -> None:
    a = generate((7, 7), boxes=2, count=3, seed=5)
    b = generate((7, 7), boxes=2, count=3, seed=5)
    c = generate((7, 7), boxes=2, count=3, seed=6)
    assert [g.level for g in a.levels] == [g.level for g in b.levels]
    assert [g.level.xsb() for g in a.levels] != [g.level.xsb() for g in c.levels]
    last = a.levels[-1]
    spec = Spec(7, 7, 2)
    again = attempt(spec, last.seed, last.attempt).level
    assert again is not None and again.level.xsb() == last.level.xsb()


def test_workers_give_the_same_levels() -> None:
    here = generate((8, 8), boxes=3, count=6, seed=3, workers=0)
    pool = generate((8, 8), boxes=3, count=6, seed=3, workers=2)
    assert [g.level for g in here.levels] == [g.level for g in pool.levels]


@pytest.mark.parametrize("name", sorted(layouts.LAYOUTS))
def test_every_layout_and_the_walk_placement(name: str) -> None:
    for placement in ("bfs", "walk"):
        report = generate((8, 8), boxes=2, count=2, seed=1, layout=name, placement=placement)
        assert len(report.levels) == 2
        assert all(g.placement == placement for g in report.levels)


def test_layout_from_a_file() -> None:
    floor = layouts.parse_layout("#######\n#     #\n# # # #\n#     #\n#######")
    report = generate(boxes=2, count=2, seed=1, layout=floor)
    assert len(report.levels) == 2
    assert all(g.level.width == 7 and g.level.height == 5 for g in report.levels)


def test_a_targeted_band_is_met() -> None:
    report = generate((8, 8), boxes=2, count=2, seed=2, difficulty="easy")
    assert report.complete
    assert all(g.difficulty.band == "easy" for g in report.levels)


def test_impossible_requests_fail_fast_or_report() -> None:
    with pytest.raises(GenerateError, match="5 boxes do not fit a 5x5 board"):
        generate((5, 5), boxes=5)
    with pytest.raises(GenerateError, match="too small"):
        generate((3, 9), boxes=1)
    with pytest.raises(ValueError, match="unknown difficulty 'insane'"):
        generate((7, 7), boxes=2, difficulty="insane")
    with pytest.raises(GenerateError, match="unknown layout 'maze'"):
        generate((7, 7), boxes=2, layout="maze")
    # A 5 x 5 room with one box cannot be expert: bounded attempts, then a report.
    report = generate((5, 5), boxes=1, count=1, seed=0, difficulty="expert", max_attempts=30)
    assert not report.complete and report.attempts == 30
    assert sum(report.rejected.values()) == 30
    assert report.rejected["room cannot reach the band"] >= 15
    assert set(report.rejected) <= {"room cannot reach the band", "room too small"}
    assert "0 of 1 levels in 30 attempts" in report.summary()


def test_solver_failures_are_rejections_not_levels() -> None:
    report = generate(
        (7, 7), boxes=2, count=1, seed=4, nodes=0, max_attempts=5, solver=naive_solver
    )
    assert report.levels == [] and report.attempts == 5
    assert report.rejected["solver node limit"] >= 3


def test_bands_order_solver_effort() -> None:
    """The hard band needs clearly more search and pushes than the easy band."""
    easy = generate((10, 10), 4, count=8, seed=21, difficulty="easy")
    hard = generate((10, 10), 4, count=8, seed=21, difficulty="hard")
    assert easy.complete and hard.complete
    assert all(g.difficulty.band == "hard" for g in hard.levels)

    def median(values: list[int]) -> float:
        return float(np.median(values))

    assert median([g.difficulty.nodes for g in hard.levels]) > 4 * median(
        [g.difficulty.nodes for g in easy.levels]
    )
    assert min(g.difficulty.pushes for g in hard.levels) > max(
        g.difficulty.pushes for g in easy.levels
    )


def test_big_rooms_use_the_reverse_walk_without_recursion() -> None:
    import sys

    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(200)  # gym-sokoban's depth-first reverse play would fail here
    try:
        report = generate((30, 30), 6, count=2, seed=1, layout="rooms", seconds=30)
    finally:
        sys.setrecursionlimit(limit)
    assert report.complete
    assert all(g.placement == "walk" for g in report.levels)
    assert all(verify(g.level, g.solution).is_solved for g in report.levels)


def test_time_budget_stops_a_run() -> None:
    report = generate((10, 10), 4, count=10_000, seed=1, budget=0.5)
    assert report.out_of_time and not report.complete
    assert 0 < len(report.levels) < 10_000
    assert "stopped at the time budget" in report.summary()


def naive_pulls(floor: np.ndarray, goals: list[int]) -> dict[tuple[frozenset[int], int], int]:
    """Every state pulls reach from the solved position, with its BFS depth (grid cells;
    the player as the smallest cell of its region)."""
    width = floor.shape[1]
    free = set(np.flatnonzero(floor.ravel()).tolist())

    def region(boxes: frozenset[int], start: int) -> set[int]:
        seen = {start}
        todo = [start]
        while todo:
            c = todo.pop()
            for n in (c - 1, c + 1, c - width, c + width):
                if n in free and n not in boxes and n not in seen:
                    seen.add(n)
                    todo.append(n)
        return seen

    solved = frozenset(goals)
    depth: dict[tuple[frozenset[int], int], int] = {}
    todo: deque[tuple[frozenset[int], int]] = deque()
    for cell in sorted(free - solved):
        state = (solved, min(region(solved, cell)))
        if state not in depth:
            depth[state] = 0
            todo.append(state)
    while todo:
        boxes, player = todo.popleft()
        for p in region(boxes, player):
            for step in (-1, 1, -width, width):
                box, behind = p + step, p - step
                if box in boxes and behind in free and behind not in boxes:
                    moved = (boxes - {box}) | {p}
                    state = (moved, min(region(moved, behind)))
                    if state not in depth:
                        depth[state] = depth[(boxes, player)] + 1
                        todo.append(state)
    return depth


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 3))
def test_pull_search_kernel_matches_the_plain_search(seed: int, k: int) -> None:
    rng = np.random.default_rng(seed)
    floor = layouts.obstacles(7, 6, rng, density=0.2)
    cells = np.flatnonzero(floor.ravel())
    goals = sorted(int(c) for c in rng.choice(cells, k, replace=False))
    search = pull_search(floor, goals)
    found = {
        (
            frozenset(int(search.board.cells[b]) for b in row[:k]),
            int(search.board.cells[row[k]]),
        ): int(d)
        for row, d in zip(search.states, search.depth, strict=True)
    }
    assert search.complete
    assert found == naive_pulls(floor, goals)
