"""The competitive API through TestClient: players, scores and boards, progress, the daily
challenge, races over the WebSocket, ghosts, rate limits; good and bad input for each.

One server for the module (a solver pool of one process, no kernel warm-up); the daily
level is a tiny fixed one (a fake maker), so no generator runs here.
"""

from __future__ import annotations

import datetime
import json
import logging
import warnings
from collections.abc import Iterator
from pathlib import Path

import pytest

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient
    from starlette.websockets import WebSocketDisconnect

from sokoban.records import DailyRow
from sokoban.web import Settings, create_app
from sokoban.web.services.daily_maker import band_of, seed_of
from sokoban.web.services.ratelimit import RateLimiter

CORRIDOR = "#######\n#@ $ .#\n#######"  # solved by rRR: 3 moves, 2 pushes
MADE: list[datetime.date] = []


def fake_daily(day: datetime.date) -> DailyRow:
    MADE.append(day)
    return DailyRow(day, band_of(day), CORRIDOR, "rRR", 3, 2, seed_of(day))


def today() -> str:
    return datetime.datetime.now(datetime.UTC).date().isoformat()


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("compete") / "c.db"


@pytest.fixture(scope="module")
def client(db: Path) -> Iterator[TestClient]:
    settings = Settings(
        db=str(db), solvers=1, queue=2, warm=False, daily_maker=fake_daily, signup_burst=1000
    )
    with TestClient(create_app(settings), base_url="http://localhost") as c:
        yield c


@pytest.fixture(autouse=True)
def no_limits(client: TestClient) -> None:
    compete = client.app.state.compete  # type: ignore[attr-defined]
    compete.player_limit = RateLimiter(1000, 4000)
    compete.address_limit = RateLimiter(1000, 4000)
    compete.message_limit = RateLimiter(1000, 4000)


_names = iter(range(10**6))


def sign_up(client: TestClient, name: str | None = None) -> tuple[dict[str, str], dict]:
    name = name or f"player{next(_names)}"
    r = client.post("/api/players", json={"name": name})
    assert r.status_code == 201, r.text
    body = r.json()
    return {"Authorization": f"Bearer {body['token']}"}, body


def error(response: object, status: int) -> str:
    assert response.status_code == status, response.text  # type: ignore[attr-defined]
    detail = response.json()["detail"]  # type: ignore[attr-defined]
    assert isinstance(detail, str) and detail and "\n" not in detail
    return detail


def builtin(client: TestClient, index: int = 1) -> dict:
    """A built-in level as the library has it, its stored solution included (the API
    leaves that out while a race is run on the board, as the races of these tests are)."""
    library = client.app.state.sokoban.library  # type: ignore[attr-defined]
    return dict(library.level("builtin", index).model_dump(mode="json"))


# --- players ----------------------------------------------------------------------------


def test_sign_up_gives_a_long_random_token_once(client: TestClient) -> None:
    headers, body = sign_up(client, "Ada Lovelace")
    assert body["name"] == "Ada Lovelace" and len(body["token"]) >= 43
    _, other = sign_up(client)
    assert other["token"] != body["token"]
    me = client.get("/api/me", headers=headers).json()
    assert me == {
        "id": body["id"],
        "name": "Ada Lovelace",
        "streak": 0,
        "best_streak": 0,
        "solved": 0,
    }
    assert body["token"] not in json.dumps(me)


@pytest.mark.parametrize(
    ("name", "status"),
    [("", 422), ("   ", 422), ("x" * 33, 422), ("bad\x00name", 422), ("tab\there", 422)],
)
def test_bad_names_are_refused(client: TestClient, name: str, status: int) -> None:
    error(client.post("/api/players", json={"name": name}), status)


def test_names_are_unique_ignoring_case_and_kept_as_typed(client: TestClient) -> None:
    _, body = sign_up(client, "<b>Bob</b>")
    assert body["name"] == "<b>Bob</b>"  # kept as text; the page shows it escaped
    assert "taken" in error(client.post("/api/players", json={"name": "<B>BOB</B>"}), 409)


def test_me_needs_a_known_token(client: TestClient) -> None:
    assert "sign in" in error(client.get("/api/me"), 401)
    error(client.get("/api/me", headers={"Authorization": "Bearer nope"}), 401)
    error(client.get("/api/me", headers={"Authorization": "Basic abc"}), 401)
    error(client.get("/api/me", headers={"Authorization": "Bearer " + "x" * 5000}), 401)


