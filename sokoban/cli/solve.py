"""Commands that search: ``solve`` (levels of a file, one at a time, with a live status
line) and ``bench`` (whole collections on local processes, a table and a CSV)."""

from __future__ import annotations

import csv
import os
from pathlib import Path
from typing import Any

import click

from sokoban.cli import main
from sokoban.cli.common import (
    EXIT_INTERRUPTED,
    NON_NEGATIVE,
    NotDone,
    Selection,
    check_output,
    console,
    echo_json,
    file_argument,
    format_bytes,
    json_option,
    level_option,
    load_collection,
    print_table,
    scheduler_option,
    select_levels,
    time_limit_option,
    workers_option,
    write_atomically,
)
from sokoban.errors import SokobanError


def _limits(time_limit: float | None, node_limit: int | None, memory_limit: float | None) -> Any:
    from sokoban.solve import Limits

    memory = None if memory_limit is None else int(memory_limit * 1024 * 1024)
    return Limits(time=time_limit, nodes=node_limit, memory=memory)


#: ``--option NAME=VALUE``, repeatable: a method option (see ``sokoban methods``).
method_options = click.option(
    "--option",
    "assignments",
    multiple=True,
    metavar="NAME=VALUE",
    help="A method option (see 'methods'); repeatable.",
)


def parse_method_options(
    method: str, assignments: tuple[str, ...], hint: str = "'--option'"
) -> dict[str, Any]:
    """The options of ``--option NAME=VALUE`` for ``method``, parsed by their types."""
    from sokoban.solve import METHODS, parse_option

    options: dict[str, Any] = {}
    for text in assignments:
        try:
            name, value = parse_option(METHODS[method], text)
        except SokobanError as error:
            raise click.BadParameter(str(error), param_hint=hint) from None
        options[name] = value
    return options


def _options(
    method: str, weight: float | None, bound: str | None, assignments: tuple[str, ...]
) -> dict[str, Any]:
    options: dict[str, Any] = {}
    if weight is not None:
        options["weight"] = weight
    if bound is not None:
        options["bound"] = bound
    options.update(parse_method_options(method, assignments))
    return options


_time_option = time_limit_option("Seconds per level [no limit].")
_memory_option = click.option(
    "--memory-limit",
    type=NON_NEGATIVE,
    default=None,
    help="MiB of search memory per level (default 2048).",
)
_method_option = click.option(
    "--method",
    "-m",
    default="astar",
    show_default=True,
    help="Search method (see 'sokoban methods').",
)


def _check_method(method: str) -> None:
    from sokoban.solve import METHODS

    if method not in METHODS:
        raise click.BadParameter(
            f"{method!r} is not a method; choose from {', '.join(sorted(METHODS))}",
            param_hint="'--method'",
        )


@main.command("methods")
@json_option
def methods_command(as_json: bool) -> None:
    """List the search methods: what each minimises and whether it proves an optimum."""
    from rich.table import Table
    from rich.text import Text

    from sokoban.solve import METHODS

    records: list[dict[str, Any]] = [
        {
            "name": spec.name,
            "optimises": spec.optimises,
            "optimal": spec.optimal,
            "description": spec.description,
            "options": [
                {
                    "name": o.name,
                    "type": o.type.__name__,
                    "default": o.default,
                    "choices": list(o.choices),
                    "help": o.help,
                }
                for o in spec.options
            ],
        }
        for spec in sorted(METHODS.values(), key=lambda spec: spec.name)
    ]
    if as_json:
        echo_json(records)
        return
    table = Table()
    for column in ("method", "minimises", "optimal", "description and options (--option)"):
        table.add_column(column)
    for spec in sorted(METHODS.values(), key=lambda spec: spec.name):
        text = "\n".join([spec.description, *(f"  {o.describe()}" for o in spec.options)])
        # Plain text: an option's help names the option it depends on in [brackets],
        # which rich would take for markup and drop.
        row = (spec.name, spec.optimises or "-", "yes" if spec.optimal else "no", Text(text))
        table.add_row(*row)
    print_table(console(), table)


