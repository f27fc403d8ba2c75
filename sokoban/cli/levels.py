"""Commands on level files: ``info``, ``show``, ``convert`` and ``verify`` (``render`` is in
:mod:`sokoban.cli.pictures`)."""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path
from typing import Any

import click

from sokoban.cli import main
from sokoban.cli.common import (
    NotDone,
    Selection,
    check_output,
    console,
    echo_json,
    file_argument,
    json_option,
    level_option,
    level_record,
    load_collection,
    print_table,
    printable,
    read_text_argument,
    same_file,
    select_levels,
    select_one,
    write_atomically,
)
from sokoban.errors import IllegalMoveError, LurdError, SokobanError
from sokoban.level import Level, Problem
from sokoban.lurd import Solution, replay

# Terminal colours of the board characters (plain text when not on a terminal).
_BOARD_STYLES = {
    "#": "bright_black",
    "$": "yellow",
    "*": "green",
    ".": "red",
    "@": "bold blue",
    "+": "bold blue",
}


def _name(number: int, level: Level) -> str:
    """``level 3 (Title)``; a title that is just the number (as in Microban) is left out."""
    title = printable(level.title.strip())
    return f"level {number}" + (f" ({title})" if title and title != str(number) else "")


@main.command()
@file_argument
@level_option()
@json_option
def info(file: Path, level: Selection | None, as_json: bool) -> None:
    """List the levels of FILE.

    A table of number, title, size, boxes and problems (what makes a level unplayable).
    """
    from rich.table import Table
    from rich.text import Text

    collection = load_collection(file)
    levels = select_levels(collection, level)
    records = [level_record(collection, lv) for lv in levels]
    found = len(collection) + len(collection.errors)
    if as_json:
        echo_json(
            {
                "file": os.fspath(file),
                "title": collection.title,
                "metadata": dict(collection.metadata),
                "found": found,
                "levels": records,
                "skipped": [str(error) for error in collection.errors],
                "broken": [
                    {"level": error.level, "line": error.line, "error": error.reason}
                    for error in collection.errors
                ],
            }
        )
        return
    heading = file.name
    if collection.title and collection.title != file.stem:
        heading += f": {collection.title}"
    table = Table(title=Text(printable(heading)), title_justify="left")
    table.add_column("#", justify="right")
    table.add_column("title")
    table.add_column("size", justify="right")
    table.add_column("boxes", justify="right")
    table.add_column("problems")
    for record in records:
        problems = "; ".join(record["problems"])
        table.add_row(
            str(record["number"]),
            Text(printable(record["title"])),
            f"{record['width']}x{record['height']}",
            str(record["boxes"]),
            Text(problems, style="red") if problems else Text("none", style="green"),
        )
    out = console()
    print_table(out, table)
    summary = f"{len(records)} of {found} level{'s' if found != 1 else ''} shown"
    if skipped := len(collection.errors):
        named = ", ".join(
            f"level {error.level}" + (f" (line {error.line})" if error.line else "")
            for error in collection.errors[:10]
        )
        more = f" and {skipped - 10} more" if skipped > 10 else ""
        summary += f"; {skipped} broken, skipped: {named}{more}"
    out.print(Text(summary))


@main.command()
@file_argument
@level_option(help="Levels to show (number, title, range, list or 'all'); default all.")
@json_option
def show(file: Path, level: Selection | None, as_json: bool) -> None:
    """Draw levels of FILE.

    Each level with its number, title, size, boxes and problems; every level by default.
    """
    from rich.text import Text

    collection = load_collection(file)
    levels = select_levels(collection, level)
    if as_json:
        echo_json([level_record(collection, lv) | {"xsb": lv.xsb()} for lv in levels])
        return
    out = console()
    for i, lv in enumerate(levels):
        if i:
            out.print()
        number = collection.number(lv)
        name = _name(number, lv)
        out.print(Text(name[0].upper() + name[1:], style="bold"))
        drawing = Text()
        for c in lv.xsb():
            drawing.append(c, _BOARD_STYLES.get(c, ""))
        out.print(drawing, soft_wrap=True)
        boxes = len(lv.boxes)
        facts = f"{lv.width}x{lv.height}, {boxes} box{'es' if boxes != 1 else ''}"
        problems = lv.problems()
        out.print(Text(facts))
        if problems:
            out.print(Text("problems: " + "; ".join(problems), style="red"))


