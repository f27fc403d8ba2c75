"""The solver's help in a real browser: a hint waits out a busy solver's (503) or a used
share's (429) Retry-After and is asked again; help refused on a competed board (403) is said
in one line, for a ghost too; a signed-in player's solver requests carry the token; and a
solve the solver helped is submitted as assisted (an unhelped one is not), when merged on
sign-in too."""

from __future__ import annotations

import json
from typing import Any

import pytest

from .test_browser_compete import KEYS
from .web_helpers import Page, call, sign_in, token_of

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


def test_a_hint_waits_out_a_used_share_too(web: Page, collection_id: str) -> None:
    p = web.page
    refused: list[str] = []

    def share_used_once(route: Any) -> None:
        if not refused:
            refused.append(route.request.url)
            route.fulfill(
                status=429,
                headers={"Retry-After": "1", "Content-Type": "application/json"},
                body=json.dumps({"detail": "this client holds its share of the solvers"}),
            )
        else:
            route.continue_()

    p.route("**/api/solve", share_used_once)
    web.goto(f"#/play/{collection_id}/2")
    p.wait_for_selector("#play-canvas[data-moves]")
    p.keyboard.press("i")
    p.wait_for_function(
        "() => document.querySelector('#notice-text').textContent"
        ".includes('share of the solver is in use: asking again in 1 s')"
    )
    p.wait_for_function(
        "() => document.querySelector('#pushes').textContent === '1'", timeout=60_000
    )
    assert len(refused) == 1
    web.errors[:] = [e for e in web.errors if "429" not in e]


def _refuse(route: Any) -> None:
    route.fulfill(
        status=403,
        headers={"Content-Type": "application/json"},
        body=json.dumps({"detail": "no solver help on today's daily level while it runs"}),
    )


def test_help_refused_on_a_competed_board_is_one_line(web: Page, collection_id: str) -> None:
    p = web.page
    p.route("**/api/solve", _refuse)
    web.goto(f"#/play/{collection_id}/2")
    p.wait_for_selector("#play-canvas[data-moves]")
    refused = (
        "No solver help on today's daily level while it runs: this one is yours to solve alone."
    )
    for ask in ("i", "solve"):
        p.evaluate("() => { document.querySelector('#notice-text').textContent = ''; }")
        if ask == "i":
            p.keyboard.press("i")
        else:
            p.click("#solve")
        p.wait_for_function(
            "(t) => document.querySelector('#notice-text').textContent === t", arg=refused
        )
    assert p.locator("#pushes").inner_text() == "0"
    # A ghost of a competed board: the server's reason, on one line.
    p.route(
        "**/api/ghost?*",
        lambda route: route.fulfill(
            status=403,
            headers={"Content-Type": "application/json"},
            body=json.dumps({"detail": "today's leader solution is shown tomorrow"}),
        ),
    )
    web.goto(f"#/ghost/{collection_id}/2?source=leader")
    p.wait_for_function(
        "() => document.querySelector('#race-status').textContent.startsWith("
        "\"No ghost: today's leader solution is shown tomorrow (no one's solution\")"
    )
    assert "\n" not in p.locator("#race-status").inner_text()
    web.errors[:] = [e for e in web.errors if "403" not in e]


def test_solver_requests_carry_the_token_when_signed_in(
    web: Page, server: str, collection_id: str
) -> None:
    p = web.page
    asked: list[tuple[str, str | None]] = []
    p.on(
        "request",
        lambda r: (
            asked.append((r.url.rsplit("/", 1)[1], r.headers.get("authorization")))
            if r.url.endswith(("/api/solve", "/api/rewind"))
            else None
        ),
    )
    # Signed out: the hint is asked unsigned.
    web.goto(f"#/play/{collection_id}/2")
    p.wait_for_selector("#play-canvas[data-moves]")
    p.keyboard.press("i")
    p.wait_for_function(
        "() => document.querySelector('#pushes').textContent === '1'", timeout=60_000
    )
    assert asked == [("solve", None)]
    me = call("POST", f"{server}/api/players", {"name": "Signed"})
    stored = json.dumps({"id": me["id"], "name": me["name"], "token": me["token"]})
    p.evaluate("(v) => localStorage.setItem('sokoban:player', v)", stored)
    # Signed in: a hint, then the box pushed into the corner and the rewind, both signed.
    web.goto(f"#/play/{collection_id}/2")
    p.wait_for_selector("#play-canvas[data-moves]")
    p.click("#restart")
    p.keyboard.press("i")
    p.wait_for_function(
        "() => document.querySelector('#notice-text').textContent.startsWith('Hint')",
        timeout=60_000,
    )
    p.click("#restart")
    for letter in "ddrrruuLL":
        p.keyboard.press(KEYS[letter.lower()])
    p.wait_for_selector("#rewind:not([hidden])")
    p.click("#rewind")
    p.wait_for_function(
        "() => document.querySelector('#notice-text').textContent.startsWith('Back ')",
        timeout=60_000,
    )
    signed = f"Bearer {me['token']}"
    assert asked[1:] == [("solve", signed), ("rewind", signed)], asked


def test_an_assisted_solve_is_submitted_as_assisted(
    web: Page, server: str, collection_id: str
) -> None:
    p = web.page
    me = call("POST", f"{server}/api/players", {"name": "Helped"})
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


def test_a_helped_solve_made_signed_out_merges_as_assisted(
    web: Page, server: str, collection_id: str
) -> None:
    p = web.page
    # Signed out: level 1 by hand, level 2 by the solver's Solve.
    web.goto(f"#/play/{collection_id}/1")
    p.wait_for_selector("#play-canvas[data-moves]")
    for letter in "rRlldR":
        p.keyboard.press(KEYS[letter.lower()])
    p.wait_for_selector("#solved[open]")
    p.keyboard.press("Escape")
    web.goto(f"#/play/{collection_id}/2")
    p.wait_for_selector("#play-canvas[data-moves]")
    p.click("#solve")
    p.wait_for_selector("#solved[open]", timeout=60_000)
    p.keyboard.press("Escape")
    sign_in(web, "Merger")
    levels = call("GET", f"{server}/api/me/progress", token=token_of(web))["levels"]
    assert levels[f"{collection_id}/1"]["moves"]["assisted"] is False
    assert levels[f"{collection_id}/2"]["moves"]["assisted"] is True
    assert levels[f"{collection_id}/2"]["pushes"]["assisted"] is True
