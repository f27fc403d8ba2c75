"""Deterministic rows of the solver: every method and option on fixed levels under node
limits, with a clock that advances only as the driver runs, so that a restructure of the
engine can be checked to change nothing.

    .venv/bin/python benchmarks/determinism.py > before.txt
    ... change the code ...
    .venv/bin/python benchmarks/determinism.py > after.txt && diff before.txt after.txt

Each row: method, options, level, status, expanded, generated, stored, pushes, moves and a
hash of the LURD. Wall time plays no part: the searches that take turns by slices of time
(fess's keys, fast's portfolio) see a fake clock that moves one millisecond each time the
driver (:func:`sokoban.solve._driver.drive`) reads it, so their turns fall on the same
expansions on any machine. The threaded race is left out (threads finish in any order).
Levels come from the project's own test data (the public sample), so the rows are the
same on every clone. ``--quick`` runs a third of the rows.
"""

from __future__ import annotations

import argparse
import hashlib
import sys
import time
import types
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))

from sokoban import xsb  # noqa: E402
from sokoban.solve import Limits, solve  # noqa: E402

DATA = ROOT / "tests" / "data"
PUBLIC = DATA / "public"

#: Seconds the fake clock moves each time the driver reads it.
TICK = 0.001


class _Clock:
    """A stand-in for the ``time`` module of the engine's modules: ``perf_counter``
    moves :data:`TICK` when the driver calls it and stands still otherwise;
    ``thread_time`` (the CPU time of turns) reads the same clock."""

    def __init__(self) -> None:
        self.now = 0.0

    def perf_counter(self) -> float:
        if sys._getframe(1).f_code.co_name == "drive":
            self.now += TICK
        return self.now

    def thread_time(self) -> float:
        return self.now

    def __getattr__(self, name: str) -> object:
        return getattr(time, name)


def install_clock() -> _Clock:
    """Give every loaded module of :mod:`sokoban.solve` that uses ``time`` the fake clock."""
    clock = _Clock()
    for name, module in list(sys.modules.items()):
        if name.startswith("sokoban.solve") and isinstance(module, types.ModuleType):
            if getattr(module, "time", None) is time:
                module.time = clock  # type: ignore[attr-defined]
    return clock


def levels() -> list[tuple[str, object]]:
    """The levels of the rows: the tiny test file, and fixed levels of the public sample."""
    chosen: list[tuple[str, object]] = []
    tiny = xsb.load(DATA / "tiny.xsb")
    for i, level in enumerate(tiny.levels, 1):
        chosen.append((f"tiny/{i}", level))
    for file, count in (("microban.xsb", 8), ("microban2.xsb", 4), ("xsokoban.xsb", 3)):
        collection = xsb.load(PUBLIC / file)
        for i, level in enumerate(collection.levels[:count], 1):
            chosen.append((f"{file.removesuffix('.xsb')}/{i}", level))
    return chosen


#: (method, options, node limit): every method, and each option that changes the search.
ROWS: list[tuple[str, dict[str, object], int]] = [
    ("astar", {}, 4000),
    ("astar", {"bound": "nearest"}, 4000),
    ("astar", {"ties": "deeper"}, 4000),
    ("astar", {"corrals": False}, 4000),
    ("astar", {"pairs": False, "frozen_goals": False}, 4000),
    ("astar", {"corral_deadlocks": True, "neighbours": True}, 4000),
    ("astar", {"corral_deadlocks": True, "learn": False}, 4000),
    ("moves", {}, 4000),
    ("moves", {"bound": "nearest"}, 4000),
    ("bfs", {}, 4000),
    ("bfs", {"corrals": False}, 4000),
    ("greedy", {}, 4000),
    ("greedy", {"plan": 3}, 4000),
    ("greedy", {"plan": -2}, 4000),
    ("greedy", {"tunnels": False, "corral_deadlocks": False}, 4000),
    ("greedy", {"bound": "nearest"}, 4000),
    ("wastar", {}, 4000),
    ("wastar", {"weight": 1.0}, 4000),
    ("wastar", {"weight": 5.0, "tunnels": False}, 4000),
    ("fess", {}, 4000),
    ("fess", {"key": "bound"}, 4000),
    ("fess", {"key": "weight"}, 4000),
    ("fess", {"key": "mixed"}, 4000),
    ("fess", {"key": "features"}, 4000),
    ("fess", {"key": "features,bound"}, 4000),
    ("fess", {"macros": False}, 4000),
    ("fess", {"tunnels": False, "corrals": False}, 4000),
    ("fess", {"packed_walls": "off"}, 4000),
    ("fess", {"packed_walls": "prefix"}, 4000),
    ("fess", {"parking": False}, 4000),
    ("fess", {"project": True}, 4000),
    ("fess", {"corral_deadlocks": False, "pairs": False}, 4000),
    ("fess", {"frozen_goals": False}, 4000),
    ("fast", {}, 6000),
    ("fast", {"packed_walls": "off"}, 6000),
    ("fast", {"corral_deadlocks": False}, 6000),
    ("ida", {}, 4000),
    ("ida", {"learn": "off"}, 4000),
    ("sma", {"budget": 2000}, 4000),
    ("sma", {"budget": 500, "learn": "deeper"}, 4000),
    ("bidirectional", {}, 4000),
    ("bfs-moves", {}, 20000),
]
#: Longer rows on the bigger levels (the sample's XSokoban and Microban II), where the
#: macros, the packing plan's parking and fast's later stages come into play.
BIG_ROWS: list[tuple[str, dict[str, object], int]] = [
    ("fast", {}, 60000),
    ("fess", {}, 30000),
    ("fess", {"key": "features"}, 30000),
    ("greedy", {}, 30000),
    ("astar", {}, 20000),
]


def lurd_hash(text: str) -> str:
    return hashlib.sha1(text.encode()).hexdigest()[:12]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="every third row")
    args = parser.parse_args()
    rows = ROWS[::3] if args.quick else ROWS
    chosen = levels()
    big = [(name, level) for name, level in chosen if name.startswith(("xsokoban", "microban2"))]
    plan = [(row, chosen) for row in rows] + [(row, big) for row in BIG_ROWS]
    clock = install_clock()
    print("method\toptions\tlevel\tstatus\texpanded\tgenerated\tstored\tpushes\tmoves\tlurd")
    for (method, options, nodes), which in plan:
        shown = ",".join(f"{k}={v}" for k, v in options.items()) or "-"
        for name, level in which:
            if method == "bfs-moves" and len(level.boxes) > 3:  # type: ignore[attr-defined]
                continue
            clock.now = 0.0
            result = solve(level, method, Limits(nodes=nodes), **options)  # type: ignore[arg-type]
            stats = result.stats
            if result.solution is not None:
                lurd = result.solution.lurd()
                pushes = sum(c.isupper() for c in lurd)
                moved, digest = str(len(lurd)), lurd_hash(lurd)
            else:
                pushes, moved, digest = 0, "-", "-"
            print(
                f"{method}\t{shown}\t{name}\t{result.status.value}\t{stats.expanded}"
                f"\t{stats.generated}\t{stats.stored}\t{pushes}\t{moved}\t{digest}",
                flush=True,
            )


if __name__ == "__main__":
    main()
