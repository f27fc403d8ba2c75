"""Numba kernels of the layout search: many obstacle layouts analysed in one call.

A room's interior is a ``width`` x ``height`` grid, cells ``y * width + x``. A layout is a
sorted combination of ``k`` obstacle cells; layouts are visited in lexicographic order and
only the canonical one of each symmetry class (the least under every symmetry) is analysed.
"""

from __future__ import annotations

import numpy as np

from sokoban._jit import njit
from sokoban.analysis._backward import compact, layout_best, side_distances

#: Bins of the histograms of layout maxima; larger values go into the last bin.
HIST_BINS = 1024


@njit(internal=True)
def next_combination(combo, size):
    """Advance ``combo`` (int64, (k,), sorted) to the next k-subset of ``range(size)`` in
    lexicographic order; ``False`` after the last one."""
    k = combo.shape[0]
    i = k - 1
    while i >= 0 and combo[i] == size - k + i:
        i -= 1
    if i < 0:
        return False
    combo[i] += 1
    for j in range(i + 1, k):
        combo[j] = combo[j - 1] + 1
    return True


@njit(internal=True)
def is_canonical(combo, perms, image):
    """Whether no symmetry maps ``combo`` to a lexicographically smaller combination.

    :param perms: int64 (S, size): each symmetry as a map of cells (row 0 the identity).
    :param image: int64 (k,) scratch.
    """
    k = combo.shape[0]
    for s in range(1, perms.shape[0]):
        for i in range(k):
            v = perms[s, combo[i]]
            j = i
            while j > 0 and image[j - 1] > v:
                image[j] = image[j - 1]
                j -= 1
            image[j] = v
        for i in range(k):
            if image[i] != combo[i]:
                if image[i] < combo[i]:
                    return False
                break
    return True


@njit(allocates=True)
def analyse_chunk(width, height, first, count, perms, top, stats, winners, hist):
    """Analyse the canonical layouts among ``count`` combinations from ``first`` on.

    :param first: int64 (k,), the first combination (changed: the position after the chunk).
    :param perms: int64 (S, width*height), the room's symmetries.
    :param top: how many tied winners to keep per metric.
    :param stats: int64 (5,) out: layouts analysed, most moves, layouts with it, most
        pushes, layouts with it (-1 maxima when nothing was solvable).
    :param winners: int64 (2, top, k + 3) out: per metric (moves, pushes), the first ``top``
        layouts with the maximum: obstacle cells, then player, box and goal (interior cells).
    :param hist: int64 (2, HIST_BINS) out: how many layouts have each maximum.
    """
    size = width * height
    k = first.shape[0]
    dist = np.empty((size, 4, size), np.int16)
    reach = np.empty((size, 4), np.int32)
    moves = np.empty((size, 4), np.int32)
    pushes = np.empty((size, 4), np.int32)
    bucket_head = np.empty(size + 2, np.int32)
    entry_next = np.empty(16 * size + 8, np.int32)
    entry_node = np.empty(16 * size + 8, np.int32)
    queue = np.empty(4 * size + 4, np.int32)
    best = np.empty(8, np.int64)
    image = np.empty(max(k, 1), np.int64)
    floor = np.empty(size, np.bool_)
    stats[0] = 0
    stats[1] = -1
    stats[2] = 0
    stats[3] = -1
    stats[4] = 0
    for i in range(hist.shape[1]):
        hist[0, i] = 0
        hist[1, i] = 0
    combo = first
    more = True
    for _ in range(count):
        if not more:
            break
        if is_canonical(combo, perms, image):
            for c in range(size):
                floor[c] = True
            for i in range(k):
                floor[combo[i]] = False
            cells, nbr = compact(floor, width, height)
            side_distances(nbr, dist, reach, queue)
            layout_best(
                nbr, dist, reach, moves, pushes, bucket_head, entry_next, entry_node, queue, best
            )
            stats[0] += 1
            for metric in range(2):
                value = best[4 * metric]
                if value >= 0:
                    hist[metric, min(value, hist.shape[1] - 1)] += 1
                at = 1 + 2 * metric
                if value > stats[at]:
                    stats[at] = value
                    stats[at + 1] = 0
                if value == stats[at] and value >= 0:
                    slot = stats[at + 1]
                    stats[at + 1] += 1
                    if slot < top:
                        for i in range(k):
                            winners[metric, slot, i] = combo[i]
                        for j in range(3):
                            winners[metric, slot, k + j] = cells[best[4 * metric + 1 + j]]
        more = next_combination(combo, size)
    return more
