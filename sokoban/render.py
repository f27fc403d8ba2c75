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
from collections.abc import Iterable, Sequence
from html import escape
from typing import TYPE_CHECKING, Any

from sokoban.errors import ExtraMissingError, PictureTooLargeError
from sokoban.extras import require_pillow

if TYPE_CHECKING:
    from PIL import Image, ImageDraw

    from sokoban.level import Level
    from sokoban.lurd import Replay
    from sokoban.marks import Marks

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
    "background": "#ffffff",
}

# Proportions of a cell (1.0 is the cell's side).
_GOAL_RADIUS = 0.16
_BOX_INSET = 0.1
_BOX_ROUND = 0.12
_BOX_INNER = 0.24
_PLAYER_RADIUS = 0.3
_LINE = 0.06
_PLAYER_GOAL_RADIUS = 0.1
_ARROW_WIDTH = 0.12
_ARROW_HEAD = 0.35
_ARROW_OPACITY = 0.85
_MARK_OPACITY = 0.45

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


def svg(level: Level, cell: int = 32, marks: Marks | None = None) -> str:
    """A self-contained SVG drawing of the position, ``cell`` pixels a square, with the
    highlights of ``marks`` (see :func:`sokoban.marks.marks`): filled cells under the
    pieces, arrows over them.

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
    if marks is not None and marks.fill:
        out.append(f'<g fill-opacity="{_MARK_OPACITY}" {crisp}>')
        for mark_cell, colour in sorted(marks.fill.items()):
            x, y = level.xy(mark_cell)
            out.append(f'<rect x="{x * c}" y="{y * c}" width="{c}" height="{c}" fill="{colour}"/>')
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
    if marks is not None and marks.arrows:
        out.extend(_svg_arrows(level, marks.arrows, c))
    out.append("</svg>")
    return "\n".join(out) + "\n"


def _arrow_shape(
    level: Level, start: int, end: int, side: float
) -> tuple[tuple[float, float], tuple[float, float], list[tuple[float, float]]]:
    """An arrow from the centre of ``start`` to the centre of ``end``: the shaft's two ends
    and the head's three corners, in pixels of cells ``side`` wide."""
    (x0, y0), (x1, y1) = level.xy(start), level.xy(end)
    ax, ay = (x0 + 0.5) * side, (y0 + 0.5) * side
    bx, by = (x1 + 0.5) * side, (y1 + 0.5) * side
    length = max(1e-9, ((bx - ax) ** 2 + (by - ay) ** 2) ** 0.5)
    ux, uy = (bx - ax) / length, (by - ay) / length
    head = _ARROW_HEAD * side
    base_x, base_y = bx - ux * head, by - uy * head
    wing = head * 0.6
    corners = [
        (bx, by),
        (base_x - uy * wing, base_y + ux * wing),
        (base_x + uy * wing, base_y - ux * wing),
    ]
    return (ax, ay), (base_x, base_y), corners


def _svg_arrows(level: Level, arrows: Iterable[tuple[int, int, str]], c: int) -> list[str]:
    n = _num
    width = n(max(1.0, _ARROW_WIDTH * c))
    out = [f'<g stroke-linecap="round" opacity="{_ARROW_OPACITY}">']
    for start, end, colour in arrows:
        (ax, ay), (bx, by), corners = _arrow_shape(level, start, end, c)
        points = " ".join(f"{n(x)},{n(y)}" for x, y in corners)
        out.append(
            f'<line x1="{n(ax)}" y1="{n(ay)}" x2="{n(bx)}" y2="{n(by)}" '
            f'stroke="{colour}" stroke-width="{width}"/>'
            f'<polygon points="{points}" fill="{colour}"/>'
        )
    out.append("</g>")
    return out


# --- raster pictures (Pillow) ----------------------------------------------------------------


def _rgb(colour: str) -> tuple[int, int, int]:
    return int(colour[1:3], 16), int(colour[3:5], 16), int(colour[5:7], 16)


