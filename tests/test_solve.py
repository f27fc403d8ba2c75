"""The solver engine: methods against the naive searches, deadlocks on positions built to
trigger them, bounds against brute force, limits, and bad input."""

from __future__ import annotations

import naive
import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from sokoban import Level, verify
from sokoban.errors import SokobanError
from sokoban.solve import METHODS, Limits, SolveResult, Status, solve
from sokoban.solve._board import INF, Board
from sokoban.solve._bounds import matching, nearest, rematch
from sokoban.solve._deadlock import FROZEN_OFF_GOAL, FROZEN_ON_GOALS, MOVABLE, frozen


def level(text: str) -> Level:
    return Level.from_xsb(text.strip("\n"))


SMALL = [
    # (board, fewest pushes)
    """
#######
#@ $ .#
#######""",
    """
  #####
###   #
#.@$  #
### $.#
#.##$ #
# # . ##
#$ *$$.#
#   .  #
########""",
    """
######
#    #
# #@ #
# $* #
# .* #
#    #
######""",
    """
#####
#.  #
# $ #
#@$.#
#####""",
    """
 ####
 #  ###
 #.$  #
## .$ #
#  @  #
#   ###
#####""",
]


def check(result: SolveResult, start: Level) -> None:
    assert result.status is Status.SOLVED, result.message
    assert result.solution is not None
    assert verify(start, result.solution).is_solved


@pytest.mark.parametrize("text", SMALL)
def test_push_optimal_methods_agree_with_naive_bfs(text: str) -> None:
    start = level(text)
    best = naive.fewest_pushes(start)
    for method in ("astar", "bfs"):
        result = solve(start, method)
        check(result, start)
        assert result.optimal
        assert result.solution is not None and result.solution.pushes == best, method
    astar = solve(start, "astar", bound="nearest")
    assert astar.solution is not None and astar.solution.pushes == best


@pytest.mark.parametrize("text", SMALL[:4])
def test_moves_method_agrees_with_naive_move_bfs(text: str) -> None:
    start = level(text)
    result = solve(start, "moves")
    check(result, start)
    assert result.solution is not None and result.solution.moves == naive.fewest_moves(start)


@pytest.mark.parametrize("method", ["greedy", "wastar", "fast"])
def test_fast_methods_solve_and_are_not_better_than_optimal(method: str) -> None:
    for text in SMALL:
        start = level(text)
        result = solve(start, method, Limits(time=20))
        check(result, start)
        assert result.solution is not None
        assert result.solution.pushes >= naive.fewest_pushes(start)


# --- random small rooms against the naive search ------------------------------------------

_W, _H = 6, 5  # interior of the room


@st.composite
def rooms(draw: st.DrawFn) -> Level:
    cells = [(x, y) for y in range(1, _H + 1) for x in range(1, _W + 1)]
    chosen = draw(st.permutations(cells))
    nboxes = draw(st.integers(1, 3))
    nwalls = draw(st.integers(0, 7))
    boxes = chosen[:nboxes]
    goals = draw(st.permutations(chosen[: nboxes + 3]))[:nboxes]
    player = chosen[nboxes + 3]
    walls = set(chosen[nboxes + 4 : nboxes + 4 + nwalls])
    rows = []
    for y in range(_H + 2):
        row = ""
        for x in range(_W + 2):
            c = (x, y)
            if x in (0, _W + 1) or y in (0, _H + 1) or c in walls:
                row += "#"
            elif c in boxes:
                row += "*" if c in goals else "$"
            elif c == player:
                row += "+" if c in goals else "@"
            else:
                row += "." if c in goals else " "
        rows.append(row)
    return Level.from_xsb("\n".join(rows))


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rooms())
def test_astar_matches_naive_on_random_rooms(start: Level) -> None:
    assume(start.is_valid())
    best = naive.fewest_pushes(start)
    for corrals in (True, False):
        result = solve(start, "astar", corrals=corrals)
        if best is None:
            assert result.status is Status.UNSOLVABLE
        else:
            check(result, start)
            assert result.solution is not None and result.solution.pushes == best
    # The fast method with tunnel macros: never a wrong "unsolvable", never too short.
    fast = solve(start, "greedy")
    if best is None:
        assert fast.status is Status.UNSOLVABLE
    else:
        check(fast, start)
        assert fast.solution is not None and fast.solution.pushes >= best


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rooms())
def test_moves_and_bfs_match_naive_on_random_rooms(start: Level) -> None:
    assume(start.is_valid() and len(start.boxes) <= 2)
    pushes = naive.fewest_pushes(start)
    bfs = solve(start, "bfs")
    moves = solve(start, "moves")
    if pushes is None:
        assert bfs.status is Status.UNSOLVABLE and moves.status is Status.UNSOLVABLE
        return
    assert bfs.solution is not None and bfs.solution.pushes == pushes
    assert moves.solution is not None and moves.solution.moves == naive.fewest_moves(start)


