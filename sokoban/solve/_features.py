"""The feature space of the feature-space search (:mod:`sokoban.solve._fess`): the
features of a position, its cell, and the queue of cells the search takes turns among.

Features of a position (computed for every child):

- packing: how many steps of the packing plan hold (:mod:`sokoban.solve._packing`);
- connectivity: how many regions the boxes cut the free floor into (capped);
- room connectivity: how many links between the level's rooms hold a box
  (:mod:`sokoban.solve._rooms`; capped);
- out of plan: boxes on goals that wall in goals still empty (capped).

Every cell holds its positions in LIFO buckets by a key (the search's choice: a bound, a
weight, or both). :func:`cell_pop` visits the non-empty cells round-robin and takes the
position of least key in each, so a cell reached by packing one more box gets its turns
at once however crowded the cells below it are, while every other combination of
features keeps being explored.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from sokoban._jit import njit
from sokoban.solve._packing import steps_packed
from sokoban.solve._store import OWN

#: Slots of the counters (int64 array, after the store's) the cells keep: positions
#: queued, the next cell's turn, non-empty cells.
QUEUED, CURSOR, CELLS = OWN, OWN + 1, OWN + 2
#: Feature caps: regions counted up to this many, obstructed room links and boxes out of
#: plan likewise.
CONNECTIVITY_CAP, ROOMS_CAP, OUT_OF_PLAN_CAP = 4, 4, 4
#: Bound buckets per cell at most (larger keys share the last bucket).
MAX_BUCKETS = 1024


class Cells(NamedTuple):
    """The feature cells' buckets. A cell gets a row of buckets when it first holds a
    node (most cells of the space never do): the row of each cell int32[c] (-1: none
    yet), the first node of each (row, key) bucket int32[r, k] (-1 empty), the rows
    given out int64[1], the nodes per cell int64[c], and a key at or below each cell's
    least occupied bucket int32[c]."""

    rowof: np.ndarray
    heads: np.ndarray
    rows: np.ndarray
    sizes: np.ndarray
    low: np.ndarray

    def with_rows(self, room: int) -> Cells:
        """The cells with rows for ``room`` more cells at least (twice as many rows, at
        most one per cell)."""
        wanted = min(len(self.rowof), max(2 * len(self.heads), int(self.rows[0]) + room))
        heads = np.full((wanted, self.heads.shape[1]), -1, dtype=np.int32)
        heads[: len(self.heads)] = self.heads
        return self._replace(heads=heads)


@njit(internal=True)
def rows_short(cells, room):
    """Whether ``room`` more cells of :class:`Cells` could not each get a row."""
    rowof, heads, rows, _, _ = cells
    return rows[0] + room > heads.shape[0] and heads.shape[0] < rowof.shape[0]


#: Rows of buckets a search starts with.
FIRST_ROWS = 64


def new_cells(steps: int, buckets: int, rooms_cap: int) -> Cells:
    """Empty :class:`Cells` for a plan of ``steps`` steps, ``rooms_cap`` values of the
    room connectivity feature (1: off) and ``buckets`` keys per cell."""
    ncells = (steps + 1) * CONNECTIVITY_CAP * rooms_cap * OUT_OF_PLAN_CAP
    return Cells(
        np.full(ncells, -1, dtype=np.int32),
        np.full((min(ncells, FIRST_ROWS), buckets), -1, dtype=np.int32),
        np.zeros(1, dtype=np.int64),
        np.zeros(ncells, dtype=np.int64),
        np.zeros(ncells, dtype=np.int32),
    )


@njit(internal=True)
def regions(occ, nbr, seen, mark, queue, cap, walked, wmark):
    """How many connected regions the free cells (``occ < 0``) form, counted up to
    ``cap`` (the count stops there); uses marks ``mark..mark + regions - 1`` of ``seen``
    (int32[n]) and returns (regions, next mark). A cell marked ``mark`` or above before
    the call counts as seen. The cells with ``walked[c] == wmark`` (int32[n]) are one
    region flooded before, the player's walk: it is counted without a flood of its own
    (``wmark`` that no cell holds: none). ``occ``, ``queue``: int32[n]; ``nbr``:
    int32[n, 4]. (Not the player's flood of :func:`sokoban.solve._reach.reach`: this one
    visits every free cell, and a cell of an earlier flood of the same call is never
    entered.)"""
    n = nbr.shape[0]
    first = mark
    count = 0
    # The walked region counts as one unless cells marked before the call may cut it.
    known = False
    for s in range(n):
        if occ[s] < 0 and seen[s] >= first:
            known = False
            break
        if walked[s] == wmark:
            known = True
    if known:
        count = 1
        mark += 1
        if count >= cap:
            return count, mark
    for s in range(n):
        if occ[s] >= 0 or seen[s] >= first or (known and walked[s] == wmark):
            continue
        seen[s] = mark
        queue[0] = s
        head, tail = 0, 1
        while head < tail:
            c = queue[head]
            head += 1
            for d in range(4):
                x = nbr[c, d]
                if x >= 0 and occ[x] < 0 and seen[x] < first:
                    seen[x] = mark
                    queue[tail] = x
                    tail += 1
        count += 1
        mark += 1
        if count >= cap:
            break
    return count, mark


@njit(internal=True)
def obstructed(occ, link_start, link_cells):
    """How many room links (:class:`~sokoban.solve._rooms.Links`: ``link_start``
    int32[l + 1], ``link_cells`` int32[...]) hold a box of ``occ`` (int32[n])."""
    count = 0
    for link in range(link_start.shape[0] - 1):
        for i in range(link_start[link], link_start[link + 1]):
            if occ[link_cells[i]] >= 0:
                count += 1
                break
    return count


@njit
def feature_cell(
    occ, nbr, steps, parent, feeds, ok, seen, mark, queue, walked, wmark, links, conn_cap,
    rooms_cap, oop_cap,
):  # fmt: skip
    """The feature-space cell of the boxes ``occ`` (int32[n]) and the next free mark:
    ``((packed * conn_cap + min(regions, conn_cap) - 1) * rooms_cap + min(obstructed
    links, rooms_cap - 1)) * oop_cap + min(out of plan, oop_cap - 1)``, packed counting
    the plan's steps. ``steps``, ``parent``, ``feeds``, ``ok``: see
    :func:`sokoban.solve._packing.steps_packed`; ``seen``, ``queue``: int32[n] scratch;
    ``walked``, ``wmark``: the player's walk, see :func:`regions`; ``links``: the room
    links (start, cells) of :class:`~sokoban.solve._rooms.Links`."""
    packed, out = steps_packed(occ, steps, parent, feeds, ok)
    count, mark = regions(occ, nbr, seen, mark, queue, conn_cap, walked, wmark)
    conn = max(0, min(count, conn_cap) - 1)  # no region counted when every cell was seen
    rooms = 0
    if rooms_cap > 1:
        rooms = min(obstructed(occ, links[0], links[1]), rooms_cap - 1)
    cell = ((packed * conn_cap + conn) * rooms_cap + rooms) * oop_cap + min(out, oop_cap - 1)
    return cell, mark


@njit
def cell_push(cells, nxt, counters, cell, key, node):
    """Put ``node`` into bucket ``key`` of ``cell``. ``cells``: :class:`Cells`, with a row
    free when the cell has none yet (see :func:`rows_short`); ``nxt``: int32[cap]
    bucket links; ``counters``: the search's, slots :data:`QUEUED` ..."""
    rowof, heads, rows, count, low = cells
    r = rowof[cell]
    if r < 0:
        r = rows[0]
        rows[0] += 1
        rowof[cell] = r
    k = min(key, heads.shape[1] - 1)
    nxt[node] = heads[r, k]
    heads[r, k] = node
    if count[cell] == 0 or k < low[cell]:
        low[cell] = k
    if count[cell] == 0:
        counters[CELLS] += 1
    count[cell] += 1
    counters[QUEUED] += 1


