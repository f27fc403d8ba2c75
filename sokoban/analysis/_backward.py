"""Numba kernels of the single-box analysis: backward searches from a goal over side states.

Floor cells are numbered compactly ``0..N-1``; ``nbr`` (int32, shape (N, 4)) holds each
cell's neighbour in the directions left, up, right, down (``-1`` for a wall).

A *side state* ``(b, k)`` is the box on cell ``b`` with the player on ``nbr[b, k]``, the
box's side ``k``. Every push leaves the player on a side of the box, so an optimal solution
is a walk to a side, then pushes and walks around the box between sides. The kernels search
backwards from "box on the goal": pushes become pulls (cost 1) and walks between two sides of
a box cost the walking distance around it, which ``dist`` (int16, shape (N, 4, N)) holds:
``dist[b, k, p]`` is the player's shortest walk from side ``k`` of ``b`` to ``p`` with the box
on ``b``, or :data:`FAR` when there is none. See ``docs/single-box.md`` for the proof.
"""

from __future__ import annotations

import numpy as np

from sokoban._jit import njit

#: No walk: the ``dist`` entry of an unreachable cell (int16).
FAR = 32767
#: No solution: the value of an unsolvable side state (int32; twice it still fits).
UNSOLVABLE = 1 << 28


@njit(allocates=True)
def compact(floor, width, height):
    """Number the floor cells of a ``width`` x ``height`` grid.

    :param floor: bool, shape (width*height,): which cells are floor.
    :returns: ``cells`` int32 (N,), the grid cell of each floor cell, and ``nbr`` int32 (N, 4).
    """
    size = width * height
    index = np.full(size, -1, np.int32)
    n = 0
    for cell in range(size):
        if floor[cell]:
            index[cell] = n
            n += 1
    cells = np.empty(n, np.int32)
    nbr = np.full((n, 4), -1, np.int32)
    for cell in range(size):
        i = index[cell]
        if i < 0:
            continue
        cells[i] = cell
        x = cell % width
        y = cell // width
        if x > 0:
            nbr[i, 0] = index[cell - 1]
        if y > 0:
            nbr[i, 1] = index[cell - width]
        if x < width - 1:
            nbr[i, 2] = index[cell + 1]
        if y < height - 1:
            nbr[i, 3] = index[cell + width]
    return cells, nbr


@njit(allocates=True)
def components(nbr):
    """Label the connected parts of the floor: int32 (N,), labels from 0."""
    n = nbr.shape[0]
    label = np.full(n, -1, np.int32)
    queue = np.empty(n, np.int32)
    count = 0
    for start in range(n):
        if label[start] >= 0:
            continue
        label[start] = count
        queue[0] = start
        head, tail = 0, 1
        while head < tail:
            c = queue[head]
            head += 1
            for j in range(4):
                m = nbr[c, j]
                if m >= 0 and label[m] < 0:
                    label[m] = count
                    queue[tail] = m
                    tail += 1
        count += 1
    return label


@njit
def side_distances(nbr, dist, reach, queue):
    """Walking distances from each side of each box cell, the box blocking its cell.

    :param nbr: int32 (N, 4).
    :param dist: int16 (>=N, 4, >=N), filled for ``[:N, :, :N]``: ``dist[b, k, p]``.
    :param reach: int32 (>=N, 4), filled: the farthest walk from side ``k`` of ``b``
        (``-1`` for a wall side); an upper bound used to skip hopeless box cells.
    :param queue: int32 (>=N,) scratch.
    """
    n = nbr.shape[0]
    for b in range(n):
        for k in range(4):
            row = dist[b, k]
            for p in range(n):
                row[p] = FAR
            reach[b, k] = -1
            s = nbr[b, k]
            if s < 0:
                continue
            row[s] = 0
            queue[0] = s
            head, tail = 0, 1
            d = 0
            while head < tail:
                c = queue[head]
                head += 1
                d = row[c] + 1
                for j in range(4):
                    m = nbr[c, j]
                    if m >= 0 and m != b and row[m] == FAR:
                        row[m] = d
                        queue[tail] = m
                        tail += 1
            reach[b, k] = row[queue[tail - 1]]


@njit(internal=True)
def _push_entry(value, node, bucket_head, entry_next, entry_node, count, nb):
    slot = value % nb
    entry_node[count] = node
    entry_next[count] = bucket_head[slot]
    bucket_head[slot] = count


@njit
def moves_to_goal(goal, nbr, dist, value, bucket_head, entry_next, entry_node):
    """Fewest moves from every side state to the box on ``goal`` (Dial's shortest paths).

    :param value: int32 (>=N, 4), filled for ``[:N]``: moves from ``(b, k)``, or
        :data:`UNSOLVABLE`; 0 for the goal's own sides.
    :param bucket_head: int32 (B,) scratch, B greater than the longest walk (N + 1 does).
    :param entry_next, entry_node: int32 (>=16*N + 4,) scratch.
    """
    n = nbr.shape[0]
    nb = bucket_head.shape[0]
    for b in range(n):
        for k in range(4):
            value[b, k] = UNSOLVABLE
    for i in range(nb):
        bucket_head[i] = -1
    count = 0
    live = 0
    for k in range(4):
        if nbr[goal, k] >= 0:
            value[goal, k] = 0
            _push_entry(0, goal * 4 + k, bucket_head, entry_next, entry_node, count, nb)
            count += 1
            live += 1
    v = 0
    while live > 0:
        slot = v % nb
        e = bucket_head[slot]
        bucket_head[slot] = -1
        while e >= 0:
            following = entry_next[e]
            live -= 1
            node = entry_node[e]
            b = node >> 2
            k = node & 3
            if value[b, k] == v:
                side = nbr[b, k]
                if b != goal:
                    # Walk around the box from another side k2 to side k.
                    for k2 in range(4):
                        if k2 != k and nbr[b, k2] >= 0:
                            d = dist[b, k, nbr[b, k2]]
                            if d != FAR and v + d < value[b, k2]:
                                value[b, k2] = v + d
                                _push_entry(
                                    v + d,
                                    b * 4 + k2,
                                    bucket_head,
                                    entry_next,
                                    entry_node,
                                    count,
                                    nb,
                                )
                                count += 1
                                live += 1
                # Pull: the box came from the player's cell, the player from one further.
                if side != goal and nbr[side, k] >= 0 and v + 1 < value[side, k]:
                    value[side, k] = v + 1
                    _push_entry(v + 1, side * 4 + k, bucket_head, entry_next, entry_node, count, nb)
                    count += 1
                    live += 1
            e = following
        v += 1


