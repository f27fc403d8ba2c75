"""Solutions as pictures: Replay.frames, GIF/APNG/WebP and animated SVG checked position by
position against the replay, marks (dead squares against the naive oracle, box paths),
contact sheets, notebook HTML, and the missing-Pillow error."""

from __future__ import annotations

import io
import re
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from naive import dead_squares as naive_dead_squares
from PIL import Image, features

from sokoban import ExtraMissingError, Game, Level, render, xsb
from sokoban.marks import MARK_COLOURS, box_paths, dead_squares, marks, parse_kinds
from sokoban.render import COLOURS

MICROBAN = Path(__file__).parent / "data" / "public" / "microban.xsb"
#: Microban 1's push-optimal solution from tests/data/public/optimal.csv (another solver's).
MICROBAN_1 = "dlUrrrdLullddrUluRuulDrddrruLdlUU"
SVG = "{http://www.w3.org/2000/svg}"


@pytest.fixture(scope="module")
def microban() -> xsb.Collection:
    return xsb.load(MICROBAN)


@pytest.fixture(scope="module")
def played(microban: xsb.Collection):  # type: ignore[no-untyped-def]
    return microban[0].replay(MICROBAN_1)


# --- Replay.frames ----------------------------------------------------------------------------


def test_frames_step_by_step_from_start_to_final(played) -> None:  # type: ignore[no-untyped-def]
    positions = list(played.frames())
    assert len(positions) == played.metrics.moves + 1
    assert positions[0] == played.start and positions[-1] == played.final
    game = Game(played.start)
    for (direction, _), after in zip(played.solution, positions[1:], strict=True):
        assert game.move(direction) and game.position == after
    pushes = list(played.frames(every="push"))
    assert len(pushes) == played.metrics.pushes + 1
    assert pushes[-1] == played.final
    # Every push frame is a new box set; the boxes move only there.
    assert len({p.boxes for p in pushes}) == len(pushes)
    with pytest.raises(ValueError, match="'jump'"):
        list(played.frames(every="jump"))


# --- raster animations checked against the replay ---------------------------------------------

PIECES = {name: COLOURS[name] for name in ("floor", "goal", "box", "box_on_goal", "player")}


def _nearest(pixel: tuple[int, ...]) -> str:
    def distance(colour: str) -> int:
        rgb = (int(colour[1:3], 16), int(colour[3:5], 16), int(colour[5:7], 16))
        return sum((a - b) ** 2 for a, b in zip(pixel[:3], rgb, strict=True))

    return min(PIECES, key=lambda name: distance(PIECES[name]))


def _read_position(picture: Image.Image, level: Level, cell: int) -> tuple[frozenset[int], int]:
    """The boxes and the player a frame shows, read from the colours of its cells: the
    centre (box, box on goal, goal) and a point above it (the player's body)."""
    rgb = picture.convert("RGB")
    boxes, players = set(), []
    for c in level.interior:
        x, y = level.xy(c)
        centre = _nearest(rgb.getpixel((int((x + 0.5) * cell), int((y + 0.5) * cell))))
        upper = _nearest(rgb.getpixel((int((x + 0.5) * cell), int((y + 0.3) * cell))))
        if upper == "player":
            players.append(c)
        elif centre in ("box", "box_on_goal"):
            assert (centre == "box_on_goal") == (c in level.goals)
            boxes.add(c)
    assert len(players) == 1
    return frozenset(boxes), players[0]


def _decoded(data: bytes) -> list[tuple[Image.Image, int]]:
    picture = Image.open(io.BytesIO(data))
    out = []
    for i in range(picture.n_frames):
        picture.seek(i)
        out.append((picture.convert("RGBA"), picture.info.get("duration", 0)))
    return out


def test_gif_of_microban_1_frame_by_frame_against_replay(played) -> None:  # type: ignore[no-untyped-def]
    cell = 20
    data = render.gif(played, cell=cell, speed=10)
    frames = _decoded(data)
    positions = list(played.frames())
    assert len(frames) == len(positions) == 34
    for (picture, _), position in zip(frames, positions, strict=True):
        assert picture.size == (position.width * cell, position.height * cell)
        assert _read_position(picture, position, cell) == (position.boxes, position.player)
    durations = [d for _, d in frames]
    assert durations[:-1] == [100] * 33 and durations[-1] == 1100