#: Pillow draws without anti-aliasing, so pictures are drawn this many times larger and
#: scaled down; the factor shrinks on big boards to keep the canvas under _MAX_CANVAS pixels.
_SUPERSAMPLE = 4
_MAX_CANVAS = 16_000_000
#: Largest raster picture drawn, in pixels (256 MB of RGBA): a 100 x 100 board at 80 pixels
#: a cell.
MAX_PNG_PIXELS = 64_000_000


def _check_pixels(width: int, height: int, cell: int, what: str = "PNG") -> None:
    if width * height > MAX_PNG_PIXELS:
        raise PictureTooLargeError(
            f"a {width} x {height} pixel {what} is over {MAX_PNG_PIXELS:,} pixels; "
            f"use a smaller cell than {cell} (or SVG)"
        )


class _Painter:
    """Draws positions of one board: the board (floor, marks, walls, goals) once, the
    boxes and the player as sprites pasted on a copy of it, the arrows over them."""

    def __init__(
        self, level: Level, cell: int, marks: Marks | None = None, flat: bool = False
    ) -> None:
        require_pillow("drawing PNG, GIF, APNG or WebP")

        self.c = c = _check_cell(cell)
        self.width, self.height = level.width * c, level.height * c
        _check_pixels(self.width, self.height, c)
        self.board = self._board(level, marks, flat)
        self.sprites = {kind: self._sprite(kind) for kind in _SPRITES}
        self.overlay = self._arrows(level, marks.arrows) if marks and marks.arrows else None

    def _scale(self) -> int:
        scale = _SUPERSAMPLE
        while scale > 1 and self.width * self.height * scale * scale > _MAX_CANVAS:
            scale -= 1
        return scale

    def _board(self, level: Level, marks: Marks | None, flat: bool) -> Image.Image:
        from PIL import Image, ImageDraw

        scale = self._scale()
        s = self.c * scale
        size = (self.width * scale, self.height * scale)
        back = (*_rgb(COLOURS["background"]), 255) if flat else (0, 0, 0, 0)
        image = Image.new("RGBA", size, back)
        draw = ImageDraw.Draw(image)
        for x, y, length in _runs(level, _floor_cells(level)):
            draw.rectangle((x * s, y * s, (x + length) * s - 1, (y + 1) * s - 1), COLOURS["floor"])
        if marks is not None and marks.fill:
            layer = Image.new("RGBA", size, (0, 0, 0, 0))
            marked = ImageDraw.Draw(layer)
            alpha = round(_MARK_OPACITY * 255)
            for mark_cell, colour in marks.fill.items():
                x, y = level.xy(mark_cell)
                marked.rectangle(
                    (x * s, y * s, (x + 1) * s - 1, (y + 1) * s - 1), (*_rgb(colour), alpha)
                )
            image.alpha_composite(layer)
        edge = max(1, round(max(1.0, self.c * _LINE / 2) * scale))
        for wall in level.walls:
            x, y = level.xy(wall)
            box = (x * s, y * s, (x + 1) * s - 1, (y + 1) * s - 1)
            draw.rectangle(box, _rgb(COLOURS["wall"]), _rgb(COLOURS["wall_edge"]), edge)
        for goal in level.goals:
            _disc(draw, *level.xy(goal), s, _GOAL_RADIUS, COLOURS["goal"])
        if scale > 1:
            image = image.resize((self.width, self.height), Image.Resampling.LANCZOS)
        return image

    def _sprite(self, kind: str) -> Image.Image:
        from PIL import Image, ImageDraw

        s = self.c * _SUPERSAMPLE
        image = Image.new("RGBA", (s, s), (0, 0, 0, 0))
        draw = ImageDraw.Draw(image)
        line = max(1, round(max(1.0, _LINE * self.c) * _SUPERSAMPLE))

        def square(inset: float) -> tuple[float, float, float, float]:
            return (inset, inset, s - inset - 1, s - inset - 1)

        if kind.startswith("box"):
            fill, outline = COLOURS[kind], COLOURS[kind + "_edge"]
            draw.rounded_rectangle(square(_BOX_INSET * s), _BOX_ROUND * s, fill, outline, line)
            draw.rectangle(square(_BOX_INNER * s), None, outline, line)
        else:
            _disc(draw, 0, 0, s, _PLAYER_RADIUS, COLOURS["player"])
            r, centre = _PLAYER_RADIUS * s, s / 2
            box = (centre - r, centre - r, centre + r, centre + r)
            draw.ellipse(box, None, COLOURS["player_edge"], line)
            if kind == "player_on_goal":
                _disc(draw, 0, 0, s, _PLAYER_GOAL_RADIUS, COLOURS["goal"])
        return image.resize((self.c, self.c), Image.Resampling.LANCZOS)

    def _arrows(self, level: Level, arrows: Iterable[tuple[int, int, str]]) -> Image.Image:
        from PIL import Image, ImageDraw

        scale = self._scale()
        s = self.c * scale
        image = Image.new("RGBA", (self.width * scale, self.height * scale), (0, 0, 0, 0))
        draw = ImageDraw.Draw(image)
        alpha = round(_ARROW_OPACITY * 255)
        width = max(1, round(max(1.0, _ARROW_WIDTH * self.c) * scale))
        for start, end, colour in arrows:
            (ax, ay), (bx, by), corners = _arrow_shape(level, start, end, s)
            fill = (*_rgb(colour), alpha)
            draw.line((ax, ay, bx, by), fill, width)
            r = width / 2
            draw.ellipse((ax - r, ay - r, ax + r, ay + r), fill)
            draw.polygon(corners, fill)
        if scale > 1:
            image = image.resize((self.width, self.height), Image.Resampling.LANCZOS)
        return image

    def draw(self, position: Level) -> Image.Image:
        """The position on this painter's board, as an RGBA image."""
        image = self.board.copy()
        c = self.c
        for box in position.boxes:
            x, y = position.xy(box)
            kind = "box_on_goal" if box in position.goals else "box"
            image.alpha_composite(self.sprites[kind], (x * c, y * c))
        for player in position.players:
            x, y = position.xy(player)
            kind = "player_on_goal" if player in position.goals else "player"
            image.alpha_composite(self.sprites[kind], (x * c, y * c))
        if self.overlay is not None:
            image.alpha_composite(self.overlay)
        return image

    def palette_source(self) -> Image.Image:
        """Every colour a frame can hold, in one image: the board and each sprite on it."""
        from PIL import Image

        c = self.c
        board = self.board.convert("RGB")
        strip = Image.new("RGB", (board.width + c * len(self.sprites), board.height))
        strip.paste(board, (0, 0))
        floor = (*_rgb(COLOURS["floor"]), 255)
        for i, sprite in enumerate(self.sprites.values()):
            tile = Image.new("RGBA", (c, c), floor)
            tile.alpha_composite(sprite)
            strip.paste(tile.convert("RGB"), (board.width + i * c, 0))
        return strip


