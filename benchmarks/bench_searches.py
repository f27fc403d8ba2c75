"""The searches of `fast`'s portfolio one at a time: each alone on the chosen levels of a
suite collection, under a limit of expansions (so that two checkouts do the same work)
or of seconds, one level at a time in this process.

    .venv/bin/python benchmarks/bench_searches.py -n 100000 -s backward sasquatch-v:42 xsokoban:24
    PYTHONPATH=../other .venv/bin/python benchmarks/bench_searches.py ...   # another checkout

A level is ``COLLECTION:NUMBER`` (a suite collection's name, or a file's path). ``-s``
picks the searches by their labels' first word (``greedy``, ``backward``, ``fess``,
``astar``); all of the level's portfolio by default. Columns: the search, expansions,
children generated, CPU seconds (the level's set-up excluded; kernels warmed on a
first run of 50 expansions), expansions a second, the search's peak bytes, how it ended.
"""

from __future__ import annotations

import argparse
import time

from _suite import SUITE


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("levels", nargs="+", help="COLLECTION:NUMBER")
    parser.add_argument("-n", "--nodes", type=int, default=None, help="expansions per search")
    parser.add_argument("-t", "--time", type=float, default=None, help="CPU s per search")
    parser.add_argument("-s", "--searches", default="", help="labels' first words, commas")
    args = parser.parse_args()

    from sokoban import xsb
    from sokoban.solve import _portfolio
    from sokoban.solve._driver import drive
    from sokoban.solve._options import FESS_DEADLOCK_OPTIONS, PACKED_WALLS_OPTION
    from sokoban.solve._store import GENERATED
    from sokoban.solve._tables import Tables
    from sokoban.solve.types import Limits

    options = {o.name: o.default for o in (*FESS_DEADLOCK_OPTIONS, PACKED_WALLS_OPTION)}
    wanted = {w for w in args.searches.split(",") if w}
    print("| level | search | expanded | generated | s | exp/s | peak MiB | ended |")
    print("|---|---|---:|---:|---:|---:|---:|---|")
    for spec in args.levels:
        name, _, number = spec.rpartition(":")
        level = xsb.load(SUITE.get(name, name)).levels[int(number) - 1]
        for entry in _portfolio.entries_for(level) + _portfolio.spare_for(level):
            if wanted and entry.method not in wanted:
                continue
            tables = Tables(level)
            learned = _portfolio.new_shared_learned(tables, options)
            search = _portfolio.make(entry, tables, learned, options).made()
            start = time.process_time()
            # The first 50 expansions load the compiled kernels; a level they settle is
            # settled, not out of positions on the next call.
            run = drive(search, Limits(nodes=50))
            if not (run.solved or run.exhausted):
                start = time.process_time()
                run = drive(search, Limits(nodes=args.nodes), turn=args.time)
            seconds = time.process_time() - start
            limit = "time" if run.limit == "turn" else run.limit
            ended = "solved" if run.solved else "no positions left" if run.exhausted else limit
            expanded = search.expanded
            print(
                f"| {spec} | {entry.label} | {expanded:,} | {int(search.counters[GENERATED]):,}"
                f" | {seconds:.2f} | {expanded / max(seconds, 1e-9):,.0f}"
                f" | {run.peak_bytes / 2**20:,.0f} | {ended} |",
                flush=True,
            )


if __name__ == "__main__":
    main()
