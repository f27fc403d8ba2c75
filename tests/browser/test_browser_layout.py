"""The page's layout and feel in a real browser, on a desktop (1280x800) and a phone (390x844):
every built-in level's board whole and in sight without scrolling, no page wider than the
phone, the race's players and buttons in sight while it runs, the themes, dark mode from the
system, reduced motion, and input that is never lost (a burst of keys, a tap that redirects a
walk, redo into the solved position). Screenshots of every screen are kept as artefacts."""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from sokoban import Level, xsb
from sokoban.lurd import replay

from .web_helpers import ARTIFACTS, LEVELS, Page, call, get_json

pytestmark = pytest.mark.browser

DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}
SIZES = {"desktop": DESKTOP, "phone": PHONE}


def _level(index: int) -> Level:
    return list(xsb.iter_levels(io.StringIO(LEVELS)))[index - 1]


@contextmanager
def _page(
    browser: Any,
    server: str,
    size: dict[str, int],
    settings: dict[str, Any] | None = None,
    **kw: Any,
) -> Iterator[Any]:
    """A fresh context of the given viewport (a phone's with touch), with `settings` stored
    before the page runs; script errors fail the test."""
    phone = size == PHONE
    context = browser.new_context(viewport=size, has_touch=phone, is_mobile=phone, **kw)
    if settings is not None:
        context.add_init_script(
            f"localStorage.setItem('sokoban:settings', {json.dumps(json.dumps(settings))});"
        )
    page = context.new_page()
    page.set_default_timeout(10_000)
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.goto(server + "/")
    try:
        yield page
        assert not errors, errors
    finally:
        context.close()


def _shot(page: Any, label: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"layout-{label}.png"))


def _in_sight(page: Any, selector: str) -> None:
    """The element lies whole inside the viewport, and above the fixed thumb bar if any (when
    it is not in the bar itself)."""
    box = page.locator(selector).bounding_box()
    assert box is not None, selector
    view = page.viewport_size
    bottom = view["height"]
    for bar in ("#play-bar", "#race-bar"):
        inside = page.locator(f"{bar} {selector}").count() > 0
        if page.locator(bar).is_visible() and not inside:
            fixed = page.eval_on_selector(bar, "n => getComputedStyle(n).position === 'fixed'")
            if fixed:
                bottom = min(bottom, page.locator(bar).bounding_box()["y"])
    assert box["x"] >= 0 and box["y"] >= 0, (selector, box)
    assert box["x"] + box["width"] <= view["width"] + 0.5, (selector, box, view)
    assert box["y"] + box["height"] <= bottom + 0.5, (selector, box, bottom)


#: Key events dispatched in the page, all in one task: `press(key, repeat)`.
PRESS = (
    "const press = (key, repeat = false) => document.querySelector('#play-canvas')"
    ".dispatchEvent(new KeyboardEvent('keydown', { key, repeat, bubbles: true }));"
)


def _width(page: Any) -> int:
    return int(page.evaluate("() => document.documentElement.scrollWidth"))


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_every_builtin_board_is_whole_in_sight(browser: Any, server: str, size: str) -> None:
    levels = get_json(f"{server}/api/collections/builtin?limit=500")["levels"]
    assert len(levels) >= 10
    with _page(browser, server, SIZES[size], {"speed": "instant", "speedChosen": True}) as page:
        for json_level in levels:
            page.goto(f"{server}/#/play/builtin/{json_level['index']}")
            page.wait_for_function(
                "(t) => document.querySelector('#play-title').textContent === t",
                arg=json_level["title"] or f"Level {json_level['index']}",
            )
            page.wait_for_selector("#play-canvas[data-moves]")
            _in_sight(page, "#play-canvas")
            # The counters sit above the board; on a phone, the thumb bar's buttons below it.
            counters = page.locator("#screen-play .counters").bounding_box()
            board = page.locator("#play-canvas").bounding_box()
            assert counters["y"] + counters["height"] <= board["y"] + 1
            # Readable counters: at least 15 CSS pixels.
            size = page.eval_on_selector("#moves", "n => parseFloat(getComputedStyle(n).fontSize)")
            assert size >= 15, size
            if size == "phone":
                for button in ("undo", "redo", "restart", "hint", "play-more"):
                    _in_sight(page, f"#{button}")
                assert _width(page) <= PHONE["width"]
            if json_level["index"] == 1:
                _shot(page, f"{size}-play")
        if size == "phone":
            page.click("#play-more")
            page.wait_for_selector("#play-menu[data-open]")
            _in_sight(page, "#solve")
            _shot(page, "phone-menu")


