"""The ``single-box`` and ``longest`` commands through click's runner."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from sokoban import Level, verify
from sokoban.cli import main

PILLAR = "######\n#    #\n#  # #\n#    #\n######\n"


@pytest.fixture
def room_file(tmp_path):
    path = tmp_path / "room.xsb"
    path.write_text(PILLAR)
    return path


def invoke(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def test_single_box_prints_maxima_witnesses_and_distribution(room_file):
    result = invoke("single-box", room_file)
    assert result.exit_code == 0, result.output
    out = result.output
    assert "11 floor cells, 1,100 placements: 240 solvable, 860 unsolvable" in out
    assert "Most moves: 13 moves" in out
    assert "Most pushes: 3 pushes" in out
    assert "Optimal pushes: value, placements" in out


def test_single_box_json_witnesses_replay(room_file, tmp_path):
    png = tmp_path / "hist.png"
    result = invoke("single-box", room_file, "--json", "--histogram", png)
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)  # a progress bar may be on stderr
    assert data["solvable"] + data["unsolvable"] == data["placements"] == 1100
    assert sum(data["histogram"]["moves"]) == data["solvable"]
    for key, metric in (("max_moves", "moves"), ("max_pushes", "pushes")):
        witness = data[key]
        level = Level.from_xsb(witness["level"])
        assert level.xy(level.player) == tuple(witness["player"])
        replay = verify(level, witness["path"])
        assert getattr(replay.metrics, metric) == witness[metric]
    assert png.read_bytes().startswith(b"\x89PNG")


def test_single_box_errors_are_one_line(tmp_path):
    open_room = tmp_path / "open.xsb"
    open_room.write_text("####\n#  \n####\n")
    result = invoke("single-box", open_room)
    assert result.exit_code == 2
    assert result.output.strip() == "error: the room has no floor enclosed by walls"


def test_longest_json_is_proven_and_replays():
    result = invoke("longest", "--room", "4x4", "--obstacles", "2", "--workers", "0", "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)  # a progress bar may be on stderr
    assert data["proven"] and data["method"] == "exhaustive" and data["layouts"] == 21
    assert data["moves"]["best"] == 25 and data["pushes"]["best"] == 5
    winner = data["moves"]["winners"][0]
    assert len(winner["obstacles"]) == 2
    assert verify(Level.from_xsb(winner["level"]), winner["path"]).metrics.moves == 25


def test_longest_text_and_checkpoint(tmp_path):
    path = tmp_path / "ck.json"
    args = ["longest", "--room", "3x4", "-k", "2", "-w", "0", "--checkpoint", path, "--show", "2"]
    first = invoke(*args)
    assert first.exit_code == 0, first.output
    assert "every one analysed" in first.output and "Most pushes:" in first.output
    assert json.loads(path.read_text())["header"]["room"] == [3, 4]
    again = invoke(*args)  # resumed from the finished checkpoint: the same answer
    assert again.stdout.split("\n", 1)[1] == first.stdout.split("\n", 1)[1]


def test_longest_anneal_says_lower_bound():
    result = invoke(
        "longest",
        "--room",
        "5x4",
        "-k",
        "2",
        "--search",
        "anneal",
        "--time-limit",
        "0.3",
        "-w",
        "0",
    )
    assert result.exit_code == 0, result.output
    assert "LOWER BOUND" in result.output
    assert "Most pushes" not in result.output


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--room", "8"], "is not WIDTHxHEIGHT"),
        (["--room", "40x4"], "outside 1..16"),
        (["--room", "3x3", "-k", "12"], "do not fit"),
        (
            ["--room", "3x3", "--scheduler", "tcp://127.0.0.1:1", "--time-limit", "-1"],
            "--time-limit",
        ),
    ],
)
def test_longest_bad_options(args, message):
    result = invoke("longest", *args)
    assert result.exit_code == 2
    assert message in result.output
