"""docs/web.md stays true: every option of ``sokoban serve`` and ``sokoban db``, every
``Settings`` field and every table of the schema is in it, and it names no file outside
the repository."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import click
import sqlalchemy as sa

from sokoban.cli import main
from sokoban.migrations import open_store
from sokoban.web import Settings

ROOT = Path(__file__).resolve().parents[1]
DOC = (ROOT / "docs" / "web.md").read_text()


def _options(command: click.Command) -> list[str]:
    return [
        name
        for param in command.params
        if isinstance(param, click.Option)
        for name in param.opts + param.secondary_opts
        if name.startswith("--") and name != "--help"
    ]


def test_every_serve_and_db_option_is_documented() -> None:
    assert isinstance(main, click.Group)
    commands: list[click.Command] = [main.commands["serve"]]
    db = main.commands["db"]
    assert isinstance(db, click.Group)
    commands += db.commands.values()
    missing = [
        f"{command.name} {option}"
        for command in commands
        for option in _options(command)
        if f"`{option}" not in DOC and f"{option}`" not in DOC and f"{option} " not in DOC
    ]
    assert missing == []
    assert [f"db {name}" for name in db.commands if f"sokoban db {name}" not in DOC] == []


def test_every_setting_is_documented() -> None:
    missing = [f.name for f in dataclasses.fields(Settings) if f"`{f.name}`" not in DOC]
    assert missing == []


def test_every_table_is_documented() -> None:
    store = open_store("sqlite://")
    names = sa.inspect(store.engine).get_table_names()
    store.close()
    assert "scores" in names
    assert [n for n in names if n != "schema_version" and f"`{n}`" not in DOC] == []


def test_no_file_or_branch_outside_the_repository() -> None:
    assert "/work/" not in DOC and "contract" not in DOC.lower()
    assert not re.search(r"branch `", DOC)
    for path in re.findall(r"`((?:sokoban|tests|benchmarks|docs)/[\w/.-]+\.\w+)`", DOC):
        assert (ROOT / path).exists(), path
