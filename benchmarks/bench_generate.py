"""Benchmark the level generator and print tables.

    .venv/bin/python benchmarks/bench_generate.py                       # all sections
    .venv/bin/python benchmarks/bench_generate.py --count 300 --sections speed
    .venv/bin/python benchmarks/bench_generate.py --gym-python /tmp/gymvenv/bin/python

Sections:

- ``speed``: verified, optimally solved 10 x 10 levels with 4 boxes per minute on one core
  (``workers=0``), per layout, with every rejected attempt counted by reason.
- ``bands``: levels generated for each difficulty band: optimal pushes and solver nodes.
- ``boxoban``: Boxoban's hard split (``../shared/levels/boxoban/hard_000.txt``) solved by the
  same optimal solver, beside generated hard levels.
- ``calibrate``: score percentiles of Boxoban's unfiltered, medium and hard splits, the
  reference the bands of ``docs/generator.md`` are cut on.
- ``gym``: gym-sokoban's ``generate_room`` (10 x 10, 4 boxes, the environment's defaults),
  run by ``--gym-python`` (a scratch venv with gym-sokoban installed; it is not a project
  dependency); its rooms are then solved by our solver to see which are solvable and how
  hard they are. A try over ``--gym-cap`` seconds is stopped and counted as failed.

The machine is shared: figures are noisy, compare the ratios measured side by side. CPU
seconds are printed beside wall seconds for that reason.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

from rich.console import Console
from rich.table import Table

HERE = Path(__file__).resolve().parent
BOXOBAN_HARD = HERE.parents[1] / "shared" / "levels" / "boxoban" / "hard_000.txt"
console = Console(width=150)


def _median(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


def _pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def speed(count: int, seed: int) -> None:
    from sokoban.generate import generate

    generate((10, 10), 4, count=2, seed=seed)  # load the kernels before timing
    table = Table(title=f"10x10, 4 boxes, {count} levels per layout, one core (workers=0)")
    for name in (
        "layout",
        "levels",
        "attempts",
        "rejected",
        "wall s",
        "cpu s",
        "levels/min/core",
        "median pushes",
        "median nodes",
    ):
        table.add_column(name, justify="left" if name in ("layout", "rejected") else "right")
    for layout in ("walk", "templates", "rooms", "obstacles"):
        wall, cpu = time.perf_counter(), time.process_time()
        report = generate((10, 10), 4, count=count, seed=seed, layout=layout, workers=0)
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        rejected = ", ".join(f"{n} {why}" for why, n in sorted(report.rejected.items())) or "0"
        table.add_row(
            layout,
            str(len(report.levels)),
            str(report.attempts),
            rejected,
            f"{wall:.1f}",
            f"{cpu:.1f}",
            f"{60 * len(report.levels) / cpu:.0f}",
            f"{_median([g.difficulty.pushes for g in report.levels]):.0f}",
            f"{_median([g.difficulty.nodes for g in report.levels]):.0f}",
        )
    console.print(table)


def _band_rows(levels: list[tuple[int, int, float]]) -> list[str]:
    pushes = [p for p, _, _ in levels]
    nodes = [n for _, n, _ in levels]
    scores = [s for _, _, s in levels]
    return [
        str(len(levels)),
        f"{_median(pushes):.0f}",
        f"{statistics.mean(pushes):.1f}" if pushes else "nan",
        f"{_median(nodes):.0f}",
        f"{statistics.mean(nodes):.0f}" if nodes else "nan",
        f"{_pct(nodes, 0.9):.0f}",
        f"{_median(scores):.1f}",
    ]


def _band_table(title: str) -> Table:
    table = Table(title=title)
    for name in (
        "set",
        "levels",
        "median pushes",
        "mean pushes",
        "median nodes",
        "mean nodes",
        "p90 nodes",
        "median score",
        "attempts / level",
    ):
        table.add_column(name, justify="left" if name == "set" else "right")
    return table


def bands(count: int, seed: int) -> None:
    from sokoban.generate import generate

    table = _band_table(f"Difficulty bands, 10x10, 4 boxes, walk layout, {count} levels each")
    for band in ("easy", "medium", "hard", "expert"):
        report = generate((10, 10), 4, count=count, seed=seed, difficulty=band)
        rows = [
            (g.difficulty.pushes, g.difficulty.nodes, g.difficulty.score) for g in report.levels
        ]
        table.add_row(band, *_band_rows(rows), f"{report.attempts / max(1, len(rows)):.1f}")
    console.print(table)


def boxoban(count: int, seed: int) -> None:
    from sokoban.generate import generate, measure
    from sokoban.solve import Limits, solve
    from sokoban.xsb import iter_levels

    if not BOXOBAN_HARD.exists():
        console.print(f"[yellow]skipped: {BOXOBAN_HARD} is missing")
        return
    table = _band_table(f"Boxoban hard vs generated hard (astar, first {count} levels)")
    rows = []
    unsolved = 0
    for level in list(iter_levels(str(BOXOBAN_HARD)))[:count]:
        result = solve(level, "astar", Limits(nodes=2_000_000, time=60))
        if not result.solved or result.solution is None:
            unsolved += 1
            continue
        d = measure(level, result.solution, result.stats.expanded)
        rows.append((d.pushes, d.nodes, d.score))
    table.add_row(f"Boxoban hard ({unsolved} unsolved)", *_band_rows(rows), "")
    for layout in ("walk", "rooms"):
        report = generate((10, 10), 4, count=count, seed=seed, difficulty="hard", layout=layout)
        rows = [
            (g.difficulty.pushes, g.difficulty.nodes, g.difficulty.score) for g in report.levels
        ]
        table.add_row(
            f"generated hard, {layout}",
            *_band_rows(rows),
            f"{report.attempts / max(1, len(rows)):.1f}",
        )
    console.print(table)


def calibrate(count: int) -> None:
    """Score percentiles of the three Boxoban splits: the reference the bands are cut on."""
    from sokoban.generate import measure
    from sokoban.solve import Limits, solve
    from sokoban.xsb import iter_levels

    table = Table(title=f"Boxoban splits by the difficulty score (astar, first {count} levels)")
    for name in (
        "split",
        "levels",
        "median pushes",
        "median nodes",
        "score p10",
        "p25",
        "median",
        "p75",
        "p90",
    ):
        table.add_column(name, justify="left" if name == "split" else "right")
    for split in ("unfiltered_test_000", "medium_valid_000", "hard_000"):
        path = BOXOBAN_HARD.parent / f"{split}.txt"
        if not path.exists():
            continue
        rows = []
        for level in list(iter_levels(str(path)))[:count]:
            result = solve(level, "astar", Limits(nodes=2_000_000, time=60))
            if result.solved and result.solution is not None:
                d = measure(level, result.solution, result.stats.expanded)
                rows.append((d.pushes, d.nodes, d.score))
        scores = [s for _, _, s in rows]
        table.add_row(
            split,
            str(len(rows)),
            f"{_median([p for p, _, _ in rows]):.0f}",
            f"{_median([n for _, n, _ in rows]):.0f}",
            *(f"{_pct(scores, q):.1f}" for q in (0.1, 0.25, 0.5, 0.75, 0.9)),
        )
    console.print(table)


# Run by the scratch venv's python: time gym-sokoban's generate_room, one JSON line per try.
_GYM_SCRIPT = r"""
import json, random, signal, sys, time
import numpy as np
from gym_sokoban.envs.room_utils import generate_room
count, seed, cap = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
random.seed(seed); np.random.seed(seed)

