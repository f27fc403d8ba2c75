"""Numba kernels of the reverse (pull) search.

Boards are compact: floor cells are numbered ``0..n-1`` and ``nbr`` (``int32[n, 4]``)
gives each cell's neighbour in the directions left, up, right, down (``-1`` for wall);
the opposite of direction ``d`` is ``(d + 2) % 4``. A state is the ``k`` box cells in
ascending order and the player's cell normalised to the smallest cell the player can
reach (so one state stands for every player cell of a region).

A pull: the player stands on ``p`` with a box on ``b = nbr[p, d]`` and a free cell
``q = nbr[p, opp(d)]`` behind; the player steps to ``q`` and the box follows to ``p``.
Pulls are pushes played backwards, so a breadth-first search of pulls from the solved
position finds, for every state it reaches, the fewest pushes that solve it.

The pulls, the player's walk, the Zobrist keys and the transposition table are the
solver engine's (:mod:`sokoban.solve._successors`, :mod:`sokoban.solve._table`).
"""

from __future__ import annotations

import numpy as np

from sokoban._jit import njit
from sokoban.solve import _table
from sokoban.solve._reach import reach
from sokoban.solve._successors import pulls, state_key


@njit(internal=True)
def _difference(before, after):
    """The cell in ``before`` but not in ``after`` and the one in ``after`` but not in
    ``before`` (both ascending int16[k] differing in one cell): where a box left, where it
    went."""
    left = -1
    went = -1
    i = 0
    j = 0
    k = before.shape[0]
    while i < k or j < k:
        if j >= k or (i < k and before[i] < after[j]):
            left = before[i]
            i += 1
        elif i >= k or after[j] < before[i]:
            went = after[j]
            j += 1
        else:
            i += 1
            j += 1
    return left, went


@njit(allocates=True)
def pull_bfs(board, starts, max_states, scratch, children):  # type: ignore[no-untyped-def]
    """Breadth-first pull search from the start states.

    ``board``: the engine's kernel tuple (nbr int32[n, 4], goal, dead, dist, zbox uint64[n],
    zplayer uint64[n]; only ``nbr`` and the keys are read). ``starts``: ``int32[s, k + 1]``,
    the solved position once per player region, already normalised. ``scratch`` and
    ``children``: :func:`sokoban.solve._successors.new_scratch` and ``new_children``. Stops
    expanding once ``max_states`` states are stored (depths found so far stay exact, as BFS
    finishes layers in order).

    Returns ``(store int32[m, k + 1], depth int32[m], changes int32[m], last int32[m],
    complete bool)``: ``store`` rows are the boxes then the player; ``depth`` is the fewest
    pushes that solve the state, ``changes`` the most box changes of a shortest pull path
    found, ``last`` the cell where the last pulled box stands (``-1`` for start states).
    """
    zbox, zplayer = board.zbox, board.zplayer
    k = starts.shape[1] - 1
    capacity = 1024
    while capacity < starts.shape[0]:
        capacity *= 2
    nd_boxes = np.empty((capacity, k), dtype=np.int16)
    nd_player = np.empty(capacity, dtype=np.int32)
    nd_hash = np.empty(capacity, dtype=np.uint64)
    depth = np.empty(capacity, dtype=np.int32)
    changes = np.empty(capacity, dtype=np.int32)
    last = np.empty(capacity, dtype=np.int32)
    table = np.full(2 * capacity, -1, dtype=np.int32)
    count = 0
    for s in range(starts.shape[0]):
        boxes = starts[s, :k].astype(np.int16)
        key = state_key(boxes, starts[s, k], zbox, zplayer)
        slot = _table.find(table, key, boxes, starts[s, k], nd_hash, nd_boxes, nd_player)
        if slot >= 0:
            continue
        nd_boxes[count] = boxes
        nd_player[count] = starts[s, k]
        nd_hash[count] = key
        depth[count] = 0
        changes[count] = 0
        last[count] = -1
        table[-slot - 1] = count
        count += 1

    c_boxes, c_player, c_key = children.boxes, children.player, children.key
    head = 0
    complete = True
    while head < count:
        if count >= max_states:
            complete = False
            break
        made = pulls(nd_boxes[head], nd_player[head], nd_hash[head], board, scratch, children)
        for c in range(made):
            left, went = _difference(nd_boxes[head], c_boxes[c])
            new_changes = changes[head] + (0 if left == last[head] else 1)
            slot = _table.find(
                table, c_key[c], c_boxes[c], c_player[c], nd_hash, nd_boxes, nd_player
            )
            if slot >= 0:
                if depth[slot] == depth[head] + 1 and changes[slot] < new_changes:
                    changes[slot] = new_changes
                    last[slot] = went
                continue
            if count == nd_boxes.shape[0]:
                grown = 2 * count
                nd_boxes = _grown(nd_boxes, grown)
                nd_player = _grown(nd_player, grown)
                nd_hash = _grown(nd_hash, grown)
                depth = _grown(depth, grown)
                changes = _grown(changes, grown)
                last = _grown(last, grown)
                table = np.empty(2 * grown, dtype=np.int32)
                _table.rebuild(table, nd_hash, count)
                slot = _table.find(
                    table, c_key[c], c_boxes[c], c_player[c], nd_hash, nd_boxes, nd_player
                )
            nd_boxes[count] = c_boxes[c]
            nd_player[count] = c_player[c]
            nd_hash[count] = c_key[c]
            depth[count] = depth[head] + 1
            changes[count] = new_changes
            last[count] = went
            table[-slot - 1] = count
            count += 1
        head += 1
    store = np.empty((count, k + 1), dtype=np.int32)
    store[:, :k] = nd_boxes[:count]
    store[:, k] = nd_player[:count]
    return store, depth[:count], changes[:count], last[:count], complete


