"""The level commands through click's CliRunner: info, show, convert, verify, render.

Every error path ends in one ``error:`` line on stderr and a non-zero exit, never a traceback.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import click
import pytest
from click.testing import CliRunner, Result
from PIL import Image

from sokoban import Level, render
from sokoban.cli import main
from sokoban.cli.common import Selection, write_atomically

# Three good levels (one with a problem: no player) and one broken (an unclosed RLE group).
COLLECTION = """\
; Test levels for the CLI

Title: Line
#####
#@$.#
#####

Title: Two rows
######
#@$ .#
# $ .#
######

Title: Nobody
#####
# $.#
#####

Title: Broken
#####
#@$.#
#3(#
"""

# Moves 7, pushes 4, box lines 2, box changes 2, pushing sessions 2, player lines 4.
TWO_ROWS_SOLUTION = "RRlldRR"


@pytest.fixture
def runner() -> CliRunner:
    return CliRunner()


@pytest.fixture
def levels(tmp_path: Path) -> Path:
    path = tmp_path / "levels.xsb"
    path.write_text(COLLECTION)
    return path


@pytest.fixture
def good(tmp_path: Path) -> Path:
    """The collection without its broken level: loads with no warning."""
    path = tmp_path / "good.xsb"
    path.write_text(COLLECTION[: COLLECTION.index("Title: Broken")])
    return path


def run(runner: CliRunner, *args: object, input: str | None = None) -> Result:
    result = runner.invoke(main, [str(a) for a in args], input=input)
    # A user error never shows a traceback: click's runner would hold the exception.
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result


def one_error(result: Result, *fragments: str, code: int = 2) -> str:
    """Check the result is a failure with exactly one error line (after any warnings) and
    the exit status ``code``: 2 for bad input and usage, 1 for a solution that fails."""
    assert result.exit_code == code, (result.exit_code, result.stderr)
    lines = result.stderr.splitlines()
    assert lines, "no message on stderr"
    assert lines[-1].startswith("error: "), lines
    assert all(line.startswith("warning: ") for line in lines[:-1]), lines
    assert "Traceback" not in result.stderr
    for fragment in fragments:
        assert fragment in lines[-1], lines[-1]
    return lines[-1]


# --- level selections ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "keys"),
    [
        ("3", (3,)),
        ("1-3", (1, 2, 3)),
        (" 2 - 4 ", (2, 3, 4)),
        ("1,3,5", (1, 3, 5)),
        ("1,4-5,2", (1, 4, 5, 2)),
        ("ALL", None),
        ("Two rows", ("Two rows",)),
        ("Level-3", ("Level-3",)),
    ],
)
def test_selection_parses_numbers_ranges_lists_and_titles(text, keys) -> None:
    assert Selection.parse(text).keys == keys


@pytest.mark.parametrize(
    ("text", "reason"), [("0", "start at 1"), ("5-2", "empty"), (" ", "empty")]
)
def test_selection_refuses_bad_numbers(text, reason) -> None:
    with pytest.raises(ValueError, match=reason):
        Selection.parse(text)


# --- info ---------------------------------------------------------------------------------


def test_info_tables_the_levels(runner, good) -> None:
    result = run(runner, "info", good)
    assert result.exit_code == 0, result.output
    assert result.stderr == ""
    rows = [line for line in result.stdout.splitlines() if "│" in line or "┃" in line]
    assert len(rows) == 1 + 3  # header and three levels
    assert rows[0].split() == [
        "┃",
        "#",
        "┃",
        "title",
        "┃",
        "size",
        "┃",
        "boxes",
        "┃",
        "problems",
        "┃",
    ]
    assert "Line" in rows[1] and "5x3" in rows[1] and "none" in rows[1]
    assert "Two rows" in rows[2] and "6x4" in rows[2]
    assert "Nobody" in rows[3] and "no player" in rows[3]


def test_info_json_for_scripts(runner, levels) -> None:
    result = run(runner, "info", levels, "--json")
    assert result.exit_code == 0
    data = json.loads(result.stdout)
    assert [lv["number"] for lv in data["levels"]] == [1, 2, 3]
    assert [lv["title"] for lv in data["levels"]] == ["Line", "Two rows", "Nobody"]
    assert data["levels"][1] | {"problems": []} == {
        "number": 2,
        "title": "Two rows",
        "width": 6,
        "height": 4,
        "boxes": 2,
        "goals": 2,
        "problems": [],
    }
    assert data["levels"][2]["problems"] == ["no player"]
    assert len(data["skipped"]) == 1 and "level 4" in data["skipped"][0]
    # The broken level is one warning line on stderr; stdout stays pure JSON.
    warnings = result.stderr.splitlines()
    assert len(warnings) == 1 and warnings[0].startswith("warning: ")
    assert "level 4" in warnings[0] and "line" in warnings[0]


def test_info_selects_levels(runner, good) -> None:
    result = run(runner, "info", good, "--level", "2-3", "--json")
    assert [lv["title"] for lv in json.loads(result.stdout)["levels"]] == ["Two rows", "Nobody"]
    result = run(runner, "info", good, "-l", "Nobody", "--json")
    assert [lv["number"] for lv in json.loads(result.stdout)["levels"]] == [3]


def test_info_errors(runner, tmp_path, good) -> None:
    one_error(run(runner, "info", tmp_path / "missing.xsb"), "missing.xsb", "does not exist")
    one_error(run(runner, "info", tmp_path), "directory")
    one_error(run(runner, "info", good, "--level", "9"), "9")
    one_error(run(runner, "info", good, "--level", "Nothing like it"), "Nothing like it")
    one_error(run(runner, "info", good, "--level", "3-1"), "empty", code=2)
    empty = tmp_path / "empty.xsb"
    empty.write_text("; nothing but a comment\n")
    one_error(run(runner, "info", empty), "empty.xsb", "no levels")


def test_a_file_of_one_broken_level_is_one_error_line(runner, tmp_path) -> None:
    broken = tmp_path / "broken.xsb"
    broken.write_text("#####\n#@$.#\n#3(#\n")
    message = one_error(run(runner, "info", broken), "broken.xsb", "line 3")
    assert run(runner, "info", broken).stderr.count("\n") == 1, message


# --- show ---------------------------------------------------------------------------------


def test_show_draws_a_level_with_its_facts(runner, good) -> None:
    result = run(runner, "show", good, "--level", "Two rows")
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    assert lines[0] == "Level 2 (Two rows)"
    assert lines[1:5] == ["######", "#@$ .#", "# $ .#", "######"]
    assert lines[5] == "6x4, 2 boxes"


def test_show_lists_problems_and_every_level_by_default(runner, good) -> None:
    result = run(runner, "show", good)
    assert result.exit_code == 0
    assert result.stdout.count("Level ") == 3
    assert "problems: no player" in result.stdout
    assert "1 box\n" in result.stdout


def test_show_json(runner, good) -> None:
    data = json.loads(run(runner, "show", good, "-l", "1,3", "--json").stdout)
    assert [lv["xsb"] for lv in data] == ["#####\n#@$.#\n#####", "#####\n# $.#\n#####"]
    assert data[1]["problems"] == ["no player"]


def test_show_errors(runner, tmp_path, good) -> None:
    one_error(run(runner, "show", tmp_path / "nope.xsb"), "nope.xsb")
    one_error(run(runner, "show", good, "--level", "4"), "4")
    one_error(run(runner, "show", good, "--bogus"), "--bogus", code=2)


# --- convert ------------------------------------------------------------------------------


def test_convert_writes_canonical_xsb_that_reads_back(runner, tmp_path, good) -> None:
    out = tmp_path / "out.xsb"
    result = run(runner, "convert", good, "-o", out)
    assert result.exit_code == 0, result.stderr
    assert "3 levels" in result.stdout
    again = run(runner, "show", out, "--json")
    before = run(runner, "show", good, "--json")
    assert json.loads(again.stdout) == json.loads(before.stdout)


def test_convert_rle_and_selection(runner, tmp_path, good) -> None:
    out = tmp_path / "rle.xsb"
    result = run(runner, "convert", good, "-o", out, "--rle", "-l", "2", "--json")
    assert json.loads(result.stdout) == {
        "output": str(out),
        "format": "sok",
        "levels": 1,
        "skipped": 0,
        "rle": True,
        "lost": [],
    }
    text = out.read_text()
    assert "6#" in text and "######" not in text
    data = json.loads(run(runner, "show", out, "--json").stdout)
    assert [lv["xsb"] for lv in data] == ["######\n#@$ .#\n# $ .#\n######"]


def test_convert_to_stdout(runner, good) -> None:
    result = run(runner, "convert", good, "-o", "-")
    assert result.exit_code == 0
    assert "#@$ .#" in result.stdout and "wrote" not in result.stdout


def test_convert_refuses_to_overwrite_its_input(runner, tmp_path, good) -> None:
    before = good.read_text()
    one_error(run(runner, "convert", good, "-o", good), "input file", code=2)
    # The same file by another name is refused too.
    alias = tmp_path / "alias.xsb"
    alias.symlink_to(good)
    one_error(run(runner, "convert", good, "-o", alias), "input file", code=2)
    one_error(run(runner, "convert", good, "-o", tmp_path / ".." / tmp_path.name / good.name))
    assert good.read_text() == before


def test_convert_will_not_drop_broken_levels_silently(runner, tmp_path, levels) -> None:
    out = tmp_path / "out.xsb"
    one_error(run(runner, "convert", levels, "-o", out), "1 broken level", "--skip-broken")
    assert not out.exists()
    result = run(runner, "convert", levels, "-o", out, "--skip-broken")
    assert result.exit_code == 0
    assert "3 levels" in result.stdout
    assert len(json.loads(run(runner, "show", out, "--json").stdout)) == 3


def test_convert_keeps_the_old_output_when_writing_fails(runner, tmp_path, good, monkeypatch):
    out = tmp_path / "out.xsb"
    out.write_text("precious")

    def fail(*args: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", fail)
    one_error(run(runner, "convert", good, "-o", out), "No space left on device")
    assert out.read_text() == "precious"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["good.xsb", "out.xsb"]


def test_convert_errors(runner, tmp_path, good) -> None:
    one_error(run(runner, "convert", good), "--output", code=2)
    one_error(run(runner, "convert", good, "-o", tmp_path / "no" / "such" / "dir.xsb"), "dir.xsb")


# --- verify -------------------------------------------------------------------------------


def test_verify_prints_the_metrics_of_a_solution(runner, good) -> None:
    result = run(runner, "verify", good, "--level", "2", TWO_ROWS_SOLUTION)
    assert result.exit_code == 0, result.stderr
    assert result.stdout.splitlines()[0] == "solves level 2 (Two rows)"
    figures = dict(line.rsplit(None, 1) for line in result.stdout.splitlines()[1:])
    figures = {key.strip(): int(value) for key, value in figures.items()}
    assert figures == {
        "moves": 7,
        "pushes": 4,
        "box lines": 2,
        "box changes": 2,
        "pushing sessions": 2,
        "player lines": 4,
    }


def test_verify_json_and_solution_from_a_file(runner, tmp_path, good) -> None:
    path = tmp_path / "solution.txt"
    path.write_text("2r\n2l d\n2R\n")  # any case, run lengths and line breaks
    result = run(runner, "verify", good, "-l", "Two rows", f"@{path}", "--json")
    assert result.exit_code == 0
    data = json.loads(result.stdout)
    assert data["solved"] is True and data["level"] == 2
    assert data["lurd"] == TWO_ROWS_SOLUTION
    assert data["metrics"]["pushes"] == 4 and data["metrics"]["player_lines"] == 4


def test_verify_reads_stdin(runner, good) -> None:
    result = run(runner, "verify", good, "-l", "1", "@-", input="R\n")
    assert result.exit_code == 0


def test_verify_a_single_level_file_needs_no_level(runner, tmp_path) -> None:
    single = tmp_path / "one.xsb"
    single.write_text("#####\n#@$.#\n#####\n")
    assert run(runner, "verify", single, "R").exit_code == 0


def test_verify_not_a_solution(runner, good) -> None:
    result = run(runner, "verify", good, "-l", "2", "RR")
    one_error(result, "not a solution", "1 box off goal", code=1)
    assert "does not solve" in result.stdout and "moves" in result.stdout
    result = run(runner, "verify", good, "-l", "2", "RR", "--json")
    data = json.loads(result.stdout)
    assert data["solved"] is False and data["metrics"]["moves"] == 2
    assert result.exit_code == 1


def test_verify_illegal_step_names_its_index(runner, good) -> None:
    result = run(runner, "verify", good, "-l", "2", "RRR")
    one_error(result, "not a solution", "index 2", code=1)
    result = run(runner, "verify", good, "-l", "2", "u", "--json")
    assert json.loads(result.stdout)["index"] == 0
    assert result.exit_code == 1


def test_verify_errors(runner, tmp_path, good) -> None:
    one_error(run(runner, "verify", good, "-l", "2", "RRx"), "'x'", code=2)
    one_error(run(runner, "verify", good, "-l", "2", "2(R"), "unclosed", code=2)
    one_error(run(runner, "verify", good, "R"), "3 levels", "--level", code=2)
    one_error(run(runner, "verify", good, "-l", "1-2", "R"), "2 levels", code=2)
    one_error(run(runner, "verify", good, "-l", "7", "R"), "7")
    one_error(run(runner, "verify", good, "-l", "3", "R"), "cannot be played", "no player")
    one_error(run(runner, "verify", good, "-l", "1", f"@{tmp_path / 'none.txt'}"), "none.txt")
    one_error(run(runner, "verify", good, "-l", "1"), "SOLUTION", code=2)
    one_error(run(runner, "verify", good, "-l", "1", "@"), "SOLUTION", "file name", code=2)


SOK = """\
Title: Line
#####
#@$.#
#####
Solution: R

