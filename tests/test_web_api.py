"""The web API through FastAPI's TestClient: every endpoint with good and bad input.

One server for the module: a pool of one solver process, a temporary database.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from pathlib import Path

import pytest

with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # starlette's note about httpx versions
    from fastapi.testclient import TestClient

from sokoban import Level
from sokoban.web import Settings, create_app
from sokoban.web.middleware import CSP

CORRIDOR = "#######\n#@ $ .#\n#######"
SQUARE = "#####\n#.  #\n# $ #\n#@$.#\n#####"
FILE = f"; Two levels\n\nCorridor\n{CORRIDOR}\n\nSquare\nAuthor: Me\n{SQUARE}\n"


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    folder = tmp_path_factory.mktemp("web")
    levels = folder / "two.xsb"
    levels.write_text(FILE)
    settings = Settings(
        collections=(levels,), db=str(folder / "t.db"), solvers=1, queue=2, signup_burst=100
    )
    with TestClient(create_app(settings), base_url="http://localhost") as c:
        yield c


def sign_up(client: TestClient, name: str) -> dict[str, str]:
    """A new player's Authorization header."""
    r = client.post("/api/players", json={"name": name})
    assert r.status_code == 201, r.text
    return {"Authorization": f"Bearer {r.json()['token']}"}


def mine(client: TestClient, headers: dict[str, str] | None = None) -> tuple[int, list[dict]]:
    """The count of ``mine`` in the list of collections, and its page, as ``headers`` ask."""
    (summary,) = [
        c for c in client.get("/api/collections", headers=headers).json() if c["id"] == "mine"
    ]
    page = client.get("/api/collections/mine", headers=headers).json()
    assert page["count"] == summary["count"]
    return summary["count"], page["levels"]


def one_line_error(response: object, status: int) -> str:
    assert response.status_code == status, response.text  # type: ignore[attr-defined]
    detail = response.json()["detail"]  # type: ignore[attr-defined]
    assert isinstance(detail, str) and detail and "\n" not in detail
    assert "Traceback" not in detail
    return detail


# --- pages ------------------------------------------------------------------------------


def test_page_and_every_response_carry_the_security_headers(client: TestClient) -> None:
    for path in ("/", "/api/collections", "/api/levels/nope/1", "/docs", "/openapi.json"):
        r = client.get(path)
        assert r.headers["content-security-policy"] == CSP, path
        assert r.headers["x-content-type-options"] == "nosniff"
        assert r.headers["x-frame-options"] == "DENY"
    assert "script-src 'self'" in CSP and "unsafe-inline" not in CSP
    assert client.get("/").headers["content-type"].startswith("text/html")


def test_static_files_are_served_and_cacheable(client: TestClient) -> None:
    r = client.get("/static/index.html?v=1")
    assert r.status_code == 200 and "immutable" in r.headers["cache-control"]
    bare = client.get("/static/index.html")
    assert bare.headers["cache-control"] == "no-cache" and bare.headers["etag"]
    again = client.get("/static/index.html", headers={"if-none-match": bare.headers["etag"]})
    assert again.status_code == 304
    assert client.head("/").status_code == 200
    assert client.get("/static/no-such-file.js").status_code == 404
    assert client.get("/static/../app.py").status_code == 404


def test_docs_page_loads_only_our_own_files(client: TestClient) -> None:
    page = client.get("/docs").text
    assert "/docs/apidocs.js" in page and "http" not in page.replace("/openapi.json", "")
    assert client.get("/docs/apidocs.js").status_code == 200
    assert client.get("/docs/other.js").status_code == 404
    paths = client.get("/openapi.json").json()["paths"]
    for path in (
        "/api/solve",
        "/api/check",
        "/api/verify",
        "/api/parse",
        "/api/levels",
        "/api/rewind",
        "/api/methods",
        "/api/collections/{cid}",
    ):
        assert path in paths


def test_health(client: TestClient) -> None:
    assert client.get("/api/health").json()["solvers"] == 1


# --- collections and levels ---------------------------------------------------------------


def test_collections_list_builtin_then_files_then_mine(client: TestClient) -> None:
    found = client.get("/api/collections").json()
    assert [c["id"] for c in found] == ["builtin", "two", "mine"]
    assert found[0]["count"] >= 30 and not found[0]["editable"]
    assert found[1]["title"] == "Two levels" and found[1]["count"] == 2
    assert found[2]["editable"]


def test_collection_pages(client: TestClient) -> None:
    page = client.get("/api/collections/builtin?offset=2&limit=3").json()
    assert page["offset"] == 2 and [lv["index"] for lv in page["levels"]] == [3, 4, 5]
    assert client.get("/api/collections/two").json()["count"] == 2
    one_line_error(client.get("/api/collections/nope"), 404)
    one_line_error(client.get("/api/collections/two?limit=0"), 422)
    one_line_error(client.get("/api/collections/two?offset=-1"), 422)


