"""The method ``bfs-moves`` and its kernel.

Breadth-first search over moves: states are the boxes and the player's exact cell, and
every edge is one step of the player (a walk, or a push when a box is in the way).

The first solved state generated is reached in the fewest moves. Pushes onto dead squares
and into freeze deadlocks are cut (the engine's kernels), which no solution needs. States
are stored in insertion order, which is their order of depth, so the queue is the range
of nodes not yet expanded; the engine's table finds repeated states.
"""

from __future__ import annotations

from math import comb
from typing import Any, NamedTuple

import numpy as np

from sokoban._arrays import copy_into, doubled
from sokoban._jit import njit
from sokoban.direction import DIRECTIONS
from sokoban.level import Level
from sokoban.lurd import Solution
from sokoban.solve import _driver, _table
from sokoban.solve._deadlock import FROZEN_OFF_GOAL, frozen
from sokoban.solve._driver import BUDGET, EXHAUSTED, FULL, SOLVED
from sokoban.solve._push_moves import moved
from sokoban.solve._successors import FamilyBoard, is_solved
from sokoban.solve.types import (
    Limits,
    Option,
    ProgressCallback,
    SearchStats,
    SolveResult,
    Status,
    register,
)

# Slots of the state (int64 array): stored nodes, next to expand, expanded, generated,
# goal node, expansions allowed in this call.
COUNT, HEAD, EXPANDED, GENERATED, GOAL, STEPS = range(6)


class Nodes(NamedTuple):
    """The states: boxes int16[cap, b], player int32[cap], hash uint64[cap], parent
    int32[cap], step uint8[cap] (direction of the last step, plus 4 when it pushed), and
    the engine's probe table int32[2 cap]."""

    boxes: np.ndarray
    player: np.ndarray
    hash: np.ndarray
    parent: np.ndarray
    step: np.ndarray
    table: np.ndarray


def new_nodes(capacity: int, nboxes: int) -> Nodes:
    """Empty :class:`Nodes` for ``capacity`` states."""
    return Nodes(
        np.zeros((capacity, nboxes), np.int16),
        np.zeros(capacity, np.int32),
        np.zeros(capacity, np.uint64),
        np.zeros(capacity, np.int32),
        np.zeros(capacity, np.uint8),
        np.full(2 * capacity, -1, np.int32),
    )


#: Bytes one state takes: its arrays, twice over for the table, whose arrays are doubled
#: as the store grows.
def bytes_per_state(nboxes: int) -> int:
    return 2 * nboxes + 4 + 8 + 4 + 1 + 2 * 4


def estimate_states(n: int, live: int, nboxes: int) -> int:
    """An upper bound on the positions: the box sets on the ``live`` cells (not dead
    squares) times the player cells left of ``n`` floor cells."""
    return comb(live, nboxes) * max(n - nboxes, 1)


@njit(allocates=True)
def run(board, nodes, scratch, state):
    """Expand up to ``state[STEPS]`` nodes; returns :data:`SOLVED` (goal node
    ``state[GOAL]``), :data:`EXHAUSTED`, :data:`BUDGET` or :data:`FULL` (room for four more
    nodes is needed).

    ``board``: the kernel board tuple; ``nodes``: :class:`Nodes`; ``scratch``: a
    :class:`sokoban.solve._successors.Scratch` (occ and stack are used).
    """
    nbr, goal, dead, dist, zbox, zplayer = board
    s_boxes, s_player, s_hash, s_parent, s_step, table = nodes
    occ = scratch.occ
    stack = scratch.stack
    nb = s_boxes.shape[1]
    cap = s_player.shape[0]
    child = np.empty(nb, np.int16)
    steps = 0
    while True:
        if state[HEAD] >= state[COUNT]:
            return EXHAUSTED
        if steps >= state[STEPS]:
            return BUDGET
        if state[COUNT] + 4 > cap:
            return FULL
        node = state[HEAD]
        state[HEAD] += 1
        steps += 1
        state[EXPANDED] += 1
        boxes = s_boxes[node]
        p = s_player[node]
        for k in range(nb):
            occ[boxes[k]] = k
        for d in range(4):
            t = nbr[p, d]
            if t < 0:
                continue
            key = s_hash[node] ^ zplayer[p] ^ zplayer[t]
            push = occ[t] >= 0
            if push:
                u = nbr[t, d]
                if u < 0 or occ[u] >= 0 or dead[u]:
                    continue
                k = occ[t]
                occ[t] = -1
                occ[u] = k
                blocked = frozen(u, occ, nbr, goal, dead, stack) == FROZEN_OFF_GOAL
                occ[u] = -1
                occ[t] = k
                if blocked:
                    continue
                moved(boxes, t, u, child)
                key ^= zbox[t] ^ zbox[u]
            else:
                copy_into(child, boxes)
            state[GENERATED] += 1
            found = _table.find(table, key, child, t, s_hash, s_boxes, s_player)
            if found >= 0:
                continue
            new = state[COUNT]
            state[COUNT] += 1
            copy_into(s_boxes[new], child)
            s_player[new] = t
            s_hash[new] = key
            s_parent[new] = node
            s_step[new] = d + (4 if push else 0)
            table[-found - 1] = new
            if push and is_solved(child, goal):
                for k in range(nb):
                    occ[boxes[k]] = -1
                state[GOAL] = new
                return SOLVED
        for k in range(nb):
            occ[boxes[k]] = -1


