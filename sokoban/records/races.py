"""Races and their players in the database: any server process can answer for a race.

Every change bumps the race's ``version`` and, on PostgreSQL, notifies
:data:`RACE_CHANNEL` when it commits (see :mod:`sokoban.web.services.race_hub`).
"""

from __future__ import annotations

import dataclasses
import datetime
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from sokoban.records.tables import key, now, players, race_players, races, scores, utc

if TYPE_CHECKING:
    from sokoban.store import Store

#: Seconds a race that has not started counts as live (a lobby left open is not).
WAITING = 3600

#: The channel PostgreSQL notifies on when a race changes (the payload is its code).
RACE_CHANNEL = "sokoban_races"


@dataclasses.dataclass(frozen=True, slots=True)
class Racer:
    player_id: int
    name: str
    joined_at: datetime.datetime
    lurd: str
    moves: int
    pushes: int
    boxes_on_goals: int
    solved: bool
    finished_at: datetime.datetime | None


@dataclasses.dataclass(frozen=True, slots=True)
class RaceRow:
    id: int
    code: str
    host_id: int
    host: str
    level_id: str
    xsb: str
    time_limit: int
    countdown: int
    created_at: datetime.datetime
    starts_at: datetime.datetime | None
    ends_at: datetime.datetime | None
    closed_at: datetime.datetime | None
    version: int
    racers: tuple[Racer, ...]

    def status(self, at: datetime.datetime) -> str:
        """waiting (not started), countdown, running, finished (all finished or time up)."""
        if self.starts_at is None or self.ends_at is None:
            return "waiting"
        if self.closed_at is not None or at >= self.ends_at:
            return "finished"
        return "countdown" if at < self.starts_at else "running"


class RaceClosedError(Exception):
    """The race does not take this change (started, finished, not a member)."""


