"""Benchmark the web game's server on localhost and print a table.

    .venv/bin/python benchmarks/bench_web.py                    # every section
    .venv/bin/python benchmarks/bench_web.py --sections check,hint --clients 4
    .venv/bin/python benchmarks/bench_web.py --solvers 2 --seconds 20

Starts ``sokoban serve`` on a free 127.0.0.1 port with a temporary database, then:

- ``check``: bounded concurrent clients POST /api/check with positions met along the
  built-in levels' solutions (the game asks after every push): throughput, p50/p95.
- ``hint``: clients POST /api/solve (``fast``, 5 s) from Microban positions a few random
  steps from the start (Microban-sized hints; distinct positions, so the cache does not
  answer), after one warm-up round: throughput, p50/p95, share answered from the cache.
- ``overload``: more concurrent clients than solver slots ask hard solves at once: the
  share of 503 answers (with Retry-After) and that no answer is a 5xx other than 503.
- ``page``: bytes of index.html and of every file it loads (links, scripts and the ES
  modules they import, followed recursively).
- ``scores`` and ``race``: the competitive side, see ``bench_compete.py`` (run first, on
  servers of their own).
- ``frame``: time to the ``sokoban:first-frame`` performance mark in chromium (Playwright
  driving /usr/bin/chromium), each load in a fresh browser context (a cold cache): median
  and worst of a few loads; "n/a" without the mark.

Targets: check p95 < 20 ms; hint p95 < 300 ms with the pool warm; first frame
< 500 ms; page weight < 300 KB. The machine is shared: compare figures side by side.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import random
import re
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from sokoban import Level, xsb
from sokoban.errors import SokobanError
from sokoban.lurd import Solution, replay
from sokoban.web.services.library import builtin_path

ROOT = Path(__file__).resolve().parents[1]
MICROBAN = ROOT.parent / "shared" / "levels" / "microban.xsb"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Server:
    """``sokoban serve`` in a child process, on a free port, with a scratch database."""

    def __init__(self, solvers: int, queue: int) -> None:
        self.port = free_port()
        self.folder = tempfile.TemporaryDirectory(prefix="bench-web-")
        env = {**os.environ, "XDG_DATA_HOME": self.folder.name}
        command = [sys.executable, "-m", "sokoban", "serve", "--port", str(self.port)]
        command += ["--solvers", str(solvers), "--queue", str(queue)]
        started = time.perf_counter()
        self.process = subprocess.Popen(command, stdout=subprocess.PIPE, text=True, env=env)
        assert self.process.stdout is not None
        line = ""
        while "serving on" not in line:
            line = self.process.stdout.readline()
            if not line and self.process.poll() is not None:
                raise SystemExit("the server did not start")
        self.startup = time.perf_counter() - started
        self.url = f"http://127.0.0.1:{self.port}"

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(timeout=30)
        self.folder.cleanup()


def post(conn: http.client.HTTPConnection, path: str, body: dict[str, Any]) -> tuple[int, Any]:
    data = json.dumps(body).encode()
    conn.request("POST", path, data, {"content-type": "application/json"})
    response = conn.getresponse()
    payload = response.read()
    try:
        return response.status, json.loads(payload)
    except ValueError:
        return response.status, None


def load(
    port: int,
    clients: int,
    requests: list[tuple[str, dict[str, Any]]],
    seconds: float,
) -> dict[str, Any]:
    """``clients`` threads, each with its own connection, take requests in turn until
    all are done or ``seconds`` pass. Returns latencies and status counts."""
    latencies: list[float] = []
    statuses: dict[int, int] = {}
    cached = 0
    lock = threading.Lock()
    queue = list(reversed(requests))
    deadline = time.perf_counter() + seconds

    def client() -> None:
        nonlocal cached
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        while time.perf_counter() < deadline:
            with lock:
                if not queue:
                    return
                path, body = queue.pop()
            t = time.perf_counter()
            status, answer = post(conn, path, body)
            elapsed = time.perf_counter() - t
            with lock:
                latencies.append(elapsed)
                statuses[status] = statuses.get(status, 0) + 1
                if isinstance(answer, dict) and answer.get("cached"):
                    cached += 1
        conn.close()

    started = time.perf_counter()
    threads = [threading.Thread(target=client) for _ in range(clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    wall = time.perf_counter() - started
    return {"latencies": latencies, "statuses": statuses, "wall": wall, "cached": cached}


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def row(name: str, result: dict[str, Any], target: str) -> list[str]:
    lat = result["latencies"]
    n = len(lat)
    statuses = result["statuses"]
    busy = statuses.get(503, 0)
    errors = sum(v for k, v in statuses.items() if k >= 500 and k != 503)
    return [
        name,
        str(n),
        f"{n / result['wall']:.1f}",
        f"{percentile(lat, 0.5) * 1000:.1f}",
        f"{percentile(lat, 0.95) * 1000:.1f}",
        f"{100 * busy / max(1, n):.0f}%",
        str(errors),
        f"{100 * result['cached'] / max(1, n):.0f}%",
        target,
    ]


# --- workloads ------------------------------------------------------------------------------


def check_positions(limit: int) -> list[tuple[str, dict[str, Any]]]:
    """Positions after each push along the built-in levels' solutions."""
    out = []
    for level in xsb.load(builtin_path()):
        solution = replay(level, level.solutions[0]).solution
        steps = solution.steps
        for k in range(len(steps) + 1):
            if k == len(steps) or steps[k][1]:
                position = replay(level, Solution(steps[:k])).final
                out.append(("/api/check", {"level": position.xsb()}))
    random.Random(1).shuffle(out)
    return out[:limit]


