"""Solver results on the public collections: push-optimal lengths against optimal.csv.

The fast suite checks a fixed sample of Microban rows; ``@pytest.mark.slow`` runs every
row (CI samples them with ``SOKOBAN_SAMPLE``).
"""

from __future__ import annotations

import os
from typing import Any

import pytest
from public import PUBLIC

from sokoban.solve import Limits, Status, solve

#: Microban levels the fast suite solves (each well under a second), those at hand.
FAST = PUBLIC.numbers(
    "microban.xsb",
    [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 15, 17, 21, 25, 30, 34, 40, 47, 60, 72, 88, 101],
)


def _rows() -> list[dict[str, str]]:
    return list(PUBLIC.optima())


def _collection(name: str) -> Any:
    return PUBLIC.by_index(name)  # [n - 1] is level n of the full collection


def _known(name: str, number: int) -> int:
    return PUBLIC.pushes(name, number)


def _sample(rows: list[dict[str, str]]) -> list[dict[str, str]]:
    if os.environ.get("SOKOBAN_SAMPLE") == "small":
        return rows[::25]
    return rows


@pytest.mark.parametrize("number", FAST)
def test_astar_matches_optimal_csv_on_fast_sample(number: int) -> None:
    level = _collection("microban.xsb")[number - 1]
    result = solve(level, "astar", Limits(time=30))
    assert result.status is Status.SOLVED
    assert result.optimal and result.solution is not None
    assert result.solution.pushes == _known("microban.xsb", number)


@pytest.mark.parametrize("method", ["greedy", "wastar"])
def test_fast_methods_on_microban_sample(method: str) -> None:
    for number in FAST[::3]:
        level = _collection("microban.xsb")[number - 1]
        result = solve(level, method, Limits(time=30))
        assert result.solved and result.solution is not None
        assert result.solution.pushes >= _known("microban.xsb", number)


@pytest.mark.slow
@pytest.mark.parametrize("row", _sample(_rows()), ids=lambda row: f"{row['file']}-{row['level']}")
def test_astar_matches_every_optimal_csv_row(row: dict[str, str]) -> None:
    level = _collection(row["file"])[int(row["level"]) - 1]
    result = solve(level, "astar", Limits(time=10))
    if result.status is Status.TIME_LIMIT:
        pytest.skip("not solved within 10 s")
    assert result.status is Status.SOLVED
    assert result.solution is not None and result.solution.pushes == int(row["pushes"])


def _labels(entries: tuple[Any, ...]) -> tuple[str, ...]:
    return tuple(f"{entry.label}: " for entry in entries)


@pytest.mark.parametrize("number", [1, 10, 146])
def test_fast_names_the_search_of_its_portfolio_that_solved(number: int) -> None:
    from sokoban.lurd import verify
    from sokoban.solve import _portfolio

    level = _collection("microban.xsb")[number - 1]
    result = solve(level, "fast", Limits(time=30))
    assert result.solved and result.solution is not None and result.method == "fast"
    assert verify(level, result.solution).is_solved
    searches = _portfolio.entries_for(level) + _portfolio.spare_for(level)
    assert result.message.startswith(_labels(searches))
    assert result.solution.pushes >= _known("microban.xsb", number)


def test_fast_is_optimal_when_astar_settles_the_level(monkeypatch: pytest.MonkeyPatch) -> None:
    from sokoban.solve import _portfolio

    monkeypatch.setattr(_portfolio, "SMALL", (_portfolio.Entry("astar"),))
    level = _collection("microban.xsb")[9]
    result = solve(level, "fast", Limits(time=60))
    assert result.solved and result.optimal and result.solution is not None
    assert result.solution.pushes == _known("microban.xsb", 10) == 21
    assert result.message == "astar: solved in 21 pushes (optimal)"
    assert result.lower_bound is not None and result.lower_bound <= 21


def test_fast_proves_a_level_unsolvable() -> None:
    from sokoban import Level

    stuck = Level.from_xsb("#######\n# $  .#\n#  #.##\n## $ @#\n# .$  #\n#######")
    result = solve(stuck, "fast", Limits(time=30))
    assert result.status is Status.UNSOLVABLE


def test_turns_under_a_node_limit_give_every_search_a_share() -> None:
    # Without a time limit the turns still go round: the first search may not take all.
    from sokoban.solve import METHODS, _portfolio
    from sokoban.solve._tables import Tables
    from sokoban.solve._turns import take_turns

    level = PUBLIC.level("xsokoban.xsb", 29)  # no search settles it in 600 expansions
    options = {o.name: o.default for o in METHODS["fast"].options if o.name != "threads"}
    entrants = _portfolio.make_all(_portfolio.BIG, Tables(level), options, _portfolio.LATE_BIG)
    found = take_turns(entrants, Limits(nodes=600))
    assert found.run.limit == "nodes" and found.expanded <= 600
    # Every search but the late ones, which join only at the longest turns.
    assert all(entrant.expanded > 0 for entrant in entrants if not entrant.late)
    assert all(entrant.search is None for entrant in entrants if entrant.late)
    assert solve(level, "fast", Limits(nodes=600)).status is Status.NODE_LIMIT
