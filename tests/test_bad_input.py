"""Hostile input, from the hardening pass: each case once gave a traceback, a hang, a huge
message or lost data. Every command error is one ``error:`` line and exit status 2 (130
for an interrupt).
"""

from __future__ import annotations

import io
import json
import os
import pickle
import signal
import time
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from sokoban import Level, batch, xsb
from sokoban.analysis import longest_puzzle
from sokoban.analysis.single_box import AnalysisError
from sokoban.cli import main
from sokoban.errors import (
    BoardTooLargeError,
    IllegalMoveError,
    LurdError,
    PictureTooLargeError,
    SokobanError,
    UnsolvedError,
    XsbError,
)
from sokoban.render import png

ROOM = "\n".join(["######", "#    #", "#    #", "######"]) + "\n"


def run(*args: object) -> Result:
    result = CliRunner().invoke(main, [str(a) for a in args])
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result


def one_error(result: Result, *fragments: str, code: int = 2) -> str:
    """A failure with one ``error:`` line on stderr (after any warnings), no traceback, and
    the exit status ``code``: 2, bad input, unless the case says otherwise."""
    assert result.exit_code == code, (result.exit_code, result.output)
    lines = result.stderr.splitlines()
    assert lines and lines[-1].startswith("error: "), result.stderr
    assert all(line.startswith("warning: ") for line in lines[:-1]), lines
    assert "Traceback" not in result.stderr
    assert len(lines[-1]) < 400, lines[-1][:400]
    for fragment in fragments:
        assert fragment in lines[-1], lines[-1]
    return lines[-1]


@pytest.fixture
def room(tmp_path: Path) -> Path:
    path = tmp_path / "room.xsb"
    path.write_text(ROOM)
    return path


# --- reading ------------------------------------------------------------------------------


def test_long_bad_line_is_quoted_in_part() -> None:
    with pytest.raises(XsbError) as info:
        Level.from_xsb("#" * 50_000)
    assert info.value.text == "#" * 50_000  # the whole line stays on the error
    assert len(str(info.value)) < 200 and "50,000 characters" in str(info.value)


def test_endless_line_is_refused_before_it_fills_memory() -> None:
    handle = io.StringIO("; 1\n" + "#" * (xsb.MAX_LINE + 10))
    with pytest.raises(XsbError, match="line longer than") as info:
        list(xsb.iter_levels(handle))
    assert info.value.line == 2


def test_command_on_an_endless_line(tmp_path: Path) -> None:
    path = tmp_path / "blob.xsb"
    path.write_text("#" * (xsb.MAX_LINE + 10))
    one_error(run("info", path), "blob.xsb", "line longer than")


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="no /dev/zero")
def test_endless_device_is_refused() -> None:
    one_error(run("info", "/dev/zero"), "a device, not a level file")


# --- verify -------------------------------------------------------------------------------


def test_verify_a_level_that_no_solution_can_solve(tmp_path: Path) -> None:
    path = tmp_path / "empty.xsb"
    path.write_text("#####\n#@ .#\n#####\n")
    one_error(run("verify", path, "R"), "cannot be solved", "no boxes")


# --- writing files ------------------------------------------------------------------------


def test_empty_output_name(room: Path) -> None:
    one_error(run("convert", room, "-o", ""), "no file name")
    one_error(run("single-box", room, "--histogram", ""), "no file name")


def test_output_in_a_missing_folder_is_refused_before_the_work(room: Path) -> None:
    one_error(run("convert", room, "-o", room.parent / "nope" / "x.xsb"), "does not exist")
    one_error(run("single-box", room, "--histogram", room.parent / "nope" / "h.png"), "nope")


def test_histogram_never_overwrites_the_room(room: Path) -> None:
    one_error(run("single-box", room, "--histogram", room), "input file")
    assert room.read_text() == ROOM


def test_render_to_a_file_named_just_the_suffix(room: Path, tmp_path: Path) -> None:
    result = run("render", room, "-o", tmp_path / ".svg")
    assert result.exit_code == 0, result.stderr
    assert (tmp_path / ".svg").read_text().startswith("<svg")


def test_huge_png_is_refused(tmp_path: Path) -> None:
    # A 100 x 100 grid whose room is small: allowed as a level, 25600 x 25600 pixels at 256.
    rows = [" " * 99 + "#"] * 100
    rows[:3] = [r + " " * 94 + "#" for r in ("#####", "#@$.#", "#####")]
    level = Level.from_xsb("\n".join(rows))
    started = time.perf_counter()
    with pytest.raises(PictureTooLargeError, match="smaller cell"):
        png(level, cell=256)
    assert time.perf_counter() - started < 5  # refused before a canvas is made
    path = tmp_path / "big.xsb"
    path.write_text("\n".join(rows) + "\n")
    one_error(run("render", path, "-o", tmp_path / "big.png", "--cell", 256), "pixels")
    assert not (tmp_path / "big.png").exists()


