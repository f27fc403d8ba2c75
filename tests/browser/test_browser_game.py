"""The browser game in a real browser: play by keys and by pointer, the solver's hint, replay,
import, the editor's round trip, and hostile titles. Expected counts come from the Python
rules (``sokoban.lurd``), the oracle the JS rules mirror."""

from __future__ import annotations

import io
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

from sokoban import Level, xsb
from sokoban.lurd import replay, walk

from .web_helpers import ARTIFACTS, HOSTILE, LEVELS, Page, call, sign_in, token_of

pytestmark = pytest.mark.browser

METRICS = ("moves", "pushes", "box_lines", "box_changes", "pushing_sessions", "player_lines")


def _level(index: int) -> Level:
    return list(xsb.iter_levels(io.StringIO(LEVELS)))[index - 1]


def _counters(web: Page) -> tuple[int, int]:
    p = web.page
    return int(p.locator("#moves").inner_text()), int(p.locator("#pushes").inner_text())


def _lurd(web: Page) -> str:
    if web.page.locator("#solved[open]").count():
        web.page.keyboard.press("Escape")
    web.page.click("#copy-lurd")
    text = web.page.locator("#lurd-out").inner_text()
    return "" if text.startswith("(") else text


def _play(web: Page, cid: str, index: int) -> None:
    web.goto(f"#/play/{cid}/{index}")
    web.page.wait_for_selector("#screen-play:not([hidden])")
    web.page.wait_for_selector("#play-canvas[data-moves]")


def test_solve_by_keys_shows_the_solved_overlay(web: Page, collection_id: str) -> None:
    web.goto("")
    web.page.wait_for_selector("#collections li")
    web.shot("home")
    web.goto(f"#/c/{collection_id}")
    web.page.wait_for_selector("#levels li")
    web.page.wait_for_timeout(200)  # thumbnails draw as they scroll into view
    web.shot("collection")
    _play(web, collection_id, 1)
    web.shot("play")
    # Arrows, WASD and HJKL all move: r R l l d R.
    for key in ("ArrowRight", "d", "h", "ArrowLeft", "s", "l"):
        web.page.keyboard.press(key)
    web.page.wait_for_selector("#solved[open]")
    web.shot("solved")
    expected = replay(_level(1), "rRlldR").metrics
    for name in METRICS:
        shown = web.page.locator(f'#solved-metrics dd[data-metric="{name}"]').inner_text()
        assert int(shown) == getattr(expected, name), name
    web.page.keyboard.press("Escape")
    assert web.page.locator("#solved[open]").count() == 0
    assert "6" in web.page.locator("#best").inner_text()
    # The help overlay lists the bindings; Esc closes it.
    web.page.keyboard.press("?")
    web.page.wait_for_selector("#help[open]")
    assert "Ctrl+Shift+Z" in web.page.locator("#help-table").inner_text()
    web.shot("help")
    web.page.keyboard.press("Escape")
    assert web.page.locator("#help[open]").count() == 0
    # The collection marks it solved.
    web.goto(f"#/c/{collection_id}")
    web.page.wait_for_selector('#levels li[data-index="1"].is-solved')


def test_undo_redo_restart_and_history_kept_on_reload(web: Page, collection_id: str) -> None:
    _play(web, collection_id, 4)
    for key in ("ArrowRight", "ArrowUp", "ArrowLeft"):
        web.page.keyboard.press(key)
    full = replay(_level(4), "rul").solution.lurd()  # the push flags as Python sees them
    assert _lurd(web) == full
    assert _counters(web) == (3, replay(_level(4), full).metrics.pushes)
    steps = [("z", 2), ("u", 1), ("y", 2), ("Control+z", 1), ("Control+Shift+Z", 2), ("r", 0)]
    for key, moves in steps:
        web.page.keyboard.press(key)
        assert _counters(web)[0] == moves, key
    assert web.page.locator("#redo").is_enabled()
    web.page.keyboard.press("Control+y")
    assert _counters(web)[0] == 1
    # Reload: the history and its redo tail come back.
    web.page.reload()
    web.page.wait_for_function("() => document.querySelector('#play-canvas').dataset.moves === '1'")
    web.page.keyboard.press("y")
    web.page.keyboard.press("y")
    assert _lurd(web) == full


