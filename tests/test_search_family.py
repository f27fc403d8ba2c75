"""The search family (bfs-moves, bidirectional, ida, sma): optimal lengths against the slow
reference searches of tests/naive.py, SMA* inside shrinking budgets, limits, bad
options, the kernels' table deletion, and the compare and curve commands."""

from __future__ import annotations

import json

import naive
import numpy as np
import pytest
from click.testing import CliRunner

from sokoban import Level, verify
from sokoban.cli import main
from sokoban.errors import SokobanError
from sokoban.solve import METHODS, Limits, Progress, SolveResult, Status, _sma, _table, solve
from sokoban.solve._sma import MemoryBoundedStats, sma_bytes
from sokoban.solve._successors import unlink

FAMILY = ("bfs-moves", "bidirectional", "ida", "sma")
PUSH_OPTIMAL = ("bidirectional", "ida", "sma", "astar")


def level(text: str) -> Level:
    return Level.from_xsb(text.strip("\n"))


# Our own small levels: each has a solution that needs some thought of the search
# (boxes in each other's way, a box to fetch from behind another).
OWN = [
    """
#######
#@ $ .#
#######""",
    """
######
#    #
# #@ #
# $* #
# .* #
#    #
######""",
    """
 ####
 #  ###
 #.$  #
## .$ #
#  @  #
#   ###
#####""",
    """
  #####
  #   #
  #$# #
### # ##
#.  $  #
#. @   #
########""",
    """
#######
#.  . #
# $$  #
#  @  #
#######""",
    """
########
#   #  #
# $   .#
#@$##  #
#  .#  #
########""",
]
# Microban levels the references solve in about a second.
MICROBAN = [1, 2, 3, 4, 6]


def check_solved(result: SolveResult, start: Level) -> None:
    assert result.status is Status.SOLVED, result.message
    assert result.solution is not None
    assert verify(start, result.solution).is_solved


def agree_with_references(start: Level) -> None:
    moves = naive.fewest_moves(start)
    pushes = naive.fewest_pushes(start)
    assert moves is not None and pushes is not None
    result = solve(start, "bfs-moves", Limits(time=60))
    check_solved(result, start)
    assert result.optimal and result.solution is not None
    assert result.solution.moves == moves
    for method in PUSH_OPTIMAL:
        result = solve(start, method, Limits(time=60))
        check_solved(result, start)
        assert result.optimal, method
        assert result.solution is not None and result.solution.pushes == pushes, method


@pytest.mark.parametrize("text", OWN)
def test_methods_agree_with_references_on_own_levels(text: str) -> None:
    agree_with_references(level(text))


@pytest.fixture(scope="module")
def microban(public_levels):  # type: ignore[no-untyped-def]
    return public_levels.by_index("microban.xsb")  # microban[n - 1] is Microban n


@pytest.mark.parametrize("number", MICROBAN)
def test_methods_agree_with_references_on_microban(microban, number: int) -> None:  # type: ignore[no-untyped-def]
    agree_with_references(microban[number - 1])


def test_family_is_registered_with_what_it_optimises() -> None:
    assert METHODS["bfs-moves"].optimises == "moves"
    for name in ("bidirectional", "ida", "sma"):
        assert METHODS[name].optimises == "pushes"
        assert METHODS[name].optimal


UNSOLVABLE = [
    # Two boxes jammed in a corridor, the player on the wrong side of both.
    """
#########
#.$$@  .#
#########""",
    # The box can move but only along the top wall, away from the goal's row.
    """
#######
#  $  #
#  @  #
#     #
##.####
 ###""",
    # Either box can reach a goal, but not both: found by a search of random rooms.
    """
########
# @    #
#  #$# #
# #  ###
## $  ##
#  . . #
########""",
]