@main.command("compile")
@click.option(
    "--method",
    "-m",
    "methods",
    multiple=True,
    help="A method whose kernels to compile (repeatable) [every method].",
)
@workers_option("Processes compiling side by side [all cores]; 0 or 1 compiles in this one.")
@json_option
def compile_command(methods: tuple[str, ...], workers: int | None, as_json: bool) -> None:
    """Compile the solver's kernels now, on every core, instead of at first use.

    numba compiles the kernels a method runs the first time it runs on a machine (tens
    of seconds for every method, one core) and keeps them in its on-disk cache; this
    fills the cache ahead, several methods side by side. On a warm cache it only loads
    them (about a second)."""
    import time

    from sokoban.solve import bench

    for method in methods:
        _check_method(method)
    err = console(stderr=True)
    start = time.perf_counter()
    with err.status("compiling the kernels"):
        seconds = bench.warm_up_all(methods or None, workers)
    wall = time.perf_counter() - start
    if as_json:
        echo_json(
            {"seconds": round(wall, 3), "methods": {m: round(t, 3) for m, t in seconds.items()}}
        )
        return
    split = ", ".join(f"{m} {t:.1f}" for m, t in seconds.items())
    click.echo(f"kernels ready in {wall:.1f} s (each method's seconds: {split})")


def _solve_task(item: tuple[int, str, str, Any, tuple[tuple[str, Any], ...]]) -> Any:
    """Solve one level in a worker: ``(index, xsb, method, limits, options)`` -> its result."""
    from sokoban.level import Level
    from sokoban.solve import solve

    _, text, method, limits, options = item
    return solve(Level.from_xsb(text), method, limits, **dict(options))


def _solve_many(
    levels: list[Any],
    method: str,
    limits: Any,
    options: dict[str, Any],
    workers: int | None,
    scheduler: str | None,
) -> list[Any]:
    """The results of many levels, solved on worker processes or a Dask cluster, in order."""
    from sokoban import batch

    settings = tuple(options.items())
    items = [(i, lv.xsb(), method, limits, settings) for i, lv in enumerate(levels)]
    done = batch.run(_solve_task, items, workers=workers, scheduler=scheduler, description=method)
    results = {item[0]: result for item, result in done}
    return [results[i] for i in range(len(levels))]


@main.command("solve")
@file_argument
@level_option()
@_method_option
@_time_option
@click.option(
    "--node-limit",
    type=click.IntRange(min=0),
    default=None,
    help="Node expansions per level [no limit].",
)
@_memory_option
@click.option("--weight", type=float, default=None, help="The weight of 'wastar' (default 3).")
@click.option(
    "--bound",
    type=click.Choice(["matching", "nearest"]),
    default=None,
    help="Lower bound: min-cost matching of boxes to goals, or each box's nearest goal.",
)
@click.option(
    "--threads",
    type=click.IntRange(min=1),
    default=None,
    help="Run the portfolio's searches side by side in this many threads (method fast).",
)
@method_options
@workers_option(
    "Solve several levels on this many local processes (0: in this process, one at a time, "
    "the default)."
)
@scheduler_option
@json_option
def solve_command(
    file: Path,
    level: Selection | None,
    method: str,
    time_limit: float | None,
    node_limit: int | None,
    memory_limit: float | None,
    weight: float | None,
    bound: str | None,
    threads: int | None,
    assignments: tuple[str, ...],
    workers: int | None,
    scheduler: str | None,
    as_json: bool,
) -> None:
    """Solve levels of FILE.

    Prints each solution in LURD with its metrics and the search statistics. A file with
    several levels needs --level (a number, title, range, list or 'all'). With --workers
    or --scheduler, the levels are solved in parallel and printed when all are done.
    """
    from rich.text import Text

    from sokoban.lurd import replay
    from sokoban.solve import Status, bench

    _check_method(method)
    limits = _limits(time_limit, node_limit, memory_limit)
    options = _options(method, weight, bound, assignments)
    if threads is not None:
        options.update(parse_method_options(method, (f"threads={threads}",), "'--threads'"))
    collection = load_collection(file)
    if level is None and len(collection) > 1:
        raise click.UsageError(
            f"{os.fspath(file)} has {len(collection)} levels: choose with --level (or 'all')"
        )
    levels = select_levels(collection, level)
    out = console()
    err = console(stderr=True)
    # Load (or, on a cold cache, compile on every core) the kernels first, so the first
    # level's seconds and time limit cover its search only.
    with err.status(_kernel_status(err, method)):
        load_seconds = bench.load_kernels([method], **options)
    if load_seconds >= KERNEL_LOAD_SHOWN:  # not when this process had them already
        err.print(f"kernels loaded in {load_seconds:.1f} s")
    parallel = None
    if (workers or scheduler is not None) and len(levels) > 1:
        parallel = _solve_many(levels, method, limits, options, workers, scheduler)
    records = []
    for index, lv in enumerate(levels):
        number = collection.number(lv)
        name = f"level {number}" + (f" ({lv.title})" if lv.title else "")
        if len(levels) == 1 and lv.problems():
            raise SokobanError(f"{name} cannot be solved: {'; '.join(lv.problems())}")
        if parallel is not None:
            result = parallel[index]
        else:
            result = _solve_here(lv, name, method, limits, options, err)
        stats = result.stats
        record: dict[str, Any] = {
            "number": number,
            "title": lv.title,
            "method": method,
            "status": result.status.value,
            "optimal": result.optimal,
            "message": result.message,
            "solution": result.solution.lurd() if result.solution is not None else None,
            "expanded": stats.expanded,
            "generated": stats.generated,
            "stored": stats.stored,
            "peak_bytes": stats.peak_bytes,
            "seconds": round(stats.seconds, 4),
            "nodes_per_second": round(stats.nodes_per_second),
        }
        if result.solution is not None:
            metrics = replay(lv, result.solution).metrics
            record["metrics"] = {
                "moves": metrics.moves,
                "pushes": metrics.pushes,
                "box_lines": metrics.box_lines,
                "box_changes": metrics.box_changes,
                "pushing_sessions": metrics.pushing_sessions,
                "player_lines": metrics.player_lines,
            }
        records.append(record)
        if as_json:
            continue
        style = "green" if result.status is Status.SOLVED else "red"
        head = Text(name[0].upper() + name[1:] + ": ", style="bold")
        head.append(result.status.value, style=style)
        if result.message:
            head.append(f" - {result.message}")
        out.print(head)
        if result.solution is not None:
            out.print(Text(result.solution.lurd()), soft_wrap=True)
            m = record["metrics"]
            out.print(
                Text(
                    f"{m['moves']} moves, {m['pushes']} pushes, {m['box_lines']} box lines, "
                    f"{m['box_changes']} box changes, {m['pushing_sessions']} pushing sessions"
                )
            )
        out.print(
            Text(
                f"{stats.expanded:,} expanded, {stats.generated:,} generated, "
                f"{stats.stored:,} stored, {stats.seconds:.2f} s, "
                f"{stats.nodes_per_second:,.0f} nodes/s, peak {format_bytes(stats.peak_bytes)}"
            )
        )
    if as_json:
        kernels = round(load_seconds, 3)
        if len(records) == 1 and level is None:
            echo_json(records[0] | {"kernel_load_seconds": kernels})
        else:
            echo_json({"method": method, "kernel_load_seconds": kernels, "levels": records})
    unsolved = [r for r in records if r["status"] != Status.SOLVED.value]
    if unsolved:
        # The results are printed; the exit status and one line say that not all were solved.
        first = unsolved[0]
        raise NotDone(
            f"{len(unsolved)} of {len(records)} level{'s' if len(records) != 1 else ''} "
            f"not solved (level {first['number']}: {first['status']})"
        )


