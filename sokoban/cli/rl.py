"""The ``dataset`` command: the expert's trajectories for imitation learning, as ``.npz``.

    sokoban dataset --source boxoban:levels/hard --count 1000 -o data.npz

Levels are drawn from the source by ``--seed``, solved push-optimally, replayed in the
environment and written as the arrays of :mod:`sokoban.env.dataset`. It needs the ``rl``
extra (``pip install "sokoban[rl]"``).
"""

from __future__ import annotations

from pathlib import Path

import click

from sokoban.cli import main
from sokoban.cli.common import (
    NON_NEGATIVE,
    check_output,
    console,
    echo_json,
    json_option,
    scheduler_option,
    time_limit_option,
    workers_option,
    write_atomically,
)
from sokoban.errors import SokobanError

#: Below this many levels the default is to work in this process rather than start workers.
SMALL_RUN = 20


@main.command()
@click.option(
    "--source",
    required=True,
    metavar="SOURCE",
    help="boxoban:PATH (a file or directory), collection:PATH, or generated:WxH[:BOXES[:BAND]].",
)
@click.option(
    "--count", "-n", type=click.IntRange(min=1), default=100, show_default=True, help="Levels."
)
@click.option("--seed", type=click.IntRange(min=0), default=0, show_default=True, help="Draws.")
@click.option(
    "--observation",
    type=click.Choice(["grid", "index", "rgb"]),
    default="grid",
    show_default=True,
    help="Observation recorded before each action.",
)
@click.option(
    "--action-mode",
    type=click.Choice(["moves", "boxoban"]),
    default="moves",
    show_default=True,
    help="Four moves, or Boxoban's nine actions.",
)
@click.option(
    "--gamma",
    type=click.FloatRange(0.0, 1.0),
    default=1.0,
    show_default=True,
    help="Discount of the returns.",
)
@time_limit_option("Solver: seconds per level (0: no limit).", default=10.0, minimum=NON_NEGATIVE)
@workers_option(
    f"Local worker processes [all cores; this process below {SMALL_RUN} levels]; "
    "0 works in this process."
)
@scheduler_option
@click.option(
    "--output",
    "-o",
    required=True,
    type=click.Path(dir_okay=False, path_type=Path),
    help="The .npz file to write.",
)
@click.option("--quiet", "-q", is_flag=True, help="No progress bar or summary.")
@json_option
def dataset(
    source: str,
    count: int,
    seed: int,
    observation: str,
    action_mode: str,
    gamma: float,
    time_limit: float,
    workers: int | None,
    scheduler: str | None,
    output: Path,
    quiet: bool,
    as_json: bool,
) -> None:
    """Write the solver's optimal trajectories on levels of a source to an .npz file."""
    check_output(output, "'--output'")
    try:
        from sokoban.env.dataset import collect
        from sokoban.env.sources import parse_source
    except ImportError as error:
        raise SokobanError(
            f"the dataset command needs the rl extra ({error.name} is missing): "
            "pip install 'sokoban[rl]'"
        ) from None
    levels = parse_source(source)
    if workers is None and scheduler is None and count < SMALL_RUN:
        workers = 0  # starting processes costs more than a few levels take
    made = collect(
        levels,
        count,
        seed=seed,
        observation=observation,
        action_mode=action_mode,
        time_limit=time_limit or None,
        gamma=gamma,
        workers=workers,
        scheduler=scheduler,
        description=None if quiet or as_json else "solving",
    )
    write_atomically(output, made.npz())
    summary = {
        "episodes": len(made.episodes),
        "steps": made.steps,
        "unsolved": made.unsolved,
        "output": str(output),
    }
    if as_json:
        echo_json(summary)
    elif not quiet:
        console(stderr=True).print(
            f"{len(made.episodes)} episodes, {made.steps} steps written to {output}"
            + (f"; {len(made.unsolved)} levels unsolved in the time limit" if made.unsolved else "")
        )
