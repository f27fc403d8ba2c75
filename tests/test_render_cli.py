"""``sokoban render`` with solutions, frames, marks and sheets; ``--version`` and ``-h``."""

from __future__ import annotations

import importlib.metadata
import json
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from PIL import Image
from test_cli_levels import one_error, run

LEVELS = """\
Title: Line
#####
#@$.#
#####
Solution: R

Title: Two rows
######
#@$ .#
# $ .#
######
"""


@pytest.fixture
def runner() -> CliRunner:
    return CliRunner()


@pytest.fixture
def path(tmp_path: Path) -> Path:
    file = tmp_path / "levels.sok"
    file.write_text(LEVELS)
    return file


def test_a_solution_as_an_animated_gif(runner: CliRunner, path: Path, tmp_path: Path) -> None:
    out = tmp_path / "two.gif"
    result = run(runner, "render", path, "-l", "2", "--solution", "RRlldRR", "-o", out, "--json")
    record = json.loads(result.stdout)
    assert record["frames"] == 8 and record["solved"] is True and record["pushes"] == 4
    picture = Image.open(out)
    assert picture.format == "GIF" and picture.n_frames == 8
    assert picture.info["duration"] == 120  # 8 steps a second, in hundredths of a second
    fast = tmp_path / "fast.gif"
    run(runner, "render", path, "-l", "2", "--solution", "RRlldRR", "-o", fast, "--speed", "20")
    assert Image.open(fast).info["duration"] == 50


def test_stored_solution_svg_and_apng(runner: CliRunner, path: Path, tmp_path: Path) -> None:
    svg = tmp_path / "line.svg"
    assert (
        "2 frames"
        in run(runner, "render", path, "-l", "1", "--solution", "stored", "-o", svg).stdout
    )
    assert "<animateTransform" in svg.read_text()
    png = tmp_path / "line.png"
    run(runner, "render", path, "-l", "Line", "--solution", "stored", "-o", png)
    assert Image.open(png).n_frames == 2  # a .png of a solution is an APNG
    one_error(
        run(runner, "render", path, "-l", "2", "--solution", "stored", "-o", svg),
        "stores no solution",
        code=2,
    )


def test_frames_a_file_per_push(runner: CliRunner, path: Path, tmp_path: Path) -> None:
    solution = tmp_path / "solution.txt"
    solution.write_text("RRlldRR\n")
    folder = tmp_path / "frames"
    result = run(
        runner, "render", path, "-l", "2", "--solution", f"@{solution}", "--frames", folder
    )
    assert result.exit_code == 0, result.stderr
    files = sorted(p.name for p in folder.iterdir())
    assert files == [f"{i:04d}.png" for i in range(5)]  # the start and 4 pushes
    assert Image.open(folder / "0000.png").size == (192, 128)
    assert Image.open(folder / "0004.png").tobytes() != Image.open(folder / "0003.png").tobytes()


def test_marks_and_sheet(runner: CliRunner, path: Path, tmp_path: Path) -> None:
    out = tmp_path / "marked.svg"
    run(
        runner, "render", path, "-l", "2", "--mark", "dead,path", "--solution", "RRlldRR", "-o", out
    )
    assert out.read_text().count("<polygon") == 2  # two box lines
    sheet = tmp_path / "sheet.png"
    record = json.loads(
        run(runner, "render", path, "--sheet", "-o", sheet, "--size", "64", "--json").stdout
    )
    assert record["levels"] == 2 and Image.open(sheet).size == (record["width"], record["height"])
    sheet_svg = tmp_path / "sheet.svg"
    run(runner, "render", path, "--sheet", "-o", sheet_svg)
    assert sheet_svg.read_text().count("<svg") == 3


def test_render_usage_errors(runner: CliRunner, path: Path, tmp_path: Path) -> None:
    out = tmp_path / "x.gif"
    one_error(
        run(runner, "render", path, "-l", "2", "--mark", "path", "-o", out), "--solution", code=2
    )
    one_error(run(runner, "render", path, "-l", "2", "--mark", "lava", "-o", out), "'lava'", code=2)
    one_error(run(runner, "render", path, "-l", "2", "--solution", "RX", "-o", out), "'X'", code=2)
    one_error(run(runner, "render", path, "-l", "2", "--solution", "L", "-o", out), "into a wall")
    one_error(
        run(runner, "render", path, "-l", "2", "--frames", tmp_path / "f"), "--solution", code=2
    )
    one_error(
        run(runner, "render", path, "--sheet", "--solution", "R", "-o", out), "--sheet", code=2
    )
    one_error(run(runner, "render", path, "-l", "2"), "--output", code=2)
    assert not out.exists() and not (tmp_path / "f").exists()


def test_render_without_pillow(
    runner: CliRunner, path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "PIL", None)
    line = one_error(
        run(runner, "render", path, "-l", "1", "-o", tmp_path / "x.png"), "Pillow", code=2
    )
    assert "sokoban[image]" in line
    assert run(runner, "render", path, "-l", "1", "-o", tmp_path / "x.svg").exit_code == 0


def test_version_is_the_installed_one(runner: CliRunner) -> None:
    version = importlib.metadata.version("sokoban")
    assert run(runner, "--version").stdout.strip() == f"sokoban, version {version}"
    import sokoban

    assert sokoban.__version__ == version


def test_dash_h_is_help(runner: CliRunner) -> None:
    assert run(runner, "-h").stdout == run(runner, "--help").stdout
    assert run(runner, "render", "-h").stdout.startswith("Usage: ")
    assert run(runner, "db", "stats", "-h").exit_code == 0
