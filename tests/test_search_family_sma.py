"""SMA*'s bound cache against the slow reference search of tests/naive.py: optimal
pushes at many budgets, from the smallest that holds the path up, with the cache as sized
and crowded (one entry per node, so that entries are evicted all the time) and with the
rule that applies learned bounds at equal depth; budgets that never pass their bytes; and
budgets too large to allocate refused."""

from __future__ import annotations

import random
from functools import cache

import naive
import pytest
from test_search_family import OWN, _random_rooms, check_solved, level

from sokoban import Level
from sokoban.errors import BudgetTooLargeError, SokobanError
from sokoban.solve import DEFAULT_MEMORY, Limits, Status, _sma, solve
from sokoban.solve._sma import MemoryBoundedStats, sma_bytes

#: Microban levels 1-10 but 7, and larger ones where tight budgets make SMA* forget and
#: learn a lot, all of which the reference search solves in a few seconds at most (7, 35
#: and 54 take about 10 s each: they are in the slow test below).
MICROBAN = [1, 2, 3, 4, 5, 6, 8, 9, 10]
LARGER = [22, 29, 42, 47, 48, 57, 59, 60]


@pytest.fixture(scope="module")
def microban(public_levels):  # type: ignore[no-untyped-def]
    return public_levels.by_index("microban.xsb")  # microban[n - 1] is Microban n


@cache
def _fewest(text: str) -> int | None:
    return naive.fewest_pushes(Level.from_xsb(text))


def fewest(start: Level) -> int | None:
    return _fewest(start.xsb())


def budgets_for(best: int) -> list[int]:
    """From the smallest budget that holds an optimal path (best + 1 states) up."""
    return sorted({best + 1, best + 2, best + 3, best + 5, best + 9, 2 * best + 4, 64, 300})


def check_budgets(start: Level, best: int, **options: object) -> list[MemoryBoundedStats]:
    runs = []
    for budget in budgets_for(best):
        result = solve(start, "sma", Limits(time=60), budget=budget, **options)
        check_solved(result, start)
        assert result.optimal
        assert result.solution is not None
        assert result.solution.pushes == best, (budget, options, result.message)
        stats = result.stats
        assert isinstance(stats, MemoryBoundedStats)
        assert 0 < stats.peak_nodes <= budget == stats.budget_nodes
        assert stats.peak_bytes <= stats.budget_bytes
        runs.append(stats)
    return runs


@pytest.fixture(params=[32, 1], ids=["cache as sized", "crowded cache"])
def per_node(request, monkeypatch):  # type: ignore[no-untyped-def]
    monkeypatch.setattr(_sma, "SMA_CACHE_PER_NODE", request.param)
    return request.param


@pytest.mark.parametrize("text", OWN[1:])
def test_sma_agrees_with_the_reference_at_every_budget_on_own_levels(text, per_node) -> None:  # type: ignore[no-untyped-def]
    start = level(text)
    best = fewest(start)
    assert best is not None
    check_budgets(start, best)


@pytest.mark.parametrize("number", MICROBAN)
def test_sma_agrees_with_the_reference_at_every_budget_on_microban(  # type: ignore[no-untyped-def]
    microban, number, per_node
) -> None:
    start = microban[number - 1]
    best = fewest(start)
    assert best is not None
    check_budgets(start, best)


@pytest.mark.parametrize("number", LARGER)
def test_sma_agrees_with_the_reference_on_larger_microban(microban, number: int) -> None:  # type: ignore[no-untyped-def]
    start = microban[number - 1]
    best = fewest(start)
    assert best is not None
    runs = check_budgets(start, best)
    # The tight budgets forget, and the cache raises the bounds of states met again.
    assert runs[0].forgotten > 0
    if number in (29, 42, 59):
        assert runs[0].learned > 0


@pytest.mark.slow
@pytest.mark.parametrize("number", [7, 35, 54])
def test_sma_agrees_with_the_reference_on_slower_microban(microban, number: int) -> None:  # type: ignore[no-untyped-def]
    start = microban[number - 1]
    best = fewest(start)
    assert best is not None
    check_budgets(start, best)


@pytest.mark.parametrize("learn", ["at-least", "deeper", "off"])
def test_every_learning_rule_agrees_with_the_reference(learn: str, microban) -> None:  # type: ignore[no-untyped-def]
    # Without learned bounds at equal depth SMA* thrashes on larger levels: small ones here.
    for number in (3, 6, 10):
        start = microban[number - 1]
        best = fewest(start)
        assert best is not None
        runs = check_budgets(start, best, learn=learn)
        if learn == "off":
            assert all(r.learned == 0 and r.cache_entries == 0 for r in runs)


