"""Race routes: open a race, join it, start it; live progress over a WebSocket (the live
side is :mod:`sokoban.web.services.race_hub`).

Progress messages carry the whole history so far as LURD; the server replays it on the
race's level to count moves, pushes and boxes on goals (a client's counts are never
taken).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import datetime
import json
import logging
import random
import secrets
import urllib.parse
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, HTTPException, Request, WebSocket
from pydantic import BaseModel, ConfigDict, Field, ValidationError
from starlette.websockets import WebSocketDisconnect, WebSocketState

from sokoban.errors import SokobanError
from sokoban.lurd import replay
from sokoban.records import Player, RaceClosedError, RaceRow, now
from sokoban.web.models.compete import RaceCreated, RaceIn, RaceState
from sokoban.web.models.game import MAX_LURD, ErrorOut
from sokoban.web.routers.deps import BAD, client_address, compete, current_player, player_of
from sokoban.web.services.compete import DAILY, Compete
from sokoban.web.services.race_hub import Room, Watcher, level_of, race_state

log = logging.getLogger("sokoban.web.race")

router = APIRouter(prefix="/api", tags=["races"], responses=BAD)

#: Most players in one race.
MAX_RACERS = 100
#: Largest WebSocket message, in characters (a LURD history and its JSON).
MAX_MESSAGE = MAX_LURD + 200
#: Seconds a socket has to send its token when it did not come in the URL.
AUTH_WAIT = 10.0

NOT_FOUND: dict[int | str, dict[str, Any]] = {
    404: {"model": ErrorOut, "description": "no such race"}
}


# --- messages ---------------------------------------------------------------------------


class AuthMessage(BaseModel):
    model_config = ConfigDict(extra="forbid")
    type: Literal["auth"]
    token: str = Field(max_length=200)


class MoveMessage(BaseModel):
    model_config = ConfigDict(extra="forbid")
    type: Literal["progress", "finish"]
    lurd: str = Field(max_length=MAX_LURD)


class BadMessage(Exception):
    """A message of the wrong shape: its socket is closed (policy violation)."""


def parse_message(text: str | None) -> AuthMessage | MoveMessage:
    if text is None or len(text) > MAX_MESSAGE:
        raise BadMessage("message too long or not text")
    try:
        data = json.loads(text)
    except ValueError:
        raise BadMessage("message is not JSON") from None
    except RecursionError:  # brackets nested past the parser's depth
        raise BadMessage("message nested too deeply") from None
    if not isinstance(data, dict):
        raise BadMessage("message is not a JSON object")
    try:
        if data.get("type") == "auth":
            return AuthMessage.model_validate(data)
        return MoveMessage.model_validate(data)
    except ValidationError as error:
        first = error.errors()[0]
        where = ".".join(str(p) for p in first.get("loc", ()))
        raise BadMessage(f"{where}: {first.get('msg', 'invalid')}") from None


# --- routes -----------------------------------------------------------------------------


def _race(c: Compete, code: str) -> RaceRow:
    race = c.hub.races.get(code) if 16 <= len(code) <= 64 else None
    if race is None:
        raise HTTPException(404, "no such race")
    return race


def _picklevel_of(c: Compete, band: str) -> tuple[str, str]:
    """A level of ``band`` for a race: a built-in one or a past daily level, at random."""
    choices: list[tuple[str, str]] = []
    builtin = c.app.library.files.get("builtin")
    if builtin is not None:
        for i, level in enumerate(builtin.levels, 1):
            if dict(level.metadata).get("Difficulty", "").endswith(f"({band})"):
                choices.append((f"builtin/{i}", level.xsb()))
    today = now().date()
    for row in c.records.daily_days(today - datetime.timedelta(days=1), 100):
        if row.band == band:
            choices.append((f"{DAILY}/{row.day.isoformat()}", row.xsb))
    if not choices:
        raise HTTPException(404, f"no {band} level to race on")
    return random.SystemRandom().choice(choices)


@router.post(
    "/races",
    response_model=RaceCreated,
    status_code=201,
    responses={
        401: {"model": ErrorOut, "description": "not signed in"},
        404: {"model": ErrorOut, "description": "no such level"},
        429: {"model": ErrorOut, "description": "too many requests"},
    },
)
def create(
    body: RaceIn,
    request: Request,
    player: Annotated[Player, Depends(current_player)],
    c: Annotated[Compete, Depends(compete)],
) -> RaceCreated:
    """Open a race on a level (``level_id``) or a random level of a band; the host is
    its first player. The code (128 random bits) is the race's only address."""
    c.limit(request, player)
    if (body.band is None) == (body.level_id is None):
        raise SokobanError("give a band or a level_id (one of them)")
    if body.level_id is not None:
        level_id, xsb = body.level_id, c.resolve(body.level_id).out.xsb
    else:
        level_id, xsb = _picklevel_of(c, body.band or "easy")
    if level_of(xsb).problems():
        raise SokobanError(f"level {level_id} cannot be played")
    code = secrets.token_urlsafe(16)
    c.hub.races.create(code, player.id, level_id, xsb, body.time_limit, body.countdown)
    c.fair.forget()  # no solver help on its board from now on
    return RaceCreated(code=code, url=f"/#/race/{code}")


