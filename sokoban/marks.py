"""What a picture can highlight: dead squares, the player's reach, the boxes' paths.

Plain Python over a :class:`~sokoban.level.Level`, for drawing (the solver keeps its own
tables). :func:`marks` gathers them as :class:`Marks`: cells to fill and arrows to draw,
as ``chess.svg.board`` takes fills and arrows.

>>> from sokoban import Level
>>> level = Level.from_xsb("######\\n#@$ .#\\n#    #\\n######")
>>> sorted(level.xy(c) for c in dead_squares(level))
[(1, 1), (1, 2), (2, 2), (3, 2), (4, 2)]
"""

from __future__ import annotations

import dataclasses
from collections import deque
from collections.abc import Iterable
from typing import TYPE_CHECKING

from sokoban.direction import DIRECTIONS

if TYPE_CHECKING:
    from sokoban.level import Level
    from sokoban.lurd import Replay

#: The kinds of mark :func:`marks` knows.
KINDS = ("dead", "reach", "path")

#: Fill colours of the marked cells, as ``#rrggbb`` (drawn translucent over the floor).
MARK_COLOURS = {"dead": "#d64541", "reach": "#4a90e2", "path": "#2e8b57"}


@dataclasses.dataclass(frozen=True, slots=True)
class Marks:
    """Highlights for a picture: ``fill`` maps a cell to a ``#rrggbb`` colour, ``arrows``
    are ``(from cell, to cell, colour)`` drawn over everything."""

    fill: dict[int, str] = dataclasses.field(default_factory=dict)
    arrows: tuple[tuple[int, int, str], ...] = ()

    def __bool__(self) -> bool:
        return bool(self.fill or self.arrows)


def dead_squares(level: Level) -> frozenset[int]:
    """Interior cells, goals aside, from which a box alone on the board reaches no goal,
    wherever the player starts.

    A backward search of pulls from every goal over (box cell, player region) states: a
    cell is alive when some state with the box on it is reached.
    """
    interior = level.interior - level.walls
    offsets = []
    for direction in DIRECTIONS:
        offsets.append((direction.dx, direction.dy))

    def step(cell: int, dx: int, dy: int) -> int | None:
        x, y = cell % level.width + dx, cell // level.width + dy
        if 0 <= x < level.width and 0 <= y < level.height:
            n = y * level.width + x
            return n if n in interior else None
        return None

    def region(player: int, box: int) -> frozenset[int]:
        return level._flood([player], blocked=frozenset({box}))

    seen: set[tuple[int, int]] = set()
    todo: deque[tuple[int, frozenset[int]]] = deque()

    def visit(box: int, player: int) -> None:
        reach = region(player, box)
        key = (box, min(reach))
        if key not in seen:
            seen.add(key)
            todo.append((box, reach))

    for goal in level.goals & interior:
        for dx, dy in offsets:
            n = step(goal, dx, dy)
            if n is not None:
                visit(goal, n)
    while todo:
        box, reach = todo.popleft()
        for dx, dy in offsets:
            # The player stands beside the box and steps back, pulling it after them.
            stand = step(box, dx, dy)
            if stand is None or stand not in reach:
                continue
            back = step(stand, dx, dy)
            if back is not None:
                visit(stand, back)
    alive = {box for box, _ in seen}
    return frozenset(interior - level.goals - alive)


def box_paths(replay: Replay) -> list[tuple[int, int]]:
    """The boxes' moves of a replayed solution as ``(from cell, to cell)`` straight lines:
    one per run of pushes of one box in one direction (a box line)."""
    level = replay.final
    lines: list[tuple[int, int]] = []
    pushes = iter(replay.pushed_cells)
    last: tuple[str, int] | None = None  # direction and the box's cell after the last push
    previous_push = False
    for direction, push in replay.solution:
        if not push:
            previous_push = False
            continue
        cell = next(pushes)
        after = level.neighbour(cell, direction)
        assert after is not None
        if previous_push and last == (direction.value, cell) and lines:
            lines[-1] = (lines[-1][0], after)
        else:
            lines.append((cell, after))
        last = (direction.value, after)
        previous_push = True
    return lines


def parse_kinds(text: str) -> tuple[str, ...]:
    """``"dead,reach"`` as ``("dead", "reach")``; ValueError quoting an unknown kind.

    >>> parse_kinds("reach, dead")
    ('reach', 'dead')
    """
    kinds = tuple(part.strip() for part in text.split(",") if part.strip())
    for kind in kinds:
        if kind not in KINDS:
            raise ValueError(f"unknown mark {kind!r} in {text!r}: choose from {', '.join(KINDS)}")
    return kinds


def marks(level: Level, kinds: Iterable[str], replay: Replay | None = None) -> Marks:
    """The highlights of ``kinds`` (see :data:`KINDS`) on ``level``: ``"dead"`` fills the
    dead squares, ``"reach"`` the cells the player walks to, ``"path"`` draws an arrow per
    box line of ``replay`` (which it needs)."""
    fill: dict[int, str] = {}
    arrows: tuple[tuple[int, int, str], ...] = ()
    for kind in kinds:
        if kind == "dead":
            fill.update(dict.fromkeys(dead_squares(level), MARK_COLOURS["dead"]))
        elif kind == "reach":
            reach = level.reachable() - level.walls
            fill.update(dict.fromkeys(reach, MARK_COLOURS["reach"]))
        elif kind == "path":
            if replay is None:
                raise ValueError("the 'path' mark needs a solution")
            colour = MARK_COLOURS["path"]
            arrows = tuple((a, b, colour) for a, b in box_paths(replay))
        else:
            raise ValueError(f"unknown mark {kind!r}: choose from {', '.join(KINDS)}")
    return Marks(fill, arrows)
