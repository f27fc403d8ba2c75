"""SOK 0.19 and SLC: every construct read, written and read back equal; losses said aloud.

``data/every_construct.sok`` and ``data/every_construct.slc`` hold one instance of each
construct of the formats; the shared collections (when present) are read back too.
"""

from __future__ import annotations

import json
import re
from datetime import timedelta
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from hypothesis import given, settings
from hypothesis import strategies as st
from public import SHARED_LEVELS, PublicLevels

from sokoban import (
    IllegalMoveError,
    Level,
    MovesError,
    Snapshot,
    UnsolvedError,
    XsbError,
    lurd,
    slc,
    xsb,
)
from sokoban.cli import main
from sokoban.snapshot import Moves, parse_moves

SHARED_FILES = sorted(
    [*SHARED_LEVELS.glob("*.xsb"), *SHARED_LEVELS.glob("*/*.xsb"), *SHARED_LEVELS.glob("*/*.txt")]
)


@pytest.fixture(scope="module")
def every(data_dir: Path) -> xsb.Collection:
    return xsb.load(data_dir / "every_construct.sok")


def run(*args: object) -> Result:
    result = CliRunner().invoke(main, [str(a) for a in args])
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    assert "Traceback" not in result.stderr
    return result


# --- SOK: reading ---------------------------------------------------------------------------


def test_file_notes(every: xsb.Collection) -> None:
    assert every.title == "Every construct"
    assert every.metadata == (
        ("Collection", "Every construct"),
        ("Author", "The sokoban project"),
        ("Date Created", "2026-01-02"),
        ("Date of Last Change", "2026-01-03"),
    )
    assert every.header == (
        "One level per construct of the format, each with what the tests expect of it.\n"
        "A second line of the header.\n\nSecond paragraph of the header."
    )
    assert every.errors == []


def test_notes_after_a_board_belong_to_it(every: xsb.Collection) -> None:
    first, second = every[0], every[1]
    assert (first.title, first.author) == ("First", "Someone")
    assert first.comment == (
        "A comment block.\n\nWith a blank line, and a line that looks like a board row:\n"
        "#####\nA free note after the board."
    )
    assert first.metadata == (("Difficulty", "easy"),)
    # Sven Egevad's layout: a number line above the board, Title: and Author: below it.
    assert (second.title, second.author, second.comment) == (
        "Second, titled after its board",
        "Sven style",
        "2",
    )
    assert [level.title for level in every] == [
        "First",
        "Second, titled after its board",
        "Reverse",
        "",
        "; a title that needs its key",
        "Last",
    ]


def test_snapshots(every: xsb.Collection) -> None:
    first, second, reverse, untitled, keyed, last = every
    assert first.snapshots == (
        Snapshot("R", "Solution (moves)", "Moves: 1\nPushes: 1"),
        Snapshot("R", "Solution (pushes)", "Moves: 1\nPushes: 1"),  # lines above its moves
        Snapshot("*R", "Save", "A saved game at its start."),
    )
    assert first.snapshots[0].properties == {"Moves": "1", "Pushes": "1"}
    assert first.solutions == ("R", "R")  # the saved game is not a solution
    assert not first.snapshots[2].is_solution
    assert parse_moves(first.snapshots[2].moves).current == 0
    assert second.solutions == ("rRlldR", "2(r)lldR")  # inline, and over two lines
    assert [s.title for s in second.snapshots] == ["Solution", "Solution 2"]
    # Reverse mode: kept as text and parsed, but not a forward solution.
    assert [s.moves for s in reverse.snapshots] == ["[rr]L", "[]r*r"]
    assert all(s.is_reverse for s in reverse.snapshots) and reverse.solutions == ()
    assert parse_moves("[rr]L") == Moves("rrL", jumps=((0, 2),))
    assert parse_moves("[]r*r") == Moves("rr", jumps=((0, 0),), current=1)
    assert untitled.snapshots == ()
    # A line of marks only continues the moves above it.
    assert keyed.snapshots == (Snapshot("rRR*", "Solution/Moves"),)
    assert keyed.solutions == ("rRR",)
    # The last level's solution block, at the very end of the file, is kept.
    assert last.solutions == ("rDldR",)
    for level in every:
        for solution in level.solutions:
            assert lurd.verify(level, solution).is_solved, level.title


