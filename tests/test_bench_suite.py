"""The development suite's runner (``benchmarks/_suite.py``): fixed samples, per-level CSVs
that resume, the tables and differences, and a real worker solving levels of a checkout
under a CPU-time limit."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

import _suite  # noqa: E402

TINY = ROOT / "tests" / "data" / "tiny.xsb"


def test_a_sample_is_fixed_by_its_seed_and_the_long_rows_follow_xsokoban() -> None:
    from sokoban.xsb import load

    total = len(load(TINY))
    assert total >= 3
    a = _suite.jobs_of([str(TINY)], 10.0, 2, 1, 0)
    b = _suite.jobs_of([str(TINY)], 10.0, 2, 1, 0)
    assert [j.index for j in a] == [j.index for j in b] and len(a) == 2
    assert len(_suite.jobs_of([str(TINY)], 10.0, None, 1, 0)) == total
    everything = {j.index for s in range(20) for j in _suite.jobs_of([str(TINY)], 1, 2, s, 0)}
    assert len(everything) > 2  # other seeds pick other levels
    assert all(j.collection == "tiny" for j in a)


def test_max_boxes_keeps_only_the_small_levels() -> None:
    from sokoban.xsb import load

    boxes = [len(getattr(e, "level", e).boxes) for e in load(TINY).levels]
    most = min(boxes)
    small = {i for i, n in enumerate(boxes) if n <= most}
    jobs = _suite.jobs_of([str(TINY)], 10.0, None, 1, 0, max_boxes=most)
    assert {j.index for j in jobs} == small and len(small) < len(boxes)
    one = _suite.jobs_of([str(TINY)], 10.0, 1, 1, 0, max_boxes=most)
    assert len(one) == 1 and one[0].index in small


def test_min_boxes_keeps_only_the_big_levels() -> None:
    from sokoban.xsb import load

    boxes = [len(getattr(e, "level", e).boxes) for e in load(TINY).levels]
    least = max(boxes)
    big = {i for i, n in enumerate(boxes) if n >= least}
    jobs = _suite.jobs_of([str(TINY)], 10.0, None, 1, 0, min_boxes=least)
    assert {j.index for j in jobs} == big and len(big) < len(boxes)
    both = _suite.jobs_of([str(TINY)], 10.0, None, 1, 0, max_boxes=least - 1, min_boxes=least)
    assert both == []


def test_rows_resume_from_the_csv_and_tables_count_them(tmp_path: Path) -> None:
    jobs = _suite.jobs_of([str(TINY)], 10.0, None, 1, 0)
    side = _suite.Side("a", ROOT, tmp_path / "a.csv")
    other = _suite.Side("b", ROOT, tmp_path / "b.csv")
    for k, job in enumerate(jobs):
        side.add(job, {"status": "solved", "seconds": 0.5, "expanded": 10, "peak_bytes": 2**20})
        status = "solved" if k else "time limit"
        other.add(job, {"status": status, "seconds": 1.0, "expanded": 20, "peak_bytes": 0})
    again = _suite.Side("a", ROOT, tmp_path / "a.csv")
    again.load()
    assert set(again.rows) == {job.key for job in jobs}
    text = _suite.table([again, other], jobs)
    n = len(jobs)
    total = [cell.strip() for cell in text.splitlines()[-1].split("|")[1:-1]]
    assert total[0] == "total (10 s rows)"
    assert total[1:3] == [f"{n}/{n}", f"{0.5 * n:.0f}"] and total[3] == f"{10 * n:,}"
    assert total[6:9] == [f"{n - 1}/{n}", f"{1.0 * n:.0f}", f"{20 * n:,}"]
    diff = _suite.differences([again, other], jobs)
    assert f"solved by a only (1): tiny {jobs[0].index + 1}" in diff
    assert "solved by b only (0): -" in diff


@pytest.mark.slow
def test_a_worker_solves_levels_of_a_checkout_within_cpu_seconds() -> None:
    worker = _suite.Worker(ROOT, "cpu")
    try:
        job = _suite.Job("tiny", TINY, 0, 10.0)
        answer = worker.run(job)
        assert answer["status"] == "solved" and answer["pushes"] >= 1
        assert 0 < answer["seconds"] <= answer["wall"] + 0.1
    finally:
        worker.kill()


def test_a_peer_solvers_output_becomes_a_suite_row() -> None:
    import bench_yass

    stats = (
        "                               Level  Pushes    Generated    Generated      Time\n"
        "  No  W  H                      Name            Positions       Pushes   Seconds\n"
        "--------------------------------------------------------------------------------\n"
        "   1 17 15                   Level 1     322         2584         2932          \n"
    )
    row = bench_yass.parse("...\nSolution: Pushes: 322\nTime: 0 seconds\n", stats)
    assert row["status"] == "solved" and row["pushes"] == 322 and row["generated"] == 2584
    unsolved = stats.replace("     322         2584", " " * 15 + "479421")
    row = bench_yass.parse("Time-limit exceeded\nLevel not solved\n", unsolved)
    assert row["status"] == "time limit" and row["pushes"] == "" and row["generated"] == 479421
    assert bench_yass.parse("Level not solvable\n", "")["status"] == "unsolvable"
