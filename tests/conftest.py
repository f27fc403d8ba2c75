"""Shared test fixtures: where the public collections and our own test levels live."""

from __future__ import annotations

from pathlib import Path

import pytest

#: The public collections (microban, xsokoban, boxoban, optimal.csv) beside the repository:
#: /work/shared/levels here, ``<clone>/../shared/levels`` in CI.
SHARED_LEVELS = Path(__file__).resolve().parents[2] / "shared" / "levels"
#: Small level files of our own.
DATA = Path(__file__).resolve().parent / "data"


@pytest.fixture(scope="session")
def shared_levels() -> Path:
    """The folder of public collections; skips the test when it is absent."""
    if not SHARED_LEVELS.is_dir():
        pytest.skip(f"public level collections not found at {SHARED_LEVELS}")
    return SHARED_LEVELS


@pytest.fixture(scope="session")
def data_dir() -> Path:
    """tests/data: the project's own small level files."""
    return DATA


# Databases for the storage tests: SQLite and a throwaway PostgreSQL (tests/db_fixtures.py).
from db_fixtures import database_url, postgresql  # noqa: E402, F401
