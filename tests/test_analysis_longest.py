"""The layout search: symmetry classes, maxima against brute force, checkpoints, executors."""

from __future__ import annotations

import itertools
import json
import re
import sys
from pathlib import Path

import numpy as np
import pytest

from sokoban import verify
from sokoban.analysis import AnalysisError, analyse
from sokoban.analysis.longest_puzzle import (
    anneal,
    chunks,
    iter_layouts,
    layout_room,
    longest,
    symmetries,
    unrank,
)

sys.path.insert(0, str(Path(__file__).resolve().parent))
import naive_single_box as naive  # noqa: E402


def brute_force(width, height, k):
    """Most moves and pushes over every layout (no symmetry) from whole tables; how many
    canonical layouts reach each, how many there are, and how many have a solvable
    placement."""
    best = {"moves": -1, "pushes": -1}
    per_layout = {}
    for combo in itertools.combinations(range(width * height), k):
        table = analyse(layout_room(width, height, combo))
        per_layout[combo] = (int(table.moves.max()), int(table.pushes.max()))
        best["moves"] = max(best["moves"], per_layout[combo][0])
        best["pushes"] = max(best["pushes"], per_layout[combo][1])
    canonical = list(iter_layouts(width, height, k))
    ties = {
        "moves": sum(per_layout[c][0] == best["moves"] for c in canonical),
        "pushes": sum(per_layout[c][1] == best["pushes"] for c in canonical),
    }
    solvable = sum(per_layout[c][0] >= 0 for c in canonical)
    return best, ties, len(canonical), solvable


@pytest.mark.parametrize("room", [(3, 3, 2), (4, 3, 2), (4, 4, 3), (5, 2, 3)])
def test_maxima_match_brute_force_over_every_layout(room):
    best, ties, count, solvable = brute_force(*room)
    result = longest(*room, workers=0)
    assert result.proven and result.layouts == count
    assert (result.best_moves, result.best_pushes) == (best["moves"], best["pushes"])
    assert (result.moves_ties, result.pushes_ties) == (ties["moves"], ties["pushes"])
    # The histograms count the layouts with a solvable placement.
    assert result.hist_moves.sum() == result.hist_pushes.sum() == solvable


def test_symmetry_classes_by_burnside():
    # 2 obstacles in 4 x 4: (120 + 0 + 0 + 8 + 8 + 8 + 12 + 12) / 8 = 21 classes.
    assert len(list(iter_layouts(4, 4, 2))) == 21
    assert longest(4, 4, 2, workers=0).layouts == 21
    perms = symmetries(4, 3)
    assert len(perms) == 4 and len(symmetries(5, 5)) == 8
    for p in symmetries(5, 5):
        assert sorted(p) == list(range(25))


def test_unrank_walks_combinations_in_order():
    combos = list(itertools.combinations(range(7), 3))
    assert [tuple(unrank(i, 7, 3)) for i in range(len(combos))] == combos


def test_winners_replay_and_are_canonical():
    result = longest(5, 4, 2, workers=0)
    canonical = set(iter_layouts(5, 4, 2))
    for metric in ("moves", "pushes"):
        assert result.winners(metric)
        for winner in result.winners(metric):
            assert winner.obstacles in canonical
            witness = winner.witness(5, 4, metric)
            replay = verify(witness.level, witness.solution)
            assert getattr(replay.metrics, metric) == result.best(metric)


def test_chunk_size_does_not_change_the_answer():
    a = longest(4, 4, 3, workers=0, chunk_size=7)
    b = longest(4, 4, 3, workers=0)
    assert len(chunks(4, 4, 3, 7)) > len(chunks(4, 4, 3))
    assert (a.layouts, a.best_moves, a.best_pushes, a.moves_ties) == (
        b.layouts,
        b.best_moves,
        b.best_pushes,
        b.moves_ties,
    )
    assert a.moves_winners == b.moves_winners
    assert np.array_equal(a.hist_moves, b.hist_moves)