@router.get("/races/{code}", response_model=RaceState, responses=NOT_FOUND)
def get_race(code: str, c: Annotated[Compete, Depends(compete)]) -> RaceState:
    """A race's state: status, level, times, players with their live counts and ranks
    (their histories once it is finished, for replays)."""
    return race_state(_race(c, code), describe=c.hub.describe)


@router.post(
    "/races/{code}/join",
    response_model=RaceState,
    responses={**NOT_FOUND, 409: {"model": ErrorOut, "description": "started or full"}},
)
def join(
    code: str,
    request: Request,
    player: Annotated[Player, Depends(current_player)],
    c: Annotated[Compete, Depends(compete)],
) -> RaceState:
    """Join a race before it starts (joining twice is harmless)."""
    c.limit(request, player)
    race = _race(c, code)
    try:
        c.hub.races.join(race, player.id, MAX_RACERS)
    except RaceClosedError as error:
        raise HTTPException(409, str(error)) from None
    c.hub.poke(code)
    return race_state(_race(c, code), describe=c.hub.describe)


@router.post(
    "/races/{code}/start",
    response_model=RaceState,
    responses={
        **NOT_FOUND,
        403: {"model": ErrorOut, "description": "only the host starts"},
        409: {"model": ErrorOut, "description": "started already"},
    },
)
def start(
    code: str,
    player: Annotated[Player, Depends(current_player)],
    c: Annotated[Compete, Depends(compete)],
) -> RaceState:
    """Start the countdown (host only); the race runs ``time_limit`` seconds after it."""
    race = _race(c, code)
    if race.host_id != player.id:
        raise HTTPException(403, "only the race's host can start it")
    try:
        c.hub.races.start(race)
    except RaceClosedError as error:
        raise HTTPException(409, str(error)) from None
    c.hub.poke(code)
    return race_state(_race(c, code), describe=c.hub.describe)


async def _send_error(socket: WebSocket, detail: str, **extra: Any) -> None:
    await socket.send_text(json.dumps({"type": "error", "detail": detail, **extra}))


