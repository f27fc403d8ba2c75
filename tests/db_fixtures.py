"""Database fixtures: a throwaway PostgreSQL cluster for the session, and ``database_url``,
parametrized over SQLite and PostgreSQL, a fresh empty database for each test.

The cluster is made with ``initdb`` in a temporary directory and started with ``pg_ctl`` on
a free port, listening only on a unix socket in that directory (as the ``postgres`` user
when the tests run as root: PostgreSQL refuses to run as root). Without PostgreSQL the
PostgreSQL half of the tests is skipped, unless ``SOKOBAN_REQUIRE`` names ``postgresql``:
then it fails (CI installs it).
"""

from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest


def _program(name: str) -> str | None:
    found = shutil.which(name)
    if found:
        return found
    candidates = sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"))
    return candidates[-1] if candidates else None


def missing(reason: str) -> None:
    """Skip, or fail when ``SOKOBAN_REQUIRE`` says PostgreSQL must be there."""
    if "postgresql" in os.environ.get("SOKOBAN_REQUIRE", ""):
        pytest.fail(f"PostgreSQL is required (SOKOBAN_REQUIRE) but {reason}")
    pytest.skip(f"PostgreSQL tests skipped: {reason}")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Cluster:
    """A PostgreSQL server of our own: ``url(name)`` is a database of it."""

    def __init__(self) -> None:
        initdb, pg_ctl = _program("initdb"), _program("pg_ctl")
        if initdb is None or pg_ctl is None:
            missing("initdb/pg_ctl not found (apt-get install postgresql)")
        assert initdb is not None and pg_ctl is not None
        self.pg_ctl = pg_ctl
        self.folder = Path(tempfile.mkdtemp(prefix="sokoban-pg-"))
        self.data = self.folder / "data"
        self.port = _free_port()
        self.prefix: list[str] = []
        if os.geteuid() == 0:
            runuser = shutil.which("runuser")
            if runuser is None:
                missing("running as root and runuser is not found")
            shutil.chown(self.folder, "postgres", "postgres")
            self.prefix = [str(runuser), "-u", "postgres", "--"]
        self._run(
            initdb, "-D", str(self.data), "-U", "postgres", "-A", "trust", "-E", "UTF8",
            "--locale=C", "--no-sync",
        )  # fmt: skip
        options = (
            f"-p {self.port} -k {self.folder} -c listen_addresses='' -c fsync=off "
            "-c synchronous_commit=off -c full_page_writes=off -c max_connections=200"
        )
        self._run(
            pg_ctl, "-D", str(self.data), "-l", str(self.folder / "log"), "-o", options,
            "-w", "-t", "60", "start",
        )  # fmt: skip

    def _run(self, *args: str) -> None:
        done = subprocess.run([*self.prefix, *args], capture_output=True, text=True)
        if done.returncode != 0:
            log = self.folder / "log"
            extra = log.read_text()[-2000:] if log.exists() else ""
            raise RuntimeError(f"{args[0]} failed: {done.stderr.strip()}\n{extra}")

    def url(self, database: str = "postgres") -> str:
        return f"postgresql+psycopg://postgres@/{database}?host={self.folder}&port={self.port}"

    def create_database(self) -> str:
        import psycopg

        name = f"t_{uuid.uuid4().hex[:12]}"
        with psycopg.connect(
            host=str(self.folder), port=self.port, user="postgres", dbname="postgres",
            autocommit=True,
        ) as conn:  # fmt: skip
            conn.execute(f"CREATE DATABASE {name}")
        return self.url(name)

    def stop(self) -> None:
        subprocess.run(
            [*self.prefix, self.pg_ctl, "-D", str(self.data), "-m", "immediate", "-w", "stop"],
            capture_output=True,
        )
        shutil.rmtree(self.folder, ignore_errors=True)


@pytest.fixture(scope="session")
def postgresql() -> Iterator[Cluster]:
    """A running PostgreSQL cluster for the session (skipped, or failed, without one)."""
    try:
        import psycopg  # noqa: F401
    except ImportError:
        missing("psycopg is not installed (pip install -e '.[test]')")
    cluster = Cluster()
    try:
        yield cluster
    finally:
        cluster.stop()


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgresql)])
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A fresh database: a SQLite file, or a new database on the session's PostgreSQL."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'test.db'}"
    cluster: Cluster = request.getfixturevalue("postgresql")
    return cluster.create_database()
