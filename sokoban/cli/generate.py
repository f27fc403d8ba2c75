"""The ``generate`` command: verified levels with difficulty scores, written as a collection.

    sokoban generate --size 10x10 --boxes 4 --count 100 --difficulty hard --seed 7 -o levels.xsb

writes ``levels.xsb`` (titles, metadata and the optimal solution of each level, SOK style)
and ``levels.json`` (the measures of each level; ``--metrics levels.csv`` for CSV).
"""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path
from typing import Any

import click

from sokoban.cli import main
from sokoban.cli.common import (
    POSITIVE,
    NotDone,
    check_output,
    console,
    echo_json,
    json_option,
    load_collection,
    same_file,
    scheduler_option,
    time_limit_option,
    workers_option,
    write_atomically,
)

_SIZE = re.compile(r"\s*(\d+)\s*[xX*,]\s*(\d+)\s*")
_LAYOUT_NAMES = ("walk", "templates", "rooms", "obstacles")
_BANDS = ("easy", "medium", "hard", "expert")
#: Below this many levels the default is to work in this process rather than start workers.
SMALL_RUN = 20


def _parse_size(value: str) -> tuple[int, int]:
    match = _SIZE.fullmatch(value)
    if not match:
        raise click.BadParameter(f"{value!r} is not a size like 10x10", param_hint="'--size'")
    return int(match.group(1)), int(match.group(2))


def _layout_file(value: str) -> Path | None:
    """The file ``--layout`` names, or ``None`` for a layout name."""
    if value in _LAYOUT_NAMES:
        return None
    path = Path(value)
    if not path.exists():
        raise click.BadParameter(
            f"{value!r} is neither a layout ({', '.join(_LAYOUT_NAMES)}) nor a file",
            param_hint="'--layout'",
        )
    return path


def _layout(value: str) -> Any:
    """A layout name, or the floor of the first level in a file."""
    path = _layout_file(value)
    if path is None:
        return value
    from sokoban.generate.layouts import from_level

    return from_level(load_collection(path)[0])


def _metrics_text(path: Path, records: list[dict[str, Any]]) -> str:
    if path.suffix.lower() == ".csv":
        out = io.StringIO()
        if records:
            writer = csv.DictWriter(out, fieldnames=list(records[0]), lineterminator="\n")
            writer.writeheader()
            writer.writerows(records)
        return out.getvalue()
    return json.dumps(records, indent=2) + "\n"


