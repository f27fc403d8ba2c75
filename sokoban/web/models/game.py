"""The JSON the web API reads and writes: one pydantic model per request and answer.

Cells are ``[row, col]``, 0-based. A request that carries a position takes ``level`` as
XSB text or as a :class:`LevelJson` object (see :func:`sokoban.web.models.convert.to_level`).
Sizes are capped here, before anything is built: the model's own limits (100 cells a
side) and list lengths that no real board needs.
"""

from __future__ import annotations

import dataclasses
import typing
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, create_model

from sokoban.level import MAX_SIDE
from sokoban.lurd import Metrics

#: Longest XSB/SOK text a request may carry, in characters (the body is capped too).
MAX_TEXT = 1_000_000
#: Longest LURD a request may carry.
MAX_LURD = 200_000
#: Most cells a list of a :class:`LevelJson` may hold.
MAX_CELLS = MAX_SIDE * MAX_SIDE

Cell = Annotated[list[Annotated[int, Field(ge=0, lt=MAX_SIDE)]], Field(min_length=2, max_length=2)]
Xsb = Annotated[str, Field(min_length=1, max_length=MAX_TEXT, description="XSB or SOK text")]


class Strict(BaseModel):
    # Unknown fields are refused: a typo in a field name is an error, not a silent default.
    model_config = ConfigDict(extra="forbid")


class LevelJson(Strict):
    """A position as JSON: the board size and its cells as ``[row, col]``."""

    width: int = Field(ge=1, le=MAX_SIDE)
    height: int = Field(ge=1, le=MAX_SIDE)
    walls: list[Cell] = Field(max_length=MAX_CELLS)
    goals: list[Cell] = Field(max_length=MAX_CELLS)
    boxes: list[Cell] = Field(max_length=MAX_CELLS)
    player: Cell | None = None


LevelIn = Annotated[
    Xsb | LevelJson, Field(description="the position, as XSB text or as a LevelJson object")
]


class Optimal(BaseModel):
    """The level's optimal solution: the fewest pushes, and the moves of that solution."""

    moves: int
    pushes: int


class LevelOut(BaseModel):
    """A level for the game: its cells for drawing, its XSB, and its stored solution."""

    id: str = Field(description="collection/index")
    collection: str
    index: int = Field(description="1-based position in its collection")
    title: str | None
    metadata: dict[str, str]
    width: int
    height: int
    walls: list[list[int]]
    floor: list[list[int]] = Field(description="the interior cells (inside the walls)")
    goals: list[list[int]]
    boxes: list[list[int]]
    player: list[int] | None
    xsb: str
    solution: str | None = Field(description="the level's own first solution, LURD")
    optimal: Optimal | None
    problems: list[str] = Field(
        default_factory=list, description="what makes the level unplayable, empty if none"
    )


class CollectionSummary(BaseModel):
    id: str
    title: str
    count: int
    description: str
    editable: bool


class CollectionOut(BaseModel):
    id: str
    title: str
    count: int
    offset: int
    levels: list[LevelOut]


class MethodOut(BaseModel):
    name: str
    description: str
    optimises: str
    optimal: bool


class SolveIn(Strict):
    level: LevelIn
    method: str = Field("fast", max_length=40)
    time_limit: float | None = Field(
        None, gt=0, le=30, description="seconds, at most 30; the server's default (5) if null"
    )


class SolveOut(BaseModel):
    status: str = Field(description="solved, unsolvable, time limit, node limit or memory limit")
    lurd: str | None
    moves: int | None
    pushes: int | None
    optimal: bool
    seconds: float
    message: str
    method: str
    cached: bool


class CheckIn(Strict):
    level: LevelIn


class CheckOut(BaseModel):
    dead: bool
    reason: str | None = Field(
        description=(
            "dead square, freeze, two boxes, bipartite, corral or tangle; null when not dead"
        )
    )
    dead_boxes: list[list[int]]


class RewindIn(Strict):
    level: LevelIn
    lurd: str = Field(max_length=MAX_LURD)
    time_limit: float | None = Field(
        None, gt=0, le=30, description="seconds per solve, at most 30; default as /api/solve"
    )


class RewindOut(BaseModel):
    steps: int = Field(description="LURD steps kept from the history")
    lurd: str = Field(description="the history cut to its last solvable position")
    status: str = Field(
        description="solved when that position was proven solvable, else why not proven"
    )
    solution: str | None = Field(description="a solution from the kept position, LURD")


class VerifyIn(Strict):
    level: LevelIn
    solution: str = Field(max_length=MAX_LURD)


_METRIC_TYPES = typing.get_type_hints(Metrics)
#: Whether a solution solves its position, and its metrics: the fields of
#: :class:`sokoban.lurd.Metrics`, declared there once.
VerifyOut = create_model(
    "VerifyOut",
    solved=(bool, ...),
    **{f.name: (_METRIC_TYPES[f.name], ...) for f in dataclasses.fields(Metrics)},  # type: ignore[call-overload]
)


class ParseIn(Strict):
    text: str = Field(max_length=MAX_TEXT, description="XSB or SOK text, RLE rows allowed")


class ParseError(BaseModel):
    line: int | None
    message: str


class ParseOut(BaseModel):
    levels: list[LevelOut]
    errors: list[ParseError]


class SaveIn(Strict):
    level: Xsb
    title: str | None = Field(None, max_length=200)


class ErrorOut(BaseModel):
    """Every 4xx (and 503) answer: one line saying what was wrong."""

    detail: str


class StepErrorOut(BaseModel):
    """An illegal step of a solution: the reason and the step's 0-based index."""

    detail: str
    step: int


class HealthOut(BaseModel):
    status: Literal["ok"]
    version: str
    solvers: int