def test_level_as_json(client: TestClient) -> None:
    level = client.get("/api/levels/two/2").json()
    assert level["id"] == "two/2" and level["title"] == "Square"
    assert level["metadata"] == {"Author": "Me"}
    assert (level["width"], level["height"]) == (5, 5)
    assert level["player"] == [3, 1]
    assert sorted(level["boxes"]) == [[2, 2], [3, 2]]
    assert sorted(level["goals"]) == [[1, 1], [3, 3]]
    assert [1, 2] in level["floor"] and [0, 0] not in level["floor"]
    assert Level.from_xsb(level["xsb"]) == Level.from_xsb(SQUARE)
    assert level["solution"] is None and level["optimal"] is None


def test_builtin_levels_carry_optimal_solutions(client: TestClient) -> None:
    level = client.get("/api/levels/builtin/1").json()
    assert level["solution"] and level["optimal"]["pushes"] > 0
    check = client.post(
        "/api/verify", json={"level": level["xsb"], "solution": level["solution"]}
    ).json()
    assert check["solved"] and check["pushes"] == level["optimal"]["pushes"]


def test_unknown_levels(client: TestClient) -> None:
    assert "numbers start at 1" in one_line_error(client.get("/api/levels/two/3"), 404)
    one_line_error(client.get("/api/levels/two/0"), 422)
    one_line_error(client.get("/api/levels/two/x"), 422)
    one_line_error(client.get("/api/levels/nope/1"), 404)


# --- solve ----------------------------------------------------------------------------------


def test_solve_and_cache(client: TestClient) -> None:
    body = {"level": SQUARE, "method": "astar", "time_limit": 5}
    first = client.post("/api/solve", json=body).json()
    assert first["status"] == "solved" and first["optimal"] and not first["cached"]
    replayed = Level.from_xsb(SQUARE).replay(first["lurd"])
    assert replayed.is_solved and first["pushes"] == replayed.metrics.pushes
    again = client.post("/api/solve", json=body).json()
    assert again["cached"] and again["lurd"] == first["lurd"]


def test_solve_takes_the_json_form(client: TestClient) -> None:
    level = client.get("/api/levels/two/1").json()
    shape = {k: level[k] for k in ("width", "height", "walls", "goals", "boxes", "player")}
    answer = client.post("/api/solve", json={"level": shape}).json()
    assert answer["status"] == "solved" and answer["lurd"] == "rRR"


def test_solve_unsolvable(client: TestClient) -> None:
    answer = client.post(
        "/api/solve", json={"level": "######\n#$  .#\n#@   #\n######", "method": "astar"}
    ).json()
    assert answer["status"] == "unsolvable" and answer["lurd"] is None


@pytest.mark.parametrize(
    ("body", "words"),
    [
        ({"level": CORRIDOR, "method": "magic"}, "unknown method"),
        ({"level": CORRIDOR, "time_limit": 31}, "less than or equal to 30"),
        ({"level": CORRIDOR, "time_limit": 0}, "greater than 0"),
        ({"level": "#####\n#@ .#\n#####"}, "no boxes"),
        ({"level": "#####\n#@$.#\n#2(#\n"}, "line 3"),
        ({"level": "hello"}, "no board rows"),
        ({"level": "#" * 101 + "\n#@$.#"}, "100"),
        (
            {"level": {"width": 3, "height": 1, "walls": [], "goals": [], "boxes": [[0, 5]]}},
            "off the 3 x 1 board",
        ),
        (
            {"level": {"width": 3, "height": 1, "walls": [[0, 0]], "goals": [], "boxes": [[0, 0]]}},
            "wall",
        ),
        ({"lvl": CORRIDOR}, "level"),
        ({"level": CORRIDOR, "extra": 1}, "extra"),
        ({"level": 5}, "level"),
    ],
)
def test_solve_refuses_bad_requests(client: TestClient, body: dict, words: str) -> None:
    assert words in one_line_error(client.post("/api/solve", json=body), 422)


def test_malformed_and_oversized_bodies(client: TestClient) -> None:
    one_line_error(
        client.post("/api/solve", content=b"{", headers={"content-type": "application/json"}),
        422,
    )
    one_line_error(client.post("/api/solve", content=b"x" * (2 << 20)), 413)
    one_line_error(client.get("/api/nothing"), 404)
    one_line_error(client.put("/api/solve", json={}), 405)


