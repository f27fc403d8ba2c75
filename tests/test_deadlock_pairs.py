"""Two-box deadlocks (:mod:`sokoban.solve._pairs`): positions built to trigger them and
look-alikes that are not, the table against a plain-Python search of every two-box
sub-problem of random small rooms, and push-optimal search still optimal with it."""

from __future__ import annotations

import random

import naive
import numpy as np
import pytest
from test_solve import SMALL

from sokoban import Level
from sokoban.solve import Limits, Status, solve
from sokoban.solve._board import Board
from sokoban.solve._deadlock import MOVABLE, frozen
from sokoban.solve._pairs import MAX_BYTES, pair_dead, pair_table
from sokoban.xsb import load


def level(text: str) -> Level:
    return Level.from_xsb(text.strip("\n"))


def dead(board: Board, a: int, b: int, player: int) -> bool:
    """The table's verdict on boxes at level cells ``a``, ``b`` and the player on ``player``."""
    occ = np.full(board.n, -1, np.int32)
    occ[board.index[a]], occ[board.index[b]] = 0, 1
    t = int(board.index[a])
    return bool(pair_dead(t, int(board.index[player]), occ, *pair_table(board)))


def frozen_pair(board: Board, a: int, b: int) -> bool:
    """Whether the freeze test finds either box of level cells ``a``, ``b`` frozen."""
    occ = np.full(board.n, -1, np.int32)
    occ[board.index[a]], occ[board.index[b]] = 0, 1
    stack = np.zeros(board.n, np.uint8)
    return any(
        frozen(board.index[c], occ, board.nbr, board.goal, board.dead, stack) != MOVABLE
        for c in (a, b)
    )


def two_box_solvable(lv: Level, boxes: frozenset[int], player: int) -> bool:
    """Whether pushes take both ``boxes`` onto goals from ``player``: breadth-first search
    over (boxes, least cell of the player's region), nothing pruned."""

    def key(bs: frozenset[int], p: int) -> tuple[frozenset[int], int]:
        return bs, min(naive.reachable(lv, p, bs))

    seen = {key(boxes, player)}
    todo = [(boxes, player)]
    while todo:
        bs, p = todo.pop()
        if bs <= lv.goals:
            return True
        for nxt in naive.pushes(lv, bs, p):
            k = key(*nxt)
            if k not in seen:
                seen.add(k)
                todo.append(nxt)
    return False


CORRIDOR = """
########
#.$ $@.#
########"""


def test_player_side_decides_a_corridor_pair() -> None:
    # Boxes on 2 and 4 of a dead-end corridor: with the player on the right the box on 4
    # can only go left, against its neighbour; from between them both reach goals.
    lv = level(CORRIDOR)
    board = Board(lv)
    w = lv.width
    a, b = w + 4, w + 2
    assert dead(board, a, b, w + 5)
    assert dead(board, a, b, w + 6)
    assert not dead(board, a, b, w + 3)
    # The table sees what neither dead squares nor freeze deadlocks see.
    assert not board.dead.any()
    assert solve(lv, "bfs", pairs=False).status is Status.UNSOLVABLE


def random_room(rng: random.Random, width: int, height: int) -> Level | None:
    """A walled room with random inner walls, two boxes and two or three goals, the floor
    kept to the player's region; None when too little floor is left."""
    cells = [(x, y) for y in range(1, height - 1) for x in range(1, width - 1)]
    floor = {c for c in cells if rng.random() > 0.25}
    if len(floor) < 6:
        return None
    start = rng.choice(sorted(floor))
    region, todo = {start}, [start]
    while todo:
        x, y = todo.pop()
        for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1)):
            c = (x + dx, y + dy)
            if c in floor and c not in region:
                region.add(c)
                todo.append(c)
    if len(region) < 6:
        return None
    spots = rng.sample(sorted(region - {start}), 5)
    goals = set(spots[: rng.choice((2, 3))])
    boxes = {spots[3], spots[4]}
    if len(goals) == 3:
        goals.discard(spots[2])
        boxes = {spots[2], spots[4]} if rng.random() < 0.5 else boxes
    rows = []
    for y in range(height):
        row = ""
        for x in range(width):
            c = (x, y)
            if c not in region:
                row += "#"
            elif c == start:
                row += "+" if c in goals else "@"
            elif c in boxes:
                row += "*" if c in goals else "$"
            else:
                row += "." if c in goals else " "
        rows.append(row)
    return Level.from_xsb("\n".join(rows))


