"""The packing order and the feature-space search (method ``fess``): orders of hand-made
goal rooms, features of built positions, replayed solutions, limits and bad input."""

from __future__ import annotations

import time
from collections import deque
from pathlib import Path

import numpy as np
import pytest
from public import PUBLIC

from sokoban import Level, verify
from sokoban.errors import SokobanError
from sokoban.solve import METHODS, Limits, Status, _driver, _turns, solve
from sokoban.solve._board import Board
from sokoban.solve._carry import MAX_STATES, carry
from sokoban.solve._features import feature_cell, ranks_above, regions
from sokoban.solve._fess import Fess
from sokoban.solve._fess_kernel import (
    CELL,
    KEY_ADVISORS,
    KEY_MIXED,
    KEY_WEIGHT,
    P_CONN,
    P_OOP,
    P_ROOMS,
    WEIGHT,
)
from sokoban.solve._packing import packed_count, packing_order
from sokoban.solve._path import expand
from sokoban.solve._portfolio import BIG, SMALL_BOXES
from sokoban.solve._reach import reach
from sokoban.solve._rooms import no_links
from sokoban.solve._store import NODES
from sokoban.solve._turns import Entrant, memory_share, take_turns
from sokoban.xsb import iter_levels

DATA = Path(__file__).resolve().parent / "data"


def level(text: str) -> Level:
    return Level.from_xsb(text.strip("\n"))


def xy(board: Board, floor: int) -> tuple[int, int]:
    cell = board.cell(floor)
    return cell % board.width, cell // board.width


# A dead-end goal corridor entered from the top: (4, 6) is the deepest goal.
CORRIDOR = """
########
#@     #
# $$$  #
#      #
####.###
   #.#
   #.#
   ###"""

# Goals in a corner: the corner goal (1, 6) is walled in by the other three.
ROOM = """
########
#@     #
#  $ $ #
#  $ $ #
#      #
#..    #
#..    #
########"""

# Goals in the open: no goal blocks another.
SCATTERED = """
#######
#@    #
# $ $.#
# $  .#
#    .#
#######"""


def test_corridor_fills_deepest_first() -> None:
    board = Board(level(CORRIDOR))
    plan = packing_order(board)
    assert [xy(board, g) for g in plan.order] == [(4, 6), (4, 5), (4, 4)]
    # Each goal must precede the one nearer the entrance.
    assert plan.parent.tolist() == [1, 2, -1]
    assert plan.depth == 3


def test_corner_goal_fills_first() -> None:
    board = Board(level(ROOM))
    plan = packing_order(board)
    order = [xy(board, g) for g in plan.order]
    assert sorted(order) == [(1, 5), (1, 6), (2, 5), (2, 6)]
    assert order[0] == (1, 6)
    # The corner must precede a neighbour; the other goals are free of each other.
    assert order[plan.parent[0]] in {(1, 5), (2, 6)}
    assert sum(p >= 0 for p in plan.parent) == 1
    for i, p in enumerate(plan.parent):
        assert p == -1 or p > i


# The upper goal's only way in is a push up from the lower goal: the cell above it is a
# pocket the player walks into along the top row but no box can ever reach. Pulling the
# upper goal's box into that pocket stands for no push, so the upper goal must be filled
# first although one pull takes its box off the goals.
POCKET = """
########
#     ##
# ## ###
# ##.###
#   .  #
#  $$ @#
#      #
########"""


def test_a_pull_into_a_pocket_no_box_reaches_does_not_count() -> None:
    lv = level(POCKET)
    board = Board(lv)
    plan = packing_order(board)
    assert [xy(board, g) for g in plan.order] == [(4, 3), (4, 4)]
    assert plan.parent.tolist() == [1, -1]
    result = solve(lv, "fess")
    assert result.solved


def test_scattered_goals_keep_no_order() -> None:
    board = Board(level(SCATTERED))
    plan = packing_order(board)
    assert plan.parent.tolist() == [-1, -1, -1]
    assert plan.depth == 1