def test_full_queue_answers_503_with_retry_after(client: TestClient) -> None:
    pool = client.app.state.sokoban.pool  # type: ignore[attr-defined]
    saved = pool.pending
    pool.pending = pool.capacity  # every slot taken
    try:
        r = client.post("/api/solve", json={"level": "#######\n#@$  .#\n#######"})
    finally:
        pool.pending = saved
    one_line_error(r, 503)
    assert int(r.headers["retry-after"]) >= 1
    # Answers already in the cache still come back when the queue is full.
    pool.pending = pool.capacity
    try:
        r = client.post("/api/solve", json={"level": SQUARE, "method": "astar"})
    finally:
        pool.pending = saved
    assert r.status_code == 200 and r.json()["cached"]


def test_methods(client: TestClient) -> None:
    methods = {m["name"]: m for m in client.get("/api/methods").json()}
    assert methods["astar"]["optimal"] and methods["astar"]["optimises"] == "pushes"
    assert "fast" in methods


# --- check, verify, rewind -------------------------------------------------------------------


def test_check(client: TestClient) -> None:
    assert client.post("/api/check", json={"level": CORRIDOR}).json() == {
        "dead": False,
        "reason": None,
        "dead_boxes": [],
    }
    dead = client.post("/api/check", json={"level": "######\n#$  .#\n#@   #\n######"}).json()
    assert dead == {"dead": True, "reason": "dead square", "dead_boxes": [[1, 1]]}
    assert "no player" in one_line_error(
        client.post("/api/check", json={"level": "#####\n# $.#\n#####"}), 422
    )


def test_verify(client: TestClient) -> None:
    ok = client.post("/api/verify", json={"level": CORRIDOR, "solution": "rRR"}).json()
    assert ok == {
        "solved": True,
        "moves": 3,
        "pushes": 2,
        "box_lines": 1,
        "box_changes": 1,
        "pushing_sessions": 1,
        "player_lines": 1,
    }
    part = client.post("/api/verify", json={"level": CORRIDOR, "solution": "r"}).json()
    assert not part["solved"] and part["moves"] == 1
    r = client.post("/api/verify", json={"level": CORRIDOR, "solution": "rRRR"})
    assert "index 3" in one_line_error(r, 422) and r.json()["step"] == 3
    assert "'x'" in one_line_error(
        client.post("/api/verify", json={"level": CORRIDOR, "solution": "rx"}), 422
    )


def test_rewind_finds_the_last_solvable_step(client: TestClient) -> None:
    level = "#######\n#     #\n# $  .#\n#@    #\n#######"
    # Push the box up against the wall (dead), then walk about.
    history = "rU" + "lr"
    answer = client.post("/api/rewind", json={"level": level, "lurd": history}).json()
    assert answer["steps"] == 1 and answer["lurd"] == "r" and answer["status"] == "solved"
    assert Level.from_xsb(level).replay("r" + answer["solution"]).is_solved
    whole = client.post("/api/rewind", json={"level": CORRIDOR, "lurd": "rR"}).json()
    assert whole["steps"] == 2
    r = client.post("/api/rewind", json={"level": CORRIDOR, "lurd": "l"})
    assert r.json()["step"] == 0 and "wall" in one_line_error(r, 422)
    long = client.post("/api/rewind", json={"level": CORRIDOR, "lurd": "50001(rl)"})
    assert "over 100,000" in one_line_error(long, 422)


# --- parse and save ------------------------------------------------------------------------


def test_parse_reads_levels_and_reports_broken_ones(client: TestClient) -> None:
    text = "; 1\n#####\n#@$.#\n#####\n\n; 2\n#2(#\n\n; 3\n5#|#@$.#|5#\n"
    answer = client.post("/api/parse", json={"text": text}).json()
    assert [lv["title"] for lv in answer["levels"]] == ["1", "3"]
    assert answer["levels"][1]["id"] == "import/2"
    assert answer["errors"] == [
        {"line": 7, "message": "level 2: unclosed '(' in a board row at line 7: '#2(#'"}
    ]
    empty = client.post("/api/parse", json={"text": "hello"}).json()
    assert empty["levels"] == [] and empty["errors"][0]["message"]
    one_line_error(client.post("/api/parse", json={"text": 3}), 422)


def test_save_keeps_levels_in_mine_and_titles_stay_text(client: TestClient) -> None:
    me = sign_up(client, "Saver")
    hostile = "<script>alert(1)</script>"
    saved = client.post("/api/levels", json={"level": SQUARE, "title": hostile}, headers=me)
    assert saved.status_code == 201
    level = saved.json()
    assert level["collection"] == "mine" and level["title"] == hostile
    assert level["id"] == f"mine/{level['index']}"
    assert client.get(f"/api/levels/mine/{level['index']}").json()["title"] == hostile
    assert client.get(f"/api/levels/{level['id']}").headers["content-type"] == "application/json"
    count, levels = mine(client, me)
    assert count == 1 and [lv["id"] for lv in levels] == [level["id"]]
    bad = client.post("/api/levels", json={"level": "#####\n#@ .#\n#####"}, headers=me)
    assert "no boxes" in one_line_error(bad, 422)
    long_title = {"level": SQUARE, "title": "x" * 201}
    one_line_error(client.post("/api/levels", json=long_title, headers=me), 422)
    assert "numbered 999" in one_line_error(client.get("/api/levels/mine/999"), 404)
    assert mine(client, me)[0] == 1  # nothing refused was kept