def test_transfer_code_moves_the_player_to_another_device_once(client: TestClient) -> None:
    headers, body = sign_up(client)
    r = client.post("/api/me/transfer", headers=headers)
    assert r.status_code == 200
    code = r.json()["code"]
    assert len(code.replace("-", "")) == 10
    claimed = client.post("/api/players/claim", json={"code": code.lower().replace("-", " ")})
    assert claimed.status_code == 200, claimed.text
    new = claimed.json()
    assert new["id"] == body["id"] and new["token"] != body["token"]
    assert (
        client.get("/api/me", headers={"Authorization": f"Bearer {new['token']}"}).json()["name"]
        == body["name"]
    )
    assert client.get("/api/me", headers=headers).status_code == 200  # the old one still works
    error(client.post("/api/players/claim", json={"code": code}), 404)  # single use
    error(client.post("/api/players/claim", json={"code": "AAAAA-AAAAA"}), 404)
    error(client.post("/api/me/transfer"), 401)


# --- scores -----------------------------------------------------------------------------


def test_a_solution_is_replayed_and_ranked(client: TestClient) -> None:
    headers, _ = sign_up(client)
    level = builtin(client, 2)
    r = client.post(
        "/api/scores",
        headers=headers,
        json={"level_id": "builtin/2", "lurd": level["solution"].lower()},
    )
    assert r.status_code == 201, r.text
    score = r.json()
    # The counts are the server's: the lower-case LURD claimed no pushes.
    assert (score["moves"], score["pushes"]) == (
        level["optimal"]["moves"],
        level["optimal"]["pushes"],
    )
    assert score["improved"] and score["rank_moves"] >= 1 and score["rank_pushes"] >= 1
    again = client.post(
        "/api/scores", headers=headers, json={"level_id": "builtin/2", "lurd": level["solution"]}
    ).json()
    assert not again["improved"]


@pytest.mark.parametrize(
    ("body", "status", "words"),  # words: lower case
    [
        ({"level_id": "builtin/1", "lurd": "uuuuuuuuu"}, 422, "wall"),
        ({"level_id": "builtin/1", "lurd": "x"}, 422, "unexpected character"),
        ({"level_id": "builtin/1", "lurd": ""}, 422, "lurd"),
        ({"level_id": "builtin/999", "lurd": "r"}, 404, "no level"),
        ({"level_id": "nope/1", "lurd": "r"}, 404, "no collection"),
        ({"level_id": "../etc", "lurd": "r"}, 422, "level_id"),
        ({"level_id": "daily/2999-01-01", "lurd": "r"}, 404, "to come"),
        ({"level_id": "daily/2026-02-30", "lurd": "r"}, 404, "no day"),
        ({"level_id": "builtin/1", "lurd": "r", "moves": 1}, 422, "extra inputs"),
        ({"level_id": "builtin/1", "lurd": "r" * 200_001}, 422, "lurd"),
    ],
)
def test_bad_submissions_are_refused(
    client: TestClient, body: dict, status: int, words: str
) -> None:
    headers, _ = sign_up(client)
    assert words in error(client.post("/api/scores", headers=headers, json=body), status).lower()


def test_a_forged_solution_names_its_failing_step(client: TestClient) -> None:
    headers, _ = sign_up(client)
    solution = builtin(client)["solution"]
    forged = solution[:5] + "U" * 20
    r = client.post("/api/scores", headers=headers, json={"level_id": "builtin/1", "lurd": forged})
    assert r.status_code == 422 and r.json()["step"] >= 5
    short = client.post(
        "/api/scores", headers=headers, json={"level_id": "builtin/1", "lurd": solution[:-1]}
    )
    assert short.status_code == 422 and short.json()["step"] == len(solution) - 1
    assert "off goals" in short.json()["detail"]


def test_submitting_needs_a_player(client: TestClient) -> None:
    error(client.post("/api/scores", json={"level_id": "builtin/1", "lurd": "r"}), 401)


def test_leaderboards_order_both_boards_and_show_the_optimum(client: TestClient) -> None:
    level = builtin(client, 3)
    solution = level["solution"]
    longer = "lr" + solution  # two more moves, same pushes
    ha, a = sign_up(client)
    hb, b = sign_up(client)
    client.post("/api/scores", headers=ha, json={"level_id": "builtin/3", "lurd": longer})
    client.post("/api/scores", headers=hb, json={"level_id": "builtin/3", "lurd": solution})
    client.post("/api/scores", headers=ha, json={"level_id": "builtin/3", "lurd": longer + "lr"})
    board = client.get("/api/leaderboard", params={"level": "builtin/3"}, headers=ha).json()
    assert board["optimal"] == level["optimal"] and board["count"] == 2
    assert [(e["rank"], e["name"], e["moves"]) for e in board["entries"]] == [
        (1, b["name"], len(solution)),
        (2, a["name"], len(solution) + 2),
    ]
    assert board["me"]["rank"] == 2
    pushes = client.get("/api/leaderboard", params={"level": "builtin/3", "board": "pushes"})
    assert [e["name"] for e in pushes.json()["entries"]] == [b["name"], a["name"]]
    assert pushes.json()["me"] is None
    one = client.get("/api/leaderboard", params={"level": "builtin/3", "limit": 1}).json()
    assert len(one["entries"]) == 1