_SPRITES = ("box", "box_on_goal", "player", "player_on_goal")


def _disc(draw: ImageDraw.ImageDraw, x: int, y: int, side: int, radius: float, fill: str) -> None:
    cx, cy, r = (x + 0.5) * side, (y + 0.5) * side, radius * side
    draw.ellipse((cx - r, cy - r, cx + r, cy + r), fill)


def encode_png(picture: Image.Image) -> bytes:
    """A Pillow image as PNG bytes."""
    return _encode(picture, "PNG", optimize=True)


def _encode(image: Image.Image, format: str, **options: Any) -> bytes:
    buffer = io.BytesIO()
    image.save(buffer, format=format, **options)
    return buffer.getvalue()


def _write(data: bytes, path: str | os.PathLike[str] | None) -> bytes:
    if path is not None:
        with open(path, "wb") as handle:
            handle.write(data)
    return data


def image(level: Level, cell: int = 32, marks: Marks | None = None) -> Image.Image:
    """The position as a Pillow RGBA image (blank exterior transparent)."""
    return _Painter(level, cell, marks).draw(level)


def png(
    level: Level,
    path: str | os.PathLike[str] | None = None,
    cell: int = 32,
    marks: Marks | None = None,
) -> bytes:
    """The position as PNG bytes (RGBA, blank exterior transparent); also written to ``path``.

    >>> from sokoban import Level
    >>> data = png(Level.from_xsb("#####\\n#@$.#\\n#####"), cell=8)
    >>> data[:8] == b"\\x89PNG\\r\\n\\x1a\\n"
    True
    """
    return _write(_encode(image(level, cell, marks), "PNG", optimize=True), path)


