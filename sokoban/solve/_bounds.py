"""Lower bounds on the pushes left: minimum-cost perfect matching of boxes to goals over
push distances (the Hungarian algorithm), and the cheaper sum of nearest-goal distances.

Both are admissible. They are not consistent: a box's distance is taken from the best
side of its cell, which after a push may be a side the player cannot get to, so the bound
can fall by more than one in a push; optimal searches therefore reopen positions reached
more cheaply.
A bound of :data:`sokoban.solve._board.INF` or more means a bipartite deadlock: no perfect
matching of boxes to goals they can still reach.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from sokoban._arrays import copy_into
from sokoban._jit import njit
from sokoban.solve._board import INF

#: Bounds: none (0), nearest goal, minimum matching.
BOUND_NONE, BOUND_NEAREST, BOUND_MATCHING = 0, 1, 2
BOUNDS = {"none": BOUND_NONE, "nearest": BOUND_NEAREST, "matching": BOUND_MATCHING}

#: Larger than any sum of distances, for the Hungarian algorithm's slack.
_HUGE = np.int64(1) << 60
#: Entries of a :class:`MatchMemo` at most (plenty for the nodes expanded soon after
#: they are stored).
MEMO_ENTRIES = 1 << 14
#: Bytes of a :class:`MatchMemo` at most.
MEMO_BYTES = 8 << 20


@njit(internal=True)
def _augment(i, boxes, dist, u, v, p, way, minv, used):
    """Assign row ``i`` (1-based) by a shortest augmenting path, keeping the potentials
    ``u``, ``v`` feasible; every other row is assigned (``p[j]`` is column j's row, 0 free).

    Dijkstra over the columns with the potentials changed once at the end: ``used[j]``
    keeps the distance ``d`` reached when column j joined the tree (-1: not yet), and
    ``minv`` keeps each free column's tentative distance, so no step has to shift every
    column's value as the textbook form does (the same values, one pass fewer)."""
    m = boxes.shape[0]
    p[0] = i
    j0 = 0
    for j in range(m + 1):
        minv[j] = _HUGE
        used[j] = -1
    d = np.int64(0)
    while True:
        used[j0] = d
        i0 = p[j0]
        box = boxes[i0 - 1]
        base = d - u[i0]
        best = _HUGE
        j1 = 0
        for j in range(1, m + 1):
            if used[j] < 0:
                cur = dist[j - 1, box] + base - v[j]
                if cur < minv[j]:
                    minv[j] = cur
                    way[j] = j0
                if minv[j] < best:
                    best = minv[j]
                    j1 = j
        d = best
        j0 = j1
        if p[j0] == 0:
            break
    for j in range(m + 1):
        if used[j] >= 0:
            u[p[j]] += d - used[j]
            v[j] -= d - used[j]
    while j0 != 0:
        j1 = way[j0]
        p[j0] = p[j1]
        j0 = j1


@njit(internal=True)
def _total(boxes, dist, p):
    total = np.int64(0)
    for j in range(1, boxes.shape[0] + 1):
        total += dist[j - 1, boxes[p[j] - 1]]
    return total


@njit
def matching(boxes, dist, work):
    """Minimum total push distance over perfect matchings of boxes to goals.

    ``boxes``: int16[b] box floor indices; ``dist``: int32[b, n] goal-to-cell distances;
    ``work``: int64[6, b + 1], left holding the potentials (rows 0, 1) and the assignment
    (row 2) for :func:`rematch`. Returns the cost (int64), at least :data:`INF` when no
    matching avoids an unreachable goal. O(b^3): shortest augmenting paths with potentials.

    The potentials start from each box's nearest goal and then each goal's least reduced
    cost, and every box whose tight goal is still free takes it at once: most boxes do,
    and only the rest need an augmenting path. The cost is the same optimum either way.
    """
    m = boxes.shape[0]
    work[:] = 0
    u, v, p, way, minv, used = work[0], work[1], work[2], work[3], work[4], work[5]
    for i in range(1, m + 1):
        box = boxes[i - 1]
        best = _HUGE
        for j in range(1, m + 1):
            if dist[j - 1, box] < best:
                best = dist[j - 1, box]
        u[i] = best
    for j in range(1, m + 1):
        best = _HUGE
        for i in range(1, m + 1):
            c = dist[j - 1, boxes[i - 1]] - u[i]
            if c < best:
                best = c
        v[j] = best
    for i in range(1, m + 1):
        box = boxes[i - 1]
        for j in range(1, m + 1):
            if p[j] == 0 and dist[j - 1, box] - u[i] - v[j] == 0:
                p[j] = i
                break
    for i in range(1, m + 1):
        assigned = False
        for j in range(1, m + 1):
            if p[j] == i:
                assigned = True
                break
        if not assigned:
            _augment(i, boxes, dist, u, v, p, way, minv, used)
    return _total(boxes, dist, p)


@njit(internal=True)
def rematch(boxes, k, dist, parent, work):
    """The matching cost after box ``k`` of ``boxes`` moved (``boxes`` holds the new cell),
    repaired from the parent's solution in ``parent`` (int64[6, b + 1] from
    :func:`matching`) with one augmenting path: O(b^2) instead of O(b^3). ``work`` receives
    the child's solution."""
    m = boxes.shape[0]
    for r in range(3):  # not work[:3] = parent[:3]: see copy_into
        copy_into(work[r], parent[r])
    u, v, p, way, minv, used = work[0], work[1], work[2], work[3], work[4], work[5]
    row = k + 1
    for j in range(1, m + 1):
        if p[j] == row:
            p[j] = 0
            break
    # The moved box's row gets the largest potential that keeps it feasible.
    box = boxes[k]
    best = _HUGE
    for j in range(1, m + 1):
        c = dist[j - 1, box] - v[j]
        if c < best:
            best = c
    u[row] = best
    _augment(row, boxes, dist, u, v, p, way, minv, used)
    return _total(boxes, dist, p)


@njit(internal=True)
def nearest(boxes, dist):
    """Sum over boxes of the distance to the nearest goal; at least :data:`INF` if a box
    reaches none. ``boxes``: int16[b]; ``dist``: int32[g, n]."""
    total = np.int64(0)
    for i in range(boxes.shape[0]):
        best = INF
        for k in range(dist.shape[0]):
            if dist[k, boxes[i]] < best:
                best = dist[k, boxes[i]]
        total += best
    return total


@njit
def bound(kind, boxes, dist, work):
    """The lower bound of kind :data:`BOUND_NONE`/``NEAREST``/``MATCHING`` for ``boxes``
    (int16[b]); at least :data:`INF` on a bipartite deadlock (nearest and matching)."""
    if kind == BOUND_MATCHING:
        return matching(boxes, dist, work)
    if kind == BOUND_NEAREST:
        return nearest(boxes, dist)
    return np.int64(0)


class MatchMemo(NamedTuple):
    """The matchings of the nodes a search stored last, so that a node expanded soon
    after it was stored (most of them, in a best-first search) repairs its children's
    matchings from its own instead of solving it from scratch: O(b^2) instead of
    O(b^3). Entry ``node & (r - 1)`` holds the node (``node`` int64[r], -1 empty) and its
    potentials and assignment (``sol`` int64[r, 3, b + 1], rows as in :func:`matching`'s
    ``work``, the rows in the order of the node's sorted boxes)."""

    node: np.ndarray
    sol: np.ndarray

    @property
    def nbytes(self) -> int:
        """Bytes of the arrays."""
        return int(self.node.nbytes + self.sol.nbytes)


def new_memo(nboxes: int, budget: int) -> MatchMemo:
    """An empty :class:`MatchMemo` for ``nboxes`` boxes in at most ``budget`` bytes (and
    :data:`MEMO_BYTES`): a power of two of entries, at most :data:`MEMO_ENTRIES`, at
    least one."""
    entries = 1
    per_entry = 8 * (1 + 3 * (nboxes + 1))
    while entries * 2 <= MEMO_ENTRIES and entries * 2 * per_entry <= min(budget, MEMO_BYTES):
        entries *= 2
    return MatchMemo(np.full(entries, -1, np.int64), np.zeros((entries, 3, nboxes + 1), np.int64))


def grown_memo(memo: MatchMemo, budget: int) -> MatchMemo:
    """A bigger empty memo when ``budget`` bytes hold more entries than ``memo``, else
    ``memo`` (what it held is only a cache: a new one starts empty)."""
    bigger = new_memo(memo.sol.shape[2] - 1, budget)
    return bigger if bigger.node.shape[0] > memo.node.shape[0] else memo


@njit(internal=True)
def memo_take(memo, node, out):
    """Copy the matching of ``node`` into rows 0-2 of ``out`` (int64[6, b + 1]) when the
    memo holds it; returns whether it did."""
    slot = node & (memo.node.shape[0] - 1)
    if memo.node[slot] != node:
        return False
    sol = memo.sol[slot]
    for r in range(3):
        copy_into(out[r], sol[r])
    return True


@njit(internal=True)
def memo_put(memo, node, k, j, work):
    """Keep the matching in ``work`` (from :func:`rematch`, its rows the parent's sorted
    boxes with box ``k`` moved) for the stored child ``node``, whose sorted boxes hold
    the moved box at index ``j``: the rows between ``k`` and ``j`` shift by one."""
    slot = node & (memo.node.shape[0] - 1)
    memo.node[slot] = node
    sol = memo.sol[slot]
    m = work.shape[1] - 1
    u, v, p = work[0], work[1], work[2]
    sol[0, 0] = u[0]
    for r in range(m):
        sol[0, _shifted(r, k, j) + 1] = u[r + 1]
    copy_into(sol[1], v)
    sol[2, 0] = p[0]
    for c in range(1, m + 1):
        sol[2, c] = _shifted(p[c] - 1, k, j) + 1 if p[c] > 0 else 0


@njit(internal=True)
def index_of(boxes, cell):
    """The index of ``cell`` in ``boxes`` (int16[b] sorted), or -1."""
    lo, hi = 0, boxes.shape[0]
    while lo < hi:
        mid = (lo + hi) // 2
        if boxes[mid] < cell:
            lo = mid + 1
        else:
            hi = mid
    return lo if lo < boxes.shape[0] and boxes[lo] == cell else -1


@njit(internal=True)
def _shifted(r, k, j):
    """Where row ``r`` goes when the row ``k`` moves to ``j`` (the others keep order)."""
    if r == k:
        return j
    if k < j and k < r <= j:
        return r - 1
    if j < k and j <= r < k:
        return r + 1
    return r