# --- deadlocks ----------------------------------------------------------------------------


def test_dead_squares_match_naive() -> None:
    for text in [*SMALL, "#######\n#     #\n# $.$ #\n#  @. #\n#######"]:
        start = level(text)
        assert Board(start).dead_cells() == naive.dead_squares(start), text


def test_dead_squares_go_beyond_corners() -> None:
    # Along the top wall no cell is a corner except the ends, yet none reaches the goal.
    start = level("""
#######
#     #
#  $  #
# .@  #
#######""")
    dead = Board(start).dead_cells()
    top = {start.cell(x, 1) for x in range(1, 6)}
    assert top <= dead
    assert start.cell(3, 2) not in dead


def _freeze(text: str, at: tuple[int, int]) -> int:
    start = level(text)
    board = Board(start)
    occ = np.full(board.n, -1, np.int32)
    for k, b in enumerate(board.boxes):
        occ[b] = k
    stack = np.zeros(board.n, np.uint8)
    result = frozen(board.index[start.cell(*at)], occ, board.nbr, board.goal, board.dead, stack)
    assert not stack.any()
    return int(result)


def test_freeze_two_by_two_block() -> None:
    text = """
########
#      #
# $$   #
# $$ ..#
#@   ..#
########"""
    assert _freeze(text, (2, 2)) == FROZEN_OFF_GOAL
    assert _freeze(text, (3, 3)) == FROZEN_OFF_GOAL


def test_freeze_two_boxes_along_a_wall() -> None:
    text = """
########
#  $$ .#
#     .#
#@     #
########"""
    assert _freeze(text, (3, 1)) == FROZEN_OFF_GOAL


def test_freeze_chain_through_boxes() -> None:
    # (3,3) has a wall below; on its left (2,3) has a wall on its left and, above it,
    # (2,2) stuck in a corner: the chain freezes all three.
    text = """
#######
###   #
##$  .#
##$$ .#
#@ #. #
#######"""
    assert _freeze(text, (3, 3)) == FROZEN_OFF_GOAL
    assert _freeze(text, (2, 3)) == FROZEN_OFF_GOAL


def test_frozen_on_goals_is_no_deadlock_and_free_boxes_move() -> None:
    text = """
#######
# **  #
# **  #
#@ $ .#
#######"""
    assert _freeze(text, (2, 1)) == FROZEN_ON_GOALS
    assert _freeze(text, (3, 3)) == MOVABLE


def test_freeze_deadlock_makes_level_unsolvable_quickly() -> None:
    start = level("""
########
#@     #
# $$   #
# $$ ..#
#    ..#
########""")
    result = solve(start, "astar")
    assert result.status is Status.UNSOLVABLE
    assert result.stats.expanded <= 1


def test_bipartite_deadlock() -> None:
    # Both boxes can slide along the top wall only, to the one goal there: no box is on a
    # dead square and none is frozen, but no perfect matching exists.
    start = level("""
#######
# $ $.#
#     #
#  .  #
#@    #
#######""")
    board = Board(start)
    assert not board.dead[board.boxes].any()
    work = np.zeros((6, len(board.boxes) + 1), np.int64)
    assert matching(board.boxes, board.dist, work) >= INF
    assert solve(start, "astar").status is Status.UNSOLVABLE