def test_trimmed_board_and_no_page_wider_than_a_phone(
    browser: Any, server: str, collection_id: str
) -> None:
    with _page(browser, server, PHONE) as page:
        # A level with rows and columns of solid wall around it is drawn without them.
        walled = "#########|#########|###@$.###|#########|#########"
        page.goto(f"{server}/#/play?level={walled}&title=Walled")
        page.wait_for_selector("#play-canvas[data-moves]")
        canvas = page.locator("#play-canvas")
        assert (canvas.get_attribute("data-cols"), canvas.get_attribute("data-rows")) == ("5", "3")
        assert (canvas.get_attribute("data-col0"), canvas.get_attribute("data-row0")) == ("2", "1")
        page.keyboard.press("ArrowRight")
        page.wait_for_selector("#solved[open]")
        page.keyboard.press("Escape")
        routes = {
            "home": "#/",
            "collection": f"#/c/{collection_id}",
            "daily-archive": "#/daily/archive",
            "race-new": "#/race/new",
            "player": "#/player",
            "import": "#/import",
            "editor": "#/edit",
            "replay": f"#/replay/{collection_id}/1",
            "daily": "#/daily",
        }
        for label, route in routes.items():
            page.goto(f"{server}/{route}")
            page.wait_for_selector("main > section:not([hidden])")
            page.wait_for_timeout(300)
            assert _width(page) <= PHONE["width"], label
            _shot(page, f"phone-{label}")
    with _page(browser, server, DESKTOP) as page:
        page.wait_for_selector("#collections li")
        page.wait_for_timeout(300)
        assert page.locator("#continue-label").inner_text() == "Start"
        for label, route in routes.items():
            page.goto(f"{server}/{route}")
            page.wait_for_selector("main > section:not([hidden])")
            page.wait_for_timeout(300)
            assert _width(page) <= DESKTOP["width"], label
            _shot(page, f"desktop-{label}")
        page.goto(f"{server}/#/daily")
        page.wait_for_selector("#daily-line:not([hidden])")
        _in_sight(page, "#play-canvas")
        _shot(page, "desktop-daily")


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_race_players_and_buttons_in_sight(
    browser: Any, server: str, collection_id: str, size: str
) -> None:
    name = f"Thumb-{size}"
    me = call("POST", f"{server}/api/players", {"name": name})
    race = call(
        "POST",
        f"{server}/api/races",
        {"level_id": f"{collection_id}/4", "countdown": 1, "time_limit": 120},
        token=me["token"],
    )
    stored = json.dumps({"id": me["id"], "name": me["name"], "token": me["token"]})
    view = SIZES[size]
    with _page(browser, server, view) as page:
        page.evaluate("(v) => localStorage.setItem('sokoban:player', v)", stored)
        page.goto(f"{server}/#/race/{race['code']}")
        page.reload()
        page.wait_for_selector(f'#race-players tr[data-name="{name}"]')
        assert _width(page) <= view["width"]  # the lobby, its link included
        _shot(page, f"{size}-race-lobby")
        page.click("#race-start")
        page.wait_for_function("() => document.querySelector('#race-status').textContent === 'Go!'")
        page.wait_for_selector("#race-canvas[data-moves]")
        assert _width(page) <= view["width"]
        for selector in (
            "#race-players",
            "#race-canvas",
            "#race-undo",
            "#race-give-up",
            "#race-moves",
        ):
            _in_sight(page, selector)
        page.keyboard.press("ArrowRight")
        page.wait_for_selector('#race-canvas[data-moves="1"]')
        assert page.locator("#race-undo").is_enabled()
        _shot(page, f"{size}-race")


