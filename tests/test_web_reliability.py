"""Real server processes: nothing acknowledged is lost when the server is killed, and a
race runs across two server processes sharing one PostgreSQL.

Servers are ``sokoban serve`` subprocesses on free ports (one solver process, no daily
levels made ahead, high rate limits); clients are plain HTTP and WebSocket clients.
"""

from __future__ import annotations

import http.client
import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from sokoban.level import Level
from sokoban.records import Records
from sokoban.store import Store
from sokoban.web.services.library import builtin_path
from sokoban.xsb import load

#: What each server printed (checked for tokens).
LOGS: list[str] = []
JSON = "application/json"


def _detour(level: Level) -> str | None:
    """A walk there and back from the start: solutions made longer with it stay valid."""
    player = level.player
    assert player is not None
    for direction, cell in level.neighbours(player):
        if cell not in level.walls and cell not in level.boxes:
            return direction.value + direction.opposite.value
    return None


#: (level id, solution, detour) of built-in levels whose player can walk from the start.
BURST = [
    (f"builtin/{i}", level.solutions[0], detour)
    for i, level in enumerate(load(builtin_path()).levels, 1)
    if (detour := _detour(level)) is not None
][:6]
SOLUTIONS = [solution for _, solution, _ in BURST]


@contextmanager
def serve(db: str, *extra: str) -> Iterator[str]:
    """A ``sokoban serve`` process on a free port; yields its ``host:port``."""
    command = [sys.executable, "-m", "sokoban", "serve", "--port", "0", "--db", db,
               "--solvers", "1", "--daily-ahead", "-1", "--rate", "100000", *extra]  # fmt: skip
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    server = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env
    )
    lines: list[str] = []
    try:
        assert server.stdout is not None
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            line = server.stdout.readline()
            if not line:
                break
            lines.append(line)
            if "serving on" in line:
                break
        url = next((x.split("serving on ")[1].split()[0] for x in lines if "serving on" in x), "")
        assert url, "the server did not start:\n" + "".join(lines)
        # Keep reading its output, so that a full pipe never blocks it.
        threading.Thread(target=lambda: lines.extend(server.stdout), daemon=True).start()  # type: ignore[arg-type]
        yield urlsplit(url).netloc
    finally:
        if server.poll() is None:
            server.send_signal(signal.SIGTERM)
            try:
                server.wait(20)
            except subprocess.TimeoutExpired:
                server.kill()
                server.wait()
        LOGS.append("".join(lines))


def call(address: str, method: str, path: str, body: Any = None,
         token: str | None = None) -> tuple[int, Any]:  # fmt: skip
    conn = http.client.HTTPConnection(address, timeout=30)
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    try:
        conn.request(method, path, None if body is None else json.dumps(body), headers)
        response = conn.getresponse()
        data = response.read()
        return response.status, json.loads(data) if data else None
    finally:
        conn.close()


def sign_up(address: str, name: str) -> str:
    status, body = call(address, "POST", "/api/players", {"name": name})
    assert status == 201, body
    return str(body["token"])


def test_every_acknowledged_submission_survives_sigkill(tmp_path: Path) -> None:
    db = str(tmp_path / "burst.db")
    acked: list[tuple[str, str, int]] = []
    failures: list[str] = []
    with serve(db) as address:
        tokens = {sign_up(address, f"burst{i}"): f"burst{i}" for i in range(4)}
        stop = threading.Event()

        def burst(token: str) -> None:
            conn = http.client.HTTPConnection(address, timeout=10)
            k = 0
            while not stop.is_set():
                k += 1
                level_id, solution, detour = BURST[k % len(BURST)]
                lurd = detour * k + solution  # every submission distinct
                body = json.dumps({"level_id": level_id, "lurd": lurd})
                try:
                    headers = {"Authorization": f"Bearer {token}", "Content-Type": JSON}
                    conn.request("POST", "/api/scores", body, headers)
                    response = conn.getresponse()
                    answer = response.read()
                except (OSError, http.client.HTTPException):
                    return  # the server is gone: this one was not acknowledged
                if response.status == 201:
                    moves = json.loads(answer)["moves"]
                    acked.append((tokens[token], level_id, moves))
                else:
                    failures.append(f"{response.status} {answer[:200]!r}")

        threads = [threading.Thread(target=burst, args=(t,)) for t in tokens]
        for t in threads:
            t.start()
        deadline = time.monotonic() + 60
        while len(acked) < 150 and time.monotonic() < deadline and not failures:
            time.sleep(0.01)
        server_pid = _pid_on(address)
        os.kill(server_pid, signal.SIGKILL)  # mid-burst
        stop.set()
        for t in threads:
            t.join()
    assert not failures, failures[:3]
    assert len(acked) >= 50
    with serve(db) as address:  # the restarted server recovers the database and serves it
        for level_id, _, _ in BURST:
            for board in ("moves", "pushes"):
                path = f"/api/leaderboard?level={level_id}&board={board}&limit=100"
                status, answer = call(address, "GET", path)
                assert status == 200
                # Four players burst concurrently: one entry each, ranks 1..n, in order.
                entries = answer["entries"]
                assert [e["rank"] for e in entries] == list(range(1, len(entries) + 1))
                assert len({e["name"] for e in entries}) == len(entries) == answer["count"]
                keys = [(e[board], e["pushes" if board == "moves" else "moves"]) for e in entries]
                assert keys == sorted(keys)
    store = Store(db)
    import sqlalchemy as sa

    from sokoban.records.tables import players, scores

    with store.engine.connect() as conn:
        rows = conn.execute(
            sa.select(players.c.name, scores.c.level_id, scores.c.moves).select_from(
                scores.join(players)
            )
        ).all()
    stored = {(r.name, r.level_id, r.moves) for r in rows}
    missing = [a for a in acked if a not in stored]
    assert not missing, f"{len(missing)} acknowledged submissions lost: {missing[:5]}"
    assert Records(store).count_scores() >= len(acked)
    store.close()


