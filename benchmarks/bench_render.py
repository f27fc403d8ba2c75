"""Solutions as pictures: the time to draw a long solution and the weight of each format.

    .venv/bin/python benchmarks/bench_render.py              # 1,000 pushes, 32 pixels a cell
    .venv/bin/python benchmarks/bench_render.py --pushes 200 --cell 16

The level is a room 3 rows high and 50 cells long; the solution pushes its box from end to
end until it has made about ``--pushes`` pushes, the last run ending on the goal. Prints,
per format and frame kind (a frame per push, a frame per move), the frames, seconds to
draw and encode, and bytes (or "refused" past render.MAX_ANIMATION_BYTES of frames); also
Microban 1's solution (33 moves) in every format, and the process's peak memory.
"""

from __future__ import annotations

import argparse
import resource
import time
from pathlib import Path

from rich.console import Console
from rich.table import Table

from sokoban import Level, PictureTooLargeError, render, xsb
from sokoban.lurd import Replay

LENGTH = 50  # interior cells of the long room
MICROBAN_1 = "dlUrrrdLullddrUluRuulDrddrruLdlUU"


def long_solution(pushes: int) -> Replay:
    """A replay of at least ``pushes`` pushes: the box goes from end to end and back."""
    width = LENGTH + 2
    rows = ["#" * width, "#" + " " * LENGTH + "#", "", "#" + " " * LENGTH + "#", "#" * width]
    rows[2] = "#@$" + " " * (LENGTH - 3) + ".#"
    level = Level.from_xsb("\n".join(rows))
    span = LENGTH - 3  # pushes from one end to the other (box from x=2 to x=LENGTH-1)
    steps: list[str] = []
    done = 0
    rightwards = True
    while True:
        steps.append(("R" if rightwards else "L") * span)
        done += span
        if done >= pushes and rightwards:
            break
        # Walk round the box (over the top row) to push it back.
        steps.append("urrd" if rightwards else "ulld")
        rightwards = not rightwards
    # The last run left the box one short of the goal at x=LENGTH: one more push.
    steps.append("R")
    return level.replay("".join(steps))


def measure(played: Replay, cell: int, label: str, table: Table) -> None:
    formats = ["gif", "apng", "webp", "svg"]
    for every in ("push", "move"):
        frames = sum(1 for _ in played.frames(every))
        for kind in formats:
            start = time.perf_counter()
            try:
                data = render.animation(played, kind, cell=cell, every=every, speed=20)
            except PictureTooLargeError:
                table.add_row(label, kind, every, f"{frames:,}", "refused", "(over the cap)")
                continue
            seconds = time.perf_counter() - start
            table.add_row(
                label, kind, every, f"{frames:,}", f"{seconds:.2f}", f"{len(data) / 1024:,.1f}"
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pushes", type=int, default=1000)
    parser.add_argument("--cell", type=int, default=32)
    args = parser.parse_args()
    played = long_solution(args.pushes)
    assert played.is_solved
    table = Table(title=f"solutions as pictures, {args.cell} pixels a cell")
    for column in ("solution", "format", "a frame per", "frames", "seconds", "KiB"):
        table.add_column(column, justify="left" if column in ("solution", "format") else "right")
    label = f"{played.metrics.pushes:,} pushes, {played.metrics.moves:,} moves"
    measure(played, args.cell, label, table)
    microban = xsb.load(
        Path(__file__).resolve().parents[1] / "tests" / "data" / "public" / "microban.xsb"
    )
    measure(microban[0].replay(MICROBAN_1), args.cell, "Microban 1 (8 pushes, 33 moves)", table)
    still = len(render.png(played.start, cell=args.cell)), len(render.svg(played.start, args.cell))
    Console(width=120).print(table)
    print(f"the long room still: PNG {still[0] / 1024:.1f} KiB, SVG {still[1] / 1024:.1f} KiB")
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak memory of this process: {peak:,.0f} MiB")


if __name__ == "__main__":
    main()
