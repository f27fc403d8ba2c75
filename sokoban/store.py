"""Storage for the web game: SQLAlchemy Core over SQLite (the default) or PostgreSQL.

>>> from sokoban.migrations import open_store
>>> store = open_store("sqlite://")
>>> store.save_level(Level.from_xsb("#####\\n#@$.#\\n#####"), "Mine")
1
>>> store.count_levels(), store.level(1).title
(1, 'Mine')

A saved level's number is its row's id: it never changes, whoever saved it, so ``mine/1``
names that level for everyone (share links, scores, races). Its ``owner`` (a player's id)
is whose collection lists it.

Opening a store never changes its schema: :mod:`sokoban.migrations` builds and upgrades
it (the ``schema_version`` table records the migrations applied). SQLite connections run
in WAL mode (readers do not block the writer) with foreign keys enforced.
"""

from __future__ import annotations

import dataclasses
import datetime
import os
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Engine

from sokoban.errors import StoreError
from sokoban.level import Level


def default_path() -> Path:
    """``$XDG_DATA_HOME/sokoban/sokoban.db``, else ``~/.local/share/sokoban/sokoban.db``."""
    base = os.environ.get("XDG_DATA_HOME") or os.path.join(Path.home(), ".local", "share")
    return Path(base) / "sokoban" / "sokoban.db"


def database_url(value: str | os.PathLike[str] | None = None) -> str:
    """A SQLAlchemy URL from ``--db``: a URL (``postgresql://...``, ``sqlite:///...``)
    as given, a path as a SQLite file, ``None`` as :func:`default_path`."""
    if value is None:
        value = default_path()
    text = os.fspath(value)
    if text.startswith(("postgresql://", "postgres://")):
        # psycopg 3 (the ``postgresql`` extra), not SQLAlchemy's default psycopg2.
        return "postgresql+psycopg://" + text.split("://", 1)[1]
    if "://" in text:
        return text
    return f"sqlite:///{Path(text).expanduser().resolve()}"


# --- the current schema (what queries use) ----------------------------------------------

metadata = sa.MetaData()

schema_version = sa.Table(
    "schema_version",
    metadata,
    sa.Column("version", sa.Integer, primary_key=True, autoincrement=False),
    sa.Column("description", sa.String(200), nullable=False),
    sa.Column("applied_at", sa.DateTime(timezone=True), nullable=False),
)


def saved_levels_v1(m: sa.MetaData) -> sa.Table:
    """``saved_levels`` as migration 1 made it."""
    return sa.Table(
        "saved_levels",
        m,
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("title", sa.String(200), nullable=False),
        sa.Column("xsb", sa.Text, nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )


def saved_levels_v4(m: sa.MetaData) -> sa.Table:
    """``saved_levels`` as migration 4 leaves it: with its owner, a player's id (the
    migration makes it a foreign key of ``players``; ``None`` for the levels saved before
    levels had owners)."""
    return sa.Table(
        "saved_levels",
        m,
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("title", sa.String(200), nullable=False),
        sa.Column("xsb", sa.Text, nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("owner_id", sa.Integer, nullable=True),
        sa.Index("ix_saved_levels_owner", "owner_id", "id"),
    )


#: The players' own levels (collection ``mine`` of the web game), numbered by their ids.
saved_levels = saved_levels_v4(metadata)


@dataclasses.dataclass(frozen=True)
class SavedLevel:
    """A saved level: its number (the row's id, never reused), its owner, the level."""

    number: int
    owner: int | None
    level: Level


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute("PRAGMA journal_mode=WAL")
    # In WAL mode NORMAL syncs at checkpoints, not at every commit: a committed write
    # survives the process being killed (it is in the WAL file); only a power cut or an OS
    # crash may lose the last commits. FULL would cap writes at one fsync each.
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.execute("PRAGMA busy_timeout=5000")
    cursor.close()


def _now() -> datetime.datetime:
    return datetime.datetime.now(datetime.UTC)


class Store:
    """A database holding the web game's data, opened as it is (see
    :func:`sokoban.migrations.upgrade` for its schema).

    ``url`` is anything :func:`database_url` accepts. A SQLite file's directory is made
    when missing.
    """

    def __init__(self, url: str | os.PathLike[str] | None = None) -> None:
        self.url = database_url(url)
        try:
            parsed = sa.engine.make_url(self.url)
        except sa.exc.ArgumentError:
            raise StoreError(f"not a database URL: {self.url!r}") from None
        #: What messages quote: the URL without its password.
        self.shown = parsed.render_as_string(hide_password=True)
        self.is_sqlite = parsed.get_backend_name() == "sqlite"
        if self.is_sqlite and parsed.database not in (None, "", ":memory:"):
            Path(parsed.database).parent.mkdir(parents=True, exist_ok=True)
        try:
            self.engine: Engine = sa.create_engine(parsed)
        except (sa.exc.ArgumentError, ImportError) as error:
            raise StoreError(f"cannot use database {self.shown!r}: {error}") from None
        if self.is_sqlite:
            sa.event.listen(self.engine, "connect", _sqlite_pragmas)

    def close(self) -> None:
        self.engine.dispose()

    # --- saved levels ---------------------------------------------------------------------

    def save_level(self, level: Level, title: str | None = None, owner: int | None = None) -> int:
        """Keep ``level`` (its board and title) as ``owner``'s (a player's id); returns
        its number, the same for everyone from then on."""
        title = (title if title is not None else level.title).strip()
        values = {"title": title[:200], "xsb": level.xsb(), "created_at": _now(), "owner_id": owner}
        with self.engine.begin() as conn:
            row = conn.execute(saved_levels.insert().values(**values))
            (number,) = row.inserted_primary_key  # type: ignore[misc]
        return int(number)

    def count_levels(self, owner: int | None = None) -> int:
        """How many levels ``owner`` saved; every saved level's count when ``None``."""
        query = sa.select(sa.func.count()).select_from(saved_levels)
        if owner is not None:
            query = query.where(saved_levels.c.owner_id == owner)
        with self.engine.connect() as conn:
            count = conn.execute(query).scalar()
        return int(count or 0)

    def levels(
        self, offset: int = 0, limit: int | None = None, owner: int | None = None
    ) -> list[SavedLevel]:
        """``owner``'s saved levels (every one when ``None``) in the order saved, from the
        ``offset``-th (0-based)."""
        query = sa.select(saved_levels).order_by(saved_levels.c.id).offset(offset).limit(limit)
        if owner is not None:
            query = query.where(saved_levels.c.owner_id == owner)
        with self.engine.connect() as conn:
            rows = conn.execute(query).all()
        return [_saved(row) for row in rows]

    def saved(self, number: int) -> SavedLevel | None:
        """The saved level numbered ``number``, whoever's it is; ``None`` if there is none."""
        with self.engine.connect() as conn:
            row = conn.execute(sa.select(saved_levels).where(saved_levels.c.id == number)).first()
        return None if row is None else _saved(row)

    def level(self, number: int) -> Level | None:
        """The level of :meth:`saved`."""
        found = self.saved(number)
        return None if found is None else found.level


def _saved(row: Any) -> SavedLevel:
    level = Level.from_xsb(row.xsb).with_metadata(title=row.title)
    return SavedLevel(int(row.id), row.owner_id, level)
