"""Packing order: in which order the goals should be filled, found once per level by
retrograde analysis from the solved position.

Start with a box on every goal and the player wherever it could stand at the end (every
region holding the start player cell or a start box cell off the goals, since those cells
are empty then). Repeatedly take out the goal box that the fewest pulls bring onto a cell
off the goals, and remove it from the board. A box counts as removable only if pulls can
bring it back to the start cell of some box (off the goals) with the goal boxes still
there in the way, since in forward time a box must come from somewhere: a pull into a
dead-end pocket no box can reach stands for no push at all, and the goal it empties must
be filled before the goals across its real entrance. When no goal box can go back so
(boxes must wait inside the goal area: parking, not planned here), any cell off the
goals will do. A goal room with one entrance empties from
the door inwards, so the reverse of that removal order fills it from the deepest goal
out. Scattered goals are all removable at once: their order does not matter.

Besides the order, the analysis records which box blocked which: when removing box P
makes box X removable for the first time, P's goal is the *parent* of X's goal, and X's
goal must be filled before P's. A goal is *packed* (:func:`packed_count`) when it holds a
box and every goal it blocks is packed; boxes on goals that are not packed are out of
plan: they wall in goals that are still empty.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from sokoban._arrays import copy_into
from sokoban._jit import njit
from sokoban.solve._board import Board


@dataclasses.dataclass(frozen=True)
class PackingOrder:
    """The goals (floor indices) in the order to fill them, and for each goal in that
    order the position in ``order`` of the goal it must precede (its parent, -1 if none).

    ``order``: int32[g]; ``parent``: int32[g], ``parent[i] > i`` or -1.
    """

    order: np.ndarray
    parent: np.ndarray

    def precedes(self) -> np.ndarray:
        """uint8[g, g]: 1 at [i, j] when goal j must be filled before goal i (j is in the
        subtree of i by ``parent``); positions in ``order``."""
        ng = len(self.order)
        before = np.zeros((ng, ng), dtype=np.uint8)
        for j in range(ng):
            i = self.parent[j]
            while i >= 0:
                before[i, j] = 1
                i = self.parent[i]
        return before

    @property
    def depth(self) -> int:
        """The longest chain of goals that must be filled one after another."""
        depth = np.zeros(len(self.order), dtype=np.int64)
        for i in range(len(self.order) - 1, -1, -1):
            p = self.parent[i]
            if p >= 0:
                depth[i] = depth[p] + 1
        return int(depth.max()) + 1 if len(depth) else 0


def packing_order(board: Board) -> PackingOrder:
    """The packing order of ``board``'s goals (see the module docstring)."""
    off_goals = board.boxes[board.goal[board.boxes] == 0].astype(np.int32)
    starts = off_goals if board.player < 0 else np.append(off_goals, np.int32(board.player))
    origins = np.zeros(board.n, dtype=np.uint8)
    origins[off_goals] = 1
    removed, parent = _retrograde(
        board.nbr, board.goal, board.goals, starts.astype(np.int32), origins
    )
    # Fill in the reverse of the removal order; parents are positions in that order.
    fill = removed[::-1]
    order = board.goals[fill].astype(np.int32)
    position = np.empty(len(order), dtype=np.int64)
    position[fill] = np.arange(len(order))
    up = parent[fill]
    fill_parent = np.where(up >= 0, position[up], -1).astype(np.int32)
    return PackingOrder(order, fill_parent)


@njit(internal=True)
def _flood(sources, count, occ, nbr, seen, mark, queue):
    """Mark ``seen[c] = mark`` on the free cells (``occ < 0``) reachable from the first
    ``count`` of ``sources`` (int32[k]); ``occ``, ``seen``, ``queue``: int32[n]."""
    tail = 0
    for i in range(count):
        s = sources[i]
        if occ[s] < 0 and seen[s] != mark:
            seen[s] = mark
            queue[tail] = s
            tail += 1
    head = 0
    while head < tail:
        c = queue[head]
        head += 1
        for d in range(4):
            x = nbr[c, d]
            if x >= 0 and occ[x] < 0 and seen[x] != mark:
                seen[x] = mark
                queue[tail] = x
                tail += 1


