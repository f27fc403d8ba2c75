"""IDA*: depth-first searches over pushes with a rising bound on f = g + h, the engine's
matching lower bound as h, and a transposition table.

Each iteration searches every path whose f stays within the threshold, children tried
cheapest bound first; the next threshold is the least f that passed it. The depth-first
stack lives in arrays, so the kernel stops after a budget of expansions and resumes where
it was (the driver checks the clock between calls).

The transposition table holds states with the least g they were reached at in the
current iteration; reaching one again at that g or more is cut (a cycle, or a repetition
of a subtree already searched with more room), which keeps IDA* push-optimal. States are
stored once and kept across iterations; when the store is full and may not grow, new
states go unrecorded (the search stays correct, only slower).

The table also learns bounds. When the search leaves a state at depth ``g0``, the least
f that passed the threshold below it, ``f0``, is stored with ``g0`` (the least over its
children: those cut by the threshold with their f, those searched with their own ``f0``;
a child cut as a repetition adds nothing, its subtree being searched where it was first
reached, at no greater depth). Reaching the state again, in this iteration or a later
one, at depth ``g >= g0`` gives it ``f = max(g + h, f0 + g - g0)``: each of its
solutions costs at least that, but for those through children searched elsewhere, which
are bounded where they were searched. This is the rule SMA* uses with its bound cache
(:mod:`sokoban.solve._sma`, where the argument is given), and the same tests hold IDA* to
the reference search; option ``learn="off"`` turns it off. A repetition is skipped
before any learned bound applies: were an ancestor's bound charged to a cycle back to it,
the bound would feed on itself, rising by the cycle's length every iteration, and an
unsolvable level would never finish.
"""

from __future__ import annotations

import numpy as np

from sokoban.solve import _table
from sokoban.solve._board import INF
from sokoban.solve._jit import njit
from sokoban.solve._successors import is_solved, pushes

# Kernel results.
SOLVED, ITERATION_DONE, BUDGET, FULL = 1, 2, 3, 4
# State (int64 array): stack depth, threshold, next threshold, expanded, generated,
# stored states, budget, may insert (0/1), goal depth, learn bounds (0/1), children whose
# f a learned bound raised.
(
    DEPTH,
    THRESHOLD,
    NEXT,
    EXPANDED,
    GENERATED,
    STORED,
    STEPS,
    INSERT,
    GOAL_DEPTH,
    LEARN,
    LEARNED,
) = range(11)


def new_stack(depth: int, nboxes: int) -> tuple[np.ndarray, ...]:
    """The depth-first stack for paths of up to ``depth`` pushes: per level the state
    (boxes int16[D, b], player int32[D], key uint64[D]), its children (boxes
    int16[D, m, b], player int32[D, m], key uint64[D, m], bound int32[D, m]), their order
    int32[D, m], count int32[D] and next child to try int32[D] (-1: not yet expanded);
    D = depth + 2, m = 4 b."""
    d = depth + 2
    m = 4 * max(nboxes, 1)
    return (
        np.zeros((d, nboxes), np.int16),
        np.zeros(d, np.int32),
        np.zeros(d, np.uint64),
        np.zeros((d, m, nboxes), np.int16),
        np.zeros((d, m), np.int32),
        np.zeros((d, m), np.uint64),
        np.zeros((d, m), np.int32),
        np.zeros((d, m), np.int32),
        np.zeros(d, np.int32),
        np.full(d, -1, np.int32),
        np.full(d, INF, np.int32),
        np.full(d, -1, np.int32),
    )


def new_table(capacity: int, nboxes: int) -> tuple[np.ndarray, ...]:
    """The transposition table: the engine's probe table int32[2 cap] over stored states
    (hash uint64[cap], boxes int16[cap, b], player int32[cap]), their least g this
    iteration int32[cap], and their learned bound: the depth it was learned at int32[cap]
    (-1: none) and the bound int32[cap]."""
    return (
        np.full(2 * capacity, -1, np.int32),
        np.zeros(capacity, np.uint64),
        np.zeros((capacity, nboxes), np.int16),
        np.zeros(capacity, np.int32),
        np.full(capacity, INF, np.int32),
        np.full(capacity, -1, np.int32),
        np.zeros(capacity, np.int32),
    )


#: Bytes per table entry of a level with ``b`` boxes: ``BYTES_PER_ENTRY + 2 * b``.
BYTES_PER_ENTRY = 2 * 4 + 8 + 4 + 4 + 4 + 4