def test_apng_and_webp_hold_the_same_positions(played) -> None:  # type: ignore[no-untyped-def]
    positions = list(played.frames(every="push"))
    formats = ["apng"] + (["webp"] if features.check("webp") else [])
    for kind in formats:
        frames = _decoded(render.animation(played, kind, cell=16, every="push", speed=4))
        assert len(frames) == len(positions), kind
        for (picture, _), position in zip(frames, positions, strict=True):
            assert _read_position(picture, position, 16) == (position.boxes, position.player)


def test_speed_and_bounds(played) -> None:  # type: ignore[no-untyped-def]
    slow = _decoded(render.gif(played, cell=8, speed=2, every="push", hold=0))
    assert {d for _, d in slow} == {500}
    with pytest.raises(ValueError, match="speed 99"):
        render.gif(played, cell=8, speed=99)
    with pytest.raises(ValueError, match="'bmp'"):
        render.animation(played, "bmp")


# --- animated SVG -----------------------------------------------------------------------------


def _at(values: list[tuple[float, float]], times: list[float], t: float) -> tuple[float, float]:
    """The value of a linear SMIL animation at key time ``t``."""
    for k in range(len(times) - 1):
        if times[k] <= t <= times[k + 1]:
            span = times[k + 1] - times[k]
            f = 0.0 if span == 0 else (t - times[k]) / span
            (x0, y0), (x1, y1) = values[k], values[k + 1]
            return x0 + f * (x1 - x0), y0 + f * (y1 - y0)
    raise AssertionError(f"time {t} outside the key times")


def test_animated_svg_shows_every_position_of_the_replay(played) -> None:  # type: ignore[no-untyped-def]
    cell, speed = 10, 5.0
    text = render.animated_svg(played, cell=cell, speed=speed)
    root = ET.fromstring(text)
    positions = list(played.frames())
    step = 1 / speed
    total = step * (len(positions) - 1) + 1.0
    pieces = []
    for group in root.iter(f"{SVG}g"):
        anim = group.find(f"{SVG}animateTransform")
        if anim is None:
            continue
        assert anim.get("dur") == f"{total:g}s"
        values = [tuple(map(float, v.split())) for v in anim.get("values", "").split(";")]
        times = [float(t) for t in anim.get("keyTimes", "").split(";")]
        assert times[0] == 0 and times[-1] == 1 and times == sorted(times)
        is_player = group.find(f"{SVG}circle") is not None
        pieces.append((is_player, values, times))
    # The player and both boxes move in this solution.
    assert sorted(p for p, _, _ in pieces) == [False, False, True]
    level = played.start
    for k, position in enumerate(positions):
        t = k * step / total
        seen_boxes, seen_player = set(), None
        for is_player, values, times in pieces:
            x, y = _at(values, times, t)
            cell_ = level.cell(round(x / cell), round(y / cell))
            assert abs(x - round(x / cell) * cell) < 1e-3 and abs(y - round(y / cell) * cell) < 1e-3
            if is_player:
                seen_player = cell_
            else:
                seen_boxes.add(cell_)
        assert (frozenset(seen_boxes), seen_player) == (position.boxes, position.player), k


def test_animated_svg_turns_boxes_green_on_goals() -> None:
    level = Level.from_xsb("######\n#@$ .#\n######")
    text = render.animated_svg(level.replay("RR"), cell=10, speed=2, hold=0.5)
    green = re.search(r'<animate attributeName="opacity"[^>]*values="([^"]*)"', text)
    assert green is not None and green.group(1) == "0;1;1"


# --- marks ------------------------------------------------------------------------------------


def test_dead_squares_agree_with_the_naive_oracle(microban: xsb.Collection) -> None:
    for level in list(microban)[:8]:
        assert dead_squares(level) == naive_dead_squares(level), level.title


