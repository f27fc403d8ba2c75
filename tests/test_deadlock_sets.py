"""Deadlock sets proved before the search (:mod:`sokoban.solve._deadlock_sets`): the groups
tried are compact groups of boxes next to walls, every set kept is a true proof (checked
by a plain search of its boxes alone), the budget bounds the work, and the searches that
use the sets still solve what they solved."""

from __future__ import annotations

import random

import naive
import pytest
from test_deadlock_learned import five_box_room, kept_patterns, subset_solvable

from sokoban import Level
from sokoban.solve import solve
from sokoban.solve._best_first import Search
from sokoban.solve._board import Board
from sokoban.solve._corral_deadlock import FIRST_BUDGET, MATCHES, new_learned
from sokoban.solve._deadlock_sets import DeadlockSets, candidate_groups
from sokoban.solve._driver import EXHAUSTED, drive
from sokoban.solve._pairs import no_table, pair_table
from sokoban.solve._path import expand
from sokoban.solve.types import Limits

# A small solvable room with boxes beside walls.
ROOM = """\
#########
#       #
# $$    #
#  $  @ #
#   ..  #
#    .  #
#########"""


def proved(lv: Level, pairs: bool = True, memo: int = 1024) -> tuple[Board, DeadlockSets]:
    """The sets of ``lv``, proved; ``memo``: the corral memo of the patterns (0: the
    searches given them look for no corral deadlocks of their own)."""
    board = Board(lv)
    learned = new_learned(board.n, neighbours=True, memo=memo)
    sets = DeadlockSets(board, board.search_board(pair_table(board) if pairs else no_table()),
                        learned)  # fmt: skip
    sets.prove_all()
    return board, sets


def kept(board: Board, sets: DeadlockSets) -> list[tuple[frozenset[int], set[int]]]:
    """The sets kept: their boxes and the player's region, as level cells."""
    return kept_patterns(board, sets.learned)


def test_groups_are_compact_sets_of_live_cells_beside_walls() -> None:
    lv = Level.from_xsb(ROOM)
    board = Board(lv)
    groups = candidate_groups(board, 4)
    sizes = [int((row >= 0).sum()) for row in groups]
    assert set(sizes) == {3, 4}
    assert sizes == sorted(sizes)  # smaller groups first
    rows = {tuple(int(c) for c in row if c >= 0) for row in groups}
    assert len(rows) == len(groups)  # each group once
    for row in rows:
        assert list(row) == sorted(row)
        xy = [divmod(int(board.cells[c]), lv.width)[::-1] for c in row]
        for c in row:
            assert not board.dead[c]
            assert any(board.nbr[c, d] < 0 for d in range(4))
        # Each box within one step (diagonals too) of another box of the group.
        for x, y in xy:
            assert any((u, v) != (x, y) and abs(u - x) <= 1 and abs(v - y) <= 1 for u, v in xy)
    # Fewer than three boxes allowed: no groups.
    assert candidate_groups(board, 2).shape[0] == 0


@pytest.mark.parametrize("pairs", [True, False])
def test_every_set_kept_on_random_rooms_is_a_proof(pairs: bool) -> None:
    rng = random.Random(5)
    checked = rooms = 0
    while checked < 25 and rooms < 400:
        lv = five_box_room(rng)
        if lv is None:
            continue
        rooms += 1
        board, sets = proved(lv, pairs)
        for boxes, region in kept(board, sets):
            player = min(region)
            # The region is one whole region of the board with these boxes alone...
            assert naive.reachable(lv, player, boxes) == region
            # ...from which these boxes alone cannot all reach goals.
            assert not subset_solvable(lv, boxes, player), (lv.xsb(), sorted(boxes))
            checked += 1
    assert checked >= 25


def test_no_set_is_kept_that_the_searches_already_decide() -> None:
    rng = random.Random(6)
    seen = 0
    while seen < 20:
        lv = five_box_room(rng)
        if lv is None:
            continue
        board, sets = proved(lv)
        for boxes, region in kept(board, sets):
            seen += 1
            # No box on a dead square, and no kept set holds another kept set that
            # already covers its player region.
            assert not any(board.dead[board.index[c]] for c in boxes)
            others = [b for b, r in kept(board, sets) if b < boxes and region <= r]
            assert not others


def test_the_budget_bounds_the_work() -> None:
    rng = random.Random(7)
    lv = None
    while lv is None:
        lv = five_box_room(rng)
    board, sets = proved(lv)
    assert sets.exhausted
    assert sets.done[2] <= sets.budget + FIRST_BUDGET  # the last sub-search may overrun it
    small = DeadlockSets(board, board.search_board(no_table()), new_learned(board.n))
    small.budget = 1
    while small.step(4) != EXHAUSTED:
        pass
    # One sub-search, then the budget is spent.
    assert small.done[1] == 1 and small.done[0] <= sets.done[0]


def test_searches_with_the_sets_solve_what_they_solve_without() -> None:
    # Searches that start with the sets proved (and no corral sub-searches of their own,
    # so that every pattern they match is a set): a wrong set would lose a solution.
    rng = random.Random(9)
    checked = pruned = 0
    while checked < 12:
        lv = five_box_room(rng)
        if lv is None:
            continue
        board, sets = proved(lv, memo=0)
        if sets.kept == 0:
            continue
        plain = solve(lv, "bfs", pairs=False)
        search = Search(board, wg=0, tiebreak="none", learned=sets.learned)
        run = drive(search, Limits(nodes=200_000))
        pruned += int(sets.learned.counts[MATCHES])
        assert run.solved == plain.solved, lv.xsb()
        if run.solved:
            assert lv.replay(expand(board, search.path())).is_solved
        checked += 1
    assert pruned > 0


def test_the_sets_take_their_turn_in_fast_only_when_asked() -> None:
    from sokoban.solve import METHODS, _portfolio
    from sokoban.solve._tables import Tables
    from sokoban.solve._turns import take_turns
    from sokoban.solve.types import Limits

    lv = Level.from_xsb(ROOM)
    options = {o.name: o.default for o in METHODS["fast"].options if o.name != "threads"}
    assert options["deadlock_sets"] is False
    plain = _portfolio.make_all(_portfolio.SMALL, Tables(lv), options)
    assert "deadlock sets" not in [e.label for e in plain]
    entrants = _portfolio.make_all(_portfolio.SMALL, Tables(lv), options | {"deadlock_sets": True})
    labels = [e.label for e in entrants]
    assert labels.index("deadlock sets") == 1  # after the first search's turn
    sets = entrants[1].search
    # Alone by turns, the proofs run until every group is tried, then leave.
    turns = take_turns([entrants[1]], Limits(time=30))
    assert sets.exhausted and sets.done[0] == sets.groups.shape[0] and turns.run.exhausted
    result = solve(lv, "fast", deadlock_sets=True)
    assert result.solved and lv.replay(result.solution).is_solved