def hint_positions(count: int, seed: int, microban: Path) -> list[tuple[str, dict[str, Any]]]:
    """Microban positions a few random legal steps from the start (distinct, live)."""
    from sokoban.solve.check import check

    if not microban.exists():
        raise SystemExit(f"{microban} not found (the public collections; see --microban)")
    levels = list(xsb.load(microban))[:60]
    rng = random.Random(seed)
    seen: set[str] = set()
    out = []
    while len(out) < count:
        position: Level = rng.choice(levels)
        for _ in range(rng.randrange(1, 8)):
            try:
                position = replay(position, rng.choice("lurd")).final
            except SokobanError:
                pass
        text = position.xsb()
        if text in seen or position.is_solved or check(position).dead:
            continue
        seen.add(text)
        out.append(("/api/solve", {"level": text, "method": "fast", "time_limit": 5}))
    return out


def hard_positions(count: int) -> list[tuple[str, dict[str, Any]]]:
    """Distinct positions near the start of the built-in hard and expert levels, asked
    with ``moves`` (move-optimal A*, the slowest method) so that solvers stay busy."""
    levels = [lv for lv in xsb.load(builtin_path()) if lv.title.startswith(("Hard", "Expert"))]
    rng = random.Random(3)
    seen: set[str] = set()
    out = []
    while len(out) < count:
        position = rng.choice(levels)
        for _ in range(rng.randrange(0, 6)):
            try:
                position = replay(position, rng.choice("lurd")).final
            except SokobanError:
                pass
        if position.xsb() in seen:
            continue
        seen.add(position.xsb())
        out.append(("/api/solve", {"level": position.xsb(), "method": "moves", "time_limit": 3}))
    return out


# --- page weight and first frame ------------------------------------------------------------


def page_weight(url: str) -> tuple[int, list[tuple[str, int]]]:
    """Bytes of index.html and of everything it loads from the server, recursively."""
    import urllib.request

    seen: dict[str, int] = {}
    todo = ["/"]
    while todo:
        path = todo.pop()
        if path in seen:
            continue
        with urllib.request.urlopen(url + path, timeout=10) as response:
            body = response.read()
        seen[path] = len(body)
        text = body.decode("utf-8", errors="replace")
        base = path.rsplit("/", 1)[0] + "/"
        found = re.findall(r'(?:src|href)="([\w./?=-]+)"', text)
        found += re.findall(r'(?:import|from)\s*\(?\s*["\'](\.{0,2}/[\w./-]+)["\']', text)
        found += re.findall(r'url\(["\']?([\w./-]+)["\']?\)', text)
        for ref in found:
            if ref.startswith(("http:", "https:", "data:", "//", "mailto:")):
                continue
            ref = ref.split("?", 1)[0]  # a file named by version is the same file
            target = ref if ref.startswith("/") else base + ref.removeprefix("./")
            while "/../" in target:
                target = re.sub(r"/[^/]+/\.\./", "/", target, count=1)
            if target.startswith("/docs") or target.startswith("/api"):
                continue
            todo.append(target)
    return sum(seen.values()), sorted(seen.items())


