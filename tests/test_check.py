"""sokoban.solve.check: hand-made deadlocks are found, and no solvable position is called
dead (the solver is the oracle on positions reached by random pushes in small levels)."""

from __future__ import annotations

import random

import pytest

from sokoban import Level, xsb
from sokoban.errors import SokobanError
from sokoban.lurd import replay
from sokoban.solve import Limits, Status, solve
from sokoban.solve.check import (
    BIPARTITE,
    CORRAL,
    DEAD_SQUARE,
    FREEZE,
    TANGLE,
    TWO_BOXES,
    Verdict,
    check,
)
from sokoban.web.services.library import builtin_path


def cells(level: Level, *rc: tuple[int, int]) -> frozenset[int]:
    return frozenset(r * level.width + c for r, c in rc)


# The top-left goals are walled in by three boxes: no cheap test sees it, the corral
# sub-search does (the fence alone cannot fill the goals).
WALLED_IN = """
#######
# .$  #
#.$$  #
#$    #
#  .@.#
#######"""

# XSokoban's level 28 (public), 13 of its 20 boxes packed: seven boxes off goals at the
# bottom left hold each other so that none can get out, and the player walks around them.
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


def test_a_walled_in_corral_is_found_by_its_sub_search() -> None:
    level = Level.from_xsb(WALLED_IN.strip("\n"))
    assert not check(level, searches=False).dead
    verdict = check(level)
    assert verdict.dead and verdict.reason == CORRAL
    assert verdict.dead_boxes <= level.boxes and len(verdict.dead_boxes) >= 3
    assert check(level) == verdict  # again, from the board's memo


def test_a_tangle_no_corral_holds_is_found() -> None:
    level = Level.from_xsb(SCREEN_28_TANGLED.strip("\n"))
    assert not check(level, searches=False).dead
    tangle = cells(level, (8, 4), (9, 5), (9, 6), (10, 6), (11, 6), (11, 7), (12, 7))
    assert check(level) == Verdict(True, TANGLE, tangle)


def test_fast_settles_a_dead_start_at_once() -> None:
    # Above 10 boxes only the backward search proves a level unsolvable, and not soon.
    level = Level.from_xsb(SCREEN_28_TANGLED.strip("\n"))
    result = solve(level, "fast", Limits(time=30))
    assert result.status is Status.UNSOLVABLE and result.stats.expanded == 0
    assert "tangle" in result.message


def test_box_in_a_corner_is_a_dead_square() -> None:
    level = Level.from_xsb("######\n#$  .#\n#@   #\n######")
    assert check(level) == Verdict(True, DEAD_SQUARE, cells(level, (1, 1)))


def test_box_on_a_goal_in_a_corner_is_fine() -> None:
    level = Level.from_xsb("######\n#*   #\n#@$. #\n#    #\n######")
    assert check(level) == Verdict(False)


def test_two_by_two_block_off_goals_is_frozen() -> None:
    level = Level.from_xsb(
        """
#######
#@    #
# $$  #
# $$  #
#.... #
#######"""
    )
    verdict = check(level)
    assert verdict.dead and verdict.reason == FREEZE
    assert verdict.dead_boxes == cells(level, (2, 2), (2, 3), (3, 2), (3, 3))


def test_two_boxes_side_by_side_on_a_live_wall_are_frozen() -> None:
    # A goal on the top wall makes its cells live; two boxes side by side there block
    # each other.
    level = Level.from_xsb("#######\n#. $$ #\n#     #\n#@  . #\n#######")
    verdict = check(level)
    assert verdict == Verdict(True, FREEZE, cells(level, (1, 3), (1, 4)))


def test_one_usable_goal_for_two_boxes_is_dead() -> None:
    # The pocket's goal can be reached by no box (it would need the player inside the
    # wall above): two boxes compete for the one goal left.
    level = Level.from_xsb(
        """
#########
#@ $ $ .#
### #####
  #.#
  ###"""
    )
    verdict = check(level)
    assert verdict.dead and verdict.reason in (TWO_BOXES, BIPARTITE)
    assert verdict.dead_boxes == cells(level, (1, 3), (1, 5))
    assert solve(level, "astar", Limits(time=10)).status is Status.UNSOLVABLE


def test_hall_violator_names_the_competing_boxes() -> None:
    import numpy as np

    from sokoban.solve._board import INF
    from sokoban.solve.check import _hall_violator

    # Goals 0 and 1; boxes on floor cells 0, 1, 2: boxes 0 and 2 reach goal 0 only.
    dist = np.array([[1, 1, 1], [INF, 1, INF]], np.int32)
    assert _hall_violator(dist, np.array([0, 1, 2], np.int16)) == [0, 2]


def test_solved_and_open_positions_are_not_dead() -> None:
    assert check(Level.from_xsb("#####\n#@*.#\n#####".replace(".", " "))) == Verdict(False)
    assert check(Level.from_xsb("#######\n#@ $ .#\n#######")) == Verdict(False)


def test_level_with_problems_is_refused() -> None:
    with pytest.raises(SokobanError, match="no player"):
        check(Level.from_xsb("#####\n# $.#\n#####"))


def _random_positions(level: Level, rng: random.Random, walks: int, length: int) -> list[Level]:
    """Positions reached by random legal steps from the start (pushes included)."""
    found = []
    for _ in range(walks):
        position = level
        for _ in range(length):
            direction = rng.choice("lurd")
            try:
                position = replay(position, direction).final
            except SokobanError:
                continue
        found.append(position)
    return found


def test_no_false_dead_on_solution_paths_and_random_positions() -> None:
    """Every position along an optimal solution is solvable, so never dead; every random
    position called dead must be unsolvable for the solver (bfs, complete)."""
    levels = list(xsb.load(builtin_path()))[:14]
    rng = random.Random(7)
    dead_seen = 0
    for level in levels:
        solution = replay(level, level.solutions[0]).solution
        for k in range(0, len(solution) + 1, 3):
            position = replay(level, type(solution)(solution.steps[:k])).final
            assert not check(position).dead, (level.title, k)
        for position in _random_positions(level, rng, walks=6, length=40):
            verdict = check(position)
            if verdict.dead:
                dead_seen += 1
                result = solve(position, "astar", Limits(time=10))
                assert result.status is Status.UNSOLVABLE, (level.title, position.xsb())
    assert dead_seen > 10  # the random walks do reach deadlocks: the oracle was exercised
