"""Levels to and from the API's JSON: :func:`to_level` reads a position, :func:`level_out`
writes a level for the game."""

from __future__ import annotations

from sokoban.errors import SokobanError
from sokoban.level import Level
from sokoban.lurd import replay
from sokoban.web.models.game import LevelIn, LevelJson, LevelOut, Optimal


def _cells(level: Level, cells: frozenset[int]) -> list[list[int]]:
    width = level.width
    return [[c // width, c % width] for c in sorted(cells)]


def to_level(value: LevelIn) -> Level:
    """The position a request carries: XSB text (one level) or a :class:`LevelJson`.

    Raises :class:`SokobanError` (a 422) for text that is not one level or cells that
    clash (a box on a wall, a cell off the board).
    """
    if isinstance(value, str):
        return Level.from_xsb(value)
    return from_json(value)


def from_json(value: LevelJson) -> Level:
    width, height = value.width, value.height

    def cells(name: str, pairs: list[list[int]]) -> frozenset[int]:
        out = set()
        for row, col in pairs:
            if row >= height or col >= width:
                raise SokobanError(
                    f"{name} cell [{row}, {col}] is off the {width} x {height} board"
                )
            out.add(row * width + col)
        return frozenset(out)

    players = cells("player", [value.player]) if value.player is not None else frozenset()
    try:
        return Level(
            width,
            height,
            cells("walls", value.walls),
            cells("goals", value.goals),
            cells("boxes", value.boxes),
            players,
        )
    except SokobanError:
        raise
    except ValueError as error:  # clashing cells: the model's own message, made ours
        raise SokobanError(str(error)) from None


def metadata(level: Level) -> dict[str, str]:
    """The level's header fields as strings: Author, Comment, then its other keys."""
    out: dict[str, str] = {}
    if level.author:
        out["Author"] = level.author
    if level.comment:
        out["Comment"] = level.comment
    for key, value in level.metadata:
        out.setdefault(key, value)
    return out


def level_out(level: Level, collection: str, index: int, optimal: bool = False) -> LevelOut:
    """``level`` as the game draws it. ``optimal``: its first stored solution is known to
    be push-optimal (the built-in collection), so its moves and pushes are reported."""
    solution = level.solutions[0] if level.solutions else None
    best = None
    if solution is not None and optimal:
        try:
            metrics = replay(level, solution).metrics
            best = Optimal(moves=metrics.moves, pushes=metrics.pushes)
        except SokobanError:
            solution = None  # a stored solution that does not play is not offered
    interior = level.interior - level.walls if level.players else frozenset()
    player = level.player
    return LevelOut(
        id=f"{collection}/{index}",
        collection=collection,
        index=index,
        title=level.title or None,
        metadata=metadata(level),
        width=level.width,
        height=level.height,
        walls=_cells(level, level.walls),
        floor=_cells(level, interior),
        goals=_cells(level, level.goals),
        boxes=_cells(level, level.boxes),
        player=None if player is None else [player // level.width, player % level.width],
        xsb=level.xsb(),
        solution=solution,
        optimal=best,
        problems=level.problems(),
    )
