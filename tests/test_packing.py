"""The packing order's parking steps: boxes the retrograde analysis cannot bring back to a
start wait on a cell off the goals, as steps of the plan (``sokoban.solve._packing``),
counted and carried to by ``fess``."""

from __future__ import annotations

import numpy as np
import pytest
from public import PUBLIC
from test_fess import DATA, SMALL, level, xy

from sokoban import verify
from sokoban.solve import Limits, solve
from sokoban.solve._board import Board
from sokoban.solve._packing import (
    PackingOrder,
    packed_count,
    packing_order,
    ready_steps,
    steps_packed,
)
from sokoban.xsb import iter_levels


def plans() -> list[tuple[str, Board]]:
    boards = [(f"small {i}", Board(level(text))) for i, text in enumerate(SMALL)]
    for name in ("microban.xsb", "xsokoban.xsb"):
        boards += [(f"{name} {n}", Board(lv)) for n, lv in PUBLIC.levels(name)]
    return boards


def check_plan(board: Board, plan: PackingOrder) -> None:
    """The invariants of :class:`PackingOrder`, its steps against its goals."""
    steps, parent, feeds = plan.steps, plan.step_parent, plan.feeds
    m = len(steps)
    assert len(parent) == len(feeds) == m
    is_goal = feeds < 0
    # The goal steps are the order, every goal once.
    assert steps[is_goal].tolist() == plan.order.tolist()
    assert sorted(plan.order.tolist()) == sorted(board.goals.tolist())
    for i in range(m):
        assert parent[i] == -1 or parent[i] > i
        if not is_goal[i]:
            assert not board.goal[steps[i]]  # a parking cell is off the goals
            assert feeds[i] > i and is_goal[feeds[i]]
    # Each goal is fed by one parking at most.
    fed = feeds[~is_goal].tolist()
    assert len(fed) == len(set(fed))
    for i, p in enumerate(plan.parent):
        assert p == -1 or p > i


@pytest.mark.parametrize(("name", "board"), plans(), ids=lambda x: x if isinstance(x, str) else "")
def test_plan_steps_are_consistent(name: str, board: Board) -> None:
    check_plan(board, packing_order(board))
    plain = packing_order(board, parking=False)
    check_plan(board, plain)
    assert plain.steps.tolist() == plain.order.tolist()
    assert (plain.feeds == -1).all() and plain.step_parent.tolist() == plain.parent.tolist()


def test_levels_without_parking_keep_their_order() -> None:
    # Where no box needs parking, the order is the one of the analysis without it.
    for _, board in plans():
        plan = packing_order(board)
        if len(plan.parkings) == 0:
            plain = packing_order(board, parking=False)
            assert plan.order.tolist() == plain.order.tolist()
            assert plan.parent.tolist() == plain.parent.tolist()


def xsokoban_88() -> tuple[Board, PackingOrder]:
    board = Board(PUBLIC.level("xsokoban.xsb", 88))
    return board, packing_order(board)


def test_xsokoban_88_parks_boxes_before_the_goals_that_cut_their_cells_off() -> None:
    # The goal (1, 6) is filled by a push down from (1, 5), and (3, 5) by a push right
    # from (2, 5), once the goals around are full: their boxes wait on those cells, the
    # first from before (2, 3) is filled.
    board, plan = xsokoban_88()
    assert [xy(board, c) for c in plan.parkings] == [(1, 5), (2, 5)]
    at = np.flatnonzero(plan.feeds >= 0)
    assert [xy(board, plan.steps[plan.feeds[i]]) for i in at] == [(1, 6), (3, 5)]
    assert xy(board, plan.steps[plan.step_parent[at[0]]]) == (2, 3)
    # Without parking the boxes are taken off the board and the plan has no such steps.
    assert len(packing_order(board, parking=False).parkings) == 0


def test_xsokoban_85_parks_where_its_boxes_can_leave_and_fess_solves_it() -> None:
    # The greedy analysis parks two boxes on (6, 6), the nearest cell off the goals, and
    # one of them leaves only because nothing else can move: a step the forward search
    # cannot take. The search over parkings finds one where both leave by pulls back to
    # a start, (7, 5) and (8, 5), and fess by its default keys solves 85 with it in about
    # 42,000 expansions (not within 1.8 million with the greedy plan).
    lv = PUBLIC.level("xsokoban.xsb", 85)
    board = Board(lv)
    plan = packing_order(board)
    assert sorted(xy(board, c) for c in plan.parkings) == [(7, 5), (8, 5)]
    check_plan(board, plan)
    result = solve(lv, "fess", Limits(nodes=200_000, time=60))
    assert result.solved and verify(lv, result.solution).is_solved


