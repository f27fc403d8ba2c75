"""Players, scores, daily levels and races in the store (SQLAlchemy Core, SQLite or PostgreSQL).

>>> from sokoban.store import Store
>>> records = Records(Store("sqlite://"))
>>> player = records.add_player("Ada", hash_secret("secret"))
>>> records.player_by_token(hash_secret("secret")).name
'Ada'

Every score a player submits is a row of ``scores`` (append only: a row is never updated),
so concurrent submissions cannot lose each other; the two boards of a level are queries
over those rows (each player's best by the board's order, ranked with ``row_number`` so a
rank is never shared). Secrets (tokens, transfer codes) are kept as SHA-256 hashes: they
are long random strings, so an unsalted hash cannot be reversed by guessing.

The tables are built by migration 2 of :data:`sokoban.store.MIGRATIONS`
(:func:`migrate_v2`).
"""

from __future__ import annotations

import dataclasses
import datetime
import hashlib
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection

if TYPE_CHECKING:
    from sokoban.store import Store

UTC = datetime.UTC


def now() -> datetime.datetime:
    return datetime.datetime.now(UTC)


def utc(value: datetime.datetime) -> datetime.datetime:
    """A time read back from the database, in UTC (SQLite hands back naive times)."""
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


def hash_secret(secret: str) -> str:
    """The stored form of a token or transfer code."""
    return hashlib.sha256(secret.encode()).hexdigest()


# --- tables (the current schema; migration 2 builds them) -------------------------------

metadata = sa.MetaData()