def test_pi_corral_pruning_keeps_optimum_and_prunes() -> None:
    # The right room is a corral behind two boxes that can only be pushed into it: at the
    # start only those two pushes are tried, not the moves of the box on the left.
    start = level("""
#########
#   #   #
# @ $ . #
# * $ . #
#   #   #
#########""")
    assert naive.fewest_pushes(start) == 4
    with_corrals = solve(start, "bfs")
    without = solve(start, "bfs", corrals=False)
    for result in (with_corrals, without):
        check(result, start)
        assert result.solution is not None and result.solution.pushes == 4
    assert with_corrals.stats.generated < without.stats.generated


def test_pi_corral_with_no_push_in_is_a_deadlock() -> None:
    # The goal in the top-left pocket is fenced by a box on a goal that can never move: no
    # freeze deadlock (the frozen box is on its goal), but no push into the corral exists.
    start = level("""
#######
#.*#  #
##    #
#  $  #
#  @  #
#######""")
    assert naive.fewest_pushes(start) is None
    # The two-box table and the frozen-on-goals test see it too.
    result = solve(start, "bfs", pairs=False, frozen_goals=False)
    assert result.status is Status.UNSOLVABLE and result.stats.expanded == 1
    assert solve(start, "bfs", corrals=False, pairs=False, frozen_goals=False).stats.expanded > 1
    assert solve(start, "bfs", corrals=False, pairs=False).stats.expanded == 1


TUNNEL = """
#############
#    ###    #
# @$      . #
#    ###    #
#############"""


def test_tunnel_macro_pushes_through_in_one_edge() -> None:
    start = level(TUNNEL)
    macro = solve(start, "greedy")
    plain = solve(start, "greedy", tunnels=False)
    for result in (macro, plain):
        check(result, start)
        assert result.solution is not None and result.solution.pushes == 7
    assert macro.stats.expanded < plain.stats.expanded


GOAL_CORRIDOR = """
#########
#..  $  #
#### $@ #
   #    #
   ######"""


def test_greedy_plan_penalty_adds_to_the_bound_per_box_out_of_plan() -> None:
    # The goal corridor fills from its dead end: a box on (2, 1) with (1, 1) empty is out of
    # plan. Every stored position's key bound is the matching bound plus the penalty per
    # such box, recomputed here from the position alone.
    from sokoban.solve import _driver
    from sokoban.solve._best_first import Search
    from sokoban.solve._packing import packed_count, packing_order

    start = level(GOAL_CORRIDOR)
    board = Board(start)
    plan = packing_order(board)
    search = Search(board, wg=0, wh=1, tiebreak="none", plan_penalty=3)
    _driver.drive(search, Limits(nodes=10_000))
    stored = int(search.counters[2])
    work = np.zeros((6, board.nboxes + 1), np.int64)
    ok = np.ones(len(plan.order), np.uint8)
    penalised = 0
    for node in range(1, stored):
        boxes = search.store.boxes[node]
        occ = np.full(board.n, -1, np.int32)
        occ[boxes] = np.arange(board.nboxes, dtype=np.int32)
        _, out = packed_count(occ, plan.order, plan.parent, ok)
        assert search.store.h[node] == matching(boxes, board.dist, work) + 3 * out
        penalised += out > 0
    assert penalised > 0
    for penalty in (0, 3):
        result = solve(start, "greedy", plan=penalty)
        check(result, start)


def test_fast_methods_still_prove_unsolvable_with_macros() -> None:
    # Unsolvable: the pocket's goal can never be filled (random rooms below check more).
    start = level("""
##########
#.*#     #
##       #
#  $  #  #
#  @  #  #
##########""")
    for method in ("greedy", "wastar"):
        assert solve(start, method, corrals=False).status is Status.UNSOLVABLE


def test_matching_and_nearest_against_brute_force() -> None:
    rng = np.random.default_rng(7)
    start = level(SMALL[1])
    board = Board(start)
    alive = np.flatnonzero(board.dead == 0)
    nb = len(board.boxes)
    work = np.zeros((6, nb + 1), np.int64)
    for _ in range(40):
        boxes = np.sort(rng.choice(alive, nb, replace=False)).astype(np.int16)
        costs = [[int(board.dist[g, b]) for g in range(nb)] for b in boxes]
        assert matching(boxes, board.dist, work) == naive.min_matching(costs)
        assert nearest(boxes, board.dist) == sum(min(row) for row in costs)


