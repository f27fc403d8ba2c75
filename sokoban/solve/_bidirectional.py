"""The method ``bidirectional`` and its kernel.

Breadth-first search over pushes: forward pushes from the start, backward
pulls from every solved position, meeting in the middle.

Each side keeps its states in insertion order, which for breadth-first search is the
order of their depth, so a side's queue is just the range of its nodes not yet expanded.
The side with the smaller frontier expands a whole layer; every new state is looked up
in the other side's table (the engine's table over the engine's Zobrist keys, so both
sides hash alike). Once a layer has met the other side, the cheapest meeting found in
it is the fewest pushes: before it no state was on both sides, so every solution is
longer than the two depths together, and this layer adds one.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from sokoban._arrays import copy_into, doubled
from sokoban._jit import njit
from sokoban.level import Level
from sokoban.lurd import Solution
from sokoban.solve import _driver, _table
from sokoban.solve._board import INF
from sokoban.solve._bounds import BOUNDS
from sokoban.solve._driver import BUDGET, EXHAUSTED, FULL
from sokoban.solve._path import expand
from sokoban.solve._reach import reach
from sokoban.solve._successors import FamilyBoard, pulls, pushes
from sokoban.solve.types import Limits, Option, ProgressCallback, SearchStats, SolveResult, register

#: Kernel result: the two sides met (the search is solved).
MET = _driver.SOLVED
# Slots of the state (int64 array): per side (forward 0, backward 1) stored nodes, next
# node to expand, end of the layer being expanded (stride 3); then the side expanding (-1
# between layers), the best meeting cost and its two nodes, expanded, generated, budget.
COUNT, HEAD, END = 0, 1, 2
SIDE, BEST, BEST_F, BEST_B, EXPANDED, GENERATED, STEPS = range(6, 13)
#: A cost no meeting reaches.
NONE = 1 << 40


class Side(NamedTuple):
    """One side's nodes: boxes int16[cap, b], player int32[cap], hash uint64[cap], parent
    int32[cap], depth int32[cap], and the engine's probe table int32[2 cap]."""

    boxes: np.ndarray
    player: np.ndarray
    hash: np.ndarray
    parent: np.ndarray
    depth: np.ndarray
    table: np.ndarray

    def path(self, node: int) -> list[tuple[np.ndarray, int]]:
        """The states from ``node`` back to its side's root."""
        path = []
        while node >= 0:
            path.append((self.boxes[node].copy(), int(self.player[node])))
            node = int(self.parent[node])
        return path


def new_side(capacity: int, nboxes: int) -> Side:
    """An empty :class:`Side` for ``capacity`` nodes."""
    return Side(
        np.zeros((capacity, nboxes), np.int16),
        np.zeros(capacity, np.int32),
        np.zeros(capacity, np.uint64),
        np.zeros(capacity, np.int32),
        np.zeros(capacity, np.int32),
        np.full(2 * capacity, -1, np.int32),
    )


@njit
def add_root(side, state, which, boxes, player, key):
    """Store a depth-0 state on side ``which`` unless it is there; returns its node."""
    s_boxes, s_player, s_hash, s_parent, s_depth, table = side
    found = _table.find(table, key, boxes, player, s_hash, s_boxes, s_player)
    if found >= 0:
        return found
    node = state[3 * which + COUNT]
    state[3 * which + COUNT] += 1
    copy_into(s_boxes[node], boxes)
    s_player[node] = player
    s_hash[node] = key
    s_parent[node] = -1
    s_depth[node] = 0
    table[-found - 1] = node
    return node


@njit
def run(board, scratch, children, forward, backward, state, kind):
    """Expand layers, up to ``state[STEPS]`` nodes in this call.

    Returns :data:`MET` (the cheapest path joins forward node ``state[BEST_F]`` and
    backward node ``state[BEST_B]``), :data:`EXHAUSTED` (a side ran out of states: no
    solution), :data:`BUDGET`, or :data:`FULL` (a side's store needs room for one more
    expansion: ``4 b`` nodes). ``kind``: the lower bound that prunes forward states.
    """
    c_boxes, c_player, c_key, c_h = children
    room = c_player.shape[0]
    steps = 0
    while True:
        which = state[SIDE]
        if which < 0:
            if state[BEST] < NONE:
                return MET
            ff = state[COUNT] - state[HEAD]
            bf = state[3 + COUNT] - state[3 + HEAD]
            if ff == 0 or bf == 0:
                return EXHAUSTED
            which = 0 if ff <= bf else 1
            state[SIDE] = which
            state[3 * which + END] = state[3 * which + COUNT]
        if state[3 * which + HEAD] >= state[3 * which + END]:
            state[SIDE] = -1
            continue
        if steps >= state[STEPS]:
            return BUDGET
        own = forward if which == 0 else backward
        other = backward if which == 0 else forward
        s_boxes, s_player, s_hash, s_parent, s_depth, table = own
        o_boxes, o_player, o_hash, o_parent, o_depth, o_table = other
        if state[3 * which + COUNT] + room > s_player.shape[0]:
            return FULL
        node = state[3 * which + HEAD]
        state[3 * which + HEAD] += 1
        steps += 1
        state[EXPANDED] += 1
        if which == 0:
            count = pushes(
                s_boxes[node], s_player[node], s_hash[node], board, scratch, kind, children
            )
        else:
            count = pulls(s_boxes[node], s_player[node], s_hash[node], board, scratch, children)
        state[GENERATED] += count
        depth = s_depth[node] + 1
        for i in range(count):
            found = _table.find(table, c_key[i], c_boxes[i], c_player[i], s_hash, s_boxes, s_player)
            if found >= 0:
                continue
            new = state[3 * which + COUNT]
            state[3 * which + COUNT] += 1
            copy_into(s_boxes[new], c_boxes[i])
            s_player[new] = c_player[i]
            s_hash[new] = c_key[i]
            s_parent[new] = node
            s_depth[new] = depth
            table[-found - 1] = new
            meet = _table.find(
                o_table, c_key[i], c_boxes[i], c_player[i], o_hash, o_boxes, o_player
            )
            if meet >= 0 and depth + o_depth[meet] < state[BEST]:
                state[BEST] = depth + o_depth[meet]
                state[BEST_F] = new if which == 0 else meet
                state[BEST_B] = meet if which == 0 else new