Title: None stored
#####
#@$.#
#####

Title: Two rows
######
#@$ .#
# $ .#
######
Solution: RRlldRR
Solution (pushes): RR
"""


def test_verify_without_solution_checks_the_stored_ones(runner, tmp_path) -> None:
    path = tmp_path / "solved.sok"
    path.write_text(SOK)
    result = run(runner, "verify", path, "--json")
    records = json.loads(result.stdout)
    assert [(r["level"], r["solution"], r["solved"]) for r in records] == [
        (1, 1, True),
        (3, 1, True),
        (3, 2, False),
    ]
    assert records[1]["metrics"]["moves"] == 7 and "off goal" in records[2]["reason"]
    one_error(result, "1 of 3 stored solutions do not solve", code=1)
    result = run(runner, "verify", path, "-l", "1,3")
    assert "2 of 3 stored solutions solve their levels" in result.stdout
    assert result.exit_code == 1
    result = run(runner, "verify", path, "-l", "1")
    assert result.exit_code == 0 and "1 of 1 stored solutions solve" in result.stdout
    one_error(run(runner, "verify", path, "-l", "2"), "stores no solution", code=2)


# --- render -------------------------------------------------------------------------------


def test_render_svg(runner, tmp_path, good) -> None:
    out = tmp_path / "level.svg"
    result = run(runner, "render", good, "--level", "2", "-o", out)
    assert result.exit_code == 0, result.stderr
    assert "192x128" in result.stdout
    expected = render.svg(Level.from_xsb("######\n#@$ .#\n# $ .#\n######"))
    # Same drawing as the library's (the title line aside).
    assert [line for line in out.read_text().splitlines() if "<title>" not in line] == (
        expected.splitlines()
    )


def test_render_png(runner, tmp_path, good) -> None:
    out = tmp_path / "level.PNG"
    result = run(runner, "render", good, "-l", "Line", "-o", out, "--cell", "10", "--json")
    assert json.loads(result.stdout) == {
        "output": str(out),
        "format": "png",
        "level": 1,
        "width": 50,
        "height": 30,
    }
    assert Image.open(io.BytesIO(out.read_bytes())).size == (50, 30)


def test_render_errors(runner, tmp_path, good) -> None:
    one_error(run(runner, "render", good, "-l", "1", "-o", tmp_path / "x.bmp"), ".svg", code=2)
    assert not (tmp_path / "x.bmp").exists()
    one_error(run(runner, "render", good, "-o", tmp_path / "x.svg"), "--level", code=2)
    one_error(run(runner, "render", good, "-l", "1", "-o", tmp_path / "x.svg", "--cell", "1"))
    one_error(run(runner, "render", good, "-l", "99", "-o", tmp_path / "x.svg"), "99")
    # A directory that is not there: refused before drawing, naming the file asked for.
    missing = tmp_path / "no" / "x.svg"
    line = one_error(run(runner, "render", good, "-l", "1", "-o", missing), f"{missing}")
    assert "does not exist" in line and ".x.svg." not in line


# --- the public collections ----------------------------------------------------------------


def test_convert_a_public_collection_round_trips(runner, tmp_path, public_levels) -> None:
    microban = public_levels.path("microban.xsb")
    for rle in ([], ["--rle"]):
        out = tmp_path / "microban.xsb"
        assert run(runner, "convert", microban, "-o", out, *rle).exit_code == 0
        after = json.loads(run(runner, "show", out, "--json").stdout)
        before = json.loads(run(runner, "show", microban, "--json").stdout)
        assert len(after) == len(public_levels.collection("microban.xsb")) and after == before


def test_verify_known_optimal_solutions(runner, public_levels) -> None:
    microban = public_levels.collection("microban.xsb")
    known = [row for row in public_levels.optima() if row["file"] == "microban.xsb"][:5]
    assert known
    for row in known:
        # The level's number in this file (the sample's are not the full file's).
        number = microban.number(public_levels.level("microban.xsb", int(row["level"])))
        path = public_levels.path("microban.xsb")
        result = run(runner, "verify", path, "-l", number, row["solution"], "--json")
        assert result.exit_code == 0, result.stderr
        data = json.loads(result.stdout)
        assert data["metrics"]["pushes"] == int(row["pushes"])
        assert data["metrics"]["moves"] == int(row["moves"])


# --- the group ----------------------------------------------------------------------------


def test_unknown_command_is_one_line(runner) -> None:
    one_error(run(runner, "frobnicate"), "frobnicate", code=2)


def test_write_atomically_keeps_mode(tmp_path) -> None:
    path = tmp_path / "f.txt"
    path.write_text("old")
    path.chmod(0o640)
    write_atomically(path, "new")
    assert path.read_text() == "new" and path.stat().st_mode & 0o777 == 0o640


def test_click_file_errors_are_one_line(runner) -> None:
    @click.command("_open_missing")
    def open_missing() -> None:
        raise click.FileError("gone.xsb", "no such file")

    main.add_command(open_missing)
    try:
        one_error(run(runner, "_open_missing"), "gone.xsb")
    finally:
        main.commands.pop("_open_missing")


def test_python_dash_m_sokoban_help() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "sokoban", "--help"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    for command in ("info", "show", "convert", "verify", "render"):
        assert f"  {command} " in result.stdout
