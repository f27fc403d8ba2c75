"""A worker of the development suite (run by ``benchmarks/_suite.py``): reads jobs from
stdin, one JSON object a line (``path``, ``index``, ``method``, ``seconds``, ``clock``),
solves each with the ``sokoban`` found first on ``sys.path`` (the checkout under test), and
writes one JSON line of results per job to stdout.

With ``clock`` "cpu" the limit is seconds of this thread's CPU time, not of wall time: on
a shared machine the other processes then take nothing from a level's limit. The search
is stopped through :attr:`Limits.stop`, checked between kernel calls, with a wall-time
limit of :data:`WALL_FACTOR` times the seconds as a backstop.

It uses only the public API, so that it runs the same against any checkout.
"""

from __future__ import annotations

import json
import sys
import threading
import time
from functools import lru_cache

WALL_FACTOR = 20


@lru_cache(maxsize=4)
def _levels(path: str) -> list:
    from sokoban.xsb import load

    return list(load(path))


def main() -> None:
    import sokoban
    from sokoban.solve import Limits, bench, solve

    out = sys.stdout
    sys.stdout = sys.stderr  # nothing else may write to the answer channel
    bench.warm_up("fast")  # compile (or load) the kernels before the first level's clock
    print(json.dumps({"ready": sokoban.__file__}), file=out, flush=True)
    for line in sys.stdin:
        job = json.loads(line)
        level = _levels(job["path"])[job["index"]]
        seconds = job["seconds"]
        start, cpu = time.perf_counter(), time.thread_time()
        if job.get("clock", "wall") == "cpu":
            stop = threading.Event()

            def check(_: object, stop: threading.Event = stop, end: float = cpu + seconds) -> None:
                if time.thread_time() >= end:
                    stop.set()

            limits = Limits(time=WALL_FACTOR * seconds, stop=stop)
            found = solve(level, job["method"], limits, progress=check)
        else:
            found = solve(level, job["method"], Limits(time=seconds))
        wall = time.perf_counter() - start
        used = time.thread_time() - cpu
        stats = found.stats
        answer = {
            "status": found.status.value,
            "pushes": found.solution.pushes if found.solution is not None else None,
            "moves": found.solution.moves if found.solution is not None else None,
            "expanded": stats.expanded,
            "generated": stats.generated,
            "peak_bytes": stats.peak_bytes,
            "seconds": used if job.get("clock", "wall") == "cpu" else wall,
            "wall": wall,
            "message": found.message,
        }
        print(json.dumps(answer), file=out, flush=True)


if __name__ == "__main__":
    main()