# --- longest ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "content, words",
    [
        ("[1, 2]", "not a checkpoint"),
        ("{}", "not a checkpoint"),
        ("HEADER_NO_CHUNKS", "damaged"),
        ("HEADER_BAD_CHUNK", "damaged"),
        ("HEADER_DUPLICATE", "damaged"),
    ],
)
def test_bad_checkpoint(tmp_path: Path, content: str, words: str) -> None:
    path = tmp_path / "run.json"
    good = tmp_path / "good.json"
    run("longest", "--room", "3x3", "-k", "1", "--checkpoint", good)
    data = json.loads(good.read_text())
    if content == "HEADER_NO_CHUNKS":
        del data["chunks"]
    elif content == "HEADER_BAD_CHUNK":
        data["chunks"][0]["moves"]["winners"] = [[1]]
    elif content == "HEADER_DUPLICATE":
        data["chunks"].append(data["chunks"][0])
    text = content if not content.startswith("HEADER") else json.dumps(data)
    path.write_text(text)
    one_error(run("longest", "--room", "3x3", "-k", "1", "--checkpoint", path), words)
    assert path.read_text() == text  # left as it was for the user to look at


def test_checkpoint_in_a_missing_folder(tmp_path: Path) -> None:
    path = tmp_path / "nope" / "run.json"
    one_error(run("longest", "--room", "3x3", "--checkpoint", path), "does not exist")
    # Through the API the error names the checkpoint, not a temporary file beside it.
    with pytest.raises(OSError) as info:
        longest_puzzle.longest(3, 3, 1, workers=0, checkpoint=path)
    assert info.value.filename == os.fspath(path)


@pytest.mark.parametrize("seconds", ["nan", "inf"])
def test_anneal_time_must_be_finite(seconds: str) -> None:
    with pytest.raises(AnalysisError, match="positive number"):
        longest_puzzle.anneal(3, 3, 2, seconds=float(seconds), workers=0)
    args = ["longest", "--room", "3x3", "-k", "2", "--search", "anneal", "--workers", "0"]
    one_error(run(*args, "--time-limit", seconds), "not a finite number")
    one_error(run(*args, "--time", seconds), "not a finite number")  # the old spelling


def test_rooms_without_a_solvable_placement_say_so() -> None:
    result = run("longest", "--room", "1x1", "--no-checkpoint")
    assert result.exit_code == 0, result.stderr
    assert "-1" not in result.stdout and "no layout has a solvable placement" in result.stdout


def test_too_many_workers_are_refused() -> None:
    too_many = batch.MAX_WORKERS_PER_CORE * batch.default_workers() + 1
    with pytest.raises(SokobanError, match="too many"):
        with batch.executor(workers=too_many):
            pass
    one_error(run("longest", "--room", "3x3", "--workers", too_many), "too many")


def _refuse(n: int) -> int:
    if n == 2:
        raise BoardTooLargeError("board of 101 x 101 cells is outside 1..100 a side")
    return n


def test_bad_input_found_by_a_task_keeps_its_own_error() -> None:
    # Not wrapped in BatchError (a RuntimeError the CLI would show as a traceback).
    with pytest.raises(BoardTooLargeError, match="101 x 101"):
        list(batch.run(_refuse, [1, 2, 3], workers=0))


@pytest.mark.parametrize(
    "error",
    [
        XsbError("unclosed '('", 7, "2(#", level=3),
        BoardTooLargeError("too big", 1, "#" * 200),
        IllegalMoveError("into a wall", 4, "r"),
        UnsolvedError(12, 2),
        LurdError("unexpected 'x'"),
    ],
)
def test_errors_cross_process_boundaries_whole(error: SokobanError) -> None:
    copy = pickle.loads(pickle.dumps(error))
    assert type(copy) is type(error) and str(copy) == str(error)
    assert vars(copy) == vars(error)