def test_click_to_walk_and_push_a_box_by_pointer(web: Page, collection_id: str) -> None:
    level = _level(4)
    _play(web, collection_id, 4)
    board = "#play-canvas"
    # Walk to row 1, column 6 by the shortest path.
    path = walk(level, level.player, level.cell(6, 1))  # type: ignore[arg-type]
    assert path is not None
    web.click_cell(board, 1, 6)
    assert _counters(web) == (len(path), 0)
    # Click the box at row 2, column 2: its targets are marked; click the goal at column 5.
    web.click_cell(board, 2, 2)
    web.shot("push-targets")
    web.click_cell(board, 2, 5)
    after = replay(level, _lurd(web))
    assert level.cell(5, 2) in after.final.boxes
    assert after.metrics.pushes == 3  # the fewest pushes: three to the right
    # Drag the other box from column 3 to the goal at column 5 of row 3: solved.
    web.page.mouse.move(*web.cell_point(board, 3, 3))
    web.page.mouse.down()
    web.page.mouse.move(*web.cell_point(board, 3, 4))
    web.page.mouse.move(*web.cell_point(board, 3, 5))
    web.page.mouse.up()
    web.page.wait_for_selector("#solved[open]")
    assert replay(level, _lurd(web)).is_solved


def test_hint_plays_the_next_push_and_solve_finishes(web: Page, collection_id: str) -> None:
    _play(web, collection_id, 2)
    web.page.keyboard.press("i")
    web.page.wait_for_function(
        "() => document.querySelector('#pushes').textContent === '1'", timeout=30_000
    )
    assert "Hint" in web.page.locator("#notice-text").inner_text()
    web.page.click("#solve")
    web.page.wait_for_selector("#solved[open]", timeout=30_000)
    assert replay(_level(2), _lurd(web)).is_solved


def test_replay_steps_by_move_and_by_push(web: Page, collection_id: str) -> None:
    web.goto(f"#/replay/{collection_id}/1")
    web.page.wait_for_selector("#screen-replay:not([hidden])")
    p = web.page

    def at() -> int:
        return int(p.locator("#replay-move").inner_text())

    assert p.locator("#replay-total").inner_text() == "6"  # rRlldR, the level's own
    p.click("#replay-forward")
    assert at() == 1
    p.click("#replay-forward-push")
    assert at() == 2
    p.click("#replay-forward-push")
    assert at() == 6
    p.click("#replay-back-push")
    assert at() == 2
    p.click("#replay-back")
    assert at() == 1
    p.locator("#replay-scrub").fill("4")
    assert at() == 4
    p.keyboard.press("ArrowRight")
    assert at() == 5
    p.click("#replay-start")
    p.click("#replay-play")
    p.wait_for_function("() => document.querySelector('#replay-move').textContent === '6'")
    assert "solves the level" in p.locator("#replay-message").inner_text()
    web.shot("replay")
    # A pasted LURD with an illegal third step stops before it.
    p.select_option("#replay-source", "paste")
    p.fill("#replay-lurd", "rRrr")
    p.click("#replay-load")
    assert p.locator("#replay-total").inner_text() == "2"
    assert "illegal step 3" in p.locator("#replay-message").inner_text()


