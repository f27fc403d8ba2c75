"""Benchmark the competitive side of the web server and print tables.

    .venv/bin/python benchmarks/bench_compete.py                        # everything
    .venv/bin/python benchmarks/bench_compete.py --sections scores --databases sqlite
    .venv/bin/python benchmarks/bench_compete.py --sections race --racers 50

(``bench_web.py --sections scores,race`` runs the same.) Each run starts ``sokoban serve``
on a free 127.0.0.1 port with a scratch database (one solver process, no daily levels made
ahead, rate limits off), then:

- ``scores``: ``--players`` players sign up; ``--clients`` threads (keep-alive connections)
  submit verified solutions of built-in levels for ``--seconds`` (each one distinct: the
  solution after a walk there and back, k times). Throughput, p50/p95 latency, 5xx count,
  and rows lost: 201 answers missing from the database afterwards. On SQLite and on a
  throwaway PostgreSQL (initdb/pg_ctl, as in the tests) with ``--databases``.
- ``race``: ``--racers`` WebSocket clients in one race (one asyncio process); each sends its
  growing history every ``--interval`` seconds; the latency of an update is the time from
  a racer sending a history to another client receiving a state that shows it, over every
  (update, receiver) pair seen. p50/p95/max and messages.

Targets: 200 submissions/s on SQLite on this machine; race update p95 < 100 ms
with 50 clients. The machine is shared and the clients run on it too: compare figures
side by side.
"""

from __future__ import annotations

import argparse
import asyncio
import http.client
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from sokoban.level import Level  # noqa: E402
from sokoban.web.services.library import builtin_path  # noqa: E402
from sokoban.xsb import load as load_levels  # noqa: E402

JSON = {"Content-Type": "application/json"}


def detour(level: Level) -> str | None:
    player = level.player
    assert player is not None
    for direction, cell in level.neighbours(player):
        if cell not in level.walls and cell not in level.boxes:
            return direction.value + direction.opposite.value
    return None


#: (level id, solution, detour) of built-in levels whose player can walk from the start.
WORK = [
    (f"builtin/{i}", level.solutions[0], d)
    for i, level in enumerate(load_levels(builtin_path()).levels, 1)
    if (d := detour(level)) is not None
]


class Server:
    """``sokoban serve`` in a child process on a free port."""

    def __init__(self, db: str) -> None:
        command = [sys.executable, "-m", "sokoban", "serve", "--port", "0", "--db", db,
                   "--solvers", "1", "--daily-ahead", "-1", "--rate", "100000",
                   "--signup-rate", "1000000"]  # fmt: skip
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        self.process = subprocess.Popen(command, stdout=subprocess.PIPE, text=True, env=env)
        assert self.process.stdout is not None
        line = ""
        while "serving on" not in line:
            line = self.process.stdout.readline()
            if not line:
                raise SystemExit("the server did not start")
        url = line.split("serving on ")[1].split()[0]
        self.address = url.split("//")[1].rstrip("/")
        threading.Thread(target=self.process.stdout.read, daemon=True).start()

    def stop(self) -> None:
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(30)
        except subprocess.TimeoutExpired:
            self.process.kill()


def request(
    conn: http.client.HTTPConnection, method: str, path: str, body: Any = None,
    token: str | None = None,
) -> tuple[int, Any]:  # fmt: skip
    headers = dict(JSON)
    if token:
        headers["Authorization"] = f"Bearer {token}"
    conn.request(method, path, None if body is None else json.dumps(body), headers)
    response = conn.getresponse()
    data = response.read()
    try:
        return response.status, json.loads(data)
    except ValueError:
        return response.status, None


def sign_up(address: str, count: int, prefix: str) -> list[tuple[str, str]]:
    conn = http.client.HTTPConnection(address, timeout=30)
    out = []
    for i in range(count):
        status, body = request(conn, "POST", "/api/players", {"name": f"{prefix}{i}"})
        assert status == 201, body
        out.append((body["name"], body["token"]))
    conn.close()
    return out


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


# --- scores -------------------------------------------------------------------------------


