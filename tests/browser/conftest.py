"""Real-browser fixtures: one server (``create_app`` with a temporary SQLite database and one
solver, under uvicorn in a subprocess on a free 127.0.0.1 port) and one Debian chromium per
session, driven by Playwright's sync API.

Without chromium or Playwright the tests skip, saying why, unless ``SOKOBAN_REQUIRE``
contains ``chromium`` (CI sets it): then they fail.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from .web_helpers import CHROMIUM, LAUNCH_ARGS, LEVELS, Page, get_json

_SERVER = """
import sys
from pathlib import Path

import uvicorn

from sokoban.web import Settings, create_app

db, port, *files = sys.argv[1:]
# Today's daily level only: the days ahead would cost the tests CPU they do not use.
app = create_app(
    Settings(
        db=db,
        solvers=1,
        daily_ahead=0,
        collections=tuple(Path(f) for f in files),
        signup_burst=1000,
    )
)
uvicorn.run(app, host="127.0.0.1", port=int(port), log_level="warning")
"""


def _missing(reason: str) -> None:
    if "chromium" in os.environ.get("SOKOBAN_REQUIRE", ""):
        pytest.fail(f"browser tests required (SOKOBAN_REQUIRE) but {reason}")
    pytest.skip(reason)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@pytest.fixture(scope="package")
def levels_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("levels") / "browser.xsb"
    path.write_text(LEVELS, encoding="utf-8")
    return path


@pytest.fixture(scope="package")
def server(tmp_path_factory: pytest.TempPathFactory, levels_file: Path) -> Iterator[str]:
    """The base URL of a running server; stopped after the session."""
    try:
        import sokoban.web  # noqa: F401
    except ImportError as error:
        _missing(f"the web server cannot be imported ({error})")
    tmp = tmp_path_factory.mktemp("server")
    port = _free_port()
    log = open(tmp / "server.log", "w+b")  # noqa: SIM115 (closed below)
    proc = subprocess.Popen(
        [sys.executable, "-c", _SERVER, str(tmp / "game.db"), str(port), str(levels_file)],
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 180  # a cold start compiles the solver's kernels
    try:
        while True:
            if proc.poll() is not None:
                log.seek(0)
                raise RuntimeError(f"server exited: {log.read().decode(errors='replace')[-2000:]}")
            try:
                get_json(base + "/api/collections")
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise RuntimeError("server did not start in 180 s") from None
                time.sleep(0.2)
        yield base
    finally:
        proc.terminate()
        try:
            proc.wait(15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        log.close()


@pytest.fixture(scope="package")
def browser() -> Iterator[Any]:
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _missing("Playwright for Python is not installed")
    if not Path(CHROMIUM).exists():
        _missing(f"chromium not found at {CHROMIUM}")
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=LAUNCH_ARGS)
        yield browser
        browser.close()


@pytest.fixture(scope="package")
def collection_id(server: str) -> str:
    """The id the server gave the tests' collection (the one made from browser.xsb)."""
    for c in get_json(server + "/api/collections"):
        if c["count"] == 4 and c["id"] not in ("builtin", "mine"):
            return str(c["id"])
    raise AssertionError("the tests' collection is not listed")


@pytest.fixture
def web(browser: Any, server: str, request: pytest.FixtureRequest) -> Iterator[Page]:
    page = Page(browser, server, request.node.name)
    yield page
    errors = page.errors
    page.close()
    assert not errors, f"script errors in the page: {errors}"
