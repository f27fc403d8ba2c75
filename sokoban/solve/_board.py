"""The board encoding the kernels work on, built once per level in plain Python and numpy.

Floor cells (the player's region, boxes ignored) are numbered ``0..n-1`` in cell order.
Directions are numbered as :data:`sokoban.direction.DIRECTIONS` (left, up, right, down), so
the opposite of ``d`` is ``(d + 2) % 4`` and axis ``a`` (0 horizontal, 1 vertical) is the
pair ``(a, a + 2)``.
"""

from __future__ import annotations

import numpy as np

from sokoban.direction import DIRECTIONS
from sokoban.level import Level
from sokoban.solve._jit import njit

#: Push distance of a cell from which a goal cannot be reached.
INF = 1 << 24


class Board:
    """Arrays describing one level for the kernels.

    - ``cells``: int32[n], the level cell of each floor index.
    - ``index``: int32[width * height], the floor index of each cell, -1 off the floor.
    - ``nbr``: int32[n, 4], the neighbour of each floor cell in each direction, -1 for a wall.
    - ``goal``: uint8[n], 1 on goals.  ``goals``: int32[g], the goal floor indices.
    - ``dist``: int32[g, n], the fewest pushes that take a lone box from a cell to each goal
      (:data:`INF` when it cannot), the player's side of the box ignored.
    - ``dead``: uint8[n], 1 where a box can reach no goal (dead squares).
    - ``boxes``: int16[b], the start box floor indices, sorted; ``player``: the start floor index.

    Boxes on goals outside the player's region can never move; they are left out with
    their goals.
    """

    def __init__(self, level: Level) -> None:
        self.level = level
        width, height = level.width, level.height
        interior = level.interior
        cells = sorted(interior)
        n = len(cells)
        self.n = n
        self.width = width
        self.cells = np.array(cells, dtype=np.int32)
        index = np.full(width * height, -1, dtype=np.int32)
        index[self.cells] = np.arange(n, dtype=np.int32)
        self.index = index
        nbr = np.full((n, 4), -1, dtype=np.int32)
        for i, cell in enumerate(cells):
            x, y = cell % width, cell // width
            for d, direction in enumerate(DIRECTIONS):
                nx, ny = x + direction.dx, y + direction.dy
                if 0 <= nx < width and 0 <= ny < height:
                    nbr[i, d] = index[ny * width + nx]
        self.nbr = nbr
        self.goals = np.array(sorted(index[g] for g in level.goals if g in interior), np.int32)
        self.goal = np.zeros(n, dtype=np.uint8)
        self.goal[self.goals] = 1
        self.boxes = np.array(sorted(index[b] for b in level.boxes if b in interior), np.int16)
        self.player = int(index[level.player]) if level.player is not None else -1
        self.dist = pull_distances(nbr, self.goals)
        self.dead = ((self.dist.min(axis=0) >= INF) & (self.goal == 0)).astype(np.uint8)
        finite = self.dist[self.dist < INF]
        #: The largest lower bound any position can have (for sizing the priority queue).
        self.hmax = int(finite.max() if finite.size else 0) * len(self.boxes)

    @property
    def nboxes(self) -> int:
        return len(self.boxes)

    def cell(self, index: int) -> int:
        """The level cell of a floor index."""
        return int(self.cells[index])

    def dead_cells(self) -> frozenset[int]:
        """The dead squares as level cells."""
        return frozenset(int(c) for c in self.cells[self.dead.astype(bool)])


@njit
def pull_distances(nbr, goals):
    """Fewest pushes from every floor cell to every goal for a lone box: a breadth-first
    search of pulls from each goal (a pull needs two free cells in a row).

    ``nbr``: int32[n, 4]; ``goals``: int32[g]. Returns int32[g, n], :data:`INF` where a
    box cannot reach the goal.
    """
    n = nbr.shape[0]
    ng = goals.shape[0]
    dist = np.full((ng, n), INF, dtype=np.int32)
    queue = np.empty(n, dtype=np.int32)
    for k in range(ng):
        dist[k, goals[k]] = 0
        queue[0] = goals[k]
        head, tail = 0, 1
        while head < tail:
            c = queue[head]
            head += 1
            for d in range(4):
                b = nbr[c, d]
                if b < 0 or nbr[b, d] < 0 or dist[k, b] < INF:
                    continue
                dist[k, b] = dist[k, c] + 1
                queue[tail] = b
                tail += 1
    return dist
