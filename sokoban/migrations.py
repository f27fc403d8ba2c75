"""The schema's history: :data:`MIGRATIONS`, applied in order by :func:`upgrade` and
recorded in the ``schema_version`` table.

>>> from sokoban.store import Store
>>> store = Store("sqlite://")
>>> current_version(store), upgrade(store).version, current_version(store) == len(MIGRATIONS)
(0, 4, True)

Opening a :class:`~sokoban.store.Store` never changes its schema: ``sokoban db upgrade``
and ``sokoban serve`` (unless ``--no-upgrade``) call :func:`upgrade`; ``db stats`` and
``db backup`` read the database as it is. A new table or column is a new function
appended to the list, never an edit of an old one (databases in the field have run the
old ones). Migrations use SQLAlchemy's DDL constructs and portable types, so the same list
builds SQLite and PostgreSQL. Each runs in its own transaction with its version row, so a
failure leaves the database at the previous version. On PostgreSQL an upgrade holds an
advisory lock, so two servers starting together apply each migration once; a SQLite file
that has data is copied beside itself first.
"""

from __future__ import annotations

import dataclasses
import datetime
import os
from collections.abc import Callable
from pathlib import Path

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from sokoban.errors import StoreError
from sokoban.records.players import name_skeleton
from sokoban.records.tables import players_v3, scores_v3, tables_v2
from sokoban.store import Store, saved_levels_v1, saved_levels_v4, schema_version

#: The key of the advisory lock an upgrade holds on PostgreSQL (any fixed 64-bit number).
LOCK_KEY = 0x50B0_BA11


def _m1_saved_levels(conn: Connection) -> None:
    # Each migration declares its tables as they were then, on a metadata of its own, so a
    # later change to the current schema does not change what an old migration builds.
    saved_levels_v1(sa.MetaData()).create(conn)


def _m2_records(conn: Connection) -> None:
    for table in tables_v2(sa.MetaData()).values():
        table.create(conn)


def _add_column(conn: Connection, table: sa.Table, name: str) -> None:
    ddl = sa.schema.CreateColumn(table.c[name]).compile(dialect=conn.dialect)
    conn.execute(sa.text(f"ALTER TABLE {table.name} ADD COLUMN {ddl}"))


def _m3_fair_play(conn: Connection) -> None:
    m = sa.MetaData()
    players, scores = players_v3(m), scores_v3(m)
    _add_column(conn, players, "name_skeleton")
    _add_column(conn, players, "recovery_hash")
    _add_column(conn, scores, "assisted")
    # Names already in use keep working: a lookalike of an earlier name gets a skeleton
    # of its own (its id), so the unique index can be built.
    seen: set[str] = set()
    rows = conn.execute(sa.select(players.c.id, players.c.name).order_by(players.c.id)).all()
    for row in rows:
        skeleton = name_skeleton(row.name)
        if skeleton in seen:
            skeleton = f"{skeleton}#{row.id}"
        seen.add(skeleton)
        conn.execute(players.update().where(players.c.id == row.id).values(name_skeleton=skeleton))
    sa.Index("ux_players_name_skeleton", players.c.name_skeleton, unique=True).create(conn)


def _m4_level_owners(conn: Connection) -> None:
    # A saved level was numbered by its rank in the order saved; from now on by its id,
    # which no later save can shift. The two differ only where ids have gaps (a failed
    # save on PostgreSQL): the scores and races naming such a level by its rank are moved
    # to its id, the highest rank first (a rank is never above its id, so no name taken
    # by a later move is still to be moved).
    old = saved_levels_v1(sa.MetaData())
    ids = conn.execute(sa.select(old.c.id).order_by(old.c.id)).scalars().all()
    named = [sa.table("scores", sa.column("level_id")), sa.table("races", sa.column("level_id"))]
    for rank, number in reversed(list(enumerate(ids, start=1))):
        if rank != number:
            for table in named:
                conn.execute(
                    table.update()
                    .where(table.c.level_id == f"mine/{rank}")
                    .values(level_id=f"mine/{number}")
                )
    # The owner: who saved it. Levels saved before owners were kept have none: no player's
    # collection lists them, and their links (mine/N) still open them for everyone.
    table = saved_levels_v4(sa.MetaData())
    column = sa.schema.CreateColumn(table.c.owner_id).compile(dialect=conn.dialect)
    conn.execute(sa.text(f"ALTER TABLE saved_levels ADD COLUMN {column} REFERENCES players (id)"))
    for index in table.indexes:
        index.create(conn)


