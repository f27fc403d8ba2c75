"""Bad input to ``sokoban solve`` and ``sokoban bench``: one line, non-zero exit, no lost data."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from sokoban.cli import main

LEVELS = """\
; 1
#####
#@$.#
#####

; 2
#####
#   #
#@$.#
#####
"""
UNSOLVABLE = "#####\n#@ $#\n#  .#\n#####\n"


@pytest.fixture()
def levels(tmp_path: Path) -> Path:
    path = tmp_path / "levels.xsb"
    path.write_text(LEVELS)
    return path


@pytest.mark.parametrize("option", ["-t", "--memory-limit"])
@pytest.mark.parametrize("value", ["nan", "inf", "-1"])
def test_limits_must_be_finite_and_not_negative(levels: Path, option: str, value: str) -> None:
    result = CliRunner().invoke(main, ["solve", str(levels), "-l", "1", option, value])
    assert result.exit_code == 2
    assert "Traceback" not in result.output
    assert result.output.count("\n") == 1 and result.output.startswith("error:")


def test_an_unsolvable_level_exits_non_zero(tmp_path: Path) -> None:
    path = tmp_path / "corner.xsb"
    path.write_text(UNSOLVABLE)
    result = CliRunner().invoke(main, ["solve", str(path)])
    assert result.exit_code == 1
    assert "unsolvable" in result.output
    assert "error: 1 of 1 level not solved (level 1: unsolvable)" in result.output


def test_solved_levels_exit_zero(levels: Path) -> None:
    result = CliRunner().invoke(main, ["solve", str(levels), "-l", "all"])
    assert result.exit_code == 0, result.output


def test_bench_refuses_to_write_its_csv_over_an_input(levels: Path) -> None:
    before = levels.read_text()
    result = CliRunner().invoke(main, ["bench", str(levels), "-w", "0", "--csv", str(levels)])
    assert result.exit_code == 2
    assert "input file" in result.output
    assert levels.read_text() == before


def test_bench_refuses_a_csv_in_a_missing_folder_before_the_run(levels: Path) -> None:
    missing = levels.parent / "nowhere" / "rows.csv"
    result = CliRunner().invoke(main, ["bench", str(levels), "-w", "0", "--csv", str(missing)])
    assert result.exit_code == 2
    assert "does not exist" in result.output
    assert "bench astar" not in result.output  # no table: refused before any level ran


@pytest.mark.parametrize("content", [b"\xff\xfe\x00binary", b"file,level\nx.xsb,1\n"])
def test_bench_with_a_bad_table_of_optima_is_one_line(
    levels: Path, tmp_path: Path, content: bytes
) -> None:
    table = tmp_path / "optima.csv"
    table.write_bytes(content)
    result = CliRunner().invoke(main, ["bench", str(levels), "-w", "0", "--optimal", str(table)])
    assert result.exit_code == 2
    assert "Traceback" not in result.output
    assert "is not a table of known optima" in result.output
