"""``sokoban db stats`` and ``sokoban db backup`` on SQLite and PostgreSQL."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from sokoban.cli import main
from sokoban.records import Records, hash_secret
from sokoban.store import Store


def test_stats_and_backup(database_url: str, tmp_path: Path) -> None:
    store = Store(database_url)
    records = Records(store)
    ada = records.add_player("Ada", hash_secret("t"))
    for moves in range(3):
        records.add_score(ada.id, "builtin/1", 10 + moves, 2, "x")
    runner = CliRunner()
    shown = runner.invoke(main, ["db", "stats", "--db", database_url])
    assert shown.exit_code == 0, shown.output
    lines = {line.split()[0]: line.split()[-1] for line in shown.output.splitlines() if line}
    assert lines["scores"] == "3" and lines["players"] == "1" and lines["schema"] == "2"
    assert "bytes" in shown.output
    if not store.is_sqlite and shutil.which("pg_dump") is None:
        pytest.skip("pg_dump not found")
    target = tmp_path / "copy.db"
    done = runner.invoke(main, ["db", "backup", str(target), "--db", database_url])
    assert done.exit_code == 0, done.output
    assert target.stat().st_size > 0
    if store.is_sqlite:
        copy = Records(Store(str(target)))
        assert copy.count_scores() == 3 and copy.store.version == store.version
    again = runner.invoke(main, ["db", "backup", str(target), "--db", database_url])
    assert again.exit_code == 2 and "exists already" in again.output
    store.close()


def test_stats_of_a_missing_file_is_an_error(tmp_path: Path) -> None:
    done = CliRunner().invoke(main, ["db", "stats", "--db", str(tmp_path / "none.db")])
    assert done.exit_code == 2 and "no such database file" in done.output
    assert not (tmp_path / "none.db").exists()
