"""The packed-walls test of the feature-space search (:mod:`sokoban.solve._packed_walls`):
a hand-made spent box, and the kernel against a slow reference on random rooms."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from itertools import permutations

import naive
import numpy as np
import pytest

from sokoban import Level
from sokoban.solve import Status, solve
from sokoban.solve._board import Board, label_sides
from sokoban.solve._packed_walls import (
    CHAIN_CACHE_BYTES,
    CHAIN_SETS,
    FROZEN_CACHE_BYTES,
    FROZEN_SETS,
    _pull_flood,
    frozen_short,
    goal_floods,
    goals_short,
    goals_short_chain,
    must_precede,
    new_chain_cache,
    new_frozen_cache,
    new_goal_floods_scratch,
    new_scratch,
)
from sokoban.solve._packing import PackingOrder, packing_order

# Goal A (2, 3) is filled from above by the box T on (2, 2); goal B (3, 3) only from the
# right, by the box R on (4, 3): pushing right from A needs the player on a wall.
SPENT = """
#######
#@    #
# $#  #
##..$ #
 ######"""


def level(text: str) -> Level:
    return Level.from_xsb(text.strip("\n"))


def short(board: Board, plan: PackingOrder, cells: list[int], mode: str = "prefix") -> bool:
    """The kernel of ``mode`` on the boxes at floor indices ``cells``."""
    if mode == "chain":
        return chain(board, plan, cells, np.zeros(board.n, np.int32), 1)[0]
    boxes = np.array(cells, dtype=np.int16)
    occ = np.full(board.n, -1, np.int32)
    occ[boxes] = np.arange(len(boxes), dtype=np.int32)
    ng = len(plan.order)
    scratch = new_scratch(board.n, len(boxes), ng)
    before = must_precede(board.nbr, plan.order, board.boxes.astype(np.int32))
    return bool(
        goals_short(
            boxes,
            board.boxes.astype(np.int16),
            occ,
            board.nbr,
            plan.order,
            before,
            np.zeros(board.n, np.uint8),
            scratch,
        )
    )


def floor(board: Board, x: int, y: int) -> int:
    return int(board.index[y * board.width + x])


def test_a_goal_whose_only_box_was_spent_elsewhere_is_short() -> None:
    lv = level(SPENT)
    board = Board(lv)
    plan = packing_order(board)
    t, r = floor(board, 2, 2), floor(board, 4, 3)
    a = floor(board, 2, 3)
    for mode in ("prefix", "chain"):
        assert not short(board, plan, [t, r], mode)  # the start: nothing packed
        assert not short(board, plan, [a, r], mode)  # T on A: R still reaches B
        # R pushed on through B onto A: T cannot reach B past the packed A. Truly dead.
        assert short(board, plan, [t, a], mode)
    assert naive.fewest_pushes(level(SPENT.replace("##..$", "##*. "))) is None


# XSokoban 31: its goal (8, 10) is filled only from the right along row 10, after
# (6, 10) (the player must stand on (6, 10) to push a box right from (7, 10)), so only the
# box starting on (12, 9) can fill it.
XSOKOBAN_31 = """
  ####
  #  #########
 ##  ##  #   #
 #  $# $@$   ####
 #$  $  # $ $#  ##
##  $## #$ $     #
#  #  # #   $$$  #
# $    $  $## ####
# $ $ #$#  #  #
##  ###  ###$ #
 #  #....     #
 ####......####
   #....####
   #...##
   #...#
   #####"""


def test_goals_that_must_be_filled_first_wall_the_goal_in() -> None:
    board = Board(level(XSOKOBAN_31))
    plan = packing_order(board)
    start = sorted(int(c) for c in board.boxes)
    # The box of (12, 9) spent on the deepest goal: the others reach (8, 10) only through
    # (7, 10) with the player on (6, 10), which must be filled before (8, 10).
    spent = sorted(set(start) - {floor(board, 12, 9)} | {floor(board, 4, 14)})
    # Another box on the deepest goal instead: (12, 9) still reaches (8, 10).
    other = sorted(set(start) - {floor(board, 2, 4)} | {floor(board, 4, 14)})
    for mode in ("prefix", "chain"):
        assert not short(board, plan, start, mode)
        assert short(board, plan, spent, mode)
        assert not short(board, plan, other, mode)


