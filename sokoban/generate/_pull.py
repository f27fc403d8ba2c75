"""Numba kernels of the reverse (pull) search.

Boards are compact: floor cells are numbered ``0..n-1`` and ``nbr`` (``int32[n, 4]``)
gives each cell's neighbour in the directions left, up, right, down (``-1`` for wall);
the opposite of direction ``d`` is ``(d + 2) % 4``. A state is a row of ``k + 1``
``int32`` values: the ``k`` box cells in ascending order, then the player's cell
normalised to the smallest cell the player can reach (so one state stands for every
player cell of a region).

A pull: the player stands on ``p`` with a box on ``b = nbr[p, d]`` and a free cell
``q = nbr[p, opp(d)]`` behind; the player steps to ``q`` and the box follows to ``p``.
Pulls are pushes played backwards, so a breadth-first search of pulls from the solved
position finds, for every state it reaches, the fewest pushes that solve it.
"""

from __future__ import annotations

import numpy as np
from numba import njit

_EMPTY = np.int32(-1)


@njit(cache=True)
def _hash(row: np.ndarray) -> np.uint64:
    """FNV-1a over the values of one state row (``int32[k + 1]``)."""
    h = np.uint64(14695981039346656037)
    for v in row:
        h = (h ^ np.uint64(v + 1)) * np.uint64(1099511628211)
    return h ^ (h >> np.uint64(29))


@njit(cache=True)
def _find(table: np.ndarray, store: np.ndarray, row: np.ndarray) -> tuple[int, int]:
    """Look ``row`` up in the open-addressing ``table`` (``int32[cap]``, a power of two, of
    indices into ``store``, ``int32[m, k + 1]``). Returns (index or -1, slot)."""
    mask = np.int64(table.shape[0] - 1)
    slot: int = np.int64(_hash(row) & np.uint64(mask))  # type: ignore[assignment]
    width = row.shape[0]
    while True:
        i = table[slot]
        if i < 0:
            return -1, slot
        same = True
        for j in range(width):
            if store[i, j] != row[j]:
                same = False
                break
        if same:
            return i, slot
        slot = (slot + 1) & mask  # type: ignore[assignment]


@njit(cache=True)
def _rehash(store: np.ndarray, count: int, capacity: int) -> np.ndarray:
    """A fresh table of ``capacity`` slots (``int32``) holding rows ``0..count-1`` of store."""
    table = np.full(capacity, -1, dtype=np.int32)
    for i in range(count):
        _, slot = _find(table, store, store[i])
        table[slot] = i
    return table


@njit(cache=True)
def _normal_player(
    nbr: np.ndarray,
    occupied: np.ndarray,
    start: int,
    queue: np.ndarray,
    seen: np.ndarray,
    stamp: int,
) -> int:
    """Smallest cell reachable from ``start`` around occupied cells (``bool[n]``); ``queue``
    (``int32[n]``) and ``seen`` (``int32[n]``, compared with ``stamp``) are scratch."""
    head = 0
    tail = 1
    queue[0] = start
    seen[start] = stamp
    best = start
    while head < tail:
        c = queue[head]
        head += 1
        if c < best:
            best = c
        for d in range(4):
            m = nbr[c, d]
            if m >= 0 and not occupied[m] and seen[m] != stamp:
                seen[m] = stamp
                queue[tail] = m
                tail += 1
    return best


@njit(cache=True)
def _sorted_replace(boxes: np.ndarray, old: int, new: int, out: np.ndarray) -> None:
    """Write ``boxes`` (ascending ``int32[k]``) with ``old`` replaced by ``new`` into ``out``
    (``int32[k + 1]``, first ``k`` entries), keeping the order."""
    k = boxes.shape[0]
    j = 0
    placed = False
    for i in range(k):
        b = boxes[i]
        if b == old:
            continue
        if not placed and new < b:
            out[j] = new
            j += 1
            placed = True
        out[j] = b
        j += 1
    if not placed:
        out[j] = new


