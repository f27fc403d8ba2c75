"""Bad input to ``compare``, ``curve`` and ``generate``: each is refused at once with one
``error:`` line and exit status 2, before any search, and no input file is overwritten.

Every case here is refused before a solver or the generator runs, so the file is fast.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from sokoban.cli import main
from sokoban.generate import GenerateError, check_request
from sokoban.level import MAX_FLOOR, MAX_SIDE

TINY = Path(__file__).parent / "data" / "tiny.xsb"
ROOM = "#######\n#     #\n# #   #\n#  @  #\n#######\n"
#: A box in a corner: astar proves it unsolvable at once.
STUCK = "#######\n#@   $#\n#     #\n#.    #\n#######\n"


def refused(args: list[str], *needles: str, code: int = 2) -> str:
    """Run ``sokoban ARGS``; assert one ``error:`` line naming every needle, no traceback,
    and the exit status ``code``: 2 for bad input, 1 for work that could not be done."""
    result = CliRunner().invoke(main, args)
    assert result.exit_code == code, (result.exit_code, result.stderr)
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    # A command's first kernel load in this process is reported on a line of its own.
    lines = [x for x in result.stderr.strip().splitlines() if not x.startswith("kernels loaded")]
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    assert "Traceback" not in result.stderr
    for needle in needles:
        assert needle in lines[0], lines[0]
    return lines[0]


@pytest.fixture
def level_file(tmp_path: Path) -> Path:
    path = tmp_path / "tt.xsb"
    path.write_bytes(TINY.read_bytes())
    return path


# --- curve ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("budgets", "needle"),
    [
        ("99999999999999999999", "budgets are 1 to 10,000,000"),
        ("10000001", "budgets are 1 to 10,000,000"),
        ("0", "a budget of 0 nodes"),
        ("-5", "a budget of -5 nodes"),
        ("100,lots", "not a whole number"),
        (",", "at least one budget"),
        (",".join(str(n) for n in range(1, 102)), "at most 100 in one curve"),
    ],
)
def test_curve_refuses_bad_budgets(level_file: Path, budgets: str, needle: str) -> None:
    refused(
        ["curve", str(level_file), "-l", "1", "--budgets", budgets, "--no-plot"], needle, code=2
    )


def test_curve_never_overwrites_its_level_file(level_file: Path) -> None:
    before = level_file.read_bytes()
    refused(
        ["curve", str(level_file), "-l", "1", "--budgets", "100", "-o", str(level_file)], "input"
    )
    # The same file by another name is refused too.
    other = level_file.parent / "." / level_file.name
    refused(["curve", str(level_file), "-l", "1", "--budgets", "100", "-o", str(other)], "input")
    assert level_file.read_bytes() == before


def test_curve_refuses_unwritable_plots_before_searching(level_file: Path, tmp_path: Path) -> None:
    missing = tmp_path / "no" / "plot.png"
    refused(["curve", str(level_file), "-l", "1", "-o", str(missing)], "does not exist")
    refused(["curve", str(level_file), "-l", "1", "-o", str(tmp_path)], "directory")
    refused(["curve", str(level_file), "-l", "1", "-o", "-", "--json"], "stdout", code=2)
    refused(["curve", str(level_file), "-l", "1", "-o", "x.png", "--no-plot"], "contradict")
    assert not missing.parent.exists()


def test_curve_refuses_an_unsolvable_level_and_writes_no_plot(tmp_path: Path) -> None:
    stuck = tmp_path / "stuck.xsb"
    stuck.write_text(STUCK)
    plot = tmp_path / "plot.png"
    refused(
        ["curve", str(stuck), "--budgets", "50", "-t", "5", "-o", str(plot)], "no solution", code=1
    )
    assert not plot.exists()


# --- compare and curve: limits and levels -------------------------------------------------


@pytest.mark.parametrize("command", ["compare", "curve"])
@pytest.mark.parametrize(
    "option",
    [["-t", "nan"], ["-t", "inf"], ["-t", "0"], ["-t", "-1"], ["-t", "soon"]],
)
def test_time_limits_must_be_positive_and_finite(
    level_file: Path, command: str, option: list[str]
) -> None:
    refused([command, str(level_file), "-l", "1", *option], "--time-limit", code=2)


@pytest.mark.parametrize("value", ["nan", "inf", "0", "-3"])
def test_compare_memory_limit_must_be_positive_and_finite(level_file: Path, value: str) -> None:
    refused(
        ["compare", str(level_file), "-l", "1", "--memory-limit", value], "--memory-limit", code=2
    )


@pytest.mark.parametrize("command", ["compare", "curve"])
def test_levels_that_cannot_be_searched(command: str, level_file: Path, tmp_path: Path) -> None:
    refused([command, str(tmp_path / "missing.xsb")], "does not exist", code=2)
    refused([command, str(level_file), "-l", "9"], "no level 9", code=2)
    refused([command, str(level_file), "-l", "1-2"], "names 2 levels", code=2)
    refused([command, str(level_file), "-l", "0"], "start at 1", code=2)
    refused([command, str(level_file)], "choose one with --level", code=2)
    no_boxes = tmp_path / "empty.xsb"
    no_boxes.write_text(ROOM)
    refused(
        [command, str(no_boxes), "--no-plot"] if command == "curve" else [command, str(no_boxes)],
        "cannot be solved",
        code=2,
    )
    nothing = tmp_path / "nothing.xsb"
    nothing.write_text("; no level here\n")
    refused([command, str(nothing)], "no levels", code=2)


# --- generate ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("size", "needle"),
    [
        ("1000x1000", f"at most {MAX_SIDE} a side"),
        (f"{MAX_SIDE + 1}x10", f"at most {MAX_SIDE} a side"),
        ("99999999999999999999x5", f"at most {MAX_SIDE} a side"),
        (f"{MAX_SIDE}x{MAX_SIDE}", f"over the {MAX_FLOOR}"),
        ("3x3", "too small"),
        ("0x0", "too small"),
    ],
)
def test_generate_refuses_board_sizes_at_once(size: str, needle: str) -> None:
    refused(["generate", "-s", size], needle, code=2)


def test_generate_size_limits_are_the_level_models() -> None:
    # The largest square whose interior the level model accepts passes; one more does not.
    side = 2
    while (side + 1 - 2) ** 2 <= MAX_FLOOR:
        side += 1
    check_request((side, side), 4)
    with pytest.raises(GenerateError, match="interior cells"):
        check_request((side + 1, side + 1), 4)


@pytest.mark.parametrize("boxes", ["40", "99999999999999999999"])
def test_generate_refuses_more_boxes_than_fit(boxes: str) -> None:
    refused(["generate", "-s", "10x10", "-b", boxes], "do not fit", code=2)


@pytest.mark.parametrize(
    "option",
    [
        ["--budget", "nan"],
        ["--budget", "inf"],
        ["--budget", "0"],
        ["--budget", "-1"],
        ["-t", "nan"],
        ["-t", "inf"],
        ["-t", "0"],
    ],
)
def test_generate_refuses_bad_seconds(option: list[str]) -> None:
    refused(["generate", *option], option[0], code=2)


def test_generate_never_overwrites_its_layout_file(tmp_path: Path) -> None:
    layout = tmp_path / "tt.xsb"
    layout.write_text(ROOM)
    metrics_of_layout = tmp_path / "tt.json"
    refused(["generate", "-o", str(layout), "--layout", str(layout)], "--output", "input")
    refused(["generate", "--metrics", str(layout), "--layout", str(layout)], "--metrics", "input")
    # The metrics default to OUTPUT with .json: that must not be OUTPUT itself.
    refused(["generate", "-o", str(tmp_path / "a.json")], "--metrics", "--output file")
    refused(
        ["generate", "-o", str(tmp_path / "a.xsb"), "--metrics", str(tmp_path / "a.xsb")],
        "--output file",
    )
    assert layout.read_text() == ROOM
    assert not metrics_of_layout.exists() and not (tmp_path / "a.json").exists()


def test_generate_refuses_outputs_before_generating(tmp_path: Path) -> None:
    missing = tmp_path / "no" / "x.xsb"
    refused(["generate", "-o", str(missing)], "--output", "does not exist", code=2)
    refused(["generate", "--metrics", str(missing)], "--metrics", "does not exist", code=2)
    refused(["generate", "-o", str(tmp_path)], "directory", code=2)
    refused(["generate", "-o", ""], "--output", "no file name", code=2)
    refused(["generate", "--metrics", ""], "--metrics", "no file name", code=2)


def test_generate_layout_files_are_read_like_level_files(tmp_path: Path) -> None:
    refused(["generate", "--layout", "/dev/zero"], "a device", code=2)
    empty = tmp_path / "empty.xsb"
    empty.write_text("; nothing\n")
    refused(["generate", "--layout", str(empty)], "no levels", code=2)
    refused(["generate", "--layout", str(tmp_path / "missing.xsb")], "neither a layout", code=2)


def test_generate_to_stdout_writes_no_stray_files(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.chdir(tmp_path)
    refused(["generate", "--metrics", "-"], "stdout", code=2)
    result = CliRunner().invoke(
        main, ["generate", "-n", "1", "-s", "6x6", "-b", "1", "-q", "-o", "-"]
    )
    assert result.exit_code == 0, result.stderr
    assert result.stdout.count("Generated 6x6 #1") == 1
    assert list(tmp_path.iterdir()) == []  # no "-.json"


def test_generate_that_keeps_nothing_leaves_earlier_files_alone(tmp_path: Path) -> None:
    out, metrics = tmp_path / "levels.xsb", tmp_path / "levels.json"
    out.write_text(ROOM)
    metrics.write_text("[]\n")
    # A 5x5 room cannot reach the expert band: every attempt is rejected.
    args = [
        "generate",
        "-s",
        "5x5",
        "-b",
        "1",
        "-d",
        "expert",
        "--max-attempts",
        "3",
        "--seed",
        "1",
    ]
    args += ["-q", "-w", "0", "-o", str(out)]
    refused(args, "only 0 of 10 levels", "nothing written", code=1)
    assert out.read_text() == ROOM and metrics.read_text() == "[]\n"
