"""Deadlock patterns learned from corral sub-searches (:mod:`sokoban.solve._corral_deadlock`):
a pattern matches exactly the positions it proves dead, every pattern learned on random
rooms is a true proof (checked by a plain search of its boxes alone), and searches that
use the patterns still find every solution (and A* the optimal one)."""

from __future__ import annotations

import random

import naive
import numpy as np
import pytest
from test_deadlock_corrals import WALLED_IN, level

from sokoban import Level
from sokoban.solve import Status, solve
from sokoban.solve._best_first import Search
from sokoban.solve._board import Board
from sokoban.solve._corral_deadlock import (
    MATCHES,
    PATTERNS,
    Learned,
    corral_dead,
    matches,
    new_scratch,
)
from sokoban.solve._driver import drive
from sokoban.solve._reach import reach
from sokoban.solve.types import Limits


def subset_solvable(lv: Level, boxes: frozenset[int], player: int) -> bool:
    """Whether ``boxes`` alone (level cells) can all be pushed onto goals, the player
    starting on ``player``: a plain breadth-first search."""

    def key(b: frozenset[int], p: int) -> tuple[frozenset[int], int]:
        return b, min(naive.reachable(lv, p, b))

    seen = {key(boxes, player)}
    todo = [(boxes, player)]
    while todo:
        b, p = todo.pop()
        if b <= lv.goals:
            return True
        for child in naive.pushes(lv, b, p):
            k = key(*child)
            if k not in seen:
                seen.add(k)
                todo.append(child)
    return False


def kept_patterns(board: Board, learned: Learned) -> list[tuple[frozenset[int], set[int]]]:
    """The patterns ``learned`` keeps: their boxes and the player's region, as level cells."""
    out = []
    for p in range(int(learned.counts[PATTERNS])):
        boxes = frozenset(int(board.cells[c]) for c in learned.boxes[p] if c >= 0)
        bits = learned.region[p]
        region = {int(board.cells[c]) for c in range(board.n) if bits[c >> 6] >> (c & 63) & 1}
        out.append((boxes, region))
    return out


def start_occupancy(board: Board, boxes: list[int]) -> tuple[np.ndarray, np.ndarray]:
    occ = np.full(board.n, -1, np.int32)
    occ[boxes] = np.arange(len(boxes), dtype=np.int32)
    seen = np.zeros(board.n, np.int32)
    queue = np.zeros(board.n, np.int32)
    reach(board.player, occ, board.nbr, seen, 1, queue, queue.copy())
    return occ, seen


def test_a_pattern_matches_supersets_with_the_player_in_its_region() -> None:
    lv = level(WALLED_IN)
    board = Board(lv)
    search = Search(board, corral_deadlocks=True)
    learned = search.learned
    boxes = [int(b) for b in board.boxes]
    occ, seen = start_occupancy(board, boxes)
    args = (board.boxes, board.player, -1, occ, seen, 1, search.kernel_board, learned)
    assert corral_dead(*args, new_scratch(board.n))
    assert learned.counts[PATTERNS] == 1
    # The fence: the three boxes around the top-left goals; the fourth box is not in it.
    cell = {
        name: int(board.index[y * lv.width + x])
        for name, (x, y) in {
            "top": (3, 1),
            "middle": (2, 2),
            "right": (3, 2),
            "bottom": (1, 3),
            "inside": (1, 1),
            "outside": (5, 3),
        }.items()
    }
    pattern = sorted(int(c) for c in learned.boxes[0] if c >= 0)
    assert pattern == sorted([cell["top"], cell["middle"], cell["bottom"]])
    for box in ("top", "middle", "bottom"):
        assert matches(cell[box], cell["outside"], occ, learned)
    # The player inside the corral is another sub-problem: no match.
    assert not matches(cell["top"], cell["inside"], occ, learned)
    # Without one of the pattern's boxes, no match; the extra box does not matter.
    for box in ("middle", "right"):
        fewer = occ.copy()
        fewer[cell[box]] = -1
        assert matches(cell["top"], cell["outside"], fewer, learned) == (box == "right")
    assert learned.counts[MATCHES] == 4


def test_without_learning_nothing_is_kept() -> None:
    lv = level(WALLED_IN)
    board = Board(lv)
    search = Search(board, corral_deadlocks=True, learn=False)
    occ, seen = start_occupancy(board, [int(b) for b in board.boxes])
    args = (board.boxes, board.player, -1, occ, seen, 1, search.kernel_board, search.learned)
    assert corral_dead(*args, new_scratch(board.n))
    assert search.learned.counts[PATTERNS] == 0
    assert not matches(int(board.boxes[0]), board.player, occ, search.learned)


def five_box_room(rng: random.Random) -> Level | None:
    """A 6x5 room with five boxes and goals and a few inner walls."""
    width, height = 8, 7
    cells = [(x, y) for y in range(1, height - 1) for x in range(1, width - 1)]
    rng.shuffle(cells)
    boxes, goals, player = set(cells[:5]), set(cells[5:10]), cells[10]
    walls = set(cells[11 : 11 + rng.randint(0, 4)])
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
def test_every_pattern_learned_on_random_rooms_is_a_proof(neighbours: bool) -> None:
    rng = random.Random(3)
    checked = 0
    while checked < 30:
        lv = five_box_room(rng)
        if lv is None:
            continue
        board = Board(lv)
        search = Search(board, wg=0, tiebreak="none", corral_deadlocks=True, neighbours=neighbours)
        drive(search, Limits(nodes=3000))
        for boxes, region in kept_patterns(board, search.learned):
            player = min(region)
            # The region is one whole region of the board with these boxes alone...
            assert naive.reachable(lv, player, boxes) == region
            # ...from which these boxes alone cannot all reach goals.
            assert not subset_solvable(lv, boxes, player), (lv.xsb(), sorted(boxes))
            checked += 1


def test_searches_with_patterns_solve_what_the_plain_search_solves() -> None:
    # Rooms where the patterns do prune: a wrong pattern would lose a solution (or the
    # optimal one).
    rng = random.Random(8)
    checked = 0
    while checked < 12:
        lv = five_box_room(rng)
        if lv is None:
            continue
        search = Search(Board(lv), wg=0, tiebreak="none", corral_deadlocks=True, neighbours=True)
        drive(search, Limits(nodes=3000))
        if search.learned.counts[MATCHES] == 0:
            continue
        # The reference: the plain search for two rooms (about 10 s each), then
        # breadth-first search without the corral check (itself tested against it).
        plain = solve(lv, "bfs", pairs=False)
        best = plain.solution.pushes if plain.solved else None
        if checked < 2:
            assert naive.fewest_pushes(lv) == best
        for method, neighbours in (("astar", True), ("greedy", False), ("fess", True)):
            result = solve(lv, method, corral_deadlocks=True, neighbours=neighbours)
            if best is None:
                assert result.status is Status.UNSOLVABLE, (method, lv.xsb())
            else:
                assert result.solved, (method, lv.xsb())
                if method == "astar":
                    assert result.optimal and result.solution.pushes == best
        checked += 1
