"""The level's rooms and the links between them, for the feature-space search's room
connectivity feature (:mod:`sokoban.solve._features`).

A room is a connected area of floor cells each of which lies in some all-floor block of
2 by 3 cells (either way round): a place where boxes can be stored and the player walks
around them. The floor cells in no such block form corridors; a corridor that touches two
rooms or more links them. A box in a link obstructs it: the player, and the boxes, must
go round by another way, or wait until it is moved on. Built once per level in plain
Python.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from sokoban.solve._board import Board

#: The all-floor blocks that make a cell part of a room: (width, height).
ROOM_BLOCKS = ((2, 3), (3, 2))


class Links(NamedTuple):
    """The links between rooms, each a run of cells: link ``i`` holds the floor cells
    ``cells[start[i]:start[i + 1]]`` (start int32[links + 1], cells int32[...]), the cells
    where a box can stand only (dead cells left out)."""

    start: np.ndarray
    cells: np.ndarray

    @property
    def nlinks(self) -> int:
        return len(self.start) - 1


def room_cells(board: Board) -> np.ndarray:
    """bool[n]: the floor cells that lie in an all-floor block of :data:`ROOM_BLOCKS`."""
    width = board.width
    height = len(board.index) // width
    floor = (board.index >= 0).reshape(height, width)
    room = np.zeros((height, width), dtype=bool)
    for w, h in ROOM_BLOCKS:
        for y in range(height - h + 1):
            for x in range(width - w + 1):
                if floor[y : y + h, x : x + w].all():
                    room[y : y + h, x : x + w] = True
    return room.ravel()[board.cells]


def _components(nbr: np.ndarray, inside: np.ndarray) -> np.ndarray:
    """int32[n]: the connected component of each cell where ``inside``, -1 elsewhere."""
    label = np.full(len(inside), -1, dtype=np.int32)
    count = 0
    for s in np.flatnonzero(inside):
        if label[s] >= 0:
            continue
        label[s] = count
        stack = [int(s)]
        while stack:
            c = stack.pop()
            for x in nbr[c]:
                if x >= 0 and inside[x] and label[x] < 0:
                    label[x] = count
                    stack.append(int(x))
        count += 1
    return label


def room_links(board: Board) -> Links:
    """The corridors of ``board`` that touch two rooms or more (:class:`Links`)."""
    nbr = board.nbr
    room = room_cells(board)
    rooms = _components(nbr, room)
    corridors = _components(nbr, ~room)
    runs: list[np.ndarray] = []
    for c in range(int(corridors.max()) + 1 if len(corridors) else 0):
        members = np.flatnonzero(corridors == c)
        touched = {int(rooms[x]) for m in members for x in nbr[m] if x >= 0 and room[x]}
        cells = members[board.dead[members] == 0]
        if len(touched) >= 2 and len(cells):
            runs.append(cells)
    start = np.zeros(len(runs) + 1, dtype=np.int32)
    start[1:] = np.cumsum([len(r) for r in runs])
    cells = np.concatenate(runs) if runs else np.zeros(0, dtype=np.int64)
    return Links(start, cells.astype(np.int32))


def no_links() -> Links:
    """No links: the room connectivity feature off."""
    return Links(np.zeros(1, dtype=np.int32), np.zeros(0, dtype=np.int32))
