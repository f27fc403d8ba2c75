"""The ``solve`` and ``bench`` commands through click's test runner."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from sokoban.cli import main
from sokoban.errors import SokobanError

LEVELS = """; three small levels

Corridor
#######
#@ $ .#
#######

Square
#####
#.  #
# $ #
#@$.#
#####

Broken
#####
#@$ #
#####
"""


def _file(tmp_path: Path) -> Path:
    path = tmp_path / "small.xsb"
    path.write_text(LEVELS)
    return path


def test_solve_one_level_prints_solution_and_stats(tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["solve", str(_file(tmp_path)), "--level", "1"])
    assert result.exit_code == 0, result.output
    assert "solved" in result.output
    assert "rRR" in result.output
    assert "2 pushes" in result.output
    assert "expanded" in result.output


def test_solve_json_and_methods(tmp_path: Path) -> None:
    path = _file(tmp_path)
    for method in ("astar", "moves", "bfs", "greedy", "wastar"):
        result = CliRunner().invoke(
            main, ["solve", str(path), "-l", "Square", "-m", method, "--json"]
        )
        assert result.exit_code == 0, result.output
        record = json.loads(result.stdout)["levels"][0]
        assert record["status"] == "solved"
        assert record["metrics"]["pushes"] >= 3
        assert record["method"] == method


def test_solve_errors_are_one_line(tmp_path: Path) -> None:
    path = _file(tmp_path)
    runner = CliRunner()
    result = runner.invoke(main, ["solve", str(path), "-l", "3"])
    assert result.exit_code == 2  # a level with no player is bad input, not a failed search
    assert result.output.startswith("error: level 3 (Broken) cannot be solved")
    result = runner.invoke(main, ["solve", str(path), "-l", "1", "-m", "nope"])
    assert result.exit_code == 2 and "not a method" in result.output
    result = runner.invoke(main, ["solve", str(path)])
    assert result.exit_code == 2 and "choose with --level" in result.output
    result = runner.invoke(main, ["solve", str(path), "-l", "1", "-t", "-1"])
    assert result.exit_code == 2


def test_solve_time_limit_zero_reports_the_limit(tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["solve", str(_file(tmp_path)), "-l", "2", "-t", "0"])
    # The result is printed, and the exit status says the level was not solved.
    assert result.exit_code == 1
    assert "time limit" in result.output
    assert "error: 1 of 1 level not solved (level 2: time limit)" in result.output


def test_bench_table_and_csv(tmp_path: Path) -> None:
    path = _file(tmp_path)
    out = tmp_path / "rows.csv"
    result = CliRunner().invoke(
        main, ["bench", str(path), "-l", "1-2", "-w", "0", "-t", "5", "--csv", str(out)]
    )
    assert result.exit_code == 0, result.output
    assert "small.xsb" in result.output
    rows = list(csv.DictReader(out.open()))
    assert [r["number"] for r in rows] == ["1", "2"]
    assert all(r["status"] == "solved" for r in rows)
    assert rows[0]["pushes"] == "2"


def test_bench_flags_a_wrong_optimum(tmp_path: Path) -> None:
    path = _file(tmp_path)
    table = tmp_path / "optimal.csv"
    table.write_text("file,level,pushes,moves,solution\nsmall.xsb,1,3,0,x\n")
    result = CliRunner().invoke(
        main, ["bench", str(path), "-l", "1", "-w", "0", "--json", "--optimal", str(table)]
    )
    assert result.exit_code == 1
    assert "differ from known optima" in result.output


def test_methods_lists_the_registry() -> None:
    result = CliRunner().invoke(main, ["methods", "--json"])
    assert result.exit_code == 0, result.output
    records = {r["name"]: r for r in json.loads(result.output)}
    assert records["astar"]["optimises"] == "pushes" and records["astar"]["optimal"]
    assert not records["greedy"]["optimal"]
    table = CliRunner().invoke(main, ["methods"])
    assert table.exit_code == 0 and "moves" in table.output
    # Every method's options are listed, with their types and defaults.
    assert [o["name"] for o in records["wastar"]["options"]][:3] == ["bound", "corrals", "weight"]
    weight = records["wastar"]["options"][2]
    assert weight["type"] == "float" and weight["default"] == 3.0
    assert "weight (float) = 3.0" in table.output
    # Help text is not taken for markup: the option a setting depends on stays in view.
    assert "next to its fence [corral_deadlocks]" in table.output.replace("\n", " ")


def test_solve_takes_method_options(tmp_path: Path) -> None:
    path = _file(tmp_path)
    args = ["solve", str(path), "-l", "1", "--json", "-m", "sma"]
    result = CliRunner().invoke(main, [*args, "--option", "budget=1"])
    assert result.exit_code == 1  # not solved: a budget of one node holds no push
    assert "cannot hold a single push" in json.loads(result.stdout)["levels"][0]["message"]
    result = CliRunner().invoke(main, [*args, "--option", "budget=50", "--option", "learn=off"])
    assert result.exit_code == 0, result.output
    assert "within 50 nodes" in json.loads(result.stdout)["levels"][0]["message"]


def test_bad_method_options_are_one_line_usage_errors(tmp_path: Path) -> None:
    path = str(_file(tmp_path))
    for method, option, words in [
        ("astar", "speed=3", "unknown option 'speed' for method 'astar'"),
        ("astar", "ties=shallow", "ties='shallow' of method 'astar' is not one of moves, deeper"),
        ("wastar", "weight=heavy", "weight='heavy' of method 'wastar' is not a number"),
        ("wastar", "weight=0.5", "is below 1"),
        ("astar", "corrals=maybe", "is not true or false"),
        ("astar", "corrals", "is not NAME=VALUE"),
    ]:
        args = ["solve", path, "-l", "1", "-m", method, "--option", option]
        result = CliRunner().invoke(main, args)
        assert result.exit_code == 2, (option, result.output)
        assert words in result.output and "Traceback" not in result.output


def test_bench_passes_options_to_the_workers(tmp_path: Path) -> None:
    path = str(_file(tmp_path))
    args = ["bench", path, "-l", "1-2", "-m", "sma", "-w", "2", "--json"]
    result = CliRunner().invoke(main, [*args, "--option", "budget=1"])
    data = json.loads(result.stdout)
    assert data["options"] == {"budget": 1}
    assert {row["status"] for row in data["levels"]} == {"memory limit"}
    result = CliRunner().invoke(main, args)
    assert {row["status"] for row in json.loads(result.stdout)["levels"]} == {"solved"}


def test_compare_gives_each_method_the_options_it_takes(tmp_path: Path) -> None:
    path = str(_file(tmp_path))
    args = ["compare", path, "-l", "1", "-m", "astar,ida,fess", "--json"]
    result = CliRunner().invoke(main, [*args, "--option", "bound=nearest", "--option", "key=bound"])
    assert result.exit_code == 0, result.output
    assert all(r["status"] == "solved" for r in json.loads(result.stdout)["methods"])
    result = CliRunner().invoke(
        main, ["compare", path, "-l", "1", "-m", "astar", "--option", "key=bound"]
    )
    assert result.exit_code == 2 and "no method of astar takes option 'key'" in result.output


def test_bench_worker_loads_the_kernels_before_its_first_timed_level(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A worker process loads the method's kernels once, untimed, as the parent does, so
    # that its first level's seconds cover the solve only.
    from sokoban.solve import Limits, bench

    loads: list[tuple[str, dict[str, object]]] = []
    real = bench.warm_up

    def counting(method: str, **options: object) -> float:
        loads.append((method, options))
        return real(method, **options)

    monkeypatch.setattr(bench, "_LOADED", set())
    monkeypatch.setattr(bench, "warm_up", counting)
    task = bench.Task(
        "f", 1, "t", "#######\n#@ $ .#\n#######", "greedy", Limits(time=5), (("tunnels", False),)
    )
    rows = [bench.run_task(task) for _ in range(2)]
    assert loads == [("greedy", {"tunnels": False})]
    assert [row.status for row in rows] == ["solved", "solved"]


def test_compile_loads_the_methods_and_their_stages_in_groups() -> None:
    # fast runs fess and A*: their groups are loaded (by workers here) before fast itself.
    from sokoban.solve import METHODS, bench

    seconds = bench.warm_up_all(["fast", "greedy"], workers=2)
    assert set(seconds) == {"fess", "astar", "greedy", "fast"}
    assert list(seconds)[-1] == "fast"
    assert all(value >= 0 for value in seconds.values())
    # Every method is in at most one group, and every group names real methods.
    grouped = [m for group in bench.COMPILE_GROUPS for m in group]
    assert len(grouped) == len(set(grouped)) and set(grouped) <= set(METHODS)
    assert set(METHODS) - set(grouped) == set(bench._STAGES)
    with pytest.raises(SokobanError, match="'nope'"):
        bench.warm_up_all(["nope"], workers=0)


def test_compile_command(tmp_path: Path) -> None:
    runner = CliRunner()
    done = runner.invoke(main, ["compile", "-m", "greedy", "-m", "ida", "-w", "0", "--json"])
    assert done.exit_code == 0, done.output
    record = json.loads(done.stdout)
    assert set(record["methods"]) == {"greedy", "ida"} and record["seconds"] >= 0
    done = runner.invoke(main, ["compile", "-m", "greedy", "-w", "0"])
    assert (
        done.exit_code == 0
        and done.stdout.startswith("kernels ready in ")
        and "greedy" in done.stdout
    )
    done = runner.invoke(main, ["compile", "-m", "nope"])
    assert done.exit_code == 2 and "'nope' is not a method" in done.output


def test_a_cold_cache_is_one_without_a_compiled_kernel(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import numba

    from sokoban import _jit

    monkeypatch.setattr(numba.config, "CACHE_DIR", str(tmp_path))
    assert _jit.cache_is_cold()
    (tmp_path / "solve_x").mkdir()
    (tmp_path / "solve_x" / "_fess._place-603.py311.nbi").write_bytes(b"")
    assert not _jit.cache_is_cold()
    monkeypatch.setattr(numba.config, "CACHE_DIR", "")  # numba's own choice: not known
    assert not _jit.cache_is_cold()


@pytest.mark.parametrize("cold", [True, False])
def test_solve_compiles_on_every_core_when_the_cache_is_cold(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, cold: bool
) -> None:
    # A first solve on a machine waits for fast's heaviest group of kernels (fess's), the
    # groups compiled side by side by sokoban compile's workers, not for all in turn.
    from sokoban import _jit
    from sokoban.solve import bench

    groups: list[list[str]] = []
    monkeypatch.setattr(_jit, "cache_is_cold", lambda: cold)
    monkeypatch.setattr(bench, "warm_up_all", lambda methods: groups.append(list(methods)))
    path = tmp_path / "levels.xsb"
    path.write_text(LEVELS)
    done = CliRunner().invoke(main, ["solve", str(path), "-l", "1", "-m", "fast"])
    assert done.exit_code == 0, done.output
    assert groups == ([["fast"]] if cold else [])