# --- solutions as pictures ---------------------------------------------------------------------

#: Animation formats: the file suffix each is written with.
ANIMATION_FORMATS = {"gif": ".gif", "apng": ".png", "webp": ".webp", "svg": ".svg"}

#: Fastest and slowest speeds of an animation, in steps a second.
MIN_SPEED, MAX_SPEED = 0.1, 50.0


#: The most memory an animation's frames may take while it is encoded (Pillow holds them
#: all): a paletted GIF frame is a byte a pixel, an APNG or WebP frame four.
MAX_ANIMATION_BYTES = 512 << 20


def _check_animation(painter: _Painter, frames: int, per_pixel: int, cell: int) -> None:
    size = painter.width * painter.height * frames * per_pixel
    if size > MAX_ANIMATION_BYTES:
        raise PictureTooLargeError(
            f"{frames:,} frames of {painter.width} x {painter.height} pixels would take "
            f"{size / (1 << 20):,.0f} MiB, over {MAX_ANIMATION_BYTES >> 20} MiB; use a smaller "
            f"cell than {cell}, a frame per push, GIF, or SVG"
        )


def _positions(source: Replay | Iterable[Level], every: str) -> list[Level]:
    from sokoban.lurd import Replay

    positions = list(source.frames(every) if isinstance(source, Replay) else source)
    if not positions:
        raise ValueError("an animation needs at least one position")
    return positions


def _durations(count: int, speed: float, hold: float) -> list[int]:
    """Milliseconds each frame shows: one step at ``speed`` steps a second, the last
    frame ``hold`` seconds longer (a looping animation pauses on the solved position)."""
    if not MIN_SPEED <= speed <= MAX_SPEED:
        raise ValueError(f"speed {speed} is outside {MIN_SPEED}..{MAX_SPEED} steps a second")
    step = max(20, round(1000 / speed / 10) * 10)  # GIF counts in hundredths of a second
    durations = [step] * count
    durations[-1] += round(hold * 1000)
    return durations


def frames(
    source: Replay | Iterable[Level],
    cell: int = 32,
    every: str = "move",
    marks: Marks | None = None,
    flat: bool = False,
) -> list[Image.Image]:
    """Pillow RGBA images of a replay's positions (:meth:`Replay.frames`) or of any
    positions of one board; ``flat`` puts them on an opaque background."""
    positions = _positions(source, every)
    painter = _Painter(positions[0], cell, marks, flat=flat)
    _check_animation(painter, len(positions), 4, cell)
    return [painter.draw(position) for position in positions]