def test_import_a_pasted_level_and_play_it(web: Page) -> None:
    text = (
        "Title: Pasted one\n#####\n#@$.#\n#####\nSolution: R\n\n"
        "Title: Broken\n#####\n#@$.x#\n#####\n"
    )
    errors: list[Any] = []
    assert [lv.title for lv in xsb.iter_levels(io.StringIO(text), errors)] == ["Pasted one"]
    web.goto("#/import")
    web.page.fill("#import-text", text)
    web.page.click("#import-read")
    web.page.wait_for_selector("#import-levels li")
    assert f"line {errors[0].line}" in web.page.locator("#import-errors").inner_text().lower()
    assert web.page.locator("#import-levels li").count() == 1
    web.shot("import")
    # Its own solution replays from the link.
    web.page.locator("#import-levels a", has_text="Replay its solution").click()
    web.page.wait_for_selector("#screen-replay:not([hidden])")
    assert web.page.locator("#replay-total").inner_text() == "1"
    web.page.go_back()
    web.page.wait_for_selector("#screen-import:not([hidden])")
    web.page.click("#import-read")
    web.page.locator("#import-levels").get_by_role("link", name="Play", exact=True).click()
    web.page.wait_for_selector("#screen-play:not([hidden])")
    assert web.page.locator("#play-title").inner_text() == "Pasted one"
    web.page.keyboard.press("ArrowRight")
    web.page.wait_for_selector("#solved[open]")


def test_editor_validate_save_play_and_share(web: Page) -> None:
    p = web.page
    sign_in(web, "Editor")
    web.goto("#/edit")
    p.wait_for_selector("#screen-edit:not([hidden])")
    assert p.locator("#edit-signin").is_hidden()  # signed in: no note about signing in
    p.click("#edit-clear")
    assert int(p.locator("#edit-problems").get_attribute("data-count") or 0) > 0
    assert "no player" in p.locator("#edit-problems").inner_text()
    assert p.locator("#edit-save").is_disabled()
    canvas = "#edit-canvas"
    for tool, col in (("Player", 2), ("Box", 4), ("Goal", 6)):
        p.locator("#tools label", has_text=tool).click()
        web.click_cell(canvas, 3, col)
    assert p.locator("#edit-problems").get_attribute("data-count") == "0"
    board = p.locator("#edit-xsb").input_value()
    level = Level.from_xsb(board)
    assert level.problems() == [] and len(level.boxes) == 1
    p.fill("#edit-name", "My corridor")
    web.shot("editor")
    p.click("#edit-solve")
    p.wait_for_function(
        "() => document.querySelector('#edit-message').textContent.startsWith('Solvable')",
        timeout=30_000,
    )
    assert "2 pushes" in p.locator("#edit-message").inner_text()
    p.click("#edit-save")
    p.wait_for_selector("#edit-saved-link")
    p.click("#edit-saved-link")
    p.wait_for_selector("#screen-play:not([hidden])")
    assert p.locator("#play-title").inner_text() == "My corridor"
    assert "#/play/mine/" in p.url
    # Share: the URL carries the level itself and opens it for play.
    web.goto("#/edit")
    p.wait_for_selector("#screen-edit:not([hidden])")
    p.click("#edit-share")
    url = p.locator("#share-url").input_value()
    carried = parse_qs(urlsplit(url).fragment.partition("?")[2])["level"][0]
    assert carried == level.xsb(rle=True)
    p.goto(url)
    p.wait_for_selector("#screen-play:not([hidden])")
    assert p.locator("#play-title").inner_text() == "My corridor"
    for _ in range(3):  # a walk and two pushes
        p.keyboard.press("ArrowRight")
    p.wait_for_selector("#solved[open]")


def test_a_hostile_title_stays_text(web: Page, collection_id: str) -> None:
    p = web.page
    web.goto(f"#/c/{collection_id}")
    p.wait_for_selector('#levels li[data-index="3"]')
    assert HOSTILE in p.locator('#levels li[data-index="3"] .name').inner_text()
    _play(web, collection_id, 3)
    assert p.locator("#play-title").inner_text() == HOSTILE
    web.shot("hostile")
    web.goto("")
    p.wait_for_selector("#continue:not([hidden])")
    assert p.locator("#continue-title").inner_text() == HOSTILE
    assert p.evaluate("typeof window.__pwned") == "undefined"
    assert p.locator("img").count() == 0
    assert p.locator("main script, main b").count() == 0


