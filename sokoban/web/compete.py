"""What the competitive routes share: the records, the rate limits, who is asking, and the
levels scores are verified on.

:func:`install` adds the routes of :mod:`~sokoban.web.players`, :mod:`~sokoban.web.scores`,
:mod:`~sokoban.web.daily` and :mod:`~sokoban.web.race` to an application;
:func:`running` starts and stops their background work (daily levels made ahead, the race
hub) with the application.
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime
import functools
import math
import re
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Annotated, Any

from fastapi import Depends, FastAPI, HTTPException, Request

from sokoban.errors import LevelNotFoundError
from sokoban.level import Level
from sokoban.records import Player, Records, hash_secret
from sokoban.web.convert import level_out
from sokoban.web.models import ErrorOut, LevelOut, Optimal
from sokoban.web.ratelimit import RateLimiter

if TYPE_CHECKING:
    from sokoban.web.daily import DailyMaker
    from sokoban.web.race import RaceHub
    from sokoban.web.settings import AppState

DAILY = "daily"
#: The 422 of every competitive route: one line, not FastAPI's list of errors.
BAD: dict[int | str, dict[str, Any]] = {
    422: {"model": ErrorOut, "description": "the request is malformed"}
}
_DAY_ID = re.compile(r"^daily/(\d{4}-\d{2}-\d{2})$")
#: Tokens remembered by a server process.
KNOWN_TOKENS = 100_000
_LEVEL_ID = re.compile(r"^([A-Za-z0-9_.-]+)/(\d{1,9})$")


@dataclasses.dataclass(frozen=True)
class Resolved:
    """A level a score or race can be played on: the board, its JSON, its optimum."""

    id: str
    level: Level
    out: LevelOut
    optimal: Optimal | None
    #: The push-optimal solution, where known (for the ghost).
    solution: str | None


@dataclasses.dataclass
class Compete:
    """The competitive side's state, on ``app.state.compete``."""

    app: AppState
    records: Records
    player_limit: RateLimiter
    address_limit: RateLimiter
    daily: DailyMaker
    hub: RaceHub
    #: Lifespans running (see :func:`running`).
    users: int = 0
    #: Token hash -> player, for tokens seen (see :func:`player_of`).
    known: dict[str, Player] = dataclasses.field(default_factory=dict)

    def resolve(self, level_id: str, today: datetime.date | None = None) -> Resolved:
        """The level ``level_id`` names; :class:`LevelNotFoundError` (404) if none, and for
        a daily level of a day still to come."""
        day = _DAY_ID.match(level_id)
        if day is not None:
            return self.daily.resolve(_parse_day(day.group(1)), today)
        match = _LEVEL_ID.match(level_id)
        if match is None:
            raise LevelNotFoundError(
                f"no level {level_id!r}: ids are collection/number or daily/YYYY-MM-DD"
            )
        out = self.app.library.level(match.group(1), int(match.group(2)))
        return _resolved(level_id, out)

    def limit(self, request: Request, player: Player | None) -> None:
        """Spend one action of the player and of the client's address: 429 past a limit."""
        waits = [self.address_limit.take(f"a:{client_address(request)}")]
        if player is not None:
            waits.append(self.player_limit.take(f"p:{player.id}"))
        wait = max(waits)
        if wait > 0:
            raise HTTPException(
                429,
                "too many requests: slow down",
                headers={"Retry-After": str(max(1, math.ceil(wait)))},
            )


def _parse_day(text: str) -> datetime.date:
    try:
        return datetime.date.fromisoformat(text)
    except ValueError:
        raise LevelNotFoundError(f"no day {text!r}: dates are YYYY-MM-DD") from None


@functools.lru_cache(maxsize=4096)
def _parsed(xsb: str) -> Level:
    return Level.from_xsb(xsb)


def _resolved(level_id: str, out: LevelOut) -> Resolved:
    return Resolved(level_id, _parsed(out.xsb), out, out.optimal, out.solution)


def resolved_daily(
    level_id: str, xsb: str, title: str, index: int, moves: int, pushes: int, solution: str
) -> Resolved:
    """A daily level as a :class:`Resolved` (its solution kept out of the JSON)."""
    level = _parsed(xsb).with_metadata(title=title)
    out = level_out(level, DAILY, index).model_copy(update={"id": level_id})
    return Resolved(level_id, level, out, Optimal(moves=moves, pushes=pushes), solution)


def client_address(request: Request) -> str:
    return request.client.host if request.client is not None else "unknown"


def compete(request: Request) -> Compete:
    found: Compete = request.app.state.compete
    return found


def bearer(value: str | None) -> str | None:
    """The token of an ``Authorization: Bearer <token>`` header."""
    if not value:
        return None
    scheme, _, token = value.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        return None
    return token.strip()


def player_of(c: Compete, token: str | None) -> Player | None:
    """The player of ``token``. Known tokens are remembered (tokens are never revoked,
    and a player's id and name never change), so most requests skip the query."""
    if not token or len(token) > 200:
        return None
    key = hash_secret(token)
    found = c.known.get(key)
    if found is None:
        found = c.records.player_by_token(key)
        if found is not None:
            if len(c.known) >= KNOWN_TOKENS:
                c.known.clear()
            c.known[key] = found
    return found


def optional_player(request: Request, c: Annotated[Compete, Depends(compete)]) -> Player | None:
    """The player whose token signs the request, ``None`` for none (401 for a bad one)."""
    header = request.headers.get("authorization")
    if header is None:
        return None
    player = player_of(c, bearer(header))
    if player is None:
        raise HTTPException(401, "unknown token: sign in again", {"WWW-Authenticate": "Bearer"})
    return player


def current_player(player: Annotated[Player | None, Depends(optional_player)]) -> Player:
    """The signed-in player: 401 without a token."""
    if player is None:
        raise HTTPException(
            401, "sign in first: send Authorization: Bearer <token>", {"WWW-Authenticate": "Bearer"}
        )
    return player


def install(app: FastAPI, state: AppState) -> None:
    """Add the competitive routes and their state to ``app``."""
    from sokoban.web import daily, players, race, scores

    settings = state.settings
    records = Records(state.store)
    c = Compete(
        app=state,
        records=records,
        player_limit=RateLimiter(settings.rate, 4 * settings.rate),
        address_limit=RateLimiter(settings.address_rate, 4 * settings.address_rate),
        daily=daily.DailyMaker(records, settings.daily_ahead, settings.daily_maker),
        hub=race.RaceHub(records),
    )
    c.hub.describe = race.describer(c)
    app.state.compete = c
    for module in (players, scores, daily, race):
        app.include_router(module.router)


@contextlib.asynccontextmanager
async def running(app: FastAPI) -> AsyncIterator[None]:
    """The background work of the competitive side, for the application's lifespan."""
    c: Compete = app.state.compete
    c.users += 1
    if c.users > 1:  # a lifespan inside another (nested test clients) shares the first's
        try:
            yield
        finally:
            c.users -= 1
        return
    await c.daily.start()
    await c.hub.start()
    try:
        yield
    finally:
        c.users -= 1
        await c.hub.close()
        await c.daily.close()
