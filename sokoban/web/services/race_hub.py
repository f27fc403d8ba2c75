"""The live side of races: this process's :class:`RaceHub` of the races its WebSockets
watch, a :class:`Room` per race and a :class:`Watcher` per socket.

A race lives in the database (:class:`sokoban.records.RaceRecords`), not in a server
process: any process behind a load balancer can answer for it. A change made here is sent
at once; a change made by another process is learnt from the race's ``version``:
PostgreSQL notifies the hub (LISTEN/NOTIFY), and the hub polls the versions of its races
(every :data:`POLL_SQLITE` seconds on SQLite, :data:`POLL_POSTGRESQL` on PostgreSQL as a
safety net). The countdown and the time limit need no writes: a race's status follows
from its start and end times, and the hub wakes at those times to send the new state.
Sends to one race are coalesced (at most one state per :data:`COALESCE` seconds), each
socket keeps only the newest state it has not sent yet, so a slow client neither delays
the others nor piles up memory.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import datetime
import functools
import json
import logging
import math
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from sokoban.errors import SokobanError
from sokoban.level import Level
from sokoban.records import RACE_CHANNEL, Racer, RaceRecords, RaceRow, now
from sokoban.web.models.compete import RacerOut, RaceState
from sokoban.web.models.convert import level_out
from sokoban.web.models.game import LevelOut

if TYPE_CHECKING:
    from starlette.websockets import WebSocket

    from sokoban.web.services.compete import Resolved

log = logging.getLogger("sokoban.web.race")

#: Seconds between polls of the races' versions (changes made by other processes).
POLL_SQLITE = 0.1
POLL_POSTGRESQL = 1.0
#: Shortest time between two states sent to one race.
COALESCE = 0.02
#: Seconds live positions wait to be written together.
FLUSH = 0.05


# --- the state a client sees --------------------------------------------------------------


@functools.lru_cache(maxsize=256)
def level_of(xsb: str) -> Level:
    """A race's level from its XSB (parsed once)."""
    return Level.from_xsb(xsb)


@functools.lru_cache(maxsize=256)
def _level_out(level_id: str, xsb: str) -> LevelOut:
    collection, _, index = level_id.partition("/")
    number = int(index.replace("-", "")) if index.replace("-", "").isdigit() else 0
    out = level_out(level_of(xsb), collection, number)
    # The solution stays hidden in a race; the id is the level's own.
    return out.model_copy(update={"id": level_id, "solution": None, "optimal": None})