class RaceRecords:
    """Races and their players, on ``store``'s engine. Every change bumps the race's
    ``version`` and, on PostgreSQL, notifies :data:`RACE_CHANNEL` when it commits."""

    def __init__(self, store: Store) -> None:
        self.engine = store.engine
        self.notify = not store.is_sqlite
        #: Row locks (SELECT ... FOR UPDATE): PostgreSQL's; SQLite has one writer at a time,
        #: and a read before the first write there would only risk a stale snapshot.
        self.lock_rows = not store.is_sqlite

    def _changed(self, conn: Connection, race_id: int, code: str) -> None:
        conn.execute(
            races.update().where(races.c.id == race_id).values(version=races.c.version + 1)
        )
        if self.notify:
            conn.execute(
                sa.text("SELECT pg_notify(:channel, :code)"),
                {"channel": RACE_CHANNEL, "code": code},
            )

    def create(
        self, code: str, host_id: int, level_id: str, xsb: str, time_limit: int, countdown: int
    ) -> None:
        with self.engine.begin() as conn:
            race_id = key(
                conn.execute(
                    races.insert().values(
                        code=code,
                        host_id=host_id,
                        level_id=level_id,
                        xsb=xsb,
                        time_limit=time_limit,
                        countdown=countdown,
                        created_at=now(),
                        version=1,
                    )
                )
            )
            self._join(conn, race_id, host_id)

    @staticmethod
    def _join(conn: Connection, race_id: int, player_id: int) -> None:
        conn.execute(
            race_players.insert().values(
                race_id=race_id,
                player_id=player_id,
                joined_at=now(),
                lurd="",
                moves=0,
                pushes=0,
                boxes_on_goals=0,
                solved=False,
            )
        )

    def get(self, code: str) -> RaceRow | None:
        host = players.alias("host")
        with self.engine.connect() as conn:
            row = conn.execute(
                sa.select(races, host.c.name.label("host"))
                .select_from(races.join(host, host.c.id == races.c.host_id))
                .where(races.c.code == code)
            ).first()
            if row is None:
                return None
            racers = conn.execute(
                sa.select(race_players, players.c.name)
                .select_from(race_players.join(players))
                .where(race_players.c.race_id == row.id)
                .order_by(race_players.c.joined_at, race_players.c.player_id)
            ).all()
        return RaceRow(
            id=row.id,
            code=row.code,
            host_id=row.host_id,
            host=row.host,
            level_id=row.level_id,
            xsb=row.xsb,
            time_limit=row.time_limit,
            countdown=row.countdown,
            created_at=utc(row.created_at),
            starts_at=None if row.starts_at is None else utc(row.starts_at),
            ends_at=None if row.ends_at is None else utc(row.ends_at),
            closed_at=None if row.closed_at is None else utc(row.closed_at),
            version=row.version,
            racers=tuple(
                Racer(
                    player_id=r.player_id,
                    name=r.name,
                    joined_at=utc(r.joined_at),
                    lurd=r.lurd,
                    moves=r.moves,
                    pushes=r.pushes,
                    boxes_on_goals=r.boxes_on_goals,
                    solved=bool(r.solved),
                    finished_at=None if r.finished_at is None else utc(r.finished_at),
                )
                for r in racers
            ),
        )

    def live_levels(self, at: datetime.datetime) -> list[str]:
        """The levels (XSB) of races not over at ``at``: started and not finished, or
        waiting to start (opened in the last :data:`WAITING` seconds)."""
        started = races.c.starts_at.is_not(None) & (races.c.ends_at > at)
        waiting = races.c.starts_at.is_(None) & (
            races.c.created_at > at - datetime.timedelta(seconds=WAITING)
        )
        query = (
            sa.select(races.c.xsb).distinct().where(races.c.closed_at.is_(None), started | waiting)
        )
        with self.engine.connect() as conn:
            return [row[0] for row in conn.execute(query).all()]

    def versions(self, codes: Iterable[str]) -> dict[str, int]:
        wanted = list(codes)
        if not wanted:
            return {}
        with self.engine.connect() as conn:
            rows = conn.execute(
                sa.select(races.c.code, races.c.version).where(races.c.code.in_(wanted))
            ).all()
        return {r.code: r.version for r in rows}

    def join(self, race: RaceRow, player_id: int, most: int) -> bool:
        """Add a player before the start; False if already in. :class:`RaceClosedError`
        once started or full."""
        if any(r.player_id == player_id for r in race.racers):
            return False
        with self.engine.begin() as conn:
            started = conn.execute(
                sa.select(races.c.starts_at).where(races.c.id == race.id)
            ).scalar()
            if started is not None:
                raise RaceClosedError("the race has started: join the next one")
            count = conn.execute(
                sa.select(sa.func.count())
                .select_from(race_players)
                .where(race_players.c.race_id == race.id)
            ).scalar()
            if int(count or 0) >= most:
                raise RaceClosedError(f"the race is full ({most} players)")
            try:
                with conn.begin_nested():
                    self._join(conn, race.id, player_id)
            except sa.exc.IntegrityError:
                return False
            self._changed(conn, race.id, race.code)
        return True

    def start(self, race: RaceRow) -> None:
        """Set the start (after the countdown) and the end; :class:`RaceClosedError` if
        started already."""
        starts = now() + datetime.timedelta(seconds=race.countdown)
        ends = starts + datetime.timedelta(seconds=race.time_limit)
        with self.engine.begin() as conn:
            done = conn.execute(
                races.update()
                .where(races.c.id == race.id, races.c.starts_at.is_(None))
                .values(starts_at=starts, ends_at=ends)
            )
            if done.rowcount != 1:
                raise RaceClosedError("the race has started already")
            self._changed(conn, race.id, race.code)

    def save_positions(self, race: RaceRow, racers: Iterable[Racer]) -> None:
        """Record the live positions of racers still racing, in one transaction (a
        position never overwrites a finish)."""
        rows = [
            {
                "p": r.player_id,
                "lurd": r.lurd,
                "moves": r.moves,
                "pushes": r.pushes,
                "boxes_on_goals": r.boxes_on_goals,
            }
            for r in racers
        ]
        if not rows:
            return
        update = (
            race_players.update()
            .where(
                race_players.c.race_id == race.id,
                race_players.c.player_id == sa.bindparam("p"),
                race_players.c.finished_at.is_(None),
            )
            .values(
                lurd=sa.bindparam("lurd"),
                moves=sa.bindparam("moves"),
                pushes=sa.bindparam("pushes"),
                boxes_on_goals=sa.bindparam("boxes_on_goals"),
            )
        )
        with self.engine.begin() as conn:
            conn.execute(update, rows)
            self._changed(conn, race.id, race.code)

    def progress(
        self,
        race: RaceRow,
        player_id: int,
        lurd: str,
        moves: int,
        pushes: int,
        boxes_on_goals: int,
        solved: bool,
        finished: bool,
    ) -> tuple[bool, datetime.datetime]:
        """Record a racer's position; a finish is final. Returns whether every racer has
        finished now (the race is closed then) and the time recorded."""
        at = now()
        values: dict[str, Any] = dict(
            lurd=lurd, moves=moves, pushes=pushes, boxes_on_goals=boxes_on_goals, solved=solved
        )
        if finished:
            values["finished_at"] = at
        with self.engine.begin() as conn:
            # Finishes of one race take turns (the race row locked on PostgreSQL; SQLite has
            # one writer): two racers finishing at once on two server processes would each
            # count the other as still running, and the race would never close.
            if self.lock_rows:
                conn.execute(sa.select(races.c.id).where(races.c.id == race.id).with_for_update())
            done = conn.execute(
                race_players.update()
                .where(
                    race_players.c.race_id == race.id,
                    race_players.c.player_id == player_id,
                    race_players.c.finished_at.is_(None),
                )
                .values(**values)
            )
            if done.rowcount != 1:
                raise RaceClosedError("you have finished this race already")
            left = conn.execute(
                sa.select(sa.func.count())
                .select_from(race_players)
                .where(race_players.c.race_id == race.id, race_players.c.finished_at.is_(None))
            ).scalar()
            closed = int(left or 0) == 0
            if closed:
                conn.execute(
                    races.update()
                    .where(races.c.id == race.id, races.c.closed_at.is_(None))
                    .values(closed_at=at)
                )
            if solved:
                conn.execute(
                    scores.insert().values(
                        player_id=player_id,
                        level_id=race.level_id,
                        moves=moves,
                        pushes=pushes,
                        lurd=lurd,
                        seconds=None
                        if race.starts_at is None
                        else (at - race.starts_at).total_seconds(),
                        submitted_at=at,
                        assisted=False,
                    )
                )
            self._changed(conn, race.id, race.code)
        return closed, at