@njit(allocates=True, internal=True)
def _grown(a, size):
    """``a`` (1-D or 2-D) copied into the first rows of an array of ``size`` rows."""
    out = np.empty((size,) + a.shape[1:], dtype=a.dtype)
    out[: a.shape[0]] = a
    return out


@njit(allocates=True)
def pull_walk(  # type: ignore[no-untyped-def]
    nbr: np.ndarray, xy: np.ndarray, start: np.ndarray, goals: np.ndarray, uniforms: np.ndarray
):
    """A random walk of pulls from one solved state; returns the best state met.

    ``xy``: ``int32[n, 2]`` column and row of each cell. ``start``: ``int32[k + 1]``, the
    solved position (boxes ascending, then the player's cell). ``goals``: ``int32[k]``.
    ``uniforms``: ``float64[steps]`` in [0, 1), one per step, drawn by the caller so that
    its seeded generator decides every choice.

    A state scores box changes times the boxes' total Manhattan distance from the goals
    (each box tracked by identity), the measure Boxoban's generator uses. Returns
    ``(best int32[k + 1] with the player's real cell, score int64, pulls int32)``.
    """
    n = nbr.shape[0]
    k = goals.shape[0]
    boxes = start[:k].copy()  # by identity: boxes[j] is box j's cell, j's goal is goals[j]
    player = start[k]
    occ = np.full(n, -1, dtype=np.int32)  # the box on each cell, -1 for none
    for j in range(k):
        occ[boxes[j]] = j
    queue = np.empty(n, dtype=np.int32)
    seen = np.zeros(n, dtype=np.int32)
    walk = np.zeros(n, dtype=np.int32)
    options = np.empty(4 * k, dtype=np.int32)  # box * 4 + direction of each legal pull
    best = start.copy()
    best_score = np.int64(0)
    best_pulls = np.int32(0)
    changes = 0
    last_box = -1
    pulled = 0
    for step in range(uniforms.shape[0]):
        reach(player, occ, nbr, seen, step + 1, queue, walk)
        count = 0
        for j in range(k):
            for d in range(4):
                p = nbr[boxes[j], d]  # the player stands here, next to the box ...
                if p < 0 or seen[p] != step + 1:
                    continue
                q = nbr[p, d]  # ... and steps back here, the box following onto p
                if q >= 0 and occ[q] < 0:
                    options[count] = 4 * j + d
                    count += 1
        if count == 0:
            break
        pick = options[int(uniforms[step] * count)]
        j, d = pick // 4, pick % 4
        p = nbr[boxes[j], d]
        occ[boxes[j]] = -1
        occ[p] = j
        boxes[j] = p
        player = nbr[p, d]
        pulled += 1
        if j != last_box:
            changes += 1
            last_box = j
        distance = 0
        for i in range(k):
            distance += abs(xy[boxes[i], 0] - xy[goals[i], 0])
            distance += abs(xy[boxes[i], 1] - xy[goals[i], 1])
        score = np.int64(changes) * distance
        if score > best_score:
            best_score = score
            best_pulls = np.int32(pulled)
            best[:k] = np.sort(boxes)
            best[k] = player
    return best, best_score, best_pulls
