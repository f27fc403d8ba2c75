"""Single-box analysis figures: one room's tables, and an exhaustive layout search.

    .venv/bin/python benchmarks/bench_single_box.py                  # both measurements
    .venv/bin/python benchmarks/bench_single_box.py --room-only      # the 8 x 8 tables only
    .venv/bin/python benchmarks/bench_single_box.py --table          # the proven-maxima table
    .venv/bin/python benchmarks/bench_single_box.py --compare        # vs the forward oracle

Times are wall clock on a shared machine: other work on it moves them by tens of percent,
so quote ratios measured in one run. Kernels are compiled (or loaded from numba's cache)
before timing.
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

from rich.console import Console
from rich.table import Table

from sokoban.analysis import analyse
from sokoban.analysis.longest_puzzle import layout_room, longest

ROOT = Path(__file__).resolve().parents[1]


def peak_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def room_tables(repeats: int) -> Table:
    """Every table of one 8 x 8 room: the backward searches, then the witnesses."""
    rooms = {
        "8x8 empty": layout_room(8, 8, ()),
        "8x8, 4 obstacles": layout_room(8, 8, (1, 10, 19, 28)),
        "16x16 empty": layout_room(16, 16, ()),
    }
    analyse(rooms["8x8 empty"])  # compile or load the kernels
    table = Table(title="One room, every placement (after compilation)")
    for column in ("room", "placements", "tables (median)", "placements/s", "+ 2 witnesses"):
        table.add_column(column, justify="right")
    for name, room in rooms.items():
        runs = 3 if name.startswith("16") else repeats
        times = []
        for _ in range(runs):
            start = time.perf_counter()
            result = analyse(room)
            times.append(time.perf_counter() - start)
        median = statistics.median(times)
        start = time.perf_counter()
        result.max_moves, result.max_pushes  # noqa: B018 - forward searches and replays
        witnesses = time.perf_counter() - start
        table.add_row(
            name,
            f"{result.placements:,}",
            f"{median * 1000:.1f} ms",
            f"{result.placements / median:,.0f}",
            f"{witnesses * 1000:.0f} ms",
        )
    return table


def exhaustive(width: int, height: int, k: int, workers: int) -> Table:
    longest(3, 3, 1, workers=0)  # compile or load the kernels in this process
    start = time.perf_counter()
    result = longest(width, height, k, workers=workers, description=f"{width}x{height} k={k}")
    seconds = time.perf_counter() - start
    table = Table(title=f"Exhaustive layout search, {workers} worker processes")
    for column in ("room", "K", "layouts", "time", "layouts/s", "most moves", "most pushes"):
        table.add_column(column, justify="right")
    table.add_row(
        f"{width}x{height}",
        str(k),
        f"{result.layouts:,}",
        f"{seconds:.1f} s",
        f"{result.layouts / seconds:,.0f}",
        f"{result.best_moves} ({result.moves_ties} layouts)",
        f"{result.best_pushes} ({result.pushes_ties} layouts)",
    )
    return table


def compare() -> Table:
    """The backward kernels against the forward-search oracle (one search per start), and
    the layout kernel on one process."""
    sys.path.insert(0, str(ROOT / "tests"))
    import naive_single_box as naive

    table = Table(title="Against a simple method, and one process")
    for column in ("work", "simple: forward search per start", "this tool", "ratio"):
        table.add_column(column, justify="right")
    rows = naive.empty_room(6, 6)
    start = time.perf_counter()
    naive.table(rows)
    slow = time.perf_counter() - start
    room = layout_room(6, 6, ())
    analyse(room)
    start = time.perf_counter()
    analyse(room)
    fast = time.perf_counter() - start
    table.add_row(
        "6x6 room, every table", f"{slow:.1f} s", f"{fast * 1000:.2f} ms", f"{slow / fast:,.0f}x"
    )
    longest(8, 8, 1, workers=0)
    start = time.perf_counter()
    result = longest(8, 8, 3, workers=0)
    seconds = time.perf_counter() - start
    table.add_row(
        f"8x8 K=3, {result.layouts:,} layouts, 1 process",
        "",
        f"{seconds:.1f} s ({seconds / result.layouts * 1000:.2f} ms a layout)",
        "",
    )
    return table


#: The rooms of the proven-maxima table in docs/single-box.md.
TABLE_ROOMS = [(w, h) for w in range(3, 7) for h in range(3, w + 1)] + [(7, 7), (8, 8)]


def maxima_table(workers: int) -> str:
    """The proven maxima as Markdown, each cell from ``sokoban longest --json``."""
    lines = [
        "| interior | K=0 | K=1 | K=2 | K=3 | K=4 |",
        "|---|---|---|---|---|---|",
    ]
    for w, h in TABLE_ROOMS:
        cells = []
        for k in range(5):
            command = [
                sys.executable, "-m", "sokoban", "longest", "--room", f"{w}x{h}",
                "--obstacles", str(k), "--workers", str(workers), "--no-checkpoint", "--json",
            ]  # fmt: skip
            out = subprocess.run(command, check=True, capture_output=True, text=True).stdout
            data = json.loads(out)
            assert data["proven"]
            cells.append(f"{data['moves']['best']} / {data['pushes']['best']}")
            print(f"{w}x{h} K={k}: {cells[-1]} ({data['layouts']} layouts)", file=sys.stderr)
        lines.append(f"| {w}x{h} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--room-only", action="store_true")
    parser.add_argument("--table", action="store_true", help="print the proven-maxima table")
    parser.add_argument("--compare", action="store_true", help="against the forward oracle")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=20)
    parser.add_argument("--obstacles", type=int, default=4)
    args = parser.parse_args()
    console = Console()
    if args.table:
        print(maxima_table(args.workers))
        return
    if args.compare:
        console.print(compare())
        return
    console.print(room_tables(args.repeats))
    if not args.room_only:
        console.print(exhaustive(8, 8, args.obstacles, args.workers))
    console.print(f"peak memory of this process: {peak_mib():.0f} MiB")


if __name__ == "__main__":
    main()