@pytest.mark.parametrize("text", UNSOLVABLE)
def test_unsolvable_levels_are_reported_for_every_method(text: str) -> None:
    start = level(text)
    assert naive.fewest_pushes(start) is None
    for method in FAMILY:
        result = solve(start, method, Limits(time=30))
        assert result.status is Status.UNSOLVABLE, (method, result.message)
        assert result.solution is None and not result.optimal


# --- SMA* in a budget -----------------------------------------------------------------------


def sma_shrinking(start: Level) -> list[MemoryBoundedStats]:
    """Run SMA* on ``start`` down to the smallest budget that holds an optimal path,
    checking every run; returns the statistics of each."""
    best = naive.fewest_pushes(start)
    assert best is not None
    roomy = solve(start, "sma", budget=100_000)
    assert isinstance(roomy.stats, MemoryBoundedStats)
    assert roomy.stats.forgotten == 0
    seen = []
    # A path of ``best`` pushes holds best + 1 states: the smallest budget that fits it.
    for budget in (200, 60, 40, best + 3, best + 2, best + 1):
        result = solve(start, "sma", Limits(time=60), budget=budget)
        check_solved(result, start)
        assert result.optimal
        assert result.solution is not None and result.solution.pushes == best, budget
        stats = result.stats
        assert isinstance(stats, MemoryBoundedStats)
        assert stats.budget_nodes == budget
        assert 0 < stats.peak_nodes <= budget
        assert stats.peak_bytes <= stats.budget_bytes
        seen.append(stats)
    assert seen[-1].forgotten > 0
    return seen


@pytest.mark.parametrize("text", OWN[2:])
def test_sma_stays_optimal_while_its_budget_shrinks(text: str) -> None:
    sma_shrinking(level(text))


@pytest.mark.parametrize("number", [1, 3, 4, 6])
def test_sma_stays_optimal_on_microban_while_its_budget_shrinks(microban, number: int) -> None:  # type: ignore[no-untyped-def]
    runs = sma_shrinking(microban[number - 1])
    if number == 3:
        # Here the forgotten part of the tree is needed again: it is regenerated.
        assert runs[-1].regenerated > 0


