"""The competitive tables on SQLite and PostgreSQL: players, tokens, transfer codes, the
two boards of a level, daily levels, races (sokoban.records)."""

from __future__ import annotations

import datetime
import threading

import pytest
import sqlalchemy as sa

from sokoban.migrations import MIGRATIONS, current_version, open_store
from sokoban.records import (
    DailyRow,
    NameTakenError,
    RaceClosedError,
    RaceRecords,
    Records,
    hash_secret,
)


@pytest.fixture
def records(database_url: str) -> Records:
    return Records(open_store(database_url))


def test_schema_is_migrated_with_foreign_keys(records: Records) -> None:
    assert current_version(records.store) == len(MIGRATIONS)
    with pytest.raises(sa.exc.IntegrityError):
        records.add_score(999, "builtin/1", 3, 1, "rRR")  # no such player


def test_names_are_unique_ignoring_case_and_tokens_are_hashed(records: Records) -> None:
    ada = records.add_player("Ada", hash_secret("t1"))
    with pytest.raises(NameTakenError):
        records.add_player("ADA", hash_secret("t2"))
    assert records.player_by_token(hash_secret("t1")) == ada
    assert records.player_by_token(hash_secret("t2")) is None
    assert records.player_by_token("t1") is None  # the token itself is not what is stored
    with records.engine.connect() as conn:
        stored = conn.execute(sa.text("SELECT token_hash FROM player_tokens")).scalars().all()
    assert stored == [hash_secret("t1")]


def test_a_transfer_code_works_once_and_expires(records: Records) -> None:
    ada = records.add_player("Ada", hash_secret("t1"))
    later = datetime.datetime.now(datetime.UTC) + datetime.timedelta(minutes=5)
    records.add_transfer(ada.id, hash_secret("CODE"), later)
    assert records.claim_transfer(hash_secret("CODE"), hash_secret("t2")) == ada
    assert records.player_by_token(hash_secret("t2")) == ada
    assert records.player_by_token(hash_secret("t1")) == ada  # the first device keeps its
    assert records.claim_transfer(hash_secret("CODE"), hash_secret("t3")) is None
    past = datetime.datetime.now(datetime.UTC) - datetime.timedelta(seconds=1)
    records.add_transfer(ada.id, hash_secret("OLD"), past)
    assert records.claim_transfer(hash_secret("OLD"), hash_secret("t4")) is None


def test_boards_order_ties_and_one_entry_per_player(records: Records) -> None:
    a = records.add_player("a", hash_secret("a"))
    b = records.add_player("b", hash_secret("b"))
    c = records.add_player("c", hash_secret("c"))
    level = "builtin/1"
    records.add_score(a.id, level, 30, 10, "x")
    records.add_score(b.id, level, 30, 8, "y")  # same moves, fewer pushes: ahead of a
    records.add_score(c.id, level, 40, 6, "z")
    records.add_score(a.id, level, 50, 12, "w")  # worse: a's best stays
    records.add_score(c.id, level, 30, 8, "v")  # ties b exactly, later: behind b
    moves, _ = records.leaderboard(level, "moves")
    assert [(e.name, e.moves, e.pushes, e.rank) for e in moves] == [
        ("b", 30, 8, 1),
        ("c", 30, 8, 2),
        ("a", 30, 10, 3),
    ]
    pushes, me = records.leaderboard(level, "pushes", player_id=a.id)
    assert [(e.name, e.pushes, e.moves) for e in pushes] == [
        ("c", 6, 40),
        ("b", 8, 30),
        ("a", 10, 30),
    ]
    assert me is not None and me.rank == 3 and me.lurd == "x"
    assert records.board_size(level) == 3
    assert records.leaderboard("builtin/2", "moves") == ([], None)
    progress = records.progress(c.id)
    assert progress[level]["moves"]["lurd"] == "v" and progress[level]["pushes"]["lurd"] == "z"