def alarm(signum, frame):
    raise TimeoutError(f"over {cap} s")

signal.signal(signal.SIGALRM, alarm)
for i in range(count):
    start = time.perf_counter(); cpu = time.process_time()
    signal.alarm(cap)
    try:
        fixed, state, _ = generate_room(dim=(10, 10), num_steps=int(1.7 * 20), num_boxes=4)
        error = ""
    except BaseException as e:  # RuntimeWarning (score 0), RecursionError, our timeout
        fixed = state = None
        error = type(e).__name__
    signal.alarm(0)
    record = {"seconds": time.perf_counter() - start, "cpu": time.process_time() - cpu,
              "error": error}
    if fixed is not None:
        record["fixed"] = fixed.astype(int).tolist()
        record["state"] = state.astype(int).tolist()
    print(json.dumps(record), flush=True)
"""


def _gym_level(fixed: list[list[int]], state: list[list[int]]):  # type: ignore[no-untyped-def]
    from sokoban import Level

    rows = []
    for frow, srow in zip(fixed, state, strict=True):
        row = ""
        for f, s in zip(frow, srow, strict=True):
            goal = f == 2
            if s == 0:
                row += "#"
            elif s in (3, 4):
                row += "*" if goal else "$"
            elif s == 5:
                row += "+" if goal else "@"
            else:
                row += "." if goal else " "
        rows.append(row)
    return Level.from_xsb("\n".join(rows))


def gym(python: str, count: int, seed: int, cap: int) -> None:
    from sokoban.generate import generate, measure
    from sokoban.solve import Limits, solve

    out = subprocess.run(
        [python, "-c", _GYM_SCRIPT, str(count), str(seed), str(cap)],
        capture_output=True,
        text=True,
        check=False,
    )
    records = [json.loads(line) for line in out.stdout.splitlines() if line.startswith("{")]
    if not records:
        console.print(f"[red]gym-sokoban did not run: {out.stderr.strip()[-300:]}")
        return
    errors: dict[str, int] = {}
    rows = []
    unsolved = trivial = 0
    for r in records:
        if r["error"]:
            errors[r["error"]] = errors.get(r["error"], 0) + 1
            continue
        level = _gym_level(r["fixed"], r["state"])
        if level.is_solved:
            trivial += 1
            continue
        result = solve(level, "astar", Limits(nodes=2_000_000, time=60))
        if not result.solved or result.solution is None:
            unsolved += 1
            continue
        d = measure(level, result.solution, result.stats.expanded)
        rows.append((d.pushes, d.nodes, d.score))
    seconds = [r["seconds"] for r in records]
    cpu = sum(r["cpu"] for r in records)

    generate((10, 10), 4, count=2, seed=seed + 1)  # load the kernels before timing
    wall = time.perf_counter()
    cpu_ours = time.process_time()
    report = generate((10, 10), 4, count=count, seed=seed, workers=0)
    wall = time.perf_counter() - wall
    cpu_ours = time.process_time() - cpu_ours
    ours = [(g.difficulty.pushes, g.difficulty.nodes, g.difficulty.score) for g in report.levels]

    table = Table(
        title=f"gym-sokoban generate_room vs ours, 10x10, 4 boxes, {count} tries, one core"
    )
    for name in (
        "generator",
        "tries",
        "failed",
        "levels",
        "verified",
        "median s/try",
        "p90 s/try",
        "levels/min (cpu)",
        "median pushes",
        "median nodes",
    ):
        table.add_column(name, justify="left" if name in ("generator", "failed") else "right")
    failed = ", ".join(f"{n} {e}" for e, n in errors.items()) or "0"
    if trivial:
        failed += f", {trivial} already solved"
    table.add_row(
        "gym-sokoban 0.0.6",
        str(len(records)),
        failed,
        str(len(records) - sum(errors.values())),
        f"{len(rows)} solved, {unsolved} not",
        f"{_median(seconds):.3f}",
        f"{_pct(seconds, 0.9):.3f}",
        f"{60 * (len(records) - sum(errors.values())) / cpu:.0f}",
        f"{_median([p for p, _, _ in rows]):.0f}",
        f"{_median([n for _, n, _ in rows]):.0f}",
    )
    table.add_row(
        "sokoban.generate (walk)",
        str(report.attempts),
        ", ".join(f"{n} {w}" for w, n in report.rejected.items()) or "0",
        str(len(ours)),
        f"{len(ours)} optimal",
        f"{wall / max(1, report.attempts):.3f}",
        "",
        f"{60 * len(ours) / cpu_ours:.0f}",
        f"{_median([p for p, _, _ in ours]):.0f}",
        f"{_median([n for _, n, _ in ours]):.0f}",
    )
    console.print(table)
    console.print("gym-sokoban times do not include solving; ours include optimal verification.")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sections", default="speed,bands,boxoban,gym,calibrate")
    parser.add_argument("--count", type=int, default=200, help="levels per layout (speed)")
    parser.add_argument("--band-count", type=int, default=50, help="levels per band")
    parser.add_argument("--boxoban", type=int, default=200, help="Boxoban hard levels")
    parser.add_argument("--gym-python", default="/tmp/gymvenv/bin/python")
    parser.add_argument("--gym-count", type=int, default=100)
    parser.add_argument("--gym-cap", type=int, default=60, help="seconds per gym try")
    parser.add_argument("--seed", type=int, default=2024)
    args = parser.parse_args()
    sections = set(args.sections.split(","))
    if "speed" in sections:
        speed(args.count, args.seed)
    if "bands" in sections:
        bands(args.band_count, args.seed)
    if "boxoban" in sections:
        boxoban(args.boxoban, args.seed)
    if "calibrate" in sections:
        calibrate(args.boxoban)
    if "gym" in sections:
        if Path(args.gym_python).exists():
            gym(args.gym_python, args.gym_count, args.seed, args.gym_cap)
        else:
            console.print(f"[yellow]gym section skipped: no {args.gym_python}")


if __name__ == "__main__":
    sys.exit(main())
