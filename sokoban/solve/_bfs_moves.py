"""Breadth-first search over moves: states are the boxes and the player's exact cell, and
every edge is one step of the player (a walk, or a push when a box is in the way).

The first solved state generated is reached in the fewest moves. Pushes onto dead squares
and into freeze deadlocks are cut (the engine's kernels), which no solution needs. States
are stored in insertion order, which is their order of depth, so the queue is the range
of nodes not yet expanded; the engine's table finds repeated states.
"""

from __future__ import annotations

from math import comb

import numpy as np

from sokoban.solve import _table
from sokoban.solve._deadlock import FROZEN_OFF_GOAL, frozen
from sokoban.solve._jit import njit
from sokoban.solve._successors import is_solved, moved

# Kernel results.
SOLVED, EXHAUSTED, BUDGET, FULL = 1, 2, 3, 4
# State (int64 array): stored nodes, next to expand, expanded, generated, goal node,
# expansions allowed in this call.
COUNT, HEAD, EXPANDED, GENERATED, GOAL, STEPS = range(6)


def new_nodes(capacity: int, nboxes: int) -> tuple[np.ndarray, ...]:
    """Nodes: boxes int16[cap, b], player int32[cap], hash uint64[cap], parent int32[cap],
    step uint8[cap] (direction of the last step, plus 4 when it pushed), and the engine's
    probe table int32[2 cap]."""
    return (
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


@njit
def run(board, nodes, scratch, state):
    """Expand up to ``state[STEPS]`` nodes; returns :data:`SOLVED` (goal node
    ``state[GOAL]``), :data:`EXHAUSTED`, :data:`BUDGET` or :data:`FULL` (room for four more
    nodes is needed).

    ``board``: the engine's kernel tuple; ``nodes``: :func:`new_nodes`; ``scratch``: the
    :func:`sokoban.solve._successors.new_scratch` arrays (occ and stack are used).
    """
    nbr, goal, dead, dist, zbox, zplayer = board
    s_boxes, s_player, s_hash, s_parent, s_step, table = nodes
    occ = scratch[0]
    stack = scratch[7]
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
                child[:] = boxes
            state[GENERATED] += 1
            found = _table.find(table, key, child, t, s_hash, s_boxes, s_player)
            if found >= 0:
                continue
            new = state[COUNT]
            state[COUNT] += 1
            s_boxes[new, :] = child
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
