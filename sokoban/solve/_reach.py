"""The player's walk around the boxes: the flood every search kernel, the corral
sub-search, the packing analysis, the macros and the generator use (a module of its own so
that every module of the engine can import it).

Floods that do something else keep their own loop, each for a reason it states: the
regions count of the feature space (:func:`sokoban.solve._features.regions`: every free
region but the player's, one mark each), the corral floods that list a corral's fence
(:mod:`sokoban.solve._corral`, :mod:`sokoban.solve._corral_deadlock`), the flood around
two boxes named by their cells while the two-box table is built
(:mod:`sokoban.solve._pairs`), the pull floods that ask where a lone box can come from
(:func:`sokoban.solve._carry.pull_reaches`, :mod:`sokoban.solve._packed_walls`), the
walk that keeps its way back to write the moves (:mod:`sokoban.solve._path`), and the
labels of the sides of a cell (:func:`sokoban.solve._board.side_components`). Searches
over box states (push distances, carries, pulls) are not floods of the player."""

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