#: ``(description, function(connection))`` in order; version ``n`` is the n-th (1-based).
#: Append only.
MIGRATIONS: list[tuple[str, Callable[[Connection], None]]] = [
    ("saved levels (the player's collection)", _m1_saved_levels),
    ("players, scores, daily levels, races", _m2_records),
    ("lookalike names, recovery codes, assisted scores", _m3_fair_play),
    ("saved levels numbered by id, with their owner", _m4_level_owners),
]


@dataclasses.dataclass(frozen=True)
class Upgrade:
    """What :func:`upgrade` did: the version before and after, and the SQLite copy made
    first (``None`` when nothing was applied or there was nothing to keep)."""

    before: int
    version: int
    backup: Path | None

    def as_dict(self) -> dict[str, object]:
        return {
            "before": self.before,
            "version": self.version,
            "backup": None if self.backup is None else str(self.backup),
        }


def _version(conn: Connection) -> int:
    if not sa.inspect(conn).has_table(schema_version.name):
        return 0
    return int(conn.execute(sa.select(sa.func.max(schema_version.c.version))).scalar() or 0)


def _reason(error: sa.exc.SQLAlchemyError) -> str:
    return " ".join(str(getattr(error, "orig", None) or error).split())


def current_version(store: Store) -> int:
    """The database's schema version (0 for an empty one); it is not changed."""
    try:
        with store.engine.connect() as conn:
            return _version(conn)
    except sa.exc.SQLAlchemyError as error:
        raise StoreError(f"cannot open database {store.shown!r}: {_reason(error)}") from None


def _newer(store: Store, version: int) -> StoreError:
    return StoreError(
        f"database {store.shown!r} has schema version {version}, newer than this "
        f"program's {len(MIGRATIONS)}"
    )


def require_current(store: Store) -> int:
    """The schema version, if it is this program's; :class:`StoreError` otherwise."""
    version = current_version(store)
    if version > len(MIGRATIONS):
        raise _newer(store, version)
    if version < len(MIGRATIONS):
        raise StoreError(
            f"database {store.shown!r} has schema version {version}, older than this "
            f"program's {len(MIGRATIONS)}: run sokoban db upgrade"
        )
    return version


def _backup_path(database: str, version: int) -> Path:
    stamp = datetime.datetime.now(datetime.UTC).strftime("%Y%m%dT%H%M%S")
    base = Path(f"{database}.v{version}-{stamp}.bak")
    path, n = base, 1
    while path.exists():
        n += 1
        path = base.with_name(f"{base.name}.{n}")
    return path


def upgrade(store: Store, backup: bool = True, target: int | None = None) -> Upgrade:
    """Apply the migrations the database has not had (up to version ``target``, by
    default all). A SQLite file with a schema is copied beside itself first (``backup``);
    PostgreSQL is upgraded under an advisory lock. :class:`StoreError` for a database
    newer than this program."""
    last = len(MIGRATIONS) if target is None else target
    if not 0 <= last <= len(MIGRATIONS):
        raise StoreError(f"no schema version {last}: this program has 1 to {len(MIGRATIONS)}")
    try:
        return _upgrade(store, backup, last)
    except sa.exc.SQLAlchemyError as error:
        raise StoreError(f"cannot upgrade database {store.shown!r}: {_reason(error)}") from None


def _upgrade(store: Store, backup: bool, last: int) -> Upgrade:
    with store.engine.connect() as conn:
        if not store.is_sqlite:
            conn.execute(sa.text("SELECT pg_advisory_lock(:k)"), {"k": LOCK_KEY})
            conn.commit()
        try:
            before = _version(conn)
            conn.commit()
            if before > len(MIGRATIONS):
                raise _newer(store, before)
            copy = None
            if before < last and before > 0 and backup and store.is_sqlite:
                database = sa.engine.make_url(store.url).database
                if database not in (None, "", ":memory:"):
                    from sokoban.store_tools import backup as copy_to

                    copy = copy_to(store, _backup_path(os.fspath(database), before))
            with conn.begin():
                schema_version.create(conn, checkfirst=True)
            for version in range(before + 1, last + 1):
                description, function = MIGRATIONS[version - 1]
                with conn.begin():
                    function(conn)
                    conn.execute(
                        schema_version.insert().values(
                            version=version,
                            description=description,
                            applied_at=datetime.datetime.now(datetime.UTC),
                        )
                    )
        finally:
            if not store.is_sqlite:
                conn.execute(sa.text("SELECT pg_advisory_unlock(:k)"), {"k": LOCK_KEY})
                conn.commit()
    return Upgrade(before, max(before, last), copy)


def open_store(url: str | os.PathLike[str] | None = None) -> Store:
    """The store at ``url``, upgraded (without a copy: for tests and scripts)."""
    store = Store(url)
    try:
        upgrade(store, backup=False)
    except BaseException:
        store.close()
        raise
    return store