def pushable(floor_cells: set[int], width: int, walls: set[int], start: int, goal: int) -> bool:
    """Whether a lone box on grid cell ``start`` can be pushed onto ``goal`` (forward, any
    player side off the walls counts)."""
    open_cells = floor_cells - walls
    if start not in open_cells:
        return False
    seen, todo = {start}, [start]
    while todo:
        c = todo.pop()
        if c == goal:
            return True
        for s in (-1, 1, -width, width):  # the box goes c -> c + s, the player on c - s
            if c - s in open_cells and c + s in open_cells and c + s not in seen:
                seen.add(c + s)
                todo.append(c + s)
    return False


def matched(reaches: Callable[[int, int], bool], free: list[int], empty: list[int]) -> bool:
    """Whether the boxes ``free`` (grid cells) can each take a different goal of
    ``empty`` (positions in the order), trying every assignment."""
    return any(
        all(reaches(c, i) for c, i in zip(order, empty, strict=True))
        for order in permutations(free)
    )


def chain(
    board: Board,
    plan: PackingOrder,
    cells: list[int],
    seen: np.ndarray,
    mark: int,
    cache: tuple[np.ndarray, ...] | None = None,
) -> tuple[bool, int]:
    """The chain mode's kernel on the boxes at floor indices ``cells``, its floods marked
    in ``seen`` from ``mark`` on, its floods kept in ``cache`` (none: a fresh one)."""
    boxes = np.array(cells, dtype=np.int16)
    occ = np.full(board.n, -1, np.int32)
    occ[boxes] = np.arange(len(boxes), dtype=np.int32)
    ng = len(plan.order)
    result, mark = goals_short_chain(
        boxes,
        board.boxes.astype(np.int16),
        occ,
        board.nbr,
        plan.order,
        plan.parent,
        plan.precedes(),
        np.ones(ng, np.uint8),
        np.zeros(board.n, np.uint8),
        seen,
        mark,
        new_scratch(board.n, len(boxes), ng, False),
        board.kernel_board().zbox,
        new_chain_cache(board.n, ng) if cache is None else cache,
    )
    return bool(result), int(mark)


def reference_chain(lv: Level, plan: PackingOrder, board: Board, boxes: list[int]) -> bool:
    """The chain mode as :func:`goals_short_chain` says it, forward from the boxes."""
    cell = [int(c) for c in board.cells]
    goals = [cell[g] for g in plan.order]
    starts = [cell[b] for b in board.boxes]
    floor_cells, width, ng = set(cell), lv.width, len(goals)
    before = {(i, j) for j in range(ng) for i in ancestors(plan, j)}
    on = {cell[b] for b in boxes}
    # Packed: filled, and so is every goal that must be filled before it.
    packed = {
        i for i in range(ng) if goals[i] in on and all(goals[j] in on for k, j in before if k == i)
    }
    if not packed:
        return False

    def reaches(start: int, i: int) -> bool:
        walls = {goals[j] for j in packed} | {goals[j] for k, j in before if k == i}
        return pushable(floor_cells, width, walls, start, goals[i])

    empty = [i for i in range(ng) if i not in packed]
    if not all(any(reaches(s, i) for s in starts) for i in empty):
        return False  # the plan cannot be followed from here
    return not matched(reaches, [c for c in on if c not in {goals[j] for j in packed}], empty)


def ancestors(plan: PackingOrder, j: int) -> list[int]:
    """The goals that goal j must be filled before, up its chain of parents."""
    found = []
    i = int(plan.parent[j])
    while i >= 0:
        found.append(i)
        i = int(plan.parent[i])
    return found


def reference(lv: Level, plan: PackingOrder, board: Board, boxes: list[int]) -> bool:
    """The test as the module docstring says it, on grid cells, forward from the boxes."""
    cell = [int(c) for c in board.cells]  # floor index -> grid cell
    goals = [cell[g] for g in plan.order]
    starts = [cell[b] for b in board.boxes]
    floor_cells, width, ng = set(cell), lv.width, len(goals)

    def from_a_start(walls: set[int], goal: int) -> bool:
        return any(pushable(floor_cells, width, walls, s, goal) or s == goal for s in starts)

    # j before i: with i and the goals the plan fills before j filled, no start reaches j;
    # a goal no start reaches with all of its pairs filled keeps none.
    before = {
        (i, j)
        for j in range(ng)
        for i in range(j + 1, ng)
        if not from_a_start(set(goals[:j]) | {goals[i]}, goals[j])
    }
    for i in range(ng):
        walls = {goals[j] for k, j in before if k == i}
        if not from_a_start(walls, goals[i]):
            before = {(k, j) for k, j in before if k != i}
    on = {cell[b] for b in boxes}
    packed = 0
    while packed < ng and goals[packed] in on:
        packed += 1

    def reaches(start: int, i: int) -> bool:
        walls = set(goals[:packed]) | {goals[j] for k, j in before if k == i}
        return pushable(floor_cells, width, walls, start, goals[i])

    if not all(any(reaches(s, i) for s in starts) for i in range(packed, ng)):
        return False  # the plan contradicts itself at this prefix
    return not matched(reaches, [c for c in on if c not in goals[:packed]], list(range(packed, ng)))