def occupancy(board: Board, cells: list[tuple[int, int]]) -> np.ndarray:
    occ = np.full(board.n, -1, np.int32)
    for k, (x, y) in enumerate(cells):
        occ[board.index[y * board.width + x]] = k
    return occ


def test_packed_counts_only_goals_filled_in_order() -> None:
    board = Board(level(CORRIDOR))
    plan = packing_order(board)
    ok = np.ones(3, np.uint8)
    # Deepest goal filled: packed.
    assert packed_count(occupancy(board, [(4, 6)]), plan.order, plan.parent, ok) == (1, 0)
    # Door goal filled with the corridor behind it empty: out of plan.
    assert packed_count(occupancy(board, [(4, 4)]), plan.order, plan.parent, ok) == (0, 1)
    # Deepest and door filled, middle empty: one packed, one out of plan.
    got = packed_count(occupancy(board, [(4, 6), (4, 4)]), plan.order, plan.parent, ok)
    assert got == (1, 1)
    assert packed_count(
        occupancy(board, [(4, 6), (4, 5), (4, 4)]), plan.order, plan.parent, ok
    ) == (
        3,
        0,
    )


def test_regions_count_the_areas_the_boxes_cut() -> None:
    board = Board(level(CORRIDOR))
    seen = np.zeros(board.n, np.int32)
    queue = np.empty(board.n, np.int32)
    none = np.zeros(board.n, np.int32), -1  # no region walked before

    def count(boxes, mark, cap=99):
        return regions(occupancy(board, boxes), board.nbr, seen, mark, queue, cap, *none)

    assert count([], 1)[0] == 1
    # A box in the corridor's mouth cuts the corridor off from the room.
    assert count([(4, 4)], 10) == (2, 12)
    # A box at the corridor's end cuts nothing off; one in the middle cuts off the end.
    assert count([(4, 4), (4, 6)], 20)[0] == 2
    assert count([(4, 5)], 30)[0] == 2
    assert count([(4, 4), (4, 5)], 40)[0] == 2
    # The count stops at its cap.
    assert count([(4, 4)], 50, cap=1) == (1, 51)


def plain_regions(board: Board, occ: np.ndarray) -> int:
    """The oracle: components of the free cells, one breadth-first flood each."""
    seen: set[int] = set()
    count = 0
    for s in range(board.n):
        if occ[s] >= 0 or s in seen:
            continue
        count += 1
        seen.add(s)
        todo = deque([s])
        while todo:
            c = todo.popleft()
            for x in board.nbr[c]:
                if x >= 0 and occ[x] < 0 and int(x) not in seen:
                    seen.add(int(x))
                    todo.append(int(x))
    return count