@pytest.mark.parametrize(
    "params",
    [
        {"level": "builtin/3", "board": "boxes"},
        {"level": "builtin/3", "limit": 0},
        {"level": "builtin/3", "limit": 101},
        {},
        {"level": "x"},
    ],
)
def test_bad_leaderboard_queries(client: TestClient, params: dict) -> None:
    error(client.get("/api/leaderboard", params=params), 422)


def test_leaderboard_of_an_unknown_level_is_404(client: TestClient) -> None:
    error(client.get("/api/leaderboard", params={"level": "builtin/9999"}), 404)


def test_ghosts(client: TestClient) -> None:
    level = builtin(client, 4)
    optimal = client.get("/api/ghost", params={"level": "builtin/4", "source": "optimal"})
    assert optimal.json()["lurd"] == level["solution"] and optimal.json()["seconds"] > 0
    error(client.get("/api/ghost", params={"level": "builtin/4"}), 404)  # no leader yet
    error(client.get("/api/ghost", params={"level": "builtin/4", "source": "best"}), 401)
    headers, me = sign_up(client)
    client.post(
        "/api/scores",
        headers=headers,
        json={"level_id": "builtin/4", "lurd": level["solution"], "seconds": 12.5},
    )
    leader = client.get("/api/ghost", params={"level": "builtin/4"}).json()
    assert leader == {"name": me["name"], "lurd": level["solution"], "seconds": 12.5}
    best = client.get(
        "/api/ghost", params={"level": "builtin/4", "source": "best"}, headers=headers
    )
    assert best.json()["lurd"] == level["solution"]
    error(client.get("/api/ghost", params={"level": "builtin/4", "source": "worst"}), 422)


# --- progress ---------------------------------------------------------------------------


def test_progress_merges_the_browsers_solutions(client: TestClient) -> None:
    headers, _ = sign_up(client)
    one, two = builtin(client, 5)["solution"], builtin(client, 6)["solution"]
    r = client.post(
        "/api/me/progress",
        headers=headers,
        json={
            "solutions": [
                {"level_id": "builtin/5", "lurd": one},
                {"level_id": "builtin/6", "lurd": two[:-1]},
                {"level_id": "builtin/99999", "lurd": "r"},
            ]
        },
    )
    assert r.status_code == 200, r.text
    merged = r.json()
    assert merged["accepted"] == 1
    assert [x["level_id"] for x in merged["refused"]] == ["builtin/6", "builtin/99999"]
    assert merged["levels"]["builtin/5"]["moves"]["lurd"] == one
    again = client.post(
        "/api/me/progress",
        headers=headers,
        json={"solutions": [{"level_id": "builtin/5", "lurd": one}]},
    )
    assert again.json()["accepted"] == 0  # already there
    got = client.get("/api/me/progress", headers=headers).json()
    assert got["levels"] == merged["levels"]
    assert client.get("/api/me", headers=headers).json()["solved"] == 1
    error(client.get("/api/me/progress"), 401)
    too_many = {"solutions": [{"level_id": "builtin/5", "lurd": one}] * 501}
    error(client.post("/api/me/progress", headers=headers, json=too_many), 422)


# --- daily ------------------------------------------------------------------------------


def test_todays_daily_level(client: TestClient) -> None:
    daily = client.get("/api/daily").json()
    day = datetime.date.fromisoformat(daily["date"])
    assert daily["date"] == today() and daily["band"] == band_of(day)
    assert daily["level"]["id"] == f"daily/{daily['date']}"
    assert daily["level"]["solution"] is None and daily["level"]["optimal"] is None
    assert daily["par"] == {"moves": 3, "pushes": 2}
    assert 0 < daily["seconds_left"] <= 86400
    assert client.get(f"/api/daily/{daily['date']}").json()["level"] == daily["level"]