def random_room(rng: random.Random) -> Level | None:
    """An 8x6 room inside walls with inner walls, four boxes and four goals in one
    cluster (goal rooms give the packing order goals that must precede others)."""
    width, height = 10, 8
    cells = [(x, y) for y in range(1, height - 1) for x in range(1, width - 1)]
    goals = [rng.choice(cells)]
    while len(goals) < 4:
        x, y = rng.choice(goals)
        dx, dy = rng.choice(((1, 0), (-1, 0), (0, 1), (0, -1)))
        if (x + dx, y + dy) in cells and (x + dx, y + dy) not in goals:
            goals.append((x + dx, y + dy))
    rest = [c for c in cells if c not in goals]
    rng.shuffle(rest)
    boxes, player = rest[:4], rest[4]
    walls = set(rest[5 : 5 + rng.randint(6, 20)])
    rows = []
    for y in range(height):
        row = ""
        for x in range(width):
            c = (x, y)
            if x in (0, width - 1) or y in (0, height - 1) or c in walls:
                row += "#"
            elif c in boxes:
                row += "$"
            elif c == player:
                row += "@"
            else:
                row += "." if c in goals else " "
        rows.append(row)
    lv = Level.from_xsb("\n".join(rows))
    return None if lv.problems() else lv


@pytest.mark.parametrize("mode", ["prefix", "chain"])
def test_the_kernel_agrees_with_the_reference_on_random_rooms(mode: str) -> None:
    rng = random.Random(3)
    oracle = reference if mode == "prefix" else reference_chain
    outcomes = {True: 0, False: 0}
    cases = 0
    while cases < 400:
        lv = random_room(rng)
        if lv is None:
            continue
        board = Board(lv)
        plan = packing_order(board)
        floor_cells = list(range(board.n))
        for _ in range(10):
            # Boxes anywhere, often on goals so that some are packed.
            pool = [int(g) for g in plan.order] + floor_cells
            cells = sorted(set(rng.sample(pool, 4)))
            if len(cells) < 4:
                continue
            got = short(board, plan, cells, mode)
            assert got == oracle(lv, plan, board, cells), (lv.xsb(), cells)
            outcomes[got] += 1
            cases += 1
    assert outcomes[True] >= 20 and outcomes[False] >= 20, outcomes


@pytest.mark.parametrize("packed_walls", ["off", "prefix", "chain"])
def test_fess_with_and_without_the_test_solves_and_replays(packed_walls: str) -> None:
    lv = level(SPENT)
    result = solve(lv, "fess", packed_walls=packed_walls)
    assert result.status is Status.SOLVED
    assert result.solution is not None


# A box on the corner goal at the foot of a goal column (as on Microban 153) never moves
# again, and the goals above it are filled only by pushes up from (1, 3) with the player on
# (1, 4): they are out of reach for good.
FROZEN_FOOT = """
#######
#.#   #
#.# $ #
#. $  #
#*@$  #
#######"""


def frozen(board: Board, cells: list[int], cache: tuple[np.ndarray, ...] | None = None) -> bool:
    """The kernel's sound test on the boxes at floor indices ``cells``, with a fresh
    cache of floods unless ``cache`` is given."""
    boxes = np.array(cells, dtype=np.int16)
    ng = len(board.goals)
    occ = np.full(board.n, -1, np.int32)
    occ[boxes] = np.arange(len(boxes))
    zbox = board.kernel_board().zbox
    result = frozen_short(
        boxes,
        occ,
        board.nbr,
        board.goal,
        board.dead,
        zbox,
        board.goals.astype(np.int32),
        np.zeros(ng, np.uint8),
        np.zeros(board.n, np.uint8),
        np.zeros(board.n, np.uint8),
        new_scratch(board.n, len(boxes), ng, False),
        new_frozen_cache(board.n, ng) if cache is None else cache,
    )
    return bool(result)