def test_regions_count_the_players_walk_as_one_region_without_its_flood() -> None:
    # Random boxes on XSokoban 1: given the player's walk, the count is the oracle's (up
    # to the cap), as it is without; cells marked before the call still count as seen.
    board = Board(PUBLIC.level("xsokoban.xsb", 1))
    rng = np.random.default_rng(7)
    queue = np.empty(board.n, np.int32)
    for trial in range(200):
        occ = np.full(board.n, -1, np.int32)
        cells = rng.choice(board.n, size=int(rng.integers(1, board.n // 2)), replace=False)
        occ[cells] = np.arange(len(cells), dtype=np.int32)
        free = np.flatnonzero(occ < 0)
        if not len(free):
            continue
        walked = np.zeros(board.n, np.int32)
        scratch = np.empty(board.n, np.int32)
        reach(int(rng.choice(free)), occ, board.nbr, walked, 3, scratch, scratch.copy())
        want = plain_regions(board, occ)
        for cap in (2, 4, 99):
            seen = np.zeros(board.n, np.int32)
            got = regions(occ, board.nbr, seen, 1, queue, cap, walked, 3)
            assert got == (min(want, cap), 1 + min(want, cap)), trial
        # A cell marked before the call counts as seen, walk or not: the same count as
        # without the walk.
        seen = np.zeros(board.n, np.int32)
        seen[free[0]] = 5
        without = regions(occ, board.nbr, seen.copy(), 5, queue, 99, walked, -1)
        assert regions(occ, board.nbr, seen, 5, queue, 99, walked, 3) == without


def test_feature_cell_combines_the_features() -> None:
    board = Board(level(CORRIDOR))
    plan = packing_order(board)
    ok = np.ones(3, np.uint8)
    seen = np.zeros(board.n, np.int32)
    queue = np.empty(board.n, np.int32)
    occ = occupancy(board, [(4, 6), (4, 4)])  # packed 1, regions 2, out of plan 1
    cell, _ = feature_cell(
        occ, board.nbr, plan.steps, plan.step_parent, plan.feeds, ok, seen, 1, queue,
        seen, -1, no_links(), 6, 1, 6,
    )  # fmt: skip
    assert cell == (1 * 6 + 1) * 6 + 1


def test_feature_cell_with_no_region_counted_stays_in_its_packed_count() -> None:
    # the kernel lets the first child after the chain test take that test's last flood as
    # seen; when the flood covers every free cell no region is counted, and the cell must
    # still be the first connectivity column of its packed count (was: one below, or a
    # negative index).
    board = Board(level(CORRIDOR))
    plan = packing_order(board)
    ok = np.ones(3, np.uint8)
    queue = np.empty(board.n, np.int32)
    occ = occupancy(board, [(4, 6), (4, 4)])  # packed 1, out of plan 1
    seen = np.full(board.n, 5, np.int32)  # every cell flooded with the mark passed
    cell, mark = feature_cell(
        occ, board.nbr, plan.steps, plan.step_parent, plan.feeds, ok, seen, 5, queue,
        seen, -1, no_links(), 6, 1, 6,
    )  # fmt: skip
    assert cell == (1 * 6 + 0) * 6 + 1 and mark == 5


SMALL = [
    CORRIDOR,
    ROOM,
    SCATTERED,
    """
#####
#.  #
# $ #
#@$.#
#####""",
]


@pytest.mark.parametrize("text", SMALL)
def test_fess_solves_small_levels(text: str) -> None:
    lv = level(text)
    result = solve(lv, "fess", Limits(time=20))
    assert result.status is Status.SOLVED
    assert verify(lv, result.solution).is_solved
    assert not result.optimal and result.stats.expanded > 0


def test_fess_solves_the_project_levels() -> None:
    for lv in iter_levels(DATA / "tiny.xsb"):
        if lv.problems() or lv.is_solved:
            continue
        result = solve(lv, "fess", Limits(time=20))
        assert result.status in (Status.SOLVED, Status.UNSOLVABLE), result.message
        if result.solved:
            assert verify(lv, result.solution).is_solved


def test_fess_solves_microban_1_to_20() -> None:
    for number, lv in PUBLIC.levels("microban.xsb", range(1, 21)):
        result = solve(lv, "fess", Limits(time=10))
        assert result.solved, f"microban {number}: {result.message}"
        assert verify(lv, result.solution).is_solved


def test_fess_proves_unsolvable() -> None:
    # The left box can only slide along the top wall, away from every goal it could use.
    lv = level(
        """
######
# $ .#
#@   #
#$  .#
######"""
    )
    result = solve(lv, "fess", Limits(time=10))
    assert result.status is Status.UNSOLVABLE


def hard() -> Level:
    return PUBLIC.level("xsokoban.xsb", 29)  # far beyond a fraction of a second


def test_fess_respects_node_limit() -> None:
    result = solve(hard(), "fess", Limits(nodes=500))
    assert result.status is Status.NODE_LIMIT
    assert 500 <= result.stats.expanded <= 600


def test_fess_respects_time_limit() -> None:
    result = solve(hard(), "fess", Limits(time=0.5))
    assert result.status is Status.TIME_LIMIT
    assert result.stats.seconds < 1.0


def test_fess_respects_memory_limit() -> None:
    lv = hard()
    # 8 MiB: two searches by turns, each with a share of 4 MiB, about 3 of them the fixed
    # arrays (the board, the two-box table, the corral memo and patterns).
    result = solve(lv, "fess", Limits(time=30, memory=8 << 20))
    assert result.status is Status.MEMORY_LIMIT
    assert result.stats.peak_bytes <= 8 << 20


def test_fess_is_registered_and_checks_options() -> None:
    assert "fess" in METHODS and not METHODS["fess"].optimal
    with pytest.raises(SokobanError, match="unknown option 'weight'"):
        solve(level(CORRIDOR), "fess", Limits(time=1), weight=2)


def test_fess_without_corrals_still_solves() -> None:
    lv = level(ROOM)
    result = solve(lv, "fess", Limits(time=10), corrals=False)
    assert result.solved and verify(lv, result.solution).is_solved


def test_fess_on_invalid_level() -> None:
    lv = level(
        """
#####
#@$ #
#####"""
    )
    assert solve(lv, "fess", Limits(time=1)).status is Status.INVALID


def test_fess_search_object_reports_progress() -> None:
    board = Board(level(ROOM))
    seen: list[int] = []
    search = Fess(board, tunnels=False, macros=False)
    run = search.run(Limits(time=10), lambda now: seen.append(now.expanded))
    assert run.solved and len(search.path()) == search.cost + 1
    assert seen and seen[-1] == search.expanded


@pytest.mark.parametrize("key", ["bound", "weight", "mixed", "features", "advisors"])
def test_every_key_solves(key: str) -> None:
    lv = level(CORRIDOR)
    result = solve(lv, "fess", Limits(time=10), key=key)
    assert result.solved and verify(lv, result.solution).is_solved


def advised(
    cells: list[int], h: list[int], conn_cap: int, rooms_cap: int, oop_cap: int
) -> set[int]:
    """The children (nodes 1...) of the root (node 0) that FESS's advisors pick, by the
    rule written out plainly: the best that packs more, the best with fewer regions, the
    best with fewer obstructed room links, the best with fewer boxes out of plan, the
    lowest bound below the root's; none that packs less; "best" is further on in the
    feature space, then the lower bound, the first of equals."""

    def feats(cell: int) -> tuple[int, int, int, int]:
        rest = cell // oop_cap
        rooms, rest = rest % rooms_cap, rest // rooms_cap
        return rest // conn_cap, rest % conn_cap, rooms, cell % oop_cap

    def rank(node: int) -> tuple[int, int, int, int, int]:
        packed, conn, rooms, oop = feats(cells[node])
        return (-packed, conn, rooms, oop, h[node])

    root = feats(cells[0])
    picked = set()
    for test in (
        lambda f: f[0] > root[0],
        lambda f: f[1] < root[1],
        lambda f: f[2] < root[2],
        lambda f: f[3] < root[3],
    ):
        fits = [n for n in range(1, len(cells)) if feats(cells[n])[0] >= root[0]]
        fits = [n for n in fits if test(feats(cells[n]))]
        if fits:
            picked.add(min(fits, key=lambda n: (rank(n), n)))
    lower = [n for n in range(1, len(cells)) if h[n] < h[0] and feats(cells[n])[0] >= root[0]]
    if lower:
        picked.add(min(lower, key=lambda n: (h[n], n)))
    return picked


def test_the_advisors_key_frees_only_the_advisors_moves() -> None:
    levels = [level(ROOM), level(CORRIDOR)]
    for name in ("microban.xsb", "microban2.xsb", "xsokoban.xsb"):
        levels += [lv for _, lv in PUBLIC.levels(name, range(1, 41))]
    freed = 0
    for lv in levels:
        search = Fess(Board(lv), key=KEY_ADVISORS)
        search.run(Limits(nodes=1))
        n = int(search.counters[NODES])
        cells = search.extra[CELL, :n].tolist()
        h = search.store.h[:n].tolist()
        free = {i for i in range(1, n) if search.extra[WEIGHT, i] == 0}
        assert all(search.extra[WEIGHT, i] in (0, 1) for i in range(1, n))
        caps = (int(search.params[P_CONN]), int(search.params[P_ROOMS]), int(search.params[P_OOP]))
        assert free == advised(cells, h, *caps)
        freed += len(free) < n - 1  # some child left at weight 1
    assert freed >= 10, freed


def test_unknown_key_is_refused() -> None:
    with pytest.raises(SokobanError, match="key='weight,fastest' of method 'fess' is not one of"):
        solve(level(CORRIDOR), "fess", Limits(time=1), key="weight,fastest")


def test_turns_sum_the_searches() -> None:
    board = Board(level(ROOM))
    plan = packing_order(board)
    searches = [
        Fess(board, plan=plan, key=k, tunnels=False, macros=False) for k in (KEY_WEIGHT, KEY_MIXED)
    ]
    entrants = [Entrant(str(k), search) for k, search in enumerate(searches)]
    out = take_turns(entrants, Limits(time=10, memory=1 << 30))
    assert out.run.solved
    stats = out.stats(out.run)
    assert stats.expanded == sum(e.expanded for e in searches)
    assert stats.peak_bytes == sum(e.peak for e in entrants)
    # The solved path is a chain of single pushes from the start.
    path = out.last.search.path()
    assert np.array_equal(np.sort(path[0][0]), board.boxes)
    for (before, _), (after, _) in zip(path, path[1:], strict=False):
        assert len(set(before.tolist()) ^ set(after.tolist())) == 2


def test_macros_carry_boxes_and_replay() -> None:
    # Each box goes to its corner goal in one move of the search; the path has steps that
    # move a box more than one cell, and their pushes replay to the solved position.
    lv = level(ROOM)
    board = Board(lv)
    search = Fess(board, tunnels=False, macros=True)
    assert search.run(Limits(time=10)).solved
    path = search.path()
    assert len(path) - 1 < search.cost  # fewer moves of the search than pushes
    solution = expand(board, path)
    assert sum(push for _, push in solution.steps) == search.cost
    assert verify(lv, solution).is_solved


TUNNEL = """
#####
#@  ######
# $     .#
#   ######
#####"""


def test_tunnel_macros_go_through_in_one_move() -> None:
    lv = level(TUNNEL)
    board = Board(lv)
    search = Fess(board, tunnels=True, macros=False)
    assert search.run(Limits(time=10)).solved
    path = search.path()
    assert len(path) - 1 < search.cost
    assert verify(lv, expand(board, path)).is_solved


@pytest.mark.parametrize(
    "options",
    [{"macros": False}, {"tunnels": False}, {"project": True}, {"parking": False}, {}],
)
def test_macro_options_solve_and_replay(options: dict[str, bool]) -> None:
    for text in (CORRIDOR, ROOM, TUNNEL, *SMALL):
        lv = level(text)
        result = solve(lv, "fess", Limits(time=10), **options)
        assert result.solved and verify(lv, result.solution).is_solved


def lone_carry(board: Board, occ: np.ndarray, box: int, target: int, player: int) -> int:
    """The fewest pushes taking the box on ``box`` to ``target`` (the others fixed): a
    0-1 breadth-first search over (box, player) cells, walks free; -1 if none."""
    nbr = board.nbr
    others = {int(c) for c in np.flatnonzero(occ >= 0)} - {box}
    depth = {(box, player): 0}
    todo = deque([(box, player)])
    while todo:
        b, p = todo.popleft()
        if b == target:
            return depth[b, p]
        for d in range(4):
            q = int(nbr[p, d])
            if q < 0 or q in others:
                continue
            if q != b:
                state, cost, near = (b, q), depth[b, p], True
            else:
                t = int(nbr[b, d])
                if t < 0 or t in others:
                    continue
                state, cost, near = (t, b), depth[b, p] + 1, False
            if cost < depth.get(state, 1 << 30):
                depth[state] = cost
                if near:
                    todo.appendleft(state)
                else:
                    todo.append(state)
    return -1


def test_carry_finds_the_fewest_pushes_in_open_rooms() -> None:
    # Random boxes in an open room: when the lone box is close to the target, carry finds
    # it exactly when a plain search does, with the same number of pushes.
    room = level(
        """
#########
#@      #
#       #
#       #
#       #
#       #
#.      #
#########"""
    )
    board = Board(room)
    n = board.n
    rng = np.random.default_rng(13)
    agree = 0
    for _ in range(60):
        cells = rng.choice(n, size=5, replace=False)
        occ = np.full(n, -1, np.int32)
        boxes = [int(c) for c in cells[:4] if not board.dead[c]]
        if len(boxes) < 2:
            continue
        occ[boxes] = np.arange(len(boxes), dtype=np.int32)
        player = int(cells[4])
        if occ[player] >= 0:
            continue
        target = int(board.goals[0])
        if occ[target] >= 0:
            continue
        box = boxes[0]
        region = np.zeros(n, np.int32)
        reach(player, occ, board.nbr, region, 1, np.empty(n, np.int32), np.zeros(n, np.int32))
        h = board.dist[0]
        pushes, stand, _ = carry(
            box,
            target,
            h,
            occ,
            board.nbr,
            board.dead,
            region,
            1,
            np.zeros(n, np.int32),
            0,
            np.empty(n, np.int32),
            np.zeros(n, np.int32),
            np.empty((3, 4 * n), np.int32),
            np.zeros(4 * n, np.int32),
            1,
            MAX_STATES,
        )
        want = lone_carry(board, occ, box, target, player)
        if pushes >= 0:
            assert want >= 0 and pushes >= want
            assert any(board.nbr[target, d] == stand for d in range(4))
        if 0 <= want <= h[box] + 2:
            assert pushes >= 0  # close to the lone box's distance: found
            agree += pushes == want
    assert agree >= 10


def test_fast_stopped_by_its_node_limit_names_the_search_last_run() -> None:
    big = hard()
    assert len(big.boxes) > SMALL_BOXES
    labels = tuple(f"{entry.label}: stopped" for entry in BIG)
    assert solve(big, "fast", Limits(nodes=300)).message.startswith(labels)


def test_turns_with_no_time_left_stop_at_once() -> None:
    board = Board(level(ROOM))
    out = take_turns([Entrant("fess", Fess(board))], Limits(time=0.0))
    assert out.run.limit == "time" and out.expanded == 0
    result = solve(level(ROOM), "fess", Limits(time=0.0))
    assert result.status is Status.TIME_LIMIT


def test_projection_ranks_cells_by_packed_then_regions_then_rooms_then_out_of_plan() -> None:

    caps = conn, rooms, oop = 4, 3, 4

    def cell(packed: int, regions: int, links: int, out: int) -> int:
        return ((packed * conn + regions) * rooms + links) * oop + out

    assert ranks_above(cell(2, 3, 2, 3), cell(1, 0, 0, 0), *caps)
    assert ranks_above(cell(1, 0, 2, 3), cell(1, 1, 0, 0), *caps)
    assert ranks_above(cell(1, 1, 0, 3), cell(1, 1, 1, 0), *caps)
    assert ranks_above(cell(1, 1, 1, 0), cell(1, 1, 1, 2), *caps)
    assert not ranks_above(cell(1, 1, 1, 2), cell(1, 1, 1, 2), *caps)
    assert not ranks_above(cell(0, 0, 0, 0), cell(1, 3, 2, 3), *caps)


def test_projection_changes_the_search_and_still_solves() -> None:
    lv = PUBLIC.level("microban.xsb", 146)  # 52 expansions without, 47 with it
    runs = {}
    for project in (False, True):
        result = solve(lv, "fess", Limits(time=60), key="features", project=project)
        assert result.solved and verify(lv, result.solution).is_solved
        runs[project] = result.stats.expanded
    assert runs[False] != runs[True]


def test_a_search_that_leaves_hands_its_memory_share_on() -> None:
    board = Board(level(ROOM))
    searches = [Fess(board, key=k, tunnels=False, macros=False) for k in (KEY_WEIGHT, KEY_MIXED)]
    entrants = [Entrant(str(k), search) for k, search in enumerate(searches)]
    limits = Limits(memory=1 << 30)
    # Both taking turns: half each.
    assert memory_share(entrants, entrants, limits) == (1 << 30) // 2
    # One left: the other may use all but what the first still holds.
    held = searches[0].nbytes
    assert 0 < held < 1 << 29
    assert memory_share(entrants, entrants[1:], limits) == (1 << 30) - held


class _Held:
    """A stand-in search for the turns: holds ``nbytes``, never ends by itself (or has run
    out of positions from the start when ``done``)."""

    def __init__(self, nbytes: int, done: bool = False) -> None:
        self.nbytes = nbytes
        self.exhausted = done
        self.expanded = 0
        self.counters = np.zeros(8, np.int64)

    def step(self, budget: int) -> int:
        # A microsecond of CPU per expansion asked for, as a search's calls take.
        end = time.thread_time() + budget * 1e-6
        while time.thread_time() < end:
            pass
        self.expanded += budget
        return _driver.BUDGET

    def grow(self, code: int, memory: int) -> bool:
        return False


def test_the_turns_give_a_leaving_search_s_memory_to_the_others() -> None:
    limit = 1 << 20
    gone, big = _Held(0, done=True), _Held(limit * 3 // 5)
    out = take_turns([Entrant("gone", gone), Entrant("big", big)], Limits(time=0.3, memory=limit))
    # Over half the limit, but within what the search that left hands on.
    assert out.run.limit == "time" and big.expanded > 0
    bigger = _Held(limit * 3 // 5)
    take_turns([Entrant("a", _Held(0)), Entrant("b", bigger)], Limits(time=0.3, memory=limit))
    # Beside a search still taking turns, half the limit: it leaves at once.
    assert bigger.expanded == 0


def test_the_portfolio_makes_a_search_only_at_its_first_turn() -> None:
    from sokoban.solve import _portfolio
    from sokoban.solve._tables import Tables

    options = {o.name: o.default for o in METHODS["fast"].options if o.name != "threads"}
    lv = level(ROOM)
    entrants = _portfolio.make_all(
        _portfolio.SMALL, Tables(lv), options, _portfolio.LATE_SMALL, _portfolio.SPARE_SMALL
    )
    found = take_turns(entrants, Limits(time=10))
    # Greedy search settles the room in its first turn: the fess searches' set-up (their
    # plans, rooms and stores) is never made.
    assert found.solved and found.last is entrants[0]
    assert [e.search is None for e in entrants] == [False, False] + [True] * (len(entrants) - 2)
    assert found.expanded == entrants[0].expanded + entrants[1].expanded


def test_a_search_with_a_most_turns_leaves_the_time_to_the_others(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(_turns, "FIRST_TURN", 0.01)
    first, other = _Held(0), _Held(0)
    capped = Entrant("capped", first, most_turns=2)
    out = take_turns([capped, Entrant("other", other)], Limits(time=0.3))
    # Two turns (10 and 15 ms), then the rest of the time goes to the other search.
    assert out.run.limit == "time" and capped.turns == 2
    assert 15_000 <= first.expanded <= 40_000 and other.expanded > first.expanded
    # When every other search has left, it takes turns again.
    first, gone = _Held(0), _Held(0, done=True)
    capped = Entrant("capped", first, most_turns=2)
    out = take_turns([capped, Entrant("gone", gone)], Limits(time=0.3))
    assert out.run.limit == "time" and capped.turns > 2


def test_a_spare_search_joins_in_the_place_of_one_that_retires(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Turns of 10 ms, then 15 ms, and so on: the longest turns come after the limit.
    monkeypatch.setattr(_turns, "FIRST_TURN", 0.01)
    monkeypatch.setattr(_turns, "LONGEST_TURN", 1.0)
    capped, other, spare, second = _Held(0), _Held(0), _Held(0), _Held(0)
    entrants = [
        Entrant("capped", capped, most_turns=2),
        Entrant("other", other),
        Entrant("spare", spare, late=True, spare=True),
        Entrant("second spare", second, late=True, spare=True),
    ]
    out = take_turns(entrants, Limits(time=0.2))
    # One place freed, one spare in it: the second waits.
    assert out.run.limit == "time" and entrants[0].turns == 2
    assert spare.expanded > 0 and second.expanded == 0
    # It joined after the second round: the other search had two turns (25 ms) more.
    assert other.expanded - spare.expanded >= 15_000
    # A search that leaves (out of positions, no proof) frees its place as well; a late
    # search that is no spare waits for the longest turns.
    gone, other, spare, late = _Held(0, done=True), _Held(0), _Held(0), _Held(0)
    entrants = [
        Entrant("gone", gone),
        Entrant("other", other),
        Entrant("late", late, late=True),
        Entrant("spare", spare, late=True, spare=True),
    ]
    out = take_turns(entrants, Limits(time=0.1))
    assert out.run.limit == "time" and spare.expanded > 0 and late.expanded == 0


def test_late_searches_join_at_the_longest_turns_when_memory_has_room(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Turns of 10, 15 and then 20 ms, the longest: the late search joins at the third round.
    monkeypatch.setattr(_turns, "FIRST_TURN", 0.01)
    monkeypatch.setattr(_turns, "LONGEST_TURN", 0.02)
    limit = 1 << 20
    made: list[tuple[int, _Held]] = []

    def late(first: _Held) -> Entrant:
        def make() -> _Held:
            joined = _Held(0)
            made.append((first.expanded, joined))
            return joined

        return Entrant("late", make=make, late=True)

    first, second = _Held(0), _Held(limit // 4)
    out = take_turns(
        [Entrant("a", first), Entrant("b", second), late(first)], Limits(time=0.03, memory=limit)
    )
    # The first two rounds (25 ms of turns each) use up a limit of 30 ms: none joins.
    assert out.run.limit == "time" and made == [] and out.entrants[2].search is None
    first, second = _Held(0), _Held(limit // 4)
    out = take_turns(
        [Entrant("a", first), Entrant("b", second), late(first)], Limits(time=0.3, memory=limit)
    )
    assert len(made) == 1
    seen, joined = made[0]
    assert out.entrants[2].search is joined
    # Joined after two rounds' turns (about 25,000 expansions of a microsecond each).
    assert seen >= 20_000 and joined.expanded > 0
    # A running search holds more than a third of the memory: no room for a third search.
    made.clear()
    first, second = _Held(0), _Held(limit * 2 // 5)
    out = take_turns(
        [Entrant("a", first), Entrant("b", second), late(first)], Limits(time=0.3, memory=limit)
    )
    assert made == [] and out.run.limit == "time" and second.expanded > 0


def test_feature_cells_get_rows_of_buckets_only_when_used() -> None:
    # The cells hold rows of buckets for the cells that ever held a node, and grow them
    # as the search reaches more cells; the search is the same either way.
    search = Fess(Board(hard()), key=KEY_WEIGHT)
    search.run(Limits(nodes=3000))
    cells = search.cells
    used = int(cells.rows[0])
    assert 0 < used <= len(cells.heads) < len(cells.rowof)
    rows = cells.rowof[cells.rowof >= 0]
    assert sorted(rows.tolist()) == list(range(used))  # one row a cell, none twice
    assert (cells.rowof[cells.sizes > 0] >= 0).all()
    # Every queued node is in its cell's row: walk the buckets.
    link = search.extra[0]
    queued = 0
    for cell in np.flatnonzero(cells.rowof >= 0):
        for head in cells.heads[cells.rowof[cell]]:
            node = int(head)
            while node >= 0:
                assert search.extra[CELL, node] == cell
                queued += 1
                node = int(link[node])
    assert queued == int(cells.sizes.sum()) > 0
