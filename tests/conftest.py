"""Shared test fixtures: where the public collections and our own test levels live."""

from __future__ import annotations

from pathlib import Path

import pytest
from public import PUBLIC, SHARED_LEVELS, PublicLevels

#: Small level files of our own.
DATA = Path(__file__).resolve().parent / "data"

__all__ = ["DATA", "SHARED_LEVELS"]


@pytest.fixture(scope="session")
def public_levels() -> PublicLevels:
    """The public collections, or their sample in tests/data/public when they are absent
    (see tests/public.py): never skips."""
    return PUBLIC


@pytest.fixture(scope="session")
def shared_levels() -> Path:
    """The folder of the full public collections; skips the test when it is absent.

    Prefer :func:`public_levels`, which falls back to the sample instead of skipping.
    """
    if PUBLIC.is_sample:
        pytest.skip(f"public level collections not found at {SHARED_LEVELS}")
    return PUBLIC.folder


@pytest.fixture(scope="session")
def data_dir() -> Path:
    """tests/data: the project's own small level files."""
    return DATA
