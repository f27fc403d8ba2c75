"""Commands that compare search methods: ``compare`` (one level, a row per method) and
``curve`` (SMA* over memory budgets: expansions and time against the budget, as a table
and a PNG plot)."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import click

from sokoban.cli import main
from sokoban.cli.common import (
    POSITIVE,
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
    select_one,
    time_limit_option,
    write_atomically,
)
from sokoban.cli.solve import method_options, parse_method_options
from sokoban.errors import SokobanError
from sokoban.extras import require_matplotlib

#: The methods ``compare`` runs when --methods is not given.
DEFAULT_METHODS = ("bfs", "astar", "ida", "sma", "bidirectional", "bfs-moves", "moves")
#: The largest SMA* budget ``curve`` accepts, in nodes; the library also refuses a budget
#: whose nodes and bound cache need more than its default memory limit (about 3.5 M nodes
#: with learned bounds for a few boxes), and ``curve`` checks that before any search.
MAX_BUDGET = 10_000_000
#: The most budgets in one curve: a run each, of up to --time-limit seconds.
MAX_BUDGETS = 100


def _methods(text: str) -> list[str]:
    from sokoban.solve import METHODS

    names = [name.strip() for name in text.split(",") if name.strip()]
    if not names:
        raise click.BadParameter("name at least one method", param_hint="'--methods'")
    for name in names:
        if name not in METHODS:
            raise click.BadParameter(
                f"{name!r} is not a method; choose from {', '.join(sorted(METHODS))}",
                param_hint="'--methods'",
            )
    return names


def _budgets(text: str) -> list[int]:
    budgets = []
    for part in text.split(","):
        part = part.strip().replace("_", "")
        if not part:
            continue
        try:
            value = int(part)
        except ValueError:
            raise click.BadParameter(
                f"{part!r} is not a whole number of nodes in {text!r}", param_hint="'--budgets'"
            ) from None
        if not 1 <= value <= MAX_BUDGET:
            raise click.BadParameter(
                f"a budget of {value:,} nodes; budgets are 1 to {MAX_BUDGET:,} nodes",
                param_hint="'--budgets'",
            )
        budgets.append(value)
    if not budgets:
        raise click.BadParameter("name at least one budget", param_hint="'--budgets'")
    distinct = sorted(set(budgets))
    if len(distinct) > MAX_BUDGETS:
        # Each budget is a run of up to --time-limit seconds.
        raise click.BadParameter(
            f"{len(distinct):,} budgets; at most {MAX_BUDGETS} in one curve",
            param_hint="'--budgets'",
        )
    return distinct


def _options_for(method: str, assignments: tuple[str, ...]) -> dict[str, Any]:
    """The ``--option NAME=VALUE`` assignments that ``method`` takes, parsed."""
    from sokoban.solve import METHODS

    names = {o.name for o in METHODS[method].options}
    mine = tuple(a for a in assignments if a.partition("=")[0].strip() in names)
    return parse_method_options(method, mine)


def _limits(time_limit: float | None, memory_limit: float | None) -> Any:
    from sokoban.solve import Limits

    memory = None if memory_limit is None else int(memory_limit * 1024 * 1024)
    return Limits(time=time_limit, memory=memory)


def _load_kernels(methods: list[str]) -> None:
    """Load (on a cold cache, compile) the methods' kernels before any run is timed, so that
    the first run's seconds are its search alone; says how long it took on stderr."""
    from sokoban.cli.solve import KERNEL_LOAD_SHOWN
    from sokoban.solve import bench

    err = console(stderr=True)
    with err.status("loading the kernels"):
        seconds = bench.load_kernels(methods)
    if seconds >= KERNEL_LOAD_SHOWN:
        err.print(f"kernels loaded in {seconds:.1f} s")