def test_bands_follow_the_weekday() -> None:
    monday = datetime.date(2026, 11, 30)
    bands = [band_of(monday + datetime.timedelta(days=i)) for i in range(7)]
    assert bands[0] == "easy" and bands[-1] == "expert"
    order = ["easy", "medium", "hard", "expert"]
    assert [order.index(b) for b in bands] == sorted(order.index(b) for b in bands)
    assert len({seed_of(monday + datetime.timedelta(days=i)) for i in range(7)}) == 7


def test_days_ahead_are_made_and_stored_but_not_shown(client: TestClient) -> None:
    client.get("/api/daily")
    compete = client.app.state.compete  # type: ignore[attr-defined]
    start = datetime.datetime.now(datetime.UTC).date()
    days = [start + datetime.timedelta(days=i) for i in range(8)]
    for _ in range(100):  # the background maker runs in threads
        if compete.records.stored_days(days) == set(days):
            break
        __import__("time").sleep(0.05)
    assert compete.records.stored_days(days) == set(days)
    tomorrow = (start + datetime.timedelta(days=1)).isoformat()
    assert "to come" in error(client.get(f"/api/daily/{tomorrow}"), 404)
    error(client.get("/api/daily/2001-01-01"), 404)
    error(client.get("/api/daily/not-a-date"), 422)
    archive = client.get("/api/daily/archive").json()
    assert archive[0]["date"] == today() and all(a["date"] <= today() for a in archive)


def test_solving_the_daily_starts_a_streak_and_boards_it(client: TestClient) -> None:
    headers, me = sign_up(client)
    daily_id = f"daily/{today()}"
    r = client.post("/api/scores", headers=headers, json={"level_id": daily_id, "lurd": "rRR"})
    assert r.status_code == 201, r.text
    assert client.get("/api/me", headers=headers).json()["streak"] == 1
    board = client.get("/api/leaderboard", params={"level": daily_id}).json()
    assert board["optimal"] == {"moves": 3, "pushes": 2}
    assert me["name"] in [e["name"] for e in board["entries"]]
    assert "tomorrow" in error(
        client.get("/api/ghost", params={"level": daily_id, "source": "optimal"}), 403
    )


def test_the_daily_level_survives_a_restart_and_a_new_generator(db: Path) -> None:
    def other(day: datetime.date) -> DailyRow:
        return DailyRow(day, band_of(day), "#####\n#@$.#\n#####", "R", 1, 1, 0)

    with TestClient(
        create_app(Settings(db=str(db), solvers=1, warm=False, daily_maker=other, daily_ahead=0)),
        base_url="http://localhost",
    ) as c:
        assert c.get("/api/daily").json()["level"]["xsb"] == CORRIDOR


def test_streaks_count_days_in_a_row() -> None:
    from sokoban.web.routers.players import streaks

    d = datetime.date(2026, 12, 10)
    days = {d - datetime.timedelta(days=i) for i in (1, 2, 3, 5, 6, 7, 8)}
    assert streaks(days, d) == (3, 4)  # today still open: the run to yesterday counts
    assert streaks(days | {d}, d) == (4, 4)
    assert streaks(days, d + datetime.timedelta(days=1)) == (0, 4)
    assert streaks(set(), d) == (0, 0)


# --- races ------------------------------------------------------------------------------


def new_race(client: TestClient, headers: dict[str, str], **body: object) -> str:
    body = {"level_id": "builtin/1", "countdown": 0, **body}
    r = client.post("/api/races", headers=headers, json=body)
    assert r.status_code == 201, r.text
    code = r.json()["code"]
    assert r.json()["url"].endswith(code)
    return str(code)


def receive_until(ws: object, check: object, most: int = 50) -> dict:
    for _ in range(most):
        message = ws.receive_json()  # type: ignore[attr-defined]
        if check(message):  # type: ignore[operator]
            return message  # type: ignore[no-any-return]
    raise AssertionError("the expected message did not come")


def test_race_codes_are_long_random_and_not_enumerable(client: TestClient) -> None:
    headers, _ = sign_up(client)
    codes = {new_race(client, headers) for _ in range(5)}
    assert len(codes) == 5 and all(len(c) >= 22 for c in codes)
    error(client.get("/api/races/" + "A" * 22), 404)
    error(client.get("/api/races/1"), 404)


@pytest.mark.parametrize(
    ("body", "status"),
    [
        ({"band": "easy", "level_id": "builtin/1"}, 422),
        ({"level_id": None}, 422),
        ({"band": "impossible"}, 422),
        ({"level_id": "builtin/9999"}, 404),
        ({"level_id": "builtin/1", "time_limit": 5}, 422),
        ({"level_id": "builtin/1", "countdown": 61}, 422),
    ],
)
def test_bad_races_are_refused(client: TestClient, body: dict, status: int) -> None:
    headers, _ = sign_up(client)
    error(client.post("/api/races", headers=headers, json=body), status)