@main.command()
@click.option("--size", "-s", default="10x10", show_default=True, help="Board WIDTHxHEIGHT.")
@click.option(
    "--boxes", "-b", type=click.IntRange(min=1), default=4, show_default=True, help="Boxes a level."
)
@click.option(
    "--count",
    "-n",
    type=click.IntRange(min=1),
    default=10,
    show_default=True,
    help="Levels to make.",
)
@click.option(
    "--difficulty",
    "-d",
    type=click.Choice(_BANDS),
    default=None,
    help="Keep only levels of this band (see docs/generator.md).",
)
@click.option("--seed", type=click.IntRange(min=0), default=None, help="Reproduce a run.")
@click.option(
    "--layout",
    default="walk",
    show_default=True,
    help=f"{', '.join(_LAYOUT_NAMES)}, or an XSB file whose walls are the room.",
)
@click.option(
    "--placement",
    type=click.Choice(["auto", "bfs", "walk"]),
    default="auto",
    show_default=True,
    help="Exhaustive pull search, random reverse walk, or bfs when the room is small.",
)
@click.option(
    "--metric",
    type=click.Choice(["pushes", "changes"]),
    default="pushes",
    show_default=True,
    help="What the pull search maximises.",
)
@workers_option(
    f"Local worker processes [all cores; this process below {SMALL_RUN} levels]; "
    "0 works in this process."
)
@scheduler_option
@click.option(
    "--max-attempts", type=click.IntRange(min=1), help="Give up after this many attempts."
)
@click.option(
    "--total-time-limit",
    type=POSITIVE,
    default=None,
    metavar="SECONDS",
    help="Give up after this many seconds in all [no limit].",
)
@click.option("--budget", type=POSITIVE, default=None, hidden=True)  # old --total-time-limit
@click.option(
    "--node-limit",
    type=click.IntRange(min=1),
    default=2_000_000,
    show_default=True,
    help="Verifying solver: nodes per level.",
)
@time_limit_option("Verifying solver: seconds per level.", default=60.0, minimum=POSITIVE)
@click.option(
    "--output",
    "-o",
    type=click.Path(dir_okay=False, path_type=Path),
    help="XSB file to write [stdout].",
)
@click.option(
    "--metrics",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Measures per level, .json or .csv [OUTPUT with .json].",
)
@click.option("--quiet", "-q", is_flag=True, help="No progress bar or summary.")
@json_option
def generate(
    size: str,
    boxes: int,
    count: int,
    difficulty: str | None,
    seed: int | None,
    layout: str,
    placement: str,
    metric: str,
    workers: int | None,
    scheduler: str | None,
    max_attempts: int | None,
    total_time_limit: float | None,
    budget: float | None,
    node_limit: int,
    time_limit: float,
    output: Path | None,
    metrics: Path | None,
    quiet: bool,
    as_json: bool,
) -> None:
    """Generate levels, each solved optimally and rated, as an XSB collection.

    Writes the levels to OUTPUT (stdout without it) and their measures to --metrics (by
    default OUTPUT with .json, beside it). With --json, stdout has one JSON object: the
    run's figures and each level's measures, with its XSB when there is no OUTPUT.
    """
    from sokoban import xsb
    from sokoban.generate import check_request
    from sokoban.generate import generate as run_generator

    if budget is not None and total_time_limit is None:
        total_time_limit = budget
    width, height = _parse_size(size)
    # Everything refused before the work starts: the outputs (never an input, nor each
    # other), then the request, then the layout file.
    layout_file = _layout_file(layout)
    inputs = () if layout_file is None else (layout_file,)
    if output is not None and str(output) == "-":
        output = None  # stdout, as without --output (and no "-.json" beside it)
    if output is not None:
        check_output(output, "'--output'", inputs=inputs)
    if metrics is None and output is not None:
        metrics = output.with_suffix(".json")
    if metrics is not None and str(metrics) == "-" and (output is None or as_json):
        what = "the JSON" if as_json else "the levels"
        raise click.UsageError(f"--metrics - and {what} would both go to stdout: name a file")
    if metrics is not None:
        check_output(metrics, "'--metrics'", inputs=inputs)
        if output is not None and same_file(output, metrics):
            raise click.BadParameter(
                f"{str(metrics)!r} is the --output file too; name another", param_hint="'--metrics'"
            )
    chosen = _layout(layout)
    check_request(
        (width, height),
        boxes,
        layout=chosen,
        placement=placement,
        metric=metric,
        difficulty=difficulty,
    )
    if workers is None and scheduler is None and count < SMALL_RUN:
        workers = 0  # starting processes costs more than a few levels take
    attempts = 0

    progress = None
    if not quiet:
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeElapsedColumn,
        )

        progress = Progress(
            TextColumn("generating"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("{task.fields[attempts]} attempts"),
            TimeElapsedColumn(),
            console=console(stderr=True),
        )
    with progress or _Nothing():
        task = progress.add_task("generate", total=count, attempts=0) if progress else None

        def on_attempt(_: Any) -> None:
            nonlocal attempts
            attempts += 1
            if progress is not None and task is not None:
                progress.update(task, attempts=attempts)

        def on_level(_: Any) -> None:
            if progress is not None and task is not None:
                progress.advance(task)

        report = run_generator(
            (width, height),
            boxes,
            count,
            difficulty=difficulty,
            seed=seed,
            layout=chosen,
            placement=placement,
            metric=metric,
            workers=workers,
            scheduler=scheduler,
            max_attempts=max_attempts,
            budget=total_time_limit,
            nodes=node_limit,
            seconds=time_limit,
            on_level=on_level,
            on_attempt=on_attempt,
        )
    header = (
        f"Generated by sokoban generate: {width}x{height}, {boxes} boxes, "
        f"layout {layout if isinstance(chosen, str) else Path(layout).name}, "
        f"difficulty {difficulty or 'any'}, seed {report.seed}"
    )
    levels = [g.level for g in report.levels]
    # A run that kept nothing writes nothing: files from an earlier run stay as they were.
    records = [g.as_dict() for g in report.levels]
    if levels:
        text = xsb.format_collection(levels, header=header)
        if output is not None:
            write_atomically(output, text)
        elif not as_json:
            click.echo(text, nl=False)
        if metrics is not None:
            write_atomically(metrics, _metrics_text(metrics, records))
    if as_json:
        if output is None:
            texts = [xsb.format_level(g.level) for g in report.levels]
            records = [r | {"xsb": t} for r, t in zip(records, texts, strict=True)]
        echo_json(
            {
                "requested": count,
                "generated": len(report.levels),
                "attempts": report.attempts,
                "rejected": report.rejected,
                "seed": report.seed,
                "seconds": round(report.seconds, 3),
                "out_of_time": report.out_of_time,
                "output": None if output is None or not levels else str(output),
                "metrics": None if metrics is None or not levels else str(metrics),
                "levels": records,
            }
        )
    if not quiet:
        click.echo(report.summary(), err=True)
    if not report.complete:
        raise NotDone(
            f"only {len(report.levels)} of {count} levels after {report.attempts} attempts "
            + (
                "(the time budget ran out)"
                if report.out_of_time
                else "(try --max-attempts, a bigger board or another difficulty)"
            )
            + ("" if levels else "; nothing written")
        )


class _Nothing:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *args: object) -> None:
        return None
