"""What the browser tests share: the tests' level collection, the launch arguments, a
page wrapper with helpers (fresh context, script errors collected, screenshots, cell clicks),
the server's API called from a test, and signing in on the player page."""

from __future__ import annotations

import json
import urllib.request
from pathlib import Path
from typing import Any

CHROMIUM = "/usr/bin/chromium"
LAUNCH_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
#: Screenshots of the main screens, kept as test artefacts (git-ignored).
ARTIFACTS = Path(__file__).resolve().parent / "artifacts"
#: Our own small level files, and the public collections beside the repository.
DATA = Path(__file__).resolve().parents[1] / "data"
SHARED_LEVELS = Path(__file__).resolve().parents[3] / "shared" / "levels"

#: A hostile title: it must show as these characters, never run or load anything.
HOSTILE = '<script>window.__pwned=1</script><img src=x onerror="window.__pwned=2">'

#: The collection the tests play: small levels whose answers are worked out in the tests.
LEVELS = f"""; Levels for the browser tests

Title: Two boxes
######
#@ $.#
# $. #
######
Solution: rRlldR

Title: Corridor
#######
#@ $ .#
#  #  #
#     #
#######

Title: {HOSTILE}
Author: <b>bold</b>
#####
#@$.#
#####

Title: Room
########
#      #
# $  . #
# @$ . #
#      #
########
"""


def get_json(url: str) -> Any:
    with urllib.request.urlopen(url, timeout=10) as response:
        return json.load(response)


class Page:
    """A fresh browser context (empty localStorage) on the server, with helpers; any script
    error in the page fails the test."""

    def __init__(self, browser: Any, base: str, name: str, instant: bool = True) -> None:
        self.base = base
        self.name = name
        self.context = browser.new_context(viewport={"width": 1000, "height": 760})
        if instant:
            # Instant moves: the tests look at positions, not at animations.
            self.context.add_init_script(
                "if (!localStorage.getItem('sokoban:settings'))"
                " localStorage.setItem('sokoban:settings',"
                " JSON.stringify({speed: 'instant', speedChosen: true}));"
            )
        self.page = self.context.new_page()
        self.page.set_default_timeout(10_000)
        self.errors: list[str] = []
        self.page.on("pageerror", lambda error: self.errors.append(str(error)))
        # Console errors too: a CSP violation or a failed request shows only there.
        self.page.on(
            "console",
            lambda message: self.errors.append(message.text) if message.type == "error" else None,
        )

    def goto(self, route: str) -> None:
        self.page.goto(f"{self.base}/{route}")

    def shot(self, label: str) -> None:
        ARTIFACTS.mkdir(exist_ok=True)
        self.page.screenshot(path=str(ARTIFACTS / f"{self.name}-{label}.png"))

    def cell_point(self, selector: str, row: int, col: int) -> tuple[float, float]:
        """The page coordinates of a cell's centre on a board canvas (a board trimmed to its
        outer wall says where its first row and column are: ``data-row0``, ``data-col0``)."""
        canvas = self.page.locator(selector)
        box = canvas.bounding_box()
        assert box is not None
        cols = int(canvas.get_attribute("data-cols") or 0)
        rows = int(canvas.get_attribute("data-rows") or 0)
        col0 = int(canvas.get_attribute("data-col0") or 0)
        row0 = int(canvas.get_attribute("data-row0") or 0)
        return (
            box["x"] + (col - col0 + 0.5) * box["width"] / cols,
            box["y"] + (row - row0 + 0.5) * box["height"] / rows,
        )

    def click_cell(self, selector: str, row: int, col: int) -> None:
        self.page.mouse.click(*self.cell_point(selector, row, col))

    def close(self) -> None:
        self.context.close()


def call(
    method: str, url: str, body: Any = None, token: str | None = None, timeout: float = 10
) -> Any:
    """The server's JSON API from the test (players and scores made without a browser)."""
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, method=method)
    request.add_header("Content-Type", "application/json")
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    with urllib.request.urlopen(request, timeout=timeout) as response:
        return json.load(response)


def wait_text(web: Page, selector: str, how: str, value: str, timeout: float = 10_000) -> None:
    """Wait until the text of ``selector`` is (``is``), starts with (``starts``) or holds
    (``has``) ``value`` (a function with arguments: the page's CSP forbids eval)."""
    web.page.wait_for_function(
        "([s, how, v]) => { const n = document.querySelector(s); if (!n) return false;"
        " const t = n.textContent;"
        " return how === 'is' ? t === v : how === 'starts' ? t.startsWith(v) : t.includes(v); }",
        arg=[selector, how, value],
        timeout=timeout,
    )


def kept_code(web: Page) -> str:
    """The recovery code sign-up shows once, read and its dialog closed."""
    web.page.wait_for_selector("#recovery-dialog[open]")
    code = web.page.locator("#recovery-code").inner_text()
    web.page.click("#recovery-kept")
    return code


def sign_in(web: Page, name: str) -> str:
    """Pick ``name`` on the player page; returns the recovery code shown."""
    web.goto("#/player")
    web.page.fill("#player-name", name)
    web.page.click("#player-form button[type=submit]")
    code = kept_code(web)
    web.page.wait_for_selector("#player-in:not([hidden])")
    wait_text(web, "#player-message", "has", "merged")
    assert web.page.locator("#player-link").inner_text() == name
    return code


def token_of(web: Page) -> str:
    value = web.page.evaluate("() => localStorage.getItem('sokoban:player')")
    return str(json.loads(value)["token"])
