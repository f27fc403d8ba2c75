"""Race mode: open a race, join it, start it; live progress over a WebSocket.

A race lives in the database (:class:`sokoban.records.RaceRecords`), not in a server
process: any process behind a load balancer can answer for it. Each process keeps a
:class:`RaceHub` of the races its own WebSockets watch. A change made here is sent at
once; a change made by another process is learnt from the race's ``version``: PostgreSQL
notifies the hub (LISTEN/NOTIFY), and the hub polls the versions of its races (every
:data:`POLL_SQLITE` seconds on SQLite, :data:`POLL_POSTGRESQL` on PostgreSQL as a safety
net). The countdown and the time limit need no writes: a race's status follows from its
start and end times, and the hub wakes at those times to send the new state.

Progress messages carry the whole history so far as LURD; the server replays it on the
race's level to count moves, pushes and boxes on goals (a client's counts are never
taken). Sends to one race are coalesced (at most one state per :data:`COALESCE` seconds),
each socket keeps only the newest state it has not sent yet, so a slow client neither
delays the others nor piles up memory.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime
import functools
import json
import logging
import math
import random
import secrets
import threading
from collections.abc import Callable
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, HTTPException, Request, WebSocket
from pydantic import BaseModel, ConfigDict, Field, ValidationError
from starlette.websockets import WebSocketDisconnect, WebSocketState

from sokoban.errors import SokobanError
from sokoban.level import Level
from sokoban.lurd import replay
from sokoban.records import (
    RACE_CHANNEL,
    Player,
    RaceClosedError,
    RaceRecords,
    RaceRow,
    Records,
    now,
)
from sokoban.web.compete import (
    BAD,
    DAILY,
    Compete,
    client_address,
    compete,
    current_player,
    player_of,
)
from sokoban.web.compete_models import RaceCreated, RaceIn, RacerOut, RaceState
from sokoban.web.convert import level_out
from sokoban.web.models import MAX_LURD, ErrorOut, LevelOut
from sokoban.web.ratelimit import RateLimiter

log = logging.getLogger("sokoban.web.race")

router = APIRouter(prefix="/api", tags=["races"], responses=BAD)

#: Seconds between polls of the races' versions (changes made by other processes).
POLL_SQLITE = 0.1
POLL_POSTGRESQL = 1.0
#: Shortest time between two states sent to one race.
COALESCE = 0.02
#: Most players in one race.
MAX_RACERS = 100
#: Largest WebSocket message, in characters (a LURD history and its JSON).
MAX_MESSAGE = MAX_LURD + 200
#: Seconds a socket has to send its token when it did not come in the URL.
AUTH_WAIT = 10.0
#: Race messages per second per player (bursts of four times as many); a client sends
#: its history at most every 100 ms or so, a dropped one is caught up by the next.
MESSAGE_RATE = 20.0

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


# --- the state a client sees --------------------------------------------------------------


@functools.lru_cache(maxsize=256)
def _level(xsb: str) -> Level:
    return Level.from_xsb(xsb)


@functools.lru_cache(maxsize=256)
def _level_out(level_id: str, xsb: str) -> LevelOut:
    collection, _, index = level_id.partition("/")
    number = int(index.replace("-", "")) if index.replace("-", "").isdigit() else 0
    out = level_out(_level(xsb), collection, number)
    # The solution stays hidden in a race; the id is the level's own.
    return out.model_copy(update={"id": level_id, "solution": None, "optimal": None})


def describer(c: Compete) -> Callable[[str, str], LevelOut]:
    """A race level's JSON as the library has it (its solution hidden), else from its XSB
    (a level that is no longer there, or changed)."""

    @functools.lru_cache(maxsize=256)
    def describe(level_id: str, xsb: str) -> LevelOut:
        try:
            out = c.resolve(level_id).out
        except SokobanError:
            return _level_out(level_id, xsb)
        if out.xsb != xsb:
            return _level_out(level_id, xsb)
        return out.model_copy(update={"solution": None, "optimal": None})

    return describe


def ranking(race: RaceRow) -> list[int]:
    """Racers' player ids in ranking order: solved first (fewer moves, then earlier
    finish), then the rest (more boxes on goals, then fewer moves, then who joined first)."""

    def key(i: int) -> tuple[Any, ...]:
        r = race.racers[i]
        if r.solved:
            finished = r.finished_at.timestamp() if r.finished_at else math.inf
            return (0, r.moves, finished, i)
        return (1, -r.boxes_on_goals, r.moves, i)

    order = sorted(range(len(race.racers)), key=key)
    return [race.racers[i].player_id for i in order]


def race_state(
    race: RaceRow,
    at: datetime.datetime | None = None,
    describe: Callable[[str, str], LevelOut] = _level_out,
) -> RaceState:
    """What a client sees of ``race`` at ``at``; ``describe(level_id, xsb)`` makes the
    level's JSON (by default from the XSB alone)."""
    at = at or now()
    status = race.status(at)
    rank = {pid: n for n, pid in enumerate(ranking(race), 1)}
    level = _level(race.xsb)
    racers = []
    for r in race.racers:
        seconds = None
        if r.finished_at is not None and race.starts_at is not None:
            seconds = round((r.finished_at - race.starts_at).total_seconds(), 3)
        racers.append(
            RacerOut(
                name=r.name,
                moves=r.moves,
                pushes=r.pushes,
                boxes_on_goals=r.boxes_on_goals,
                finished=r.finished_at is not None or status == "finished",
                solved=r.solved,
                seconds=seconds,
                rank=rank[r.player_id],
                lurd=r.lurd if status == "finished" else None,
            )
        )
    racers.sort(key=lambda x: x.rank)
    return RaceState(
        code=race.code,
        status=status,  # type: ignore[arg-type]
        level=describe(race.level_id, race.xsb),
        boxes=len(level.boxes),
        time_limit=race.time_limit,
        countdown=race.countdown,
        starts_at=race.starts_at,
        ends_at=race.ends_at,
        now=at,
        host=race.host,
        version=race.version,
        players=racers,
    )