def test_matching_on_random_tables_with_ties_and_dead_pairs() -> None:
    # Small distances make many ties, so the first tight goals taken at the start often
    # are not the optimum's; INF pairs make some tables deadlocks. The potentials left
    # behind must still repair a moved box's matching.
    rng = np.random.default_rng(19)
    work = np.zeros((6, 8), np.int64)
    child = np.zeros((6, 8), np.int64)
    deadlocks = 0
    for _ in range(150):
        nb = int(rng.integers(1, 8))
        dist = rng.integers(0, 4, size=(nb, 40)).astype(np.int32)
        dist[rng.random(dist.shape) < 0.4] = INF
        boxes = rng.choice(40, nb, replace=False).astype(np.int16)
        costs = [[int(dist[g, b]) for g in range(nb)] for b in boxes]
        best = naive.min_matching(costs)
        got = matching(boxes, dist, work[:, : nb + 1])
        assert got == best or (got >= INF and best >= INF), (dist[:, boxes].tolist(), got)
        deadlocks += best >= INF
        if got >= INF:
            continue
        k = int(rng.integers(nb))
        boxes[k] = rng.choice([c for c in range(40) if c not in boxes])
        costs = [[int(dist[g, b]) for g in range(nb)] for b in boxes]
        best = naive.min_matching(costs)
        got = rematch(boxes, k, dist, work[:, : nb + 1], child[:, : nb + 1])
        assert got == best or (got >= INF and best >= INF)
    assert 10 <= deadlocks <= 140, deadlocks


def test_rematch_repairs_a_matching_after_one_box_moves() -> None:
    rng = np.random.default_rng(11)
    start = level(SMALL[1])
    board = Board(start)
    alive = np.flatnonzero(board.dead == 0)
    nb = len(board.boxes)
    parent = np.zeros((6, nb + 1), np.int64)
    work = np.zeros((6, nb + 1), np.int64)
    for _ in range(60):
        boxes = rng.choice(alive, nb, replace=False).astype(np.int16)
        if matching(boxes, board.dist, parent) >= INF:
            continue
        k = int(rng.integers(nb))
        free = [c for c in alive if c not in boxes]
        boxes[k] = rng.choice(free)
        costs = [[int(board.dist[g, b]) for g in range(nb)] for b in boxes]
        assert rematch(boxes, k, board.dist, parent, work) == naive.min_matching(costs)


def test_rematch_chained_over_pushes_keeps_the_matching_optimal() -> None:
    # Each repair starts from the last one's solution, as the searches chain them down a
    # path of one-cell moves, towards the box's assigned goal and away from it.
    rng = np.random.default_rng(12)
    start = level(SMALL[1])
    board = Board(start)
    alive = set(int(c) for c in np.flatnonzero(board.dead == 0))
    nb = len(board.boxes)
    kept = augmented = 0
    for _ in range(20):
        boxes = rng.choice(sorted(alive), nb, replace=False).astype(np.int16)
        parent = np.zeros((6, nb + 1), np.int64)
        if matching(boxes, board.dist, parent) >= INF:
            continue
        for _ in range(30):
            k = int(rng.integers(nb))
            steps = [int(c) for c in board.nbr[boxes[k]] if c in alive and c not in boxes]
            if not steps:
                continue
            assigned = list(parent[2]).index(k + 1)
            before = int(board.dist[assigned - 1, boxes[k]])
            boxes[k] = steps[int(rng.integers(len(steps)))]
            work = np.zeros((6, nb + 1), np.int64)
            got = rematch(boxes, k, board.dist, parent, work)
            costs = [[int(board.dist[g, b]) for g in range(nb)] for b in boxes]
            assert got == naive.min_matching(costs)
            if got >= INF:
                break
            closer = int(board.dist[assigned - 1, boxes[k]]) < before
            kept += closer
            augmented += not closer
            parent = work
    assert kept > 20 and augmented > 20, (kept, augmented)


def test_push_distances_match_lone_box_search() -> None:
    start = level(SMALL[3])
    board = Board(start)
    for k, g in enumerate(board.goals):
        for i in range(board.n):
            expected = naive.lone_box_pushes(start, board.cell(i), board.cell(g))
            assert int(board.dist[k, i]) == (INF if expected is None else expected)


# --- limits, statuses and bad input -------------------------------------------------------


