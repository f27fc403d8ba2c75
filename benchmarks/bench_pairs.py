"""Side by side: a method with and without a deadlock test, by default the two-box table
(option ``pairs``, on by default), or with ``--compare corral_deadlocks`` the corral
sub-searches (off by default; the table stays on in both runs), or with ``--compare
learn --option corral_deadlocks=true`` the patterns those sub-searches leave (any boolean
option of the method; ``--option NAME=VALUE`` sets others for both runs).

    .venv/bin/python benchmarks/bench_pairs.py -m astar -t 10 microban microban2
    .venv/bin/python benchmarks/bench_pairs.py -m fast -t 20 -l 1-30 xsokoban
    .venv/bin/python benchmarks/bench_pairs.py --compare corral_deadlocks -m astar microban2
    .venv/bin/python benchmarks/bench_pairs.py --compare learn --option corral_deadlocks=true \
        -m fess -t 30 -l 1-20 xsokoban

Each level runs twice, table on and off, as neighbouring tasks on two worker processes, so
both variants meet the same load. Prints per collection: levels solved, proven optimal,
wrong optima (against optimal.csv), expansions in total and on the levels both variants
solved, nodes per second, and the table's build time. Rows go to
benchmarks/results/pairs-<method>-<collection>.csv (not committed).
"""

from __future__ import annotations

import argparse
import concurrent.futures as cf
import csv
import multiprocessing
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
SHARED = HERE.parents[1] / "shared" / "levels"
COLLECTIONS = {
    "microban": SHARED / "microban.xsb",
    "microban2": SHARED / "microban2.xsb",
    "xsokoban": SHARED / "xsokoban.xsb",
}
FIELDS = [
    "file",
    "level",
    "method",
    "option",
    "pairs",
    "status",
    "pushes",
    "optimal",
    "expanded",
    "search_seconds",
    "table_seconds",
    "table_bytes",
]


def warm_up() -> None:
    """Load the kernels in a worker before timing anything."""
    from sokoban import Level
    from sokoban.solve import solve

    for corral_deadlocks in (False, True):
        level = Level.from_xsb("#######\n#@$ $.#\n#   . #\n#######")
        solve(level, "fast", corral_deadlocks=corral_deadlocks)


def run_one(
    task: tuple[str, int, str, str, float, str, bool, dict[str, object]],
) -> dict[str, object]:
    """Solve one level (in a worker): table build time measured apart, then the solve."""
    from sokoban import Level
    from sokoban.solve import Limits, solve
    from sokoban.solve._board import Board
    from sokoban.solve._pairs import pair_table

    file, number, xsb, method, seconds, option, pairs, base = task
    level = Level.from_xsb(xsb)
    start = time.perf_counter()
    table = pair_table(Board(level))[1] if option != "pairs" or pairs else None
    built = time.perf_counter() - start
    result = solve(level, method, Limits(time=seconds), **{**base, option: pairs})
    return {
        "file": file,
        "level": number,
        "method": method,
        "option": option,
        "pairs": int(pairs),
        "status": result.status.value,
        "pushes": result.solution.pushes if result.solution is not None else -1,
        "optimal": int(result.optimal),
        "expanded": result.stats.expanded,
        "search_seconds": round(result.stats.seconds, 4),
        "table_seconds": round(built, 4),
        "table_bytes": table.nbytes if table is not None else 0,
    }


def levels(spec: str | None, count: int) -> list[int]:
    if spec is None:
        return list(range(1, count + 1))
    first, _, last = spec.partition("-")
    return list(range(int(first), int(last or first) + 1))


def known_optima() -> dict[tuple[str, int], int]:
    path = SHARED / "optimal.csv"
    if not path.exists():
        return {}
    with open(path, encoding="utf-8") as handle:
        rows = csv.DictReader(line for line in handle if not line.startswith("#"))
        return {(r["file"], int(r["level"])): int(r["pushes"]) for r in rows}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("collections", nargs="*", default=["microban"])
    parser.add_argument("-m", "--method", default="astar")
    parser.add_argument("-t", "--time-limit", type=float, default=10.0)
    parser.add_argument("-w", "--workers", type=int, default=2)
    parser.add_argument("-l", "--level", default=None, help="a level range such as 1-30")
    parser.add_argument("--compare", default="pairs", help="a boolean option of the method")
    parser.add_argument("--option", action="append", default=[], help="NAME=VALUE for both")
    args = parser.parse_args()
    from sokoban.solve import METHODS, parse_option
    from sokoban.xsb import load

    base = dict(parse_option(METHODS[args.method], text) for text in args.option)

    optima = known_optima()
    results = HERE / "results"
    results.mkdir(exist_ok=True)
    context = multiprocessing.get_context("forkserver")
    for name in args.collections:
        path = COLLECTIONS.get(name, Path(name))
        collection = load(path)
        tasks = []
        for number in levels(args.level, len(collection)):
            xsb = collection[number - 1].xsb()
            for pairs in (True, False):
                task = (path.name, number, xsb, args.method, args.time_limit, args.compare, pairs)
                task += (base,)
                tasks.append(task)
        with cf.ProcessPoolExecutor(args.workers, context, warm_up) as pool:
            rows = list(pool.map(run_one, tasks))
        tag = args.compare
        out = results / f"{tag}-{args.method}-{path.stem}.csv"
        with open(out, "w", newline="", encoding="utf-8") as handle:
            writer = csv.DictWriter(handle, FIELDS)
            writer.writeheader()
            writer.writerows(rows)
        solved_by = {
            p: {r["level"] for r in rows if r["pairs"] == p and r["status"] == "solved"}
            for p in (0, 1)
        }
        both = solved_by[0] & solved_by[1]
        print(f"\n{path.name} ({len(tasks) // 2} levels), {args.method}, {args.time_limit} s")
        print(
            f"{args.compare} | solved | optimal | wrong | expanded | expanded (both solved)"
            " | search s (both solved) | nodes/s | table s total | table s max | table KiB max"
        )
        for p in (1, 0):
            mine = [r for r in rows if r["pairs"] == p]
            wrong = sum(
                1
                for r in mine
                if r["optimal"] and optima.get((r["file"], r["level"]), r["pushes"]) != r["pushes"]
            )
            expanded = sum(int(r["expanded"]) for r in mine)
            common = sum(int(r["expanded"]) for r in mine if r["level"] in both)
            common_s = sum(float(r["search_seconds"]) for r in mine if r["level"] in both)
            seconds = sum(float(r["search_seconds"]) for r in mine)
            optimal = sum(int(r["optimal"]) for r in mine)
            print(
                f"{'on' if p else 'off'} | {len(solved_by[p])} | {optimal}"
                f" | {wrong} | {expanded:,} | {common:,} | {common_s:.2f}"
                f" | {expanded / max(seconds, 1e-9):,.0f}"
                f" | {sum(float(r['table_seconds']) for r in mine):.3f}"
                f" | {max(float(r['table_seconds']) for r in mine):.3f}"
                f" | {max(int(r['table_bytes']) for r in mine) / 1024:.0f}"
            )
        gained = sorted(solved_by[1] - solved_by[0])
        lost = sorted(solved_by[0] - solved_by[1])
        print(f"solved only with {args.compare}: {gained}; only without: {lost}")
        print(f"rows: {out}")


if __name__ == "__main__":
    main()