def test_sma_agrees_with_the_reference_on_random_rooms(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    rng = random.Random(36)
    checked = 0
    for room in _random_rooms(4036, 600):
        best = naive.fewest_pushes(room, 100_000)
        if not best:
            continue
        monkeypatch.setattr(_sma, "SMA_CACHE_PER_NODE", rng.choice([1, 2, 32]))
        for budget in sorted({best + 1, best + 1 + rng.randrange(4), best + 12}):
            result = solve(room, "sma", Limits(time=30), budget=budget)
            assert result.solution is not None, (budget, room.xsb(), result.message)
            assert result.solution.pushes == best, (budget, room.xsb())
            assert result.stats.peak_bytes <= result.stats.budget_bytes
        checked += 1
    assert checked > 60


def test_learned_bounds_remove_the_cliff_on_microban_36(microban) -> None:  # type: ignore[no-untyped-def]
    """Within 1,000 nodes SMA* without learned bounds thrashes on Microban 36 (it needed
    10,000 nodes); with them it solves it in well under 200,000 expansions."""
    start = microban[35]
    limits = Limits(nodes=200_000)
    learned = solve(start, "sma", limits, budget=1000)
    check_solved(learned, start)
    assert learned.solution is not None and learned.solution.pushes == 59
    assert learned.stats.expanded < 200_000
    assert learned.stats.peak_bytes <= learned.stats.budget_bytes
    plain = solve(start, "sma", limits, budget=1000, learn="off")
    assert plain.status is Status.NODE_LIMIT


def test_a_node_budget_pays_for_its_cache(microban) -> None:  # type: ignore[no-untyped-def]
    start = microban[35]
    nb = len(start.boxes)
    result = solve(start, "sma", Limits(time=30), budget=500)
    stats = result.stats
    assert isinstance(stats, MemoryBoundedStats)
    assert stats.cache_entries == 500 * _sma.SMA_CACHE_PER_NODE
    # The cache is counted: what the budget's bytes say is what the arrays took.
    assert stats.budget_bytes == stats.peak_bytes
    assert stats.budget_bytes == sma_bytes(500, nb, stats.budget_bytes - sma_bytes(500, nb))
    assert sma_bytes(500, nb) - sma_bytes(500, nb, learn="off") >= 16 * stats.cache_entries - 64


def test_a_byte_budget_is_shared_with_the_cache() -> None:
    start = level(OWN[3])
    best = fewest(start)
    for memory in (40_000, 200_000):
        on = solve(start, "sma", Limits(time=60), budget_bytes=memory)
        off = solve(start, "sma", Limits(time=60), budget_bytes=memory, learn="off")
        assert on.stats.peak_bytes <= memory and off.stats.peak_bytes <= memory
        assert on.stats.budget_nodes < off.stats.budget_nodes
        assert on.solution is not None and on.solution.pushes == best


def test_unreasonable_budgets_are_refused_without_a_memory_limit() -> None:
    start = level(OWN[2])
    with pytest.raises(BudgetTooLargeError, match="budget=1000000000 nodes") as info:
        solve(start, "sma", budget=1_000_000_000)
    assert isinstance(info.value, ValueError) and isinstance(info.value, SokobanError)
    with pytest.raises(BudgetTooLargeError, match="budget_bytes=4294967296"):
        solve(start, "sma", budget_bytes=4 << 30)
    # Under the default memory it runs; with a memory limit the smaller wins, as before.
    fits = solve(start, "sma", budget=1000)
    assert fits.status is Status.SOLVED
    capped = solve(start, "sma", Limits(memory=100_000), budget=1_000_000_000)
    assert capped.status is Status.SOLVED
    assert capped.stats.peak_bytes <= 100_000
    assert sma_bytes(capped.stats.budget_nodes, len(start.boxes)) <= DEFAULT_MEMORY


# --- IDA*'s learned bounds --------------------------------------------------------------------


@pytest.mark.parametrize("learn", ["at-least", "off"])
def test_ida_agrees_with_the_reference_with_and_without_learned_bounds(learn, microban) -> None:  # type: ignore[no-untyped-def]
    for number in MICROBAN + LARGER:
        start = microban[number - 1]
        result = solve(start, "ida", Limits(time=60), learn=learn)
        check_solved(result, start)
        assert result.solution is not None and result.solution.pushes == fewest(start), number
    for text in OWN[1:]:
        start = level(text)
        result = solve(start, "ida", Limits(time=60), learn=learn)
        assert result.solution is not None and result.solution.pushes == fewest(start)


def test_ida_on_random_rooms_with_learned_bounds() -> None:
    checked = 0
    for room in _random_rooms(4037, 600):
        best = naive.fewest_pushes(room, 100_000)
        if best is None:
            continue  # unsolvable rooms are the family tests' business
        checked += 1
        result = solve(room, "ida", Limits(time=30))
        assert (result.solution.pushes if result.solution else None) == best, room.xsb()
    assert checked > 60


def test_ida_learned_bounds_save_expansions(microban) -> None:  # type: ignore[no-untyped-def]
    start = microban[35]
    learned = solve(start, "ida", Limits(nodes=2_000_000))
    plain = solve(start, "ida", Limits(nodes=2_000_000), learn="off")
    for result in (learned, plain):
        check_solved(result, start)
        assert result.solution is not None and result.solution.pushes == 59
    assert 2 * learned.stats.expanded < plain.stats.expanded


# --- the curve command ----------------------------------------------------------------------


def test_curve_refuses_budgets_too_large_before_searching(tmp_path) -> None:  # type: ignore[no-untyped-def]
    import json

    from click.testing import CliRunner

    from sokoban.cli import main

    path = tmp_path / "own.xsb"
    path.write_text(OWN[2].strip("\n") + "\n")
    big = CliRunner().invoke(main, ["curve", str(path), "--budgets", "100,9000000", "--no-plot"])
    assert big.exit_code == 2, big.output
    assert "9,000,000 nodes needs" in big.output and "Traceback" not in big.output
    runs = {}
    for learn in ("at-least", "off"):
        args = ["curve", str(path), "--budgets", "12,40", "--no-plot", "--json", "--learn", learn]
        result = CliRunner().invoke(main, args)
        assert result.exit_code == 0, result.output
        runs[learn] = json.loads(result.output)["runs"]
    for on, off in zip(runs["at-least"], runs["off"], strict=True):
        assert on["pushes"] == off["pushes"] == fewest(level(OWN[2]))
        assert on["cache_entries"] == 32 * on["budget_nodes"] and off["cache_entries"] == 0
        assert on["peak_bytes"] <= on["budget_bytes"] and off["peak_bytes"] <= off["budget_bytes"]
        assert off["learned"] == 0
