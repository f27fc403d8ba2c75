"""Lower bounds on the pushes left: minimum-cost perfect matching of boxes to goals over
push distances (the Hungarian algorithm), and the cheaper sum of nearest-goal distances.

Both are admissible and consistent (one push changes one box's distances by at most one).
A bound of :data:`sokoban.solve._board.INF` or more means a bipartite deadlock: no perfect
matching of boxes to goals they can still reach.
"""

from __future__ import annotations

import numpy as np

from sokoban.solve._board import INF
from sokoban.solve._jit import njit

#: Larger than any sum of distances, for the Hungarian algorithm's slack.
_HUGE = np.int64(1) << 60


@njit
def matching(boxes, dist, work):
    """Minimum total push distance over perfect matchings of boxes to goals.

    ``boxes``: int16[b] box floor indices; ``dist``: int32[b, n] goal-to-cell distances;
    ``work``: int64[5, b + 1] scratch. Returns the cost (int64), at least :data:`INF` when no
    matching avoids an unreachable goal. O(b^3): the shortest augmenting path form with
    potentials.
    """
    m = boxes.shape[0]
    u = work[0]
    v = work[1]
    p = work[2]
    way = work[3]
    minv = work[4]
    for j in range(m + 1):
        u[j] = 0
        v[j] = 0
        p[j] = 0
        way[j] = 0
    used = np.zeros(m + 1, dtype=np.bool_)
    for i in range(1, m + 1):
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
    total = np.int64(0)
    for j in range(1, m + 1):
        total += dist[j - 1, boxes[p[j] - 1]]
    return total


@njit
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
