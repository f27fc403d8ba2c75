"""Two-box deadlocks: a table, built once per level, of the placements of two boxes (and
the player's cell) from which both boxes can still reach distinct goals.

The table is filled by a breadth-first search of pulls over (box a, box b, player region)
states, other boxes removed, starting from every position with both boxes on goals and
the player in any region. Every state it reaches can be pushed back to such a position;
every state it never reaches cannot. Removing boxes never makes a position harder (a
solution of the whole level, its other boxes taken away, still pushes these two onto
distinct goals), so any position with boxes on ``a`` and ``b`` and the player on a cell
the table does not mark for them is a deadlock. Regions matter: two boxes side by side
in a corridor are fine with the player on one side and dead with it on the other.

Layout: ``table[i, j, w]`` (uint64[m, m, W]) holds, for live cells numbered ``i < j``
(``live`` maps a floor index to its live number, -1 on dead squares), bit ``p % 64`` of
word ``p // 64`` set when the player may stand on floor cell ``p``. Only ``i < j`` is
filled. An empty table (shape ``(0, 0, 0)``) means "no table": the check passes.
Most pairs are fine wherever the player stands, so each live cell also lists its
partners, the floor cells that make a deadlock with it for some player cell
(``partners[starts[i]:starts[i + 1]]``, int32): the check looks at those cells only,
usually far fewer than the boxes.
"""

from __future__ import annotations

import numpy as np

from sokoban._jit import njit
from sokoban.solve._board import Board

#: Largest table built, in bytes; bigger boards go without (the check passes).
MAX_BYTES = 32 << 20
#: Largest amount of work (live cells squared times floor cells) spent building a table:
#: about a quarter of a second; bigger boards go without.
MAX_WORK = 20_000_000


def no_table() -> tuple[np.ndarray, ...]:
    """The "no table": live int32[0], table uint64[0, 0, 0], starts int32[1], partners
    int32[0]."""
    return (
        np.full(0, -1, np.int32),
        np.zeros((0, 0, 0), np.uint64),
        np.zeros(1, np.int32),
        np.zeros(0, np.int32),
    )


def pair_table(board: Board) -> tuple[np.ndarray, ...]:
    """``(live, table, starts, partners)`` for ``board`` (see the module's docstring), or
    :func:`no_table` for fewer than two boxes or a board over :data:`MAX_BYTES` or
    :data:`MAX_WORK`."""
    live = np.full(board.n, -1, np.int32)
    cells = np.flatnonzero(board.dead == 0)
    live[cells] = np.arange(len(cells), dtype=np.int32)
    m = len(cells)
    words = (board.n + 63) // 64
    if board.nboxes < 2 or m * m * words * 8 > MAX_BYTES or m * m * board.n > MAX_WORK:
        return no_table()
    cells = cells.astype(np.int32)
    table = build(board.nbr, board.goals, live, cells)
    starts, partners = partner_lists(table, cells, board.n)
    return live, table, starts, partners


@njit(internal=True)
def _flood(start, a, b, nbr, seen, mark, queue):
    """Mark ``seen[c] = mark`` on the cells the player reaches from ``start`` with boxes on
    ``a`` and ``b``; returns how many, listed in ``queue`` (int32[n])."""
    seen[start] = mark
    queue[0] = start
    head, tail = 0, 1
    while head < tail:
        c = queue[head]
        head += 1
        for d in range(4):
            x = nbr[c, d]
            if x >= 0 and x != a and x != b and seen[x] != mark:
                seen[x] = mark
                queue[tail] = x
                tail += 1
    return tail


@njit(internal=True)
def _visit(a, b, start, live, nbr, table, seen, mark, region, states, count):
    """Add state (boxes ``a``, ``b``, player region of ``start``) unless known: mark the
    region's cells in ``table`` and append the state to ``states`` (int32[s, 3]) at
    ``count``. Returns the new count."""
    i, j = live[a], live[b]
    if i > j:
        i, j = j, i
    if (table[i, j, start >> 6] >> np.uint64(start & 63)) & np.uint64(1):
        return count
    size = _flood(start, a, b, nbr, seen, mark, region)
    for r in range(size):
        c = region[r]
        table[i, j, c >> 6] |= np.uint64(1) << np.uint64(c & 63)
    states[count, 0] = a
    states[count, 1] = b
    states[count, 2] = start
    return count + 1


