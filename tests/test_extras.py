"""Optional parts: matplotlib (the plot extra) missing is one clear line before any work;
a cold numba cache is announced before the solver compiles."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from test_cli_levels import one_error, run

from sokoban import _jit
from sokoban.cli import solve as solve_cli

TINY = Path(__file__).parent / "data" / "tiny.xsb"
ROOM = "#####\n#   #\n#   #\n#####\n"


@pytest.fixture
def runner() -> CliRunner:
    return CliRunner()


def test_plots_without_matplotlib(
    runner: CliRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    plot = tmp_path / "curve.png"
    line = one_error(run(runner, "curve", TINY, "-l", "1", "--plot", plot), "matplotlib")
    assert "sokoban[plot]" in line and not plot.exists()
    room = tmp_path / "room.xsb"
    room.write_text(ROOM)
    histogram = tmp_path / "histogram.png"
    line = one_error(run(runner, "single-box", room, "--histogram", histogram), "--histogram")
    assert "sokoban[plot]" in line and not histogram.exists()
    # Without the plot the commands do their work.
    assert run(runner, "single-box", room).exit_code == 0


@pytest.mark.parametrize("cold", [True, False])
def test_a_cold_cache_is_announced(
    runner: CliRunner, monkeypatch: pytest.MonkeyPatch, cold: bool
) -> None:
    monkeypatch.setattr(_jit, "cache_is_cold", lambda: cold)
    result = run(runner, "solve", TINY, "-l", "1", "-m", "astar")
    assert result.exit_code == 0, result.stderr
    assert (solve_cli.COLD_CACHE_NOTE in result.stderr) is cold
    result = run(runner, "bench", TINY, "-l", "1", "-m", "astar", "-w", "0")
    assert result.exit_code == 0, result.stderr
    assert (solve_cli.COLD_CACHE_NOTE in result.stderr) is cold
