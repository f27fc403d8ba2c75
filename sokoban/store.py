"""Storage for the web game: SQLAlchemy Core over SQLite (the default) or PostgreSQL.

>>> store = Store("sqlite://")
>>> store.save_level(Level.from_xsb("#####\\n#@$.#\\n#####"), "Mine")
1
>>> store.count_levels(), store.level(1).title
(1, 'Mine')

The schema is built by :data:`MIGRATIONS`, applied in order at start-up and recorded in the
``schema_version`` table; a new table or column is a new function appended to the list,
never an edit of an old one (databases in the field have run the old ones). Migrations
use SQLAlchemy's DDL constructs and portable types, so the same list builds SQLite and
PostgreSQL. SQLite connections run in WAL mode (readers do not block the writer) with
foreign keys enforced.
"""

from __future__ import annotations

import datetime
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Engine

from sokoban.errors import SokobanError
from sokoban.level import Level


class StoreError(SokobanError):
    """A database that cannot be opened or is newer than this program."""


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

#: The player's own levels (collection ``mine`` of the web game), in the order saved.
saved_levels = sa.Table(
    "saved_levels",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("title", sa.String(200), nullable=False),
    sa.Column("xsb", sa.Text, nullable=False),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
)


# --- migrations -------------------------------------------------------------------------


def _create(conn: Connection, *tables: sa.Table) -> None:
    for table in tables:
        table.create(conn)


def _m1_saved_levels(conn: Connection) -> None:
    # Each migration declares its tables as they were then, on a metadata of its own, so a
    # later change to the schema above does not change what migration 1 builds.
    m = sa.MetaData()
    _create(
        conn,
        sa.Table(
            "saved_levels",
            m,
            sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
            sa.Column("title", sa.String(200), nullable=False),
            sa.Column("xsb", sa.Text, nullable=False),
            sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        ),
    )


#: ``(description, function(connection))`` in order; version ``n`` is the n-th (1-based).
#: Append only.
MIGRATIONS: list[tuple[str, Callable[[Connection], None]]] = [
    ("saved levels (the player's collection)", _m1_saved_levels),
]


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA busy_timeout=5000")
    cursor.close()


def _now() -> datetime.datetime:
    return datetime.datetime.now(datetime.UTC)


class Store:
    """A database holding the web game's data; the schema is brought up to date on open.

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
        try:
            self.version = self.migrate()
        except sa.exc.SQLAlchemyError as error:
            reason = " ".join(str(getattr(error, "orig", None) or error).split())
            raise StoreError(f"cannot open database {self.shown!r}: {reason}") from None

    def close(self) -> None:
        self.engine.dispose()

    # --- schema ---------------------------------------------------------------------------

    def migrate(self) -> int:
        """Apply the migrations this database has not had; returns its schema version.

        Each migration runs in its own transaction with its version row, so a failure
        leaves the database at the previous version.
        """
        with self.engine.begin() as conn:
            schema_version.create(conn, checkfirst=True)
        with self.engine.connect() as conn:
            current = conn.execute(sa.select(sa.func.max(schema_version.c.version))).scalar()
        current = current or 0
        if current > len(MIGRATIONS):
            raise StoreError(
                f"database {self.shown!r} has schema version {current}, newer than this "
                f"program's {len(MIGRATIONS)}"
            )
        for version in range(current + 1, len(MIGRATIONS) + 1):
            description, function = MIGRATIONS[version - 1]
            with self.engine.begin() as conn:
                function(conn)
                conn.execute(
                    schema_version.insert().values(
                        version=version, description=description, applied_at=_now()
                    )
                )
        return len(MIGRATIONS)

    # --- saved levels ---------------------------------------------------------------------

    def save_level(self, level: Level, title: str | None = None) -> int:
        """Keep ``level`` (its board and title) in the player's collection; returns its
        1-based number there."""
        title = (title if title is not None else level.title).strip()
        with self.engine.begin() as conn:
            row = conn.execute(
                saved_levels.insert().values(title=title[:200], xsb=level.xsb(), created_at=_now())
            )
            (key,) = row.inserted_primary_key  # type: ignore[misc]
            # Its number is its rank by id (ids may have gaps; another save may follow).
            count = conn.execute(
                sa.select(sa.func.count()).select_from(saved_levels).where(saved_levels.c.id <= key)
            ).scalar()
        return int(count or 0)

    def count_levels(self) -> int:
        with self.engine.connect() as conn:
            count = conn.execute(sa.select(sa.func.count()).select_from(saved_levels)).scalar()
        return int(count or 0)

    def levels(self, offset: int = 0, limit: int | None = None) -> list[Level]:
        """Saved levels in the order saved, from the ``offset``-th (0-based)."""
        query = (
            sa.select(saved_levels.c.title, saved_levels.c.xsb)
            .order_by(saved_levels.c.id)
            .offset(offset)
            .limit(limit)
        )
        with self.engine.connect() as conn:
            rows = conn.execute(query).all()
        return [Level.from_xsb(row.xsb).with_metadata(title=row.title) for row in rows]

    def level(self, number: int) -> Level | None:
        """The saved level numbered ``number`` (1-based), ``None`` if there is none."""
        if number < 1:
            return None
        found = self.levels(number - 1, 1)
        return found[0] if found else None
