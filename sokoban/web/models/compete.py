"""The JSON of players, scores, the daily challenge and races: one pydantic model per
request and answer (beside :mod:`sokoban.web.models`, the game's own)."""

from __future__ import annotations

import datetime
from typing import Annotated, Literal

from pydantic import BaseModel, Field

from sokoban.web.models.game import MAX_LURD, LevelOut, Optimal, Strict

#: A level id: ``collection/index`` or ``daily/YYYY-MM-DD``.
LevelId = Annotated[str, Field(min_length=3, max_length=120, pattern=r"^[A-Za-z0-9_.-]+/[0-9-]+$")]
Board = Literal["moves", "pushes"]
Band = Literal["easy", "medium", "hard", "expert"]
#: Most solutions one progress merge may carry.
MAX_MERGE = 500


class PlayerIn(Strict):
    name: str = Field(min_length=1, max_length=32, description="1-32 printable characters")


class PlayerOut(BaseModel):
    """A player and the secret token that signs its requests (shown only in this answer)."""

    id: int
    name: str
    token: str = Field(description="send as 'Authorization: Bearer <token>'; keep it secret")
    recovery: str | None = Field(
        None,
        description="the recovery code (sign-up only): with the name it signs in again "
        "(POST /api/players/recover) should the token be lost; keep it somewhere safe",
    )


class RecoverIn(Strict):
    name: str = Field(min_length=1, max_length=32)
    recovery: str = Field(min_length=1, max_length=60, description="the code sign-up gave")


class MeOut(BaseModel):
    id: int
    name: str
    streak: int = Field(description="days in a row, up to today or yesterday, daily solved")
    best_streak: int
    solved: int = Field(description="levels with a verified solution")


class TransferOut(BaseModel):
    code: str = Field(description="type it on the other device; single use")
    expires_at: datetime.datetime


class ClaimIn(Strict):
    code: str = Field(min_length=1, max_length=40)


class Best(BaseModel):
    moves: int
    pushes: int
    lurd: str
    assisted: bool = Field(False, description="made with a hint, the solver or the rewind")


class ProgressOut(BaseModel):
    levels: dict[str, dict[str, Best]] = Field(
        description="level id -> board (moves, pushes) -> the player's best solution"
    )


class SolutionIn(Strict):
    level_id: LevelId
    lurd: str = Field(max_length=MAX_LURD)
    assisted: bool = Field(False, description="made with a hint, the solver or the rewind")


class ProgressIn(Strict):
    solutions: list[SolutionIn] = Field(max_length=MAX_MERGE)


class Refused(BaseModel):
    level_id: str
    detail: str


class MergeOut(BaseModel):
    accepted: int
    refused: list[Refused]
    levels: dict[str, dict[str, Best]]


class ScoreIn(Strict):
    level_id: LevelId
    lurd: str = Field(min_length=1, max_length=MAX_LURD)
    seconds: float | None = Field(
        None, ge=0, le=86_400, description="how long the solve took (a ghost's pace only)"
    )
    assisted: bool = Field(
        False,
        description="the solve used a hint, the solver or the rewind: kept, never ranked",
    )


class ScoreOut(BaseModel):
    level_id: str
    moves: int
    pushes: int
    rank_moves: int | None = Field(description="null when the player has no ranked solve")
    rank_pushes: int | None = Field(description="null when the player has no ranked solve")
    improved: bool = Field(description="a new best of the player on either board")
    assisted: bool = Field(
        False, description="kept as assisted (the page said so, or the server helped)"
    )


class EntryOut(BaseModel):
    rank: int
    name: str
    moves: int
    pushes: int
    submitted_at: datetime.datetime


class LeaderboardOut(BaseModel):
    level_id: str
    board: Board
    optimal: Optimal | None = Field(
        description="the proven optimum where the server knows it: the fewest pushes and "
        "the moves of that push-optimal solution"
    )
    count: int = Field(description="players on the board")
    entries: list[EntryOut]
    me: EntryOut | None


class GhostOut(BaseModel):
    name: str
    lurd: str
    seconds: float = Field(description="how long the ghost takes to play it all")


class DailyOut(BaseModel):
    date: datetime.date
    band: Band
    level: LevelOut
    par: Optimal = Field(description="the optimum: fewest pushes, moves of that solution")
    next_at: datetime.datetime = Field(description="the next UTC midnight (next puzzle)")
    seconds_left: int


class DailySummary(BaseModel):
    date: datetime.date
    band: Band
    par: Optimal


class RaceIn(Strict):
    band: Band | None = None
    level_id: LevelId | None = None
    time_limit: int = Field(300, ge=10, le=3600, description="seconds")
    countdown: int = Field(5, ge=0, le=60, description="seconds from start to go")


class RaceCreated(BaseModel):
    code: str
    url: str


class RacerOut(BaseModel):
    name: str
    moves: int
    pushes: int
    boxes_on_goals: int
    finished: bool
    solved: bool
    seconds: float | None = Field(description="from the start to finishing")
    rank: int
    lurd: str | None = Field(description="the history, once the race is finished (replay)")


class RaceState(BaseModel):
    code: str
    status: Literal["waiting", "countdown", "running", "finished"]
    level: LevelOut | None = Field(
        description="the race's level, from the start on (null while waiting and counting down)"
    )
    boxes: int = Field(description="boxes on the board (all on goals is solved)")
    time_limit: int
    countdown: int
    starts_at: datetime.datetime | None
    ends_at: datetime.datetime | None
    now: datetime.datetime = Field(description="the server's clock, for countdowns")
    host: str
    version: int
    players: list[RacerOut]
