"""The competitive side in a real browser: two players race each other and see each other's
progress live and the same ranking; the daily puzzle is the same for two players; a forged
solution is refused with the server's reason; the leaderboards' order; progress merged on
sign-in; a ghost race. Counts come from the Python rules (``sokoban.lurd``), the server's
oracle."""

from __future__ import annotations

import io
import time
import urllib.error
import urllib.request
from typing import Any

import pytest

from sokoban import Level, xsb
from sokoban.lurd import replay
from sokoban.solve import Limits, solve

from .web_helpers import (
    ARTIFACTS,
    LEVELS,
    Page,
    call,
    get_json,
    kept_code,
    sign_in,
    token_of,
    wait_text,
)

pytestmark = pytest.mark.browser

KEYS = {"l": "ArrowLeft", "u": "ArrowUp", "r": "ArrowRight", "d": "ArrowDown"}


def _level(index: int) -> Level:
    return list(xsb.iter_levels(io.StringIO(LEVELS)))[index - 1]


def _full_shot(web: Page, label: str) -> None:
    """The whole page (the scores sit below the board)."""
    ARTIFACTS.mkdir(exist_ok=True)
    web.page.screenshot(path=str(ARTIFACTS / f"compete-{label}.png"), full_page=True)


def _rows(web: Page, table: str) -> list[str]:
    return list(web.page.locator(f"{table} tbody tr").all_inner_texts())


def _press(web: Page, lurd: str) -> None:
    for letter in lurd:
        web.page.keyboard.press(KEYS[letter.lower()])


def _racer(web: Page, name: str) -> dict[str, str]:
    """A row of the race's players table, by column."""
    row = web.page.locator(f'#race-players tbody tr[data-name="{name}"] td')
    cells = row.all_inner_texts()
    return dict(zip(("rank", "name", "moves", "pushes", "goals", "state"), cells, strict=False))


def test_two_players_race_see_each_other_live_and_the_same_ranking(
    browser: Any, server: str, collection_id: str
) -> None:
    ann = Page(browser, server, "race-ann")
    bob = Page(browser, server, "race-bob")
    try:
        sign_in(ann, "Ann")
        ann.goto(f"#/race/new?level={collection_id}%2F1")
        ann.page.wait_for_selector("#race-form:not([hidden])")
        ann.page.select_option("#race-countdown", "3")
        ann.shot("new")
        ann.page.click("#race-form button[type=submit]")
        ann.page.wait_for_selector("#race-lobby:not([hidden])")
        link = ann.page.input_value("#race-link")
        code = link.rsplit("/", 1)[1]
        assert len(code) >= 22  # >= 128 bits in URL-safe base64 or hex
        # Bob follows the link, picks a name and joins; Ann sees him arrive.
        bob.page.goto(link)
        bob.page.wait_for_selector("#race-name-form:not([hidden])")
        bob.page.fill("#race-name", "Bob")
        bob.page.click("#race-name-form button[type=submit]")
        kept_code(bob)
        ann.page.wait_for_selector('#race-players tr[data-name="Bob"]')
        bob.page.wait_for_selector('#race-players tr[data-name="Ann"]')
        ann.shot("lobby")
        ann.page.click("#race-start")
        for web in (ann, bob):
            wait_text(web, "#race-status", "starts", "Starts in")
        bob.shot("countdown")
        for web in (ann, bob):
            wait_text(web, "#race-status", "is", "Go!", timeout=15_000)
        # Ann pushes one box onto its goal: Bob sees it live.
        ann.page.focus("#race-canvas")
        _press(ann, "rRl")
        wait_text(bob, '#race-players tr[data-name="Ann"] td:nth-child(3)', "is", "3")
        # Screen readers hear it too (the race's polite live region).
        wait_text(bob, "#race-live", "has", "Ann: 1 of 2 boxes on goals")
        seen = _racer(bob, "Ann")
        assert (seen["moves"], seen["pushes"], seen["goals"]) == ("3", "1", "1 / 2")
        bob.shot("running")
        # Bob solves in 6 moves, Ann in 8: solved first, then fewer moves.
        bob.page.focus("#race-canvas")
        _press(bob, "rRlldR")
        wait_text(ann, '#race-players tr[data-name="Bob"] td:nth-child(6)', "has", "solved")
        _press(ann, "rlldR")
        expected = {"Bob": "rRlldR", "Ann": "rRlrlldR"}
        for web in (ann, bob):
            web.page.wait_for_selector("#race-result:has-text('Race over')", timeout=15_000)
            text = web.page.locator("#race-result").inner_text()
            assert text.index("1. Bob") < text.index("2. Ann"), text
            for name, lurd in expected.items():
                metrics = replay(_level(1), lurd).metrics
                row = _racer(web, name)
                assert (row["moves"], row["pushes"]) == (str(metrics.moves), str(metrics.pushes))
            assert web.page.locator("#race-players tbody tr").all_inner_texts()[0].startswith("1")
        ann.shot("finished")
        state = get_json(f"{server}/api/races/{code}")
        ranked = sorted(state["players"], key=lambda p: p["rank"])
        assert [p["name"] for p in ranked] == ["Bob", "Ann"]
        # Each result replays: Bob's link opens the replay screen with his 6 moves.
        ann.page.click('#race-players tr[data-name="Bob"] a.replay-link')
        ann.page.wait_for_selector("#screen-replay:not([hidden])")
        wait_text(ann, "#replay-total", "is", "6")
        assert not ann.errors and not bob.errors, ann.errors + bob.errors
    finally:
        ann.close()
        bob.close()


