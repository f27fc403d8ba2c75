"""The command line as a whole: every option has help, a short option means one thing in
every command, the batch commands share their options, the README lists every command, and
tables stay whole when stdout is a pipe."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import click
import pytest
from click.testing import CliRunner

from sokoban.cli import main

README = Path(__file__).resolve().parents[1] / "README.md"
TINY = Path(__file__).resolve().parent / "data" / "tiny.xsb"
SOK = Path(__file__).resolve().parent / "data" / "sok.sok"

#: Commands that print no data of their own: serve runs a web server (its answers are JSON
#: over HTTP).
NOT_DATA: set[str] = {"serve"}
#: Commands that spread work over processes or a Dask cluster.
BATCH = {"bench", "dataset", "generate", "longest", "solve"}


def _commands() -> dict[str, click.Command]:
    """Every command by its full name, a group's commands included ("db stats")."""
    found: dict[str, click.Command] = {}
    for name, command in main.commands.items():
        if isinstance(command, click.Group):
            found.update({f"{name} {sub}": c for sub, c in command.commands.items()})
        else:
            found[name] = command
    return dict(sorted(found.items()))


def _options(command: click.Command) -> list[click.Option]:
    return [p for p in command.params if isinstance(p, click.Option) and not p.hidden]


@pytest.mark.parametrize("name", list(_commands()))
def test_every_option_and_command_has_help(name: str) -> None:
    command = _commands()[name]
    assert command.help and command.get_short_help_str(), name
    undocumented = [p.opts[0] for p in _options(command) if not (p.help or "").strip()]
    assert not undocumented, f"{name}: options without help: {undocumented}"
    result = CliRunner().invoke(main, [*name.split(), "--help"])
    assert result.exit_code == 0 and "Usage: " in result.output


def test_a_short_option_means_one_thing_in_every_command() -> None:
    meanings: dict[str, set[str]] = {}
    for command in _commands().values():
        for option in _options(command):
            for short in (o for o in option.opts if not o.startswith("--")):
                long = next(o for o in option.opts if o.startswith("--"))
                # --method in one command and --methods in another name the same thing.
                meanings.setdefault(short, set()).add(long.rstrip("s"))
    clashes = {short: names for short, names in meanings.items() if len(names) > 1}
    assert not clashes
    assert meanings["-l"] == {"--level"} and meanings["-t"] == {"--time-limit"}


def test_seconds_are_spelled_time_limit() -> None:
    for name, command in _commands().items():
        for option in _options(command):
            long = next(o for o in option.opts if o.startswith("--"))
            text = (option.help or "").lower().replace("a second", "per second")
            if "second" in text.replace("per second", "") and "time-limit" not in long:
                pytest.fail(f"{name} {long}: seconds are --time-limit (or --total-time-limit)")


@pytest.mark.parametrize("name", sorted(set(_commands()) - NOT_DATA))
def test_every_data_command_has_json(name: str) -> None:
    assert "--json" in {o for p in _options(_commands()[name]) for o in p.opts}


@pytest.mark.parametrize("name", sorted(BATCH))
def test_batch_commands_take_workers_and_a_scheduler(name: str) -> None:
    opts = {o for p in _options(_commands()[name]) for o in p.opts}
    assert {"--workers", "-w", "--scheduler"} <= opts


def test_the_readme_lists_every_command() -> None:
    listed = re.findall(r"^\| `sokoban ([a-z-]+)", README.read_text(encoding="utf-8"), re.M)
    assert sorted(set(listed)) == sorted(main.commands), "README's command table is out of date"


@pytest.mark.parametrize(
    "args",
    [
        ["info", str(TINY)],
        ["methods"],
        ["verify", str(SOK)],
        ["verify", str(TINY), "-l", "1", "R"],
        ["compare", str(TINY), "-l", "2", "-m", "astar,bfs", "-t", "10"],
        ["curve", str(TINY), "-l", "2", "--budgets", "5,10", "-t", "10"],
        ["bench", str(TINY), "-w", "0", "-t", "10"],
    ],
    ids=lambda args: args[0] if args[0] != "verify" else "verify-" + str(len(args)),
)
def test_tables_stay_whole_in_a_pipe(args: list[str]) -> None:
    # CliRunner's stdout is not a terminal, as with `sokoban ... | cat` or a CI log: rich
    # would fit tables to 80 columns and cut wide cells to a few characters and an ellipsis.
    result = CliRunner().invoke(main, args)
    assert result.exit_code in (0, 1), result.output
    assert "┃" in result.output or "│" in result.output or args[0] == "verify", result.output
    assert "…" not in result.output


def test_files_are_written_only_where_asked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    runner = CliRunner()
    curve = ["curve", str(TINY), "-l", "2", "--budgets", "10", "-t", "10"]
    assert runner.invoke(main, curve).exit_code == 0
    longest = ["longest", "--room", "3x3", "-k", "1", "-w", "0"]
    assert runner.invoke(main, longest).exit_code == 0
    assert list(tmp_path.iterdir()) == []  # no plot, no checkpoint unless asked for
    assert runner.invoke(main, [*curve, "--plot"]).exit_code == 0
    assert runner.invoke(main, [*longest, "--checkpoint"]).exit_code == 0
    written = sorted(p.name for p in tmp_path.iterdir())
    assert written == ["curve-2.png", "sokoban-longest-3x3-k1.json"]
    assert (tmp_path / "curve-2.png").read_bytes().startswith(b"\x89PNG")


def test_generate_json(tmp_path: Path) -> None:
    import json

    args = ["generate", "-s", "6x6", "-b", "1", "-n", "2", "--seed", "1", "-w", "0", "-q"]
    data = json.loads(CliRunner().invoke(main, [*args, "--json"]).stdout)
    assert data["generated"] == 2 and data["output"] is None and data["metrics"] is None
    assert [r["title"] for r in data["levels"]] == ["Generated 6x6 #1", "Generated 6x6 #2"]
    assert all("Solution: " in r["xsb"] for r in data["levels"])
    out = tmp_path / "levels.xsb"
    data = json.loads(CliRunner().invoke(main, [*args, "--json", "-o", str(out)]).stdout)
    assert data["output"] == str(out) and data["metrics"] == str(tmp_path / "levels.json")
    assert "xsb" not in data["levels"][0] and out.exists()


def test_solve_on_workers_gives_what_solving_here_gives() -> None:
    import json

    args = ["solve", str(TINY), "-l", "1-3", "--json"]
    here = json.loads(CliRunner().invoke(main, args).stdout)
    there = json.loads(CliRunner().invoke(main, [*args, "-w", "1"]).stdout)
    assert isinstance(here["kernel_load_seconds"], float)

    def answers(data: dict[str, Any]) -> list[tuple[Any, ...]]:
        return [(r["number"], r["status"], r["solution"]) for r in data["levels"]]

    assert answers(here) == answers(there) and len(answers(here)) == 3