def test_a_dead_push_is_marked_and_undone_to_a_solvable_position(
    web: Page, collection_id: str
) -> None:
    p = web.page
    _play(web, collection_id, 4)
    p.keyboard.press("ArrowRight")  # a push towards the goals: still solvable
    p.keyboard.press("ArrowUp")
    p.keyboard.press("ArrowLeft")  # the other box against the left wall, no goal there: dead
    p.wait_for_selector('#play-canvas[data-dead="true"]')
    assert "Dead position" in p.locator("#notice-text").inner_text()
    web.shot("dead")
    p.click("#rewind")
    p.wait_for_selector('#play-canvas[data-dead="false"]')
    kept = _counters(web)[0]
    level = _level(4)
    lurd = replay(level, "rul").solution.lurd()
    assert lurd == "RuL" and kept == 2 and _lurd(web) == lurd[:kept]
    assert p.locator("#redo").is_enabled()  # the dead push can be redone


def test_swipes_move_on_a_phone_with_reduced_motion(
    browser: Any, server: str, collection_id: str
) -> None:
    context = browser.new_context(
        viewport={"width": 390, "height": 844},
        has_touch=True,
        is_mobile=True,
        reduced_motion="reduce",
    )
    try:
        page = context.new_page()
        page.goto(f"{server}/#/play/{collection_id}/1")
        page.wait_for_selector("#play-canvas[data-moves]")
        # The system asks for less motion and the player chose nothing: moves are instant.
        assert page.locator("#speed").input_value() == "instant"
        box = page.locator("#play-canvas").bounding_box()
        assert box is not None
        cdp = context.new_cdp_session(page)
        # Start on the player's cell (row 1, column 1 of 6 x 4) and swipe right, twice.
        x, y = box["x"] + 1.5 * box["width"] / 6, box["y"] + 1.5 * box["height"] / 4
        for _ in range(2):
            cdp.send(
                "Input.dispatchTouchEvent",
                {"type": "touchStart", "touchPoints": [{"x": x, "y": y}]},
            )
            cdp.send(
                "Input.dispatchTouchEvent",
                {"type": "touchMove", "touchPoints": [{"x": x + 60, "y": y}]},
            )
            cdp.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})
        page.wait_for_selector('#play-canvas[data-pushes="1"]')
        assert page.locator("#moves").inner_text() == "2"
        ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / "phone-play.png"))
    finally:
        context.close()


def test_editor_resize_keeps_the_walls_and_an_unsolvable_save_is_warned(web: Page) -> None:
    p = web.page
    sign_in(web, "Resizer")
    web.goto("#/edit")
    p.wait_for_selector("#screen-edit:not([hidden])")
    p.fill(
        "#edit-xsb", "#########\n#       #\n#       #\n#@$.    #\n#       #\n#       #\n#########"
    )
    p.locator("#edit-xsb").dispatch_event("input")
    for field, value in (("#edit-width", "7"), ("#edit-height", "6")):
        p.fill(field, value)
        p.locator(field).dispatch_event("change")
    rows = p.locator("#edit-xsb").input_value().splitlines()
    assert len(rows) == 6 and all(len(r) == 7 for r in rows), rows
    assert rows[0] == rows[-1] == "#######"
    assert all(r[0] == "#" and r[-1] == "#" for r in rows), rows
    assert Level.from_xsb("\n".join(rows)).problems() == []
    # A box in a corner away from its goal: the solver proves it unsolvable, and Save warns
    # once before saving it.
    p.fill("#edit-xsb", "######\n#$   #\n#  @.#\n######")
    p.locator("#edit-xsb").dispatch_event("input")
    p.click("#edit-solve")
    p.wait_for_function(
        "() => document.querySelector('#edit-message').textContent.startsWith('Unsolvable')",
        timeout=30_000,
    )
    p.click("#edit-save")
    assert "press Save again" in p.locator("#edit-message").inner_text()
    assert p.locator("#edit-saved-link").count() == 0
    p.click("#edit-save")
    p.wait_for_selector("#edit-saved-link")