def _today(server: str) -> Any:
    """Today's daily, once the server has made it (the generator runs at start-up: 503, or a
    wait, until then)."""
    deadline = time.monotonic() + 240
    while True:
        try:
            return call("GET", f"{server}/api/daily", timeout=30)
        except (urllib.error.HTTPError, TimeoutError) as error:
            if getattr(error, "code", 503) != 503 or time.monotonic() > deadline:
                raise
            time.sleep(1)


def test_the_daily_puzzle_is_the_same_for_two_players(browser: Any, server: str) -> None:
    today = _today(server)
    boards = []
    pages = [Page(browser, server, f"daily-{n}") for n in (1, 2)]
    try:
        for web in pages:
            web.goto("#/daily")
            web.page.wait_for_selector("#compete-panel:not([hidden])")
            web.page.wait_for_selector("#daily-line #daily-countdown")
            web.page.click("#describe")
            boards.append(web.page.locator("#board-text").inner_text())
        assert boards[0] == boards[1]
        assert pages[0].page.locator("#play-title").inner_text() == f"Daily {today['date']}"
        # Before solving, the par and the day's board stay hidden; the countdown runs.
        assert "Solve it to see the par" in pages[0].page.locator("#score-summary").inner_text()
        assert pages[0].page.locator("#daily-countdown").inner_text().count(":") == 2
        pages[0].shot("today")
        # No solver help while the day runs: a named player solves it by playing (a solution
        # found here); the server verifies the solution, and the par and the day's
        # leaderboard appear.
        assert pages[0].page.locator("#hint").is_disabled()
        assert pages[0].page.locator("#solve").is_disabled()
        web = pages[0]
        sign_in(web, "Dee")
        web.goto("#/daily")
        web.page.wait_for_selector("#daily-line #daily-countdown")
        found = solve(Level.from_xsb(today["level"]["xsb"]), "astar", Limits(time=60))
        assert found.solution is not None
        _press(web, found.solution.lurd())
        web.page.wait_for_selector("#solved[open]", timeout=20_000)
        web.page.wait_for_selector("#solved-server:has-text('Verified by the server')")
        web.page.keyboard.press("Escape")
        web.page.wait_for_selector("#board-moves tbody tr.me")
        summary = web.page.locator("#score-summary").inner_text()
        assert f"{today['par']['pushes']} pushes ({today['par']['moves']} moves)" in summary
        _full_shot(web, "daily-solved")
        # The archive lists past days (today too, if the server counts it), each playable.
        pages[1].goto("#/daily/archive")
        pages[1].page.wait_for_selector("#daily-archive tbody tr")
        pages[1].shot("archive")
        pages[1].page.click(f'#daily-archive tr[data-date="{today["date"]}"] a')
        pages[1].page.wait_for_selector("#daily-line #daily-countdown")
        assert pages[1].page.locator("#play-title").inner_text() == f"Daily {today['date']}"
        for web in pages:
            assert not web.errors, web.errors
    finally:
        for web in pages:
            web.close()


