"""The backward (pull) search of the perimeter search (:mod:`sokoban.solve._pull_search`):
its pull distances against the naive lone-box search, its solutions and the forward
searches' meetings with it replayed, and running out of positions proving a level
unsolvable."""

from __future__ import annotations

import numpy as np
import pytest
from naive import fewest_pushes, lone_box_pushes
from public import PUBLIC

from sokoban import Level
from sokoban.lurd import verify
from sokoban.solve import Limits, _driver, solve
from sokoban.solve._best_first import Search
from sokoban.solve._board import INF, Board
from sokoban.solve._bounds import new_memo
from sokoban.solve._fess import Fess
from sokoban.solve._path import expand
from sokoban.solve._pull_search import PullSearch, pull_distances
from sokoban.solve._store import NODES

ROOM = """
#######
#@ $ .#
# $ . #
#  $ .#
#######"""
#: One door into the goal room: the goals must fill from the far end.
DOOR = """
  #####
###   #
#.  # #
#.$   #
#.$ $ ##
##  @ #
 #   ##
 #####"""
#: A box in a corner off the goals, found only by pulling: no solution.
STUCK = "#######\n# $  .#\n#  #.##\n## $ @#\n# .$  #\n#######"


def level(text: str) -> Level:
    return Level.from_xsb(text.strip("\n"))


@pytest.mark.parametrize("text", [ROOM, DOOR])
def test_pull_distances_are_the_lone_box_pushes_from_the_start_cell(text: str) -> None:
    lv = level(text)
    board = Board(lv)
    starts = board.boxes.astype(np.int32)
    dist = pull_distances(board.nbr, starts, board.sides)
    for i, start in enumerate(starts):
        for cell in range(board.n):
            want = lone_box_pushes(lv, board.cell(int(start)), board.cell(cell))
            got = int(dist[i, cell])
            assert (got if got < INF else None) == want


@pytest.mark.parametrize("text", [ROOM, DOOR])
def test_the_backward_search_alone_solves_small_levels(text: str) -> None:
    lv = level(text)
    search = PullSearch(Board(lv))
    run = _driver.drive(search, Limits(time=10))
    assert run.solved
    solution = search.solution()
    assert verify(lv, solution).is_solved
    assert solution.pushes == search.cost >= fewest_pushes(lv)


def test_running_out_of_pulls_proves_no_solution() -> None:
    lv = level(STUCK)
    assert fewest_pushes(lv) is None
    run = _driver.drive(PullSearch(Board(lv)), Limits(time=10))
    assert run.exhausted


def test_a_forward_search_that_meets_the_backward_tree_is_solved() -> None:
    lv = PUBLIC.level("microban.xsb", 10)
    board = Board(lv)
    backward = PullSearch(board)
    _driver.drive(backward, Limits(nodes=40))
    for forward in (Search(board, wg=0, wh=1, tiebreak="none", meet=backward),
                    Fess(board, tunnels=False, macros=0, meet=backward)):  # fmt: skip
        run = _driver.drive(forward, Limits(time=10))
        assert run.solved
        path = forward.path()
        solution = expand(board, path)
        assert verify(lv, solution).is_solved
        assert solution.pushes == forward.cost == len(path) - 1


def test_fast_proves_a_level_unsolvable_by_pulls() -> None:
    result = solve(level(STUCK), "fast", Limits(time=10))
    assert result.status.value == "unsolvable"


def test_the_backward_search_settles_a_level_the_greedy_search_drowns_in() -> None:
    # Microban 93: greedy search drowns in its open room; pulled back from the goals, the
    # boxes find their start cells in a few thousand pulls.
    lv = PUBLIC.level("microban.xsb", 93)
    backward = PullSearch(Board(lv))
    assert _driver.drive(backward, Limits(nodes=20_000)).solved
    greedy = solve(lv, "greedy", Limits(nodes=20_000))
    assert not greedy.solved


def test_the_memo_of_matchings_leaves_the_search_unchanged() -> None:
    # The memo only saves solving a parent's matching again: with a memo of one entry
    # (nearly every parent solved from scratch) the search makes the same pulls.
    lv = PUBLIC.level("microban.xsb", 93)
    board = Board(lv)
    searches = [PullSearch(board), PullSearch(board)]
    searches[1].memo = new_memo(board.nboxes, 0)
    assert searches[1].memo.node.shape[0] == 1 < searches[0].memo.node.shape[0]
    for search in searches:
        assert _driver.drive(search, Limits(nodes=20_000)).solved
    plain, tiny = searches
    assert plain.expanded == tiny.expanded
    assert int(plain.counters[NODES]) == int(tiny.counters[NODES])
    assert plain.solution() == tiny.solution()
