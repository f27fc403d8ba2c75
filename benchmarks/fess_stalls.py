"""Where the feature-space search stalls: for each level, run `fess` (its default keys by
turns unless ``--key`` names others, its default deadlock tests) for a while and print
how far its packing got.

    .venv/bin/python benchmarks/fess_stalls.py -t 20 -l 13,14,16 xsokoban
    .venv/bin/python benchmarks/fess_stalls.py -t 20 -l 14 --show 3 xsokoban
    .venv/bin/python benchmarks/fess_stalls.py -t 20 -l 31 --key features xsokoban
    .venv/bin/python benchmarks/fess_stalls.py -t 10 --unsolved RUN/this.csv

``--unsolved`` takes the levels a suite run (``bench_solver.py --suite dev --csv RUN``)
left unsolved, from every collection of the suite, instead of a collection and ``-l``.

Columns: boxes; the packing order's longest chain of goals that must be filled one after
another; the most plan steps packed in order by any stored position (goals, and the
parking cells of :mod:`sokoban.solve._packing`), of the steps; how many
stored positions have that many packed; expansions; deadlock patterns learned, corral
sub-searches run and how many ran out of budget; how it ended (solved, no positions left:
the tests pruned every position, or the limit). Few positions at the most packed
means the last boxes cannot follow (deadlocks the tests miss, or an order that needs
parking); a low count with many positions means the first goals of the order are out of
reach of the search (long carries, or a wrong order). ``--show N`` prints N of the
positions with the most packed after each row: what the search could not get past.
One level per core, two workers.
"""

from __future__ import annotations

import argparse
import concurrent.futures as cf
import dataclasses
import multiprocessing
from pathlib import Path

from _suite import SUITE, Side


def unsolved(run: Path) -> list[tuple[str, int]]:
    """The (collection, level number) pairs a suite CSV records as not solved, at its
    shorter limit when it holds two (XSokoban's long rows are named ``xsokoban@60s``)."""
    side = Side(run.stem, run.parent, run)
    side.load()
    return [
        (collection, level)
        for (collection, level, _), row in side.rows.items()
        if collection in SUITE and row["status"] != "solved"
    ]


def stall(
    path: str, number: int, seconds: float, show: int, keys: str
) -> tuple[tuple[int | str, ...], list[str]]:
    """The row of one level (see the module docstring) and up to ``show`` positions with
    the most goals packed, as XSB text; ``keys``: fess's key names joined by commas."""
    from sokoban import xsb
    from sokoban.solve._board import Board
    from sokoban.solve._corral_deadlock import OVERS, PATTERNS, SEARCHES, new_learned
    from sokoban.solve._driver import EXHAUSTED, SOLVED
    from sokoban.solve._features import CONNECTIVITY_CAP, OUT_OF_PLAN_CAP
    from sokoban.solve._fess import FESS_KEYS, Fess
    from sokoban.solve._fess_kernel import CELL, P_ROOMS
    from sokoban.solve._packing import packing_order
    from sokoban.solve._pairs import pair_table
    from sokoban.solve._store import NODES
    from sokoban.solve._turns import Entrant, take_turns
    from sokoban.solve.types import Limits

    level = xsb.load(path).levels[number - 1]
    level = getattr(level, "level", level)
    board = Board(level)
    plan = packing_order(board)
    pairs = pair_table(board)
    learned = new_learned(board.n, neighbours=True)
    searches = [
        Fess(board, plan=plan, key=key, pairs=pairs, learned=learned)
        for key in (FESS_KEYS[name] for name in keys.split(","))
    ]
    entrants = [Entrant(str(i), search, proves=True) for i, search in enumerate(searches)]
    found = take_turns(entrants, Limits(time=seconds))
    most = there = 0
    shown: list[str] = []
    for search in searches:
        stored = int(search.counters[NODES])
        per_step = CONNECTIVITY_CAP * int(search.params[P_ROOMS]) * OUT_OF_PLAN_CAP
        packed = search.extra[CELL, :stored] // per_step
        top = int(packed.max())
        count = int((packed == top).sum())
        if top > most:
            most, there, shown = top, count, []
        elif top == most:
            there += count
        else:
            continue
        for node in (packed == top).nonzero()[0][: max(0, show - len(shown))]:
            store = search.store
            boxes = frozenset(int(board.cells[c]) for c in store.boxes[node])
            player = frozenset({int(board.cells[store.player[node]])})
            shown.append(dataclasses.replace(level, boxes=boxes, players=player).xsb())
    counts = learned.counts
    row = (
        number,
        board.nboxes,
        plan.depth,
        most,
        len(plan.steps),
        there,
        found.expanded,
        int(counts[PATTERNS]),
        int(counts[SEARCHES]),
        int(counts[OVERS]),
        {SOLVED: "solved", EXHAUSTED: "no positions left"}.get(found.run.code, found.run.limit),
    )
    return row, shown


def _warm() -> None:
    from sokoban import Level
    from sokoban.solve import solve

    solve(Level.from_xsb("#######\n#@$ $.#\n#   . #\n#######"), "fess")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "collection", nargs="?", help="a suite collection's name (xsokoban, sven ...) or a path"
    )
    parser.add_argument("-t", "--time", type=float, default=20.0, help="seconds per level")
    parser.add_argument("-l", "--levels", help="level numbers, e.g. 13,14,16")
    parser.add_argument("--unsolved", type=Path, help="a suite CSV: the levels it left unsolved")
    parser.add_argument("-w", "--workers", type=int, default=2)
    parser.add_argument("--show", type=int, default=0, help="positions to print per level")
    parser.add_argument(
        "--key", default="weight,mixed", help="fess's keys, by turns (weight,mixed; features ...)"
    )
    args = parser.parse_args()
    if args.unsolved is not None:
        picked = unsolved(args.unsolved)
    elif args.collection and args.levels:
        picked = [(args.collection, int(x)) for x in args.levels.split(",")]
    else:
        parser.error("name a collection and its levels (-l), or --unsolved RUN.csv")
    names = [name for name, _ in picked]
    paths = [str(SUITE.get(name, name)) for name in names]
    numbers = [number for _, number in picked]
    print(
        "| collection | level | boxes | chain | most packed | positions there | expanded | patterns"
        " | sub-searches | over budget | ended |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    context = multiprocessing.get_context("forkserver")
    with cf.ProcessPoolExecutor(args.workers, mp_context=context, initializer=_warm) as pool:
        k = len(numbers)
        rows = pool.map(stall, paths, numbers, [args.time] * k, [args.show] * k, [args.key] * k)
        for name, (row, shown) in zip(names, rows, strict=True):
            n, boxes, chain, most, goals, there, expanded, pats, subs, over, ended = row
            print(
                f"| {name} | {n} | {boxes} | {chain} | {most} / {goals} | {there:,} | {expanded:,}"
                f" | {pats:,} | {subs:,} | {over:,} | {ended} |",
                flush=True,
            )
            for text in shown:
                print(f"\n{text}\n")


if __name__ == "__main__":
    main()