def test_interrupted_longest_says_where_its_work_is(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def interrupted(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(longest_puzzle, "longest", interrupted)
    path = tmp_path / "run.json"
    one_error(run("longest", "--room", "4x4", "--checkpoint", path), "run.json", "resume", code=130)


def test_game_of_an_unplayable_level_is_bad_input() -> None:
    from sokoban import Game

    with pytest.raises(SokobanError, match="the level has no player"):
        Game(Level.from_xsb("#####\n# $.#\n#####"))


def test_solution_file_without_end_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from sokoban.cli import common

    monkeypatch.setattr(common, "MAX_ARGUMENT_FILE", 100)
    level = tmp_path / "one.xsb"
    level.write_text("#####\n#@$.#\n#####\n")
    solution = tmp_path / "long.txt"
    solution.write_text("r" * 101)
    one_error(run("verify", level, f"@{solution}"), "more than 100 characters")


def test_many_broken_levels_give_a_bounded_number_of_warnings(tmp_path: Path) -> None:
    path = tmp_path / "many.xsb"
    broken = "\n".join(f"; {i}\n#####\n#@$.#\n#3(#\n" for i in range(100))
    path.write_text("; good\n#####\n#@$.#\n#####\n\n" + broken)
    result = run("info", path)
    assert result.exit_code == 0, result.stderr
    lines = result.stderr.splitlines()
    assert len(lines) == 21 and lines[-1].endswith("skipped 80 more broken levels")


@pytest.mark.parametrize("command", ["show", "info", "verify"])
def test_titles_cannot_send_escape_sequences(tmp_path: Path, command: str) -> None:
    path = tmp_path / "evil.xsb"
    path.write_text("Evil\x1b]0;pwned\x07\n#####\n#@$.#\n#####\n")
    result = run(command, path, *(["R"] if command == "verify" else []))
    assert result.exit_code == 0, result.stderr
    assert "\x1b" not in result.stdout and "\x07" not in result.stdout
    assert "Evil?]0;pwned?" in result.stdout


def test_sigterm_stops_a_command_as_ctrl_c_does(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def terminated(*args: object, **kwargs: object) -> None:
        os.kill(os.getpid(), signal.SIGTERM)
        time.sleep(5)  # the signal arrives before this ends

    monkeypatch.setattr(longest_puzzle, "longest", terminated)
    before = signal.getsignal(signal.SIGTERM)
    path = tmp_path / "run.json"
    one_error(
        run("longest", "--room", "4x4", "--checkpoint", path), "interrupted", "resume", code=130
    )
    assert signal.getsignal(signal.SIGTERM) == before


def test_exhaustive_runs_that_would_never_end_are_refused() -> None:
    with pytest.raises(AnalysisError, match="too many to enumerate"):
        longest_puzzle.longest(16, 16, 8, workers=0)
    one_error(run("longest", "--room", "16x16", "-k", "8"), "--search anneal")


def test_interrupt_stops_running_workers_at_once() -> None:
    started = time.perf_counter()
    with pytest.raises(KeyboardInterrupt):
        with batch.executor(workers=1) as pool:
            future = pool.submit(time.sleep, 120)
            while not future.running():
                time.sleep(0.05)
            processes = list(pool._processes.values())  # type: ignore[attr-defined]
            raise KeyboardInterrupt
    assert time.perf_counter() - started < 30
    assert processes and not any(p.is_alive() for p in processes)


def test_layout_search_arguments_are_checked() -> None:
    with pytest.raises(AnalysisError, match="at least one combination"):
        longest_puzzle.longest(3, 3, 1, workers=0, chunk_size=0)
    with pytest.raises(AnalysisError, match="at least one chain"):
        longest_puzzle.anneal(3, 3, 1, seconds=1, chains=0, workers=0)


def test_dump_writes_whole_or_not_at_all(tmp_path: Path) -> None:
    path = tmp_path / "set.xsb"
    path.write_text("old\n")
    path.chmod(0o640)

    # A lone surrogate cannot be encoded: the write fails after the file was opened.
    unwritable = Level.from_xsb("#####\n#@$.#\n#####").with_metadata(title="bad \ud800")
    with pytest.raises(UnicodeEncodeError):
        xsb.dump([unwritable], path)
    assert path.read_text() == "old\n"
    xsb.dump([Level.from_xsb("#####\n#@$.#\n#####")], path)
    assert len(xsb.load(path)) == 1 and path.stat().st_mode & 0o777 == 0o640
    assert [p.name for p in tmp_path.iterdir()] == ["set.xsb"]  # no temporary file left


def test_render_never_overwrites_its_level_file(tmp_path: Path) -> None:
    path = tmp_path / "level.svg"  # an XSB file with an odd name
    path.write_text(ROOM)
    one_error(run("render", path, "-o", path), "input file")
    assert path.read_text() == ROOM
