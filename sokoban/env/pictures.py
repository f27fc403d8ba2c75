"""The ``rgb`` observation: the look of :mod:`sokoban.render`, assembled from one tile per
cell kind, so that a picture of a board costs one array lookup.

>>> import numpy as np
>>> picture = rgb(np.array([[0, 1, 5]], np.uint8), tiles(8))
>>> picture.shape, picture.dtype.name
((8, 24, 3), 'uint8')
"""

from __future__ import annotations

import functools
import io

import numpy as np

from sokoban import render
from sokoban.env._kernel import BOX, BOX_ON_GOAL, GOAL, PLAYER, PLAYER_ON_GOAL, WALL
from sokoban.level import Level


@functools.lru_cache(maxsize=16)
def tiles(cell: int) -> np.ndarray:
    """``uint8[7, cell, cell, 3]``: the picture of each cell kind, ``cell`` pixels a side,
    drawn by :func:`sokoban.render.png` over the floor's colour."""
    from PIL import Image

    one = frozenset((0,))
    none: frozenset[int] = frozenset()
    kinds = {
        WALL: dict(walls=one),
        GOAL: dict(goals=one),
        BOX: dict(boxes=one),
        BOX_ON_GOAL: dict(boxes=one, goals=one),
        PLAYER: dict(players=one),
        PLAYER_ON_GOAL: dict(players=one, goals=one),
    }
    floor = np.array(render._rgb(render.COLOURS["floor"]), np.float64)
    out = np.empty((7, cell, cell, 3), np.uint8)
    out[:] = floor.astype(np.uint8)
    for kind, cells in kinds.items():
        level = Level(
            1,
            1,
            cells.get("walls", none),
            cells.get("goals", none),
            cells.get("boxes", none),
            cells.get("players", none),
        )
        image = Image.open(io.BytesIO(render.png(level, cell=cell))).convert("RGBA")
        rgba = np.asarray(image, np.float64)
        alpha = rgba[:, :, 3:] / 255.0
        out[kind] = np.rint(rgba[:, :, :3] * alpha + floor * (1.0 - alpha)).astype(np.uint8)
    out.setflags(write=False)
    return out


def rgb(index: np.ndarray, tile: np.ndarray) -> np.ndarray:
    """``uint8[h * c, w * c, 3]``: the picture of an ``index`` board (``uint8[h, w]``) with
    the tiles of :func:`tiles`."""
    h, w = index.shape
    c = tile.shape[1]
    picture: np.ndarray = tile[index].transpose(0, 2, 1, 3, 4).reshape(h * c, w * c, 3)
    return picture