def test_a_band_race_picks_a_level_of_the_band(client: TestClient) -> None:
    headers, _ = sign_up(client)
    code = new_race(client, headers, level_id=None, band="hard")
    # The level is absent until the start: no one studies it in the lobby.
    assert client.get(f"/api/races/{code}").json()["level"] is None
    assert client.post(f"/api/races/{code}/start", headers=headers).status_code == 200
    level = client.get(f"/api/races/{code}").json()["level"]
    assert level["metadata"]["Difficulty"].endswith("(hard)") and level["solution"] is None


def test_join_and_start_rules(client: TestClient) -> None:
    host, _ = sign_up(client)
    guest, _ = sign_up(client)
    code = new_race(client, host, countdown=30)
    error(client.post(f"/api/races/{code}/join"), 401)
    assert client.post(f"/api/races/{code}/join", headers=guest).status_code == 200
    assert client.post(f"/api/races/{code}/join", headers=guest).status_code == 200  # twice
    assert len(client.get(f"/api/races/{code}").json()["players"]) == 2
    error(client.post(f"/api/races/{code}/start", headers=guest), 403)
    state = client.post(f"/api/races/{code}/start", headers=host).json()
    assert state["status"] == "countdown" and state["starts_at"] < state["ends_at"]
    error(client.post(f"/api/races/{code}/start", headers=host), 409)
    late, _ = sign_up(client)
    error(client.post(f"/api/races/{code}/join", headers=late), 409)
    error(client.post("/api/races/" + "B" * 22 + "/join", headers=late), 404)


def test_a_race_over_websockets(client: TestClient) -> None:
    solution = builtin(client)["solution"]
    host, a = sign_up(client)
    guest, b = sign_up(client)
    code = new_race(client, host)
    client.post(f"/api/races/{code}/join", headers=guest)
    url = f"ws://localhost/api/races/{code}/ws"
    with (
        client.websocket_connect(url) as ws_a,
        client.websocket_connect(url) as ws_b,
        client.websocket_connect(url) as watcher,
    ):
        ws_a.send_json({"type": "auth", "token": host["Authorization"][7:]})
        ws_b.send_json({"type": "auth", "token": guest["Authorization"][7:]})
        first = receive_until(watcher, lambda m: m["type"] == "state")
        assert first["status"] == "waiting" and first["level"] is None  # shown at the start
        ws_a.send_json({"type": "progress", "lurd": "l"})
        assert "waiting" in receive_until(ws_a, lambda m: m["type"] == "error")["detail"]
        client.post(f"/api/races/{code}/start", headers=host)
        running = receive_until(watcher, lambda m: m.get("status") == "running")
        assert running["level"]["xsb"] and running["level"]["solution"] is None
        ws_a.send_json({"type": "progress", "lurd": solution[:4]})
        seen = receive_until(
            ws_b, lambda m: m["type"] == "state" and any(p["moves"] == 4 for p in m["players"])
        )
        assert "level" not in seen  # only a socket's first state carries the level
        racer = next(p for p in seen["players"] if p["name"] == a["name"])
        assert racer["pushes"] == solution[:4].count("R") and racer["lurd"] is None
        ws_b.send_json({"type": "progress", "lurd": "uuuuuuu"})  # into a wall
        bad = receive_until(ws_b, lambda m: m["type"] == "error")
        assert bad["step"] is not None and "wall" in bad["detail"]
        ws_a.send_json({"type": "progress", "lurd": solution})  # solves: finished
        ws_b.send_json({"type": "finish", "lurd": "l"})  # gives up
        final = receive_until(watcher, lambda m: m.get("status") == "finished")
        assert [p["name"] for p in final["players"]] == [a["name"], b["name"]]
        assert [p["rank"] for p in final["players"]] == [1, 2]
        assert final["players"][0]["solved"] and final["players"][0]["lurd"] == solution
        assert final["players"][0]["seconds"] is not None
        for token in (host["Authorization"][7:], guest["Authorization"][7:]):
            assert token not in json.dumps(final)
    state = client.get(f"/api/races/{code}").json()
    assert state["status"] == "finished" and state["players"][0]["lurd"] == solution
    board = client.get("/api/leaderboard", params={"level": "builtin/1", "limit": 100}).json()
    assert a["name"] in [e["name"] for e in board["entries"]]  # the race's solve counts