def test_forged_solution_refused_leaderboards_ordered_progress_merged(
    web: Page, server: str, collection_id: str
) -> None:
    room = f"{collection_id}/4"
    # Three players by the API: the best by moves is not the best by pushes.
    solutions = {
        "Zed": "RRllluRRR",  # 9 moves, 5 pushes: first on both
        "Xia": "RRllluRurDrddlUluRR",  # 19 moves, 7 pushes
        "<i>Yul</i>": "lrlrlrlrlrlrRRllluRRR",  # 21 moves, 5 pushes; a name shown as text
    }
    metrics = {name: replay(_level(4), lurd).metrics for name, lurd in solutions.items()}
    assert [(m.moves, m.pushes) for m in metrics.values()] == [(9, 5), (19, 7), (21, 5)]
    for name, lurd in solutions.items():
        token = call("POST", f"{server}/api/players", {"name": name})["token"]
        call("POST", f"{server}/api/scores", {"level_id": room, "lurd": lurd}, token)
    # Solve level 1 without a name: progress stays local...
    web.goto(f"#/play/{collection_id}/1")
    web.page.wait_for_selector("#compete-panel:not([hidden])")
    web.page.focus("#play-canvas")
    _press(web, "rRlldR")
    web.page.wait_for_selector("#solved[open]")
    assert "Pick a name" in web.page.locator("#solved-server").inner_text()
    web.page.keyboard.press("Escape")
    # ...and is merged into the server's on sign-in.
    sign_in(web, "Wes")
    progress = call("GET", f"{server}/api/me/progress", token=token_of(web))
    assert progress["levels"][f"{collection_id}/1"]["moves"]["moves"] == 6
    # The leaderboards of the room, in the order of each board.
    web.goto(f"#/play/{collection_id}/4")
    web.page.wait_for_selector("#board-moves tbody tr[data-rank]")
    names = {
        board: [row.split("\t")[1] for row in _rows(web, f"#board-{board}")]
        for board in ("moves", "pushes")
    }
    assert names == {"moves": ["Zed", "Xia", "<i>Yul</i>"], "pushes": ["Zed", "<i>Yul</i>", "Xia"]}
    assert web.page.locator("#compete-panel i").count() == 0
    # A forged solution (the fourth push goes into the wall) is refused with the server's reason.
    web.page.click(".submit-lurd summary")
    web.page.fill("#submit-lurd", "RRRR")
    web.page.click("#submit-lurd-send")
    web.page.wait_for_selector("#score-status:has-text('Refused by the server')")
    assert "index 3" in web.page.locator("#score-status").inner_text()
    web.shot("refused")
    # The refusal is the expected 422; the console reports it as a failed request.
    web.errors[:] = [e for e in web.errors if "status of 422" not in e]
    # An honest one is ranked: 9 moves, 5 pushes after Zed (same counts, later).
    web.page.fill("#submit-lurd", solutions["Zed"])
    web.page.click("#submit-lurd-send")
    web.page.wait_for_selector("#score-status:has-text('Verified by the server')")
    web.page.wait_for_selector("#board-moves tbody tr.me")
    assert _rows(web, "#board-moves")[1].split("\t")[1] == "Wes"
    _full_shot(web, "leaderboards")


def test_ghost_race_against_your_best(web: Page, server: str, collection_id: str) -> None:
    sign_in(web, "Gus")
    lurd = "lrlrlrlrlrlrRRllluRRR"  # 21 moves, at 0.1 s a move
    score = {"level_id": f"{collection_id}/4", "lurd": lurd, "seconds": 2.1}
    call("POST", f"{server}/api/scores", score, token_of(web))
    web.goto(f"#/ghost/{collection_id}/4?source=best")
    wait_text(web, "#race-status", "is", "Go!", timeout=15_000)
    # The ghost moves on its own.
    web.page.wait_for_function(
        "s => Number(document.querySelector(s).textContent) > 2",
        arg='#race-players tr[data-name="Ghost (your best)"] td:nth-child(3)',
    )
    web.shot("ghost")
    web.page.focus("#race-canvas")
    _press(web, "RRllluRRR")
    web.page.wait_for_selector("#race-result:has-text('You solved it')")
    assert web.page.locator("#race-canvas").get_attribute("data-moves") == "9"


