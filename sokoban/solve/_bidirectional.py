"""Bidirectional breadth-first search over pushes: forward pushes from the start, backward
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

import numpy as np

from sokoban.solve import _table
from sokoban.solve._jit import njit
from sokoban.solve._successors import pulls, pushes

# Kernel results.
MET, EXHAUSTED, BUDGET, FULL = 1, 2, 3, 4
# State (int64 array): per side (forward 0, backward 1) stored nodes, next node to
# expand, end of the layer being expanded (stride 3); then the side expanding (-1
# between layers), the best meeting cost and its two nodes, expanded, generated, budget.
COUNT, HEAD, END = 0, 1, 2
SIDE, BEST, BEST_F, BEST_B, EXPANDED, GENERATED, STEPS = range(6, 13)
#: A cost no meeting reaches.
NONE = 1 << 40


def new_side(capacity: int, nboxes: int) -> tuple[np.ndarray, ...]:
    """One side's nodes: boxes int16[cap, b], player int32[cap], hash uint64[cap], parent
    int32[cap], depth int32[cap], and the engine's probe table int32[2 cap]."""
    return (
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
    s_boxes[node, :] = boxes
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
            s_boxes[new, :] = c_boxes[i]
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