def animation(
    source: Replay | Iterable[Level],
    format: str = "gif",
    path: str | os.PathLike[str] | None = None,
    cell: int = 32,
    speed: float = 8.0,
    every: str = "move",
    marks: Marks | None = None,
    hold: float = 1.0,
) -> bytes:
    """An animated picture of a solution: ``format`` is ``"gif"``, ``"apng"``, ``"webp"``
    (Pillow) or ``"svg"``; ``speed`` in steps a second; a frame per move or per push
    (``every``); written to ``path`` too when given. It loops, pausing ``hold`` seconds
    on the last position."""
    if format not in ANIMATION_FORMATS:
        raise ValueError(f"unknown animation format {format!r}: choose from gif, apng, webp, svg")
    if format == "svg":
        text = animated_svg(source, cell, speed, every, marks, hold)
        return _write(text.encode(), path)
    positions = _positions(source, every)
    durations = _durations(len(positions), speed, hold)
    if format == "webp":
        from PIL import features

        if not features.check("webp"):
            raise ExtraMissingError("this Pillow was built without WebP: choose GIF or APNG")
    painter = _Painter(positions[0], cell, marks, flat=format == "gif")
    _check_animation(painter, len(positions), 1 if format == "gif" else 4, cell)
    if format == "gif":
        # One palette for every frame, made from every colour a frame can hold, so that
        # colours stay steady from frame to frame; no dithering (flat areas stay flat).
        # Each frame is paletted as it is drawn: a byte a pixel is all that is kept.
        from PIL import Image

        palette = painter.palette_source().quantize(256, Image.Quantize.MEDIANCUT)
        paletted = [
            painter.draw(p).convert("RGB").quantize(palette=palette, dither=Image.Dither.NONE)
            for p in positions
        ]
        data = _encode(
            paletted[0],
            "GIF",
            save_all=True,
            append_images=paletted[1:],
            duration=durations,
            loop=0,
            disposal=1,
        )
        return _write(data, path)
    images = [painter.draw(position) for position in positions]
    first, rest = images[0], images[1:]
    if format == "apng":
        data = _encode(first, "PNG", save_all=True, append_images=rest, duration=durations, loop=0)
    else:
        data = _encode(
            first,
            "WEBP",
            save_all=True,
            append_images=rest,
            duration=durations,
            loop=0,
            lossless=True,
        )
    return _write(data, path)


def gif(
    source: Replay | Iterable[Level], path: str | os.PathLike[str] | None = None, **options: Any
) -> bytes:
    """An animated GIF of a solution; the options are :func:`animation`'s.

    >>> from sokoban import Level
    >>> played = Level.from_xsb("######\\n#@$ .#\\n######").replay("RR")
    >>> gif(played, cell=8)[:6]
    b'GIF89a'
    """
    return animation(source, "gif", path, **options)


def animated_svg(
    source: Replay | Iterable[Level],
    cell: int = 32,
    speed: float = 8.0,
    every: str = "move",
    marks: Marks | None = None,
    hold: float = 1.0,
) -> str:
    """A solution as one SVG that plays itself (SMIL animation, as browsers show it): the
    board drawn once, each box and the player sliding from cell to cell, a box turning
    green on a goal. Boxes are followed from position to position by the cell they leave,
    so consecutive positions must differ by at most one push."""
    positions = _positions(source, every)
    c = _check_cell(cell)
    step = _durations(len(positions), speed, hold)[0] / 1000
    total = step * (len(positions) - 1) + hold
    start = positions[0]
    board = start.with_metadata(boxes=frozenset(), players=frozenset())
    lines = svg(board, c, marks).splitlines()
    arrows_at = len(lines) - 1
    if marks is not None and marks.arrows:
        # The arrows stay over the pieces: cut them off here and add them back last.
        arrows_at = next(i for i, line in enumerate(lines) if line.startswith("<g stroke-linecap"))
    head, arrows = lines[:arrows_at], lines[arrows_at:-1]
    tracks = _tracks(positions)
    n = _num
    out = head
    line = n(max(1.0, _LINE * c))
    inset, inner = _BOX_INSET * c, _BOX_INNER * c

    def box_shape(kind: str, extra: str = "") -> str:
        return (
            f'<g stroke="{COLOURS[kind + "_edge"]}" stroke-width="{line}"{extra}>'
            f'<rect x="{n(inset)}" y="{n(inset)}" width="{n(c - 2 * inset)}" '
            f'height="{n(c - 2 * inset)}" rx="{n(_BOX_ROUND * c)}" fill="{COLOURS[kind]}"/>'
            f'<rect x="{n(inner)}" y="{n(inner)}" width="{n(c - 2 * inner)}" '
            f'height="{n(c - 2 * inner)}" fill="none"/>'
        )

    for track in tracks[1:]:
        out.append(_slide(start, track, c, step, total))
        on_goal = [cell_ in start.goals for cell_ in track]
        out.append(box_shape("box") + "</g>")
        out.append(
            box_shape("box_on_goal", f' opacity="{int(on_goal[0])}"')
            + _switch("opacity", on_goal, step, total)
            + "</g>"
        )
        out.append("</g>")
    out.append(_slide(start, tracks[0], c, step, total))
    out.append(
        f'<circle cx="{n(c / 2)}" cy="{n(c / 2)}" r="{n(_PLAYER_RADIUS * c)}" '
        f'fill="{COLOURS["player"]}" stroke="{COLOURS["player_edge"]}" stroke-width="{line}"/>'
    )
    # A player on a goal shows the goal's dot on its body, as in the still pictures.
    on_goal = [cell_ in start.goals for cell_ in tracks[0]]
    if any(on_goal):
        out.append(
            f'<circle cx="{n(c / 2)}" cy="{n(c / 2)}" r="{n(_PLAYER_GOAL_RADIUS * c)}" '
            f'fill="{COLOURS["goal"]}" opacity="{int(on_goal[0])}">'
            + _switch("opacity", on_goal, step, total)
            + "</circle>"
        )
    out.append("</g>")
    out.extend(arrows)
    out.append("</svg>")
    return "\n".join(out) + "\n"


