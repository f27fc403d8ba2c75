"""The daily challenge: one level per UTC day, the same for everyone, made ahead and stored.

A day's level comes from the generator (:func:`sokoban.generate.generate`) with a seed
derived from the date and the band of its weekday (:data:`WEEKDAY_BANDS`: easy on Monday
up to expert on Sunday); the generator solves it push-optimally, and that solution's
pushes and moves are the day's par. Levels are made for today and the next
``daily_ahead`` days at start-up, in a background process (the generator costs CPU
seconds), and stored: a day's level is read from the database from then on, so a later
change to the generator never alters a past day, and server processes sharing a database
agree (the first one stored wins).

A request for a day not made yet waits for it at most :data:`WAIT` seconds, then is
answered 503 with Retry-After.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import datetime
import hashlib
import logging
import multiprocessing
import os
from collections.abc import Callable

from fastapi import HTTPException

from sokoban.errors import LevelNotFoundError
from sokoban.records import DailyRow, Records, now
from sokoban.web.models.compete import DailyOut
from sokoban.web.models.game import Optimal
from sokoban.web.services.compete import DAILY, Resolved, resolved_daily

log = logging.getLogger("sokoban.web.daily")

#: The band of each weekday, Monday first.
WEEKDAY_BANDS = ("easy", "easy", "medium", "medium", "hard", "hard", "expert")
#: What the generator is asked for in each band: board size, boxes, layout.
BAND_PLAN: dict[str, tuple[tuple[int, int], int, str]] = {
    "easy": ((8, 8), 3, "walk"),
    "medium": ((9, 9), 4, "walk"),
    "hard": ((10, 10), 4, "walk"),
    "expert": ((11, 10), 5, "rooms"),
}
#: Seconds a request waits for a day's level still being made.
WAIT = 10.0


def band_of(day: datetime.date) -> str:
    return WEEKDAY_BANDS[day.weekday()]


def seed_of(day: datetime.date) -> int:
    """The generator's seed for ``day``: from a hash of the date, so days do not follow
    each other in any visible way."""
    digest = hashlib.sha256(f"sokoban daily {day.isoformat()}".encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 1


def make_daily(day: datetime.date) -> DailyRow:
    """Generate ``day``'s level (deterministic for a generator release). Tries further
    seeds, then drops the band, should a seed find nothing in its budget."""
    from sokoban.generate import generate

    band = band_of(day)
    size, boxes, layout = BAND_PLAN[band]
    seed = seed_of(day)
    for attempt in range(4):
        report = generate(
            size,
            boxes,
            1,
            difficulty=band if attempt < 3 else None,
            seed=seed + attempt,
            layout=layout,
            workers=0,
            seconds=30.0,
            budget=60.0,
        )
        if report.levels:
            made = report.levels[0]
            return DailyRow(
                day=day,
                band=band,
                xsb=made.level.xsb(),
                solution=made.solution.lurd(),
                moves=made.solution.moves,
                pushes=made.solution.pushes,
                seed=seed + attempt,
            )
    raise RuntimeError(f"the generator made no level for {day}")


def _nice() -> None:
    # The generator must not slow the requests the server answers.
    os.nice(10)


def _title(day: datetime.date) -> str:
    return f"Daily {day.isoformat()}"


class DailyMaker:
    """Makes and reads the daily levels of a server."""

    def __init__(
        self,
        records: Records,
        ahead: int,
        maker: Callable[[datetime.date], DailyRow] | None = None,
    ) -> None:
        self.records = records
        self.ahead = ahead
        self.maker = maker
        self._made: dict[datetime.date, asyncio.Future[None]] = {}
        self._task: asyncio.Task[None] | None = None
        self._executor: concurrent.futures.ProcessPoolExecutor | None = None

    async def start(self) -> None:
        """Start making today's level and the next days' (in the background)."""
        if self.ahead >= 0:
            self._task = asyncio.create_task(self._make_ahead())

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            try:
                await self._task
            except (asyncio.CancelledError, Exception):
                pass
        if self._executor is not None:
            # A level being made is abandoned: its process is stopped, not waited for.
            processes = list(getattr(self._executor, "_processes", {}).values())
            self._executor.shutdown(wait=False, cancel_futures=True)
            for process in processes:
                process.terminate()
            self._executor = None

    async def _make_ahead(self) -> None:
        while True:
            today = now().date()
            days = [today + datetime.timedelta(days=i) for i in range(self.ahead + 1)]
            try:
                await self.ensure(days)
            except Exception:  # logged; tried again later, a request for the day says 503
                log.exception("making the daily levels from %s", today)
            # Again after the next midnight: one more day ahead.
            tomorrow = datetime.datetime.combine(
                today + datetime.timedelta(days=1), datetime.time(), datetime.UTC
            )
            await asyncio.sleep(max(60.0, (tomorrow - now()).total_seconds() + 1))

    async def ensure(self, days: list[datetime.date]) -> None:
        """Make and store the levels of ``days`` that are not stored yet, in order; a day
        being made already (for another caller) is waited for, not made twice."""
        stored = await asyncio.to_thread(self.records.stored_days, days)
        for day in days:
            if day in stored:
                continue
            future = self._made.get(day)
            if future is not None:
                await asyncio.shield(future)
                continue
            future = asyncio.get_running_loop().create_future()
            self._made[day] = future
            try:
                row = await self._make(day)
                await asyncio.to_thread(self.records.add_daily, row)
            except Exception as error:
                future.set_exception(error)
                future.exception()  # marked as retrieved: the caller gets the error
                del self._made[day]
                raise
            future.set_result(None)

    async def _make(self, day: datetime.date) -> DailyRow:
        if self.maker is not None:
            return await asyncio.to_thread(self.maker, day)
        if self._executor is None:
            self._executor = concurrent.futures.ProcessPoolExecutor(
                1, mp_context=multiprocessing.get_context("spawn"), initializer=_nice
            )
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._executor, make_daily, day)

    async def row(self, day: datetime.date) -> DailyRow:
        """``day``'s stored level, made now if need be (waiting at most :data:`WAIT`)."""
        row = await asyncio.to_thread(self.records.daily, day)
        if row is not None:
            return row
        try:
            await asyncio.wait_for(asyncio.shield(asyncio.ensure_future(self.ensure([day]))), WAIT)
        except TimeoutError:
            raise HTTPException(
                503, f"the level of {day} is still being made", {"Retry-After": "5"}
            ) from None
        except Exception:
            raise HTTPException(
                503, f"the level of {day} could not be made; try later", {"Retry-After": "60"}
            ) from None
        row = await asyncio.to_thread(self.records.daily, day)
        if row is None:
            raise HTTPException(503, f"the level of {day} is not ready", {"Retry-After": "5"})
        return row

    def resolve(self, day: datetime.date, today: datetime.date | None = None) -> Resolved:
        """A stored day's level (no waiting: scores and races need it stored already)."""
        today = today or now().date()
        if day > today:
            raise LevelNotFoundError(f"no daily level for {day} yet: it is still to come")
        row = self.records.daily(day)
        if row is None:
            raise LevelNotFoundError(f"no daily level for {day}")
        return resolved_from(row)


def resolved_from(row: DailyRow) -> Resolved:
    day = row.day
    index = day.year * 10_000 + day.month * 100 + day.day
    return resolved_daily(
        f"{DAILY}/{day.isoformat()}",
        row.xsb,
        _title(day),
        index,
        row.moves,
        row.pushes,
        row.solution,
    )


def daily_out(row: DailyRow) -> DailyOut:
    resolved = resolved_from(row)
    current = now()
    next_at = datetime.datetime.combine(
        current.date() + datetime.timedelta(days=1), datetime.time(), datetime.UTC
    )
    return DailyOut(
        date=row.day,
        band=row.band,  # type: ignore[arg-type]
        level=resolved.out,
        par=Optimal(moves=row.moves, pushes=row.pushes),
        next_at=next_at,
        seconds_left=max(0, int((next_at - current).total_seconds())),
    )