@main.command()
@file_argument
@click.option(
    "--output",
    "-o",
    "output",
    required=True,
    type=click.Path(dir_okay=False, allow_dash=True, path_type=Path),
    help="The file to write ('-' for stdout).",
)
@click.option(
    "--format",
    "-f",
    "out_format",
    type=click.Choice(["sok", "slc"]),
    default=None,
    help="The format to write: SOK text (XSB with notes and snapshots) or SLC (XML); "
    "default SLC for an OUTPUT ending in .slc, else SOK.",
)
@click.option("--rle", is_flag=True, help="Run-length encode the board rows (SOK).")
@level_option(help="Levels to write (number, title, range, list or 'all'); default all.")
@click.option(
    "--skip-broken", is_flag=True, help="Write the readable levels of a file with broken ones."
)
@click.option(
    "--lossy",
    is_flag=True,
    help="Write even when the format cannot hold everything (what is left out is listed "
    "on stderr); without it that is an error.",
)
@json_option
def convert(
    file: Path,
    output: Path,
    out_format: str | None,
    rle: bool,
    level: Selection | None,
    skip_broken: bool,
    lossy: bool,
    as_json: bool,
) -> None:
    """Rewrite FILE as SOK or SLC.

    Writes the levels to OUTPUT with the file's notes (``Collection:`` and the other
    metadata, the header) and each level's title, notes and snapshots. What the output
    format cannot hold is an error unless --lossy is given. The output appears whole or
    not at all, and the input file is never overwritten.
    """
    from sokoban import slc, xsb

    to_stdout = os.fspath(output) == "-"
    if not to_stdout and same_file(file, output):
        raise click.BadParameter(
            f"{os.fspath(output)!r} is the input file; write the result elsewhere",
            param_hint="'--output'",
        )
    check_output(output, "'--output'")
    if out_format is None:
        out_format = "slc" if output.name.lower().endswith(".slc") else "sok"
    if rle and out_format == "slc":
        raise click.BadParameter("SLC rows are never run-length encoded", param_hint="'--rle'")
    collection = load_collection(file)
    if collection.errors and not skip_broken:
        n = len(collection.errors)
        raise SokobanError(
            f"{os.fspath(file)}: {n} broken level{'s' if n > 1 else ''} would be lost; "
            "fix them or pass --skip-broken"
        )
    levels = select_levels(collection, level)
    chosen = dataclasses.replace(
        collection, levels=levels, errors=[], positions=[collection.number(lv) for lv in levels]
    )
    losses: list[str] = []
    if out_format == "slc":
        text = slc.dumps(chosen, losses)
    else:
        text = xsb.dumps(chosen, rle=rle, losses=losses)
    if losses:
        shown = losses[:MAX_LOSSES]
        more = len(losses) - len(shown)
        kind = "warning" if lossy else "error"
        for line in shown:
            click.echo(f"{kind}: {out_format.upper()} cannot hold {line}", err=True)
        if more:
            click.echo(f"{kind}: and {more} more things it cannot hold", err=True)
        if not lossy:
            raise SokobanError(
                f"{len(losses)} thing{'s' if len(losses) != 1 else ''} of {os.fspath(file)} "
                f"would be lost in {out_format.upper()}; pass --lossy to write it anyway"
            )
    write_atomically(output, text)
    record = {
        "output": os.fspath(output),
        "format": out_format,
        "levels": len(levels),
        "skipped": len(collection.errors),
        "rle": rle,
        "lost": losses,
    }
    if as_json and not to_stdout:
        echo_json(record)
    elif not to_stdout:
        click.echo(f"wrote {len(levels)} level{'s' if len(levels) != 1 else ''} to {output}")


#: Losses listed one by one on stderr; the rest are counted.
MAX_LOSSES = 20


def _check(lv: Level, steps: Solution) -> dict[str, Any]:
    """Replay ``steps`` on ``lv``: whether they solve it, the metrics, or why not."""
    unplayable = Problem.NO_PLAYER | Problem.SEVERAL_PLAYERS
    if lv.status() & (unplayable | Problem.NO_BOXES | Problem.BOX_GOAL_MISMATCH):
        # No solution can solve it: say why, rather than "0 boxes off goal".
        verb = "played" if lv.status() & unplayable else "solved"
        return {"solved": False, "reason": f"cannot be {verb}: {'; '.join(lv.problems())}"}
    try:
        played = replay(lv, steps)
    except IllegalMoveError as error:
        return {"solved": False, "reason": str(error), "index": error.index}
    record: dict[str, Any] = {
        "solved": played.is_solved,
        "metrics": dataclasses.asdict(played.metrics),
        "lurd": played.solution.lurd(),
    }
    if not played.is_solved:
        off = len(played.final.boxes - played.final.goals)
        record["reason"] = f"{off} box{'es' if off != 1 else ''} off goal after {len(steps)} moves"
    return record