@njit(internal=True)
def cell_pop(cells, nxt, counters):
    """The node of least key in the next non-empty cell after the cursor."""
    rowof, heads, _, count, low = cells
    ncells = count.shape[0]
    c = counters[CURSOR]
    while count[c] == 0:
        c += 1
        if c == ncells:
            c = 0
    counters[CURSOR] = c + 1 if c + 1 < ncells else 0
    r = rowof[c]
    k = low[c]
    while heads[r, k] < 0:
        k += 1
    low[c] = k
    node = heads[r, k]
    heads[r, k] = nxt[node]
    count[c] -= 1
    if count[c] == 0:
        counters[CELLS] -= 1
    counters[QUEUED] -= 1
    return node


@njit(internal=True)
def features(cell, conn_cap, rooms_cap, oop_cap):
    """(plan steps packed, regions column, obstructed links, boxes out of plan) of
    feature ``cell``."""
    oop, rest = cell % oop_cap, cell // oop_cap
    rooms, rest = rest % rooms_cap, rest // rooms_cap
    return rest // conn_cap, rest % conn_cap, rooms, oop


@njit(internal=True)
def ranks_above(cell, other, conn_cap, rooms_cap, oop_cap):
    """Whether feature ``cell`` is further on than ``other``: more steps packed, or as
    many and fewer regions, or as many of both and fewer obstructed room links, or as
    many of those three and fewer boxes out of plan."""
    packed, conn, rooms, oop = features(cell, conn_cap, rooms_cap, oop_cap)
    packed0, conn0, rooms0, oop0 = features(other, conn_cap, rooms_cap, oop_cap)
    if packed != packed0:
        return packed > packed0
    if conn != conn0:
        return conn < conn0
    if rooms != rooms0:
        return rooms < rooms0
    return oop < oop0


@njit(internal=True)
def improves(cell, before, conn_cap, rooms_cap, oop_cap):
    """Whether feature ``cell`` has more steps packed, fewer regions, fewer obstructed
    room links or fewer boxes out of plan than ``before``."""
    packed, conn, rooms, oop = features(cell, conn_cap, rooms_cap, oop_cap)
    packed0, conn0, rooms0, oop0 = features(before, conn_cap, rooms_cap, oop_cap)
    return packed > packed0 or conn < conn0 or rooms < rooms0 or oop < oop0
