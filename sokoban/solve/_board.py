"""The board encoding the kernels work on, built once per level in plain Python and numpy.

Floor cells (the player's region, boxes ignored) are numbered ``0..n-1`` in cell order.
Directions are numbered as :data:`sokoban.direction.DIRECTIONS` (left, up, right, down), so
the opposite of ``d`` is ``(d + 2) % 4`` and axis ``a`` (0 horizontal, 1 vertical) is the
pair ``(a, a + 2)``.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from sokoban._jit import njit
from sokoban.direction import DIRECTIONS
from sokoban.level import Level
from sokoban.solve._table import zobrist

#: Push distance of a cell from which a goal cannot be reached.
INF = 1 << 24


class KernelBoard(NamedTuple):
    """The board as the kernels take it: :attr:`Board.nbr`, :attr:`~Board.goal`,
    :attr:`~Board.dead`, :attr:`~Board.dist`, and the Zobrist keys of a box (``zbox``)
    and of the player (``zplayer``) on each floor cell (uint64[n])."""

    nbr: np.ndarray
    goal: np.ndarray
    dead: np.ndarray
    dist: np.ndarray
    zbox: np.ndarray
    zplayer: np.ndarray


class SearchBoard(NamedTuple):
    """The board as the searches on the node store take it: the fields of
    :class:`KernelBoard`, then the two-box deadlock table of :mod:`sokoban.solve._pairs`
    (``live``, ``pairs``, ``starts``, ``partners``; empty for none)."""

    nbr: np.ndarray
    goal: np.ndarray
    dead: np.ndarray
    dist: np.ndarray
    zbox: np.ndarray
    zplayer: np.ndarray
    live: np.ndarray
    pairs: np.ndarray
    starts: np.ndarray
    partners: np.ndarray


class Board:
    """Arrays describing one level for the kernels.

    - ``cells``: int32[n], the level cell of each floor index.
    - ``index``: int32[width * height], the floor index of each cell, -1 off the floor.
    - ``nbr``: int32[n, 4], the neighbour of each floor cell in each direction, -1 for a wall.
    - ``goal``: uint8[n], 1 on goals.  ``goals``: int32[g], the goal floor indices.
    - ``sides``: int32[n, 4], for each cell and side, the least side the player can walk to
      from there around a box on the cell (-1 for a wall): sides with equal labels connect.
    - ``dist``: int32[g, n], the fewest pushes that take a lone box from a cell to each goal
      (:data:`INF` when it cannot), the player starting on the best side; the player can
      change sides only by walking around the box.
    - ``dead``: uint8[n], 1 where a box can reach no goal (dead squares).
    - ``boxes``: int16[b], the start box floor indices, sorted; ``player``: the start floor index.

    Boxes on goals outside the player's region can never move; they are left out with
    their goals.
    """

    def __init__(self, level: Level) -> None:
        self.level = level
        width, height = level.width, level.height
        cells = np.sort(np.fromiter(level.interior, np.int32))
        n = len(cells)
        self.n = n
        self.width = width
        self.cells = cells
        # The floor indices on the grid with a border of -1 around it, so that every
        # neighbour is one lookup at an offset (a few numpy calls in all: a loop over the
        # cells costs more than the search of a small level).
        wide = width + 2
        framed = np.full((height + 2) * wide, -1, dtype=np.int32)
        at = (cells // width + 1) * wide + cells % width + 1
        framed[at] = np.arange(n, dtype=np.int32)
        self.index = index = framed.reshape(height + 2, wide)[1:-1, 1:-1].ravel()
        offsets = np.array([d.offset(wide) for d in DIRECTIONS])
        nbr = framed[at[:, None] + offsets]
        self.nbr = nbr
        self.goals = _inside(index, level.goals).astype(np.int32)
        self.goal = np.zeros(n, dtype=np.uint8)
        self.goal[self.goals] = 1
        self.boxes = _inside(index, level.boxes).astype(np.int16)
        self.player = int(index[level.player]) if level.player is not None else -1
        self.sides = side_components(nbr)
        self.dist = push_distances(nbr, self.goals, self.sides)
        self.dead = ((self.dist.min(axis=0) >= INF) & (self.goal == 0)).astype(np.uint8)
        finite = self.dist[self.dist < INF]
        #: The largest lower bound any position can have (for sizing the priority queue).
        self.hmax = int(finite.max() if finite.size else 0) * len(self.boxes)

    @property
    def nboxes(self) -> int:
        return len(self.boxes)

    def kernel_board(self) -> KernelBoard:
        """The arrays the kernels take, with fresh Zobrist keys (the same every time)."""
        zbox, zplayer = zobrist(self.n)
        return KernelBoard(self.nbr, self.goal, self.dead, self.dist, zbox, zplayer)

    def search_board(self, pairs: tuple[np.ndarray, ...]) -> SearchBoard:
        """:meth:`kernel_board` with the two-box table ``pairs`` (see
        :func:`sokoban.solve._pairs.pair_table`, :func:`~sokoban.solve._pairs.no_table`)."""
        return SearchBoard(*self.kernel_board(), *pairs)

    def cell(self, index: int) -> int:
        """The level cell of a floor index."""
        return int(self.cells[index])

    def dead_cells(self) -> frozenset[int]:
        """The dead squares as level cells."""
        return frozenset(int(c) for c in self.cells[self.dead.astype(bool)])


def _inside(index: np.ndarray, cells: frozenset[int]) -> np.ndarray:
    """The floor indices of those of ``cells`` on the floor, sorted (int32)."""
    floor = index[np.fromiter(cells, np.int64, len(cells))]
    return np.sort(floor[floor >= 0])


@njit(internal=True)
def label_sides(nbr, wall, side, disc, low, last, scratch):
    """Label the player's regions around a lone box, the cells with ``wall`` set standing
    as walls: ``side[x, d]`` is, for a box on ``x``,
    the first side e <= d of ``x`` whose neighbour lies in the same region as the neighbour
    on side d (-1 where that neighbour is a wall, off the board, or ``x`` is a wall).

    One depth-first search over the floor (the cells with ``wall`` set left out) gives
    them all, as for articulation points: a box on ``x`` cuts off the subtree of a child
    ``c`` exactly when no back edge leaves that subtree above ``x`` (``low[c] >=
    disc[x]``); the other neighbours meet beyond ``x``. A flood per cell and side would
    take time quadratic in the board.
    ``nbr``: int32[n, 4]; ``wall``: uint8[n]; ``side``: int8[n, 4]; ``disc``, ``low``,
    ``last``: int32[n] scratch (each cell's discovery time, the lowest time its subtree
    reaches, and the last time in its subtree); ``scratch``: int32[>= 3n]."""
    n = nbr.shape[0]
    stack = scratch[:n]
    step = scratch[n : 2 * n]
    parent = scratch[2 * n : 3 * n]
    disc[:] = -1
    t = 0
    for root in range(n):
        if wall[root] or disc[root] >= 0:
            continue
        disc[root] = t
        low[root] = t
        t += 1
        parent[root] = -1
        step[root] = 0
        stack[0] = root
        top = 1
        while top > 0:
            u = stack[top - 1]
            if step[u] < 4:
                v = nbr[u, step[u]]
                step[u] += 1
                if v < 0 or wall[v]:
                    continue
                if disc[v] < 0:
                    disc[v] = t
                    low[v] = t
                    t += 1
                    parent[v] = u
                    step[v] = 0
                    stack[top] = v
                    top += 1
                elif v != parent[u] and disc[v] < low[u]:
                    low[u] = disc[v]
            else:
                last[u] = t - 1
                top -= 1
                p = parent[u]
                if p >= 0 and low[u] < low[p]:
                    low[p] = low[u]
    for x in range(n):
        for d in range(4):
            side[x, d] = -1
        if wall[x]:
            continue
        for e in range(4):
            p = nbr[x, e]
            if p < 0 or wall[p]:
                continue
            region = _region_beside(x, p, nbr, wall, disc, low, last, parent)
            side[x, e] = e
            for d in range(e):
                q = nbr[x, d]
                if q < 0 or wall[q]:
                    continue
                if _region_beside(x, q, nbr, wall, disc, low, last, parent) == region:
                    side[x, e] = d
                    break


@njit(internal=True)
def _region_beside(x, p, nbr, wall, disc, low, last, parent):
    """The player's region of ``p``, a floor neighbour of ``x``, with a box on ``x``, by
    :func:`label_sides`'s search: the child of ``x`` whose subtree holds ``p`` when that
    subtree is cut off, else -1 (the region of ``x``'s parent)."""
    if disc[p] <= disc[x] or disc[p] > last[x]:
        return -1  # an ancestor of x
    for f in range(4):
        c = nbr[x, f]
        if c >= 0 and not wall[c] and parent[c] == x and disc[c] <= disc[p] <= last[c]:
            return c if low[c] >= disc[x] else -1
    return -1


@njit(allocates=True)
def side_components(nbr):
    """Which sides of each cell the player can walk between with a box on the cell.

    ``nbr``: int32[n, 4]. Returns int32[n, 4]: for each side the least side connected to
    it around the cell, -1 where the side is a wall (:func:`label_sides` on the bare
    board).
    """
    n = nbr.shape[0]
    side = np.empty((n, 4), dtype=np.int8)
    times = np.empty((3, n), dtype=np.int32)
    label_sides(
        nbr, np.zeros(n, dtype=np.uint8), side, times[0], times[1], times[2],
        np.empty(3 * n, dtype=np.int32),
    )  # fmt: skip
    return side.astype(np.int32)


@njit(allocates=True)
def push_distances(nbr, goals, sides):
    """Fewest pushes from every floor cell to every goal for a lone box, the player on
    the best side to start with: a breadth-first search of pulls over (box cell, player
    side) states, where the player changes sides only around the box (``sides``).

    ``nbr``: int32[n, 4]; ``goals``: int32[g]; ``sides``: from :func:`side_components`.
    Returns int32[g, n], :data:`INF` where a box cannot reach the goal.
    """
    n = nbr.shape[0]
    ng = goals.shape[0]
    dist = np.full((ng, n), INF, dtype=np.int32)
    state = np.full((n, 4), INF, dtype=np.int32)
    queue = np.empty(4 * n, dtype=np.int64)
    for k in range(ng):
        state[:] = INF
        g = goals[k]
        head, tail = 0, 0
        for s in range(4):
            if nbr[g, s] >= 0:
                state[g, s] = 0
                queue[tail] = g * 4 + s
                tail += 1
        while head < tail:
            box = queue[head] // 4
            side = queue[head] % 4
            head += 1
            # The push that led here came from the player's cell, in the opposite direction.
            c = nbr[box, side]
            if c < 0 or nbr[c, side] < 0:
                continue
            label = sides[c, side]
            for t in range(4):
                if sides[c, t] == label and state[c, t] == INF:
                    state[c, t] = state[box, side] + 1
                    queue[tail] = c * 4 + t
                    tail += 1
        for c in range(n):
            best = INF
            for s in range(4):
                if state[c, s] < best:
                    best = state[c, s]
            dist[k, c] = best
    return dist