def _record(method: str, result: Any) -> dict[str, Any]:
    stats = result.stats
    solution = result.solution
    record = {
        "method": method,
        "status": result.status.value,
        "moves": solution.moves if solution is not None else None,
        "pushes": solution.pushes if solution is not None else None,
        "optimal": result.optimal,
        "optimises": "",
        "seconds": round(stats.seconds, 4),
        "expanded": stats.expanded,
        "stored": stats.stored,
        "peak_bytes": stats.peak_bytes,
        "message": result.message,
    }
    for extra in (
        "forgotten",
        "regenerated",
        "learned",
        "peak_nodes",
        "budget_nodes",
        "cache_entries",
        "budget_bytes",
    ):
        if hasattr(stats, extra):
            record[extra] = getattr(stats, extra)
    return record


_time_option = time_limit_option("Seconds per run.", default=10.0, minimum=POSITIVE)
_memory_option = click.option(
    "--memory-limit",
    type=POSITIVE,
    default=None,
    help="MiB of search memory per run (default 2048).",
)


@main.command("compare")
@file_argument
@level_option(help="The level: a number or title (optional when FILE holds one).")
@click.option(
    "--methods",
    "-m",
    default=",".join(DEFAULT_METHODS),
    show_default=True,
    help="Comma-separated methods (see 'sokoban methods').",
)
@_time_option
@_memory_option
@method_options
@json_option
def compare(
    file: Path,
    level: Selection | None,
    methods: str,
    time_limit: float,
    memory_limit: float | None,
    assignments: tuple[str, ...],
    as_json: bool,
) -> None:
    """Solve one level of FILE with several methods and compare them: a row per method
    with the solution's moves and pushes, whether it is proven optimal (for what the
    method minimises), the time, the expansions and the peak memory. An --option goes to
    every method that takes it."""

    from sokoban.solve import METHODS, solve

    names = _methods(methods)
    options = {name: _options_for(name, assignments) for name in names}
    for text in assignments:
        option = text.partition("=")[0].strip()
        if not any(option in o for o in options.values()):
            raise click.BadParameter(
                f"no method of {', '.join(names)} takes option {option!r}",
                param_hint="'--option'",
            )
    collection = load_collection(file)
    lv = select_one(collection, level, file)
    if lv.problems():
        raise SokobanError(
            f"level {collection.number(lv)} cannot be solved: {'; '.join(lv.problems())}"
        )
    limits = _limits(time_limit, memory_limit)
    _load_kernels(names)
    records = []
    err = console(stderr=True)
    for name in names:
        with err.status(f"{name}: searching (up to {time_limit:g} s)"):
            result = solve(lv, name, limits, **options[name])
        record = _record(name, result)
        record["optimises"] = METHODS[name].optimises
        records.append(record)
    if as_json:
        echo_json({"number": collection.number(lv), "title": lv.title, "methods": records})
    else:
        _print_comparison(collection.number(lv), lv, records, time_limit)
    if all(r["moves"] is None for r in records):
        # Like `solve`: a level no method solved is a failure scripts can see.
        raise NotDone(f"no method solved level {collection.number(lv)}")


def _print_comparison(
    number: int, lv: Any, records: list[dict[str, Any]], time_limit: float
) -> None:
    from rich.table import Table

    title = f"level {number}" + (f" ({lv.title})" if lv.title else "")
    table = Table(title=f"{title}: {len(lv.boxes)} boxes, {time_limit:g} s per method")
    for column in ("method", "status", "moves", "pushes", "optimal", "seconds", "expanded"):
        table.add_column(column, justify="left" if column in ("method", "status") else "right")
    table.add_column("peak memory", justify="right")
    for r in records:
        optimal = f"{r['optimises']}" if r["optimal"] else ("no" if r["moves"] is not None else "")
        table.add_row(
            r["method"],
            r["status"],
            "" if r["moves"] is None else f"{r['moves']:,}",
            "" if r["pushes"] is None else f"{r['pushes']:,}",
            optimal,
            f"{r['seconds']:.2f}",
            f"{r['expanded']:,}",
            format_bytes(r["peak_bytes"]),
        )
    print_table(console(), table)