def _tracks(positions: Sequence[Level]) -> list[list[int]]:
    """The player's cell in every position, then each box's: ``tracks[0]`` the player,
    ``tracks[1:]`` the boxes in the start's order."""
    start = positions[0]
    if len(start.players) != 1:
        raise ValueError("an animation needs a position with exactly one player")
    boxes = sorted(start.boxes)
    tracks = [[min(start.players)]] + [[b] for b in boxes]
    where = {b: i for i, b in enumerate(boxes, 1)}
    for before, after in zip(positions, positions[1:], strict=False):
        left, arrived = before.boxes - after.boxes, after.boxes - before.boxes
        if len(left) != len(arrived) or len(left) > 1:
            raise ValueError("consecutive positions differ by more than one push")
        if left:
            (old,), (new,) = left, arrived
            where[new] = where.pop(old)
        tracks[0].append(min(after.players))
        for cell_, i in where.items():
            tracks[i].append(cell_)
    return tracks


def _slide(level: Level, track: list[int], c: int, step: float, total: float) -> str:
    """``animateTransform`` moving a piece along ``track`` (a cell a frame): it holds
    still, then slides one cell during the step that moves it."""
    keys: list[tuple[int, int]] = [(0, track[0])]
    for f in range(1, len(track)):
        if track[f] != track[f - 1]:
            if keys[-1][0] < f - 1:
                keys.append((f - 1, track[f - 1]))
            keys.append((f, track[f]))
    x0, y0 = level.xy(track[0])
    transform = f'transform="translate({x0 * c} {y0 * c})"'
    if len(keys) == 1:
        return f"<g {transform}>"
    times = [f * step / total for f, _ in keys]
    values = [level.xy(cell_) for _, cell_ in keys]
    if times[-1] < 1 - 1e-9:  # hold the last cell to the end (no pause: it ends there)
        times.append(1.0)
        values.append(values[-1])
    text_values = ";".join(f"{x * c} {y * c}" for x, y in values)
    text_times = ";".join(map(_time, _strict(times)))
    return (
        f'<g {transform}><animateTransform attributeName="transform" type="translate" '
        f'values="{text_values}" keyTimes="{text_times}" dur="{_num(total)}s" '
        f'repeatCount="indefinite"/>'
    )


def _time(t: float) -> str:
    """A key time with at most six decimals."""
    return f"{t:.6f}".rstrip("0").rstrip(".") or "0"


def _strict(times: list[float]) -> list[float]:
    """Key times rounded as written, kept strictly increasing, the last exactly 1."""
    out: list[float] = []
    for t in times:
        value = round(t, 6)
        if out and value <= out[-1]:
            value = out[-1] + 0.000001
        out.append(value)
    out[-1] = 1.0
    return out


