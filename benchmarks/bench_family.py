"""Benchmark the search family side by side on one collection, and SMA*'s cost curve.

    .venv/bin/python benchmarks/bench_family.py                         # Microban, 10 s
    .venv/bin/python benchmarks/bench_family.py --every 5 --workers 2   # a sample
    .venv/bin/python benchmarks/bench_family.py --curve 3,10,20         # SMA* curves

The comparison runs every method on every chosen level (each run in a worker process,
``--time-limit`` seconds each) and prints a table per method: levels solved, proven
optimal, solved levels whose push count matches ``optimal.csv``, total and median time,
expansions and peak memory. Per-run rows go to benchmarks/results/family-<collection>.csv
(not committed). ``--curve`` runs SMA* on each named level over ``--budgets`` (nodes) and
writes the table as Markdown and a PNG per level to benchmarks/results/. The machine is
shared, so figures are noisy: compare ratios measured side by side.
"""

from __future__ import annotations

import argparse
import csv
import statistics
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
SHARED = HERE.parents[1] / "shared" / "levels"
COLLECTIONS = {
    "microban": SHARED / "microban.xsb",
    "microban2": SHARED / "microban2.xsb",
    "xsokoban": SHARED / "xsokoban.xsb",
}
METHODS = ("astar", "bfs", "ida", "sma", "bidirectional", "bfs-moves")
#: Methods whose optimum is in moves: optimal.csv's push counts do not apply to them.
METHOD_OPTIMISES = {"bfs-moves": "moves", "moves": "moves"}


def _run(job: tuple[str, int, str, float, dict[str, Any]]) -> dict[str, Any]:
    """Solve one level with one method (in a worker process)."""
    from sokoban import xsb
    from sokoban.solve import Limits, solve

    path, number, method, seconds, options = job
    level = xsb.load(Path(path)).find(number)
    start = time.perf_counter()
    result = solve(level, method, Limits(time=seconds), **options)
    wall = time.perf_counter() - start
    stats = result.stats
    return {
        "level": number,
        "method": method,
        "status": result.status.value,
        "optimal": result.optimal,
        "moves": result.solution.moves if result.solution else "",
        "pushes": result.solution.pushes if result.solution else "",
        "seconds": round(stats.seconds, 4),
        "wall": round(wall, 4),
        "expanded": stats.expanded,
        "peak_bytes": stats.peak_bytes,
        "forgotten": getattr(stats, "forgotten", ""),
        "message": result.message,
    }


def _known(collection: Path) -> dict[int, int]:
    """Push optima of ``optimal.csv`` for this collection, by level number."""
    known: dict[int, int] = {}
    table = SHARED / "optimal.csv"
    if not table.exists():
        return known
    with table.open() as handle:
        rows = csv.DictReader(line for line in handle if not line.startswith("#"))
        for row in rows:
            if row["file"] == collection.name:
                known[int(row["level"])] = int(row["pushes"])
    return known


def _mib(n: float) -> str:
    return f"{n / 2**20:.1f}"


