"""Daily routes: today's level, a past day's, the archive (the levels themselves are made
by :mod:`sokoban.web.services.daily_maker`)."""

from __future__ import annotations

import asyncio
import datetime
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Path

from sokoban.errors import LevelNotFoundError
from sokoban.records import now
from sokoban.web.models.compete import DailyOut, DailySummary
from sokoban.web.models.game import ErrorOut, Optimal
from sokoban.web.routers.deps import BAD, compete
from sokoban.web.services.compete import Compete
from sokoban.web.services.daily_maker import daily_out

router = APIRouter(prefix="/api", tags=["daily"], responses=BAD)

NOT_READY: dict[int | str, dict[str, Any]] = {
    503: {"model": ErrorOut, "description": "the level is still being made"}
}


@router.get("/daily", response_model=DailyOut, responses=NOT_READY)
async def today(c: Annotated[Compete, Depends(compete)]) -> DailyOut:
    """Today's (UTC) level, its par, and when the next one comes. Its leaderboard is the
    leaderboard of level ``daily/YYYY-MM-DD``."""
    return daily_out(await c.daily.row(now().date()))


@router.get("/daily/archive", response_model=list[DailySummary])
async def archive(c: Annotated[Compete, Depends(compete)]) -> list[DailySummary]:
    """Past days and today, newest first (a year at most)."""
    rows = await asyncio.to_thread(c.records.daily_days, now().date())
    return [
        DailySummary(date=r.day, band=r.band, par=Optimal(moves=r.moves, pushes=r.pushes))  # type: ignore[arg-type]
        for r in rows
    ]


@router.get(
    "/daily/{day}",
    response_model=DailyOut,
    responses={404: {"model": ErrorOut, "description": "a day to come or not stored"}, **NOT_READY},
)
async def on_day(
    day: Annotated[datetime.date, Path(description="YYYY-MM-DD")],
    c: Annotated[Compete, Depends(compete)],
) -> DailyOut:
    """A past day's level (or today's); days to come are not shown."""
    today_ = now().date()
    if day > today_:
        raise LevelNotFoundError(f"no daily level for {day} yet: it is still to come")
    if day < today_:
        row = await asyncio.to_thread(c.records.daily, day)
        if row is None:
            raise LevelNotFoundError(f"no daily level for {day}: the archive starts later")
        return daily_out(row)
    return daily_out(await c.daily.row(day))