# --- the hub: this process's live races -------------------------------------------------


class Watcher:
    """One WebSocket watching a race: it is sent the newest state it has not had."""

    def __init__(self, socket: WebSocket) -> None:
        self.socket = socket
        self._pending: str | None = None
        self._ready = asyncio.Event()
        self.task: asyncio.Task[None] | None = None

    def offer(self, text: str) -> None:
        self._pending = text  # an older state not sent yet is dropped: this one holds it
        self._ready.set()

    async def run(self) -> None:
        with contextlib.suppress(Exception):
            while True:
                await self._ready.wait()
                self._ready.clear()
                text, self._pending = self._pending, None
                if text is not None:
                    await self.socket.send_text(text)


class Room:
    """The watchers of one race in this process, and the task that sends them states."""

    def __init__(self, hub: RaceHub, code: str) -> None:
        self.hub = hub
        self.code = code
        self.watchers: set[Watcher] = set()
        self.dirty = asyncio.Event()
        self.version = -1
        self.status = ""
        self.dirty.set()
        self.task = asyncio.create_task(self._run())

    async def _run(self) -> None:
        while True:
            try:
                race = await asyncio.to_thread(self.hub.races.get, self.code)
            except Exception:  # the database is away for a moment: try again shortly
                log.exception("reading race state")
                await asyncio.sleep(1.0)
                continue
            if race is None:
                return
            at = now()
            state = race_state(race, at, self.hub.describe)
            if state.version != self.version or state.status != self.status:
                self.version, self.status = state.version, state.status
                text = json.dumps({"type": "state", **state.model_dump(mode="json")})
                for watcher in list(self.watchers):
                    watcher.offer(text)
            # Sleep until something changes or the status will (countdown over, time up).
            wake = None
            for moment in (race.starts_at, race.ends_at):
                if moment is not None and moment > at:
                    wake = (moment - at).total_seconds() + 0.005
                    break
            if state.status == "finished":
                wake = None
            self.dirty.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.dirty.wait(), wake)
            await asyncio.sleep(COALESCE)


