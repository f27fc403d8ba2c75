"""Carrying one box to a chosen cell as one move (a macro), the other boxes fixed.

The feature-space search (:mod:`sokoban.solve._fess`) asks whether a box can be pushed
all the way to the goal its packing order wants next (Festival's packing advisor, Rolling
Stone's goal macros) and, if so, makes that whole carry one child. The search is a small
best-first search over (box cell, player side) states keyed by pushes so far plus the
lone box's push distance to the target, with one player flood per state; it gives up
after a bounded number of states, so a failed attempt costs a few floods, not a search.
"""

from __future__ import annotations

from sokoban._jit import njit
from sokoban.solve._reach import reach

#: Extra pushes over the lone box's push distance a carry may take.
SLACK = 12
#: States a carry may take off its queue before it gives up.
MAX_STATES = 96


@njit(internal=True)
def carry(
    box, target, h, occ, nbr, dead, region, rmark, seen, mark, fifo, walk, q, visit, stamp, states
):
    """The fewest pushes (best-first, within :data:`SLACK` of the lone box's distance)
    that take the box on ``box`` to ``target``, the other boxes (``occ >= 0``) fixed and
    the player on the cells with ``region == rmark``, giving up after ``states`` states
    taken off the queue (:data:`MAX_STATES` by default in the search).

    ``h``: int32[n], the lone box's push distance from each cell to ``target``; ``seen``,
    ``fifo``, ``walk``: int32[n] scratch of the player's floods, ``mark`` the last mark
    used in ``seen``; ``q``: int32[3, 4n] scratch (bucket links, state depth, bucket
    heads); ``visit``: int32[4n] stamps, ``stamp`` unused in it so far.

    Returns (pushes or -1, the cell the player stands on after the last push, the next
    free mark of ``seen``).
    """
    k = occ[box]
    occ[box] = -1
    link, depth, heads = q[0], q[1], q[2]
    h0 = h[box]
    nbuckets = SLACK + 1
    for f in range(nbuckets):
        heads[f] = -1
    for s in range(4):
        p = nbr[box, s]
        if p >= 0 and region[p] == rmark and occ[p] < 0:
            st = box * 4 + s
            visit[st] = stamp
            depth[st] = 0
            link[st] = heads[0]
            heads[0] = st
    result, stand = -1, -1
    f = 0
    taken = 0
    while f < nbuckets and taken < states:
        st = heads[f]
        if st < 0:
            f += 1
            continue
        heads[f] = link[st]
        taken += 1
        c = st // 4
        s = st % 4
        t = nbr[c, (s + 2) % 4]
        if t < 0 or occ[t] >= 0 or dead[t]:
            continue
        dep = depth[st] + 1
        if t == target:
            result, stand = dep, c
            break
        occ[t] = k
        mark += 1
        reach(c, occ, nbr, seen, mark, fifo, walk)
        occ[t] = -1
        g = max(0, dep + h[t] - h0)
        if g >= nbuckets:
            continue
        for e in range(4):
            r = nbr[t, e]
            if r >= 0 and seen[r] == mark:
                nt = t * 4 + e
                if visit[nt] != stamp:
                    visit[nt] = stamp
                    depth[nt] = dep
                    link[nt] = heads[g]
                    heads[g] = nt
                    if g < f:
                        f = g
    occ[box] = k
    return result, stand, mark


@njit(internal=True)
def pull_reaches(box, target, occ, nbr, dead, seen, mark, queue):
    """Whether the box on ``box`` could be pushed to ``target`` if the player could stand
    anywhere free: a pull flood back from ``target`` around the other boxes (``occ >=
    0``), through live cells, meets ``box``. A carry this fails cannot succeed, and the
    flood (one pass over the floor at most) spares the carry's search its player flood
    per state: most carries a node tries fail. ``seen``, ``queue``: int32[n], the flood
    taking mark ``mark + 1``; returns (reached, the mark used)."""
    k = occ[box]
    occ[box] = -1
    mark += 1
    seen[target] = mark
    queue[0] = target
    head, tail = 0, 1
    found = False
    while head < tail and not found:
        x = queue[head]
        head += 1
        for d in range(4):
            y = nbr[x, d]  # the box came from y, the player behind it on p
            if y < 0 or occ[y] >= 0 or seen[y] == mark:
                continue
            p = nbr[y, d]
            if p < 0 or occ[p] >= 0:
                continue
            if y == box:
                found = True
                break
            if dead[y]:
                continue
            seen[y] = mark
            queue[tail] = y
            tail += 1
    occ[box] = k
    return found, mark