def test_table_agrees_with_a_plain_search_on_random_rooms() -> None:
    rng = random.Random(20261129)
    checked = deadlocks = hidden = rooms = 0
    while rooms < 80:
        lv = random_room(rng, rng.choice((5, 6, 7)), rng.choice((5, 6, 7)))
        if lv is None:
            continue
        rooms += 1
        board = Board(lv)
        live, table, starts, partners = pair_table(board)
        assert table.shape[0] == int((board.dead == 0).sum())
        floor = [int(c) for c in board.cells]
        live_cells = [c for c in floor if not board.dead[board.index[c]]]
        for i, a in enumerate(live_cells):
            for b in live_cells[i + 1 :]:
                boxes = frozenset((a, b))
                verdicts: dict[int, bool] = {}
                for p in floor:
                    if p in boxes:
                        continue
                    region = min(naive.reachable(lv, p, boxes))
                    if region not in verdicts:
                        verdicts[region] = two_box_solvable(lv, boxes, p)
                    assert dead(board, a, b, p) == (not verdicts[region]), (lv.xsb(), a, b, p)
                    assert dead(board, b, a, p) == (not verdicts[region])
                    checked += 1
                    deadlocks += not verdicts[region]
                    hidden += not verdicts[region] and not frozen_pair(board, a, b)
    # Both verdicts occur often enough for the comparison to mean something.
    assert checked > 2000
    assert 0.05 * checked < deadlocks < 0.95 * checked
    # Many of them neither box is frozen in: the freeze test would not see them.
    assert hidden > 0.02 * checked


def test_no_table_for_one_box_or_huge_boards() -> None:
    lv = level(
        """
#######
#@ $ .#
#######"""
    )
    assert pair_table(Board(lv))[1].shape == (0, 0, 0)
    assert solve(lv, "astar").solution.pushes == 2
    assert MAX_BYTES <= 64 << 20


def test_pruning_shrinks_an_exhaustive_search() -> None:
    # Unsolvable (found among random rooms; the plain search agrees): every push from the
    # start leads to a two-box deadlock, so the table ends the search after one expansion.
    lv = level(
        """
#######
# ## @#
# . # #
# #$  #
#     #
# .$ ##
#######"""
    )
    assert naive.fewest_pushes(lv) is None
    with_pairs = solve(lv, "bfs")
    without = solve(lv, "bfs", pairs=False)
    assert with_pairs.status is Status.UNSOLVABLE
    assert without.status is Status.UNSOLVABLE
    assert with_pairs.stats.expanded == 1
    assert without.stats.expanded > 5


def test_astar_stays_optimal_on_microban_1_to_30(public_levels) -> None:
    for number, lv in public_levels.levels("microban.xsb", range(1, 31)):
        result = solve(lv, "astar", Limits(time=20))
        assert result.status is Status.SOLVED, number
        assert result.optimal
        assert result.solution.pushes == public_levels.pushes("microban.xsb", number), number


@pytest.mark.parametrize("method", ["astar", "moves", "bfs", "greedy", "fast"])
def test_project_levels_with_and_without(method: str, data_dir) -> None:
    # The same verdict with the table as without, and the same optimum.
    levels = [level(text) for text in SMALL]
    for path in sorted(data_dir.glob("*.xsb")):
        levels += [lv for lv in load(path) if not lv.problems() and not lv.is_solved]
    assert len(levels) > 5
    for lv in levels:
        on = solve(lv, method, Limits(time=10))
        off = solve(lv, method, Limits(time=10), pairs=False)
        assert on.status is off.status, lv.xsb()
        if on.solved and method in ("astar", "moves", "bfs"):
            assert on.optimal and off.optimal
            assert on.solution.pushes == off.solution.pushes
            if method == "moves":
                assert on.solution.moves == off.solution.moves