def _switch(attribute: str, flags: list[bool], step: float, total: float) -> str:
    """A discrete ``animate`` of ``attribute`` between 0 and 1 as ``flags`` change."""
    keys = [(0, flags[0])]
    for f in range(1, len(flags)):
        if flags[f] != flags[f - 1]:
            keys.append((f, flags[f]))
    if len(keys) == 1:
        return ""
    times = [f * step / total for f, _ in keys]
    values = [int(flag) for _, flag in keys]
    if times[-1] < 1 - 1e-9:
        times.append(1.0)
        values.append(values[-1])
    times = _strict(times)
    return (
        f'<animate attributeName="{attribute}" calcMode="discrete" '
        f'values="{";".join(map(str, values))}" '
        f'keyTimes="{";".join(map(_time, times))}" '
        f'dur="{_num(total)}s" repeatCount="indefinite"/>'
    )


# --- contact sheets ------------------------------------------------------------------------------

#: Height of a thumbnail's caption, in pixels.
CAPTION = 18


def _thumbnail_cell(level: Level, size: int) -> int:
    """The cell side that fits ``level`` in a ``size`` pixel square (at least MIN_CELL)."""
    return max(MIN_CELL, min(MAX_CELL, size // max(level.width, level.height)))


def _caption(number: int, level: Level, limit: int) -> str:
    title = level.title.strip()
    text = f"{number}" + (f" {title}" if title and title != str(number) else "")
    return text if len(text) <= limit else text[: limit - 1] + "\u2026"


def sheet_svg(levels: Iterable[Level], columns: int = 6, size: int = 160, start: int = 1) -> str:
    """A contact sheet: every level as a thumbnail fitting a ``size`` pixel square, in rows
    of ``columns``, each captioned with its number (counted from ``start``) and title.

    >>> from sokoban import Level
    >>> level = Level.from_xsb("#####\\n#@$.#\\n#####")
    >>> sheet = sheet_svg([level, level], columns=2, size=50)
    >>> 'width="100" height="68"' in sheet, sheet.count("<svg")
    (True, 3)
    """
    items = list(levels)
    if columns < 1 or size < MIN_CELL:
        raise ValueError(
            f"a sheet needs columns >= 1 and size >= {MIN_CELL}, not {columns}, {size}"
        )
    columns = max(1, min(columns, len(items) or 1))
    rows = (len(items) + columns - 1) // columns
    width, height = columns * size, rows * (size + CAPTION)
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="12">'
    ]
    for i, level in enumerate(items):
        x, y = (i % columns) * size, (i // columns) * (size + CAPTION)
        c = _thumbnail_cell(level, size)
        picture = svg(level, c).splitlines()
        w, h = level.width * c, level.height * c
        ox, oy = x + (size - w) // 2, y + (size - h) // 2
        # The level's own drawing, placed by a nested <svg> of its size.
        out.append(f'<svg x="{ox}" y="{oy}" width="{w}" height="{h}" viewBox="0 0 {w} {h}">')
        out.extend(picture[1:])
        caption = escape(_caption(start + i, level, max(4, size // 7)))
        out.append(
            f'<text x="{x + size // 2}" y="{y + size + CAPTION - 5}" '
            f'text-anchor="middle">{caption}</text>'
        )
    out.append("</svg>")
    return "\n".join(out) + "\n"


def sheet_png(
    levels: Iterable[Level],
    path: str | os.PathLike[str] | None = None,
    columns: int = 6,
    size: int = 160,
    start: int = 1,
) -> bytes:
    """The contact sheet of :func:`sheet_svg` as PNG bytes (on a white background)."""
    require_pillow("drawing a PNG contact sheet")
    from PIL import Image, ImageDraw

    items = list(levels)
    if columns < 1 or size < MIN_CELL:
        raise ValueError(
            f"a sheet needs columns >= 1 and size >= {MIN_CELL}, not {columns}, {size}"
        )
    columns = max(1, min(columns, len(items) or 1))
    rows = (len(items) + columns - 1) // columns
    width, height = columns * size, rows * (size + CAPTION)
    _check_pixels(width, height, size, "sheet")
    sheet = Image.new("RGBA", (width, height), (*_rgb(COLOURS["background"]), 255))
    draw = ImageDraw.Draw(sheet)
    for i, level in enumerate(items):
        x, y = (i % columns) * size, (i // columns) * (size + CAPTION)
        c = _thumbnail_cell(level, size)
        picture = image(level, c)
        ox, oy = x + (size - picture.width) // 2, y + (size - picture.height) // 2
        sheet.alpha_composite(picture, (max(x, ox), max(y, oy)))
        caption = _caption(start + i, level, max(4, size // 7))
        draw.text((x + size / 2, y + size + 2), caption, fill=(40, 40, 40, 255), anchor="ma")
    return _write(_encode(sheet.convert("RGB"), "PNG", optimize=True), path)


# --- notebook display -----------------------------------------------------------------------------

#: The widest picture a notebook shows, in pixels: a cell side is chosen to fit it.
NOTEBOOK_WIDTH = 360


def _notebook_cell(level: Level) -> int:
    return max(MIN_CELL, min(32, NOTEBOOK_WIDTH // level.width))


def _table(rows: Iterable[tuple[str, object]]) -> str:
    cells = "".join(
        f"<tr><th style='text-align:left'>{escape(k)}</th><td>{escape(str(v))}</td></tr>"
        for k, v in rows
    )
    return f"<table>{cells}</table>"


def _short(text: str, limit: int = 120) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "\u2026"


def game_html(game: Any) -> str:
    """A :class:`~sokoban.game.Game` in a notebook: the position and its counts."""
    position = game.position
    state = "solved" if game.is_solved else "not solved"
    return (
        f"<div>{svg(position, _notebook_cell(position))}"
        f"<div>{game.moves} moves, {game.pushes} pushes, {state}</div></div>"
    )


def replay_html(played: Replay) -> str:
    """A :class:`~sokoban.lurd.Replay` in a notebook: the solution playing itself (an
    animated SVG) beside its metrics."""
    level = played.start if played.start is not None else played.final
    c = _notebook_cell(level)
    picture = animated_svg(played, c) if played.start is not None else svg(played.final, c)
    metrics = [(k.replace("_", " "), getattr(played.metrics, k)) for k in played.metrics.__slots__]
    rows = [("solved", played.is_solved), *metrics, ("LURD", _short(played.solution.lurd()))]
    return (
        "<div style='display:flex;gap:1em;align-items:flex-start'>"
        f"<div>{picture}</div>{_table(rows)}</div>"
    )


def result_html(result: Any) -> str:
    """A :class:`~sokoban.solve.SolveResult` in a notebook: status, method, the solution's
    length and the search's effort."""
    stats = result.stats
    rows: list[tuple[str, object]] = [
        ("status", result.status.name.lower()),
        ("method", result.method),
        ("optimal", result.optimal),
    ]
    if result.solution is not None:
        rows += [("moves", result.solution.moves), ("pushes", result.solution.pushes)]
        rows.append(("LURD", _short(result.solution.lurd())))
    rows += [
        ("expanded", f"{stats.expanded:,}"),
        ("seconds", f"{stats.seconds:.3f}"),
    ]
    if result.lower_bound is not None:
        rows.append(("lower bound", result.lower_bound))
    if result.message:
        rows.append(("message", result.message))
    return _table(rows)


def collection_html(levels: Sequence[Level], title: str = "", limit: int = 60) -> str:
    """A collection in a notebook: a grid of thumbnails (the first ``limit`` levels)."""
    shown = list(levels[:limit])
    more = len(levels) - len(shown)
    head = f"<div><b>{escape(title)}</b> ({len(levels)} levels)</div>" if title else ""
    tail = f"<div>and {more} more</div>" if more > 0 else ""
    return f"<div>{head}{sheet_svg(shown, columns=6, size=110)}{tail}</div>"