@njit(internal=True)
def _pulls_out(box, occ, nbr, goal, origins, seen, mark, state, fifo, pseen, pmark, pqueue, one):
    """The fewest pulls taking the box on ``box`` onto a cell off the goals, the player
    starting on the cells with ``seen == mark`` and the other boxes (``occ >= 0``) fixed;
    -1 when no pulls do, or when no pulls bring it onto a cell of ``origins`` (uint8[n],
    the start cells of the boxes off the goals; empty: not asked). ``state``: int32[n, 4]
    scratch (set to -1 on entry), ``fifo``: int64[4n]; ``pseen``, ``pqueue``: int32[n] and
    ``one``: int32[1] scratch for the player's floods; ``pmark``: int64[1], the flood mark,
    advanced here.
    """
    head, tail = 0, 0
    for d in range(4):
        p = nbr[box, d]
        if p >= 0 and seen[p] == mark and occ[p] < 0:
            state[box, d] = 0
            fifo[tail] = box * 4 + d
            tail += 1
    me = occ[box]
    occ[box] = -1
    result = -1
    first = -1
    need = origins.shape[0] > 0
    while head < tail:
        b = fifo[head] // 4
        d = fifo[head] % 4
        head += 1
        # Pull towards side d: the player steps from nbr[b, d] to the cell beyond.
        p = nbr[b, d]
        q = nbr[p, d]
        if q < 0 or occ[q] >= 0:
            continue
        steps = state[b, d] + 1
        if not goal[p] and first < 0:
            first = steps
        if first >= 0 and (not need or origins[p]):
            result = first
            break
        # The box is now on p, the player on q: the sides of p the player can walk to.
        occ[p] = me
        pmark[0] += 1
        one[0] = q
        _flood(one, 1, occ, nbr, pseen, pmark[0], pqueue)
        for e in range(4):
            r = nbr[p, e]
            if r >= 0 and pseen[r] == pmark[0] and state[p, e] < 0:
                state[p, e] = steps
                fifo[tail] = p * 4 + e
                tail += 1
        occ[p] = -1
    occ[box] = me
    for i in range(tail):
        state[fifo[i] // 4, fifo[i] % 4] = -1
    return result


@njit(allocates=True)
def _retrograde(nbr, goal, goals, starts, origins):
    """Remove the goal boxes one by one (see the module docstring).

    ``nbr``: int32[n, 4]; ``goal``: uint8[n]; ``goals``: int32[g]; ``starts``: int32[k],
    cells where the player may stand at the end; ``origins``: uint8[n], the start cells of
    the boxes off the goals (see :func:`_pulls_out`). Returns (removed int64[g], the goal
    indices in removal order; parent int64[g], per goal index the goal index whose removal
    first made it removable, -1 if it was removable from the start or never was).
    """
    n = nbr.shape[0]
    ng = goals.shape[0]
    occ = np.full(n, -1, dtype=np.int32)
    for i in range(ng):
        occ[goals[i]] = i
    seen = np.zeros(n, dtype=np.int32)
    queue = np.empty(n, dtype=np.int32)
    pseen = np.zeros(n, dtype=np.int32)
    pqueue = np.empty(n, dtype=np.int32)
    pmark = np.zeros(1, dtype=np.int64)
    one = np.empty(1, dtype=np.int32)
    state = np.full((n, 4), -1, dtype=np.int32)
    fifo = np.empty(4 * n, dtype=np.int64)
    sources = np.empty(starts.shape[0] + ng, dtype=np.int32)
    nsources = starts.shape[0]
    copy_into(sources, starts)
    removed = np.empty(ng, dtype=np.int64)
    parent = np.full(ng, -1, dtype=np.int64)
    removable = np.zeros(ng, dtype=np.uint8)
    gone = np.zeros(ng, dtype=np.uint8)
    last = -1
    anywhere = np.zeros(0, dtype=np.uint8)
    for step in range(ng):
        _flood(sources, nsources, occ, nbr, seen, step + 1, queue)
        best, best_pulls = -1, 1 << 30
        # Pulls back to a box's start first; when no goal box has them (boxes must be
        # parked inside the goal area first, which this analysis does not plan), pulls
        # onto any cell off the goals.
        for wanted in (origins, anywhere):
            for i in range(ng):
                if gone[i]:
                    continue
                pulls = _pulls_out(
                    goals[i],
                    occ,
                    nbr,
                    goal,
                    wanted,
                    seen,
                    step + 1,
                    state,
                    fifo,
                    pseen,
                    pmark,
                    pqueue,
                    one,
                )
                if pulls < 0:
                    continue
                if not removable[i]:
                    removable[i] = 1
                    parent[i] = last
                if pulls < best_pulls:
                    best, best_pulls = i, pulls
            if best >= 0:
                break
        if best < 0:
            # Nothing can be pulled out: the rest keep no order among themselves.
            for i in range(ng):
                if not gone[i]:
                    best = i
                    break
        gone[best] = 1
        removed[step] = best
        occ[goals[best]] = -1
        sources[nsources] = goals[best]
        nsources += 1
        last = best
    return removed, parent


@njit(internal=True)
def packed_count(occ, order, parent, ok):
    """How many goals are packed (see the module docstring) and how many boxes on goals
    are not (out of plan), for the boxes ``occ`` (int32[n], >= 0 on a box).

    ``order``: int32[g] goals in fill order; ``parent``: int32[g] (see
    :class:`PackingOrder`); ``ok``: uint8[g] scratch. Returns (packed, out of plan).
    """
    ng = order.shape[0]
    ok[:] = 1
    packed = 0
    out = 0
    for i in range(ng):
        if occ[order[i]] >= 0:
            if ok[i]:
                packed += 1
            else:
                out += 1
        else:
            ok[i] = 0
        if not ok[i] and parent[i] >= 0:
            ok[parent[i]] = 0
    return packed, out