@pytest.mark.parametrize(
    "message",
    [
        "not json",
        "[1, 2]",
        '{"type": "progress"}',
        '{"type": "jump", "lurd": "r"}',
        '{"type": "progress", "lurd": "r", "moves": 3}',
        '{"type": "progress", "lurd": 5}',
        '{"type": "auth", "token": "' + "x" * 300 + '"}',
        json.dumps({"type": "progress", "lurd": "r" * 200_300}),
    ],
)
def test_a_malformed_message_closes_that_socket_only(client: TestClient, message: str) -> None:
    host, _ = sign_up(client)
    code = new_race(client, host)
    url = f"ws://localhost/api/races/{code}/ws"
    with client.websocket_connect(url) as bad, client.websocket_connect(url) as good:
        bad.send_json({"type": "auth", "token": host["Authorization"][7:]})
        receive_until(bad, lambda m: m["type"] == "state")
        receive_until(good, lambda m: m["type"] == "state")
        bad.send_text(message)
        with pytest.raises(WebSocketDisconnect) as closed:
            for _ in range(10):
                bad.receive_json()
        assert closed.value.code == 1008
        client.post(f"/api/races/{code}/start", headers=host)
        assert receive_until(good, lambda m: m.get("status") == "running")


def test_websocket_bad_race_or_token(client: TestClient) -> None:
    with client.websocket_connect("ws://localhost/api/races/" + "C" * 22 + "/ws") as ws:
        with pytest.raises(WebSocketDisconnect) as closed:
            ws.receive_json()
    assert closed.value.code == 4404
    host, _ = sign_up(client)
    code = new_race(client, host)
    with client.websocket_connect(f"ws://localhost/api/races/{code}/ws?token=wrong") as ws:
        with pytest.raises(WebSocketDisconnect) as closed:
            ws.receive_json()
    assert closed.value.code == 4401


# --- limits and secrets -----------------------------------------------------------------


def test_submissions_are_rate_limited_per_player_and_per_address(client: TestClient) -> None:
    compete = client.app.state.compete  # type: ignore[attr-defined]
    headers, _ = sign_up(client)
    solution = builtin(client)["solution"]
    body = {"level_id": "builtin/1", "lurd": solution}
    compete.player_limit = RateLimiter(1, 3)
    codes = [client.post("/api/scores", headers=headers, json=body).status_code for _ in range(5)]
    assert codes == [201, 201, 201, 429, 429]
    r = client.post("/api/scores", headers=headers, json=body)
    assert r.status_code == 429 and int(r.headers["retry-after"]) >= 1
    other, _ = sign_up(client)
    assert client.post("/api/scores", headers=other, json=body).status_code == 201
    compete.address_limit = RateLimiter(1, 1)
    assert client.post("/api/players", json={"name": "limited"}).status_code in (201, 429)
    error(client.post("/api/players", json={"name": "limited2"}), 429)