def first_frame(url: str, loads: int) -> list[float] | None:
    """Milliseconds from navigation to the first-frame mark, per page load."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        return None
    times = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
        try:
            for _ in range(loads):
                page = browser.new_context().new_page()  # a fresh context: a cold cache
                page.goto(url + "/")
                # Polled from here: wait_for_function would need eval, which the CSP refuses.
                deadline = time.perf_counter() + 10
                mark: float | None = None
                while mark is None and time.perf_counter() < deadline:
                    mark = page.evaluate(
                        "performance.getEntriesByName('sokoban:first-frame')[0]?.startTime ?? null"
                    )
                    if mark is None:
                        page.wait_for_timeout(20)
                if mark is None:
                    page.context.close()
                    return None
                times.append(mark)
                page.context.close()
        finally:
            browser.close()
    return times


def table(header: list[str], rows: list[list[str]]) -> str:
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    line = "| " + " | ".join(h.ljust(w) for h, w in zip(header, widths, strict=True)) + " |"
    rule = "|" + "|".join("-" * (w + 2) for w in widths) + "|"
    body = [
        "| " + " | ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)) + " |" for r in rows
    ]
    return "\n".join([line, rule, *body])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--sections", default="check,hint,overload,page,frame")
    parser.add_argument("--solvers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--queue", type=int, default=8)
    parser.add_argument("--clients", type=int, default=4)
    parser.add_argument("--seconds", type=float, default=15.0, help="per load section")
    parser.add_argument("--checks", type=int, default=2000)
    parser.add_argument("--hints", type=int, default=120)
    parser.add_argument("--loads", type=int, default=5, help="page loads for first frame")
    parser.add_argument("--microban", type=Path, default=MICROBAN, help="Microban's XSB file")
    import bench_compete  # players, scores, races: --sections scores,race

    bench_compete.add_arguments(parser)
    args = parser.parse_args()
    sections = set(args.sections.split(","))
    if sections & {"scores", "race"}:
        bench_compete.run(args)
        sections -= {"scores", "race"}
        if not sections:
            return
    server = Server(args.solvers, args.queue)
    print(
        f"server: {args.solvers} solver processes, queue {args.queue}, "
        f"started in {server.startup:.1f} s; {args.clients} clients"
    )
    rows: list[list[str]] = []
    notes: list[str] = []
    sections_run: dict[str, Callable[[], None]] = {}

    def run_check() -> None:
        work = check_positions(args.checks)
        load(server.port, 1, work[:50], args.seconds)  # first sight of each board
        rows.append(row("check", load(server.port, args.clients, work, args.seconds), "p95<20"))

    def run_hint() -> None:
        load(
            server.port, args.clients, hint_positions(20, 99, args.microban), args.seconds
        )  # warm-up
        result = load(
            server.port, args.clients, hint_positions(args.hints, 7, args.microban), args.seconds
        )
        rows.append(row("hint (Microban, fast)", result, "p95<300"))

    def run_overload() -> None:
        n = (args.solvers + args.queue) * 3
        result = load(server.port, n, hard_positions(n * 4), args.seconds * 4)
        rows.append(row(f"overload ({n} clients, moves)", result, "503 share, 0 5xx"))

    def run_page() -> None:
        total, files = page_weight(server.url)
        notes.append(
            f"page weight: {total / 1024:.1f} KB in {len(files)} files (target < 300 KB): "
            + ", ".join(f"{p} {n / 1024:.1f} KB" for p, n in files)
        )

    def run_frame() -> None:
        times = first_frame(server.url, args.loads)
        if times is None:
            notes.append("first frame: n/a (no sokoban:first-frame mark on the page)")
        else:
            notes.append(
                f"first frame: median {statistics.median(times):.0f} ms, "
                f"max {max(times):.0f} ms over {len(times)} loads (target < 500 ms)"
            )

    sections_run = {
        "check": run_check,
        "hint": run_hint,
        "overload": run_overload,
        "page": run_page,
        "frame": run_frame,
    }
    try:
        for name, function in sections_run.items():
            if name in sections:
                function()
    finally:
        server.stop()
    header = ["workload", "requests", "req/s", "p50 ms", "p95 ms", "503", "5xx", "cached"]
    if rows:
        print(table([*header, "target"], rows))
    for note in notes:
        print(note)


if __name__ == "__main__":
    main()
