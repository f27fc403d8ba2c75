"""``sokoban db stats``, ``backup``, ``upgrade`` and ``restore`` on SQLite and PostgreSQL."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import sqlalchemy as sa
from click.testing import CliRunner

from sokoban.cli import main
from sokoban.migrations import MIGRATIONS, current_version, open_store
from sokoban.records import NameTakenError, Records, hash_secret
from sokoban.store import Store


def test_stats_and_backup(database_url: str, tmp_path: Path) -> None:
    store = open_store(database_url)
    records = Records(store)
    ada = records.add_player("Ada", hash_secret("t"))
    for moves in range(3):
        records.add_score(ada.id, "builtin/1", 10 + moves, 2, "x")
    runner = CliRunner()
    shown = runner.invoke(main, ["db", "stats", "--db", database_url])
    assert shown.exit_code == 0, shown.output
    lines = {line.split()[0]: line.split()[-1] for line in shown.output.splitlines() if line}
    assert lines["scores"] == "3" and lines["players"] == "1"
    assert lines["schema"] == str(len(MIGRATIONS))
    assert "bytes" in shown.output
    if not store.is_sqlite and shutil.which("pg_dump") is None:
        pytest.skip("pg_dump not found")
    target = tmp_path / "copy.db"
    done = runner.invoke(main, ["db", "backup", str(target), "--db", database_url])
    assert done.exit_code == 0, done.output
    assert target.stat().st_size > 0
    if store.is_sqlite:
        copy = Records(Store(str(target)))
        assert copy.count_scores() == 3
        assert current_version(copy.store) == current_version(store)
    again = runner.invoke(main, ["db", "backup", str(target), "--db", database_url])
    assert again.exit_code == 2 and "exists already" in again.output
    store.close()


def test_stats_of_a_missing_file_is_an_error(tmp_path: Path) -> None:
    done = CliRunner().invoke(main, ["db", "stats", "--db", str(tmp_path / "none.db")])
    assert done.exit_code == 2 and "no such database file" in done.output
    assert not (tmp_path / "none.db").exists()


def _old_file(path: Path) -> Path:
    """A SQLite file at schema version 2 with one player and one score."""
    from sokoban.migrations import upgrade
    from sokoban.records.tables import tables_v2

    store = Store(path)
    upgrade(store, backup=False, target=2)
    old = tables_v2(sa.MetaData())
    with store.engine.begin() as conn:
        conn.execute(old["players"].insert().values(id=1, name="Ada", name_key="ada",
                                                    created_at=sa.func.now()))  # fmt: skip
        conn.execute(old["scores"].insert().values(player_id=1, level_id="builtin/1", moves=3,
                                                   pushes=2, lurd="rRR",
                                                   submitted_at=sa.func.now()))  # fmt: skip
    store.close()
    return path


def _version(path: Path) -> int:
    store = Store(path)
    try:
        return current_version(store)
    finally:
        store.close()


def test_stats_and_backup_leave_an_old_schema_as_it_is(tmp_path: Path) -> None:
    db = _old_file(tmp_path / "old.db")
    runner = CliRunner()
    assert runner.invoke(main, ["db", "stats", "--db", str(db)]).exit_code == 0
    done = runner.invoke(main, ["db", "backup", str(tmp_path / "copy.db"), "--db", str(db)])
    assert done.exit_code == 0, done.output
    assert _version(db) == 2 and _version(tmp_path / "copy.db") == 2


def test_upgrade_keeps_a_copy_and_restore_puts_it_back(tmp_path: Path) -> None:
    db = _old_file(tmp_path / "old.db")
    runner = CliRunner()
    done = runner.invoke(main, ["db", "upgrade", "--db", str(db), "--json"])
    assert done.exit_code == 0, done.output
    answer = json.loads(done.output)
    assert (answer["before"], answer["version"]) == (2, len(MIGRATIONS))
    copy = Path(answer["backup"])
    assert copy.parent == tmp_path and _version(copy) == 2 and _version(db) == len(MIGRATIONS)
    store = open_store(db)
    records = Records(store)
    assert records.leaderboard("builtin/1", "moves")[0][0].name == "Ada"  # kept, ranked
    records.add_player("Bob", hash_secret("b"))
    with pytest.raises(NameTakenError):  # the old name got its lookalike key
        records.add_player("\u0410da", hash_secret("c"))
    store.close()
    again = runner.invoke(main, ["db", "upgrade", "--db", str(db)])
    assert again.exit_code == 0 and "up to date" in again.output
    put_back = runner.invoke(main, ["db", "restore", str(copy), "--db", str(db)])
    assert put_back.exit_code == 0, put_back.output
    assert _version(db) == 2
    refused = runner.invoke(main, ["db", "restore", str(tmp_path / "none.db"), "--db", str(db)])
    assert refused.exit_code == 2 and "no such backup file" in refused.output


def test_serve_no_upgrade_refuses_an_old_schema(tmp_path: Path) -> None:
    db = _old_file(tmp_path / "old.db")
    args = ["serve", "--db", str(db), "--no-upgrade", "--get", "/api/health"]
    done = CliRunner().invoke(main, args)
    assert done.exit_code == 2 and "sokoban db upgrade" in done.output
    assert _version(db) == 2