def test_an_imported_file_is_kept_as_a_collection(web: Page) -> None:
    p = web.page
    text = (
        "Title: First\n#####\n#@$.#\n#####\nSolution: R\n\n"
        "Title: Second\n######\n#@ $.#\n######\n\n"
        "Title: Third\n######\n#.$ @#\n######\n"
    )
    web.goto("#/import")
    p.fill("#import-text", text)
    p.click("#import-read")
    p.wait_for_selector("#import-keep:not([hidden])")
    assert p.locator("#import-keep-button").inner_text() == "Keep these 3 levels as my collection"
    p.fill("#import-name", "My file")
    p.click("#import-keep-button")
    p.wait_for_selector('#levels li[data-index="3"]')
    assert p.locator("#collection-title").inner_text() == "My file"
    # Play the first: solved, then Next goes on within the collection.
    p.locator('#levels li[data-index="1"] a').click()
    p.wait_for_selector("#play-canvas[data-moves]")
    assert "My file, level 1 of 3" in p.locator("#play-where").inner_text()
    assert p.locator("#next").is_enabled() and p.locator("#previous").is_disabled()
    p.keyboard.press("ArrowRight")
    p.wait_for_selector("#solved[open]")
    p.click("#solved-next")
    p.wait_for_function("() => document.querySelector('#play-title').textContent === 'Second'")
    assert "level 2 of 3" in p.locator("#play-where").inner_text()
    # The collection is listed on the start page and keeps its progress.
    web.goto("")
    p.wait_for_selector('#collections li[data-id^="local:"]')
    p.locator('#collections li[data-id^="local:"] a').click()
    p.wait_for_selector('#levels li[data-index="1"].is-solved')
    assert p.locator('#levels li[data-index="2"].is-solved').count() == 0


def _save_in_editor(web: Page, board: str, title: str) -> None:
    p = web.page
    web.goto("#/edit")
    p.wait_for_selector("#screen-edit:not([hidden])")
    p.fill("#edit-xsb", board)
    p.locator("#edit-xsb").dispatch_event("input")
    p.fill("#edit-name", title)
    p.click("#edit-save")


def test_saved_levels_are_their_players_own_and_their_links_open_for_all(
    browser: Any, server: str
) -> None:
    ada, bob, visitor = (Page(browser, server, f"mine-{who}") for who in ("a", "b", "visitor"))
    board = "#######\n#@ $ .#\n#######"
    try:
        # Signed out, the editor says to sign in, and Save says so again without saving.
        _save_in_editor(visitor, board, "Not kept")
        assert visitor.page.locator("#edit-signin").is_visible()
        assert "sign in to save levels" in visitor.page.locator("#edit-message").inner_text()
        assert visitor.page.locator("#edit-saved-link").count() == 0
        visitor.goto("#/c/mine")
        visitor.page.wait_for_selector("#collection-summary a[href='#/player']")
        assert visitor.page.locator("#levels li").count() == 0
        # Ada saves two levels; Bob saves one of his own.
        sign_in(ada, "Ada's")
        sign_in(bob, "Bob's")
        _save_in_editor(ada, board, "Ada one")
        ada.page.wait_for_selector("#edit-saved-link")
        link = ada.page.locator("#edit-saved-link").get_attribute("href") or ""
        _save_in_editor(bob, board.replace("@ $", "@$ "), "Bob one")
        bob.page.wait_for_selector("#edit-saved-link")
        _save_in_editor(ada, board.replace(" .", ". "), "Ada two")
        ada.page.wait_for_selector("#edit-saved-link")
        assert link.startswith("#/play/mine/")
        ada.goto("#/c/mine")
        ada.page.wait_for_selector("#levels li")
        names = ada.page.locator("#levels li .name").all_inner_texts()
        assert [n.split(". ", 1)[1] for n in names] == ["Ada one", "Ada two"]
        bob.goto("#/c/mine")
        bob.page.wait_for_selector("#levels li")
        assert [
            n.split(". ", 1)[1] for n in bob.page.locator("#levels li .name").all_inner_texts()
        ] == ["Bob one"]
        # Ada's Next goes to her own next level, not to the next number (Bob's).
        ada.goto(link)
        ada.page.wait_for_selector("#play-canvas[data-moves]")
        assert ada.page.locator("#play-where").inner_text() == "My levels, level 1 of 2"
        ada.page.click("#next")
        ada.page.wait_for_function(
            "() => document.querySelector('#play-title').textContent === 'Ada two'"
        )
        # Her link opens for Bob and for a visitor signed out, and plays.
        for other in (bob, visitor):
            other.goto(link)
            other.page.wait_for_selector("#play-canvas[data-moves]")
            assert other.page.locator("#play-title").inner_text() == "Ada one"
            assert (
                other.page.locator("#play-where").inner_text()
                == "A saved level, opened by its link"
            )
            assert other.page.locator("#next").is_disabled()
            for _ in range(3):
                other.page.keyboard.press("ArrowRight")
            other.page.wait_for_selector("#solved[open]")
        # Bob's solve of it is his score on that level, by its id.
        level_id = link.removeprefix("#/play/")
        bob.page.wait_for_function(
            "() => !document.querySelector('#solved-server').textContent.startsWith('Sending')"
        )
        progress = call("GET", f"{server}/api/me/progress", token=token_of(bob))["levels"]
        assert progress[level_id]["moves"]["moves"] == 3
        for web in (ada, bob, visitor):
            assert not web.errors, web.errors
    finally:
        for web in (ada, bob, visitor):
            web.close()