class RaceHub:
    """The races this process's WebSockets watch; see the module documentation."""

    def __init__(self, records: Records) -> None:
        self.races = RaceRecords(records.store)
        self.rooms: dict[str, Room] = {}
        #: Makes a race level's JSON: the library's (title, metadata) where it has it.
        self.describe: Callable[[str, str], LevelOut] = _level_out
        self._tasks: list[asyncio.Task[None]] = []
        self._stop = threading.Event()
        self._listener: threading.Thread | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    async def start(self) -> None:
        self._loop = asyncio.get_running_loop()
        postgresql = self.races.notify
        self._tasks.append(
            asyncio.create_task(self._poll(POLL_POSTGRESQL if postgresql else POLL_SQLITE))
        )
        if postgresql:
            self._listener = threading.Thread(
                target=self._listen, name="sokoban-race-listen", daemon=True
            )
            self._listener.start()

    async def close(self) -> None:
        self._stop.set()
        for task in self._tasks + [room.task for room in self.rooms.values()]:
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(BaseException):
                await task
        self.rooms.clear()

    def poke(self, code: str) -> None:
        """The race ``code`` changed: send its state to its watchers here."""
        room = self.rooms.get(code)
        if room is not None:
            room.dirty.set()

    def watch(self, code: str, watcher: Watcher) -> Room:
        room = self.rooms.get(code)
        if room is None or room.task.done():
            room = self.rooms[code] = Room(self, code)
        room.watchers.add(watcher)
        room.version = -1  # the new watcher needs the state now
        room.dirty.set()
        return room

    def leave(self, code: str, watcher: Watcher) -> None:
        room = self.rooms.get(code)
        if room is None:
            return
        room.watchers.discard(watcher)
        if not room.watchers:
            room.task.cancel()
            del self.rooms[code]

    async def _poll(self, interval: float) -> None:
        while True:
            await asyncio.sleep(interval)
            if not self.rooms:
                continue
            try:
                versions = await asyncio.to_thread(self.races.versions, list(self.rooms))
            except Exception:
                log.exception("polling race versions")
                continue
            for code, version in versions.items():
                room = self.rooms.get(code)
                if room is not None and version != room.version:
                    room.dirty.set()

    def _listen(self) -> None:
        """PostgreSQL LISTEN in a thread of its own: each notification pokes its race."""
        import psycopg

        url = self.races.engine.url.set(drivername="postgresql")
        conninfo = url.render_as_string(hide_password=False)
        while not self._stop.is_set():
            try:
                with psycopg.connect(conninfo, autocommit=True) as conn:
                    conn.execute(f"LISTEN {RACE_CHANNEL}")
                    while not self._stop.is_set():
                        for note in conn.notifies(timeout=0.5):
                            if self._loop is not None:
                                self._loop.call_soon_threadsafe(self.poke, note.payload)
            except Exception:  # the server restarted: listen again (the poll covers the gap)
                log.warning("race notifications lost; listening again", exc_info=True)
                self._stop.wait(1.0)


# --- routes -----------------------------------------------------------------------------


def _race(c: Compete, code: str) -> RaceRow:
    race = c.hub.races.get(code) if 16 <= len(code) <= 64 else None
    if race is None:
        raise HTTPException(404, "no such race")
    return race


def _pick_level(c: Compete, band: str) -> tuple[str, str]:
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
        level_id, xsb = _pick_level(c, body.band or "easy")
    if _level(xsb).problems():
        raise SokobanError(f"level {level_id} cannot be played")
    code = secrets.token_urlsafe(16)
    c.hub.races.create(code, player.id, level_id, xsb, body.time_limit, body.countdown)
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
    watches. A message of the wrong shape closes this socket (code 1008)."""
    c: Compete = socket.app.state.compete
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
    c.hub.watch(code, watcher)
    limiter: RateLimiter = _message_limiter(c)
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
            await _move(c, socket, code, player, message)
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


def _message_limiter(c: Compete) -> RateLimiter:
    found: RateLimiter | None = getattr(c, "_race_limiter", None)
    if found is None:
        rate = max(MESSAGE_RATE, c.app.settings.rate * 4)
        found = RateLimiter(rate, 4 * rate)
        c._race_limiter = found  # type: ignore[attr-defined]
    return found


async def _move(
    c: Compete, socket: WebSocket, code: str, player: Player, message: MoveMessage
) -> None:
    """Replay a racer's history and record it (a finish, or a solving history, is final)."""
    race = await asyncio.to_thread(c.hub.races.get, code)
    if race is None:
        raise BadMessage("the race is gone")
    if not any(r.player_id == player.id for r in race.racers):
        await _send_error(socket, "you are not in this race")
        return
    status = race.status(now())
    if status != "running":
        await _send_error(socket, f"the race is {status}")
        return
    level = _level(race.xsb)
    try:
        played = replay(level, message.lurd)
    except SokobanError as error:
        step = getattr(error, "index", None)
        await _send_error(socket, " ".join(str(error).split()), step=step)
        return
    solved = played.is_solved
    final = played.final
    try:
        await asyncio.to_thread(
            c.hub.races.progress,
            race,
            player.id,
            played.solution.lurd(),
            played.metrics.moves,
            played.metrics.pushes,
            len(final.boxes & final.goals),
            solved,
            solved or message.type == "finish",
        )
    except RaceClosedError as error:
        await _send_error(socket, str(error))
        return
    c.hub.poke(code)
