"""The API's documentation page (/docs) in a real browser: drawn from /openapi.json under
the strict CSP, with nothing refused and nothing fetched from elsewhere."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

pytestmark = pytest.mark.browser

CHROMIUM = "/usr/bin/chromium"
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


def _skip(reason: str) -> None:
    if "chromium" in os.environ.get("SOKOBAN_REQUIRE", ""):
        pytest.fail(f"browser tests required (SOKOBAN_REQUIRE) but {reason}")
    pytest.skip(reason)


@pytest.fixture(scope="module")
def base_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    if not shutil.which(CHROMIUM):
        _skip(f"{CHROMIUM} is not installed")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    folder: Path = tmp_path_factory.mktemp("docs")
    command = [sys.executable, "-m", "sokoban", "serve", "--port", str(port), "--solvers", "1"]
    env = {**os.environ, "XDG_DATA_HOME": str(folder)}
    server = subprocess.Popen(command, stdout=subprocess.PIPE, text=True, env=env)
    try:
        assert server.stdout is not None
        while "serving on" not in (line := server.stdout.readline()):
            assert line, "the server stopped before serving"
        yield f"http://127.0.0.1:{port}"
    finally:
        server.terminate()
        server.wait(timeout=30)


def test_docs_page_draws_every_operation(base_url: str) -> None:
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _skip("playwright is not installed")
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            page = browser.new_page()
            problems: list[str] = []
            page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
            requests: list[str] = []
            page.on("request", lambda r: requests.append(r.url))
            page.goto(f"{base_url}/docs")
            page.wait_for_selector("section h2")
            titles = page.locator("section h2").all_text_contents()
            assert "POST /api/solve" in titles and "GET /api/collections" in titles
            assert "LevelOut" in titles  # the schemas too
            assert problems == []
            assert all(url.startswith(base_url) for url in requests), requests
        finally:
            browser.close()