def test_moves_notation() -> None:
    assert parse_moves("2(rU) [ll]\n*d") == Moves("rUrUlld", jumps=((4, 6),), current=6)
    assert parse_moves("<l>U") == Moves("lU", jumps=((0, 1),))  # the older jump brackets
    assert parse_moves("{rd}U") == Moves("rdU", changes=((0, 2),))
    for bad, reason in [
        ("[l", "unclosed '['"),
        ("l]", "unmatched ']'"),
        ("[{l}]", "inside"),
        ("r**", "a second '*'"),
        ("rX", "unexpected character 'X'"),
        ("2(r", "unclosed '('"),
    ]:
        with pytest.raises(MovesError, match=re.escape(reason)):
            parse_moves(bad)
    with pytest.raises(MovesError, match="reverse mode"):
        Snapshot("[]U").lurd()
    assert Snapshot("rR*lL", "Save").lurd() == "rRlL"
    assert Snapshot("R", "").is_solution and not Snapshot("R", "Snapshot 3").is_solution
    untitled = xsb.loads("#####\n#@$.#\n#####\nR\n")[0]  # a bare line of moves: a solution
    assert untitled.snapshots == (Snapshot("R", ""),) and untitled.solutions == ("R",)


def test_bad_moves_make_a_broken_level_with_its_line() -> None:
    text = "; 1\n#####\n#@$.#\n#####\n\nSolution\nR[\n\n; 2\n#####\n#@$.#\n#####\n"
    collection = xsb.loads(text)
    assert [level.title for level in collection] == ["2"]
    (error,) = collection.errors
    assert (error.level, error.line) == (1, 7) and "unclosed '['" in str(error)


def test_solutions_given_in_code_keep_the_saved_games() -> None:
    level = Level.from_xsb("#####\n#@$.#\n#####").with_metadata(
        snapshots=(Snapshot("r*", "Save"), Snapshot("R"))
    )
    changed = level.with_metadata(solutions=("R", "1R"))
    assert changed.solutions == ("R", "1R")
    assert Snapshot("r*", "Save") in changed.snapshots
    assert eval(repr(changed), {"Level": Level}) == changed


def test_plain_xsb_still_reads(data_dir: Path) -> None:
    assert len(xsb.load(data_dir / "variants.xsb")) == 7
    collection = xsb.loads("; 1\n#####\n#@$.#\n#####\n; 2\n5#|#@$.#|5#\n")
    assert [level.title for level in collection] == ["1", "2"]  # one text line: a title
    assert collection[0] == collection[1].with_metadata(title="1")
    # A word of move letters right above a board is its title, not a saved game.
    dud = xsb.loads("; 1\n#####\n#@$.#\n#####\n\nDud\n#####\n#@$.#\n#####\n")
    assert [level.title for level in dud] == ["1", "Dud"] and dud[0].snapshots == ()


# --- SOK: round trips -----------------------------------------------------------------------


@pytest.mark.parametrize(
    "name", ["every_construct.sok", "sok.sok", "variants.xsb", "tiny.xsb", "broken.xsb"]
)
@pytest.mark.parametrize("rle", [False, True])
def test_own_files_round_trip(data_dir: Path, name: str, rle: bool) -> None:
    collection = xsb.load(data_dir / name)
    losses: list[str] = []
    text = xsb.dumps(collection, rle=rle, losses=losses)
    again = xsb.loads(text)
    assert len(losses) == len(collection.errors)  # only broken levels, which were never read
    assert again == collection
    assert again.levels == collection.levels and again.metadata == collection.metadata
    assert again.title == collection.title
    assert xsb.dumps(again, rle=rle) == text  # the written form is a fixed point


@pytest.mark.skipif(not SHARED_FILES, reason="the shared collections are absent")
@pytest.mark.parametrize("path", SHARED_FILES, ids=lambda p: p.name)
def test_shared_collections_round_trip(path: Path) -> None:
    collection = xsb.load(path)
    losses: list[str] = []
    again = xsb.loads(xsb.dumps(collection, losses=losses))
    assert losses == [] and collection.errors == []
    assert again == collection and len(again) == len(collection)
    back = slc.loads(slc.dumps(collection))
    assert [level.xsb() for level in back] == [level.xsb() for level in collection]
    assert [level.title for level in back] == [level.title for level in collection]


@pytest.mark.skipif(
    not (SHARED_LEVELS / "dev" / "sven_odd.xsb").exists(), reason="sven_odd.xsb is absent"
)
def test_sven_titles_are_their_own_levels() -> None:
    result = run("info", SHARED_LEVELS / "dev" / "sven_odd.xsb", "--json")
    data = json.loads(result.stdout)
    titles = [record["title"] for record in data["levels"]]
    assert titles[:3] == ["SE 1", "SE 3", "SE 5"] and titles[-1] == "SE 1623"
    assert data["found"] == len(titles) == 812
    assert data["metadata"]["Set"] == "Sven Egevad"


