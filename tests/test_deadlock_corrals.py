"""Corral deadlocks (:mod:`sokoban.solve._corral_deadlock`): a position built to trigger
one and a look-alike that is solvable, every verdict on random rooms against a plain
search of the whole position, and push-optimal search still optimal with the check on."""

from __future__ import annotations

import random

import naive
import numpy as np
import pytest

from sokoban import Level
from sokoban.solve import Status, solve
from sokoban.solve._best_first import Search
from sokoban.solve._board import Board
from sokoban.solve._corral_deadlock import corral_dead, new_scratch
from sokoban.solve._reach import reach


def level(text: str) -> Level:
    return Level.from_xsb(text.strip("\n"))


def corral_deadlock(lv: Level, neighbours: bool = False) -> bool:
    """The check on the start position of ``lv``, every corral looked at; with
    ``neighbours``, the boxes next to a fence join its sub-problem."""
    board = Board(lv)
    search = Search(board, corral_deadlocks=True, neighbours=neighbours)
    occ = np.full(board.n, -1, np.int32)
    occ[board.boxes] = np.arange(board.nboxes, dtype=np.int32)
    seen = np.zeros(board.n, np.int32)
    queue = np.zeros(board.n, np.int32)
    reach(board.player, occ, board.nbr, seen, 1, queue, queue.copy())
    scratch = new_scratch(board.n)
    args = (board.boxes, board.player, -1, occ, seen, 1, search.kernel_board, search.learned)
    args += (scratch,)
    return bool(corral_dead(*args))


# The top-left goals are walled in by three boxes: pushing the middle one up walls the top
# row with two boxes and one goal, pushing the lower one up leaves it only the corner.
WALLED_IN = """
#######
# .$  #
#.$$  #
#$    #
#  .@.#
#######"""

# The same, but the box on the top row stands on a goal: the middle box goes up and in.
ON_GOAL = """
#######
# .*  #
#.$$  #
#$    #
#  .@ #
#######"""


# The pocket right of the top box is walled in by two boxes (a fence too small to search),
# and a third box below the top one locks both: the lower fence box can only go up into
# the pocket's dead corner, the top one only right into it, the third one nowhere. (The
# box on the goal below keeps the three from being the whole position.)
LOCKED_FROM_OUTSIDE = """
#######
#. $ ##
#  $$ #
#  .. #
#*  @ #
#######"""

# The same without the third box (and its goal): the lower box goes left and frees the top.
NOT_LOCKED = """
#######
#. $ ##
#   $ #
#  .  #
#   @ #
#######"""


def test_walled_in_goals_are_a_corral_deadlock() -> None:
    lv = level(WALLED_IN)
    assert naive.fewest_pushes(lv) is None
    assert corral_deadlock(lv)
    # The search stops at the start with the check, and goes on without it.
    on = solve(lv, "bfs", corral_deadlocks=True)
    off = solve(lv, "bfs")
    assert on.status is off.status is Status.UNSOLVABLE
    assert on.stats.expanded == 1 < off.stats.expanded


def test_look_alike_with_a_box_on_goal_is_not() -> None:
    lv = level(ON_GOAL)
    assert not corral_deadlock(lv)
    result = solve(lv, "astar", corral_deadlocks=True)
    assert result.solved and result.solution.pushes == naive.fewest_pushes(lv) == 6


def test_a_box_next_to_the_fence_can_lock_it() -> None:
    lv = level(LOCKED_FROM_OUTSIDE)
    assert naive.fewest_pushes(lv) is None
    assert not corral_deadlock(lv)  # the fence alone (two boxes) is not searched
    assert corral_deadlock(lv, neighbours=True)
    free = level(NOT_LOCKED)
    assert naive.fewest_pushes(free) is not None
    assert not corral_deadlock(free, neighbours=True)
    # fess stops at once with the check and its neighbours.
    result = solve(lv, "fess", corral_deadlocks=True, neighbours=True)
    assert result.status is Status.UNSOLVABLE and result.stats.expanded <= 2


def random_room(rng: random.Random) -> Level | None:
    """A 5x4 room inside walls with a few inner walls and four boxes and goals."""
    width, height = 7, 6
    cells = [(x, y) for y in range(1, height - 1) for x in range(1, width - 1)]
    rng.shuffle(cells)
    boxes = set(cells[:4])
    goals = set(cells[4:8]) if rng.random() < 0.7 else set(cells[1:5])
    player = cells[8]
    walls = set(cells[9 : 9 + rng.randint(0, 3)])
    if player in goals:
        return None
    rows = []
    for y in range(height):
        row = ""
        for x in range(width):
            c = (x, y)
            if x in (0, width - 1) or y in (0, height - 1) or c in walls:
                row += "#"
            elif c in boxes:
                row += "*" if c in goals else "$"
            elif c == player:
                row += "@"
            else:
                row += "." if c in goals else " "
        rows.append(row)
    lv = Level.from_xsb("\n".join(rows))
    return None if lv.problems() else lv


@pytest.mark.parametrize("neighbours", [False, True])
def test_every_corral_deadlock_on_random_rooms_is_unsolvable(neighbours: bool) -> None:
    # Soundness: a position the check calls dead has no solution by the plain search.
    rng = random.Random(11)
    found = tried = 0
    while found < 25 and tried < 50000:
        tried += 1
        lv = random_room(rng)
        if lv is None or not corral_deadlock(lv, neighbours):
            continue
        found += 1
        assert naive.fewest_pushes(lv) is None, lv.xsb()
    assert found == 25


@pytest.mark.parametrize("neighbours", [False, True])
def test_astar_with_the_check_stays_optimal_on_random_rooms(neighbours: bool) -> None:
    rng = random.Random(5)
    checked = 0
    while checked < 40:
        lv = random_room(rng)
        if lv is None:
            continue
        best = naive.fewest_pushes(lv)
        result = solve(lv, "astar", corral_deadlocks=True, neighbours=neighbours)
        if best is None:
            assert result.status is Status.UNSOLVABLE
        else:
            assert result.solved and result.optimal and result.solution.pushes == best
        checked += 1