def _pid_on(address: str) -> int:
    """The process listening on ``address`` (the server, not the solver workers)."""
    port = int(address.rsplit(":", 1)[1])
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        fields = line.split()
        if int(fields[1].split(":")[1], 16) == port and fields[3] == "0A":
            inode = fields[9]
            break
    else:
        raise AssertionError(f"nothing listens on {address}")
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            for fd in os.listdir(f"/proc/{pid}/fd"):
                if os.readlink(f"/proc/{pid}/fd/{fd}") == f"socket:[{inode}]":
                    return int(pid)
        except OSError:
            continue
    raise AssertionError(f"no process owns {address}")


@pytest.mark.postgresql
def test_a_race_across_two_server_processes_on_one_postgresql(postgresql: Any) -> None:
    from websockets.sync.client import connect

    url = postgresql.create_database()
    with serve(url) as one, serve(url) as two:
        ada = sign_up(one, "Ada")
        bob = sign_up(two, "Bob")
        status, created = call(one, "POST", "/api/races",
                               {"level_id": BURST[0][0], "countdown": 0}, ada)  # fmt: skip
        assert status == 201, created
        code = created["code"]
        status, state = call(two, "POST", f"/api/races/{code}/join", None, bob)
        assert status == 200 and [p["name"] for p in state["players"]] == ["Ada", "Bob"]

        @contextmanager
        def socket(address: str, token: str) -> Iterator[Any]:
            with connect(f"ws://{address}/api/races/{code}/ws", open_timeout=10) as ws:
                ws.send(json.dumps({"type": "auth", "token": token}))
                yield ws

        def until(ws: Any, check: Any) -> dict[str, Any]:
            deadline = time.monotonic() + 15
            while time.monotonic() < deadline:
                message = json.loads(ws.recv(timeout=deadline - time.monotonic()))
                if message["type"] == "state" and check(message):
                    return message  # type: ignore[no-any-return]
            raise AssertionError("the expected state did not come")

        def of(state: dict[str, Any], name: str) -> dict[str, Any]:
            return next(p for p in state["players"] if p["name"] == name)

        solution = SOLUTIONS[0]
        with socket(one, ada) as ws_ada, socket(two, bob) as ws_bob:
            until(ws_bob, lambda m: m["status"] == "waiting")
            assert call(one, "POST", f"/api/races/{code}/start", None, ada)[0] == 200
            until(ws_bob, lambda m: m["status"] == "running")  # started on the other process
            ws_ada.send(json.dumps({"type": "progress", "lurd": solution[:5]}))
            seen = until(ws_bob, lambda m: of(m, "Ada")["moves"] == 5)
            assert of(seen, "Ada")["pushes"] == sum(ch.isupper() for ch in solution[:5])
            ws_bob.send(json.dumps({"type": "progress", "lurd": solution[:3]}))
            until(ws_ada, lambda m: of(m, "Bob")["moves"] == 3)
            ws_bob.send(json.dumps({"type": "progress", "lurd": solution}))
            ws_ada.send(json.dumps({"type": "finish", "lurd": solution[:5]}))
            end_ada = until(ws_ada, lambda m: m["status"] == "finished")
            end_bob = until(ws_bob, lambda m: m["status"] == "finished")
    ranks = [(p["name"], p["rank"], p["solved"]) for p in end_ada["players"]]
    assert ranks == [("Bob", 1, True), ("Ada", 2, False)]
    assert [(p["name"], p["rank"]) for p in end_bob["players"]] == [("Bob", 1), ("Ada", 2)]
    for token in (ada, bob):
        assert all(token not in log for log in LOGS)