@njit(allocates=True)
def build(nbr, goals, live, cells):
    """Fill the table by pulls from every position with both boxes on distinct goals.

    ``nbr``: int32[n, 4]; ``goals``: int32[g]; ``live``: int32[n]; ``cells``: int32[m],
    the floor index of each live number. Returns uint64[m, m, (n + 63) // 64].

    A pair has at most eight player regions (the floor is connected, so every region
    borders one of the two boxes), which bounds the list of states.
    """
    n = nbr.shape[0]
    m = cells.shape[0]
    table = np.zeros((m, m, (n + 63) // 64), np.uint64)
    states = np.empty((4 * m * m + 8, 3), np.int32)
    seen = np.zeros(n, np.int32)  # the region of the state being expanded
    seen2 = np.zeros(n, np.int32)  # the region of a state being added
    region = np.empty(n, np.int32)
    mark = 0
    mark2 = 0
    count = 0
    ng = goals.shape[0]
    for x in range(ng):
        for y in range(x + 1, ng):
            a, b = goals[x], goals[y]
            for c in range(n):
                if c != a and c != b:
                    mark2 += 1
                    count = _visit(a, b, c, live, nbr, table, seen2, mark2, region, states, count)
    head = 0
    while head < count:
        a, b, start = states[head, 0], states[head, 1], states[head, 2]
        head += 1
        mark += 1
        _flood(start, a, b, nbr, seen, mark, region)
        for side in range(2):
            box, other = (a, b) if side == 0 else (b, a)
            for d in range(4):
                p = nbr[box, d]  # the player stands here, next to the box ...
                if p < 0 or seen[p] != mark:
                    continue
                q = nbr[p, d]  # ... and steps back here, the box following onto p
                if q < 0 or q == other or live[p] < 0:
                    continue
                mark2 += 1
                count = _visit(p, other, q, live, nbr, table, seen2, mark2, region, states, count)
    return table


@njit(allocates=True)
def partner_lists(table, cells, n):
    """For each live cell, the floor cells of the live cells it makes a deadlock with for
    some player cell: returns starts int32[m + 1] and partners int32[k] (see the module).
    ``table``: uint64[m, m, W]; ``cells``: int32[m]; ``n``: floor cells."""
    m = cells.shape[0]
    dead = np.zeros((m, m), np.uint8)
    for i in range(m):
        for j in range(i + 1, m):
            for p in range(n):
                if p != cells[i] and p != cells[j]:
                    if not (table[i, j, p >> 6] >> np.uint64(p & 63)) & np.uint64(1):
                        dead[i, j] = 1
                        dead[j, i] = 1
                        break
    starts = np.zeros(m + 1, np.int32)
    for i in range(m):
        starts[i + 1] = starts[i] + dead[i].sum()
    partners = np.empty(starts[m], np.int32)
    for i in range(m):
        x = starts[i]
        for j in range(m):
            if dead[i, j]:
                partners[x] = cells[j]
                x += 1
    return starts, partners


@njit
def pair_dead(t, stand, occ, live, table, starts, partners):
    """Whether a box on ``t`` with the player on ``stand`` makes a two-box deadlock with
    another box (``occ``: int32[n], a box index or -1 per floor cell). ``live``,
    ``table``, ``starts``, ``partners``: from :func:`pair_table`; an empty table finds
    nothing."""
    if table.shape[0] == 0:
        return False
    i = live[t]
    word = stand >> 6
    bit = np.uint64(stand & 63)
    for x in range(starts[i], starts[i + 1]):
        c = partners[x]
        if occ[c] < 0:
            continue
        j = live[c]
        if i < j:
            w = table[i, j, word]
        else:
            w = table[j, i, word]
        if not (w >> bit) & np.uint64(1):
            return True
    return False