def test_themes_render_and_dark_mode_follows_the_system(
    browser: Any, server: str, collection_id: str
) -> None:
    pictures = {}
    for theme in ("light", "dark", "contrast"):
        settings = {"speed": "instant", "speedChosen": True, "theme": theme}
        with _page(browser, server, DESKTOP, settings) as page:
            page.goto(f"{server}/#/play/{collection_id}/4")
            page.wait_for_selector("#play-canvas[data-moves]")
            assert page.evaluate("() => document.documentElement.dataset.theme") == theme
            pictures[theme] = page.evaluate(
                "() => document.querySelector('#play-canvas').toDataURL()"
            )
            _shot(page, f"theme-{theme}")
    assert len(set(pictures.values())) == 3
    # "Follow the system" (the default) follows a dark system: the page and the board.
    with _page(browser, server, PHONE, color_scheme="dark") as page:
        page.goto(f"{server}/#/play/{collection_id}/4")
        page.wait_for_selector("#play-canvas[data-moves]")
        assert page.evaluate("() => document.documentElement.dataset.theme") == "dark"
        # The board is drawn dark: its first floor cell has the dark theme's floor colour.
        floor = page.evaluate(
            """() => {
              const c = document.querySelector('#play-canvas');
              const cell = c.width / Number(c.dataset.cols);
              const [r, g, b] = c.getContext('2d').getImageData(cell * 1.5, cell * 1.5, 1, 1).data;
              return [r, g, b];
            }"""
        )
        assert max(floor) < 80, floor
        background = page.evaluate(
            "() => getComputedStyle(document.documentElement).backgroundColor"
        )
        assert background == "rgb(28, 31, 38)"
        _shot(page, "phone-dark")


def test_reduced_motion_turns_the_animations_off(
    browser: Any, server: str, collection_id: str
) -> None:
    for motion, animated in (("reduce", False), ("no-preference", True)):
        with _page(
            browser, server, DESKTOP, {"speed": "slow"} if animated else None, reduced_motion=motion
        ) as page:
            page.goto(f"{server}/#/play/{collection_id}/4")
            page.wait_for_selector("#play-canvas[data-moves]")
            seen = page.evaluate(
                """() => new Promise((done) => {
                  const canvas = document.querySelector('#play-canvas');
                  let animating = false;
                  const watch = new MutationObserver(() => {
                    if (canvas.dataset.animating === 'true') animating = true;
                  });
                  watch.observe(canvas, { attributes: true });
                  PRESS
                  press('ArrowDown');
                  setTimeout(() => { watch.disconnect(); done(animating); }, 400);
                })""".replace("PRESS", PRESS)
            )
            assert seen is animated, motion


def test_a_burst_of_keys_is_never_dropped(browser: Any, server: str, collection_id: str) -> None:
    # Twenty keys within a few milliseconds, animated at the normal speed: twenty moves.
    keys = ["ArrowDown"] + ["ArrowRight", "ArrowLeft"] * 9 + ["ArrowRight"]
    with _page(browser, server, DESKTOP, {"speed": "normal", "speedChosen": True}) as page:
        page.goto(f"{server}/#/play/{collection_id}/4")
        page.wait_for_selector("#play-canvas[data-moves]")
        spent = page.evaluate(
            """(keys) => {
              const start = performance.now();
              PRESS
              for (const key of keys) press(key);
              return performance.now() - start;
            }""".replace("PRESS", PRESS),
            keys,
        )
        assert spent < 100
        page.wait_for_selector(
            '#play-canvas[data-moves="20"][data-animating="false"]', timeout=15_000
        )
        # A held key's auto-repeat does not pile up behind the steps still playing.
        page.evaluate(
            """() => {
              PRESS
              press('ArrowLeft');
              for (let i = 0; i < 10; i++) press('ArrowLeft', true);
            }""".replace("PRESS", PRESS)
        )
        page.wait_for_selector('#play-canvas[data-moves="21"][data-animating="false"]')
        assert page.locator("#moves").inner_text() == "21"


