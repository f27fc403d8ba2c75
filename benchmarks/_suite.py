"""The development suite: every collection the solver is judged on, run level by level in
worker processes (``_suite_worker.py``), optionally against a second checkout side by
side, with a table per collection and a total.

Each worker is a long-lived process of one checkout (its ``sokoban`` first on
``PYTHONPATH``), so compiled kernels load once. A worker that does not answer within
:data:`WALL_FACTOR` times the level's limit plus a minute is killed and the level counts as lost
(``hang``); a worker that dies is restarted (``crash``). Levels of the two checkouts
alternate on the same workers' slots, so that a busy machine slows both alike. By
default a level's limit is of CPU time (``clock`` "cpu"), which other processes on a
shared machine do not take from; "wall" makes it wall time, as a user's limit is.
"""

from __future__ import annotations

import csv
import json
import os
import random
import select
import subprocess
import sys
import time
from collections.abc import Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
# The shared level collections: beside the checkout (``../shared/levels``), or the first
# such folder up the tree (a checkout kept elsewhere), or where SOKOBAN_LEVELS says.
SHARED = Path(
    os.environ.get("SOKOBAN_LEVELS")
    or next(
        (p / "shared" / "levels" for p in HERE.parents if (p / "shared" / "levels").is_dir()),
        HERE.parents[1] / "shared" / "levels",
    )
)
WORKER = HERE / "_suite_worker.py"
#: The worker's backstop of wall time, as a multiple of a level's limit (its own is 20).
WALL_FACTOR = 25

#: The suite: short name, file. Boxoban files hold 1,000 levels each.
SUITE: dict[str, Path] = {
    "microban": SHARED / "microban.xsb",
    "microban2": SHARED / "microban2.xsb",
    "xsokoban": SHARED / "xsokoban.xsb",
    "boxoban-unfiltered": SHARED / "boxoban" / "unfiltered_test_000.txt",
    "boxoban-medium": SHARED / "boxoban" / "medium_valid_000.txt",
    "boxoban-hard": SHARED / "boxoban" / "hard_000.txt",
    "sven": SHARED / "dev" / "sven_odd.xsb",
    **{
        f"sasquatch-{n}": SHARED / "dev" / f"sasquatch_{n}.xsb"
        for n in ("ii", "iii", "iv", "v", "vi", "vii")
    },
}
FIELDS = (
    "collection",
    "level",
    "seconds_limit",
    "status",
    "pushes",
    "moves",
    "expanded",
    "generated",
    "peak_bytes",
    "seconds",
    "message",
)


@dataclass(frozen=True)
class Job:
    """One level of one collection at one time limit."""

    collection: str
    path: Path
    index: int  # 0-based
    seconds: float

    @property
    def key(self) -> tuple[str, int, float]:
        return (self.collection, self.index + 1, self.seconds)


def levels_with_boxes(path: Path, most: int | None = None, least: int | None = None) -> list[int]:
    """The 0-based indexes of the levels of ``path`` with at most ``most`` and at least
    ``least`` boxes (``None``: no bound)."""
    from sokoban.xsb import load

    levels = (getattr(entry, "level", entry) for entry in load(path).levels)
    return [
        i
        for i, level in enumerate(levels)
        if (most is None or len(level.boxes) <= most)
        and (least is None or len(level.boxes) >= least)
    ]