def test_what_cannot_be_written_is_listed() -> None:
    level = Level.from_xsb("#####\n#@$.#\n#####").with_metadata(
        title="two\nlines", comment="a\nComment-End:\nb", metadata=(("Bad key 1", "v"),)
    )
    losses: list[str] = []
    xsb.format_level(level, losses=losses)
    assert len(losses) == 3
    assert "title" in losses[0] and "Comment-End" in losses[1] and "Bad key 1" in losses[2]


# --- SLC ------------------------------------------------------------------------------------


def test_slc_file(data_dir: Path) -> None:
    collection = slc.load(data_dir / "every_construct.slc")
    assert collection.title == "Every SLC construct"
    assert collection.header == "The collection's description.\nTwo lines of it."
    assert dict(collection.metadata) == {
        "Collection": "Every SLC construct",
        "Email": "someone@example.org",
        "Url": "https://example.org/levels",
        "Copyright": "The sokoban project",
    }
    one, ragged, aliases = collection
    assert one == Level.from_xsb("#####\n#@$.#\n#####").with_metadata(title="One")
    assert (ragged.title, ragged.author, ragged.width, ragged.height) == (
        "Ragged & spaced",
        "Someone",
        7,
        5,
    )
    assert (
        aliases.metadata == (("Difficulty", "easy"),) and aliases.xsb() == "######\n#@ $.#\n######"
    )
    (broken,) = collection.errors
    assert (broken.level, broken.line) == (3, 26) and "'x'" in str(broken)
    assert collection.positions == [1, 2, 4]


def test_slc_round_trip(data_dir: Path) -> None:
    collection = slc.load(data_dir / "every_construct.slc")
    losses: list[str] = []
    again = slc.loads(slc.dumps(collection, losses))
    assert losses == [
        f"a level that could not be read ({collection.errors[0]})",
        "level 'Aliases': the metadata line 'Difficulty: easy'",  # no place for these in SLC
        "level 'Aliases': its comment",
    ]
    assert again.levels[:2] == collection.levels[:2] and again.metadata == collection.metadata
    assert again[2] == collection[2].with_metadata(metadata=(), comment="")
    # SLC to SOK keeps everything too.
    assert xsb.loads(xsb.dumps(collection)) == collection


def test_sok_to_slc_lists_its_losses(every: xsb.Collection) -> None:
    losses: list[str] = []
    text = slc.dumps(every, losses)
    assert any("'First': its comment" in line for line in losses)
    assert any("snapshot 'Solution (moves)'" in line for line in losses)
    assert any("Date Created" in line for line in losses)
    assert [level.xsb() for level in slc.loads(text)] == [level.xsb() for level in every]


@pytest.mark.parametrize(
    "text, reason",
    [
        ('<?xml version="1.0"?><!DOCTYPE x [<!ENTITY a "b">]><SokobanLevels/>', "entities"),
        ("<SokobanLevels><Title>x</Title>", "not SLC"),
        ("<Levels/>", "not <SokobanLevels>"),
    ],
)
def test_slc_refuses(text: str, reason: str) -> None:
    with pytest.raises(XsbError, match=reason):
        slc.loads(text)


# --- the CLI --------------------------------------------------------------------------------


def test_info_counts_every_level(data_dir: Path) -> None:
    result = run("info", data_dir / "broken.xsb")
    assert result.exit_code == 0
    summary = " ".join(result.stdout.split())
    assert "2 of 7 levels shown; 5 broken, skipped: level 2 (line 10)" in summary
    data = json.loads(run("info", data_dir / "broken.xsb", "--json").stdout)
    assert data["found"] == 7 and len(data["levels"]) == 2
    assert [(b["level"], b["line"]) for b in data["broken"]][:2] == [(2, 10), (4, 19)]


