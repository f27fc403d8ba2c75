"""The ``db`` commands: figures of the web game's database and an online backup.

sokoban db stats                          # the default SQLite file
sokoban db backup copy.db                 # while a server runs
sokoban db stats --db postgresql://user@host/sokoban
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click
import sqlalchemy as sa

from sokoban.cli import main
from sokoban.errors import SokobanError

if TYPE_CHECKING:
    from sokoban.store import Store

DB_HELP = "SQLite file or database URL [$XDG_DATA_HOME/sokoban/sokoban.db]."


def _open(url: str | None) -> Store:
    """The store at ``url``; a SQLite file must exist (a typo would make a new one)."""
    from sokoban.store import Store, database_url

    parsed = sa.engine.make_url(database_url(url))
    if parsed.get_backend_name() == "sqlite" and parsed.database not in (None, "", ":memory:"):
        if not Path(parsed.database).exists():
            raise SokobanError(f"{parsed.database}: no such database file")
    return Store(url)


@main.group()
def db() -> None:
    """The web game's database: figures and backups."""


@db.command()
@click.option("--db", "url", default=None, help=DB_HELP)
def stats(url: str | None) -> None:
    """Schema version, size and rows per table."""
    from sokoban.store_tools import stats as figures

    store = _open(url)
    try:
        click.echo(figures(store).table())
    finally:
        store.close()


@db.command()
@click.argument("path", type=click.Path(dir_okay=False))
@click.option("--db", "url", default=None, help=DB_HELP)
def backup(path: str, url: str | None) -> None:
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
    click.echo(f"backed up to {target}")