#: Kernel loading shorter than this is not reported: the process had them already.
KERNEL_LOAD_SHOWN = 0.05


def _solve_here(
    lv: Any, name: str, method: str, limits: Any, options: dict[str, Any], err: Any
) -> Any:
    """Solve one level in this process, with a live status line on stderr."""
    from sokoban.solve import solve

    with err.status(f"{name}: {method} searching") as status:

        def progress(now: Any) -> None:
            rate = now.expanded / now.seconds if now.seconds else 0
            status.update(
                f"{name}: {method} {now.seconds:.1f} s, {now.expanded:,} expanded, "
                f"{rate:,.0f}/s, {format_bytes(now.nbytes)}"
            )

        return solve(lv, method, limits, progress=progress, **options)


@main.command("bench")
@click.argument(
    "files",
    nargs=-1,
    required=True,
    type=click.Path(exists=True, dir_okay=False, readable=True, path_type=Path),
)
@level_option(help="Levels of every file to run (number, range, list or 'all'); default all.")
@_method_option
@time_limit_option("Seconds per level.", default=10.0)
@_memory_option
@workers_option()
@scheduler_option
@click.option(
    "--csv",
    "csv_path",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Write one row per level to this CSV file.",
)
@click.option(
    "--optimal",
    "optimal_path",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Known push optima to check against (default: optimal.csv beside the first file).",
)
@method_options
@json_option
def bench_command(
    files: tuple[Path, ...],
    level: Selection | None,
    method: str,
    time_limit: float,
    memory_limit: float | None,
    workers: int | None,
    scheduler: str | None,
    csv_path: Path | None,
    optimal_path: Path | None,
    assignments: tuple[str, ...],
    as_json: bool,
) -> None:
    """Solve every level of FILES and print a table per collection.

    Solved, proven optimal, total and median seconds, expanded nodes, nodes per second and
    peak memory; optimal claims are checked against known optima (optimal.csv) when found.
    Kernel load (or first compile) time is reported apart.
    """
    import dataclasses

    from sokoban.solve import bench

    _check_method(method)
    options = parse_method_options(method, assignments)
    if csv_path is not None:
        inputs = files if optimal_path is None else (*files, optimal_path)
        check_output(csv_path, "'--csv'", inputs=inputs)
    limits = _limits(time_limit, None, memory_limit)
    tasks = []
    for path in files:
        collection = load_collection(path)
        for lv in select_levels(collection, level):
            tasks.append(
                bench.Task(
                    os.fspath(path),
                    collection.number(lv),
                    lv.title,
                    lv.xsb(),
                    method,
                    limits,
                    tuple(sorted(options.items())),
                )
            )
    if optimal_path is None and (files[0].parent / "optimal.csv").exists():
        optimal_path = files[0].parent / "optimal.csv"
    try:
        optima = bench.known_optima(optimal_path) if optimal_path is not None else {}
    except (UnicodeDecodeError, KeyError, ValueError, csv.Error) as error:
        name = os.fspath(optimal_path or "")
        raise SokobanError(f"{name!r} is not a table of known optima: {error}") from None
    err = console(stderr=True)
    with err.status(_kernel_status(err, method)):
        load_seconds = bench.load_kernels([method], **options)
    rows, interrupted = _bench_until_interrupted(tasks, workers, scheduler, f"bench {method}")
    rows = [bench.check_known(row, optima) for row in rows]
    summaries = bench.summarise(rows)
    if csv_path is not None:
        write_atomically(csv_path, bench.csv_text(rows))
    if as_json:
        echo_json(
            {
                "method": method,
                "options": options,
                "time_limit": time_limit,
                "kernel_load_seconds": round(load_seconds, 3),
                "collections": [dataclasses.asdict(s) for s in summaries],
                "levels": [dataclasses.asdict(r) for r in rows],
            }
        )
    else:
        _print_bench(method, time_limit, summaries, rows, load_seconds)
    if interrupted:
        console(stderr=True).print(
            f"interrupted: {len(rows)} of {len(tasks)} levels finished; the table"
            + (" and the CSV hold" if csv_path is not None else " holds")
            + " those"
        )
        raise SystemExit(EXIT_INTERRUPTED)
    wrong = sum(r.mismatch for r in rows)
    if wrong:
        raise NotDone(f"{wrong} solutions claimed optimal differ from known optima")