@njit
def _finish(d, stack, tt):
    """Leave level ``d``: store what was learned of its state and pass it up."""
    s_next, s_row = stack[10], stack[11]
    t_g0, t_f0 = tt[5], tt[6]
    value = s_next[d]
    row = s_row[d]
    if row >= 0:
        keep = (
            t_g0[row] >= 0
            and t_g0[row] <= d
            and (t_f0[row] >= INF or t_f0[row] - t_g0[row] >= value - d)
        )
        if not keep:
            t_g0[row] = d
            t_f0[row] = value
    if d > 0 and value < s_next[d - 1]:
        s_next[d - 1] = value


@njit
def run(board, scratch, stack, tt, state, kind):
    """Continue the current iteration for up to ``state[STEPS]`` expansions.

    Returns :data:`SOLVED` (the path is ``stack`` levels ``0..state[GOAL_DEPTH]``),
    :data:`ITERATION_DONE` (``state[NEXT]`` is the next threshold, :data:`INF` when no path
    passed the threshold: no solution), :data:`BUDGET`, or :data:`FULL` (the table's store
    is full; the driver grows it or clears ``state[INSERT]``).
    """
    goal = board[1]
    s_boxes, s_player, s_key, c_boxes, c_player, c_key, c_h, c_order, c_count, c_next = stack[:10]
    s_next, s_row = stack[10], stack[11]
    table, t_hash, t_boxes, t_player, t_g, t_g0, t_f0 = tt
    threshold = state[THRESHOLD]
    learn = state[LEARN]
    cap = t_hash.shape[0]
    steps = 0
    while True:
        d = state[DEPTH]
        if d < 0:
            return ITERATION_DONE
        if c_next[d] < 0:
            if is_solved(s_boxes[d], goal):
                state[GOAL_DEPTH] = d
                return SOLVED
            if steps >= state[STEPS]:
                return BUDGET
            children = (c_boxes[d], c_player[d], c_key[d], c_h[d])
            count = pushes(s_boxes[d], s_player[d], s_key[d], board, scratch, kind, children)
            steps += 1
            state[EXPANDED] += 1
            state[GENERATED] += count
            # Cheapest bound first (insertion sort: at most 4 b children).
            for i in range(count):
                j = i
                while j > 0 and c_h[d, c_order[d, j - 1]] > c_h[d, i]:
                    c_order[d, j] = c_order[d, j - 1]
                    j -= 1
                c_order[d, j] = i
            c_count[d] = count
            c_next[d] = 0
            s_next[d] = INF
        advanced = False
        g = d + 1
        while c_next[d] < c_count[d]:
            i = c_order[d, c_next[d]]
            c_next[d] += 1
            found = _table.find(
                table, c_key[d, i], c_boxes[d, i], c_player[d, i], t_hash, t_boxes, t_player
            )
            if found >= 0 and t_g[found] <= g:
                continue  # a repetition: searched where it was first reached this iteration
            f = g + c_h[d, i]
            if learn and found >= 0 and 0 <= t_g0[found] <= g:
                known = INF if t_f0[found] >= INF else min(t_f0[found] + g - t_g0[found], INF)
                if known > f:
                    f = known
                    state[LEARNED] += 1
            if f > threshold:
                if f < state[NEXT]:
                    state[NEXT] = f
                if f < s_next[d]:
                    s_next[d] = f
                continue
            if found >= 0:
                t_g[found] = g
                s_row[g] = found
            elif state[INSERT]:
                if state[STORED] >= cap:
                    c_next[d] -= 1  # retry this child once the driver made room
                    return FULL
                new = state[STORED]
                state[STORED] += 1
                t_hash[new] = c_key[d, i]
                t_boxes[new, :] = c_boxes[d, i]
                t_player[new] = c_player[d, i]
                t_g[new] = g
                t_g0[new] = -1
                table[-found - 1] = new
                s_row[g] = new
            else:
                s_row[g] = -1
            s_boxes[g, :] = c_boxes[d, i]
            s_player[g] = c_player[d, i]
            s_key[g] = c_key[d, i]
            c_next[g] = -1
            state[DEPTH] = g
            advanced = True
            break
        if not advanced:
            if learn:
                _finish(d, stack, tt)
            state[DEPTH] = d - 1
