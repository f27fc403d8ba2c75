"""astar's two tie-breaks side by side: fewer moves first (the default) and deeper first.

    .venv/bin/python benchmarks/bench_ties.py                 # Microban, 10 s per level
    .venv/bin/python benchmarks/bench_ties.py microban2 -t 5

Prints, per tie-break, the levels solved, expansions, seconds and the total moves of the
levels both solve, and how many solutions each makes shorter. One process, each level
solved twice in a row, so the two orders share the machine's load.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from rich.console import Console
from rich.table import Table

from sokoban import xsb
from sokoban.solve import Limits, solve

SHARED = Path(__file__).resolve().parents[2] / "shared" / "levels"
TIES = ("moves", "deeper")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("collection", nargs="?", default="microban", help="name or path")
    parser.add_argument("-t", "--time-limit", type=float, default=10.0)
    args = parser.parse_args()
    path = Path(args.collection)
    if not path.exists():
        path = SHARED / f"{args.collection}.xsb"
    levels = list(xsb.load(path))
    solved = dict.fromkeys(TIES, 0)
    expanded = dict.fromkeys(TIES, 0)
    seconds = dict.fromkeys(TIES, 0.0)
    moves = dict.fromkeys(TIES, 0)
    shorter = dict.fromkeys(TIES, 0)
    for level in levels:
        found = {}
        for ties in TIES:
            result = solve(level, "astar", Limits(time=args.time_limit), ties=ties)
            expanded[ties] += result.stats.expanded
            seconds[ties] += result.stats.seconds
            if result.solution is not None:
                solved[ties] += 1
                found[ties] = result.solution.moves
        if len(found) == len(TIES):
            for ties in TIES:
                moves[ties] += found[ties]
            other = dict(zip(TIES, reversed(TIES), strict=True))
            for ties in TIES:
                shorter[ties] += found[ties] < found[other[ties]]
    table = Table(title=f"astar on {path.name}, {args.time_limit:g} s per level")
    for column in ("ties", "solved", "expanded", "seconds", "moves (both solved)", "shorter"):
        table.add_column(column, justify="right")
    for ties in TIES:
        table.add_row(
            ties,
            f"{solved[ties]}/{len(levels)}",
            f"{expanded[ties]:,}",
            f"{seconds[ties]:.1f}",
            f"{moves[ties]:,}",
            str(shorter[ties]),
        )
    Console(width=120).print(table)


if __name__ == "__main__":
    main()
