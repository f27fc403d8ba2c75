"""The player's walk around the boxes: the one flood every kernel uses (a module of its own
so that modules the search kernel imports can call it too)."""

from __future__ import annotations

from sokoban._jit import njit


@njit
def reach(start, occ, nbr, seen, mark, queue, walk):
    """Breadth-first walk of the player from ``start`` around boxes (``occ`` >= 0).

    Marks reached cells ``seen[c] = mark`` and their walk lengths in ``walk``; returns the
    least reached floor index (the canonical player cell). ``occ``, ``seen``, ``queue``,
    ``walk``: int32[n]; ``nbr``: int32[n, 4].
    """
    seen[start] = mark
    walk[start] = 0
    queue[0] = start
    head, tail = 0, 1
    least = start
    while head < tail:
        c = queue[head]
        head += 1
        if c < least:
            least = c
        for d in range(4):
            x = nbr[c, d]
            if x >= 0 and occ[x] < 0 and seen[x] != mark:
                seen[x] = mark
                walk[x] = walk[c] + 1
                queue[tail] = x
                tail += 1
    return least