@router.websocket("/races/{code}/ws")
async def live(socket: WebSocket, code: str) -> None:
    """Live race: the server sends ``{"type": "state", ...RaceState}`` on every change; a
    racer sends ``{"type": "progress"|"finish", "lurd"}``. The token comes as the first
    message ``{"type": "auth", "token"}`` (or ``?token=``); without one the socket only
    watches. A message of the wrong shape closes this socket (code 1008), as does an
    ``Origin`` other than the server's own host."""
    c: Compete = socket.app.state.compete
    origin = socket.headers.get("origin")
    if origin is not None and urllib.parse.urlsplit(origin).netloc != socket.headers.get("host"):
        # A page of another site (or a name rebound to this address) may not race here.
        await socket.close(1008, "cross-origin socket refused")
        return
    await socket.accept()
    race = await asyncio.to_thread(c.hub.races.get, code) if 16 <= len(code) <= 64 else None
    if race is None:
        await socket.close(4404, "no such race")
        return
    player = None
    token = socket.query_params.get("token")
    if token:
        player = await asyncio.to_thread(player_of, c, token)
        if player is None:
            await socket.close(4401, "unknown token")
            return
    watcher = Watcher(socket)
    watcher.task = asyncio.create_task(watcher.run())
    room = c.hub.watch(code, watcher)
    limiter = c.message_limit
    address = f"ws:{client_address(socket)}"  # type: ignore[arg-type]
    try:
        while True:
            try:
                text = await socket.receive_text()
            except KeyError:  # a binary frame
                raise BadMessage("binary message") from None
            message = parse_message(text)
            if isinstance(message, AuthMessage):
                if player is not None:
                    raise BadMessage("signed in already")
                player = await asyncio.to_thread(player_of, c, message.token)
                if player is None:
                    await socket.close(4401, "unknown token")
                    return
                continue
            if player is None:
                await _send_error(socket, 'sign in first: send {"type": "auth", "token"}')
                continue
            wait = max(limiter.take(f"p:{player.id}"), limiter.take(address))
            if wait > 0 and message.type == "progress":
                await _send_error(socket, "too many messages: slow down", status=429)
                continue
            await _move(c, socket, room, player, message)
    except BadMessage as error:
        with contextlib.suppress(Exception):
            await socket.close(1008, str(error)[:120])
    except WebSocketDisconnect:
        pass
    finally:
        c.hub.leave(code, watcher)
        if watcher.task is not None:
            watcher.task.cancel()
        if socket.client_state == WebSocketState.CONNECTED:
            with contextlib.suppress(Exception):
                await socket.close()


async def _move(
    c: Compete, socket: WebSocket, room: Room, player: Player, message: MoveMessage
) -> None:
    """Replay a racer's history and record it (a finish, or a solving history, is final).
    The race as the room knows it is enough to check: its level, start and end do not
    change once it runs, and the database refuses a second finish."""
    race = room.race
    if race is None or race.starts_at is None or race.status(now()) != "running":
        race = await asyncio.to_thread(c.hub.races.get, room.code)
        if race is None:
            raise BadMessage("the race is gone")
    me = next((r for r in race.racers if r.player_id == player.id), None)
    if me is None:
        await _send_error(socket, "you are not in this race")
        return
    status = race.status(now())
    if status != "running":
        await _send_error(socket, f"the race is {status}")
        return
    if me.finished_at is not None:
        await _send_error(socket, "you have finished this race already")
        return
    level = level_of(race.xsb)
    try:
        played = replay(level, message.lurd)
    except SokobanError as error:
        step = getattr(error, "index", None)
        await _send_error(socket, " ".join(str(error).split()), step=step)
        return
    solved = played.is_solved
    final = played.final
    finished = solved or message.type == "finish"
    lurd = played.solution.lurd()
    counts = (played.metrics.moves, played.metrics.pushes, len(final.boxes & final.goals))
    racer = dataclasses.replace(
        me, lurd=lurd, moves=counts[0], pushes=counts[1], boxes_on_goals=counts[2]
    )
    if not finished:
        room.position(racer)
        return
    try:
        closed, at = await asyncio.to_thread(
            c.hub.races.progress, race, player.id, lurd, *counts, solved, True
        )
    except RaceClosedError as error:
        await _send_error(socket, str(error))
        return
    room.finished(dataclasses.replace(racer, solved=solved, finished_at=at), at if closed else None)