def test_a_box_frozen_on_a_goal_that_walls_in_others_is_a_proof() -> None:
    lv = level(FROZEN_FOOT)
    board = Board(lv)
    start = sorted(int(c) for c in board.boxes)
    assert frozen(board, start)
    assert naive.fewest_pushes(lv) is None
    # The corner box one cell up instead, on the goal (1, 3): nothing frozen, nothing
    # said, and the position is solvable (that box goes up first).
    lower = sorted(set(start) - {floor(board, 1, 4)} | {floor(board, 1, 3)})
    assert not frozen(board, lower)
    assert naive.fewest_pushes(lv.moved(boxes=[int(board.cells[c]) for c in lower])) is not None


# A 2x2 block of boxes, three on goals: no side of it touches a wall, yet each box is
# held by the others (the recursive freeze test), and the fourth is off its goal.
FROZEN_BLOCK = """
#######
#     #
# **  #
# *$ .#
#  @  #
#######"""


def test_a_block_frozen_by_its_own_boxes_with_one_off_the_goals_is_a_proof() -> None:
    lv = level(FROZEN_BLOCK)
    board = Board(lv)
    assert frozen(board, sorted(int(c) for c in board.boxes))
    assert naive.fewest_pushes(lv) is None
    # The off-goal box one cell down: the block is broken and nothing is frozen.
    moved = sorted(set(int(c) for c in board.boxes) - {floor(board, 3, 3)} | {floor(board, 3, 4)})
    assert not frozen(board, moved)


# The goal at the foot of the door (4, 4) takes a box pushed down from the door (2, 4), the
# player in the room above, which only that door joins to the corridor: a box in the
# corridor can be pushed to (3, 4) but never further (the player is then on its side of the
# door). The box frozen in the corner makes the test run.
DOOR = """
#########
#*      #
#### ####
# $   @ #
####.####
#########"""


def test_a_goal_reached_only_with_the_player_behind_a_door_is_short() -> None:
    lv = level(DOOR)
    board = Board(lv)
    start = sorted(int(c) for c in board.boxes)
    assert naive.fewest_pushes(lv) is None
    assert frozen(board, start)
    # The same box in the door, the player above it: solvable, and nothing said.
    door = sorted(set(start) - {floor(board, 2, 3)} | {floor(board, 4, 2)})
    moved = lv.moved(boxes=[int(board.cells[c]) for c in door], player=1 * 9 + 4)
    assert naive.fewest_pushes(moved) is not None
    assert not frozen(board, door)


def test_a_shared_cache_of_floods_answers_as_a_fresh_one() -> None:
    # The kernel keeps each frozen set's floods; many positions of one board through one
    # cache (slots reused by other sets) must answer as each with a cache of its own.
    rng = random.Random(11)
    boards = 0
    outcomes = {True: 0, False: 0}
    while boards < 12:
        lv = random_room(rng)
        if lv is None:
            continue
        boards += 1
        board = Board(lv)
        cache = new_frozen_cache(board.n, len(board.goals))
        pool = [int(g) for g in board.goals] * 3 + list(range(board.n))
        for _ in range(60):
            cells = sorted(set(rng.sample(pool, 4)))
            if len(cells) < 4:
                continue
            got = frozen(board, cells, cache)
            assert got == frozen(board, cells), (lv.xsb(), cells)
            outcomes[got] += 1
    assert outcomes[True] >= 10 and outcomes[False] >= 10, outcomes


def random_boards(rng: random.Random, tries: int) -> Iterator[tuple[Level, Board]]:
    """The valid rooms among ``tries`` of :func:`random_room`, with their boards."""
    for _ in range(tries):
        lv = random_room(rng)
        if lv is not None:
            yield lv, Board(lv)


