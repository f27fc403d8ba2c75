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

import numpy as np

from sokoban._arrays import copy_into
from sokoban._jit import njit
from sokoban.solve._board import INF

#: Bounds: none (0), nearest goal, minimum matching.
BOUND_NONE, BOUND_NEAREST, BOUND_MATCHING = 0, 1, 2
BOUNDS = {"none": BOUND_NONE, "nearest": BOUND_NEAREST, "matching": BOUND_MATCHING}

#: Larger than any sum of distances, for the Hungarian algorithm's slack.
_HUGE = np.int64(1) << 60


@njit(internal=True)
def _augment(i, boxes, dist, u, v, p, way, minv, used):
    """Assign row ``i`` (1-based) by a shortest augmenting path, keeping the potentials
    ``u``, ``v`` feasible; every other row is assigned (``p[j]`` is column j's row, 0 free)."""
    m = boxes.shape[0]
    p[0] = i
    j0 = 0
    for j in range(m + 1):
        minv[j] = _HUGE
        used[j] = False
    while True:
        used[j0] = True
        i0 = p[j0]
        box = boxes[i0 - 1]
        delta = _HUGE
        j1 = 0
        for j in range(1, m + 1):
            if not used[j]:
                cur = dist[j - 1, box] - u[i0] - v[j]
                if cur < minv[j]:
                    minv[j] = cur
                    way[j] = j0
                if minv[j] < delta:
                    delta = minv[j]
                    j1 = j
        for j in range(m + 1):
            if used[j]:
                u[p[j]] += delta
                v[j] -= delta
            else:
                minv[j] -= delta
        j0 = j1
        if p[j0] == 0:
            break
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
    """
    m = boxes.shape[0]
    work[:] = 0
    u, v, p, way, minv, used = work[0], work[1], work[2], work[3], work[4], work[5]
    for i in range(1, m + 1):
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