def _lurd(page: Any) -> str:
    page.click("#play-more") if page.locator("#play-more").is_visible() else None
    page.click("#copy-lurd")
    text = str(page.locator("#lurd-out").inner_text())
    return "" if text.startswith("(") else text


def test_a_tap_during_a_walk_redirects_it_and_redo_into_solved_celebrates(
    browser: Any, server: str, collection_id: str
) -> None:
    level = _level(4)
    with _page(browser, server, DESKTOP, {"speed": "slow", "speedChosen": True}) as page:
        web = Page.__new__(Page)  # only its cell geometry helper
        web.page = page
        page.goto(f"{server}/#/play/{collection_id}/4")
        page.wait_for_selector("#play-canvas[data-moves]")
        web.click_cell("#play-canvas", 4, 6)  # a walk of five steps, slow
        page.wait_for_selector('#play-canvas:not([data-moves="0"])')
        web.click_cell("#play-canvas", 1, 6)  # elsewhere, while it walks
        page.wait_for_selector('#play-canvas[data-animating="false"]', timeout=15_000)
        page.wait_for_timeout(300)
        after = replay(level, _lurd(page))
        assert after.final.player == level.cell(6, 1)
        assert after.metrics.pushes == 0
    with _page(browser, server, DESKTOP, {"speed": "instant", "speedChosen": True}) as page:
        page.goto(f"{server}/#/play/{collection_id}/1")
        page.wait_for_selector("#play-canvas[data-moves]")
        for key in (
            "ArrowRight",
            "ArrowRight",
            "ArrowLeft",
            "ArrowLeft",
            "ArrowDown",
            "ArrowRight",
        ):
            page.keyboard.press(key)
        page.wait_for_selector("#solved[open]")
        page.keyboard.press("Escape")
        page.keyboard.press("z")
        assert page.locator("#solved[open]").count() == 0
        page.keyboard.press("y")
        page.wait_for_selector("#solved[open]")
        names = page.locator("#solved-metrics dd").evaluate_all(
            "(nodes) => nodes.map((n) => n.dataset.metric)"
        )
        page.wait_for_selector('#solved-metrics[data-source="server"]')
        names = page.locator("#solved-metrics dd").evaluate_all(
            "(nodes) => nodes.map((n) => n.dataset.metric)"
        )
        assert names == [
            "moves",
            "pushes",
            "box_lines",
            "box_changes",
            "pushing_sessions",
            "player_lines",
        ]


#: Counts the tones the page starts (the browser's own oscillators, counted as they start).
COUNT_TONES = (
    "window.__tones = 0; const start = OscillatorNode.prototype.start;"
    " OscillatorNode.prototype.start = function (...a) { window.__tones += 1;"
    " return start.apply(this, a); };"
)


def test_sound_is_off_until_turned_on(browser: Any, server: str, collection_id: str) -> None:
    for sound in (False, True):
        settings = {"speed": "instant", "speedChosen": True, "sound": sound}
        with _page(browser, server, DESKTOP, settings) as page:
            page.add_init_script(COUNT_TONES)
            page.goto(f"{server}/#/play/{collection_id}/1")
            page.reload()  # the counting starts with a new document
            page.wait_for_selector("#play-canvas[data-moves]")
            assert page.locator("#sound").is_checked() is sound
            page.keyboard.press("ArrowRight")
            page.keyboard.press("ArrowRight")  # the box onto its goal
            page.wait_for_selector('#play-canvas[data-pushes="1"]')
            tones = page.evaluate("() => window.__tones")
            assert (tones > 0) is sound, tones