def jobs_of(
    names: Sequence[str],
    seconds: float,
    sample: int | None,
    seed: int,
    long: float,
    max_boxes: int | None = None,
    min_boxes: int | None = None,
) -> list[Job]:
    """The jobs of the named collections: every level, or a fixed sample of ``sample``
    levels of each (by ``seed``); XSokoban once more at ``long`` seconds when > 0. With
    ``max_boxes`` (``min_boxes``), only the levels of at most (at least) that many boxes,
    then sampled: where a change touches the small (big) levels' portfolio alone."""
    jobs = []
    for name in names:
        path = SUITE.get(name, Path(name))
        candidates = levels_with_boxes(path, max_boxes, min_boxes)
        picked = candidates
        if sample is not None and sample < len(candidates):
            # The seed alone names the same sample as before the box filter existed.
            salt = f"{seed}:{name}" + ("" if max_boxes is None else f":{max_boxes}")
            salt += "" if min_boxes is None else f":from {min_boxes}"
            picked = sorted(random.Random(salt).sample(candidates, sample))
        collection = name if name in SUITE else path.stem
        jobs += [Job(collection, path, i, seconds) for i in picked]
        if long > 0 and name == "xsokoban":
            jobs += [Job(f"{collection}@{long:g}s", path, i, long) for i in picked]
    return jobs