def _plot(rows: list[dict[str, Any]], title: str, optimum: int | None) -> bytes:
    """The cost curve as PNG bytes: expansions and seconds against the budget, unsolved
    runs crossed, and a dotted line at the smallest budget an optimal path fits in."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    figure = Figure(figsize=(7, 4.2), dpi=100)
    axes = figure.add_subplot(1, 1, 1)
    budgets = [r["budget_nodes"] for r in rows]
    solved = [r for r in rows if r["pushes"] is not None]
    axes.plot(
        budgets, [max(r["expanded"], 1) for r in rows], "o-", color="tab:blue", label="expansions"
    )
    if solved:
        axes.plot(
            [r["budget_nodes"] for r in solved],
            [r["expanded"] for r in solved],
            "o",
            color="tab:blue",
            markerfacecolor="white",
            label="solved",
        )
    unsolved = [r for r in rows if r["pushes"] is None]
    if unsolved:
        axes.plot(
            [r["budget_nodes"] for r in unsolved],
            [max(r["expanded"], 1) for r in unsolved],
            "x",
            color="black",
            label="not solved (limit)",
        )
    if optimum is not None:
        axes.axvline(optimum + 1, linestyle=":", color="gray", label="optimal path fits")
    axes.set_xscale("log")
    axes.set_yscale("log")
    axes.set_xlabel("memory budget (nodes)")
    axes.set_ylabel("expansions", color="tab:blue")
    second = axes.twinx()
    second.plot(budgets, [max(r["seconds"], 1e-4) for r in rows], "s--", color="tab:red")
    second.set_yscale("log")
    second.set_ylabel("seconds", color="tab:red")
    axes.legend(loc="upper right", fontsize="small")
    axes.set_title(title, fontsize="medium")
    figure.tight_layout()
    out = io.BytesIO()
    figure.savefig(out, format="png")
    return out.getvalue()


#: The plot's file name when ``--plot`` is given without one; ``{level}`` is its number.
PLOT_NAME = "curve-{level}.png"


@main.command("curve")
@file_argument
@level_option(help="The level: a number or title (optional when FILE holds one).")
@click.option(
    "--budgets",
    default="500,1000,2000,5000,10000,20000,50000",
    show_default=True,
    help="Comma-separated SMA* budgets in nodes.",
)
@_time_option
@click.option(
    "--output",
    "--plot",
    "-o",
    "plot",
    type=click.Path(dir_okay=False, writable=True, path_type=Path),
    is_flag=False,
    flag_value=Path(PLOT_NAME),
    default=None,
    metavar="[PNG]",
    help=f"Also draw the curve as a PNG file; '--plot' alone writes {PLOT_NAME} in the "
    "current folder, '-' writes it to stdout.",
)
@click.option("--no-plot", is_flag=True, hidden=True)  # the default now; kept for old scripts
@click.option(
    "--learn",
    type=click.Choice(["at-least", "deeper", "off"]),
    default="at-least",
    show_default=True,
    help="When SMA*'s bound cache applies to a state met again (off: no cache).",
)
@json_option
def curve(
    file: Path,
    level: Selection | None,
    budgets: str,
    time_limit: float,
    plot: Path | None,
    no_plot: bool,
    learn: str,
    as_json: bool,
) -> None:
    """Run SMA* on one level of FILE over memory budgets (in nodes) and show what memory
    buys: expansions, forgotten and regenerated nodes and time against the budget, as a
    table (and with --plot a PNG). Each node of a budget comes with 32 learned bounds (16 bytes
    each) unless --learn off; the bytes column counts both. A* gives the optimum to check
    each solution against."""
    from rich.table import Table

    from sokoban.solve import Limits, Status, solve

    sizes = _budgets(budgets)
    if no_plot and plot is not None:
        raise click.UsageError("--plot and --no-plot contradict each other: give one")
    if as_json and plot is not None and str(plot) == "-":
        raise click.UsageError("--plot - and --json would both write to stdout: give a file")
    if plot is not None:
        # Refused before the searches, not after them: never the level file itself.
        check_output(plot, "'--plot'", inputs=(file,))
        require_matplotlib("--plot")
    collection = load_collection(file)
    lv = select_one(collection, level, file)
    number = collection.number(lv)
    if lv.problems():
        raise SokobanError(f"level {number} cannot be solved: {'; '.join(lv.problems())}")
    from sokoban.solve import DEFAULT_MEMORY
    from sokoban.solve._sma import sma_bytes

    for size in sizes:
        need = sma_bytes(size, len(lv.boxes), learn=learn)
        if need > DEFAULT_MEMORY:
            raise click.BadParameter(
                f"a budget of {size:,} nodes needs {format_bytes(need)} on level {number}, "
                f"more than the {format_bytes(DEFAULT_MEMORY)} SMA* may take",
                param_hint="'--budgets'",
            )
    target = plot
    if target is not None and str(target) == PLOT_NAME:
        target = Path(PLOT_NAME.format(level=number))
        check_output(target, "'--plot'", inputs=(file,))
    _load_kernels(["astar", "sma"])
    err = console(stderr=True)
    with err.status(f"astar: the optimum (up to {time_limit:g} s)"):
        reference = solve(lv, "astar", Limits(time=time_limit))
    if reference.status is Status.UNSOLVABLE:
        # Every budget would say the same, and the plot would have no curve to draw.
        raise NotDone(f"level {number} has no solution (astar proved it): no curve to draw")
    optimum = reference.solution.pushes if reference.solution is not None else None
    rows = []
    for size in sizes:
        with err.status(f"sma: budget {size:,} nodes (up to {time_limit:g} s)"):
            result = solve(lv, "sma", Limits(time=time_limit), budget=size, learn=learn)
        row = _record("sma", result)
        row["budget_nodes"] = size
        row["matches_optimum"] = (
            None if optimum is None or row["pushes"] is None else row["pushes"] == optimum
        )
        rows.append(row)
    title = f"level {number}" + (f" ({lv.title})" if lv.title else "")
    if target is not None:
        from sokoban.solve._sma import SMA_CACHE_PER_NODE

        cache = (
            "no bound cache" if learn == "off" else f"{SMA_CACHE_PER_NODE} learned bounds a node"
        )
        caption = f"SMA* on {title}, optimum {optimum} pushes ({cache})"
        write_atomically(target, _plot(rows, caption, optimum))
    if as_json:
        echo_json(
            {
                "number": number,
                "title": lv.title,
                "optimum": optimum,
                "plot": None if target is None or str(target) == "-" else str(target),
                "runs": rows,
            }
        )
        return
    if target is not None and str(target) == "-":
        return
    table = Table(
        caption="budget and peak in nodes; forgot: leaves forgotten; regen: children "
        "regenerated; learned: children whose bound the cache raised; bytes: nodes and cache",
        title=f"SMA* on {title}: optimum {optimum if optimum is not None else '?'} pushes "
        f"(astar), {time_limit:g} s per budget",
    )
    for column in (
        "budget",
        "status",
        "pushes",
        "optimal",
        "expanded",
        "forgot",
        "regen",
        "learned",
        "peak",
        "bytes",
        "s",
    ):
        table.add_column(column, justify="left" if column == "status" else "right")
    for r in rows:
        match = r["matches_optimum"]
        table.add_row(
            f"{r['budget_nodes']:,}",
            r["status"],
            "" if r["pushes"] is None else str(r["pushes"]),
            "" if match is None else ("yes" if match else "NO"),
            f"{r['expanded']:,}",
            f"{r.get('forgotten', 0):,}",
            f"{r.get('regenerated', 0):,}",
            f"{r.get('learned', 0):,}",
            f"{r.get('peak_nodes', 0):,}",
            format_bytes(r["peak_bytes"]),
            f"{r['seconds']:.2f}",
        )
    out = console()
    print_table(out, table)
    if target is not None:
        out.print(f"plot: {target}")
