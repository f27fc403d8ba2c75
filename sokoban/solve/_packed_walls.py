"""A heuristic deadlock test for the feature-space search: the packed goals as walls.

Goals packed in the packing order (:func:`sokoban.solve._packing.packed_count`) are meant
to stay packed. Treat their boxes as walls; every other box must still reach an empty goal
of its own, each box alone on the board (any player side free of walls counts, so the
test is generous). When no such assignment exists, some goal can only be filled by a box
the search already spent elsewhere: on XSokoban 31 the last goal is reachable only from
the right, by the one box that starts there, and the search packs that box into another
goal early and then drowns below the last goal.

Not a proof: a packed box may in truth have to leave its goal. A search that prunes with
it proves nothing by running out of positions (:mod:`sokoban.solve._fess` searches again
without it then).
"""

from __future__ import annotations

import numpy as np

from sokoban._jit import njit
from sokoban.solve._packing import packed_count


@njit
def new_scratch(n, nboxes, ngoals):
    """Scratch of :func:`goals_short`: the box-to-goal table uint8[nboxes, ngoals], the
    matching's arrays int32[5, max(nboxes, ngoals)] and a flood queue int32[n]."""
    size = max(nboxes, ngoals, 1)
    return (
        np.zeros((max(nboxes, 1), max(ngoals, 1)), dtype=np.uint8),
        np.zeros((5, size), dtype=np.int32),
        np.empty(n, dtype=np.int32),
    )


@njit
def goals_short(boxes, occ, nbr, place, order, parent, before, ok, seen, mark, scratch):
    """Whether the boxes off the packed goals cannot each reach a different empty goal
    (see the module docstring); returns (short, next free mark of ``seen``).

    ``boxes``: int16[nb] cells; ``occ``: int32[n], >= 0 on a box; ``nbr``: int32[n, 4];
    ``place``: int32[n], per goal cell its position in ``order`` (-1 elsewhere);
    ``order``, ``parent``: the packing order
    (:class:`sokoban.solve._packing.PackingOrder`); ``before``: uint8[g, g], 1 where
    goal j (a position in ``order``) must be filled before goal i; ``ok``: uint8[g]
    scratch (left marking the packed goals); ``seen``: int32[n] flood marks; ``scratch``:
    from :func:`new_scratch`.
    """
    packed, _ = packed_count(occ, order, parent, ok)
    if packed == 0:
        return False, mark  # nothing walls anything: the matching bound covers this
    reach, match, queue = scratch
    nb = boxes.shape[0]
    ng = order.shape[0]
    reach[:, :] = 0
    for i in range(ng):
        if ok[i]:
            continue  # packed
        # The cells a lone box can be pushed to goal i from, pulling it backwards: the
        # packed goals and the goals that must be filled before it stand as walls.
        mark += 1
        s = order[i]
        seen[s] = mark
        queue[0] = s
        head, tail = 0, 1
        while head < tail:
            x = queue[head]
            head += 1
            for d in range(4):
                y = nbr[x, d]  # the box came from y, the player behind it on p
                if y < 0 or seen[y] == mark:
                    continue
                j = place[y]
                if j >= 0 and (ok[j] or before[i, j]):
                    continue
                p = nbr[y, d]
                if p < 0:
                    continue
                j = place[p]
                if j >= 0 and (ok[j] or before[i, j]):
                    continue
                seen[y] = mark
                queue[tail] = y
                tail += 1
        for k in range(nb):
            if seen[boxes[k]] == mark:
                reach[k, i] = 1
    # Kuhn's augmenting paths, breadth first: rows of ``match``: the goal of each box, the
    # box of each goal, the goal a box was reached from, the goals' queue, the boxes seen.
    goal_of, box_of, via, tq, vis = match[0], match[1], match[2], match[3], match[4]
    goal_of[:nb] = -1
    box_of[:ng] = -1
    vis[:nb] = -1
    for t in range(ng):
        if ok[t]:
            continue  # packed
        tq[0] = t
        head, tail = 0, 1
        found = -1
        while head < tail and found < 0:
            u = tq[head]
            head += 1
            for j in range(nb):
                if reach[j, u] == 0 or vis[j] == t:
                    continue
                vis[j] = t
                via[j] = u
                if goal_of[j] < 0:
                    found = j
                    break
                tq[tail] = goal_of[j]
                tail += 1
        if found < 0:
            return True, mark
        j = found
        while True:
            u = via[j]
            previous = box_of[u]
            goal_of[j] = u
            box_of[u] = j
            if u == t:
                break
            j = previous
    return False, mark
