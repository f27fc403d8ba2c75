"""Run a peer solver, YASS, on the development suite's levels and keep its results in the
suite's CSV format, so that ``suite_table.py`` sets them beside ours.

YASS is not part of this project: build it yourself from its public source (the
repository joriswit/YASS, ``app/src/main/jni-pascal/YASS.pas`` with its
``CONSOLE_APPLICATION`` define on, compiled by Debian's Free Pascal: ``fpc -O3 YASS.pas``)
and give the binary's path. Its time limit is of wall seconds.

    .venv/bin/python benchmarks/bench_yass.py --yass /tmp/yass/YASS --sample 12 --seed 3 \
        --csv /tmp/yass-run                                # then suite_table.py A.csv B.csv
"""

from __future__ import annotations

import argparse
import csv
import re
import subprocess
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from _suite import FIELDS, SUITE, Job, jobs_of


def run_one(yass: Path, job: Job, memory: int) -> dict:
    """YASS on one level: a row of the suite's CSV."""
    from sokoban.xsb import format_board, load

    level = load(job.path).levels[job.index]
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "level.xsb"
        path.write_text(format_board(level) + "\n")
        start = time.perf_counter()
        found = subprocess.run(
            [str(yass), path.name, "-maxtime", f"{job.seconds:g}", "-prompt", "no"]
            + ["-memory", str(memory)],
            capture_output=True,
            text=True,
            cwd=folder,
            timeout=job.seconds * 3 + 60,
        )
        seconds = time.perf_counter() - start
        stats = next(Path(folder).glob("*Statistics.txt"), None)
        text = stats.read_text(errors="replace") if stats else ""
    return {**parse(found.stdout, text), "peak_bytes": memory << 20, "seconds": round(seconds, 3)}


def parse(out: str, stats: str) -> dict:
    """The status, pushes and positions of one YASS run, from what it printed (``out``)
    and its statistics file (``stats``)."""
    pushes = re.search(r"Solution: Pushes: (\d+)", out)
    status = "solved" if pushes else "unsolvable" if "not solvable" in out else "time limit"
    generated = _generated(stats)
    return {
        "status": status,
        "pushes": int(pushes.group(1)) if pushes else "",
        "moves": "",
        "expanded": generated,  # YASS counts positions generated
        "generated": generated,
        "message": "YASS",
    }


def _generated(text: str) -> int:
    """The positions YASS generated, read from its statistics table: the number whose
    right edge lines up with the header's "Positions"."""
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if "Positions" in line and "Name" in line:
            edge = line.index("Positions") + len("Positions")
            for row in lines[i + 2 :]:
                for number in re.finditer(r"\d+", row):
                    if number.end() == edge:
                        return int(number.group())
    return 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--yass", type=Path, required=True, help="the YASS binary")
    parser.add_argument("--only", default=None, help="collections, comma-separated")
    parser.add_argument("-t", "--time", type=float, default=10.0)
    parser.add_argument("--sample", type=int, default=None)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("-w", "--workers", type=int, default=1)
    parser.add_argument("--memory", type=int, default=128, help="YASS's table, MiB")
    parser.add_argument("--csv", type=Path, required=True, help="a folder for yass.csv")
    args = parser.parse_args()
    names = args.only.split(",") if args.only else list(SUITE)
    jobs = jobs_of(names, args.time, args.sample, args.seed, 0)
    args.csv.mkdir(parents=True, exist_ok=True)
    path = args.csv / "yass.csv"
    done = set()
    if path.exists():
        with path.open() as handle:
            done = {(r["collection"], int(r["level"])) for r in csv.DictReader(handle)}
    todo = [job for job in jobs if (job.collection, job.index + 1) not in done]

    def work(job: Job) -> tuple[Job, dict]:
        return job, run_one(args.yass, job, args.memory)

    with ThreadPoolExecutor(args.workers) as pool, path.open("a", newline="") as handle:
        writer = csv.DictWriter(handle, FIELDS)
        if not done:
            writer.writeheader()
        for n, (job, answer) in enumerate(pool.map(work, todo), 1):
            writer.writerow(
                {"collection": job.collection, "level": job.index + 1,
                 "seconds_limit": job.seconds, **{k: answer[k] for k in FIELDS[3:]}}
            )  # fmt: skip
            handle.flush()
            print(f"{n}/{len(todo)} {job.collection} {job.index + 1}: {answer['status']}")


if __name__ == "__main__":
    main()
