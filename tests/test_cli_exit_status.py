"""The exit status of real commands, one class of outcome at a time: 0 done, 1 not solved
or not verified, 2 bad input or usage, 130 interrupted; every failure one ``error:`` line.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from sokoban.analysis import longest_puzzle
from sokoban.cli import main
from sokoban.cli.common import EXIT_BAD_INPUT, EXIT_DONE, EXIT_INTERRUPTED, EXIT_NOT_DONE
from sokoban.solve import bench

ROOT = Path(__file__).parent.parent
TINY = Path(__file__).parent / "data" / "tiny.xsb"
#: The box on the right can never move: astar proves it at once.
STUCK = "#####\n#@$.#\n#.$ #\n#####\n"
#: A comment that SLC cannot hold.
NOTES = "Collection: Notes\n\nTitle: One\nComment: kept in SOK only\n#####\n#@$.#\n#####\n"


def run(*args: object) -> Result:
    result = CliRunner().invoke(main, [str(a) for a in args])
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result


def failed(result: Result, code: int, *fragments: str) -> str:
    """The exit status is ``code`` and stderr ends in one ``error:`` line with every
    fragment; no traceback."""
    assert result.exit_code == code, (result.exit_code, result.stderr)
    assert "Traceback" not in result.stderr
    lines = result.stderr.strip().splitlines()
    assert lines and lines[-1].startswith("error: "), result.stderr
    for fragment in fragments:
        assert fragment in lines[-1], lines[-1]
    return lines[-1]


@pytest.fixture
def stuck(tmp_path: Path) -> Path:
    path = tmp_path / "stuck.xsb"
    path.write_text(STUCK)
    return path


def test_done_is_0() -> None:
    assert run("info", TINY).exit_code == EXIT_DONE == 0
    assert run("verify", TINY, "-l", "1", "R").exit_code == 0
    assert run("solve", TINY, "-l", "2", "-t", "10").exit_code == 0


def test_not_solved_or_not_verified_is_1(stuck: Path, tmp_path: Path) -> None:
    assert EXIT_NOT_DONE == 1
    # solve: good input, no solution within the limits (here: proved to have none).
    result = run("solve", stuck, "-t", "10")
    assert "unsolvable" in result.stdout  # the result is printed first
    failed(result, 1, "1 of 1 level not solved")
    failed(run("solve", TINY, "-l", "3", "--node-limit", "1"), 1, "not solved", "node limit")
    failed(run("compare", stuck, "-m", "astar,bfs"), 1, "no method solved level 1")
    # verify: a solution that does not solve its level, and one with an illegal step.
    failed(run("verify", TINY, "-l", "2", "RR"), 1, "not a solution", "off goal")
    failed(run("verify", TINY, "-l", "1", "U"), 1, "not a solution", "index 0")
    # bench: a solution claimed optimal that differs from the known optimum, as a table and
    # as JSON.
    table = tmp_path / "optimal.csv"
    table.write_text("file,level,pushes,moves,solution\ntiny.xsb,1,3,0,x\n")
    for extra in ([], ["--json"]):
        bench = run("bench", TINY, "-l", "1", "-w", "0", "--optimal", table, *extra)
        failed(bench, 1, "1 solutions claimed optimal differ from known optima")


def test_bad_input_or_usage_is_2(stuck: Path, tmp_path: Path) -> None:
    assert EXIT_BAD_INPUT == 2
    broken = tmp_path / "broken.xsb"
    broken.write_text("#####\n#@$.#\n#3(#\n")
    failed(run("info", broken), 2, "broken.xsb")  # a malformed level file
    failed(run("info", tmp_path / "missing.xsb"), 2, "does not exist")  # a missing file
    failed(run("solve", TINY, "-l", "9"), 2, "no level 9")  # an unknown level
    failed(run("solve", TINY, "-l", "1", "-t", "soon"), 2, "--time-limit")  # a bad value
    failed(run("solve", TINY, "-l", "1", "-m", "nope"), 2, "not a method")
    failed(run("solve", TINY, "--frobnicate"), 2, "--frobnicate")  # an unknown option
    failed(run("verify", TINY, "-l", "1", "Rx"), 2, "'x'")  # a bad solution string
    no_player = tmp_path / "no_player.xsb"
    no_player.write_text("#####\n# $.#\n#####\n")
    failed(run("solve", no_player), 2, "no player")  # a level that cannot be played
    failed(run("verify", no_player, "R"), 2, "no player")
    optima = tmp_path / "optima.csv"
    optima.write_text("file,level\nx.xsb,1\n")
    failed(run("bench", TINY, "-w", "0", "--optimal", optima), 2, "not a table of known optima")
    # convert: what the output format cannot hold, unless --lossy.
    notes = tmp_path / "notes.sok"
    notes.write_text(NOTES)
    out = tmp_path / "notes.slc"
    failed(run("convert", notes, "-o", out), 2, "pass --lossy")
    assert not out.exists()
    assert run("convert", notes, "-o", out, "--lossy").exit_code == 0


def test_interrupted_is_130(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert EXIT_INTERRUPTED == 130

    def interrupted(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(longest_puzzle, "longest", interrupted)
    failed(run("longest", "--room", "4x4", "--no-checkpoint"), 130, "interrupted")
    path = tmp_path / "run.json"
    failed(run("longest", "--room", "4x4", "--checkpoint", path), 130, "resume")

    # Ctrl-C while bench solves its second level in this process.
    real = bench.run_task
    calls = []

    def second_interrupted(task: object) -> object:
        calls.append(task)
        if len(calls) == 2:
            raise KeyboardInterrupt
        return real(task)  # type: ignore[arg-type]

    monkeypatch.setattr(bench, "run_task", second_interrupted)
    result = run("bench", TINY, "-w", "0", "-t", "10")
    assert result.exit_code == 130, result.stderr
    assert "interrupted: 1 of 3 levels finished" in result.stderr
    assert "Traceback" not in result.stderr


def test_the_docs_list_every_status() -> None:
    page = (ROOT / "docs" / "cli" / "index.md").read_text()
    section = page[page.index("## Exit status") :].split("\n## ")[0]
    assert re.findall(r"^\| (\d+) \|", section, re.M) == ["0", "1", "2", "130"]
    readme = " ".join((ROOT / "README.md").read_text().split())
    assert "0 done, 1 not solved or not verified" in readme and "2 bad input or usage" in readme
