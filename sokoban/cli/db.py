"""The ``db`` commands: figures of the web game's database, backups, upgrades.

sokoban db stats                          # the default SQLite file
sokoban db backup copy.db                 # while a server runs
sokoban db upgrade                        # the schema brought up to date (a copy first)
sokoban db restore copy.db                # the copy put back (servers stopped)
sokoban db stats --db postgresql://user@host/sokoban

Only ``upgrade`` changes the schema; ``stats``, ``backup`` and ``restore`` leave it as
they find it.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click
import sqlalchemy as sa

from sokoban.cli import main
from sokoban.cli.common import echo_json, json_option
from sokoban.errors import SokobanError

if TYPE_CHECKING:
    from sokoban.store import Store

DB_HELP = "SQLite file or database URL [$XDG_DATA_HOME/sokoban/sokoban.db]."


def _open(url: str | None, new: bool = False) -> Store:
    """The store at ``url``; a SQLite file must exist (a typo would make a new one) unless
    ``new``."""
    from sokoban.store import Store, database_url

    parsed = sa.engine.make_url(database_url(url))
    if parsed.get_backend_name() == "sqlite" and parsed.database not in (None, "", ":memory:"):
        if not new and not Path(parsed.database).exists():
            raise SokobanError(f"{parsed.database}: no such database file")
    return Store(url)


@main.group()
def db() -> None:
    """The web game's database: figures, backups, upgrades."""


@db.command()
@click.option("--db", "url", default=None, help=DB_HELP)
@json_option
def stats(url: str | None, as_json: bool) -> None:
    """Schema version, size and rows per table."""
    from sokoban.store_tools import stats as figures

    store = _open(url)
    try:
        found = figures(store)
    finally:
        store.close()
    if as_json:
        echo_json(found.as_dict())
    else:
        click.echo(found.table())


@db.command()
@click.argument("path", type=click.Path(dir_okay=False))
@click.option("--db", "url", default=None, help=DB_HELP)
@json_option
def backup(path: str, url: str | None, as_json: bool) -> None:
    """Copy the database to PATH (a new file) while servers may be using it.

    SQLite: its online backup API. PostgreSQL: pg_dump's custom format (restore with
    pg_restore).
    """
    from sokoban.store_tools import backup as copy

    store = _open(url)
    try:
        target = copy(store, path)
    finally:
        store.close()
    if as_json:
        echo_json({"backup": str(target), "bytes": target.stat().st_size})
    else:
        click.echo(f"backed up to {target}")


@db.command()
@click.option("--db", "url", default=None, help=DB_HELP)
@click.option("--no-backup", is_flag=True, help="Upgrade a SQLite file without copying it first.")
@json_option
def upgrade(url: str | None, no_backup: bool, as_json: bool) -> None:
    """Bring the schema up to date (a new database gets the whole schema).

    A SQLite file with data is copied beside itself first (FILE.vN-TIME.bak);
    PostgreSQL is upgraded under an advisory lock, so two servers starting together
    cannot race.
    """
    from sokoban.migrations import upgrade as run

    store = _open(url, new=True)
    try:
        done = run(store, backup=not no_backup)
    finally:
        store.close()
    if as_json:
        echo_json(done.as_dict())
    elif done.before == done.version:
        click.echo(f"schema version {done.version}: up to date")
    else:
        kept = f" (copy in {done.backup})" if done.backup is not None else ""
        click.echo(f"schema version {done.before} -> {done.version}{kept}")


@db.command()
@click.argument("path", type=click.Path(dir_okay=False))
@click.option("--db", "url", default=None, help=DB_HELP)
@json_option
def restore(path: str, url: str | None, as_json: bool) -> None:
    """Put back the copy at PATH made by db backup (stop the servers first).

    SQLite: the file replaced page by page. PostgreSQL: pg_restore --clean. The schema is
    the copy's; run db upgrade afterwards if it is older.
    """
    from sokoban.migrations import current_version
    from sokoban.store_tools import restore as put_back

    store = _open(url, new=True)
    try:
        put_back(store, path)
        version = current_version(store)
    finally:
        store.close()
    if as_json:
        echo_json({"restored": path, "version": version})
    else:
        click.echo(f"restored {path} (schema version {version})")
