"""Benchmark the solver on the public collections and print a table per collection.

    .venv/bin/python benchmarks/bench_solver.py                      # Microban, astar, 10 s
    .venv/bin/python benchmarks/bench_solver.py -m greedy -t 60 xsokoban
    .venv/bin/python benchmarks/bench_solver.py --compile            # kernel compile time

Collections are named by short name (microban, microban2, xsokoban, boxoban-unfiltered,
boxoban-medium, boxoban-hard) or given as paths. Per-level rows go to
benchmarks/results/<method>-<collection>.csv (not committed). The machine is shared, so
figures are noisy: compare ratios measured side by side.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
SHARED = HERE.parents[1] / "shared" / "levels"
COLLECTIONS = {
    "microban": SHARED / "microban.xsb",
    "microban2": SHARED / "microban2.xsb",
    "xsokoban": SHARED / "xsokoban.xsb",
    "boxoban-unfiltered": SHARED / "boxoban" / "unfiltered_test_000.txt",
    "boxoban-medium": SHARED / "boxoban" / "medium_valid_000.txt",
    "boxoban-hard": SHARED / "boxoban" / "hard_000.txt",
}

_WARM = (
    "import time; t = time.perf_counter(); from sokoban.solve import bench; "
    "[bench.warm_up(m) for m in ('astar', 'moves', 'bfs', 'greedy', 'wastar', 'fess')]; "
    "print(time.perf_counter() - t)"
)


def compile_seconds() -> tuple[float, float]:
    """Seconds to import and run every method once on a cold numba cache, then warm."""
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache)
        times = []
        for _ in range(2):
            start = time.perf_counter()
            subprocess.run([sys.executable, "-c", _WARM], env=env, check=True, capture_output=True)
            times.append(time.perf_counter() - start)
    return times[0], times[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("collections", nargs="*", default=["microban"])
    parser.add_argument("-m", "--method", default="astar")
    parser.add_argument("-t", "--time-limit", type=float, default=10.0)
    parser.add_argument("-w", "--workers", type=int, default=None)
    parser.add_argument("-l", "--level", default=None, help="levels of each collection")
    parser.add_argument("--compile", action="store_true", help="measure kernel compile time")
    args = parser.parse_args()
    if args.compile:
        cold, warm = compile_seconds()
        print(
            f"first run of all methods in a fresh process: cold cache {cold:.1f} s, "
            f"warm cache {warm:.1f} s"
        )
        return
    from sokoban.cli import main as cli

    results = HERE / "results"
    results.mkdir(exist_ok=True)
    for name in args.collections:
        path = COLLECTIONS.get(name, Path(name))
        out = results / f"{args.method}-{Path(name).stem}.csv"
        argv = ["bench", str(path), "-m", args.method, "-t", str(args.time_limit)]
        argv += ["--csv", str(out)]
        if args.workers is not None:
            argv += ["-w", str(args.workers)]
        if args.level is not None:
            argv += ["-l", args.level]
        print(f"$ sokoban {' '.join(argv)}", flush=True)
        cli.main(argv, standalone_mode=False)


if __name__ == "__main__":
    main()
