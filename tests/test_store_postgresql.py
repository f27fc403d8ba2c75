"""The store on a real PostgreSQL server: the same migrations and queries as on SQLite.

Runs when ``SOKOBAN_TEST_POSTGRES`` holds a SQLAlchemy URL of a scratch database (its
tables ``schema_version`` and ``saved_levels`` are dropped), e.g.
``postgresql+psycopg://postgres@/postgres?host=/tmp/pgserver&port=54329``.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest
import sqlalchemy as sa

from sokoban import Level
from sokoban.store import MIGRATIONS, Store

URL = os.environ.get("SOKOBAN_TEST_POSTGRES")

pytestmark = [
    pytest.mark.postgresql,
    pytest.mark.skipif(not URL, reason="SOKOBAN_TEST_POSTGRES is not set"),
]


def _drop() -> None:
    assert URL is not None
    engine = sa.create_engine(URL)
    with engine.begin() as conn:
        conn.execute(sa.text("DROP TABLE IF EXISTS saved_levels, schema_version"))
    engine.dispose()


@pytest.fixture
def store() -> Iterator[Store]:
    _drop()
    made = Store(URL)
    yield made
    made.close()
    _drop()


def test_migrations_run_once(store: Store) -> None:
    assert store.version == len(MIGRATIONS) and not store.is_sqlite
    again = Store(URL)
    assert again.version == len(MIGRATIONS)
    with again.engine.connect() as conn:
        assert conn.execute(sa.text("SELECT count(*) FROM schema_version")).scalar() == len(
            MIGRATIONS
        )
    again.close()


def test_saved_levels_in_order(store: Store) -> None:
    level = Level.from_xsb("#####\n#@$.#\n#####")
    assert [store.save_level(level, f"n{i}") for i in range(3)] == [1, 2, 3]
    assert [lv.title for lv in store.levels(1)] == ["n1", "n2"]
    assert store.level(2) == level.with_metadata(title="n1")
    assert store.count_levels() == 3