@pytest.mark.parametrize("text", [OWN[2], OWN[4]])
def test_sma_says_when_the_solution_cannot_fit(text: str) -> None:
    start = level(text)
    best = naive.fewest_pushes(start)
    assert best is not None
    for budget in (best, best // 2, 1):
        result = solve(start, "sma", Limits(time=60), budget=budget)
        assert result.status is Status.MEMORY_LIMIT, (budget, result.message)
        assert result.solution is None and not result.optimal
        assert isinstance(result.stats, MemoryBoundedStats)
        assert result.stats.peak_nodes <= budget


def test_sma_budget_in_bytes_is_a_hard_ceiling() -> None:
    start = level(OWN[3])
    best = naive.fewest_pushes(start)
    for memory in (30_000, 60_000, 1 << 20):
        result = solve(start, "sma", Limits(time=60), budget_bytes=memory)
        stats = result.stats
        assert isinstance(stats, MemoryBoundedStats)
        assert stats.peak_bytes <= memory
        assert stats.peak_nodes <= stats.budget_nodes
        if stats.budget_nodes > best:
            check_solved(result, start)
            assert result.solution is not None and result.solution.pushes == best
    # The memory limit works the same way.
    limited = solve(start, "sma", Limits(time=60, memory=60_000))
    assert limited.stats.peak_bytes <= 60_000


def test_sma_bytes_are_what_its_arrays_take() -> None:
    start = level(OWN[2])
    result = solve(start, "sma", budget=1000)
    stats = result.stats
    assert isinstance(stats, MemoryBoundedStats)
    assert stats.peak_bytes == stats.budget_bytes
    # The budget's arrays plus a fixed part (the board, scratch): no hidden growth.
    arrays = sma_bytes(1000, len(start.boxes))
    assert arrays < stats.peak_bytes < arrays + 64 * 1024


def test_sma_arrays_grow_without_changing_the_search(microban, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    start = microban[5]
    whole = solve(start, "sma", budget=5000)
    monkeypatch.setattr(_sma, "SMA_START_NODES", 16)
    grown = solve(start, "sma", budget=5000)
    assert grown.solution is not None and whole.solution is not None
    assert grown.solution.pushes == whole.solution.pushes
    assert grown.stats.expanded == whole.stats.expanded
    assert grown.stats.peak_bytes < whole.stats.peak_bytes <= whole.stats.budget_bytes
    assert isinstance(grown.stats, MemoryBoundedStats)
    assert grown.stats.peak_nodes > 16


# --- limits and options ---------------------------------------------------------------------


def test_bfs_moves_refuses_levels_too_big_for_memory() -> None:
    start = level(OWN[3])
    result = solve(start, "bfs-moves", Limits(memory=20_000))
    assert result.status is Status.MEMORY_LIMIT
    assert "refused" in result.message and "MiB" in result.message
    assert result.stats.expanded == 0
    # Forced, it tries and the memory limit still stops it.
    forced = solve(start, "bfs-moves", Limits(memory=8_000), force=True)
    assert forced.status is Status.MEMORY_LIMIT, forced.message
    assert 0 < forced.stats.peak_bytes <= 8_000
    assert forced.stats.expanded > 0


def test_ida_without_room_to_record_states_stays_optimal(microban) -> None:  # type: ignore[no-untyped-def]
    start = microban[79]  # IDA* records about 1,400 states here
    best = solve(start, "astar").solution
    assert best is not None
    free = solve(start, "ida")
    assert free.stats.stored > 1000
    memory = free.stats.peak_bytes - 100_000
    cramped = solve(start, "ida", Limits(memory=memory))
    check_solved(cramped, start)
    assert cramped.solution is not None and cramped.solution.pushes == best.pushes
    assert cramped.stats.peak_bytes <= memory
    assert cramped.stats.stored < free.stats.stored


@pytest.mark.parametrize("method", FAMILY)
def test_limits_stop_every_method(method: str, microban) -> None:  # type: ignore[no-untyped-def]
    start = microban[10]
    options = {"force": True} if method == "bfs-moves" else {}
    stopped = solve(start, method, Limits(nodes=5), **options)
    assert stopped.status is Status.NODE_LIMIT, stopped.message
    assert stopped.stats.expanded <= 5 and stopped.solution is None
    timed = solve(start, method, Limits(time=0))
    assert timed.status in (Status.TIME_LIMIT, Status.MEMORY_LIMIT), timed.message


@pytest.mark.parametrize("method", FAMILY)
def test_unknown_options_are_errors(method: str) -> None:
    with pytest.raises(SokobanError, match="unknown option 'colour'"):
        solve(level(OWN[0]), method, colour="red")


def test_bad_budgets_and_bounds_are_errors() -> None:
    with pytest.raises(SokobanError, match="budget"):
        solve(level(OWN[0]), "sma", budget=-3)
    with pytest.raises(SokobanError, match="bound"):
        solve(level(OWN[0]), "ida", bound="manhattan")


def test_nearest_bound_gives_the_same_optimum() -> None:
    start = level(OWN[4])
    best = naive.fewest_pushes(start)
    for method in ("ida", "sma", "bidirectional"):
        result = solve(start, method, bound="nearest")
        assert result.solution is not None and result.solution.pushes == best, method


# --- kernels ----------------------------------------------------------------------------------


def test_unlink_keeps_every_other_entry_findable() -> None:
    rng = np.random.default_rng(7)
    count = 300
    boxes = rng.integers(0, 20, size=(count, 2)).astype(np.int16)
    player = np.arange(count, dtype=np.int32)
    # Few distinct hashes so that probe runs are long and wrap around the table's end.
    hashes = rng.integers(0, 40, size=count).astype(np.uint64) * np.uint64(97) + np.uint64(500)
    table = np.full(512, -1, np.int32)
    for node in range(count):
        slot = _table.find(table, hashes[node], boxes[node], player[node], hashes, boxes, player)
        assert slot < 0
        table[-slot - 1] = node
    alive = set(range(count))
    for node in rng.permutation(count)[:200]:
        assert unlink(table, int(node), hashes)
        alive.discard(int(node))
        for other in list(alive)[::7]:
            found = _table.find(
                table, hashes[other], boxes[other], player[other], hashes, boxes, player
            )
            assert found == other
    assert sorted(int(x) for x in table if x >= 0) == sorted(alive)
    assert not unlink(table, int(next(iter(set(range(count)) - alive))), hashes)


# --- the commands -----------------------------------------------------------------------------


@pytest.fixture
def tiny(tmp_path):  # type: ignore[no-untyped-def]
    path = tmp_path / "own.xsb"
    path.write_text("\n\n".join(text.strip("\n") for text in OWN) + "\n")
    return path


def test_compare_gives_a_row_per_method(tiny) -> None:  # type: ignore[no-untyped-def]
    methods = "astar,ida,sma,bidirectional,bfs-moves"
    result = CliRunner().invoke(main, ["compare", str(tiny), "-l", "3", "-m", methods, "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    rows = {r["method"]: r for r in data["methods"]}
    assert list(rows) == methods.split(",")
    best = naive.fewest_pushes(level(OWN[2]))
    for name in ("astar", "ida", "sma", "bidirectional"):
        assert rows[name]["status"] == "solved" and rows[name]["pushes"] == best
        assert rows[name]["optimal"] and rows[name]["optimises"] == "pushes"
    assert rows["bfs-moves"]["moves"] == naive.fewest_moves(level(OWN[2]))
    text = CliRunner().invoke(main, ["compare", str(tiny), "-l", "3", "-m", "ida,sma"])
    assert text.exit_code == 0 and "ida" in text.output and "peak" in text.output


def test_compare_fails_when_no_method_solves(tmp_path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "stuck.xsb"
    path.write_text("#####\n#@$.#\n#.$ #\n#####\n")  # the lower box can never move up
    result = CliRunner().invoke(main, ["compare", str(path), "-m", "astar,ida", "--json"])
    assert result.exit_code == 1
    rows = json.loads(result.stdout)["methods"]
    assert [r["status"] for r in rows] == ["unsolvable", "unsolvable"]
    assert "no method solved level 1" in result.stderr


def test_compare_rejects_unknown_methods(tiny) -> None:  # type: ignore[no-untyped-def]
    result = CliRunner().invoke(main, ["compare", str(tiny), "-l", "1", "-m", "astar,nope"])
    assert result.exit_code == 2
    assert "'nope' is not a method" in result.output
    assert "Traceback" not in result.output


def test_curve_writes_a_table_and_a_plot(tiny, tmp_path) -> None:  # type: ignore[no-untyped-def]
    best = naive.fewest_pushes(level(OWN[2]))
    assert best is not None
    plot = tmp_path / "curve.png"
    budgets = f"{best},{best + 1},{best + 4},1000"
    args = ["curve", str(tiny), "-l", "3", "--budgets", budgets, "-o", str(plot), "--json"]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["optimum"] == best and data["plot"] == str(plot)
    runs = {r["budget_nodes"]: r for r in data["runs"]}
    assert runs[best]["status"] == "memory limit" and runs[best]["pushes"] is None
    for budget in (best + 1, best + 4, 1000):
        assert runs[budget]["pushes"] == best and runs[budget]["matches_optimum"]
        assert runs[budget]["peak_nodes"] <= budget
    assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    table = CliRunner().invoke(
        main, ["curve", str(tiny), "-l", "3", "--budgets", "50", "--no-plot"]
    )
    assert table.exit_code == 0 and "regen" in table.output and "50" in table.output


def test_curve_rejects_bad_budgets(tiny) -> None:  # type: ignore[no-untyped-def]
    result = CliRunner().invoke(main, ["curve", str(tiny), "-l", "1", "--budgets", "100,lots"])
    assert result.exit_code == 2
    assert "'lots' is not a whole number" in result.output


@pytest.mark.parametrize("method", FAMILY)
def test_progress_is_reported_between_kernel_calls(method: str, microban) -> None:  # type: ignore[no-untyped-def]
    seen: list[tuple[int, int, float]] = []

    def progress(now: Progress) -> None:
        seen.append((now.expanded, now.nbytes, now.seconds))

    options = {"force": True} if method == "bfs-moves" else {}
    result = solve(microban[110], method, Limits(time=0.3), progress=progress, **options)
    assert seen, result.message
    assert [e for e, _, _ in seen] == sorted(e for e, _, _ in seen)
    assert seen[-1][0] <= result.stats.expanded and seen[-1][1] <= result.stats.peak_bytes


def _optimal_rows(public_levels) -> list[tuple[int, int]]:  # type: ignore[no-untyped-def]
    """(level, pushes) of optimal.csv's Microban rows; a small sample under CI."""
    import os

    rows = public_levels.optima()
    known = [(int(r["level"]), int(r["pushes"])) for r in rows if r["file"] == "microban.xsb"]
    return known[:: 25 if os.environ.get("SOKOBAN_SAMPLE") == "small" else 10]


@pytest.mark.slow
@pytest.mark.parametrize("method", ["ida", "sma", "bidirectional"])
def test_family_matches_optimal_csv(method: str, microban, public_levels) -> None:  # type: ignore[no-untyped-def]
    solved = 0
    for number, pushes in _optimal_rows(public_levels):
        result = solve(microban[number - 1], method, Limits(time=10))
        if result.status is Status.TIME_LIMIT:
            continue
        assert result.status is Status.SOLVED, (number, result.message)
        assert result.solution is not None and result.solution.pushes == pushes, number
        solved += 1
    assert solved > 0


@pytest.mark.parametrize("method", FAMILY)
def test_a_memory_limit_of_zero_is_a_clear_result(method: str) -> None:
    result = solve(level(OWN[3]), method, Limits(memory=0))
    assert result.status is Status.MEMORY_LIMIT, result.message
    assert result.solution is None and result.message


def _random_rooms(seed: int, count: int) -> list[Level]:
    """Small random rooms with 1-3 boxes that the references handle in well under a second."""
    import random

    rng = random.Random(seed)
    rooms: list[Level] = []
    while len(rooms) < count:
        w, h, nb = rng.randint(4, 6), rng.randint(4, 5), rng.randint(1, 3)
        grid = [["#"] * (w + 2) for _ in range(h + 2)]
        for y in range(1, h + 1):
            for x in range(1, w + 1):
                grid[y][x] = "#" if rng.random() < 0.18 else " "
        cells = [(x, y) for y in range(1, h + 1) for x in range(1, w + 1) if grid[y][x] == " "]
        if len(cells) < 2 * nb + 2:
            continue
        picked = rng.sample(cells, 2 * nb + 1)
        for (x, y), char in zip(picked, "@" + "$" * nb + "." * nb, strict=True):
            grid[y][x] = char
        room = Level.from_xsb("\n".join("".join(row) for row in grid))
        if not room.problems():
            rooms.append(room)
    return rooms


def test_family_agrees_with_references_on_random_rooms() -> None:
    for room in _random_rooms(2026, 80):
        pushes = naive.fewest_pushes(room, 100_000)
        moves = naive.fewest_moves(room, 200_000)
        result = solve(room, "bfs-moves")
        assert (result.solution.moves if result.solution else None) == moves, room.xsb()
        for method in ("bidirectional", "ida", "sma"):
            result = solve(room, method)
            assert (result.solution.pushes if result.solution else None) == pushes, (method, room)
        if pushes:
            tight = solve(room, "sma", budget=pushes + 1)
            assert tight.solution is not None and tight.solution.pushes == pushes, room.xsb()
