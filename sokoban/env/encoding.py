"""Levels as the environment's arrays, and back: the ``index`` board of one level.

A level is drawn in a frame of ``height x width`` cells, at its top left, and every cell
the player can never reach is a wall (the padding, and the space outside the level's
walls), except boxes and goals there, which keep their kind. The player never walks onto
such a cell, so the moves are the level's own.

>>> from sokoban import Level
>>> board = encode(Level.from_xsb("#####\\n#@$.#\\n#####"), (3, 6))
>>> board.index.tolist()
[[0, 0, 0, 0, 0, 0], [0, 5, 3, 2, 0, 0], [0, 0, 0, 0, 0, 0]]
>>> board.player, board.off
(7, 1)
"""

from __future__ import annotations

import dataclasses

import numpy as np

from sokoban.env._kernel import (
    BOX,
    BOX_ON_GOAL,
    FLOOR,
    GOAL,
    PLAYER,
    PLAYER_ON_GOAL,
    WALL,
)
from sokoban.errors import InvalidLevelError
from sokoban.level import Level

#: The XSB character of each cell kind of the ``index`` observation.
CHARACTERS = "# .$*@+"


@dataclasses.dataclass(frozen=True, slots=True)
class Encoded:
    """One level in a frame: ``index`` (``uint8[height, width]``), the player's frame cell
    and the number of boxes off goals."""

    index: np.ndarray
    player: int
    off: int


def check_playable(level: Level) -> None:
    """Raise :class:`InvalidLevelError` quoting the level's title for a level with problems."""
    problems = level.problems()
    if problems:
        name = f"level {level.title!r}" if level.title else "the level"
        raise InvalidLevelError(f"{name} cannot be played: {'; '.join(problems)}")


def encode(level: Level, shape: tuple[int, int] | None = None) -> Encoded:
    """``level`` (a playable one) in a frame of ``shape`` = ``(height, width)`` cells,
    its own size by default."""
    check_playable(level)
    height, width = shape if shape is not None else (level.height, level.width)
    if level.height > height or level.width > width:
        raise InvalidLevelError(
            f"level {level.title!r} of {level.width} x {level.height} cells does not fit "
            f"the environment's {width} x {height} frame"
        )
    index = np.full((height, width), WALL, np.uint8)
    w = level.width
    for cell in level.interior:
        index[cell // w, cell % w] = FLOOR
    for cell in level.goals:
        index[cell // w, cell % w] = GOAL
    for cell in level.boxes:
        index[cell // w, cell % w] = BOX_ON_GOAL if cell in level.goals else BOX
    player = min(level.players)
    y, x = divmod(player, w)
    index[y, x] = PLAYER_ON_GOAL if player in level.goals else PLAYER
    off = len(level.boxes - level.goals)
    return Encoded(index, y * width + x, off)


def position(level: Level, index: np.ndarray) -> Level:
    """The position of ``level`` that the ``index`` board (in any frame) shows."""
    w = level.width
    rows, cols = np.nonzero((index == BOX) | (index == BOX_ON_GOAL))
    boxes = [int(y) * w + int(x) for y, x in zip(rows, cols, strict=True)]
    rows, cols = np.nonzero((index == PLAYER) | (index == PLAYER_ON_GOAL))
    return level.moved(boxes=boxes, player=int(rows[0]) * w + int(cols[0]))


def text(index: np.ndarray) -> str:
    """The ``index`` board as XSB rows, trailing walls of the padding kept."""
    return "\n".join("".join(CHARACTERS[k] for k in row) for row in index.tolist())
