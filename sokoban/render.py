"""Pictures of a level or of any position: XSB text, SVG, and PNG (drawn with Pillow).

The SVG and the PNG share one look, set by :data:`COLOURS` and the proportions below: dark
walls, a light floor inside the walls only (the exterior stays blank, or transparent), goals
as dots, wooden boxes that turn green on a goal, and a blue player; a player on a goal shows
the goal's dot on its body.

>>> from sokoban import Level
>>> level = Level.from_xsb("#####\\n#@$.#\\n#####")
>>> print(text(level))
#####
#@$.#
#####
>>> svg(level).startswith("<svg")
True
"""

from __future__ import annotations

import io
import os
from html import escape
from typing import TYPE_CHECKING

from sokoban.errors import PictureTooLargeError

if TYPE_CHECKING:
    from PIL import ImageDraw

    from sokoban.level import Level

#: Fill and line colours of every element, as ``#rrggbb``.
COLOURS = {
    "wall": "#4b5263",
    "wall_edge": "#3a404e",
    "floor": "#efe9dc",
    "goal": "#e0533d",
    "box": "#d59a4e",
    "box_edge": "#8c5a24",
    "box_on_goal": "#4caf72",
    "box_on_goal_edge": "#2b7a4b",
    "player": "#3d7bd9",
    "player_edge": "#1f4d99",
}

# Proportions of a cell (1.0 is the cell's side).
_GOAL_RADIUS = 0.16
_BOX_INSET = 0.1
_BOX_ROUND = 0.12
_BOX_INNER = 0.24
_PLAYER_RADIUS = 0.3
_LINE = 0.06
_PLAYER_GOAL_RADIUS = 0.1

#: Smallest and largest cell side accepted, in pixels.
MIN_CELL, MAX_CELL = 4, 256


def text(level: Level) -> str:
    """The position as XSB text: one line a row, trailing spaces trimmed, no title."""
    return level.xsb()


def _check_cell(cell: int) -> int:
    if isinstance(cell, bool) or not isinstance(cell, int):
        raise TypeError(f"cell must be an int, not {type(cell).__name__}")
    if not MIN_CELL <= cell <= MAX_CELL:
        raise ValueError(f"cell size {cell} is outside {MIN_CELL}..{MAX_CELL} pixels")
    return cell


def _floor_cells(level: Level) -> frozenset[int]:
    # The interior, plus any box, goal or player outside it, so that nothing floats on blank.
    return (level.interior | level.boxes | level.goals | level.players) - level.walls


def _runs(level: Level, cells: frozenset[int]) -> list[tuple[int, int, int]]:
    """Horizontal runs of ``cells`` as ``(x, y, length)``: fewer shapes than one per cell."""
    runs = []
    width = level.width
    for y in range(level.height):
        x = 0
        while x < width:
            if y * width + x in cells:
                start = x
                while x < width and y * width + x in cells:
                    x += 1
                runs.append((start, y, x - start))
            else:
                x += 1
    return runs


def _num(value: float) -> str:
    """A coordinate with at most two decimals and no trailing zeros."""
    return f"{value:.2f}".rstrip("0").rstrip(".")


def svg(level: Level, cell: int = 32) -> str:
    """A self-contained SVG drawing of the position, ``cell`` pixels a square.

    >>> from sokoban import Level
    >>> picture = svg(Level.from_xsb("#####\\n#@*.#\\n#####"), cell=10)
    >>> 'width="50" height="30"' in picture, picture.count("<circle")
    (True, 2)
    """
    c = _check_cell(cell)
    width, height = level.width * c, level.height * c
    n = _num
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}">'
    ]
    if level.title:
        out.append(f"<title>{escape(level.title)}</title>")
    # Floor under everything, then walls as row runs with a thin darker edge. Crisp edges
    # keep hairline seams from showing between runs when a viewer scales the picture.
    crisp = 'shape-rendering="crispEdges"'
    out.append(f'<g fill="{COLOURS["floor"]}" {crisp}>')
    for x, y, length in _runs(level, _floor_cells(level)):
        out.append(f'<rect x="{x * c}" y="{y * c}" width="{length * c}" height="{c}"/>')
    out.append("</g>")
    out.append(f'<g fill="{COLOURS["wall"]}" {crisp}>')
    for x, y, length in _runs(level, level.walls):
        out.append(f'<rect x="{x * c}" y="{y * c}" width="{length * c}" height="{c}"/>')
    out.append("</g>")
    edge = max(1.0, c * _LINE / 2)
    out.append(f'<g fill="none" stroke="{COLOURS["wall_edge"]}" stroke-width="{n(edge)}">')
    for wall in sorted(level.walls):
        x, y = level.xy(wall)
        h = edge / 2
        out.append(
            f'<rect x="{n(x * c + h)}" y="{n(y * c + h)}" '
            f'width="{n(c - edge)}" height="{n(c - edge)}"/>'
        )
    out.append("</g>")
    # Goals under empty cells only: a box or the player on a goal draws it differently.
    empty_goals = sorted(level.goals - level.boxes - level.players)
    if empty_goals:
        out.append(f'<g fill="{COLOURS["goal"]}">')
        for goal in empty_goals:
            x, y = level.xy(goal)
            out.append(
                f'<circle cx="{n((x + 0.5) * c)}" cy="{n((y + 0.5) * c)}" '
                f'r="{n(_GOAL_RADIUS * c)}"/>'
            )
        out.append("</g>")
    line = n(max(1.0, _LINE * c))
    for box in sorted(level.boxes):
        x, y = level.xy(box)
        kind = "box_on_goal" if box in level.goals else "box"
        inset = _BOX_INSET * c
        inner = _BOX_INNER * c
        out.append(
            f'<g stroke="{COLOURS[kind + "_edge"]}" stroke-width="{line}">'
            f'<rect x="{n(x * c + inset)}" y="{n(y * c + inset)}" '
            f'width="{n(c - 2 * inset)}" height="{n(c - 2 * inset)}" '
            f'rx="{n(_BOX_ROUND * c)}" fill="{COLOURS[kind]}"/>'
            f'<rect x="{n(x * c + inner)}" y="{n(y * c + inner)}" '
            f'width="{n(c - 2 * inner)}" height="{n(c - 2 * inner)}" fill="none"/></g>'
        )
    for player in sorted(level.players):
        x, y = level.xy(player)
        cx, cy = n((x + 0.5) * c), n((y + 0.5) * c)
        out.append(
            f'<circle cx="{cx}" cy="{cy}" r="{n(_PLAYER_RADIUS * c)}" '
            f'fill="{COLOURS["player"]}" stroke="{COLOURS["player_edge"]}" '
            f'stroke-width="{line}"/>'
        )
        if player in level.goals:
            out.append(
                f'<circle cx="{cx}" cy="{cy}" r="{n(_PLAYER_GOAL_RADIUS * c)}" '
                f'fill="{COLOURS["goal"]}"/>'
            )
    out.append("</svg>")
    return "\n".join(out) + "\n"