@njit(cache=True)
def pull_bfs(nbr: np.ndarray, starts: np.ndarray, max_states: int):  # type: ignore[no-untyped-def]
    """Breadth-first pull search from the start states.

    ``nbr``: ``int32[n, 4]``. ``starts``: ``int32[s, k + 1]``, the solved position once per
    player region, already normalised. Stops expanding once ``max_states`` states are
    stored (depths found so far stay exact, as BFS finishes layers in order).

    Returns ``(store int32[m, k + 1], depth int32[m], changes int32[m], last int32[m],
    complete bool)``: ``depth`` is the fewest pushes that solve the state, ``changes`` the
    most box changes of a shortest pull path found, ``last`` the cell where the last
    pulled box stands (``-1`` for start states).
    """
    n = nbr.shape[0]
    width = starts.shape[1]
    k = width - 1
    capacity = 1024
    while capacity < 2 * starts.shape[0]:
        capacity *= 2
    store = np.empty((capacity // 2, width), dtype=np.int32)
    depth = np.empty(capacity // 2, dtype=np.int32)
    changes = np.empty(capacity // 2, dtype=np.int32)
    last = np.empty(capacity // 2, dtype=np.int32)
    table = np.full(capacity, -1, dtype=np.int32)
    count = 0
    for s in range(starts.shape[0]):
        i, slot = _find(table, store, starts[s])
        if i >= 0:
            continue
        store[count] = starts[s]
        depth[count] = 0
        changes[count] = 0
        last[count] = -1
        table[slot] = count
        count += 1

    occupied = np.zeros(n, dtype=np.bool_)
    queue = np.empty(n, dtype=np.int32)
    seen = np.zeros(n, dtype=np.int32)
    queue2 = np.empty(n, dtype=np.int32)
    seen2 = np.zeros(n, dtype=np.int32)
    row = np.empty(width, dtype=np.int32)
    stamp2 = 0
    head = 0
    complete = True
    while head < count:
        if count >= max_states:
            complete = False
            break
        boxes = store[head, :k].copy()
        for b in boxes:
            occupied[b] = True
        # Flood the player's region; each cell of it may pull a neighbouring box.
        stamp = head + 1
        qh = 0
        qt = 1
        queue[0] = store[head, k]
        seen[store[head, k]] = stamp
        while qh < qt:
            p = queue[qh]
            qh += 1
            for d in range(4):
                m = nbr[p, d]
                if m < 0:
                    continue
                if not occupied[m]:
                    if seen[m] != stamp:
                        seen[m] = stamp
                        queue[qt] = m
                        qt += 1
                    continue
                q = nbr[p, (d + 2) % 4]
                if q < 0 or occupied[q]:
                    continue
                # Pull box m onto p; the player ends on q.
                occupied[m] = False
                occupied[p] = True
                stamp2 += 1
                row[k] = _normal_player(nbr, occupied, q, queue2, seen2, stamp2)
                occupied[p] = False
                occupied[m] = True
                _sorted_replace(boxes, m, p, row)
                new_changes = changes[head] + (0 if m == last[head] else 1)
                i, slot = _find(table, store, row)
                if i >= 0:
                    if depth[i] == depth[head] + 1 and changes[i] < new_changes:
                        changes[i] = new_changes
                        last[i] = p
                    continue
                if count == store.shape[0]:
                    grown = store.shape[0] * 2
                    store2 = np.empty((grown, width), dtype=np.int32)
                    store2[:count] = store[:count]
                    store = store2
                    depth2 = np.empty(grown, dtype=np.int32)
                    depth2[:count] = depth[:count]
                    depth = depth2
                    changes2 = np.empty(grown, dtype=np.int32)
                    changes2[:count] = changes[:count]
                    changes = changes2
                    last2 = np.empty(grown, dtype=np.int32)
                    last2[:count] = last[:count]
                    last = last2
                    table = _rehash(store, count, 2 * grown)
                    _, slot = _find(table, store, row)
                store[count] = row
                depth[count] = depth[head] + 1
                changes[count] = new_changes
                last[count] = p
                table[slot] = count
                count += 1
        for b in boxes:
            occupied[b] = False
        head += 1
    return store[:count], depth[:count], changes[:count], last[:count], complete


@njit(cache=True)
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
    occupied = np.zeros(n, dtype=np.bool_)
    for b in boxes:
        occupied[b] = True
    queue = np.empty(n, dtype=np.int32)
    seen = np.zeros(n, dtype=np.int32)
    moves_p = np.empty(4 * n, dtype=np.int32)
    moves_d = np.empty(4 * n, dtype=np.int32)
    best = start.copy()
    best_score = np.int64(0)
    best_pulls = np.int32(0)
    changes = 0
    last_box = -1
    pulls = 0
    for step in range(uniforms.shape[0]):
        stamp = step + 1
        qh = 0
        qt = 1
        queue[0] = player
        seen[player] = stamp
        count = 0
        while qh < qt:
            p = queue[qh]
            qh += 1
            for d in range(4):
                m = nbr[p, d]
                if m < 0:
                    continue
                if not occupied[m]:
                    if seen[m] != stamp:
                        seen[m] = stamp
                        queue[qt] = m
                        qt += 1
                    continue
                q = nbr[p, (d + 2) % 4]
                if q >= 0 and not occupied[q]:
                    moves_p[count] = p
                    moves_d[count] = d
                    count += 1
        if count == 0:
            break
        pick = int(uniforms[step] * count)
        p = moves_p[pick]
        d = moves_d[pick]
        m = nbr[p, d]
        q = nbr[p, (d + 2) % 4]
        j = 0
        while boxes[j] != m:
            j += 1
        boxes[j] = p
        occupied[m] = False
        occupied[p] = True
        player = q
        pulls += 1
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
            best_pulls = np.int32(pulls)
            best[:k] = np.sort(boxes)
            best[k] = player
    return best, best_score, best_pulls