def test_concurrent_submissions_lose_nothing_and_share_no_rank(records: Records) -> None:
    players = [records.add_player(f"p{i}", hash_secret(f"p{i}")) for i in range(8)]
    errors: list[BaseException] = []

    def submit(i: int) -> None:
        try:
            for k in range(10):
                records.add_score(players[i].id, "builtin/1", 20 + (i * 7 + k) % 5, 5, "x")
        except BaseException as error:  # pragma: no cover - reported below
            errors.append(error)

    threads = [threading.Thread(target=submit, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert records.count_scores() == 80
    entries, _ = records.leaderboard("builtin/1", "moves", 100)
    assert [e.rank for e in entries] == list(range(1, 9))
    assert sorted(e.name for e in entries) == sorted(p.name for p in players)
    assert all(e.moves == 20 for e in entries)  # everyone's best is counted


def test_daily_levels_are_kept_first_come(records: Records) -> None:
    day = datetime.date(2026, 12, 7)
    row = DailyRow(day, "expert", "#####\n#@$.#\n#####", "R", 1, 1, 42)
    assert records.add_daily(row)
    assert not records.add_daily(DailyRow(day, "expert", "other", "R", 1, 1, 43))
    assert records.daily(day) == row
    assert records.stored_days([day, day + datetime.timedelta(days=1)]) == {day}
    assert records.daily_days(day - datetime.timedelta(days=1)) == []
    assert records.daily_days(day) == [row]


def test_a_race_runs_in_the_database(records: Records) -> None:
    races = RaceRecords(records.store)
    host = records.add_player("host", hash_secret("h"))
    guest = records.add_player("guest", hash_secret("g"))
    races.create("c" * 22, host.id, "builtin/1", "#####\n#@$.#\n#####", 60, 0)
    race = races.get("c" * 22)
    assert race is not None and race.status(datetime.datetime.now(datetime.UTC)) == "waiting"
    assert races.join(race, guest.id, 10) and not races.join(races.get("c" * 22), guest.id, 10)  # type: ignore[arg-type]
    race = races.get("c" * 22)
    assert race is not None and [r.name for r in race.racers] == ["host", "guest"]
    races.start(race)
    with pytest.raises(RaceClosedError):
        races.start(race)
    race = races.get("c" * 22)
    assert race is not None and race.status(datetime.datetime.now(datetime.UTC)) == "running"
    with pytest.raises(RaceClosedError):
        races.join(race, records.add_player("late", hash_secret("l")).id, 10)
    assert not races.progress(race, host.id, "R", 1, 1, 1, True, True)[0]
    with pytest.raises(RaceClosedError):
        races.progress(race, host.id, "R", 1, 1, 1, True, True)  # finished is final
    assert races.progress(race, guest.id, "", 0, 0, 0, False, True)[0]  # the last closes it
    race = races.get("c" * 22)
    assert race is not None and race.status(datetime.datetime.now(datetime.UTC)) == "finished"
    assert race.version > 1 and races.versions(["c" * 22]) == {"c" * 22: race.version}
    assert records.leaderboard("builtin/1", "moves")[0][0].name == "host"  # kept as a score


def test_submit_ranks_agree_with_the_boards(records: Records) -> None:
    import random

    rng = random.Random(5)
    players = [records.add_player(f"r{i}", hash_secret(f"r{i}")) for i in range(6)]
    sent: dict[int, list[tuple[int, int]]] = {}
    for _ in range(40):
        p = rng.choice(players)
        moves, pushes = rng.randrange(10, 14), rng.randrange(3, 6)
        improved, rank_moves, rank_pushes = records.submit(p.id, "mine/1", moves, pushes, "x")
        old = sent.setdefault(p.id, [])
        assert improved == (
            not old or (moves, pushes) < min(old) or (pushes, moves) < min((b, a) for a, b in old)
        )
        old.append((moves, pushes))
        for board, rank in (("moves", rank_moves), ("pushes", rank_pushes)):
            _, me = records.leaderboard("mine/1", board, player_id=p.id)
            assert me is not None and me.rank == rank
