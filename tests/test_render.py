"""Pictures: text, SVG and PNG agree with the level they draw."""

from __future__ import annotations

import io
import xml.etree.ElementTree as ET

import pytest
from PIL import Image

from sokoban import Level, render

SVG = "{http://www.w3.org/2000/svg}"

# A level with every kind of cell: box on goal, player on goal, plain box and goal, and
# blank exterior outside the walls (top right and bottom right corners).
LEVEL = Level.from_xsb(
    """\
#####
#+$ ###
# *. .#
# $   #
#######""",
).with_metadata(title="Corners & <edges>")

CELL = 20


def _rgba(image: Image.Image, cell: int, x: float, y: float) -> tuple[int, ...]:
    """The PNG's pixel at fractional cell coordinates."""
    return image.getpixel((int(x * cell), int(y * cell)))  # type: ignore[return-value]


def _hex(colour: str) -> tuple[int, int, int]:
    return tuple(int(colour[i : i + 2], 16) for i in (1, 3, 5))  # type: ignore[return-value]


def _close(pixel: tuple[int, ...], colour: str, tolerance: int = 12) -> bool:
    return pixel[3] == 255 and all(
        abs(a - b) <= tolerance for a, b in zip(pixel[:3], _hex(colour), strict=True)
    )


def test_text_is_the_xsb_drawing() -> None:
    assert render.text(LEVEL) == "#####\n#+$ ###\n# *. .#\n# $   #\n#######"
    assert Level.from_xsb(render.text(LEVEL)).boxes == LEVEL.boxes


def test_text_draws_a_position_not_just_the_start() -> None:
    moved = LEVEL.moved(player=LEVEL.cell(3, 3))
    assert render.text(moved).splitlines()[3] == "# $@  #"
    assert render.text(moved).splitlines()[1] == "#.$ ###"


def test_svg_is_well_formed_and_sized() -> None:
    root = ET.fromstring(render.svg(LEVEL, cell=CELL))
    assert root.tag == f"{SVG}svg"
    assert root.get("width") == str(7 * CELL) and root.get("height") == str(5 * CELL)
    assert root.get("viewBox") == f"0 0 {7 * CELL} {5 * CELL}"
    # The title is escaped, so a title with markup characters cannot break the document.
    assert root.find(f"{SVG}title").text == "Corners & <edges>"  # type: ignore[union-attr]


def _fills(root: ET.Element) -> list[str]:
    """The fill of every rect and circle, inherited from its group when it has none."""
    found = []

    def walk(element: ET.Element, inherited: str) -> None:
        fill = element.get("fill", inherited)
        if element.tag in (f"{SVG}rect", f"{SVG}circle"):
            found.append(fill)
        for child in element:
            walk(child, fill)

    walk(root, "")
    return found


def test_svg_draws_one_shape_per_piece() -> None:
    root = ET.fromstring(render.svg(LEVEL, cell=CELL))
    fills = _fills(root)
    colours = render.COLOURS
    # Two boxes off goal, one on; one player (on a goal: a goal dot on its body);
    # two empty goals drawn as dots.
    assert fills.count(colours["box"]) == 2
    assert fills.count(colours["box_on_goal"]) == 1
    assert fills.count(colours["player"]) == 1
    assert fills.count(colours["goal"]) == 2 + 1


def test_svg_leaves_the_exterior_blank() -> None:
    root = ET.fromstring(render.svg(LEVEL, cell=CELL))
    floor = next(g for g in root.iter(f"{SVG}g") if g.get("fill") == render.COLOURS["floor"])
    covered = set()
    for rect in floor:
        x, y = int(rect.get("x")) // CELL, int(rect.get("y")) // CELL  # type: ignore[arg-type]
        for dx in range(int(rect.get("width")) // CELL):  # type: ignore[arg-type]
            covered.add(LEVEL.cell(x + dx, y))
    assert covered == LEVEL.interior
    assert LEVEL.cell(6, 0) not in covered


def test_svg_cell_size_is_checked() -> None:
    with pytest.raises(ValueError, match="cell size 2"):
        render.svg(LEVEL, cell=2)
    with pytest.raises(TypeError):
        render.svg(LEVEL, cell=3.5)  # type: ignore[arg-type]


def test_repr_svg_shows_the_level_in_a_notebook() -> None:
    assert LEVEL._repr_svg_() == render.svg(LEVEL)


def test_png_matches_the_svg_look(tmp_path) -> None:
    path = tmp_path / "level.png"
    data = render.png(LEVEL, path, cell=CELL)
    assert path.read_bytes() == data
    image = Image.open(io.BytesIO(data)).convert("RGBA")
    assert image.size == (7 * CELL, 5 * CELL)
    colours = render.COLOURS
    pixel = lambda x, y: _rgba(image, CELL, x, y)  # noqa: E731
    assert pixel(6.5, 0.5)[3] == 0  # exterior: transparent
    assert _close(pixel(0.5, 0.5), colours["wall"])
    assert _close(pixel(1.5, 3.5), colours["floor"])
    assert _close(pixel(2.5, 1.5), colours["box"])  # a box off goal
    assert _close(pixel(2.5, 2.5), colours["box_on_goal"])
    assert _close(pixel(3.5, 2.5), colours["goal"])  # an empty goal's dot
    assert _close(pixel(3.5, 2.9), colours["floor"])  # and floor around it
    assert _close(pixel(1.5 - 0.2, 1.5), colours["player"])
    assert _close(pixel(1.5, 1.5), colours["goal"])  # the goal under the player shows


def test_png_without_a_path_only_returns_bytes(tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    data = render.png(LEVEL, None, cell=8)
    assert data.startswith(b"\x89PNG\r\n\x1a\n")
    assert list(tmp_path.iterdir()) == []


def test_png_of_the_largest_board_keeps_its_size() -> None:
    # 100 x 100 cells of 32 pixels: supersampling must shrink rather than build a huge canvas.
    rows = ["#" * 100] * 100
    rows[1] = "#@$.#" + "#" * 95
    big = Level.from_xsb("\n".join(rows))
    assert big.width == big.height == 100
    data = render.png(big, None, cell=32)
    assert Image.open(io.BytesIO(data)).size == (3200, 3200)