def test_time_limit_zero_and_node_limit() -> None:
    result = solve(level(SMALL[1]), "astar", Limits(time=0))
    assert result.status is Status.TIME_LIMIT and result.solution is None
    result = solve(level(SMALL[1]), "bfs", Limits(nodes=5))
    assert result.status is Status.NODE_LIMIT
    assert result.stats.expanded == 5


def test_memory_limit() -> None:
    result = solve(level(SMALL[1]), "bfs", Limits(memory=100_000))
    assert result.status is Status.MEMORY_LIMIT
    assert result.stats.peak_bytes <= 100_000 or result.stats.expanded == 0


def test_memory_is_counted_and_grows() -> None:
    result = solve(level(SMALL[1]), "bfs")
    assert result.solved
    assert result.stats.peak_bytes > 0
    assert result.stats.stored <= result.stats.generated + 1
    assert result.stats.nodes_per_second > 0


def test_invalid_and_solved_levels() -> None:
    result = solve(level("#####\n#@$ #\n#####"), "astar")
    assert result.status is Status.INVALID
    assert "differ" in result.message
    result = solve(level("#####\n#@* #\n#####"), "astar")
    assert result.solved and result.solution is not None and len(result.solution) == 0


def test_unsolvable_levels() -> None:
    corner = level("######\n#$  .#\n#  @ #\n######")
    result = solve(corner, "astar")
    assert result.status is Status.UNSOLVABLE and result.stats.expanded == 0
    # The box can reach the goal row only by the wall, which it can never leave.
    assert solve(corner, "bfs").status is Status.UNSOLVABLE
    assert naive.fewest_pushes(corner) is None


def test_bad_method_options_and_limits() -> None:
    start = level(SMALL[0])
    with pytest.raises(SokobanError, match="unknown method 'nope'"):
        solve(start, "nope")
    with pytest.raises(SokobanError, match="unknown option 'speed'"):
        solve(start, "astar", speed=3)
    with pytest.raises(SokobanError, match="bound"):
        solve(start, "astar", bound="magic")
    with pytest.raises(SokobanError, match="negative"):
        Limits(time=-1)


def test_registry_describes_methods() -> None:
    assert {"astar", "moves", "bfs", "greedy", "wastar", "fast"} <= set(METHODS)
    assert METHODS["astar"].optimises == "pushes" and METHODS["astar"].optimal
    assert METHODS["moves"].optimises == "moves"
    assert not METHODS["greedy"].optimal


def test_options_are_checked_in_one_place() -> None:
    from sokoban.solve import Option, check_options

    start = level(SMALL[0])
    with pytest.raises(SokobanError, match="option corrals='no' of method 'astar' is not true"):
        solve(start, "astar", corrals="no")
    with pytest.raises(SokobanError, match="option weight=200.0 of method 'wastar' is above 100"):
        solve(start, "wastar", weight=200.0)
    with pytest.raises(SokobanError, match="budget=2.5 of method 'sma' is not an integer"):
        solve(start, "sma", budget=2.5)
    with pytest.raises(SokobanError, match="key='weight,best' of method 'fess' is not one of"):
        solve(start, "fess", key="weight,best")
    # Every declared option reaches the method, at its default when not given.
    checked = check_options(METHODS["wastar"], {"weight": 2})
    assert checked["weight"] == 2.0 and isinstance(checked["weight"], float)
    assert checked["bound"] == "matching" and checked["tunnels"] is None
    assert {o.name for o in METHODS["wastar"].options} == set(checked)
    # Parsed from text by type.
    assert Option("n", int, 0, "").parse("12", "m") == 12
    assert Option("b", bool, False, "").parse("on", "m") is True


def test_search_stats_add_up() -> None:
    from sokoban.solve import SearchStats

    total = SearchStats(1, 2, 30, 400, 0.5) + SearchStats(10, 20, 3, 4000, 0.25)
    assert total == SearchStats(11, 22, 30, 4000, 0.75)


def test_lower_bound_is_none_when_the_method_computes_none() -> None:
    start = level(SMALL[0])
    astar = solve(start, "astar")
    assert astar.solution is not None and astar.lower_bound is not None
    assert 0 < astar.lower_bound <= astar.solution.pushes
    assert solve(start, "bfs").lower_bound is None
    assert solve(start, "bidirectional").lower_bound is None