@njit
def pushes_to_goal(goal, nbr, dist, value, queue):
    """Fewest pushes from every side state to the box on ``goal`` (breadth-first over pulls,
    sides the player can walk between sharing one value).

    :param value: int32 (>=N, 4), filled for ``[:N]``: pushes, or :data:`UNSOLVABLE`.
    :param queue: int32 (>=4*N,) scratch.
    """
    n = nbr.shape[0]
    for b in range(n):
        for k in range(4):
            value[b, k] = UNSOLVABLE
    tail = 0
    for k in range(4):
        if nbr[goal, k] >= 0:
            value[goal, k] = 0
            queue[tail] = goal * 4 + k
            tail += 1
    head = 0
    while head < tail:
        node = queue[head]
        head += 1
        b = node >> 2
        k = node & 3
        side = nbr[b, k]
        if side == goal or nbr[side, k] < 0 or value[side, k] != UNSOLVABLE:
            continue
        v = value[b, k] + 1
        # Every side of the box's old cell that the player reaches from side k costs the same.
        for k2 in range(4):
            s2 = nbr[side, k2]
            if s2 >= 0 and value[side, k2] == UNSOLVABLE and dist[side, k, s2] != FAR:
                value[side, k2] = v
                queue[tail] = side * 4 + k2
                tail += 1


@njit
def placement_values(goal, nbr, dist, moves, pushes, label, out_moves, out_pushes):
    """Moves and pushes of every placement with the box off ``goal``.

    :param moves, pushes: int32 (N, 4), the side values of ``goal``.
    :param label: int32 (N,), the floor's connected parts.
    :param out_moves, out_pushes: int32 (N, N) out, ``[box, player]``: the optimum, ``-1`` when
        unsolvable, ``-2`` when not a placement (player on the box, box on the goal, or the
        three not in one part of the floor).
    """
    n = nbr.shape[0]
    for b in range(n):
        for p in range(n):
            if b == goal or p == b or label[p] != label[b] or label[b] != label[goal]:
                out_moves[b, p] = -2
                out_pushes[b, p] = -2
                continue
            best_m = UNSOLVABLE
            best_p = UNSOLVABLE
            for k in range(4):
                d = dist[b, k, p]
                if d != FAR:
                    if d + moves[b, k] < best_m:
                        best_m = d + moves[b, k]
                    if pushes[b, k] < best_p:
                        best_p = pushes[b, k]
            out_moves[b, p] = best_m if best_m < UNSOLVABLE else -1
            out_pushes[b, p] = best_p if best_p < UNSOLVABLE else -1


@njit
def layout_best(nbr, dist, reach, moves, pushes, bucket_head, entry_next, entry_node, queue, best):
    """The longest single-box puzzle of one room, in moves and in pushes.

    Scratch arrays as for :func:`side_distances`, :func:`moves_to_goal` and
    :func:`pushes_to_goal` (``dist`` and ``reach`` filled by the caller's
    :func:`side_distances`).

    :param best: int64 (8,) out: most moves, its player, box and goal cells; most pushes,
        its player, box and goal. ``-1`` values when nothing is solvable.
    """
    n = nbr.shape[0]
    for i in range(8):
        best[i] = -1
    for g in range(n):
        moves_to_goal(g, nbr, dist, moves, bucket_head, entry_next, entry_node)
        pushes_to_goal(g, nbr, dist, pushes, queue)
        for b in range(n):
            if b == g:
                continue
            # Pushes: one value per part of the floor around the box; a side stands for it.
            for k in range(4):
                s = nbr[b, k]
                if s >= 0 and pushes[b, k] < UNSOLVABLE and pushes[b, k] > best[4]:
                    best[4] = pushes[b, k]
                    best[5] = s
                    best[6] = b
                    best[7] = g
            # Moves: a player in the part of side k is at most reach + moves of the best side
            # of that part away; skip the box cell when no part can beat the best so far.
            bound = -1
            for k in range(4):
                s = nbr[b, k]
                if s < 0:
                    continue
                part = UNSOLVABLE
                for k2 in range(4):
                    s2 = nbr[b, k2]
                    if s2 >= 0 and dist[b, k, s2] != FAR:
                        t = reach[b, k2] + moves[b, k2]
                        if t < part:
                            part = t
                if part < UNSOLVABLE and part > bound:
                    bound = part
            if bound <= best[0]:
                continue
            for p in range(n):
                if p == b:
                    continue
                m = UNSOLVABLE
                for k in range(4):
                    d = dist[b, k, p]
                    if d != FAR and d + moves[b, k] < m:
                        m = d + moves[b, k]
                if m < UNSOLVABLE and m > best[0]:
                    best[0] = m
                    best[1] = p
                    best[2] = b
                    best[3] = g
