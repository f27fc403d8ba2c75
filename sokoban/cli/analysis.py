"""Commands of the single-box analysis: ``single-box`` (one room) and ``longest`` (layouts)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import click

from sokoban.cli import main
from sokoban.cli.common import (
    POSITIVE,
    Interrupted,
    Selection,
    check_output,
    echo_json,
    file_argument,
    json_option,
    level_option,
    load_collection,
    scheduler_option,
    select_one,
    time_limit_option,
    workers_option,
    write_atomically,
)
from sokoban.extras import require_matplotlib

#: Rooms with more floor cells than this show a progress bar.
PROGRESS_FLOOR = 120
#: The checkpoint's file name when ``--checkpoint`` is given without one.
CHECKPOINT_NAME = "sokoban-longest-{room}-k{k}.json"

_ROOM = re.compile(r"\s*(\d+)\s*[xX]\s*(\d+)\s*")


def _distribution(histogram: Any, width: int = 40) -> list[str]:
    """Text bars, one line per value."""
    peak = max(int(c) for c in histogram) if len(histogram) else 0
    lines = []
    for value, count in enumerate(histogram):
        if count:
            bar = "#" * max(1, round(width * int(count) / peak))
            lines.append(f"{value:>5} {int(count):>9,} {bar}")
    return lines


def _histogram_png(path: Path, histograms: dict[str, Any], title: str) -> None:
    import io

    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import pyplot as plt

    figure, axes = plt.subplots(1, 2, figsize=(10, 3.6))
    for ax, (metric, histogram) in zip(axes, histograms.items(), strict=True):
        ax.bar(range(len(histogram)), histogram, width=0.9, color="#4a7ab5")
        ax.set_xlabel(f"optimal {metric}")
        ax.set_ylabel("placements")
    figure.suptitle(title)
    figure.tight_layout()
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=100)
    plt.close(figure)
    write_atomically(path, buffer.getvalue())


def _witness_lines(label: str, witness: Any) -> list[str]:
    if witness is None:
        return [f"{label}: none (no placement is solvable)"]
    other = "pushes" if witness.metric == "moves" else "moves"
    return [
        f"{label}: {getattr(witness, witness.metric)} {witness.metric} "
        f"(this solution: {witness.solution.moves} moves, {witness.solution.pushes} pushes;"
        f" fewest {other}: {getattr(witness, other)})",
        witness.level.xsb(),
        witness.solution.lurd(),
    ]


@main.command("single-box")
@file_argument
@level_option()
@click.option(
    "--histogram",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Also draw the distributions as a PNG file.",
)
@json_option
def single_box(file: Path, level: Selection | None, histogram: Path | None, as_json: bool) -> None:
    """Exact single-box tables of the room in FILE.

    For every placement of the player, one box and one goal on the room's floor (any boxes,
    goals or player in the file are ignored), the fewest moves and the fewest pushes. Prints
    the longest placements with optimal solutions (checked by a separate forward search and
    by replay), the counts of solvable and unsolvable placements and the distributions.
    """
    from sokoban.analysis import analyse, room_floor
    from sokoban.analysis.single_box import bare_room

    if histogram is not None:
        check_output(histogram, "'--histogram'", inputs=(file,))
        require_matplotlib("--histogram")
    collection = load_collection(file)
    room = bare_room(select_one(collection, level, file))
    floor = len(room_floor(room))
    if floor > PROGRESS_FLOOR:
        from rich.console import Console
        from rich.progress import Progress

        # On stderr, so that the table or the JSON on stdout stays whole.
        with Progress(console=Console(stderr=True), transient=True) as bar:
            task = bar.add_task("single-box tables", total=floor)
            table = analyse(room, progress=lambda done, total: bar.update(task, completed=done))
    else:
        table = analyse(room)
    witnesses = {"moves": table.max_moves, "pushes": table.max_pushes}
    histograms = {m: table.histogram(m) for m in witnesses}
    if histogram is not None:
        _histogram_png(
            histogram, histograms, f"{file.name}: {table.solvable:,} solvable placements"
        )
    if as_json:
        echo_json(
            {
                "room": room.xsb(),
                "floor": floor,
                "placements": table.placements,
                "solvable": table.solvable,
                "unsolvable": table.unsolvable,
                "max_moves": witnesses["moves"] and witnesses["moves"].as_dict(),
                "max_pushes": witnesses["pushes"] and witnesses["pushes"].as_dict(),
                "histogram": {m: h.tolist() for m, h in histograms.items()},
            }
        )
        return
    lines = [
        room.xsb(),
        f"{floor} floor cells, {table.placements:,} placements: "
        f"{table.solvable:,} solvable, {table.unsolvable:,} unsolvable",
        "",
    ]
    lines += _witness_lines("Most moves", witnesses["moves"]) + [""]
    lines += _witness_lines("Most pushes", witnesses["pushes"])
    for metric, h in histograms.items():
        lines += ["", f"Optimal {metric}: value, placements"] + _distribution(h)
    click.echo("\n".join(lines))


def _parse_room(text: str) -> tuple[int, int]:
    match = _ROOM.fullmatch(text)
    if not match:
        raise click.BadParameter(f"{text!r} is not WIDTHxHEIGHT, such as 8x8")
    return int(match[1]), int(match[2])


def _winner_record(result: Any, metric: str, winner: Any) -> dict[str, Any]:
    witness = winner.witness(result.width, result.height, metric)
    record: dict[str, Any] = witness.as_dict()
    record["obstacles"] = [[c % result.width, c // result.width] for c in winner.obstacles]
    return record


@main.command("longest")
@click.option("--room", "room", required=True, help="Interior size WIDTHxHEIGHT, e.g. 8x8.")
@click.option(
    "--obstacles",
    "-k",
    type=click.IntRange(min=0),
    default=0,
    show_default=True,
    help="Obstacle cells (K) placed in the room, every way up to symmetry.",
)
@click.option(
    "--search",
    type=click.Choice(["exhaustive", "anneal"]),
    default="exhaustive",
    show_default=True,
    help="Every layout up to symmetry (a proof), or simulated annealing (a lower bound).",
)
@workers_option()
@scheduler_option
@click.option(
    "--checkpoint",
    type=click.Path(dir_okay=False, path_type=Path),
    is_flag=False,
    flag_value=Path(CHECKPOINT_NAME),
    default=None,
    metavar="[FILE]",
    help="Save the work done to FILE as it goes, and resume from it when run again; "
    f"'--checkpoint' alone uses {CHECKPOINT_NAME.format(room='WxH', k='K')} in the current "
    "folder.",
)
@click.option("--no-checkpoint", is_flag=True, hidden=True)  # the default now; for old scripts
@time_limit_option("Seconds each chain of --search anneal runs.", default=30.0, minimum=POSITIVE)
@click.option(
    "--time",
    "old_time",
    type=POSITIVE,
    default=None,
    hidden=True,  # the old spelling of --time-limit
)
@click.option(
    "--metric",
    type=click.Choice(["moves", "pushes"]),
    default="moves",
    show_default=True,
    help="What --search anneal maximises.",
)
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of --search anneal.")
@click.option(
    "--show",
    type=click.IntRange(min=0, max=8),
    default=1,
    show_default=True,
    help="Winning layouts to print per metric.",
)
@json_option
def longest_command(
    room: str,
    obstacles: int,
    search: str,
    workers: int | None,
    scheduler: str | None,
    checkpoint: Path | None,
    no_checkpoint: bool,
    time_limit: float,
    old_time: float | None,
    metric: str,
    seed: int,
    show: int,
    as_json: bool,
) -> None:
    """The longest single-box puzzle over every layout of K obstacles in a room.

    Each layout is counted once up to the room's symmetries; layouts split into parts are
    allowed. Prints the layouts with the most moves and the most pushes with optimal
    solutions. With --checkpoint, an exhaustive run saves its work as it goes and resumes.
    """

    from sokoban.analysis import longest_puzzle as search_module

    seconds = old_time if old_time is not None else time_limit
    width, height = _parse_room(room)
    if not (1 <= width <= search_module.MAX_SIDE and 1 <= height <= search_module.MAX_SIDE):
        raise click.BadParameter(
            f"a {width} x {height} room is outside 1..{search_module.MAX_SIDE} a side",
            param_hint="--room",
        )
    if obstacles > width * height:
        raise click.BadParameter(
            f"{obstacles} obstacles do not fit in {width} x {height}", param_hint="--obstacles"
        )
    label = f"{width}x{height}, {obstacles} obstacles"  # a progress bar on stderr
    if search == "anneal":
        result = search_module.anneal(
            width,
            height,
            obstacles,
            metric,
            seconds,
            seed,
            workers=workers,
            scheduler=scheduler,
            description=label,
        )
        metrics = [metric]
    else:
        path = checkpoint
        if path is not None and str(path) == CHECKPOINT_NAME:
            path = Path(CHECKPOINT_NAME.format(room=f"{width}x{height}", k=obstacles))
        if no_checkpoint:
            path = None
        if path is not None:
            check_output(path, "'--checkpoint'")
        try:
            result = search_module.longest(
                width, height, obstacles, workers, scheduler, checkpoint=path, description=label
            )
        except KeyboardInterrupt:
            if path is None:
                raise
            # The search saved what it finished; say where, and how to go on.
            raise Interrupted(
                f"interrupted; the work done is saved in {str(path)!r}: "
                "run the same command to resume"
            ) from None
        metrics = ["moves", "pushes"]
    records = {m: [_winner_record(result, m, w) for w in result.winners(m)[:show]] for m in metrics}
    if as_json:
        echo_json(
            {
                "room": [width, height],
                "obstacles": obstacles,
                "method": result.method,
                "proven": result.proven,
                "layouts": result.layouts,
                "seconds": round(result.seconds, 3),
                **{
                    m: {
                        "best": result.best(m),
                        "layouts_with_best": result.ties(m),
                        "winners": records[m],
                        "histogram": _hist(result, m),
                    }
                    for m in metrics
                },
            }
        )
        return
    if result.method == "anneal":
        head = (
            f"{width} x {height} room, {obstacles} obstacles: simulated annealing, "
            f"{result.chunks} chains of {seconds:g} s, {result.layouts:,} layouts tried. "
            "A LOWER BOUND, not a proof."
        )
    else:
        head = (
            f"{width} x {height} room, {obstacles} obstacles: {result.layouts:,} layouts up to "
            f"symmetry, every one analysed ({result.seconds:.1f} s)"
        )
        if result.resumed:
            head += f"; {result.resumed} of {result.chunks} chunks from the checkpoint"
    lines = [head]
    for m in metrics:
        if result.best(m) < 0:
            lines += ["", f"Most {m}: none (no layout has a solvable placement)"]
        elif result.method == "anneal":
            lines += ["", f"Most {m} found: {result.best(m)} (at least this many are possible)"]
        else:
            lines += ["", f"Most {m}: {result.best(m)}, by {result.ties(m):,} layout(s)"]
        for record in records[m]:
            lines += [record["level"], record["path"]]
    click.echo("\n".join(lines))


def _hist(result: Any, metric: str) -> list[int]:
    h = result.hist_moves if metric == "moves" else result.hist_pushes
    return [int(c) for c in h]