def compare(args: argparse.Namespace) -> None:
    from sokoban import batch, xsb

    path = COLLECTIONS.get(args.collection, Path(args.collection))
    count = len(xsb.load(path))
    numbers = list(range(1, count + 1))[:: args.every]
    methods = [m.strip() for m in args.methods.split(",")]
    options: dict[str, dict[str, Any]] = {m: {} for m in methods}
    if "sma" in options and args.sma_budget:
        options["sma"] = {"budget": args.sma_budget}
    if args.learn:
        # Learned bounds off (or SMA*'s stricter rule): the comparison without them.
        for method in ("sma", "ida"):
            if method in options:
                options[method]["learn"] = args.learn
    jobs = [(str(path), n, m, args.time_limit, options[m]) for n in numbers for m in methods]
    # Compile (or load) every kernel once here, so that no run pays for it in its time.
    warm = time.perf_counter()
    for method in methods:
        _run((str(path), 1, method, 60.0, options[method]))
    print(f"kernels ready in {time.perf_counter() - warm:.1f} s", file=sys.stderr)
    rows = [row for _, row in batch.run(_run, jobs, workers=args.workers, description="runs")]
    rows.sort(key=lambda r: (methods.index(r["method"]), r["level"]))
    out = HERE / "results" / f"family-{path.stem}.csv"
    out.parent.mkdir(exist_ok=True)
    with out.open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    known = _known(path)
    print(
        f"\n{path.name}: {len(numbers)} of {count} levels (every {args.every}), "
        f"{args.time_limit:g} s per level per method, {args.workers} workers\n"
    )
    print(
        "| method | solved | proven optimal | matches optimal.csv | total s | median s "
        "| expanded (median) | peak MiB (median / max) |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for method in methods:
        mine = [r for r in rows if r["method"] == method]
        solved = [r for r in mine if r["status"] == "solved"]
        proven = sum(1 for r in solved if r["optimal"])
        checked = [r for r in solved if r["level"] in known]
        matches = sum(1 for r in checked if r["pushes"] == known[r["level"]])
        against = f"{matches}/{len(checked)}" if METHOD_OPTIMISES.get(method) != "moves" else "-"

        total = sum(r["seconds"] for r in mine)
        median = statistics.median(r["seconds"] for r in solved) if solved else 0.0
        expanded = statistics.median(r["expanded"] for r in solved) if solved else 0
        peaks = [r["peak_bytes"] for r in solved] or [0]
        print(
            f"| {method} | {len(solved)}/{len(mine)} | {proven} | {against} "
            f"| {total:.1f} | {median:.3f} | {expanded:,.0f} "
            f"| {_mib(statistics.median(peaks))} / {_mib(max(peaks))} |"
        )
    refused = [r for r in rows if r["method"] == "bfs-moves" and "refused" in r["message"]]
    if refused:
        print(f"\nbfs-moves refused {len(refused)} levels for their estimated size.")
    print(f"\nper-run rows: {out.relative_to(HERE.parent)}")


def curves(args: argparse.Namespace) -> None:
    from click.testing import CliRunner

    from sokoban.cli import main

    path = COLLECTIONS.get(args.collection, Path(args.collection))
    results = HERE / "results"
    results.mkdir(exist_ok=True)
    for number in [int(n) for n in args.curve.split(",")]:
        plot = results / f"curve-{path.stem}-{number}.png"
        argv = ["curve", str(path), "-l", str(number), "--budgets", args.budgets]
        argv += ["-t", str(args.time_limit), "-o", str(plot), "--json"]
        if args.learn:
            argv += ["--learn", args.learn]
        result = CliRunner().invoke(main, argv)
        if result.exit_code != 0:
            print(result.output, file=sys.stderr)
            continue
        import json

        data = json.loads(result.output)
        print(f"\n{path.name} level {number}: optimum {data['optimum']} pushes (astar)\n")
        print("| budget (nodes) | status | pushes | expanded | forgotten | regenerated ", end="")
        print("| learned | peak nodes | peak KiB | s |")
        print("|---|---|---|---|---|---|---|---|---|---|")
        for r in data["runs"]:
            print(
                f"| {r['budget_nodes']:,} | {r['status']} | {r['pushes'] or ''} "
                f"| {r['expanded']:,} | {r.get('forgotten', 0):,} | {r.get('regenerated', 0):,} "
                f"| {r.get('learned', 0):,} | {r.get('peak_nodes', 0):,} "
                f"| {r['peak_bytes'] / 1024:,.0f} | {r['seconds']:.2f} |"
            )
        print(f"\nplot: {plot.relative_to(HERE.parent)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("collection", nargs="?", default="microban")
    parser.add_argument("--methods", "-m", default=",".join(METHODS))
    parser.add_argument("--time-limit", "-t", type=float, default=10.0)
    parser.add_argument("--every", type=int, default=1, help="Every Nth level (a sample).")
    parser.add_argument("--workers", "-w", type=int, default=2)
    parser.add_argument("--sma-budget", type=int, default=None, help="SMA* budget in nodes.")
    parser.add_argument(
        "--learn", choices=["at-least", "deeper", "off"], help="Learned bounds of sma and ida."
    )
    parser.add_argument("--curve", help="Comma-separated levels: SMA* cost curves instead.")
    parser.add_argument("--budgets", default="100,200,500,1000,2000,5000,10000,100000")
    args = parser.parse_args()
    if args.curve:
        curves(args)
    else:
        compare(args)


if __name__ == "__main__":
    main()
