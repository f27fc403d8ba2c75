"""Benchmark the solver on the public collections and print a table per collection.

    .venv/bin/python benchmarks/bench_solver.py                      # Microban, astar, 10 s
    .venv/bin/python benchmarks/bench_solver.py -m greedy -t 60 xsokoban
    .venv/bin/python benchmarks/bench_solver.py --compile            # kernel compile time
    .venv/bin/python benchmarks/bench_solver.py --suite dev          # the development suite
    .venv/bin/python benchmarks/bench_solver.py --suite dev --sample 20 --seed 1 \
        --compare ../old-checkout --csv /tmp/run1                      # side by side
    .venv/bin/python benchmarks/bench_solver.py --suite dev --max-boxes 10        # small levels
    .venv/bin/python benchmarks/bench_solver.py --suite dev --min-boxes 31        # big levels

``--suite dev`` runs ``fast`` on every collection of the development suite (Microban I
and II, XSokoban, the three Boxoban files, Sven Egevad's and Sasquatch II-VII from
``../shared/levels/dev``) at 10 s a level, XSokoban at 60 s as well (``--long``), and
prints a table per collection and the total; ``--compare`` runs the same levels with
another checkout's code, alternating with this one on the same workers. A suite level's
limit is of CPU seconds (``--clock wall`` for wall seconds): a shared machine's other
work then changes little.

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


def suite(args: argparse.Namespace) -> None:
    """The development suite (see the module), on this checkout and maybe another."""
    from _suite import SUITE, Side, differences, jobs_of, run, table

    names = args.only.split(",") if args.only else list(SUITE)
    jobs = jobs_of(
        names, args.time_limit, args.sample, args.seed, args.long, args.max_boxes, args.min_boxes
    )
    if args.csv is not None:
        args.csv.mkdir(parents=True, exist_ok=True)
    checkouts = [("this", HERE.parent)]
    if args.compare is not None:
        checkouts.append(("other", args.compare.resolve()))
    sides = [
        Side(name, path, args.csv / f"{name}.csv" if args.csv else None) for name, path in checkouts
    ]
    for name, path in checkouts:
        print(f"{name}: {path}", flush=True)
    run(sides, jobs, args.workers or 2, args.resume, args.clock)
    print(table(sides, jobs))
    if len(sides) == 2:
        print(differences(sides, jobs))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("collections", nargs="*", default=["microban"])
    parser.add_argument("-m", "--method", default="astar")
    parser.add_argument("-t", "--time-limit", type=float, default=10.0)
    parser.add_argument("-w", "--workers", type=int, default=None)
    parser.add_argument("-l", "--level", default=None, help="levels of each collection")
    parser.add_argument("--compile", action="store_true", help="measure kernel compile time")
    parser.add_argument("--suite", choices=["dev"], help="the development suite (fast)")
    parser.add_argument("--only", default=None, help="suite collections, comma-separated")
    parser.add_argument("--sample", type=int, default=None, help="levels per collection")
    parser.add_argument("--seed", type=int, default=1, help="seed of the sample")
    parser.add_argument(
        "--max-boxes", type=int, default=None, help="only the suite's levels of at most N boxes"
    )
    parser.add_argument(
        "--min-boxes", type=int, default=None, help="only the suite's levels of at least N boxes"
    )
    parser.add_argument("--long", type=float, default=60.0, help="XSokoban again at this limit")
    parser.add_argument("--compare", type=Path, default=None, help="another checkout")
    parser.add_argument("--csv", type=Path, default=None, help="directory of per-level CSVs")
    parser.add_argument(
        "--clock", choices=["cpu", "wall"], default="cpu", help="what a suite limit counts"
    )
    parser.add_argument("--resume", action="store_true", help="keep the CSVs' rows, run the rest")
    args = parser.parse_args()
    if args.suite:
        suite(args)
        return
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