#: What a first run on a cold numba cache says before it compiles.
COLD_CACHE_NOTE = (
    "compiling the solver once on this machine, about 30 s (then cached; "
    "'sokoban compile' does it ahead)"
)


def _kernel_status(err: Any, method: str) -> str:
    """The spinner's text while the kernels load; on a cold numba cache also one line on
    stderr (a spinner shows on terminals only, and the wait is long)."""
    from sokoban import _jit

    if _jit.cache_is_cold():
        click.echo(COLD_CACHE_NOTE, err=True)
        return f"compiling the {method} kernels"
    return f"loading the {method} kernels"


def _bench_until_interrupted(
    tasks: list[Any], workers: int | None, scheduler: str | None, description: str
) -> tuple[list[Any], bool]:
    """The rows of the tasks in task order, on local processes or a Dask cluster; Ctrl-C
    stops the run and keeps the rows finished: returns them and whether it was stopped."""
    from sokoban import batch
    from sokoban.solve import bench

    rows: dict[Any, Any] = {}
    try:
        for task, row in batch.run(
            bench.run_task, tasks, workers=workers, scheduler=scheduler, description=description
        ):
            rows[task] = row
    except KeyboardInterrupt:
        return [rows[task] for task in tasks if task in rows], True
    return [rows[task] for task in tasks], False


def _print_bench(
    method: str, time_limit: float, summaries: list[Any], rows: list[Any], load_seconds: float
) -> None:
    from rich.table import Table

    out = console()
    table = Table(title=f"{method}, {time_limit:g} s per level", title_justify="left")
    for column in ("collection", "levels", "solved", "optimal", "total s", "median s"):
        table.add_column(column, justify="left" if column == "collection" else "right")
    for column in ("expanded", "nodes/s", "peak mem"):
        table.add_column(column, justify="right")
    for s in summaries:
        table.add_row(
            Path(s.file).name,
            str(s.levels),
            str(s.solved),
            str(s.optimal) + (f" ({s.mismatches} WRONG)" if s.mismatches else ""),
            f"{s.total_seconds:.1f}",
            f"{s.median_seconds:.3f}",
            f"{s.expanded:,}",
            f"{s.nodes_per_second:,.0f}",
            format_bytes(s.peak_bytes),
        )
    print_table(out, table)
    out.print(f"kernels loaded in {load_seconds:.2f} s")
    wrong = [r for r in rows if r.mismatch]
    for r in wrong:
        out.print(
            f"[red]level {r.number} of {Path(r.file).name}: {r.pushes} pushes, known {r.known}"
        )