def _tables(m: sa.MetaData) -> dict[str, sa.Table]:
    """The tables as migration 2 makes them, on ``m``. Queries use the same definition
    while it is current; once a later migration changes a table, that table's current form
    is declared beside the queries and this function stays as it is (databases in the
    field have run it)."""
    ts = sa.DateTime(timezone=True)
    players = sa.Table(
        "players",
        m,
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("name", sa.String(32), nullable=False),
        # Names are unique ignoring case: "Ada" and "ada" cannot both exist.
        sa.Column("name_key", sa.String(32), nullable=False, unique=True),
        sa.Column("created_at", ts, nullable=False),
    )
    tokens = sa.Table(
        "player_tokens",
        m,
        sa.Column("token_hash", sa.String(64), primary_key=True),
        sa.Column(
            "player_id", sa.Integer, sa.ForeignKey("players.id", ondelete="CASCADE"), index=True
        ),
        sa.Column("created_at", ts, nullable=False),
    )
    transfers = sa.Table(
        "transfer_codes",
        m,
        sa.Column("code_hash", sa.String(64), primary_key=True),
        sa.Column("player_id", sa.Integer, sa.ForeignKey("players.id", ondelete="CASCADE")),
        sa.Column("expires_at", ts, nullable=False),
    )
    scores = sa.Table(
        "scores",
        m,
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("player_id", sa.Integer, sa.ForeignKey("players.id"), nullable=False),
        sa.Column("level_id", sa.String(120), nullable=False),
        sa.Column("moves", sa.Integer, nullable=False),
        sa.Column("pushes", sa.Integer, nullable=False),
        sa.Column("lurd", sa.Text, nullable=False),
        # What the client said the solve took (for a ghost's pace; never ranked on).
        sa.Column("seconds", sa.Float, nullable=True),
        sa.Column("submitted_at", ts, nullable=False),
        sa.Index("ix_scores_level_player", "level_id", "player_id"),
        # The boards' orders, for counting the rows ahead of a score.
        sa.Index("ix_scores_level_moves", "level_id", "moves", "pushes"),
        sa.Index("ix_scores_level_pushes", "level_id", "pushes", "moves"),
        sa.Index("ix_scores_player", "player_id"),
    )
    daily = sa.Table(
        "daily_levels",
        m,
        sa.Column("day", sa.String(10), primary_key=True),  # YYYY-MM-DD, UTC
        sa.Column("band", sa.String(16), nullable=False),
        sa.Column("xsb", sa.Text, nullable=False),
        sa.Column("solution", sa.Text, nullable=False),
        sa.Column("moves", sa.Integer, nullable=False),
        sa.Column("pushes", sa.Integer, nullable=False),
        sa.Column("seed", sa.BigInteger, nullable=False),
        sa.Column("created_at", ts, nullable=False),
    )
    races = sa.Table(
        "races",
        m,
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("code", sa.String(64), nullable=False, unique=True),
        sa.Column("host_id", sa.Integer, sa.ForeignKey("players.id"), nullable=False),
        sa.Column("level_id", sa.String(120), nullable=False),
        sa.Column("xsb", sa.Text, nullable=False),
        sa.Column("time_limit", sa.Integer, nullable=False),
        sa.Column("countdown", sa.Integer, nullable=False),
        sa.Column("created_at", ts, nullable=False),
        sa.Column("starts_at", ts, nullable=True),
        sa.Column("ends_at", ts, nullable=True),
        # Set when every player has finished (before ends_at).
        sa.Column("closed_at", ts, nullable=True),
        # Bumped by every change: other server processes compare it to know to resend.
        sa.Column("version", sa.Integer, nullable=False),
    )
    racers = sa.Table(
        "race_players",
        m,
        sa.Column(
            "race_id",
            sa.Integer,
            sa.ForeignKey("races.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("player_id", sa.Integer, sa.ForeignKey("players.id"), primary_key=True),
        sa.Column("joined_at", ts, nullable=False),
        sa.Column("lurd", sa.Text, nullable=False),
        sa.Column("moves", sa.Integer, nullable=False),
        sa.Column("pushes", sa.Integer, nullable=False),
        sa.Column("boxes_on_goals", sa.Integer, nullable=False),
        sa.Column("solved", sa.Boolean, nullable=False),
        sa.Column("finished_at", ts, nullable=True),
    )
    return {
        "players": players,
        "tokens": tokens,
        "transfers": transfers,
        "scores": scores,
        "daily": daily,
        "races": races,
        "racers": racers,
    }


_t = _tables(metadata)
players = _t["players"]
tokens = _t["tokens"]
transfers = _t["transfers"]
scores = _t["scores"]
daily_levels = _t["daily"]
races = _t["races"]
race_players = _t["racers"]

#: Every table of this module, in an order that respects foreign keys.
TABLES = [players, tokens, transfers, scores, daily_levels, races, race_players]


def migrate_v2(conn: Connection) -> None:
    """Migration 2: players, tokens, transfer codes, scores, daily levels, races."""
    for table in _tables(sa.MetaData()).values():
        table.create(conn)


# --- value classes ----------------------------------------------------------------------


@dataclasses.dataclass(frozen=True, slots=True)
class Player:
    id: int
    name: str


@dataclasses.dataclass(frozen=True, slots=True)
class Entry:
    """A player's best on one board of a level."""

    rank: int
    player_id: int
    name: str
    moves: int
    pushes: int
    submitted_at: datetime.datetime
    lurd: str
    seconds: float | None


@dataclasses.dataclass(frozen=True, slots=True)
class DailyRow:
    day: datetime.date
    band: str
    xsb: str
    solution: str
    moves: int
    pushes: int
    seed: int


class NameTakenError(Exception):
    pass


#: The order of each board: fewest moves (ties pushes, then time) or fewest pushes.
BOARDS = ("moves", "pushes")


def _board_order(board: str, t: Any) -> list[Any]:
    first, second = (t.c.moves, t.c.pushes) if board == "moves" else (t.c.pushes, t.c.moves)
    return [first, second, t.c.submitted_at, t.c.id]


class Records:
    """Queries over the tables of this module, on ``store``'s engine."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.engine = store.engine

    # --- players --------------------------------------------------------------------------

    def add_player(self, name: str, token_hash: str) -> Player:
        """A new player with one token; :class:`NameTakenError` if the name is in use."""
        try:
            with self.engine.begin() as conn:
                key = _key(
                    conn.execute(
                        players.insert().values(
                            name=name, name_key=name.casefold(), created_at=now()
                        )
                    )
                )
                conn.execute(
                    tokens.insert().values(token_hash=token_hash, player_id=key, created_at=now())
                )
        except sa.exc.IntegrityError:
            raise NameTakenError(name) from None
        return Player(int(key), name)

    def player_by_token(self, token_hash: str) -> Player | None:
        query = (
            sa.select(players.c.id, players.c.name)
            .select_from(players.join(tokens))
            .where(tokens.c.token_hash == token_hash)
        )
        with self.engine.connect() as conn:
            row = conn.execute(query).first()
        return None if row is None else Player(row.id, row.name)

    def add_transfer(self, player_id: int, code_hash: str, expires_at: datetime.datetime) -> None:
        with self.engine.begin() as conn:
            # One live code per player: a new one replaces the old, and expired codes go.
            conn.execute(
                transfers.delete().where(
                    (transfers.c.player_id == player_id) | (transfers.c.expires_at < now())
                )
            )
            conn.execute(
                transfers.insert().values(
                    code_hash=code_hash, player_id=player_id, expires_at=expires_at
                )
            )

    def claim_transfer(self, code_hash: str, token_hash: str) -> Player | None:
        """Use a transfer code once: a new token for its player, ``None`` if the code is
        unknown, used or expired."""
        with self.engine.begin() as conn:
            row = conn.execute(
                sa.select(transfers.c.player_id, transfers.c.expires_at).where(
                    transfers.c.code_hash == code_hash
                )
            ).first()
            if row is None:
                return None
            # The delete decides between two claims of one code: only one removes the row.
            gone = conn.execute(transfers.delete().where(transfers.c.code_hash == code_hash))
            if gone.rowcount != 1 or utc(row.expires_at) < now():
                return None
            conn.execute(
                tokens.insert().values(
                    token_hash=token_hash, player_id=row.player_id, created_at=now()
                )
            )
            name = conn.execute(
                sa.select(players.c.name).where(players.c.id == row.player_id)
            ).scalar_one()
        return Player(row.player_id, name)

    # --- scores ---------------------------------------------------------------------------

    def add_score(
        self,
        player_id: int,
        level_id: str,
        moves: int,
        pushes: int,
        lurd: str,
        seconds: float | None = None,
        conn: Connection | None = None,
    ) -> int:
        """Keep a verified solution; returns its row id. Committed before this returns
        (or with ``conn``'s transaction)."""
        values = dict(
            player_id=player_id,
            level_id=level_id,
            moves=moves,
            pushes=pushes,
            lurd=lurd,
            seconds=seconds,
            submitted_at=now(),
        )
        if conn is not None:
            return _key(conn.execute(scores.insert().values(**values)))
        with self.engine.begin() as c:
            return _key(c.execute(scores.insert().values(**values)))

    def submit(
        self, player_id: int, level_id: str, moves: int, pushes: int, lurd: str,
        seconds: float | None = None,
    ) -> tuple[bool, int, int]:  # fmt: skip
        """Keep a verified solution and rank it, in one transaction: whether it improves
        the player's best on either board, and the player's rank on each board after it."""
        mine = scores.c.level_id == level_id
        with self.engine.begin() as conn:
            rows = conn.execute(
                sa.select(scores.c.moves, scores.c.pushes).where(
                    mine, scores.c.player_id == player_id
                )
            ).all()
            improved = not rows or (
                (moves, pushes) < min((r.moves, r.pushes) for r in rows)
                or (pushes, moves) < min((r.pushes, r.moves) for r in rows)
            )
            self.add_score(player_id, level_id, moves, pushes, lurd, seconds, conn)
            ranks = []
            for board in BOARDS:
                best = conn.execute(
                    sa.select(scores.c.moves, scores.c.pushes, scores.c.submitted_at, scores.c.id)
                    .where(mine, scores.c.player_id == player_id)
                    .order_by(*_board_order(board, scores))
                    .limit(1)
                ).one()
                ranks.append(1 + self._better(conn, level_id, board, player_id, best))
        return improved, ranks[0], ranks[1]

    @staticmethod
    def _better(conn: Connection, level_id: str, board: str, player_id: int, best: Any) -> int:
        """Players other than ``player_id`` with a row ahead of ``best`` on ``board``
        (their best is ahead then): the player's rank is one more."""
        c = scores.c
        first, second = (c.moves, c.pushes) if board == "moves" else (c.pushes, c.moves)
        b1, b2 = (best.moves, best.pushes) if board == "moves" else (best.pushes, best.moves)
        ahead = sa.tuple_(first, second, c.submitted_at, c.id) < sa.tuple_(
            b1, b2, best.submitted_at, best.id
        )
        query = sa.select(sa.func.count(sa.distinct(c.player_id))).where(
            c.level_id == level_id, c.player_id != player_id, ahead
        )
        return int(conn.execute(query).scalar() or 0)

    def _board(self, level_id: str, board: str) -> Any:
        """Each player's best row on ``board`` of ``level_id``, ranked (a subquery)."""
        order = _board_order(board, scores)
        mine = (
            sa.select(
                scores,
                sa.func.row_number()
                .over(partition_by=scores.c.player_id, order_by=order)
                .label("n"),
            )
            .where(scores.c.level_id == level_id)
            .subquery()
        )
        ranked_order = _board_order(board, mine)
        return (
            sa.select(mine, sa.func.row_number().over(order_by=ranked_order).label("rank"))
            .where(mine.c.n == 1)
            .subquery()
        )

    def leaderboard(
        self, level_id: str, board: str, limit: int = 20, player_id: int | None = None
    ) -> tuple[list[Entry], Entry | None]:
        """The first ``limit`` entries of a board, and ``player_id``'s entry (or None)."""
        ranked = self._board(level_id, board)
        base = sa.select(ranked, players.c.name).select_from(
            ranked.join(players, players.c.id == ranked.c.player_id)
        )
        with self.engine.connect() as conn:
            rows = conn.execute(base.order_by(ranked.c.rank).limit(limit)).all()
            me = None
            if player_id is not None:
                me = conn.execute(base.where(ranked.c.player_id == player_id)).first()
        return [_entry(r) for r in rows], None if me is None else _entry(me)

    def board_size(self, level_id: str) -> int:
        query = sa.select(sa.func.count(sa.distinct(scores.c.player_id))).where(
            scores.c.level_id == level_id
        )
        with self.engine.connect() as conn:
            return int(conn.execute(query).scalar() or 0)

    def best(self, player_id: int, level_id: str, board: str) -> Entry | None:
        _, me = self.leaderboard(level_id, board, 0, player_id)
        return me

    def progress(self, player_id: int) -> dict[str, dict[str, dict[str, Any]]]:
        """The player's best solution per level and board: ``{level_id: {board: row}}``."""
        out: dict[str, dict[str, dict[str, Any]]] = {}
        for board in BOARDS:
            order = _board_order(board, scores)
            numbered = (
                sa.select(
                    scores,
                    sa.func.row_number()
                    .over(partition_by=scores.c.level_id, order_by=order)
                    .label("n"),
                )
                .where(scores.c.player_id == player_id)
                .subquery()
            )
            with self.engine.connect() as conn:
                rows = conn.execute(sa.select(numbered).where(numbered.c.n == 1)).all()
            for r in rows:
                out.setdefault(r.level_id, {})[board] = {
                    "moves": r.moves,
                    "pushes": r.pushes,
                    "lurd": r.lurd,
                }
        return out

    def count_scores(self) -> int:
        with self.engine.connect() as conn:
            return int(conn.execute(sa.select(sa.func.count()).select_from(scores)).scalar() or 0)

    def daily_solve_days(self, player_id: int) -> set[datetime.date]:
        """The days whose daily level the player solved on that very (UTC) day."""
        query = (
            sa.select(scores.c.level_id, sa.func.min(scores.c.submitted_at).label("first"))
            .where(scores.c.player_id == player_id, scores.c.level_id.like("daily/%"))
            .group_by(scores.c.level_id)
        )
        with self.engine.connect() as conn:
            rows = conn.execute(query).all()
        days = set()
        for row in rows:
            try:
                day = datetime.date.fromisoformat(row.level_id.removeprefix("daily/"))
            except ValueError:
                continue
            if utc(row.first).date() == day:
                days.add(day)
        return days

    def solved_levels(self, player_id: int) -> int:
        query = sa.select(sa.func.count(sa.distinct(scores.c.level_id))).where(
            scores.c.player_id == player_id
        )
        with self.engine.connect() as conn:
            return int(conn.execute(query).scalar() or 0)

    # --- daily levels ---------------------------------------------------------------------

    def daily(self, day: datetime.date) -> DailyRow | None:
        with self.engine.connect() as conn:
            row = conn.execute(
                sa.select(daily_levels).where(daily_levels.c.day == day.isoformat())
            ).first()
        return None if row is None else _daily(row)

    def add_daily(self, row: DailyRow) -> bool:
        """Store a day's level unless the day has one (made by another process, or
        earlier by an older generator: the first one stays). Returns whether it was new."""
        try:
            with self.engine.begin() as conn:
                conn.execute(
                    daily_levels.insert().values(
                        day=row.day.isoformat(),
                        band=row.band,
                        xsb=row.xsb,
                        solution=row.solution,
                        moves=row.moves,
                        pushes=row.pushes,
                        seed=row.seed,
                        created_at=now(),
                    )
                )
        except sa.exc.IntegrityError:
            return False
        return True

    def daily_days(self, until: datetime.date, limit: int = 366) -> list[DailyRow]:
        """Stored days up to ``until``, newest first."""
        query = (
            sa.select(daily_levels)
            .where(daily_levels.c.day <= until.isoformat())
            .order_by(daily_levels.c.day.desc())
            .limit(limit)
        )
        with self.engine.connect() as conn:
            return [_daily(r) for r in conn.execute(query).all()]

    def stored_days(self, days: Iterable[datetime.date]) -> set[datetime.date]:
        wanted = [d.isoformat() for d in days]
        query = sa.select(daily_levels.c.day).where(daily_levels.c.day.in_(wanted))
        with self.engine.connect() as conn:
            return {datetime.date.fromisoformat(r.day) for r in conn.execute(query).all()}


def _key(result: Any) -> int:
    """The primary key of an insert's row."""
    return int(result.inserted_primary_key[0])


def _entry(row: Any) -> Entry:
    return Entry(
        rank=int(row.rank),
        player_id=row.player_id,
        name=row.name,
        moves=row.moves,
        pushes=row.pushes,
        submitted_at=utc(row.submitted_at),
        lurd=row.lurd,
        seconds=row.seconds,
    )


def _daily(row: Any) -> DailyRow:
    return DailyRow(
        day=datetime.date.fromisoformat(row.day),
        band=row.band,
        xsb=row.xsb,
        solution=row.solution,
        moves=row.moves,
        pushes=row.pushes,
        seed=int(row.seed),
    )


# --- races ------------------------------------------------------------------------------

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
            key = _key(
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
            self._join(conn, key, host_id)

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
                    )
                )
            self._changed(conn, race.id, race.code)
        return closed, at
