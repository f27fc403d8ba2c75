"""One level on several threads (:func:`sokoban.solve._portfolio.race`): the first search
to settle the level stops the others, and the stop flag of :class:`Limits` ends a search."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest
from click.testing import CliRunner
from public import PublicLevels

from sokoban import Level
from sokoban.cli import main
from sokoban.solve import Limits, Progress, Status, _portfolio, solve

SMALL = Level.from_xsb("#######\n#@ $ .#\n# $ . #\n#    ##\n#######")


def test_a_set_stop_flag_ends_a_search_at_once() -> None:
    stop = threading.Event()
    stop.set()
    result = solve(SMALL, "bfs", Limits(time=60, stop=stop))
    assert result.status is Status.TIME_LIMIT
    assert result.message == "stopped: another search ended first"


def test_every_search_of_fast_keeps_the_stop_flag() -> None:
    # A thread of a race takes turns of several searches: each turn's limits must keep the
    # flag, or a thread goes on after another thread has won.
    stop = threading.Event()
    stop.set()
    result = solve(SMALL, "fast", Limits(time=60, stop=stop))
    assert result.status is Status.TIME_LIMIT and result.stats.expanded == 0
    assert result.message.endswith("stopped: another search ended first")


def test_the_retry_of_fess_keeps_the_stop_flag() -> None:
    # No solution, found only by searching: the first search runs out of positions with
    # its macros and the packed-walls test, which proves nothing, so fess searches again
    # without them. The flag set meanwhile must stop that second search.
    stuck = Level.from_xsb("#######\n# $  .#\n#  #.##\n## $ @#\n# .$  #\n#######")
    stop = threading.Event()

    def set_stop(_: Progress) -> None:
        stop.set()

    result = solve(stuck, "fess", Limits(time=60, stop=stop), progress=set_stop)
    assert result.status is Status.TIME_LIMIT, result.message
    assert result.message == "stopped: another search ended first"
    assert solve(stuck, "fess", Limits(time=60)).status is Status.UNSOLVABLE


def test_fast_on_two_threads_solves_and_says_which_thread() -> None:
    result = solve(SMALL, "fast", Limits(time=10), threads=2)
    assert result.solved and result.method == "fast"
    assert result.message.startswith(("thread 1 of 2", "thread 2 of 2"))


def test_the_first_thread_to_solve_stops_the_others(
    public_levels: PublicLevels, monkeypatch: pytest.MonkeyPatch
) -> None:
    # XSokoban 1: greedy solves it in milliseconds; A* alone takes seconds, so a quick end
    # means the winner stopped it.
    level = public_levels.level("xsokoban.xsb", 1)
    entries = (_portfolio.Entry("greedy"), _portfolio.Entry("astar"))
    monkeypatch.setattr(_portfolio, "entries_for", lambda _: entries)
    start = time.perf_counter()
    result = solve(level, "fast", Limits(time=120), threads=2)
    assert result.solved
    assert result.message.startswith("thread 1 of 2, greedy: solved")
    assert time.perf_counter() - start < 3


def test_threads_on_the_command_line(tmp_path: Path) -> None:
    path = tmp_path / "one.xsb"
    path.write_text(SMALL.xsb() + "\n")
    runner = CliRunner()
    ok = runner.invoke(main, ["solve", str(path), "-m", "fast", "--threads", "2", "-t", "10"])
    assert ok.exit_code == 0, ok.output
    assert "thread " in ok.output
    bad = runner.invoke(main, ["solve", str(path), "-m", "astar", "--threads", "2"])
    assert bad.exit_code == 2
    assert "threads" in bad.output and "Traceback" not in bad.output