def test_interrupted_run_resumes_from_its_checkpoint(tmp_path):
    path = tmp_path / "run.json"
    full = longest(4, 4, 3, workers=0, chunk_size=20)
    part = longest(4, 4, 3, workers=0, chunk_size=20, checkpoint=path, stop_after=5)
    assert not part.proven and part.chunks_done == 5 < part.chunks
    saved = json.loads(path.read_text())
    assert len(saved["chunks"]) == 5
    resumed = longest(4, 4, 3, workers=0, chunk_size=20, checkpoint=path)
    assert resumed.proven
    assert (resumed.layouts, resumed.best_moves, resumed.best_pushes) == (
        full.layouts,
        full.best_moves,
        full.best_pushes,
    )
    assert resumed.pushes_winners == full.pushes_winners
    with pytest.raises(AnalysisError, match="another run"):
        longest(4, 4, 2, workers=0, checkpoint=path)


def test_processes_give_the_same_answer():
    local = longest(5, 3, 2, workers=0)
    spread = longest(5, 3, 2, workers=2, chunk_size=10)
    assert (spread.layouts, spread.best_moves, spread.best_pushes) == (
        local.layouts,
        local.best_moves,
        local.best_pushes,
    )


def test_search_on_a_local_dask_cluster():
    distributed = pytest.importorskip("dask.distributed")
    local = longest(4, 4, 2, workers=0)
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    ) as cluster:
        remote = longest(4, 4, 2, scheduler=cluster.scheduler_address, chunk_size=16)
    assert remote.proven
    assert (remote.layouts, remote.best_moves, remote.best_pushes) == (
        local.layouts,
        local.best_moves,
        local.best_pushes,
    )


def test_anneal_is_a_lower_bound_with_a_valid_witness():
    exact = longest(5, 4, 3, workers=0)
    found = anneal(5, 4, 3, "moves", seconds=0.5, seed=1, workers=0)
    assert not found.proven and found.method == "anneal"
    assert 0 < found.best_moves <= exact.best_moves
    winner = found.moves_winners[0]
    witness = winner.witness(5, 4, "moves")
    assert verify(witness.level, witness.solution).metrics.moves == found.best_moves


def test_bad_rooms_are_refused():
    with pytest.raises(AnalysisError, match="0 x 3"):
        longest(0, 3, 1, workers=0)
    with pytest.raises(AnalysisError, match="10 obstacles"):
        longest(3, 3, 10, workers=0)
    with pytest.raises(AnalysisError, match="positive"):
        anneal(4, 4, 2, seconds=0, workers=0)


def test_fully_blocked_room_has_no_winner():
    result = longest(2, 2, 3, workers=0)
    assert result.best_moves == -1 and result.moves_winners == []


def docs_table() -> dict[tuple[int, int, int], tuple[int, int]]:
    """The proven maxima printed in docs/single-box.md."""
    text = (Path(__file__).resolve().parents[1] / "docs" / "single-box.md").read_text()
    rows = re.findall(r"^\| (\d+)x(\d+) \|(.*)\|$", text, re.MULTILINE)
    table = {}
    for w, h, cells in rows:
        for k, cell in enumerate(cells.split("|")):
            moves, pushes = cell.split("/")
            table[int(w), int(h), k] = (int(moves), int(pushes))
    return table


def test_docs_table_of_small_rooms_is_what_the_tool_finds():
    table = docs_table()
    assert (8, 8, 2) in table and (6, 6, 4) in table
    for (w, h, k), expected in table.items():
        if w * h <= 20:
            result = longest(w, h, k, workers=0)
            assert (result.best_moves, result.best_pushes) == expected, (w, h, k)


@pytest.mark.parametrize("k", [1, 2])
def test_docs_table_against_the_forward_search_oracle(k):
    # Every layout of a 4 x 3 room, each table from the slow oracle.
    best = (-1, -1)
    for combo in itertools.combinations(range(12), k):
        rows = [list(r) for r in naive.empty_room(4, 3)]
        for c in combo:
            rows[c // 4 + 1][c % 4 + 1] = "#"
        values = [v for v in naive.table(["".join(r) for r in rows]).values() if v]
        if values:
            best = max(best[0], max(m for m, _ in values)), max(best[1], max(p for _, p in values))
    assert best == docs_table()[4, 3, k]
