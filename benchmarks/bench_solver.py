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
import json
import os
import resource
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

# Every method in turn, in a fresh process: the seconds each adds (the first pays for the
# kernels they share: the board's set-up, the deadlock tests, the bounds).
_WARM = (
    "import json; from sokoban.solve import METHODS, bench; "
    "print(json.dumps({m: bench.warm_up(m) for m in METHODS}))"
)


# Every method at once on two processes (``sokoban compile -w 2``).
_WARM_PARALLEL = (
    "import json; from sokoban.solve import bench; print(json.dumps(bench.warm_up_all(workers=2)))"
)


def parallel_compile_seconds() -> float:
    """Wall seconds of ``sokoban compile`` on two processes on a cold numba cache (their
    CPU seconds escape ``getrusage``: the fork server's children are not ours)."""
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache)
        start = time.perf_counter()
        subprocess.run(
            [sys.executable, "-c", _WARM_PARALLEL], env=env, check=True, capture_output=True
        )
        return time.perf_counter() - start


def compile_seconds() -> tuple[float, float, float, dict[str, float]]:
    """Import and run every method once on a cold numba cache, then again warm: (cold wall
    seconds, cold CPU seconds, warm wall seconds, cold seconds per method)."""
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache)
        runs = []
        for _ in range(2):
            cpu = resource.getrusage(resource.RUSAGE_CHILDREN)
            start = time.perf_counter()
            done = subprocess.run(
                [sys.executable, "-c", _WARM], env=env, check=True, capture_output=True, text=True
            )
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            wall = time.perf_counter() - start
            used = after.ru_utime + after.ru_stime - cpu.ru_utime - cpu.ru_stime
            runs.append((wall, used, json.loads(done.stdout.splitlines()[-1])))
    (cold, cold_cpu, per_method), (warm, _, _) = runs
    return cold, cold_cpu, warm, per_method


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
        cold, cold_cpu, warm, per_method = compile_seconds()
        print(
            f"first run of all methods in a fresh process: cold cache {cold:.1f} s "
            f"({cold_cpu:.1f} CPU s), warm cache {warm:.1f} s"
        )
        print("cold, in turn: " + ", ".join(f"{m} {s:.1f}" for m, s in per_method.items()))
        wall = parallel_compile_seconds()
        print(f"sokoban compile -w 2 (cold cache, two processes): {wall:.1f} s")
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