class BfsMoves:
    """The arrays of one breadth-first search over moves, run by
    :func:`sokoban.solve._driver.drive`."""

    def __init__(self, family: FamilyBoard, capacity: int) -> None:
        self.family = family
        board = family.board
        self.nodes = new_nodes(capacity, board.nboxes)
        key = family.state_key(family.boxes, board.player)
        nodes = self.nodes
        nodes.boxes[0] = family.boxes
        nodes.player[0] = board.player
        nodes.hash[0] = key
        nodes.parent[0] = -1
        slot = _table.find(
            nodes.table, key, family.boxes, board.player, nodes.hash, nodes.boxes, nodes.player
        )
        nodes.table[-slot - 1] = 0
        self.state = np.zeros(6, np.int64)
        self.state[COUNT] = 1

    @property
    def nbytes(self) -> int:
        return self.family.nbytes + sum(a.nbytes for a in self.nodes)

    @property
    def expanded(self) -> int:
        return int(self.state[EXPANDED])

    @property
    def exhausted(self) -> bool:
        return False

    def step(self, budget: int) -> int:
        self.state[STEPS] = budget
        code: int = run(self.family.kernel, self.nodes, self.family.scratch, self.state)
        return code

    def grow(self, code: int, memory: int) -> bool:
        nodes = self.nodes
        grown = [doubled(a) for a in nodes[:-1]]
        if self.family.nbytes + sum(a.nbytes for a in grown) + 2 * nodes.table.nbytes > memory:
            return False
        table = np.empty(2 * nodes.table.shape[0], np.int32)
        _table.rebuild(table, grown[2], int(self.state[COUNT]))
        self.nodes = Nodes._make([*grown, table])
        return True

    def stats(self, run: _driver.Run) -> SearchStats:
        state = self.state
        return SearchStats(
            int(state[EXPANDED]),
            int(state[GENERATED]),
            int(state[COUNT]),
            run.peak_bytes,
            run.seconds,
        )

    def solution(self) -> Solution:
        steps = []
        nodes = self.nodes
        node = int(self.state[GOAL])
        while nodes.parent[node] >= 0:
            step = int(nodes.step[node])
            steps.append((DIRECTIONS[step % 4], step >= 4))
            node = int(nodes.parent[node])
        return Solution(tuple(reversed(steps)))

    def solved_message(self, optimal: bool) -> str:
        return f"solved in {self.solution().moves} moves (optimal)"


@register(
    "bfs-moves",
    "breadth-first search over single steps: the fewest moves, for small levels",
    "moves",
    optimal=True,
    options=(Option("force", bool, False, "search even when the positions may not fit memory"),),
)
def bfs_moves(
    level: Level, limits: Limits, progress: ProgressCallback | None, **options: Any
) -> SolveResult:
    """Move-optimal breadth-first search. It refuses (:attr:`Status.MEMORY_LIMIT`) a level
    whose positions, counted generously, would not fit the memory limit, unless the option
    ``force`` is true; the memory limit still stops it then."""
    family = FamilyBoard(level)
    board = family.board
    nb = board.nboxes
    memory = limits.memory_bytes
    live = int(np.count_nonzero(board.dead == 0))
    estimate = estimate_states(board.n, live, nb)
    need = estimate * bytes_per_state(nb) + family.nbytes
    if need > memory and not options["force"]:
        return SolveResult(
            Status.MEMORY_LIMIT,
            None,
            "bfs-moves",
            False,
            SearchStats(),
            f"refused: up to {estimate:,} positions ({need / 2**20:,.0f} MiB) may not fit the "
            f"memory limit of {memory / 2**20:,.0f} MiB; use a push-level method or a larger "
            "limit (the option force=True tries anyway)",
        )
    capacity = 1 << 10  # a power of two, as the table's probing needs
    while capacity < min(estimate, 1 << 16):
        capacity *= 2
    while capacity > 16 and family.nbytes + capacity * bytes_per_state(nb) > memory:
        capacity //= 2
    search = BfsMoves(family, capacity)
    run = _driver.drive(search, limits, progress)
    return _driver.result(search, run, "bfs-moves", True)