def solved_positions(family: FamilyBoard) -> list[tuple[np.ndarray, int]]:
    """Boxes on every goal with the player in each region of the floor left free."""
    board = family.board
    goals = np.sort(board.goals).astype(np.int16)
    occ = np.full(board.n, -1, np.int32)
    occ[goals] = 0
    seen = np.zeros(board.n, np.int32)
    scratch = np.zeros(board.n, np.int32)
    positions = []
    mark = 0
    for cell in range(board.n):
        if occ[cell] >= 0 or seen[cell]:
            continue
        mark += 1
        canon = int(reach(cell, occ, board.nbr, seen, mark, scratch, scratch.copy()))
        positions.append((goals, canon))
    return positions


class Bidirectional:
    """The two sides of one bidirectional search, run by
    :func:`sokoban.solve._driver.drive`."""

    def __init__(self, family: FamilyBoard, kind: int) -> None:
        self.family = family
        self.kind = kind
        nb = family.nboxes
        self.sides = [new_side(1 << 12, nb), new_side(1 << 12, nb)]
        state = np.zeros(13, np.int64)
        state[SIDE] = -1
        state[BEST] = NONE
        add_root(self.sides[0], state, 0, family.boxes, family.player, family.key)
        for boxes, player in solved_positions(family):
            add_root(self.sides[1], state, 1, boxes, player, family.state_key(boxes, player))
        self.state = state

    @property
    def nbytes(self) -> int:
        return self.family.nbytes + sum(a.nbytes for side in self.sides for a in side)

    @property
    def expanded(self) -> int:
        return int(self.state[EXPANDED])

    @property
    def exhausted(self) -> bool:
        return False

    def step(self, budget: int) -> int:
        self.state[STEPS] = budget
        family = self.family
        forward, backward = self.sides
        code: int = run(
            family.kernel, family.scratch, family.children, forward, backward, self.state, self.kind
        )
        return code

    def grow(self, code: int, memory: int) -> bool:
        which = int(self.state[SIDE])
        side = self.sides[which]
        extra = sum(a.nbytes for a in side[:-1]) + 2 * side.table.nbytes
        if self.nbytes + extra > memory:
            return False
        grown = [doubled(a) for a in side[:-1]]
        table = np.empty(2 * side.table.shape[0], np.int32)
        _table.rebuild(table, grown[2], int(self.state[3 * which + COUNT]))
        self.sides[which] = Side._make([*grown, table])
        return True

    def stats(self, run: _driver.Run) -> SearchStats:
        state = self.state
        stored = int(state[COUNT] + state[3 + COUNT])
        return SearchStats(
            int(state[EXPANDED]), int(state[GENERATED]), stored, run.peak_bytes, run.seconds
        )

    def solution(self) -> Solution:
        forward, backward = self.sides
        path = forward.path(int(self.state[BEST_F]))
        path.reverse()
        path += backward.path(int(backward.parent[int(self.state[BEST_B])]))
        return expand(self.family.board, path)

    def solved_message(self, optimal: bool) -> str:
        return f"solved in {int(self.state[BEST])} pushes (optimal)"


@register(
    "bidirectional",
    "breadth-first pushes from the start and pulls from the solved positions, meeting midway",
    "pushes",
    optimal=True,
    options=(
        Option(
            "bound",
            str,
            "matching",
            "the lower bound that prunes forward bipartite deadlocks",
            choices=("matching", "nearest"),
        ),
    ),
)
def bidirectional(
    level: Level, limits: Limits, progress: ProgressCallback | None, **options: Any
) -> SolveResult:
    """Push-optimal bidirectional breadth-first search."""
    kind = BOUNDS[options["bound"]]
    family = FamilyBoard(level)
    if family.bound(kind, family.boxes) >= INF:
        return _driver.unsolvable("bidirectional")
    search = Bidirectional(family, kind)
    run = _driver.drive(search, limits, progress)
    return _driver.result(search, run, "bidirectional", True)