def test_box_paths_are_the_box_lines(played) -> None:  # type: ignore[no-untyped-def]
    lines = box_paths(played)
    assert len(lines) == played.metrics.box_lines
    # Each line is straight and its length adds up to the pushes.
    level = played.final
    total = 0
    for a, b in lines:
        (x0, y0), (x1, y1) = level.xy(a), level.xy(b)
        assert x0 == x1 or y0 == y1
        total += abs(x1 - x0) + abs(y1 - y0)
    assert total == played.metrics.pushes


def test_marks_in_pictures(played) -> None:  # type: ignore[no-untyped-def]
    level = played.start
    dead = marks(level, ["dead"])
    assert set(dead.fill) == dead_squares(level) and not dead.arrows
    picture = render.svg(level, 10, dead)
    assert picture.count(f'fill="{MARK_COLOURS["dead"]}"') == len(dead.fill)
    path = marks(level, parse_kinds("path"), played)
    assert render.svg(level, 10, path).count("<polygon") == played.metrics.box_lines
    reach = marks(level, ["reach"])
    assert set(reach.fill) == level.reachable()
    with pytest.raises(ValueError, match="needs a solution"):
        marks(level, ["path"])
    with pytest.raises(ValueError, match="'walls'"):
        parse_kinds("dead,walls")
    # A dead square is drawn tinted in the PNG too.
    still = Image.open(io.BytesIO(render.png(level, None, 20, dead))).convert("RGB")
    x, y = level.xy(min(dead.fill))
    assert still.getpixel((x * 20 + 3, y * 20 + 3)) != still.getpixel((0, 0))


# --- sheets and notebook display --------------------------------------------------------------


def test_contact_sheets(microban: xsb.Collection) -> None:
    levels = list(microban)[:7]
    root = ET.fromstring(render.sheet_svg(levels, columns=3, size=100))
    assert (root.get("width"), root.get("height")) == ("300", str(3 * (100 + render.CAPTION)))
    assert len(root.findall(f"{SVG}svg")) == 7
    assert [t.text for t in root.findall(f"{SVG}text")][:2] == ["1", "2"]
    sheet = Image.open(io.BytesIO(render.sheet_png(levels, columns=3, size=100)))
    assert sheet.size == (300, 3 * (100 + render.CAPTION))


def test_notebook_html(played) -> None:  # type: ignore[no-untyped-def]
    game = Game(played.start)
    game.play("dlU")
    html = game._repr_html_()
    assert "<svg" in html and "3 moves, 1 pushes, not solved" in html
    assert repr(game) == "<Game 3 moves, 1 pushes: 'dlU'>"
    html = played._repr_html_()
    assert "<animateTransform" in html and ">33<" in html and MICROBAN_1 in html

    from sokoban.solve import SearchStats, SolveResult, Status

    result = SolveResult(Status.SOLVED, played.solution, "astar", True, SearchStats(expanded=1234))
    html = result._repr_html_()
    assert "solved" in html and "astar" in html and "1,234" in html and ">8<" in html
    html = render.collection_html([played.start] * 3, "three")
    assert "(3 levels)" in html and html.count("<svg") == 4
    from sokoban.xsb import Collection

    html = Collection([played.start] * 3, title="three")._repr_html_()
    assert "<b>three</b> (3 levels)" in html and html.count("<svg") == 4


# --- Pillow is optional -----------------------------------------------------------------------


def test_missing_pillow_is_one_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    level = Level.from_xsb("#####\n#@$.#\n#####")
    monkeypatch.setitem(sys.modules, "PIL", None)
    with pytest.raises(ExtraMissingError, match=r"pip install 'sokoban\[image\]'"):
        render.png(level)
    # SVG needs nothing.
    assert render.svg(level).startswith("<svg")
    assert "<animateTransform" in render.animated_svg(level.replay("R"))


def test_animated_svg_shows_the_goal_under_the_player() -> None:
    level = Level.from_xsb("#######\n#@ .$.#\n#######")
    text = render.animated_svg(level.replay("rrR"), cell=10, speed=2, hold=0)
    dot = re.search(
        r'<circle[^>]*r="1"[^>]*opacity="0"><animate[^>]*values="([^"]*)" keyTimes="([^"]*)"',
        text,
    )
    # Off, on while the player stands on the goal (the second step), off when it pushes on.
    assert dot is not None and dot.groups() == ("0;1;0", "0;0.666667;1")