def reference_packed(occ: np.ndarray, plan: PackingOrder) -> tuple[int, int]:
    """Slow :func:`steps_packed`: a step counts when it holds and so do all steps below it
    (the steps whose parent chain reaches it)."""
    steps, parent, feeds = plan.steps, plan.step_parent, plan.feeds

    def holds(i: int) -> bool:
        f = feeds[i]
        return bool(occ[steps[i]] >= 0 or (f >= 0 and occ[steps[f]] >= 0))

    def below(i: int) -> list[int]:
        return [j for j in range(len(steps)) if parent[j] == i]

    def packed(i: int) -> bool:
        return holds(i) and all(packed(j) for j in below(i))

    count = sum(packed(i) for i in range(len(steps)))
    out = sum(holds(i) and not packed(i) for i in range(len(steps)) if feeds[i] < 0)
    return count, out


def test_steps_packed_matches_a_slow_reference() -> None:
    board, plan = xsokoban_88()
    rng = np.random.default_rng(88)
    ok = np.ones(len(plan.steps), np.uint8)
    cells = np.concatenate([plan.steps, board.goals])
    for trial in range(300):
        occ = np.full(board.n, -1, np.int32)
        # Fill a prefix of the plan (so that long chains count), then scatter some more.
        prefix = rng.integers(0, len(plan.steps) + 1)
        for i in range(prefix):
            occ[plan.steps[i]] = i
        for c in rng.choice(cells, size=rng.integers(0, 6)):
            occ[c] = 0 if rng.random() < 0.7 else -1
        assert steps_packed(occ, plan.steps, plan.step_parent, plan.feeds, ok) == (
            reference_packed(occ, plan)
        ), trial


def test_a_parked_box_counts_on_its_cell_and_on_the_goal_it_feeds() -> None:
    board, plan = xsokoban_88()
    at = int(np.flatnonzero(plan.feeds >= 0)[0])
    goal_step = int(plan.feeds[at])
    ok = np.ones(len(plan.steps), np.uint8)
    occ = np.full(board.n, -1, np.int32)
    for i in range(at):
        occ[plan.steps[i]] = i
    args = (plan.steps, plan.step_parent, plan.feeds, ok)
    assert steps_packed(occ, *args) == (at, 0)
    targets = np.empty(1, np.int64)
    assert ready_steps(occ, *args, targets) == 1 and targets[0] == at
    occ[plan.steps[at]] = at  # parked
    assert steps_packed(occ, *args)[0] == at + 1
    assert ready_steps(occ, *args, targets) == 1 and targets[0] == at + 1
    occ[plan.steps[at]] = -1
    occ[plan.steps[goal_step]] = at  # moved on to its goal: the parking still holds
    packed, _ = steps_packed(occ, *args)
    assert packed >= at + 1
    # The goals alone count as before parking existed.
    plain_ok = np.ones(len(plan.order), np.uint8)
    assert packed_count(occ, plan.order, plan.parent, plain_ok)[0] <= packed


def test_fess_with_parking_solves_xsokoban_87() -> None:
    # 87's goal area fills only with boxes parked inside it first: with the parking steps
    # the features key solves it in about 70,000 expansions; without them it stalls with
    # 6 of 12 goals packed (benchmarks/solver.md).
    lv = PUBLIC.level("xsokoban.xsb", 87)
    options = {"key": "features", "packed_walls": "off"}
    result = solve(lv, "fess", Limits(nodes=300_000, time=60), **options)
    assert result.solved and verify(lv, result.solution).is_solved
    stuck = solve(lv, "fess", Limits(nodes=60_000, time=60), parking=False, **options)
    assert not stuck.solved


def test_the_project_levels_plan_without_errors() -> None:
    for name in ("tiny.xsb", "variants.xsb"):
        for lv in iter_levels(DATA / name):
            if lv.problems() or lv.player is None:
                continue
            board = Board(lv)
            check_plan(board, packing_order(board))
