"""De-duplication: one canonical text for a level and its rotations and reflections.

Two levels are the same puzzle when one is a rotation or reflection of the other,
whatever lies outside the walls and wherever the player stands in its region. The
canonical form draws only the interior, marks the player's whole region instead of
one cell, and takes the smallest text of the eight orientations.

>>> from sokoban import Level
>>> a = Level.from_xsb("#####\\n#@$.#\\n#####")
>>> b = Level.from_xsb("#####\\n#.$@#\\n#####")
>>> canonical(a) == canonical(b)
True
"""

from __future__ import annotations

import numpy as np

from sokoban.level import Level

# Cell codes of the canonical grid; their order decides which orientation is smallest.
_WALL, _FLOOR, _REACH, _GOAL, _REACH_GOAL, _BOX, _BOX_GOAL = (
    "#",
    " ",
    "-",
    ".",
    "+",
    "$",
    "*",
)


def _grid(level: Level) -> np.ndarray:
    """The interior of the level as a cropped array of one-character codes."""
    width = level.width
    inside = level.interior
    reach = level.reachable() if level.players else frozenset()
    grid = np.full((level.height, width), _WALL, dtype="<U1")
    for cell in inside:
        if cell in level.boxes:
            code = _BOX_GOAL if cell in level.goals else _BOX
        elif cell in reach:
            code = _REACH_GOAL if cell in level.goals else _REACH
        else:
            code = _GOAL if cell in level.goals else _FLOOR
        grid[cell // width, cell % width] = code
    ys, xs = np.nonzero(grid != _WALL)
    if len(ys) == 0:
        return grid[:0, :0]
    return grid[ys.min() : ys.max() + 1, xs.min() : xs.max() + 1]


def orientations(grid: np.ndarray) -> list[np.ndarray]:
    """The eight rotations and reflections of a 2-D array."""
    out = []
    for flipped in (grid, grid[:, ::-1]):
        for k in range(4):
            out.append(np.rot90(flipped, k))
    return out


def canonical(level: Level) -> str:
    """The canonical text of a level: equal for levels equal up to rotation, reflection,
    the player's cell within its region, and anything outside the walls."""
    texts = ("|".join("".join(row) for row in g) for g in orientations(_grid(level)))
    return min(texts)


class Deduplicator:
    """Remembers canonical forms; :meth:`add` says whether a level is new.

    >>> seen = Deduplicator()
    >>> seen.add(Level.from_xsb("#####\\n#@$.#\\n#####")), len(seen)
    (True, 1)
    >>> seen.add(Level.from_xsb("#####\\n#.$@#\\n#####"))
    False
    """

    def __init__(self) -> None:
        self._seen: set[str] = set()

    def __len__(self) -> int:
        return len(self._seen)

    def __contains__(self, level: Level) -> bool:
        return canonical(level) in self._seen

    def add(self, level: Level) -> bool:
        key = canonical(level)
        if key in self._seen:
            return False
        self._seen.add(key)
        return True