def describer(resolve: Callable[[str], Resolved]) -> Callable[[str, str], LevelOut]:
    """A race level's JSON as ``resolve`` has it (its solution hidden), else from its XSB
    (a level that is no longer there, or changed)."""

    @functools.lru_cache(maxsize=256)
    def describe(level_id: str, xsb: str) -> LevelOut:
        try:
            out = resolve(level_id).out
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
    level = level_of(race.xsb)
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
        # The level is shown from the start on: no one studies it in the lobby.
        level=describe(race.level_id, race.xsb) if status in ("running", "finished") else None,
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
        self.has_level = False
        self._ready = asyncio.Event()
        self.task: asyncio.Task[None] | None = None

    def offer(self, full: str, slim: str, with_level: bool = True) -> None:
        """The newest state: ``full`` (with the level, once it is shown) until a socket
        has had the level, else ``slim``."""
        # An older state not sent yet is dropped: this one holds all it said.
        self._pending = slim if self.has_level else full
        self.has_level = self.has_level or with_level
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
    """The watchers of one race in this process, the race as last known, and the task
    that sends them states.

    A racer's position sent here is shown at once (applied to the race in memory) and
    written to the database with the other positions of the next :data:`FLUSH` seconds,
    in one transaction (other processes see it then); a finish is written before it is
    shown. A poke (a join or start here, a notification or a newer version from another
    process) reads the race again from the database.
    """

    def __init__(self, hub: RaceHub, code: str) -> None:
        self.hub = hub
        self.code = code
        self.watchers: set[Watcher] = set()
        self.dirty = asyncio.Event()
        self.race: RaceRow | None = None
        self.stale = True
        #: Changes shown here, for knowing what is new to send.
        self.local = 0
        self.sent: tuple[int, int, str] = (-1, -1, "")
        #: Positions shown but not written yet, by player id.
        self.pending: dict[int, Racer] = {}
        self.flusher: asyncio.Task[None] | None = None
        self.dirty.set()
        self.task = asyncio.create_task(self._run())

    @property
    def version(self) -> int:
        """The version the database should have, as far as this process knows."""
        return -1 if self.race is None or self.stale else self.race.version

    def _show(self, racer: Racer, closed_at: datetime.datetime | None, written: bool) -> None:
        race = self.race
        if race is None:
            return
        racers = tuple(racer if r.player_id == racer.player_id else r for r in race.racers)
        self.race = dataclasses.replace(
            race,
            racers=racers,
            version=race.version + (1 if written else 0),
            closed_at=race.closed_at or closed_at,
        )
        self.local += 1
        self.dirty.set()

    def position(self, racer: Racer) -> None:
        """A racer's live position (not a finish): shown now, written soon."""
        self.pending[racer.player_id] = racer
        self._show(racer, None, written=False)
        if self.flusher is None or self.flusher.done():
            self.flusher = asyncio.create_task(self._flush())

    def finished(self, racer: Racer, closed_at: datetime.datetime | None) -> None:
        """A racer's finish, written already."""
        self.pending.pop(racer.player_id, None)
        self._show(racer, closed_at, written=True)

    async def _flush(self) -> None:
        await asyncio.sleep(FLUSH)
        racers, self.pending = list(self.pending.values()), {}
        race = self.race
        if race is None or not racers:
            return
        try:
            await asyncio.to_thread(self.hub.races.save_positions, race, racers)
        except Exception:  # shown here already; the racer's next history writes it
            log.exception("writing race positions")
            return
        if self.race is not None:
            self.race = dataclasses.replace(self.race, version=self.race.version + 1)

    def reload(self) -> None:
        self.stale = True
        self.dirty.set()

    def resend(self) -> None:
        self.sent = (-1, -1, "")
        self.dirty.set()

    async def _run(self) -> None:
        while True:
            if self.stale or self.race is None:
                self.stale = False
                try:
                    race = await asyncio.to_thread(self.hub.races.get, self.code)
                except Exception:  # the database is away for a moment: try again shortly
                    log.exception("reading race state")
                    self.stale = True
                    await asyncio.sleep(1.0)
                    continue
                if race is None:
                    return
                # Positions shown here but not written yet stay shown.
                mine = {r.player_id: r for r in self.pending.values()}
                racers = tuple(mine.get(r.player_id, r) for r in race.racers)
                self.race = dataclasses.replace(race, racers=racers)
                self.local += 1
            race = self.race
            at = now()
            state = race_state(race, at, self.hub.describe)
            key = (race.version, self.local, state.status)
            if key != self.sent:
                self.sent = key
                data = {"type": "state", **state.model_dump(mode="json")}
                full = json.dumps(data)
                del data["level"]  # sent once per socket: it does not change
                slim = json.dumps(data)
                for watcher in list(self.watchers):
                    watcher.offer(full, slim, state.level is not None)
            # Sleep until something changes or the status will (countdown over, time up).
            wake = None
            if state.status != "finished":
                for moment in (race.starts_at, race.ends_at):
                    if moment is not None and moment > at:
                        wake = (moment - at).total_seconds() + 0.005
                        break
            self.dirty.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.dirty.wait(), wake)
            await asyncio.sleep(COALESCE)


class RaceHub:
    """The races this process's WebSockets watch; see the module documentation."""

    def __init__(
        self, races: RaceRecords, describe: Callable[[str, str], LevelOut] = _level_out
    ) -> None:
        self.races = races
        self.rooms: dict[str, Room] = {}
        #: Makes a race level's JSON (``describe(level_id, xsb)``): by default from the
        #: XSB alone; the application's gives the library's title and metadata.
        self.describe = describe
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
        """The race ``code`` changed in the database: read it and send its state to its
        watchers here. Safe to call from any thread."""
        loop = self._loop
        if loop is None:
            return
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is loop:
            self._poke(code)
        else:
            loop.call_soon_threadsafe(self._poke, code)

    def _poke(self, code: str) -> None:
        room = self.rooms.get(code)
        if room is not None:
            room.reload()

    def watch(self, code: str, watcher: Watcher) -> Room:
        room = self.rooms.get(code)
        if room is None or room.task.done():
            room = self.rooms[code] = Room(self, code)
        room.watchers.add(watcher)
        room.resend()  # the new watcher needs the state now
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
                    room.reload()

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
                                self._loop.call_soon_threadsafe(self._poke, note.payload)
            except Exception:  # the server restarted: listen again (the poll covers the gap)
                log.warning("race notifications lost; listening again", exc_info=True)
                self._stop.wait(1.0)