def bench_scores(db: str, players: int, clients: int, seconds: float) -> list[str]:
    server = Server(db)
    try:
        accounts = sign_up(server.address, players, "p")
        latencies: list[float] = []
        statuses: dict[int, int] = {}
        acked: list[tuple[str, str, int]] = []
        lock = threading.Lock()
        deadline = time.perf_counter() + seconds

        def client(n: int) -> None:
            conn = http.client.HTTPConnection(server.address, timeout=60)
            rng = random.Random(n)
            while time.perf_counter() < deadline:
                name, token = accounts[rng.randrange(len(accounts))]
                level_id, solution, walk = WORK[rng.randrange(len(WORK))]
                lurd = walk * rng.randrange(0, 20) + solution
                t = time.perf_counter()
                status, body = request(conn, "POST", "/api/scores",
                                       {"level_id": level_id, "lurd": lurd}, token)  # fmt: skip
                elapsed = time.perf_counter() - t
                with lock:
                    latencies.append(elapsed)
                    statuses[status] = statuses.get(status, 0) + 1
                    if status == 201:
                        acked.append((name, level_id, body["moves"]))
            conn.close()

        started = time.perf_counter()
        threads = [threading.Thread(target=client, args=(n,)) for n in range(clients)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        wall = time.perf_counter() - started
    finally:
        server.stop()
    import sqlalchemy as sa

    from sokoban.records.tables import players as players_table
    from sokoban.records.tables import scores
    from sokoban.store import Store

    store = Store(db)
    with store.engine.connect() as conn:
        stored = conn.execute(sa.select(sa.func.count()).select_from(scores)).scalar() or 0
        rows = conn.execute(
            sa.select(players_table.c.name, scores.c.level_id, scores.c.moves, sa.func.count())
            .select_from(scores.join(players_table))
            .group_by(players_table.c.name, scores.c.level_id, scores.c.moves)
        ).all()
    store.close()
    have = {(r[0], r[1], r[2]): r[3] for r in rows}
    wanted: dict[tuple[str, str, int], int] = {}
    for key in acked:
        wanted[key] = wanted.get(key, 0) + 1
    lost = sum(max(0, n - have.get(key, 0)) for key, n in wanted.items())
    n = len(latencies)
    errors = sum(v for k, v in statuses.items() if k >= 500)
    other = {k: v for k, v in statuses.items() if k not in (201,)}
    backend = "PostgreSQL" if db.startswith("postgresql") else "SQLite"
    return [
        backend,
        str(players),
        str(clients),
        str(n),
        f"{n / wall:.0f}",
        f"{percentile(latencies, 0.5) * 1000:.1f}",
        f"{percentile(latencies, 0.95) * 1000:.1f}",
        str(errors),
        f"{lost} of {len(acked)} ({stored} rows)",
        json.dumps(other) if other else "-",
    ]


# --- race ---------------------------------------------------------------------------------


async def _race(
    addresses: list[str], racers: int, seconds: float, interval: float
) -> dict[str, Any]:
    from websockets.asyncio.client import connect

    address = addresses[0]
    accounts = await asyncio.to_thread(sign_up, address, racers, "r")
    level_id, _, walk = WORK[0]

    def setup() -> str:
        conn = http.client.HTTPConnection(address, timeout=30)
        status, made = request(conn, "POST", "/api/races",
                               {"level_id": level_id, "countdown": 0, "time_limit": 3600},
                               accounts[0][1])  # fmt: skip
        assert status == 201, made
        for _, token in accounts[1:]:
            status, body = request(conn, "POST", f"/api/races/{made['code']}/join", None, token)
            assert status == 200, body
        conn.close()
        return str(made["code"])

    code = await asyncio.to_thread(setup)
    sent: dict[tuple[str, int], float] = {}
    latencies: list[float] = []
    received = 0
    seen: set[tuple[str, int, int]] = set()
    running = asyncio.Event()
    stop = asyncio.Event()

    async def racer(index: int, name: str, token: str) -> None:
        nonlocal received
        mine = addresses[index % len(addresses)]  # racers spread over the servers
        async with connect(f"ws://{mine}/api/races/{code}/ws", max_size=None) as ws:
            await ws.send(json.dumps({"type": "auth", "token": token}))

            async def reader() -> None:
                nonlocal received
                async for raw in ws:
                    now = time.perf_counter()
                    message = json.loads(raw)
                    if message.get("type") != "state":
                        continue
                    received += 1
                    if message["status"] == "running":
                        running.set()
                    for p in message["players"]:
                        key = (p["name"], p["moves"])
                        at = sent.get(key)
                        if at is not None and p["name"] != name and (*key, index) not in seen:
                            seen.add((*key, index))
                            latencies.append(now - at)

            task = asyncio.create_task(reader())
            await running.wait()
            await asyncio.sleep(random.random() * interval)
            k = 0
            while not stop.is_set():
                k += 1
                lurd = walk * k
                sent[(name, len(lurd))] = time.perf_counter()
                await ws.send(json.dumps({"type": "progress", "lurd": lurd}))
                await asyncio.sleep(interval)
            await asyncio.sleep(0.5)  # the last updates arrive
            task.cancel()

    tasks = [asyncio.create_task(racer(i, n, t)) for i, (n, t) in enumerate(accounts)]
    await asyncio.sleep(1.0)  # everyone connected

    def start() -> None:
        conn = http.client.HTTPConnection(address, timeout=30)
        status, body = request(conn, "POST", f"/api/races/{code}/start", None, accounts[0][1])
        assert status == 200, body
        conn.close()

    await asyncio.to_thread(start)
    await asyncio.wait_for(running.wait(), 30)
    await asyncio.sleep(seconds)
    stop.set()
    await asyncio.gather(*tasks, return_exceptions=True)
    return {"latencies": latencies, "received": received, "sent": len(sent)}


def bench_race(
    db: str, racers: int, seconds: float, interval: float, servers: int = 1
) -> list[str]:
    running = [Server(db) for _ in range(servers)]
    try:
        result = asyncio.run(_race([s.address for s in running], racers, seconds, interval))
    finally:
        for server in running:
            server.stop()
    lat = result["latencies"]
    backend = "PostgreSQL" if db.startswith("postgresql") else "SQLite"
    return [
        f"{backend}, {servers} server{'s' if servers > 1 else ''}",
        str(racers),
        f"{interval * 1000:.0f}",
        str(result["sent"]),
        str(result["received"]),
        str(len(lat)),
        f"{percentile(lat, 0.5) * 1000:.1f}",
        f"{percentile(lat, 0.95) * 1000:.1f}",
        f"{max(lat) * 1000:.1f}" if lat else "n/a",
    ]


def table(header: list[str], rows: list[list[str]]) -> str:
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    line = "| " + " | ".join(h.ljust(w) for h, w in zip(header, widths, strict=True)) + " |"
    rule = "|" + "|".join("-" * (w + 2) for w in widths) + "|"
    body = [
        "| " + " | ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)) + " |" for r in rows
    ]
    return "\n".join([line, rule, *body])


def databases(names: list[str], folder: Path) -> tuple[list[str], Any]:
    urls, cluster = [], None
    for name in names:
        if name == "sqlite":
            urls.append(str(folder / f"bench-{len(urls)}.db"))
        elif name == "postgresql":
            from db_fixtures import Cluster

            cluster = cluster or Cluster()
            urls.append(cluster.create_database())
        else:
            raise SystemExit(f"unknown database {name!r}: sqlite or postgresql")
    return urls, cluster


def run(args: argparse.Namespace) -> None:
    sections = set(args.sections.split(","))
    with tempfile.TemporaryDirectory(prefix="bench-compete-") as tmp:
        folder = Path(tmp)
        cluster = None
        try:
            if "scores" in sections:
                urls, cluster = databases(args.databases.split(","), folder)
                rows = [bench_scores(u, args.players, args.clients, args.seconds) for u in urls]
                print(f"scores: {args.seconds:.0f} s of submissions (target 200/s on SQLite)")
                print(table(["database", "players", "clients", "submitted", "per s", "p50 ms",
                             "p95 ms", "5xx", "lost", "other"], rows))  # fmt: skip
            if "race" in sections:
                rows = [bench_race(str(folder / "race.db"), args.racers, args.seconds,
                                   args.interval)]  # fmt: skip
                if "postgresql" in args.databases.split(","):
                    if cluster is None:
                        from db_fixtures import Cluster

                        cluster = Cluster()
                    url = cluster.create_database()
                    rows.append(bench_race(url, args.racers, args.seconds, args.interval, 2))
                print(f"race: {args.seconds:.0f} s, one race (target p95 < 100 ms); with two "
                      "servers half the racers are on each")  # fmt: skip
                print(table(["database", "racers", "interval ms", "updates sent", "states received",
                             "latencies", "p50 ms", "p95 ms", "max ms"], rows))  # fmt: skip
        finally:
            if cluster is not None:
                cluster.stop()


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--databases", default="sqlite,postgresql", help="also: the race across two servers"
    )
    parser.add_argument("--players", type=int, default=50)
    parser.add_argument("--racers", type=int, default=50)
    parser.add_argument("--interval", type=float, default=0.25, help="seconds between updates")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--sections", default="scores,race")
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--seconds", type=float, default=10.0)
    add_arguments(parser)
    run(parser.parse_args())


if __name__ == "__main__":
    main()
