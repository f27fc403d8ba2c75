"""The tables of development-suite runs kept as CSVs (``bench_solver.py --suite dev --csv
DIR``), side by side over the levels every run has: a run of one checkout can then be
compared with runs of others made at other times (with the CPU-time clock, their limits
mean the same on a busy machine).

    .venv/bin/python benchmarks/suite_table.py runA/this.csv runB/this.csv [--names a,b]
"""

from __future__ import annotations

import argparse
from pathlib import Path

from _suite import Job, Side, differences, table


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("csvs", nargs="+", type=Path)
    parser.add_argument("--names", default=None, help="a name per CSV, comma-separated")
    args = parser.parse_args()
    names = args.names.split(",") if args.names else [str(p) for p in args.csvs]
    sides = []
    for name, path in zip(names, args.csvs, strict=True):
        side = Side(name, path.parent, path)
        side.load()
        sides.append(side)
    common = set.intersection(*(set(side.rows) for side in sides))
    jobs = [
        Job(collection, Path(), level - 1, seconds)
        for collection, level, seconds in sides[0].rows  # in the first run's order
        if (collection, level, seconds) in common
    ]
    print(table(sides, jobs))
    if len(sides) == 2:
        print(differences(sides, jobs))


if __name__ == "__main__":
    main()
