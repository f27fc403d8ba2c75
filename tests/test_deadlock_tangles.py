"""Tangle deadlocks (:func:`sokoban.solve._corral_deadlock.tangle_dead`): boxes off goals
linked to each other, diagonals too, that alone cannot all reach goals, checked against a
plain search of the whole position on random rooms; the loose sub-search that drops the
boxes coming apart; and a tangle in a big position that no corral holds."""

from __future__ import annotations

import random

import naive
import numpy as np
import pytest
from test_deadlock_corrals import corral_deadlock, random_room

from sokoban import Level
from sokoban.solve import Status, solve
from sokoban.solve._best_first import Search
from sokoban.solve._board import Board
from sokoban.solve._corral_deadlock import (
    ALIVE,
    DEAD,
    OVER,
    T_PROVED,
    T_SEARCHES,
    _solvable,
    new_scratch,
    tangle_dead,
)


def level(text: str) -> Level:
    return Level.from_xsb(text.strip("\n"))


def tangle_deadlock(lv: Level) -> bool:
    """The check on the start position of ``lv``, every tangle looked at."""
    board = Board(lv)
    search = Search(board, corral_deadlocks=True, tangles=True)
    occ = np.full(board.n, -1, np.int32)
    occ[board.boxes] = np.arange(board.nboxes, dtype=np.int32)
    scratch = new_scratch(board.n)
    args = (search.kernel_board, search.learned, scratch)
    return bool(tangle_dead(board.boxes, board.player, -1, occ, *args))


# Positions of XSokoban's level 28 ("screen.28", public): the same 20 boxes and goals.
# In the first, seven boxes off goals at the bottom left hold each other so that none can
# get out; the player walks around them, so no corral fences them. In the second, one of
# them stands a step further right: the seven come apart.
SCREEN_28_TANGLED = """
         #####
     #####@  #
    ##       ####
#####        ##*#
#           ##**#
#  ###### ###** #
## #  #    #**. #
#     #    #**. #
#  #$ ## ####*.*#
#### $$     ##.*#
   ## $      ...#
    # $$    #  *#
    #  $     ####
    ######   #
         #####"""


def test_a_tangle_no_corral_holds_is_found() -> None:
    lv = level(SCREEN_28_TANGLED)
    assert not corral_deadlock(lv, neighbours=True)
    assert tangle_deadlock(lv)


# Three boxes in a row along the top wall, which no push brings onto a goal; and a room
# to try three other boxes in, far from the goals.
ROW = """
##########
#$$$     #
#        #
#      ..#
#@  $  ..#
##########"""


def test_loose_sub_search_drops_boxes_that_come_apart() -> None:
    lv = level(ROW)
    board = Board(lv)
    search = Search(board, corral_deadlocks=True, tangles=True)
    scratch = new_scratch(board.n)
    index = board.index
    row = np.array(sorted(index[c] for c in lv.boxes if c // lv.width == 1), np.int16)
    player = int(board.player)
    dead, _ = _solvable(row, 3, player, 0, 512, search.kernel_board, scratch, True)
    assert dead == DEAD
    # Three boxes in a row in the middle of the room: alive in a few states once a box
    # stands apart, where putting all three on goals takes more than the budget.
    apart = np.array(sorted(index[2 * lv.width + x] for x in (2, 3, 4)))
    verdict, states = _solvable(
        apart.astype(np.int16), 3, player, 0, 512, search.kernel_board, scratch, True
    )
    assert verdict == ALIVE and states < 16
    strict, _ = _solvable(
        apart.astype(np.int16), 3, player, 0, 512, search.kernel_board, scratch, False
    )
    assert strict == OVER


@pytest.mark.parametrize("seed", [3, 4])
def test_every_tangle_deadlock_on_random_rooms_is_unsolvable(seed: int) -> None:
    # Soundness: a position the check calls dead has no solution by the plain search.
    rng = random.Random(seed)
    found = tried = 0
    while found < 30 and tried < 20000:
        tried += 1
        lv = random_room(rng)
        if lv is None or not tangle_deadlock(lv):
            continue
        found += 1
        assert naive.fewest_pushes(lv) is None, lv.xsb()
    assert found == 30


def test_astar_with_tangles_stays_optimal_on_random_rooms() -> None:
    rng = random.Random(8)
    checked = proved = 0
    while checked < 40:
        lv = random_room(rng)
        if lv is None:
            continue
        best = naive.fewest_pushes(lv)
        result = solve(lv, "astar", corral_deadlocks=True, tangles=True)
        if best is None:
            assert result.status is Status.UNSOLVABLE
        else:
            assert result.solved and result.optimal and result.solution.pushes == best
        checked += 1
        proved += tangle_deadlock(lv)
    assert proved > 0


def test_tangle_counts_are_kept() -> None:
    board = Board(level(SCREEN_28_TANGLED))
    search = Search(board, corral_deadlocks=True, tangles=True)
    occ = np.full(board.n, -1, np.int32)
    occ[board.boxes] = np.arange(board.nboxes, dtype=np.int32)
    scratch = new_scratch(board.n)
    args = (search.kernel_board, search.learned, scratch)
    hits = [tangle_dead(board.boxes, board.player, int(b), occ, *args) for b in board.boxes]
    counts = search.learned.counts
    # One sub-search proves the tangle; the pattern it leaves answers for the others.
    assert counts[T_SEARCHES] == counts[T_PROVED] == 1
    assert sum(hits) == 7