def test_convert_keeps_the_file_notes(data_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "out.sok"
    result = run("convert", data_dir / "every_construct.sok", "-o", out)
    assert result.exit_code == 0, result.stderr
    assert out.read_text().startswith("Collection: Every construct\nAuthor: The sokoban project")
    assert xsb.load(out) == xsb.load(data_dir / "every_construct.sok")


def test_convert_to_slc_refuses_losses_unless_lossy(data_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "out.slc"
    refused = run("convert", data_dir / "every_construct.sok", "-o", out)
    assert refused.exit_code == 2 and not out.exists()
    assert "error: SLC cannot hold level 'First': its comment" in refused.stderr
    assert "pass --lossy" in refused.stderr.splitlines()[-1]
    written = run("convert", data_dir / "every_construct.sok", "-o", out, "--lossy")
    assert written.exit_code == 0 and "warning: SLC cannot hold" in written.stderr
    assert len(slc.load(out)) == 6
    # An SLC file reads in every command, and converts to SOK without loss.
    back = tmp_path / "back.sok"
    assert (
        run("convert", data_dir / "every_construct.slc", "-o", back, "--skip-broken").exit_code == 0
    )
    assert xsb.load(back).levels == slc.load(data_dir / "every_construct.slc").levels
    info = json.loads(run("info", data_dir / "every_construct.slc", "--json").stdout)
    assert info["found"] == 4 and info["title"] == "Every SLC construct"


# --- reverse mode ---------------------------------------------------------------------------


def test_reverse_mode_solution_plays_forward(every: xsb.Collection) -> None:
    reverse = every.find("Reverse")
    (solution, _) = reverse.snapshots
    assert lurd.verify(reverse, lurd.from_reverse(reverse, solution.moves)).is_solved
    with pytest.raises(IllegalMoveError, match="no box behind"):
        lurd.from_reverse(reverse, "[]R")
    with pytest.raises(UnsolvedError):
        lurd.from_reverse(reverse, "[]")


def test_reverse_games_of_real_solutions(public_levels: PublicLevels) -> None:
    """A forward solution turned into a reverse game (a jump to where it ends, then its
    steps backwards as pulls) comes back as a solution."""
    rows = public_levels.optima()[:12]
    for row in rows:
        level = public_levels.level(row["file"], int(row["level"]))
        played = lurd.verify(level, row["solution"])
        solved = level.moved(boxes=level.goals)
        assert level.player is not None and played.final.player is not None
        jump = lurd.walk(solved, level.player, played.final.player)
        assert jump is not None
        pulls = "".join(
            d.opposite.value.upper() if push else d.opposite.value
            for d, push in reversed(played.solution.steps)
        )
        game = f"[{jump.lurd()}]{pulls}"
        assert Snapshot(game).is_reverse
        forward = lurd.from_reverse(level, game)
        assert lurd.verify(level, forward).metrics.pushes == int(row["pushes"])


def test_the_text_grammar_is_below_the_level() -> None:
    """grammar and snapshot import neither the level nor the modules above it; level
    imports no collection module (every import counted, those inside functions too)."""
    import ast

    import sokoban

    root = Path(sokoban.__file__).parent

    def imported(name: str) -> set[str]:
        tree = ast.parse((root / f"{name}.py").read_text(encoding="utf-8"))
        found = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module:
                found.add(node.module)
                found.update(f"{node.module}.{a.name}" for a in node.names)
            elif isinstance(node, ast.Import):
                found.update(a.name for a in node.names)
        return {n for n in found if n.startswith("sokoban")}

    above = {"sokoban.level", "sokoban.xsb", "sokoban.lurd", "sokoban.render", "sokoban.slc"}
    assert imported("grammar") & above == set()
    assert imported("snapshot") & above == set()
    # "from sokoban import xsb" is named "sokoban.xsb" too.
    assert imported("level") & {"sokoban.xsb", "sokoban.slc"} == set()


# --- properties -----------------------------------------------------------------------------

_WORDS = st.text("abcXYZ 019#;:-_.()'!@$*|[]lurd", max_size=14).map(str.strip)
_MOVES = st.lists(
    st.sampled_from(["l", "u", "r", "D", "U", "3r", "2(lU)", "[]", "[rr]", "{d}", "*"]),
    min_size=1,
    max_size=8,
).map("".join)


@st.composite
def snapshots(draw: st.DrawFn) -> Snapshot:
    moves = draw(_MOVES.filter(lambda m: m.count("*") <= 1 and any(c in "lurdLURD" for c in m)))
    title = draw(st.sampled_from(["Solution", "Solution (moves)", "Save", "Snapshot 2", ""]))
    notes = "\n".join(draw(st.lists(_WORDS, max_size=3))).strip("\n")
    return Snapshot(moves, title, notes)


@settings(max_examples=120, deadline=timedelta(milliseconds=500))
@given(st.lists(snapshots(), max_size=3), _WORDS, _WORDS, st.lists(_WORDS, max_size=2))
def test_written_snapshots_read_back(
    shots: list[Snapshot], title: str, comment: str, header: list[str]
) -> None:
    level = Level.from_xsb("#####\n#@$.#\n#####").with_metadata(
        title=title, comment=comment, snapshots=tuple(shots)
    )
    collection = xsb.Collection([level, level.with_metadata(title="")], header="\n".join(header))
    losses: list[str] = []
    text = xsb.dumps(collection, losses=losses)
    again = xsb.loads(text)
    assert again.levels == collection.levels, text
    assert again.header == collection.header.strip("\n")
    assert losses == []


def test_the_web_library_reads_slc(data_dir: Path) -> None:
    from sokoban.web.services.library import read_collection

    served = read_collection(data_dir / "every_construct.slc", "mine")
    assert served.title == "Every SLC construct" and len(served.levels) == 3
    assert "1 broken levels skipped" in served.description
