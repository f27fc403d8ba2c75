"""The ``generate`` command through click's test runner."""

from __future__ import annotations

import csv
import json
from pathlib import Path

from click.testing import CliRunner

from sokoban import verify
from sokoban.cli import main
from sokoban.xsb import load, loads


def test_generate_writes_a_collection_and_metrics(tmp_path: Path) -> None:
    out = tmp_path / "levels.xsb"
    args = ["generate", "--size", "8x8", "--boxes", "2", "--count", "4", "--seed", "3"]
    result = CliRunner().invoke(main, [*args, "-w", "0", "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert "4 of 4 levels" in result.stderr
    collection = load(out)
    assert len(collection) == 4
    assert "seed 3" in collection.header
    records = json.loads((tmp_path / "levels.json").read_text())
    assert [r["title"] for r in records] == [lv.title for lv in collection.levels]
    for level, record in zip(collection.levels, records, strict=True):
        assert (
            level.solutions and verify(level, level.solutions[0]).metrics.pushes == record["pushes"]
        )
        assert record["band"] in ("easy", "medium", "hard", "expert")
    # The same seed writes the same file.
    again = tmp_path / "again.xsb"
    CliRunner().invoke(main, [*args, "-w", "0", "-q", "-o", str(again)])
    assert again.read_text() == out.read_text()


def test_generate_to_stdout_with_csv_metrics(tmp_path: Path) -> None:
    table = tmp_path / "m.csv"
    result = CliRunner().invoke(
        main,
        [
            "generate",
            "-s",
            "7x7",
            "-b",
            "1",
            "-n",
            "2",
            "--seed",
            "1",
            "-q",
            "--metrics",
            str(table),
        ],
    )
    assert result.exit_code == 0, result.output
    assert result.stdout.count("\nSolution\n") == 2
    rows = list(csv.DictReader(table.open()))
    assert len(rows) == 2 and {"pushes", "nodes", "score", "band"} <= set(rows[0])


def test_generate_with_a_layout_file(tmp_path: Path) -> None:
    room = tmp_path / "room.xsb"
    room.write_text("#######\n#     #\n# #   #\n#     #\n#######\n")
    result = CliRunner().invoke(
        main, ["generate", "--layout", str(room), "-b", "2", "-n", "2", "--seed", "1", "-q"]
    )
    assert result.exit_code == 0, result.output
    levels = loads(result.stdout).levels
    assert len(levels) == 2 and all(lv.width == 7 and lv.height == 5 for lv in levels)


def test_generate_bad_input_is_one_line(tmp_path: Path) -> None:
    runner = CliRunner()
    cases = [
        (["--size", "ten"], "not a size like 10x10"),
        (["--boxes", "40"], "40 boxes do not fit a 10x10 board"),
        (["--layout", "maze"], "neither a layout"),
        (["-o", str(tmp_path / "no" / "x.xsb")], "does not exist"),
    ]
    for extra, message in cases:
        result = runner.invoke(main, ["generate", *extra])
        assert result.exit_code == 2
        assert message in result.stderr and "Traceback" not in result.stderr
    room = tmp_path / "open.xsb"
    room.write_text("#####\n#@   \n#####\n")
    result = runner.invoke(main, ["generate", "--layout", str(room)])
    assert result.exit_code == 2 and "no room" in result.stderr


def test_impossible_target_reports_after_bounded_attempts() -> None:
    result = CliRunner().invoke(
        main,
        ["generate", "-s", "5x5", "-b", "1", "-d", "expert", "--max-attempts", "15", "-w", "0"],
    )
    assert result.exit_code == 1
    assert "only 0 of 10 levels after 15 attempts" in result.stderr
    assert "room cannot reach the band" in result.stderr


def test_budget_option_reports_the_time_budget() -> None:
    result = CliRunner().invoke(main, ["generate", "-n", "100000", "--budget", "0.3", "-w", "0"])
    assert result.exit_code == 1
    assert "(the time budget ran out)" in result.stderr
