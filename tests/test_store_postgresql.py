"""The store on a real PostgreSQL server: the same migrations and queries as on SQLite.

Runs on the session's throwaway PostgreSQL (tests/db_fixtures.py), or on the database
whose SQLAlchemy URL ``SOKOBAN_TEST_POSTGRES`` holds (a scratch database: its tables are
dropped), e.g.
``postgresql+psycopg://postgres@/postgres?host=/tmp/pgserver&port=54329``.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest
import sqlalchemy as sa

from sokoban import Level
from sokoban.migrations import MIGRATIONS, current_version, open_store
from sokoban.store import Store

URL = os.environ.get("SOKOBAN_TEST_POSTGRES")

pytestmark = [pytest.mark.postgresql]


@pytest.fixture(autouse=True)
def _url(request: pytest.FixtureRequest) -> None:
    global URL
    if not os.environ.get("SOKOBAN_TEST_POSTGRES"):
        URL = request.getfixturevalue("postgresql").create_database()


def _drop() -> None:
    assert URL is not None
    engine = sa.create_engine(URL)
    tables = sa.MetaData()
    tables.reflect(engine)  # every table the migrations made (later ones add more)
    tables.drop_all(engine)
    engine.dispose()


@pytest.fixture
def store() -> Iterator[Store]:
    _drop()
    made = open_store(URL)
    yield made
    made.close()
    _drop()


def test_migrations_run_once(store: Store) -> None:
    assert current_version(store) == len(MIGRATIONS) and not store.is_sqlite
    again = open_store(URL)
    assert current_version(again) == len(MIGRATIONS)
    with again.engine.connect() as conn:
        assert conn.execute(sa.text("SELECT count(*) FROM schema_version")).scalar() == len(
            MIGRATIONS
        )
    again.close()


def test_saved_levels_in_order(store: Store) -> None:
    level = Level.from_xsb("#####\n#@$.#\n#####")
    assert [store.save_level(level, f"n{i}") for i in range(3)] == [1, 2, 3]
    assert [saved.level.title for saved in store.levels(1)] == ["n1", "n2"]
    assert store.level(2) == level.with_metadata(title="n1")
    assert store.count_levels() == 3


def test_two_processes_upgrading_at_once_end_with_one_schema() -> None:
    import subprocess
    import sys

    _drop()
    assert URL is not None
    command = [sys.executable, "-m", "sokoban", "db", "upgrade", "--db", URL]
    runs = [subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            for _ in range(2)]  # fmt: skip
    outputs = [run.communicate(timeout=120)[0] for run in runs]
    assert [run.returncode for run in runs] == [0, 0], outputs
    # One of them applied the migrations, the other found them applied.
    assert sum("up to date" in out for out in outputs) == 1, outputs
    store = Store(URL)
    with store.engine.connect() as conn:
        versions = conn.execute(sa.text("SELECT version FROM schema_version")).scalars().all()
    assert sorted(versions) == list(range(1, len(MIGRATIONS) + 1))
    assert current_version(store) == len(MIGRATIONS)
    store.close()
    _drop()