def _rgb(colour: str) -> tuple[int, int, int]:
    return int(colour[1:3], 16), int(colour[3:5], 16), int(colour[5:7], 16)


#: Pillow draws without anti-aliasing, so the PNG is drawn this many times larger and
#: scaled down; the factor shrinks on big boards to keep the canvas under _MAX_CANVAS pixels.
_SUPERSAMPLE = 4
_MAX_CANVAS = 16_000_000
#: Largest PNG drawn, in pixels (256 MB of RGBA): a 100 x 100 board at 80 pixels a cell.
MAX_PNG_PIXELS = 64_000_000


def png(level: Level, path: str | os.PathLike[str] | None = None, cell: int = 32) -> bytes:
    """The position as PNG bytes (RGBA, blank exterior transparent); also written to ``path``.

    >>> from sokoban import Level
    >>> data = png(Level.from_xsb("#####\\n#@$.#\\n#####"), cell=8)
    >>> data[:8] == b"\\x89PNG\\r\\n\\x1a\\n"
    True
    """
    from PIL import Image, ImageDraw

    c = _check_cell(cell)
    width, height = level.width * c, level.height * c
    if width * height > MAX_PNG_PIXELS:
        raise PictureTooLargeError(
            f"a {width} x {height} pixel PNG is over {MAX_PNG_PIXELS:,} pixels; "
            f"use a smaller cell than {c} (or SVG)"
        )
    scale = _SUPERSAMPLE
    while scale > 1 and width * height * scale * scale > _MAX_CANVAS:
        scale -= 1
    s = c * scale
    image = Image.new("RGBA", (width * scale, height * scale), (0, 0, 0, 0))
    draw = ImageDraw.Draw(image)

    def square(cell_: int, inset: float) -> tuple[float, float, float, float]:
        x, y = level.xy(cell_)
        return (x * s + inset, y * s + inset, (x + 1) * s - inset - 1, (y + 1) * s - inset - 1)

    for x, y, length in _runs(level, _floor_cells(level)):
        draw.rectangle((x * s, y * s, (x + length) * s - 1, (y + 1) * s - 1), COLOURS["floor"])
    edge = max(1, round(max(1.0, c * _LINE / 2) * scale))
    for wall in level.walls:
        draw.rectangle(square(wall, 0), _rgb(COLOURS["wall"]), _rgb(COLOURS["wall_edge"]), edge)
    for goal in level.goals - level.boxes - level.players:
        _disc(draw, level, goal, s, _GOAL_RADIUS, COLOURS["goal"])
    line = max(1, round(max(1.0, _LINE * c) * scale))
    for box in level.boxes:
        kind = "box_on_goal" if box in level.goals else "box"
        fill, outline = COLOURS[kind], COLOURS[kind + "_edge"]
        draw.rounded_rectangle(square(box, _BOX_INSET * s), _BOX_ROUND * s, fill, outline, line)
        draw.rectangle(square(box, _BOX_INNER * s), None, outline, line)
    for player in level.players:
        _disc(draw, level, player, s, _PLAYER_RADIUS, COLOURS["player"])
        r = _PLAYER_RADIUS * s
        x, y = level.xy(player)
        cx, cy = (x + 0.5) * s, (y + 0.5) * s
        draw.ellipse((cx - r, cy - r, cx + r, cy + r), None, COLOURS["player_edge"], line)
        if player in level.goals:
            _disc(draw, level, player, s, _PLAYER_GOAL_RADIUS, COLOURS["goal"])
    if scale > 1:
        image = image.resize((width, height), Image.Resampling.LANCZOS)
    buffer = io.BytesIO()
    image.save(buffer, format="PNG", optimize=True)
    data = buffer.getvalue()
    if path is not None:
        with open(path, "wb") as handle:
            handle.write(data)
    return data


def _disc(
    draw: ImageDraw.ImageDraw, level: Level, cell: int, side: int, radius: float, fill: str
) -> None:
    x, y = level.xy(cell)
    cx, cy, r = (x + 0.5) * side, (y + 0.5) * side, radius * side
    draw.ellipse((cx - r, cy - r, cx + r, cy + r), fill)