class Worker:
    """A worker process of one checkout."""

    def __init__(self, checkout: Path, clock: str = "cpu") -> None:
        self.checkout = checkout
        self.clock = clock
        self.process: subprocess.Popen[str] | None = None

    def start(self) -> None:
        env = dict(os.environ, PYTHONPATH=str(self.checkout))
        env.pop("SOKOBAN_SAMPLE", None)
        self.process = subprocess.Popen(
            [sys.executable, str(WORKER)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            env=env,
            cwd=self.checkout,
        )
        ready = self._read(900)
        if ready is None or not str(ready["ready"]).startswith(str(self.checkout)):
            raise RuntimeError(f"the worker of {self.checkout} did not start: {ready}")

    def _read(self, timeout: float) -> dict | None:
        assert self.process is not None and self.process.stdout is not None
        ready, _, _ = select.select([self.process.stdout], [], [], timeout)
        if not ready:
            return None
        line = self.process.stdout.readline()
        return json.loads(line) if line else None

    def kill(self) -> None:
        if self.process is not None:
            self.process.kill()
            self.process.wait()
            self.process = None

    def run(self, job: Job) -> dict:
        if self.process is None or self.process.poll() is not None:
            self.start()
        assert self.process is not None and self.process.stdin is not None
        line = {
            "path": str(job.path),
            "index": job.index,
            "method": "fast",
            "seconds": job.seconds,
            "clock": self.clock,
        }
        try:
            self.process.stdin.write(json.dumps(line) + "\n")
            self.process.stdin.flush()
            answer = self._read(WALL_FACTOR * job.seconds + 60)
        except (BrokenPipeError, ValueError):
            answer = None
        if answer is None:
            dead = self.process.poll() is not None
            self.kill()
            return {"status": "crash" if dead else "hang", "seconds": job.seconds}
        return answer


@dataclass
class Side:
    """The results of one checkout, per job key, kept in a CSV as they come."""

    name: str
    checkout: Path
    csv_path: Path | None
    rows: dict[tuple[str, int, float], dict] = field(default_factory=dict)

    def load(self) -> None:
        if self.csv_path is None or not self.csv_path.exists():
            return
        with self.csv_path.open() as handle:
            for row in csv.DictReader(handle):
                key = (row["collection"], int(row["level"]), float(row["seconds_limit"]))
                self.rows[key] = row

    def add(self, job: Job, answer: dict) -> None:
        row = {
            "collection": job.collection,
            "level": job.index + 1,
            "seconds_limit": job.seconds,
            **{k: answer.get(k) for k in FIELDS[3:]},
        }
        self.rows[job.key] = row
        if self.csv_path is None:
            return
        new = not self.csv_path.exists()
        with self.csv_path.open("a", newline="") as handle:
            writer = csv.DictWriter(handle, FIELDS)
            if new:
                writer.writeheader()
            writer.writerow(row)


def run(sides: list[Side], jobs: list[Job], workers: int, resume: bool, clock: str = "cpu") -> None:
    """Every job on every side, ``workers`` at a time, a side's jobs alternating."""
    if resume:
        for side in sides:
            side.load()
    todo = [(side, job) for job in jobs for side in sides if job.key not in side.rows]
    pools = [{side.name: Worker(side.checkout, clock) for side in sides} for _ in range(workers)]
    done = 0
    start = time.perf_counter()

    def slot(k: int) -> None:
        nonlocal done
        for side, job in todo[k::workers]:
            answer = pools[k][side.name].run(job)
            side.add(job, answer)
            done += 1
            if done % 25 == 0 or done == len(todo):
                print(
                    f"  {done}/{len(todo)} runs, {time.perf_counter() - start:.0f} s",
                    file=sys.stderr,
                    flush=True,
                )

    try:
        with ThreadPoolExecutor(workers) as pool:
            list(pool.map(slot, range(workers)))
    finally:
        for pool_ in pools:
            for worker in pool_.values():
                worker.kill()


@dataclass
class Tally:
    levels: int = 0
    solved: int = 0
    seconds: float = 0.0
    expanded: int = 0
    peak: int = 0

    def add(self, row: dict) -> None:
        self.levels += 1
        self.seconds += float(row.get("seconds") or 0)
        self.expanded += int(row.get("expanded") or 0)
        self.peak = max(self.peak, int(row.get("peak_bytes") or 0))
        if row.get("status") == "solved":
            self.solved += 1

    def cells(self) -> list[str]:
        rate = self.expanded / self.seconds if self.seconds else 0.0
        return [
            f"{self.solved}/{self.levels}",
            f"{self.seconds:.0f}",
            f"{self.expanded:,}",
            f"{rate:,.0f}",
            f"{self.peak / 2**20:.0f}",
        ]


def tallies(side: Side, jobs: Iterable[Job]) -> dict[str, Tally]:
    out: dict[str, Tally] = {}
    for job in jobs:
        row = side.rows.get(job.key)
        if row is not None:
            out.setdefault(job.collection, Tally()).add(row)
    return out


def table(sides: list[Side], jobs: list[Job]) -> str:
    """A table per collection and the total (XSokoban's long run apart from the total),
    each side's columns side by side."""
    header = ["collection"]
    for side in sides:
        header += [f"{side.name} solved", "s", "expanded", "exp/s", "peak MiB"]
    names = list(dict.fromkeys(job.collection for job in jobs))
    per_side = [tallies(side, jobs) for side in sides]
    lines = [header]
    totals = [Tally() for _ in sides]
    for name in names:
        row = [name]
        for tally, total in zip(per_side, totals, strict=True):
            found = tally.get(name, Tally())
            row += found.cells()
            if "@" not in name:
                total.levels += found.levels
                total.solved += found.solved
                total.seconds += found.seconds
                total.expanded += found.expanded
                total.peak = max(total.peak, found.peak)
        lines.append(row)
    lines.append(["total (10 s rows)"] + [cell for t in totals for cell in t.cells()])
    widths = [max(len(str(line[i])) for line in lines) for i in range(len(header))]
    text = []
    for n, line in enumerate(lines):
        text.append(
            "| "
            + " | ".join(
                str(c).rjust(w) if i else str(c).ljust(w)
                for i, (c, w) in enumerate(zip(line, widths, strict=True))
            )
            + " |"
        )
        if n == 0:
            text.append("|" + "|".join("-" * (w + 2) for w in widths) + "|")
    return "\n".join(text)


def differences(sides: list[Side], jobs: list[Job]) -> str:
    """The levels one side solved and the other did not."""
    if len(sides) != 2:
        return ""
    a, b = sides
    gained, lost = [], []
    for job in jobs:
        ra, rb = a.rows.get(job.key), b.rows.get(job.key)
        if ra is None or rb is None:
            continue
        sa, sb = ra.get("status") == "solved", rb.get("status") == "solved"
        if sa and not sb:
            gained.append(f"{job.collection} {job.index + 1}")
        elif sb and not sa:
            lost.append(f"{job.collection} {job.index + 1}")
    return (
        f"solved by {a.name} only ({len(gained)}): {', '.join(gained) or '-'}\n"
        f"solved by {b.name} only ({len(lost)}): {', '.join(lost) or '-'}"
    )