def test_best_moves_and_pushes_show_on_the_thumbnails(
    web: Page, server: str, collection_id: str
) -> None:
    p = web.page
    sign_in(web, "Thumbs")
    # Level 1 solved here by keys; level 4 solved on "another device" (through the API: not
    # in this browser's storage, only in the player's records on the server).
    _play(web, collection_id, 1)
    for letter in "rRlldR":
        p.keyboard.press({"l": "ArrowLeft", "r": "ArrowRight", "d": "ArrowDown"}[letter.lower()])
    p.wait_for_selector("#solved[open]")
    p.wait_for_function(
        "() => !document.querySelector('#solved-server').textContent.startsWith('Sending')"
    )
    here = replay(_level(1), "rRlldR").metrics
    score = {"level_id": f"{collection_id}/4", "lurd": "RRllluRurDrddlUluRR"}
    call("POST", f"{server}/api/scores", score, token_of(web))
    there = replay(_level(4), score["lurd"]).metrics
    web.goto(f"#/c/{collection_id}")
    p.wait_for_selector("#levels li .thumb-best")
    shown = {
        index: p.locator(f'#levels li[data-index="{index}"] .thumb-best') for index in range(1, 5)
    }
    for index, metrics in ((1, here), (4, there)):
        badge = shown[index]
        assert badge.get_attribute("data-moves") == str(metrics.moves)
        assert badge.get_attribute("data-pushes") == str(metrics.pushes)
        text = badge.inner_text().replace("\u00a0", " ")  # a number stays with its word
        assert text == f"{metrics.moves} moves \u00b7 {metrics.pushes} pushes"
    assert shown[2].count() == 0 and shown[3].count() == 0  # unsolved: nothing shown
    web.shot("thumbnail-best")


def test_copying_never_hangs_on_a_silent_clipboard(web: Page) -> None:
    p = web.page
    # A clipboard that never answers (as one waiting on an unseen permission prompt).
    p.add_init_script(
        "Object.defineProperty(navigator, 'clipboard', "
        "{value: {writeText: () => new Promise(() => {})}, configurable: true});"
    )
    web.goto("#/edit")
    p.wait_for_selector("#screen-edit:not([hidden])")
    p.click("#edit-share")
    p.wait_for_function(
        "() => document.querySelector('#edit-message').textContent.startsWith("
        "'The clipboard did not take the link')",
        timeout=5_000,
    )
    assert p.locator("#share-url").input_value().startswith(web.base)
