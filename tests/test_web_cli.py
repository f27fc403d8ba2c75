"""``sokoban serve`` through click's runner (``--get`` answers in-process, no network),
one real server on a free port, and the store's migrations."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
import sqlalchemy as sa
from click.testing import CliRunner

from sokoban.cli import main
from sokoban.errors import StoreError
from sokoban.migrations import MIGRATIONS, current_version, open_store
from sokoban.store import database_url, default_path


def run(*args: str, db: Path) -> object:
    return CliRunner().invoke(main, ["serve", "--db", str(db), *args])


def test_get_answers_one_request_in_process(tmp_path: Path) -> None:
    result = run("--get", "/api/collections", db=tmp_path / "a.db")
    assert result.exit_code == 0, result.output  # type: ignore[attr-defined]
    ids = [c["id"] for c in json.loads(result.output)]  # type: ignore[attr-defined]
    assert ids == ["builtin", "mine"]


def test_get_with_files_and_a_missing_level(tmp_path: Path) -> None:
    level = tmp_path / "one.xsb"
    level.write_text("Title: One\n#####\n#@$.#\n#####\n")
    result = run(str(level), "--get", "/api/levels/one/1", db=tmp_path / "a.db")
    assert result.exit_code == 0 and json.loads(result.output)["title"] == "One"  # type: ignore[attr-defined]
    missing = run("--get", "/api/levels/builtin/9999", db=tmp_path / "a.db")
    assert missing.exit_code == 2  # type: ignore[attr-defined]
    assert "answered 404" in missing.output  # type: ignore[attr-defined]


def test_bad_file_is_one_line_error(tmp_path: Path) -> None:
    bad = tmp_path / "bad.xsb"
    bad.write_text("hello\nworld\n")
    result = run(str(bad), "--get", "/", db=tmp_path / "a.db")
    assert result.exit_code == 2  # type: ignore[attr-defined]
    lines = result.output.strip().splitlines()  # type: ignore[attr-defined]
    assert len(lines) == 1 and lines[0].startswith("error: ") and "bad.xsb" in lines[0]
    missing = run(str(tmp_path / "nope.xsb"), db=tmp_path / "a.db")
    assert missing.exit_code == 2  # type: ignore[attr-defined]


def test_bad_database_is_one_line_error(tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["serve", "--db", "nosuchdriver://x", "--get", "/"])
    assert result.exit_code == 2  # type: ignore[attr-defined]
    assert result.output.startswith("error: ") and result.output.count("\n") == 1  # type: ignore[attr-defined]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_serve_prints_the_url_and_stops_on_sigterm(tmp_path: Path) -> None:
    port = _free_port()
    env = {**os.environ, "XDG_DATA_HOME": str(tmp_path)}
    command = [sys.executable, "-m", "sokoban", "serve", "--port", str(port), "--solvers", "1"]
    server = subprocess.Popen(command, stdout=subprocess.PIPE, text=True, env=env)
    try:
        assert server.stdout is not None
        deadline = time.monotonic() + 120
        line = ""
        while "serving on" not in line and time.monotonic() < deadline:
            line = server.stdout.readline()
        assert f"http://127.0.0.1:{port}/" in line
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/health", timeout=10) as r:
            assert json.load(r)["status"] == "ok"
        body = json.dumps({"level": "#######\n#@ $ .#\n#######"}).encode()
        request = urllib.request.Request(
            f"http://127.0.0.1:{port}/api/solve",
            body,
            {"content-type": "application/json"},
        )
        with urllib.request.urlopen(request, timeout=30) as r:
            assert json.load(r)["lurd"] == "rRR"
        assert (tmp_path / "sokoban" / "sokoban.db").exists()
    finally:
        server.terminate()
        assert server.wait(timeout=30) == 0


# --- the store ----------------------------------------------------------------------------


def test_default_path_and_urls(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    assert default_path() == tmp_path / "sokoban" / "sokoban.db"
    assert database_url("x.db").startswith("sqlite:////")
    # psycopg 3, not SQLAlchemy's default driver (psycopg2, not installed)
    assert database_url("postgresql://u@h/db") == "postgresql+psycopg://u@h/db"
    assert database_url("postgresql+psycopg://u@h/db") == "postgresql+psycopg://u@h/db"


def test_migrations_are_recorded_and_sqlite_runs_wal(tmp_path: Path) -> None:
    store = open_store(tmp_path / "deep" / "s.db")
    assert current_version(store) == len(MIGRATIONS)
    with store.engine.connect() as conn:
        versions = conn.execute(sa.text("SELECT version FROM schema_version")).scalars().all()
        assert versions == list(range(1, len(MIGRATIONS) + 1))
        assert conn.execute(sa.text("PRAGMA journal_mode")).scalar() == "wal"
        assert conn.execute(sa.text("PRAGMA foreign_keys")).scalar() == 1
    store.close()
    again = open_store(tmp_path / "deep" / "s.db")  # upgrading again applies nothing twice
    assert current_version(again) == len(MIGRATIONS)
    again.close()


def test_a_newer_database_is_refused(tmp_path: Path) -> None:
    store = open_store(tmp_path / "s.db")
    with store.engine.begin() as conn:
        conn.execute(
            sa.text(
                "INSERT INTO schema_version (version, description, applied_at) "
                "VALUES (:v, 'future', CURRENT_TIMESTAMP)"
            ),
            {"v": len(MIGRATIONS) + 1},
        )
    store.close()
    with pytest.raises(StoreError, match="newer than this program"):
        open_store(tmp_path / "s.db")


def test_saved_levels_keep_their_order_and_owners(tmp_path: Path) -> None:
    from sokoban import Level
    from sokoban.records import Records, hash_secret

    store = open_store(tmp_path / "s.db")
    records = Records(store)
    ada, bob = (records.add_player(name, hash_secret(name)).id for name in ("Ada", "Bob"))
    level = Level.from_xsb("#####\n#@$.#\n#####")
    owners = [ada, bob, ada, None]
    assert [store.save_level(level, f"n{i}", o) for i, o in enumerate(owners)] == [1, 2, 3, 4]
    assert [s.level.title for s in store.levels(1, 5)] == ["n1", "n2", "n3"]
    assert [(s.number, s.level.title) for s in store.levels(owner=ada)] == [(1, "n0"), (3, "n2")]
    assert [s.number for s in store.levels(1, owner=ada)] == [3]
    assert (store.count_levels(), store.count_levels(ada), store.count_levels(bob)) == (4, 2, 1)
    assert store.saved(2) is not None and store.saved(2).owner == bob
    assert store.level(3).title == "n2" and store.level(5) is None and store.level(0) is None
    with pytest.raises(sa.exc.IntegrityError):  # an owner is a player
        store.save_level(level, "nobody's", 999)
    store.close()


def test_migration_4_gives_saved_levels_owners_and_keeps_their_ids(database_url: str) -> None:
    """An old database (schema 3) with saved levels, one of them deleted (a gap in the ids,
    as a failed save leaves on PostgreSQL), and scores and a race naming levels by their
    old numbers (their ranks): upgraded, the levels are numbered by id and every record
    still names the level it named."""
    from sokoban import Level
    from sokoban.migrations import upgrade
    from sokoban.records import Records, hash_secret
    from sokoban.records.tables import now, races, scores
    from sokoban.store import Store, saved_levels_v1

    old = Store(database_url)
    upgrade(old, backup=False, target=3)
    rows = saved_levels_v1(sa.MetaData())
    corridor = Level.from_xsb("#######\n#@ $ .#\n#######")
    ada = Records(old).add_player("Ada", hash_secret("a")).id
    with old.engine.begin() as conn:
        for title in ("one", "two", "three", "four"):
            conn.execute(rows.insert().values(title=title, xsb=corridor.xsb(), created_at=now()))
        conn.execute(rows.delete().where(rows.c.title == "two"))
        # Before: "three" was mine/2, "four" mine/3 (ranks).
        score = {"player_id": ada, "moves": 3, "pushes": 2, "lurd": "rRR"}
        for rank in (1, 2, 3):
            values = {**score, "level_id": f"mine/{rank}", "submitted_at": now()}
            conn.execute(scores.insert().values(**values))
        race = {"code": "c", "host_id": ada, "xsb": corridor.xsb(), "time_limit": 60}
        values = {**race, "level_id": "mine/3", "countdown": 0, "created_at": now(), "version": 1}
        conn.execute(races.insert().values(**values))
    old.close()
    store = open_store(database_url)
    assert current_version(store) == len(MIGRATIONS)
    saved = store.levels()
    assert [(s.number, s.level.title, s.owner) for s in saved] == [
        (1, "one", None),
        (3, "three", None),
        (4, "four", None),
    ]
    with store.engine.connect() as conn:
        named = conn.execute(sa.select(scores.c.level_id).order_by(scores.c.id)).scalars().all()
        race = conn.execute(sa.select(races.c.level_id)).scalar()
    assert named == ["mine/1", "mine/3", "mine/4"] and race == "mine/4"
    # Levels without an owner are in no player's collection; their numbers still open them.
    assert store.count_levels(ada) == 0 and store.level(3).title == "three"
    assert store.save_level(corridor, "new", ada) == 5
    assert [s.number for s in store.levels(owner=ada)] == [5]
    store.close()


def test_database_errors_hide_the_password() -> None:
    result = CliRunner().invoke(
        main, ["serve", "--db", "postgresql+psycopg://u:hunter2@127.0.0.1:1/x", "--get", "/"]
    )
    assert result.exit_code == 2 and "hunter2" not in result.output
    assert "u:***@127.0.0.1" in result.output
