"""Upkeep of the store: its figures (:func:`stats`), an online copy (:func:`backup`) and
the copy put back (:func:`restore`). None of them changes the schema.

Figures and copies work while a server uses the database. SQLite is copied with its backup API (page
by page, consistent even while others write); PostgreSQL with ``pg_dump`` (one
consistent snapshot, custom format: restore with ``pg_restore -d URL PATH``).
"""

from __future__ import annotations

import dataclasses
import os
import shutil
import sqlite3
import subprocess
from pathlib import Path

import sqlalchemy as sa

from sokoban.errors import StoreError
from sokoban.store import Store, schema_version


@dataclasses.dataclass(frozen=True)
class Stats:
    url: str
    version: int
    rows: dict[str, int]
    size: int | None  # bytes; None when the database cannot say

    def as_dict(self) -> dict[str, object]:
        """The figures as JSON-ready data (the URL's password hidden)."""
        return {
            "database": _shown(self.url),
            "version": self.version,
            "size": self.size,
            "rows": dict(sorted(self.rows.items())),
        }

    def table(self) -> str:
        """The figures as a few lines of text."""
        width = max(len(name) for name in self.rows) if self.rows else 5
        lines = [f"database  {_shown(self.url)}", f"schema    version {self.version}"]
        if self.size is not None:
            lines.append(f"size      {self.size:,} bytes")
        lines += [f"  {name:<{width}}  {count:>10,}" for name, count in sorted(self.rows.items())]
        return "\n".join(lines)


def _shown(url: str) -> str:
    """A URL with its password hidden."""
    return sa.engine.make_url(url).render_as_string(hide_password=True)


def stats(store: Store) -> Stats:
    """Schema version, rows per table and size of ``store``'s database."""
    engine = store.engine
    names = sa.inspect(engine).get_table_names()
    rows: dict[str, int] = {}
    with engine.connect() as conn:
        version = 0
        if schema_version.name in names:
            version = conn.execute(sa.select(sa.func.max(schema_version.c.version))).scalar() or 0
        for name in names:
            table = sa.table(name)
            rows[name] = int(
                conn.execute(sa.select(sa.func.count()).select_from(table)).scalar() or 0
            )
        size: int | None = None
        if store.is_sqlite:
            path = engine.url.database
            if path and path != ":memory:":
                size = sum(os.path.getsize(p) for p in (path, path + "-wal") if os.path.exists(p))
        else:
            size = int(
                conn.execute(sa.text("SELECT pg_database_size(current_database())")).scalar() or 0
            )
    return Stats(store.url, int(version), rows, size)


def backup(store: Store, path: str | os.PathLike[str]) -> Path:
    """Copy ``store``'s database to ``path`` (a new file) while it may be in use."""
    target = Path(path)
    if target.exists():
        raise StoreError(f"{target}: exists already; give a new file")
    if store.is_sqlite:
        raw = store.engine.raw_connection()
        try:
            source = raw.driver_connection
            assert isinstance(source, sqlite3.Connection)
            copy = sqlite3.connect(target)
            try:
                source.backup(copy)
            finally:
                copy.close()
        finally:
            raw.close()
        return target
    pg_dump = shutil.which("pg_dump")
    if pg_dump is None:
        raise StoreError(
            "pg_dump not found: install PostgreSQL's client programs "
            "(apt-get install postgresql-client) or back up with your own tools"
        )
    url = store.engine.url.set(drivername="postgresql").render_as_string(hide_password=False)
    done = subprocess.run(
        [pg_dump, "--format=custom", "--file", str(target), url], capture_output=True, text=True
    )
    if done.returncode != 0:
        target.unlink(missing_ok=True)
        reason = " ".join(done.stderr.split())[:300]
        raise StoreError(f"pg_dump failed: {reason}")
    return target


def restore(store: Store, path: str | os.PathLike[str]) -> Path:
    """Replace ``store``'s database by the copy at ``path`` (made by :func:`backup`); stop
    the servers using it first. SQLite: the file's pages copied in by the backup API (the
    copy must be a database of this game: it has a ``schema_version`` table). PostgreSQL:
    ``pg_restore --clean``. The schema is the copy's: upgrade afterwards if it is older."""
    source = Path(path)
    if not source.is_file():
        raise StoreError(f"{source}: no such backup file")
    if store.is_sqlite:
        try:
            copy = sqlite3.connect(f"file:{source}?mode=ro", uri=True)
            try:
                found = copy.execute(
                    "SELECT count(*) FROM sqlite_master WHERE name = 'schema_version'"
                ).fetchone()
                if not found or not found[0]:
                    raise StoreError(f"{source}: not a sokoban database (no schema_version)")
                raw = store.engine.raw_connection()
                try:
                    target = raw.driver_connection
                    assert isinstance(target, sqlite3.Connection)
                    copy.backup(target)
                finally:
                    raw.close()
            finally:
                copy.close()
        except sqlite3.DatabaseError as error:
            raise StoreError(f"{source}: cannot restore: {error}") from None
        store.engine.dispose()  # connections opened before the copy see the new pages
        return source
    pg_restore = shutil.which("pg_restore")
    if pg_restore is None:
        raise StoreError(
            "pg_restore not found: install PostgreSQL's client programs "
            "(apt-get install postgresql-client)"
        )
    url = store.engine.url.set(drivername="postgresql").render_as_string(hide_password=False)
    store.engine.dispose()
    done = subprocess.run(
        [pg_restore, "--clean", "--if-exists", "--no-owner", "--dbname", url, str(source)],
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        reason = " ".join(done.stderr.split())[:300]
        raise StoreError(f"pg_restore failed: {reason}")
    return source
