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


def test_serve_get_makes_no_lasting_database(
    runner: CliRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``serve --get`` without --db answers from a throwaway database when there is none
    yet, so that one request writes nothing lasting; an existing default one is used."""
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    result = run(runner, "serve", "--get", "/api/collections", "--daily-ahead", "-1")
    assert result.exit_code == 0, result.stderr
    assert '"builtin"' in result.stdout
    assert list(tmp_path.iterdir()) == []
    from sokoban import Level
    from sokoban.migrations import open_store
    from sokoban.store import default_path

    store = open_store(default_path())  # the web game has run here before and saved a level
    store.save_level(Level.from_xsb("#####\n#@$.#\n#####"), "Kept")
    store.close()
    result = run(runner, "serve", "--get", "/api/levels/mine/1", "--daily-ahead", "-1")
    assert result.exit_code == 0, result.stderr
    assert '"Kept"' in result.stdout
