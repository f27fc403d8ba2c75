"""The ``render`` command: a level, a solution played out, or a whole collection, as
pictures (SVG, PNG, GIF, APNG, WebP), with dead squares, reach and box paths marked."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import click

from sokoban.cli import main
from sokoban.cli.common import (
    Selection,
    check_output,
    echo_json,
    file_argument,
    json_option,
    level_option,
    load_collection,
    read_text_argument,
    select_levels,
    select_one,
    write_atomically,
)
from sokoban.errors import LurdError, SokobanError
from sokoban.level import Level

#: What each file suffix holds: a still picture, and what a solution becomes.
_STILL = {".svg": "svg", ".png": "png", ".gif": "gif", ".apng": "apng", ".webp": "webp"}
_ANIMATED = {".svg": "svg", ".png": "apng", ".apng": "apng", ".gif": "gif", ".webp": "webp"}


def _suffix(output: Path, allowed: tuple[str, ...]) -> str:
    """OUTPUT's suffix, by the name's end (so a file named just ".svg" is an SVG too)."""
    name = output.name.lower()
    suffix = next((s for s in allowed if name.endswith(s)), "")
    if not suffix:
        raise click.BadParameter(
            f"{os.fspath(output)!r} must end in {', '.join(allowed[:-1])} or {allowed[-1]}",
            param_hint="'--output'",
        )
    return suffix


def _solution(lv: Level, text: str) -> Any:
    """The replay of ``--solution``: LURD, @PATH, or ``stored`` (the level's first)."""
    from sokoban.lurd import Solution, replay

    if text == "stored":
        if not lv.solutions:
            raise click.BadParameter("the level stores no solution", param_hint="'--solution'")
        text = lv.solutions[0]
    else:
        text = read_text_argument(text, "'--solution'")
    try:
        steps = Solution.from_lurd(text)
    except LurdError as error:
        raise click.BadParameter(str(error), param_hint="'--solution'") from None
    return replay(lv, steps)


@main.command()
@file_argument
@level_option(
    help="The level to draw (number or title); needed when FILE has several. With --sheet: "
    "the levels of the sheet (default all)."
)
@click.option(
    "--output",
    "-o",
    "output",
    type=click.Path(dir_okay=False, path_type=Path),
    help="The picture to write: .svg, .png, .gif, .apng or .webp (raster formats need Pillow).",
)
@click.option(
    "--cell",
    type=click.IntRange(4, 256),
    default=32,
    show_default=True,
    help="Pixels a square.",
)
@click.option(
    "--solution",
    metavar="LURD|stored|@PATH",
    help="Play a solution: LURD text, @PATH to read it, or 'stored' for the level's first "
    "stored solution. OUTPUT is then an animation (an animated SVG, GIF, APNG or WebP).",
)
@click.option(
    "--speed",
    type=click.FloatRange(0.1, 50.0),
    default=8.0,
    show_default=True,
    help="Steps a second of an animation.",
)
@click.option(
    "--every",
    type=click.Choice(["move", "push"]),
    default=None,
    help="A frame per move or per push [default: move for animations, push for --frames].",
)
@click.option(
    "--frames",
    "frames_dir",
    type=click.Path(file_okay=False, path_type=Path),
    help="Also write the solution's frames as PNG files 0000.png, 0001.png... in this folder "
    "(made if missing).",
)
@click.option(
    "--mark",
    metavar="KINDS",
    help="Highlight, comma-separated: dead (dead squares), reach (the player's reach), "
    "path (the boxes' paths; needs --solution).",
)
@click.option("--sheet", is_flag=True, help="A contact sheet: the levels as thumbnails.")
@click.option(
    "--columns",
    type=click.IntRange(1, 100),
    default=6,
    show_default=True,
    help="Thumbnails a row of a sheet.",
)
@click.option(
    "--size",
    type=click.IntRange(16, 1024),
    default=160,
    show_default=True,
    help="Pixels a side of a sheet's thumbnail.",
)
@json_option
def render(
    file: Path,
    level: Selection | None,
    output: Path | None,
    cell: int,
    solution: str | None,
    speed: float,
    every: str | None,
    frames_dir: Path | None,
    mark: str | None,
    sheet: bool,
    columns: int,
    size: int,
    as_json: bool,
) -> None:
    """Draw a level, a solution or a collection.

    The format follows OUTPUT's suffix: .svg, .png, .gif, .apng or .webp. With --solution
    the picture plays the solution (.png then writes an animated PNG); --frames writes one
    PNG per push (or per move) as well. --sheet draws the levels as thumbnails on one page
    (.svg or .png).
    """
    from sokoban import render as pictures
    from sokoban.marks import marks, parse_kinds

    if output is None and frames_dir is None:
        raise click.UsageError("give --output (or --frames with --solution)")
    if sheet:
        for given, name in ((solution, "--solution"), (frames_dir, "--frames"), (mark, "--mark")):
            if given is not None:
                raise click.UsageError(f"{name} draws one level; it does not go with --sheet")
        if output is None:
            raise click.UsageError("--sheet needs --output")
        _sheet(file, level, output, columns, size, as_json)
        return
    if frames_dir is not None and solution is None:
        raise click.UsageError("--frames needs --solution: the frames are the solution's")
    try:
        kinds = parse_kinds(mark) if mark else ()
    except ValueError as error:
        raise click.BadParameter(str(error), param_hint="'--mark'") from None
    if "path" in kinds and solution is None:
        raise click.UsageError("--mark path needs --solution: the paths are the solution's")
    suffix = ""
    if output is not None:
        suffix = _suffix(output, tuple(_STILL))
        check_output(output, "'--output'", inputs=(file,))
    if frames_dir is not None:
        if frames_dir.exists() and not frames_dir.is_dir():
            raise click.BadParameter(
                f"{os.fspath(frames_dir)!r} is not a folder", param_hint="'--frames'"
            )
        # The folder is made if missing: then its parent must be there and writable.
        inside = frames_dir / "0000.png" if frames_dir.is_dir() else frames_dir
        check_output(inside, "'--frames'", inputs=(file,))
    collection = load_collection(file)
    lv = select_one(collection, level, file)
    played = _solution(lv, solution) if solution is not None else None
    highlights = marks(lv, kinds, played) if kinds else None
    width, height = lv.width * cell, lv.height * cell
    record: dict[str, Any] = {"level": collection.number(lv), "width": width, "height": height}
    if output is not None:
        record["output"] = os.fspath(output)
        if played is None:
            kind = _STILL[suffix]
            if kind == "svg":
                data: str | bytes = pictures.svg(lv, cell, highlights)
            elif kind == "png":
                data = pictures.png(lv, None, cell, highlights)
            else:
                data = pictures.animation([lv], kind, None, cell, marks=highlights, hold=0)
        else:
            kind = _ANIMATED[suffix]
            data = pictures.animation(played, kind, None, cell, speed, every or "move", highlights)
            positions = sum(1 for _ in played.frames(every or "move"))
            record |= {"frames": positions, "speed": speed}
        record["format"] = kind
        write_atomically(output, data)
    if played is not None:
        record |= {
            "moves": played.metrics.moves,
            "pushes": played.metrics.pushes,
            "solved": played.is_solved,
        }
    if frames_dir is not None:
        assert played is not None
        record["frames_dir"] = os.fspath(frames_dir)
        record["frame_files"] = _write_frames(played, frames_dir, cell, every or "push", highlights)
    if as_json:
        echo_json(record)
        return
    if output is not None:
        what = f", {record['frames']} frames" if "frames" in record else ""
        click.echo(f"wrote {output} ({width}x{height} pixels{what})")
    if frames_dir is not None:
        click.echo(f"wrote {record['frame_files']} frames to {frames_dir}")
    if played is not None and not played.is_solved:
        click.echo("note: the solution does not solve the level", err=True)


def _write_frames(played: Any, folder: Path, cell: int, every: str, highlights: Any) -> int:
    from sokoban import render as pictures

    images = pictures.frames(played, cell, every, highlights)
    folder.mkdir(exist_ok=True)
    digits = max(4, len(str(len(images) - 1)))
    for i, picture in enumerate(images):
        write_atomically(folder / f"{i:0{digits}d}.png", pictures.encode_png(picture))
    return len(images)


def _sheet(
    file: Path, level: Selection | None, output: Path, columns: int, size: int, as_json: bool
) -> None:
    from sokoban import render as pictures

    suffix = _suffix(output, (".svg", ".png"))
    check_output(output, "'--output'", inputs=(file,))
    collection = load_collection(file)
    levels = select_levels(collection, level)
    if not levels:
        raise SokobanError(f"{os.fspath(file)}: no levels to draw")
    numbers = [collection.number(lv) for lv in levels]
    contiguous = numbers == list(range(numbers[0], numbers[0] + len(numbers)))
    start = numbers[0] if contiguous else 1
    if suffix == ".svg":
        data: str | bytes = pictures.sheet_svg(levels, columns, size, start)
    else:
        data = pictures.sheet_png(levels, None, columns, size, start)
    write_atomically(output, data)
    cols = min(columns, len(levels))
    rows = (len(levels) + cols - 1) // cols
    width, height = cols * size, rows * (size + pictures.CAPTION)
    if as_json:
        echo_json(
            {
                "output": os.fspath(output),
                "format": suffix[1:],
                "levels": len(levels),
                "width": width,
                "height": height,
            }
        )
    else:
        click.echo(f"wrote {output} ({len(levels)} levels, {width}x{height} pixels)")
