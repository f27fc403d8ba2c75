"""Make the built-in collection that ``sokoban serve`` offers with no FILE.

    .venv/bin/python benchmarks/make_builtin.py            # writes sokoban/web/levels/builtin.sok
    .venv/bin/python benchmarks/make_builtin.py -o /tmp/b.sok --budget 60

Levels come from our own generator (:func:`sokoban.generate.generate`) with fixed seeds, so
the file is reproducible on the same solver release (the difficulty score counts solver
nodes, so a solver change may pick other levels). Each band asks for a few board sizes
that play well in a browser window; every level is solved push-optimally by ``astar`` (the
generator does this before it keeps a level) and carries its solution and its optimal
moves and pushes. The run is bounded: each request has a time budget (``--budget``), and
one process does the work (``workers=0``) so a shared machine stays usable.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from sokoban import Level, xsb
from sokoban.generate import generate

OUTPUT = Path(__file__).resolve().parents[1] / "sokoban" / "web" / "levels" / "builtin.sok"

#: (band, (width, height), boxes, layout, count, seed): what the collection holds, in order.
PLAN = [
    ("easy", (8, 8), 2, "walk", 6, 101),
    ("easy", (8, 8), 3, "walk", 6, 102),
    ("medium", (8, 8), 3, "walk", 6, 201),
    ("medium", (9, 9), 4, "walk", 6, 202),
    ("hard", (9, 9), 4, "walk", 6, 301),
    ("hard", (10, 10), 4, "walk", 6, 302),
    ("expert", (10, 10), 4, "walk", 4, 401),
    ("expert", (11, 10), 5, "rooms", 4, 402),
    ("expert", (12, 10), 5, "rooms", 4, 403),
]

# The header is the collection's description on the start page: written for players (the
# file's origin is in this script's docstring).
HEADER = """Built-in levels
Puzzles from easy to expert, each with its shortest solution in pushes."""


def trimmed(level: Level) -> Level:
    """The level without the solid wall the generator leaves around the room: walls that
    touch no interior cell (diagonals included) become outside space, and the board is cut
    to the room's bounding box plus one wall. Moves are relative, so solutions still play."""
    interior = level.interior
    xs = [c % level.width for c in interior]
    ys = [c // level.width for c in interior]
    x0, y0 = min(xs) - 1, min(ys) - 1
    width, height = max(xs) - x0 + 2, max(ys) - y0 + 2

    def moved(cells: frozenset[int]) -> frozenset[int]:
        return frozenset((c // level.width - y0) * width + c % level.width - x0 for c in cells)

    near = {
        (c // level.width + dy) * level.width + c % level.width + dx
        for c in interior
        for dy in (-1, 0, 1)
        for dx in (-1, 0, 1)
    }
    return Level(
        width,
        height,
        moved(level.walls & near),
        moved(level.goals),
        moved(level.boxes),
        moved(level.players),
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("-o", "--output", type=Path, default=OUTPUT)
    parser.add_argument("--budget", type=float, default=120.0, help="seconds per request")
    args = parser.parse_args()
    levels = []
    numbers: dict[str, int] = {}
    started = time.perf_counter()
    for band, size, boxes, layout, count, seed in PLAN:
        report = generate(
            size,
            boxes,
            count,
            difficulty=band,
            seed=seed,
            layout=layout,
            workers=0,
            budget=args.budget,
            seconds=30.0,
        )
        print(f"{band:7} {size[0]}x{size[1]} {boxes} boxes {layout:6}: {report.summary()}")
        for generated in report.levels:
            numbers[band] = numbers.get(band, 0) + 1
            replay = generated.level.replay(generated.solution)
            d = generated.difficulty
            level = trimmed(generated.level).with_metadata(
                title=f"{band.capitalize()} {numbers[band]}",
                author="sokoban generate",
                metadata=(
                    ("Difficulty", f"{d.score} ({d.band})"),
                    ("Moves", str(replay.metrics.moves)),
                    ("Pushes", str(replay.metrics.pushes)),
                    ("Generator", f"seed {seed}, attempt {generated.attempt}, {layout}"),
                ),
                solutions=(generated.solution.lurd(),),
            )
            levels.append(level)
    xsb.dump(levels, args.output, header=HEADER)
    print(f"{len(levels)} levels -> {args.output} in {time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