def walled_off(rng: random.Random, n: int) -> np.ndarray:
    """uint8[n]: up to a quarter of ``n`` cells at random set, as frozen boxes wall off."""
    wall = np.zeros(n, np.uint8)
    wall[rng.sample(range(n), rng.randint(0, n // 4))] = 1
    return wall


def reference_sides(nbr: np.ndarray, wall: np.ndarray) -> np.ndarray:
    """``label_sides`` by a flood of the player per cell and side, the box on the cell."""
    n = len(nbr)
    side = np.full((n, 4), -1, np.int8)
    for x in range(n):
        if wall[x]:
            continue
        region = {}
        for d in range(4):
            p = int(nbr[x, d])
            if p < 0 or wall[p] or p in region:
                continue
            todo, region[p] = [p], d
            while todo:
                u = todo.pop()
                for v in nbr[u]:
                    if v >= 0 and v != x and not wall[v] and v not in region:
                        region[int(v)] = d
                        todo.append(int(v))
        for e in range(4):
            p = int(nbr[x, e])
            if p >= 0 and not wall[p]:
                side[x, e] = region[p]
    return side


def test_the_sides_around_a_lone_box_agree_with_a_flood_per_side() -> None:
    # One depth-first search labels every cell's sides; rooms with random cells walled
    # off (as frozen boxes are) give doors, dead ends and cells cut off altogether.
    rng = random.Random(17)
    joined = parted = 0
    for lv, board in random_boards(rng, 60):
        n = board.n
        wall = walled_off(rng, n)
        side = np.zeros((n, 4), np.int8)
        times = np.zeros((3, n), np.int32)
        label_sides(board.nbr, wall, side, *times, np.empty(3 * n, np.int32))
        expected = reference_sides(board.nbr, wall)
        assert (side == expected).all(), (lv.xsb(), np.flatnonzero(wall).tolist())
        # Both cases occur: a box whose neighbours meet beyond it, and one that parts them.
        own = side == np.arange(4)
        joined += int(((side >= 0) & ~own).any(axis=1).sum())
        parted += int((own.sum(axis=1) >= 2).sum())
    assert joined >= 50 and parted >= 50, (joined, parted)


def test_the_cache_of_floods_fits_its_budget_on_the_largest_boards() -> None:
    for n, goals in ((300, 30), (2000, 1000), (2000, 1)):
        keys, floods = new_frozen_cache(n, goals)[:2]
        sets = len(keys)
        assert floods.shape == (sets, goals, n)
        assert sets & (sets - 1) == 0  # a power of two: the slot is the key's low bits
        assert sets == FROZEN_SETS or floods.nbytes <= FROZEN_CACHE_BYTES


def test_the_frozen_test_never_prunes_a_solvable_position() -> None:
    # Soundness against the naive solver on random rooms, boxes often on goals.
    rng = random.Random(5)
    outcomes = {True: 0, False: 0}
    while outcomes[True] < 15:
        lv = random_room(rng)
        if lv is None:
            continue
        board = Board(lv)
        pool = [int(g) for g in board.goals] * 2 + list(range(board.n))
        cells = sorted(set(rng.sample(pool, 4)))
        player = lv.player
        if len(cells) < 4 or player is None or board.index[player] in cells:
            continue
        got = frozen(board, cells)
        outcomes[got] += 1
        if got:
            moved = lv.moved(boxes=[int(board.cells[c]) for c in cells])
            assert naive.fewest_pushes(moved) is None, (moved.xsb(), cells)
    assert outcomes[False] > outcomes[True]


def test_the_chain_test_returns_a_mark_no_cell_holds_yet() -> None:
    # The fess kernel floods its regions from the mark returned: a cell left with that
    # mark would count as seen (a wrong feature cell, and a search that depended on where
    # the driver's kernel calls fell).
    lv = level(SPENT)
    board = Board(lv)
    plan = packing_order(board)
    goals = sorted(int(g) for g in board.goals)
    off = [int(c) for c in board.boxes if int(c) not in goals]
    cells = sorted(goals[:1] + off[: len(board.boxes) - 1])
    seen = np.zeros(board.n, np.int32)
    _, mark = chain(board, plan, cells, seen, 1)
    assert seen.max() > 0 and mark > seen.max()


def test_a_shared_cache_of_chain_floods_answers_and_marks_as_a_fresh_one() -> None:
    # The kernel keeps each set of packed goals' floods; positions of one board through
    # one cache (one slot, so that sets take it from each other) must give the same
    # answer, the same next mark and the same marked cells as each with a fresh cache:
    # the fess kernel's regions count reads the last flood's marks.
    rng = random.Random(13)
    boards = 0
    outcomes = {True: 0, False: 0}
    while boards < 12:
        lv = random_room(rng)
        if lv is None:
            continue
        boards += 1
        board = Board(lv)
        plan = packing_order(board)
        ng = len(plan.order)
        for sets in (1, CHAIN_SETS):
            keys, floods, meta, *scratch = new_chain_cache(board.n, ng)
            cache = (keys[:sets].copy(), floods[:sets].copy(), meta[:sets].copy(), *scratch)
            pool = [int(g) for g in plan.order] * 3 + list(range(board.n))
            seen_shared = np.zeros(board.n, np.int32)
            seen_fresh = np.zeros(board.n, np.int32)
            mark = 1
            for _ in range(60):
                cells = sorted(set(rng.sample(pool, 4)))
                if len(cells) < 4:
                    continue
                # Twice: the second time the set's floods are in the cache for sure.
                for _ in range(2):
                    got = chain(board, plan, cells, seen_shared, mark, cache)
                    want = chain(board, plan, cells, seen_fresh, mark)
                    assert got == want, (lv.xsb(), cells)
                    assert np.array_equal(seen_shared, seen_fresh), (lv.xsb(), cells)
                    mark = got[1]
                outcomes[got[0]] += 1
    assert outcomes[True] >= 10 and outcomes[False] >= 10, outcomes


def test_all_goals_floods_at_once_agree_with_a_flood_per_goal() -> None:
    # One pass over the pull graph's components against one pull flood per goal, on
    # rooms with random cells walled off (one-way doors, cut-off goals, walled goals).
    rng = random.Random(23)
    reached = unreached = 0
    for lv, board in random_boards(rng, 60):
        n = board.n
        order = np.array(rng.sample(range(n), rng.randint(1, 12)), np.int32)
        wall = walled_off(rng, n)
        want = np.array([rng.random() < 0.8 for _ in order], np.int32)
        floods = np.full((len(order), n), 7, np.uint8)
        goal_floods(board.nbr, wall, order, want, floods, *new_goal_floods_scratch(n, len(order)))
        for i, g in enumerate(order):
            if not want[i]:
                assert (floods[i] == 7).all()  # left as it was
                continue
            expected = np.zeros(n, np.uint8)
            if not wall[g]:
                _pull_flood(g, board.nbr, wall, wall[:0], expected, 1, np.empty(n, np.int32))
            assert np.array_equal(floods[i], expected), (lv.xsb(), int(g), wall.tolist())
            reached += int(expected.sum() > 1)
            unreached += int(expected.sum() <= 1)
    assert reached >= 100 and unreached >= 20, (reached, unreached)


def test_goal_bits_span_words_beyond_64_goals() -> None:
    # A corridor of 70 goals in a row: each goal is reached from the cells before it.
    lv = level("#" * 74 + "\n#@$" + " " * 69 + ".#\n" + "#" * 74)
    board = Board(lv)
    n = board.n
    order = np.arange(n, dtype=np.int32)[2:]
    floods = np.zeros((len(order), n), np.uint8)
    want = np.ones(len(order), np.int32)
    wall = np.zeros(n, np.uint8)
    goal_floods(board.nbr, wall, order, want, floods, *new_goal_floods_scratch(n, len(order)))
    for i, g in enumerate(order):
        expected = np.zeros(n, np.uint8)
        _pull_flood(g, board.nbr, wall, wall[:0], expected, 1, np.empty(n, np.int32))
        assert np.array_equal(floods[i], expected), int(g)
    assert floods[-1].sum() == n - 1  # the far end: from every cell the player can get behind


def test_the_chain_cache_fits_its_budget_on_the_largest_boards() -> None:
    for n, goals in ((300, 30), (2000, 1000), (2000, 1)):
        keys, floods, meta = new_chain_cache(n, goals)[:3]
        sets = len(keys)
        assert floods.shape == (sets, goals, n) and meta.shape == (sets, 2)
        assert sets & (sets - 1) == 0  # a power of two: the slot is the key's low bits
        assert sets == CHAIN_SETS or floods.nbytes <= CHAIN_CACHE_BYTES


def test_the_best_first_searches_prune_by_the_frozen_test_and_stay_optimal() -> None:
    # On random rooms (boxes often packed against walls), A* and breadth-first search with
    # the test find the same optimum as without it, or prove the room unsolvable too; and
    # breadth-first search, which has no bound to see such deadlocks, expands fewer
    # positions on some.
    rng = random.Random(3)
    fewer = dict.fromkeys(("astar", "bfs"), 0)
    rooms = 0
    while rooms < 25:
        lv = random_room(rng)
        if lv is None:
            continue
        rooms += 1
        for method in fewer:
            on = solve(lv, method, frozen_goals=True)
            off = solve(lv, method, frozen_goals=False)
            assert on.status is off.status, (method, lv.xsb())
            if off.solved:
                assert on.solution is not None and off.solution is not None
                assert on.solution.pushes == off.solution.pushes, (method, lv.xsb())
            fewer[method] += on.stats.expanded < off.stats.expanded
    assert fewer["bfs"] > 0, fewer