def test_saving_needs_a_player(client: TestClient) -> None:
    detail = one_line_error(client.post("/api/levels", json={"level": SQUARE}), 401)
    assert detail.startswith("sign in to save levels")
    stale = {"Authorization": "Bearer not-a-token"}
    assert "unknown token" in one_line_error(
        client.post("/api/levels", json={"level": SQUARE}, headers=stale), 401
    )
    one_line_error(client.get("/api/collections", headers=stale), 401)
    # Signed out, mine is empty and says how to fill it.
    (summary,) = [c for c in client.get("/api/collections").json() if c["id"] == "mine"]
    assert summary["count"] == 0 and "Sign in" in summary["description"]
    assert mine(client) == (0, [])


def test_mine_is_each_players_own_and_its_links_open_for_everyone(client: TestClient) -> None:
    ada, bob = sign_up(client, "Ada"), sign_up(client, "Bob")
    first = client.post("/api/levels", json={"level": CORRIDOR, "title": "A1"}, headers=ada)
    theirs = client.post("/api/levels", json={"level": SQUARE, "title": "B1"}, headers=bob)
    second = client.post("/api/levels", json={"level": SQUARE, "title": "A2"}, headers=ada)
    a1, b1, a2 = (r.json() for r in (first, theirs, second))
    # Numbers are the store's, the same for everyone: Bob's level sits between Ada's.
    assert a1["index"] < b1["index"] < a2["index"]
    assert [lv["title"] for lv in mine(client, ada)[1]] == ["A1", "A2"]
    assert [lv["id"] for lv in mine(client, ada)[1]] == [a1["id"], a2["id"]]
    assert [lv["title"] for lv in mine(client, bob)[1]] == ["B1"]
    assert a1["id"] not in [lv["id"] for lv in mine(client, bob)[1]]
    # A share link of Ada's level opens for Bob and for a visitor signed out...
    for headers in (bob, None):
        shared = client.get(f"/api/levels/{a1['id']}", headers=headers)
        assert shared.status_code == 200 and shared.json()["title"] == "A1"
    # ...and the scores keyed by its id work for anyone.
    score = client.post("/api/scores", json={"level_id": a1["id"], "lurd": "rRR"}, headers=bob)
    assert score.status_code == 201 and score.json()["rank_moves"] == 1, score.text
    board = client.get("/api/leaderboard", params={"level": a1["id"]}).json()
    assert [e["name"] for e in board["entries"]] == ["Bob"]
    ghost = client.get("/api/ghost", params={"level": a1["id"], "source": "leader"})
    assert ghost.status_code == 200 and ghost.json()["lurd"] == "rRR"


def test_saved_levels_survive_a_restart(tmp_path: Path) -> None:
    db = str(tmp_path / "keep.db")
    app = create_app(Settings(db=db, solvers=1, warm=False))
    client = TestClient(app, base_url="http://localhost")  # no lifespan: no solver needed to save
    me = sign_up(client, "Keeper")
    saved = client.post("/api/levels", json={"level": CORRIDOR, "title": "kept"}, headers=me)
    again = TestClient(
        create_app(Settings(db=db, solvers=1, warm=False)), base_url="http://localhost"
    )
    assert again.get(f"/api/levels/{saved.json()['id']}").json()["title"] == "kept"
    assert [lv["title"] for lv in mine(again, me)[1]] == ["kept"]


def test_a_bad_level_field_is_said_in_words(client: TestClient) -> None:
    level = {"width": "x", "height": 3, "walls": [], "goals": [], "boxes": [], "player": [1, 1]}
    r = client.post("/api/check", json={"level": level})
    assert r.status_code == 422
    detail = r.json()["detail"]
    assert detail.startswith("level.width: ") and "integer" in detail and "'x'" in detail
    assert "constrained-str" not in detail and "LevelJson" not in detail


def test_the_access_log_has_one_line_per_request_and_no_token(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    settings = Settings(db=str(tmp_path / "a.db"), solvers=1, warm=False, access_log=True)
    app = create_app(settings)
    client = TestClient(app, base_url="http://localhost")
    with caplog.at_level("INFO", logger="sokoban.web.access"):
        client.get("/api/health?token=secret123")
        client.get("/api/me", headers={"Authorization": "Bearer secret456"})
    lines = [r.getMessage() for r in caplog.records if r.name == "sokoban.web.access"]
    assert len(lines) == 2 and " GET /api/health 200 " in lines[0] and " 401 " in lines[1]
    assert not any("secret" in line for line in lines)