@main.command()
@file_argument
@level_option(
    help="The level the solution is for (number or title); needed when FILE has several. "
    "Without SOLUTION: the levels whose stored solutions to check (default all)."
)
@click.argument("solution", required=False)
@json_option
def verify(file: Path, level: Selection | None, solution: str | None, as_json: bool) -> None:
    """Check a solution of a level.

    Replays SOLUTION (LURD text, or @PATH to read it from a file, @- from stdin) on the
    level and prints its metrics. Without SOLUTION, checks the solutions stored in FILE
    (SOK ``Solution:`` lines). Exit status 1 when a solution does not solve its level.
    """
    if solution is None:
        _verify_stored(file, level, as_json)
        return
    try:
        steps = Solution.from_lurd(read_text_argument(solution, "'SOLUTION'"))
    except LurdError as error:
        raise click.BadParameter(str(error), param_hint="'SOLUTION'") from None
    collection = load_collection(file)
    lv = select_one(collection, level, file)
    number = collection.number(lv)
    record: dict[str, Any] = {"level": number, "title": lv.title} | _check(lv, steps)
    if as_json:
        echo_json(record)
    elif "metrics" in record:
        from rich.table import Table
        from rich.text import Text

        table = Table(show_header=False, box=None)
        table.add_column(justify="left")
        table.add_column(justify="right")
        for key, value in record["metrics"].items():
            table.add_row(key.replace("_", " "), str(value))
        out = console()
        verb = "solves" if record["solved"] else "does not solve"
        out.print(Text(f"{verb} {_name(number, lv)}"))
        print_table(out, table)
    if not record["solved"]:
        if "metrics" not in record and "index" not in record:
            # The level itself is at fault, not the solution.
            raise SokobanError(f"{_name(number, lv)} {record['reason']}")
        raise NotDone(f"not a solution: {record['reason']}")


def _verify_stored(file: Path, selection: Selection | None, as_json: bool) -> None:
    """``verify FILE`` without SOLUTION: every stored solution of the selected levels."""
    collection = load_collection(file)
    levels = select_levels(collection, selection)
    records: list[dict[str, Any]] = []
    for lv in levels:
        number = collection.number(lv)
        for k, text in enumerate(lv.solutions, 1):
            head: dict[str, Any] = {"level": number, "title": lv.title, "solution": k}
            try:
                records.append(head | _check(lv, Solution.from_lurd(text)))
            except LurdError as error:
                records.append(head | {"solved": False, "reason": str(error)})
    if not records:
        raise click.UsageError(
            f"missing SOLUTION: {os.fspath(file)} stores no solution for "
            + ("these levels" if selection is not None else "its levels"),
            ctx=click.get_current_context(silent=True),
        )
    failed = sum(1 for record in records if not record["solved"])
    if as_json:
        echo_json(records)
    else:
        from rich.table import Table
        from rich.text import Text

        table = Table()
        table.add_column("#", justify="right")
        table.add_column("title")
        table.add_column("solution", justify="right")
        table.add_column("moves", justify="right")
        table.add_column("pushes", justify="right")
        table.add_column("result")
        for record in records:
            metrics = record.get("metrics", {})
            table.add_row(
                str(record["level"]),
                Text(printable(record["title"])),
                str(record["solution"]),
                str(metrics.get("moves", "")),
                str(metrics.get("pushes", "")),
                Text("solves", style="green")
                if record["solved"]
                else Text(record["reason"], style="red"),
            )
        out = console()
        print_table(out, table)
        unsolved = sum(1 for lv in levels if not lv.solutions)
        summary = f"{len(records) - failed} of {len(records)} stored solutions solve their levels"
        if unsolved:
            summary += f"; {unsolved} level{'s' if unsolved != 1 else ''} without one"
        out.print(Text(summary))
    if failed:
        raise NotDone(f"{failed} of {len(records)} stored solutions do not solve their levels")