def test_tokens_are_never_logged(client: TestClient, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    headers, body = sign_up(client)
    client.get("/api/me", headers=headers)
    client.post("/api/scores", headers=headers, json={"level_id": "builtin/1", "lurd": "x"})
    code = new_race(client, headers)
    with client.websocket_connect(f"ws://localhost/api/races/{code}/ws") as ws:
        ws.send_json({"type": "auth", "token": body["token"]})
        ws.send_text("garbage")
    assert body["token"] not in caplog.text


def test_a_race_ends_when_time_runs_out(client: TestClient) -> None:
    import sqlalchemy as sa

    from sokoban.records.tables import races

    host, _ = sign_up(client)
    code = new_race(client, host)
    client.post(f"/api/races/{code}/start", headers=host)
    compete = client.app.state.compete  # type: ignore[attr-defined]
    soon = datetime.datetime.now(datetime.UTC) + datetime.timedelta(seconds=0.5)
    with compete.records.engine.begin() as conn:  # a time limit of half a second
        conn.execute(sa.update(races).where(races.c.code == code).values(ends_at=soon))
    with client.websocket_connect(f"ws://localhost/api/races/{code}/ws") as ws:
        ws.send_json({"type": "auth", "token": host["Authorization"][7:]})
        receive_until(ws, lambda m: m.get("status") == "running")
        ws.send_json({"type": "progress", "lurd": "l"})  # no need to send anything more:
        final = receive_until(ws, lambda m: m.get("status") == "finished")  # the hub wakes
        assert final["players"][0]["finished"] and not final["players"][0]["solved"]
        ws.send_json({"type": "progress", "lurd": "l"})
        assert "finished" in receive_until(ws, lambda m: m["type"] == "error")["detail"]


def test_race_messages_are_rate_limited(client: TestClient) -> None:
    from sokoban.web.services.compete import MESSAGE_RATE

    host, _ = sign_up(client)
    code = new_race(client, host)
    client.post(f"/api/races/{code}/start", headers=host)
    compete = client.app.state.compete  # type: ignore[attr-defined]
    saved, compete.message_limit = compete.message_limit, RateLimiter(1, 2)
    try:
        with client.websocket_connect(f"ws://localhost/api/races/{code}/ws") as ws:
            ws.send_json({"type": "auth", "token": host["Authorization"][7:]})
            for _ in range(4):
                ws.send_json({"type": "progress", "lurd": ""})
            limited = receive_until(ws, lambda m: m["type"] == "error")
            assert limited["status"] == 429
            assert MESSAGE_RATE >= 10  # a client sending every 100 ms stays under it
    finally:
        compete.message_limit = saved


def test_the_generator_makes_the_same_daily_level_twice() -> None:
    from sokoban.level import Level
    from sokoban.lurd import verify
    from sokoban.web.services.daily_maker import make_daily

    monday = datetime.date(2026, 11, 30)
    first, again = make_daily(monday), make_daily(monday)
    assert first == again and first.band == "easy" and first.seed == seed_of(monday)
    played = verify(Level.from_xsb(first.xsb), first.solution)
    assert (played.metrics.moves, played.metrics.pushes) == (first.moves, first.pushes)


# --- fair play --------------------------------------------------------------------------


def test_an_assisted_solve_is_kept_but_not_ranked(client: TestClient) -> None:
    helped, body = sign_up(client)
    level = "builtin/2"
    lurd = builtin(client, 2)["solution"]
    r = client.post(
        "/api/scores", headers=helped, json={"level_id": level, "lurd": lurd, "assisted": True}
    )
    assert r.status_code == 201, r.text
    assert r.json()["assisted"] and r.json()["rank_moves"] is None
    board = client.get("/api/leaderboard", params={"level": level, "limit": 100}).json()
    assert body["name"] not in [e["name"] for e in board["entries"]]
    progress = client.get("/api/me/progress", headers=helped).json()["levels"][level]
    assert progress["moves"]["assisted"]  # solved, shown as assisted
    # The server knows when its solver helped: a solve of this board with the token.
    other, other_body = sign_up(client)
    xsb = builtin(client, 3)["xsb"]
    solved = client.post("/api/solve", headers=other, json={"level": xsb, "time_limit": 10})
    assert solved.status_code == 200, solved.text
    r = client.post(
        "/api/scores",
        headers=other,
        json={"level_id": "builtin/3", "lurd": solved.json()["lurd"]},
    )
    assert r.status_code == 201 and r.json()["assisted"], r.text
    board = client.get("/api/leaderboard", params={"level": "builtin/3", "limit": 100}).json()
    assert other_body["name"] not in [e["name"] for e in board["entries"]]


def _help_requests(start: str, step: str, played: str) -> dict[str, dict[str, object]]:
    """A request to each route of the solver's help (solve, which Hint, Solve and
    "Solvable?" ask; rewind; the deadlock check) about a board: from ``start`` with one
    ``step``, or at the position ``played``."""
    return {
        "/api/solve": {"level": played},
        "/api/rewind": {"level": start, "lurd": step},
        "/api/check": {"level": played},
    }


def test_no_solver_help_or_ghost_on_a_running_daily_or_race(client: TestClient) -> None:
    headers, _ = sign_up(client)
    daily = client.get("/api/daily").json()["level"]
    daily_id = f"daily/{today()}"
    played = CORRIDOR.replace("@ $", " @$")  # a position of today's board, one step in
    for path, body in _help_requests(daily["xsb"], "r", played).items():
        assert "daily" in error(client.post(path, json=body), 403), path
        # Signed in too.
        assert "daily" in error(client.post(path, json=body, headers=headers), 403), path
    # Another player's solution of today's daily is not served while the day runs.
    solver, _ = sign_up(client)
    client.post("/api/scores", headers=solver, json={"level_id": daily_id, "lurd": "rRR"})
    for source in ("leader", "optimal"):
        error(client.get("/api/ghost", params={"level": daily_id, "source": source}), 403)
    # A race's board: no solver, no leader's ghost, from its creation until it ends.
    xsb = builtin(client, 4)["xsb"]
    race_help = _help_requests(xsb, builtin(client, 4)["solution"][0], xsb)
    for path, body in race_help.items():
        assert client.post(path, json=body).status_code == 200, path
    new_race(client, headers, level_id="builtin/4", countdown=30)
    for path, body in race_help.items():
        assert "race" in error(client.post(path, json=body), 403), path
    error(client.get("/api/ghost", params={"level": "builtin/4", "source": "leader"}), 403)
    assert client.get("/api/levels/builtin/4").json()["solution"] is None  # until it ends
    page = client.get("/api/collections/builtin", params={"offset": 3, "limit": 2}).json()
    assert page["levels"][0]["solution"] is None and page["levels"][1]["solution"]


def test_lookalike_names_are_refused_and_recovery_codes_sign_in(client: TestClient) -> None:
    stem = f"Alice{next(_names)}"
    _, body = sign_up(client, stem)
    for lookalike in ("\u0410" + stem[1:], stem.upper(), "\uff21" + stem[1:]):
        assert "taken" in error(client.post("/api/players", json={"name": lookalike}), 409)
    code = body["recovery"]
    assert code and len(code.replace("-", "")) == 20
    again = client.post(
        "/api/players/recover", json={"name": stem.lower(), "recovery": code.lower()}
    )
    assert again.status_code == 200, again.text
    token = again.json()["token"]
    assert token != body["token"] and again.json()["recovery"] is None
    me = client.get("/api/me", headers={"Authorization": f"Bearer {token}"}).json()
    assert me["name"] == stem
    wrong = {"name": stem, "recovery": "AAAA-AAAA-AAAA-AAAA-AAAA"}
    error(client.post("/api/players/recover", json=wrong), 404)


def test_sign_ups_are_limited_per_address(tmp_path: Path) -> None:
    settings = Settings(db=str(tmp_path / "s.db"), solvers=1, warm=False, daily_ahead=-1)
    app = create_app(settings)  # the default limit: a burst of five, then one a minute
    with TestClient(app, base_url="http://localhost") as c:
        codes = [c.post("/api/players", json={"name": f"burst{i}"}).status_code for i in range(8)]
    assert codes[:5] == [201] * 5 and set(codes[5:]) == {429}


def test_the_openapi_document_declares_the_bearer_scheme(client: TestClient) -> None:
    doc = client.get("/openapi.json").json()
    assert doc["components"]["securitySchemes"]["HTTPBearer"]["scheme"] == "bearer"
    me = doc["paths"]["/api/me"]["get"]
    assert me["security"] == [{"HTTPBearer": []}] and "401" in me["responses"]


def test_a_nested_message_closes_with_1008_and_no_traceback(
    client: TestClient, caplog: pytest.LogCaptureFixture
) -> None:
    from starlette.websockets import WebSocketDisconnect

    headers, _ = sign_up(client)
    code = new_race(client, headers)
    with (
        caplog.at_level("DEBUG"),
        client.websocket_connect(f"ws://localhost/api/races/{code}/ws") as ws,
    ):
        ws.send_text("[" * 50_000)
        with pytest.raises(WebSocketDisconnect) as closed:
            while True:
                ws.receive_json()
    assert closed.value.code == 1008
    assert not [r for r in caplog.records if r.exc_info or "Traceback" in r.getMessage()]


def test_foreign_hosts_and_origins_are_refused(client: TestClient) -> None:
    from starlette.testclient import WebSocketDenialResponse
    from starlette.websockets import WebSocketDisconnect

    r = client.get("/", headers={"Host": "evil.example"})
    assert r.status_code == 400
    assert client.get("/static/app.js", headers={"Host": "evil.example"}).status_code == 400
    assert client.get("/api/health").status_code == 200  # localhost is ours
    headers, _ = sign_up(client)
    code = new_race(client, headers)
    url = f"ws://localhost/api/races/{code}/ws"
    with pytest.raises((WebSocketDisconnect, WebSocketDenialResponse)):
        with client.websocket_connect(url, headers={"Origin": "http://evil.example"}) as ws:
            ws.receive_json()
    with client.websocket_connect(url, headers={"Origin": "http://localhost"}) as ws:
        assert ws.receive_json()["type"] == "state"


def test_merged_assisted_solutions_stay_off_the_boards(client: TestClient) -> None:
    headers, body = sign_up(client)
    lurd = builtin(client, 7)["solution"]
    solutions = [{"level_id": "builtin/7", "lurd": lurd, "assisted": True}]
    r = client.post("/api/me/progress", headers=headers, json={"solutions": solutions})
    assert r.status_code == 200 and r.json()["accepted"] == 1, r.text
    assert r.json()["levels"]["builtin/7"]["moves"]["assisted"]
    board = client.get("/api/leaderboard", params={"level": "builtin/7", "limit": 100}).json()
    assert body["name"] not in [e["name"] for e in board["entries"]]
