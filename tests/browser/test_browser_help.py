"""The solver's help in a real browser: a hint waits out a busy solver's Retry-After and is
asked again, and a solve the solver helped is submitted as assisted (an unhelped one is not)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from .test_browser_compete import _call
from .web_helpers import Page

pytestmark = pytest.mark.browser

#: The solved dialog's line about the submission holds the server's answer.
ANSWERED = (
    "() => { const t = document.querySelector('#solved-server')?.textContent || '';"
    " return t.length > 0 && !t.startsWith('Sending'); }"
)


def test_a_hint_is_asked_again_after_retry_after(web: Page, collection_id: str) -> None:
    p = web.page
    refused: list[str] = []

    def busy_once(route: Any) -> None:
        if not refused:
            refused.append(route.request.url)
            route.fulfill(
                status=503,
                headers={"Retry-After": "1", "Content-Type": "application/json"},
                body=json.dumps({"detail": "all solvers are busy"}),
            )
        else:
            route.continue_()

    p.route("**/api/solve", busy_once)
    web.goto(f"#/play/{collection_id}/2")
    p.wait_for_selector("#play-canvas[data-moves]")
    p.keyboard.press("i")
    # The first solve of a fresh server may wait for its solver process to start.
    p.wait_for_function(
        "() => document.querySelector('#notice-text').textContent.includes('asking again in 1 s')"
    )
    assert p.locator("#pushes").inner_text() == "0"
    p.wait_for_function(
        "() => document.querySelector('#pushes').textContent === '1'", timeout=60_000
    )
    assert len(refused) == 1
    assert "Hint" in p.locator("#notice-text").inner_text()
    assert p.locator("#play-canvas").get_attribute("data-assisted") == "true"
    # The refused request shows in the console; it was meant to be refused.
    web.errors[:] = [e for e in web.errors if "503" not in e]


def test_an_assisted_solve_is_submitted_as_assisted(
    web: Page, server: str, collection_id: str
) -> None:
    p = web.page
    me = _call("POST", f"{server}/api/players", {"name": "Helped"})
    stored = json.dumps({"id": me["id"], "name": me["name"], "token": me["token"]})
    web.goto("")
    p.evaluate("(v) => localStorage.setItem('sokoban:player', v)", stored)
    sent: list[dict[str, Any]] = []
    p.on(
        "request",
        lambda r: (
            sent.append(json.loads(r.post_data or "{}"))
            if r.url.endswith("/api/scores") and r.method == "POST"
            else None
        ),
    )
    # Solved by hand: no assisted field.
    web.goto(f"#/play/{collection_id}/1")
    p.wait_for_selector("#play-canvas[data-moves]")
    for key in ("ArrowRight", "ArrowRight", "ArrowLeft", "ArrowLeft", "ArrowDown", "ArrowRight"):
        p.keyboard.press(key)
    p.wait_for_selector("#solved[open]")
    p.wait_for_function(ANSWERED)
    assert len(sent) == 1 and "assisted" not in sent[0]
    p.keyboard.press("Escape")
    # Solved by the solver's Solve: sent as assisted, and the dialog says so.
    web.goto(f"#/play/{collection_id}/2")
    p.wait_for_selector("#play-canvas[data-moves]")
    p.click("#solve")
    p.wait_for_selector("#solved[open]", timeout=60_000)
    assert "solver's help" in p.locator("#solved-best").inner_text()
    p.wait_for_function(ANSWERED)
    assert len(sent) == 2 and sent[1]["assisted"] is True
    assert "rank" not in p.locator("#solved-server").inner_text()
    # A server that does not take the field refuses it (422): nothing is ranked either way.
    web.errors[:] = [e for e in web.errors if "422" not in e]
