"""The competitive side's state (:class:`Compete`, on ``app.state.compete``): the records,
the rate limits, the daily maker, the race hub, and the levels scores are verified on
(:class:`LevelResolver`). :func:`sokoban.web.app.create_app` builds it.
"""

from __future__ import annotations

import dataclasses
import datetime
import functools
import math
import re
from typing import TYPE_CHECKING

from fastapi import HTTPException, Request

from sokoban.errors import LevelNotFoundError
from sokoban.level import Level
from sokoban.records import Player, Records
from sokoban.web.models.convert import level_out
from sokoban.web.models.game import LevelOut, Optimal
from sokoban.web.services.ratelimit import RateLimiter

if TYPE_CHECKING:
    from sokoban.web.services.daily_maker import DailyMaker
    from sokoban.web.services.fair import FairPlay
    from sokoban.web.services.library import Library
    from sokoban.web.services.race_hub import RaceHub
    from sokoban.web.settings import AppState

DAILY = "daily"
_DAY_ID = re.compile(r"^daily/(\d{4}-\d{2}-\d{2})$")
_LEVEL_ID = re.compile(r"^([A-Za-z0-9_.-]+)/(\d{1,9})$")
#: Race messages per second per player (bursts of four times as many): a client sends its
#: history at most every 100 ms or so; a dropped one is caught up by the next.
MESSAGE_RATE = 20.0
#: Sign-ups a second per client address, by default (a burst of :data:`SIGNUP_BURST`).
SIGNUP_RATE = 1 / 60
SIGNUP_BURST = 5
#: Tokens remembered by a server process.
KNOWN_TOKENS = 100_000


@dataclasses.dataclass(frozen=True)
class Resolved:
    """A level a score or race can be played on: the board, its JSON, its optimum."""

    id: str
    level: Level
    out: LevelOut
    optimal: Optimal | None
    #: The push-optimal solution, where known (for the ghost).
    solution: str | None


def daily_day(level_id: str) -> datetime.date | None:
    """The day of a daily level's id (``daily/YYYY-MM-DD``), ``None`` for other ids."""
    day = _DAY_ID.match(level_id)
    return None if day is None else parse_day(day.group(1))


def parse_day(text: str) -> datetime.date:
    try:
        return datetime.date.fromisoformat(text)
    except ValueError:
        raise LevelNotFoundError(f"no day {text!r}: dates are YYYY-MM-DD") from None


@functools.lru_cache(maxsize=4096)
def _parsed(xsb: str) -> Level:
    return Level.from_xsb(xsb)


def resolved_daily(
    level_id: str, xsb: str, title: str, index: int, moves: int, pushes: int, solution: str
) -> Resolved:
    """A daily level as a :class:`Resolved` (its solution kept out of the JSON)."""
    level = _parsed(xsb).with_metadata(title=title)
    out = level_out(level, DAILY, index).model_copy(update={"id": level_id})
    return Resolved(level_id, level, out, Optimal(moves=moves, pushes=pushes), solution)


class LevelResolver:
    """Level ids to levels: ``collection/number`` from the library, ``daily/YYYY-MM-DD``
    from the daily maker."""

    def __init__(self, library: Library, daily: DailyMaker) -> None:
        self.library = library
        self.daily = daily

    def resolve(self, level_id: str, today: datetime.date | None = None) -> Resolved:
        """The level ``level_id`` names; :class:`LevelNotFoundError` (404) if none, and for
        a daily level of a day still to come."""
        if level_id.startswith(f"{DAILY}/"):
            day = daily_day(level_id)
            if day is not None:
                return self.daily.resolve(day, today)
        match = _LEVEL_ID.match(level_id)
        if match is None:
            raise LevelNotFoundError(
                f"no level {level_id!r}: ids are collection/number or daily/YYYY-MM-DD"
            )
        out = self.library.level(match.group(1), int(match.group(2)))
        return Resolved(level_id, _parsed(out.xsb), out, out.optimal, out.solution)


@dataclasses.dataclass
class Compete:
    """The competitive side's state, on ``app.state.compete``."""

    app: AppState
    records: Records
    levels: LevelResolver
    player_limit: RateLimiter
    address_limit: RateLimiter
    #: Race messages, per player and per address.
    message_limit: RateLimiter
    #: Sign-ups per client address.
    signup_limit: RateLimiter
    daily: DailyMaker
    hub: RaceHub
    #: The boards competed on now, and the boards the solver helped each player with.
    fair: FairPlay
    #: Lifespans running (the first starts the background work, the last stops it).
    users: int = 0
    #: Token hash -> player, for tokens seen (see :func:`sokoban.web.routers.deps.player_of`).
    known: dict[str, Player] = dataclasses.field(default_factory=dict)

    def resolve(self, level_id: str, today: datetime.date | None = None) -> Resolved:
        return self.levels.resolve(level_id, today)

    def limit(self, request: Request, player: Player | None) -> None:
        """Spend one action of the player and of the client's address: 429 past a limit."""
        waits = [self.address_limit.take(f"a:{client_address(request)}")]
        if player is not None:
            waits.append(self.player_limit.take(f"p:{player.id}"))
        too_many(max(waits))


def too_many(wait: float) -> None:
    """429 with Retry-After when a rate limiter says to wait ``wait`` seconds."""
    if wait > 0:
        raise HTTPException(
            429,
            "too many requests: slow down",
            headers={"Retry-After": str(max(1, math.ceil(wait)))},
        )


def client_address(request: Request) -> str:
    return request.client.host if request.client is not None else "unknown"