def test_move_to_another_device_brings_the_progress(
    browser: Any, server: str, collection_id: str
) -> None:
    old, new = Page(browser, server, "device-old"), Page(browser, server, "device-new")
    try:
        sign_in(old, "Mia")
        score = {"level_id": f"{collection_id}/1", "lurd": "rRlldR"}
        call("POST", f"{server}/api/scores", score, token_of(old))
        old.page.click("#transfer")
        old.page.wait_for_selector("#transfer-out:not([hidden])")
        code = old.page.locator("#transfer-code").inner_text()
        old.shot("transfer")
        new.goto("#/player")
        new.page.fill("#claim-code", code)
        new.page.click("#claim-form button[type=submit]")
        wait_text(new, "#player-message", "has", "1 new best received")
        assert new.page.locator("#player-link").inner_text() == "Mia"
        assert token_of(new) != token_of(old)  # a token of its own
        # The level solved on the old device shows solved here, with its best.
        new.goto(f"#/c/{collection_id}")
        new.page.wait_for_selector('#levels li[data-index="1"].is-solved')
        for web in (old, new):
            assert not web.errors, web.errors
    finally:
        old.close()
        new.close()


def test_sign_out_asks_first(web: Page) -> None:
    p = web.page
    sign_in(web, "Careful")
    p.click("#sign-out")
    p.wait_for_selector("#sign-out-dialog[open]")
    assert p.locator("#sign-out-name").inner_text() == "Careful"
    p.keyboard.press("Escape")  # as "Stay signed in"
    assert p.locator("#sign-out-dialog[open]").count() == 0
    assert p.locator("#player-in").is_visible() and token_of(web)
    p.click("#sign-out")
    p.click("#sign-out-dialog button[value=stay]")
    assert p.locator("#player-in").is_visible()
    p.click("#sign-out")
    p.click("#sign-out-confirm")
    p.wait_for_selector("#player-out:not([hidden])")
    assert p.evaluate("() => localStorage.getItem('sokoban:player')") is None


def test_sign_up_shows_a_recovery_code_once_and_it_recovers_the_name(web: Page) -> None:
    p = web.page
    web.goto("#/player")
    p.fill("#player-name", "Keeper")
    p.click("#player-form button[type=submit]")
    p.wait_for_selector("#recovery-dialog[open]")
    explained = p.locator("#recovery-dialog").inner_text()
    assert "Keeper" in explained and "Recover a name" in explained and "only now" in explained
    code = p.locator("#recovery-code").inner_text()
    assert len(code.replace("-", "")) == 20 and code.count("-") == 4, code
    web.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=web.base)
    p.click("#recovery-copy")
    wait_text(web, "#recovery-copied", "starts", "Copied")
    assert p.evaluate("() => navigator.clipboard.readText()") == code
    p.click("#recovery-kept")
    p.wait_for_selector("#player-in:not([hidden])")
    wait_text(web, "#player-message", "has", "merged")
    first = token_of(web)
    # Shown once: the player page does not show it again.
    web.goto("#/player")
    p.wait_for_selector("#player-in:not([hidden])")
    assert p.locator("#recovery-dialog[open]").count() == 0
    p.click("#sign-out")
    p.click("#sign-out-confirm")
    p.wait_for_selector("#recover-form")
    # A wrong code: refused with a plain line, still signed out.
    p.fill("#recover-name", "Keeper")
    p.fill("#recover-code", "AAAA-AAAA-AAAA-AAAA-AAAA")
    p.click("#recover-form button[type=submit]")
    wait_text(
        web, "#player-message", "is", "No player has that name and recovery code: check both."
    )
    assert p.evaluate("() => localStorage.getItem('sokoban:player')") is None
    web.errors[:] = [e for e in web.errors if "404" not in e]
    # The right one, typed in lower case without dashes: the name comes back, a new token.
    p.fill("#recover-code", code.replace("-", "").lower())
    p.click("#recover-form button[type=submit]")
    p.wait_for_selector("#player-in:not([hidden])")
    wait_text(web, "#player-message", "starts", "Recovered as Keeper")
    assert p.locator("#player-link").inner_text() == "Keeper"
    assert token_of(web) != first
    assert p.locator("#recovery-dialog[open]").count() == 0
