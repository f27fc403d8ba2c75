"""XSB/SOK reading and writing: every notation, titles and metadata, tolerance, round trips."""

from __future__ import annotations

import io
import re
from datetime import timedelta
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from public import PublicLevels

from sokoban import BoardTooLargeError, Level, LevelNotFoundError, XsbError, grammar, lurd, xsb
from sokoban.xsb import (
    Collection,
    decode_rle,
    dump,
    format_collection,
    format_level,
    is_board_line,
    iter_levels,
    load,
    loads,
    parse_level,
)

PLAIN = "#####\n#@$.#\n#####"


def board(text: str) -> Level:
    """A level from plain rows (no title)."""
    return parse_level(text)


# --- the public collections -----------------------------------------------------------------

COUNTS = {
    "microban.xsb": 155,
    "microban2.xsb": 135,
    "xsokoban.xsb": 90,
    "boxoban/unfiltered_test_000.txt": 1000,
    "boxoban/medium_valid_000.txt": 1000,
    "boxoban/hard_000.txt": 1000,
}


@pytest.fixture(scope="module")
def collections(public_levels: PublicLevels) -> dict[str, Collection]:
    return {name: public_levels.collection(name) for name in COUNTS}


@pytest.mark.parametrize("name", COUNTS)
def test_public_collections_read_completely(
    collections: dict[str, Collection], public_levels: PublicLevels, name: str
) -> None:
    collection = collections[name]
    expected = len(public_levels.numbers(name)) if public_levels.is_sample else COUNTS[name]
    assert len(collection) == expected
    assert collection.errors == []
    invalid = [i + 1 for i, level in enumerate(collection) if not level.is_valid()]
    assert invalid == []


def test_public_titles(collections: dict[str, Collection], public_levels: PublicLevels) -> None:
    numbers = public_levels.numbers("xsokoban.xsb")
    xsokoban = collections["xsokoban.xsb"]
    assert [level.title for level in xsokoban] == [f"screen.{n:02d}" for n in numbers]
    for name in COUNTS:
        if name.startswith("boxoban/"):
            titles = [level.title for _, level in public_levels.levels(name)]
            assert titles == [str(n - 1) for n in public_levels.numbers(name)]  # "; 0" first
    for name in ("microban.xsb", "microban2.xsb"):
        for n, level in public_levels.levels(name):
            # "; 12" gives the title "12"; a level with a quoted name under its number line
            # takes the name as its title (the last text line) and keeps the number as comment.
            if level.title != str(n):
                assert level.title.startswith("'") and level.comment == str(n), (n, level.title)
    assert public_levels.level("microban.xsb", 44).title == "'Duh!'"
    microban = collections["microban.xsb"]
    assert microban.header.startswith("Microban (155 puzzles, revised April, 2000)\nThis is a")
    assert microban.title == "Microban (155 puzzles, revised April, 2000)"
    assert "; 1" not in microban.header and not microban.header.endswith("\n")


def test_public_find(collections: dict[str, Collection], public_levels: PublicLevels) -> None:
    microban = collections["microban.xsb"]
    n = len(microban)
    duh = public_levels.level("microban.xsb", 44)
    assert microban.find(1) is microban[0]
    assert microban.find(str(n)) is microban[n - 1]
    assert microban.find(f" {microban.number(duh)} ") is duh
    assert microban.find("'Duh!'") is duh
    assert microban.find("'duh!'") is duh
    assert microban.number(microban[n - 1]) == n
    xsokoban = collections["xsokoban.xsb"]
    assert xsokoban.find("screen.29") is public_levels.level("xsokoban.xsb", 29)
    assert xsokoban.find("SCREEN.02") is xsokoban[1]
    boxoban = collections["boxoban/hard_000.txt"]
    assert boxoban.find("0") is boxoban[0]  # no level number 0: the title "0"
    assert boxoban.find(1) is boxoban[0] and boxoban.find("1") is boxoban[0]
    with pytest.raises(
        LevelNotFoundError, match=rf"no level {n + 1} in this collection of {n} levels"
    ):
        microban.find(n + 1)
    with pytest.raises(LevelNotFoundError, match=rf"'screen\.91'.* {len(xsokoban)} levels"):
        xsokoban.find("screen.91")


@pytest.mark.parametrize("name", ["microban.xsb", "xsokoban.xsb", "boxoban/hard_000.txt"])
@pytest.mark.parametrize("rle", [False, True])
def test_public_collections_round_trip(
    collections: dict[str, Collection], name: str, rle: bool
) -> None:
    collection = collections[name]
    text = format_collection(collection.levels, rle=rle, header=collection.header)
    again = load(io.StringIO(text))
    assert again.levels == collection.levels
    assert again.header == collection.header
    assert again.errors == []


def test_optimal_solutions_replay(public_levels: PublicLevels) -> None:
    rows = 0
    for row in public_levels.optima():
        level = public_levels.level(row["file"], int(row["level"]))
        result = lurd.verify(level, row["solution"])
        assert result.final.is_solved
        assert result.metrics.pushes == int(row["pushes"]), row["level"]
        assert result.metrics.moves == int(row["moves"]), row["level"]
        assert result.solution.lurd() == row["solution"]
        rows += 1
    assert rows == (len(public_levels.optima()) if public_levels.is_sample else 261)
    assert rows >= 20


# --- our own files --------------------------------------------------------------------------


def test_tiny_file(data_dir: Path) -> None:
    collection = load(data_dir / "tiny.xsb")
    assert [level.title for level in collection] == ["1", "2", "3"]
    assert collection.header == (
        "Tiny levels for the sokoban project's own tests.\n"
        "Written for this project; each one can be solved by hand."
    )
    assert collection[0] == board(PLAIN).with_metadata(title="1")
    assert all(level.is_valid() for level in collection)


VARIANTS = {
    "plain": PLAIN,
    "dashes and underscores as floor, p and b for player and box": (" #####\n #@ $.#\n #####"),
    "run-length encoded rows": PLAIN,
    "rows joined by bars": PLAIN,
    "groups": PLAIN,
    "ragged rows": "####\n#@$.###\n#   .$#\n#######",
    "P and B on goals": "######\n#+ $ #\n#    #\n#  * #\n######",
}


def test_every_board_notation(data_dir: Path) -> None:
    collection = load(data_dir / "variants.xsb")
    assert [level.title for level in collection] == list(VARIANTS)
    for level, plain in zip(collection, VARIANTS.values(), strict=True):
        assert level == board(plain).with_metadata(title=level.title), level.title
    ragged = collection.find("ragged rows")
    assert (ragged.width, ragged.height) == (7, 4)
    assert ragged.cell(4, 0) not in ragged.walls  # past the end of a short row: floor
    assert collection.find("P and B on goals").replay("drrruLL").is_solved


def test_sok_file(data_dir: Path) -> None:
    collection = load(data_dir / "sok.sok")
    assert collection.title == "Test SOK"
    assert collection.header == "Three levels with notes and stored solutions."
    assert collection.metadata == (("Collection", "Test SOK"), ("Author", "The sokoban project"))
    one, two, bob = collection
    assert one.title == "Level one" and one.author == "Someone"
    assert one.comment == (
        "The smallest level.\n##### a line that looks like a board row is comment text here"
    )
    assert one.solutions == ("R",)
    assert two.title == "Two boxes" and two.comment == "two pushes"
    assert two.metadata == (("Difficulty", "easy"),)
    assert two.solutions == ("rRlldR", "2(r)lldR")
    assert bob.title == "bob" and bob.height == 3  # a word of board letters is text
    assert bob.comment == "A title that is made of board letters."  # Comment-end: spelling
    for level in collection:
        for solution in level.solutions:
            assert lurd.verify(level, solution).is_solved


def test_broken_levels_are_reported_and_skipped(data_dir: Path) -> None:
    errors: list[XsbError] = []
    levels = list(iter_levels(data_dir / "broken.xsb", errors))
    assert [level.title for level in levels] == ["1", "3"]
    assert [(e.level, e.line) for e in errors] == [(2, 10), (4, 19), (5, 23), (6, 26), (7, 32)]
    assert str(errors[0]) == "level 2: unexpected character 'x' in a board row at line 10: '#@$.x#'"
    assert "unclosed '('" in str(errors[1]) and "'2(#-'" in str(errors[1])
    assert "longer than 100" in str(errors[2])
    assert isinstance(errors[3], BoardTooLargeError) and "3364 interior floor" in str(errors[3])
    assert "bad solution" in str(errors[4]) and "'rRX'" in str(errors[4])
    # Without a list, broken levels are skipped silently.
    assert len(list(iter_levels(data_dir / "broken.xsb"))) == 2
    collection = load(data_dir / "broken.xsb")
    assert len(collection) == 2 and len(collection.errors) == 5


# --- notations, one by one -----------------------------------------------------------------


def test_aliases_and_floor_characters() -> None:
    assert board("#####\n#p-b.#\n#_ B#\n#P$ #\n#####") == board(
        "#####\n#@ $.#\n#  *#\n#+$ #\n#####"
    )


@pytest.mark.parametrize(
    "rle, rows",
    [
        ("3#4-", ["###----"]),
        ("2(#-)", ["#-#-"]),
        ("#2(-2(#$))", ["#-#$#$-#$#$"]),
        ("3#|#@#|3#", ["###", "#@#", "###"]),
        ("0#", [""]),
        ("12#", ["#" * 12]),
    ],
)
def test_decode_rle(rle: str, rows: list[str]) -> None:
    assert decode_rle(rle) == rows


@pytest.mark.parametrize(
    "bad, reason",
    [
        ("2(#", "unclosed"),
        ("#)", "unmatched"),
        ("3", "nothing after"),
        ("3)", "before ')'"),
        ("99999#", "too large"),
        ("100(100(100#))", "too long once decoded"),
        ("(" * 40 + "#" + ")" * 40, "nested too deep"),
    ],
)
def test_decode_rle_errors(bad: str, reason: str) -> None:
    with pytest.raises(XsbError, match=re.escape(reason)) as info:
        decode_rle(bad, 7)
    assert info.value.line == 7 and info.value.text == bad
    # Long lines are quoted in part (see test_long_bad_line_is_quoted_in_part).
    assert repr(bad) in str(info.value) or repr(bad[:80]) in str(info.value)


def test_rle_level_equals_plain() -> None:
    assert board("5#\n#@$.#\n5#") == board(PLAIN)
    assert board("5#|#@$.#|5#") == board(PLAIN)
    assert board("#4-#|#@$.-#|6#") == board("#    #\n#@$. #\n######")
    # Trailing floor in an RLE row is trimmed like trailing spaces in a plain row.
    assert board("5#3-\n#@$.#\n5#") == board(PLAIN)


def test_ragged_rows() -> None:
    level = board("  ###\n###@###\n#  $ .#\n#######")
    assert (level.width, level.height) == (7, 4)
    assert level.is_valid()


def test_bob_is_not_a_board_row() -> None:
    assert not is_board_line("bob") and not is_board_line("pBb_ -")
    assert is_board_line("#bBp") and is_board_line("3#2(-#)")
    level = parse_level("bob\n#####\n#@$.#\n#####\nbob")
    assert level.title == "bob" and level.height == 3


@pytest.mark.parametrize(
    "text, title",
    [
        ("; 12\n" + PLAIN, "12"),
        (";screen.01\n" + PLAIN, "screen.01"),
        ("Title: X\n" + PLAIN, "X"),
        ("Some text\n\nThe title\n\n" + PLAIN, "The title"),
        ("; 3\n'A name'\n" + PLAIN, "'A name'"),
        ("Title: Named\nThe last line\n" + PLAIN, "Named"),
        (PLAIN, ""),
        ("Level 12: hard\n" + PLAIN, "Level 12: hard"),
    ],
)
def test_titles(text: str, title: str) -> None:
    assert parse_level(text).title == title


def test_metadata_before_and_after_the_board() -> None:
    before = parse_level(
        "Title: T\nAuthor: A\nComment: c\nDifficulty: 3 of 5\nDate Created: today\n" + PLAIN
    )
    after = parse_level(
        "T\n" + PLAIN + "\nAuthor: A\nComment:\nc\nComment-End:\nDifficulty: 3 of 5\n"
        "Date Created: today"
    )
    assert before == after
    assert (before.title, before.author, before.comment) == ("T", "A", "c")
    assert before.metadata == (("Difficulty", "3 of 5"), ("Date Created", "today"))


def test_comment_blocks() -> None:
    text = "T\nComment:\n  indented\n\n#####\nComment-End:\n" + PLAIN
    level = parse_level(text)
    assert level.comment == "  indented\n\n#####"
    assert level.height == 3
    assert parse_level(text.replace("Comment-End:", "comment-end:")) == level
    # Free text lines other than the title join the comment.
    assert parse_level("; 44\n'Name'\n" + PLAIN).comment == "44"


def test_unterminated_comment_block_is_read_as_lines() -> None:
    levels = list(iter_levels(io.StringIO("Comment:\none\n" + PLAIN + "\n\ntwo\n" + PLAIN)))
    assert [level.title for level in levels] == ["one", "two"]


def test_sok_solutions() -> None:
    text = "\n".join(
        [
            "Tiny",
            "######",
            "#@ $.#",
            "######",
            "Solution (moves 3, pushes 1):",
            "rR",
            "",
            "Solution 2: 1r1R",
            "Solutions: none",  # not a solution line: metadata
            "",
            "::  raw notes are skipped ::",
        ]
    )
    level = parse_level(text)
    assert level.solutions == ("rR", "1r1R")
    assert [s.title for s in level.snapshots] == ["Solution (moves 3, pushes 1)", "Solution 2"]
    assert level.snapshots[1].notes == "Solutions: none"  # notes of the snapshot above
    for solution in level.solutions:
        assert lurd.verify(level, solution).metrics.pushes == 1


def test_parse_level_errors() -> None:
    with pytest.raises(XsbError, match="no board"):
        parse_level("just words\nand more")
    with pytest.raises(XsbError, match="holds 2 levels"):
        parse_level(PLAIN + "\n\n" + PLAIN)
    with pytest.raises(XsbError) as info:
        parse_level("x\n#####\n#@$.?#\n#####")
    assert info.value.line == 3 and "'#@$.?#'" in str(info.value)
    assert info.value.level is None and not str(info.value).startswith("level")
    with pytest.raises(BoardTooLargeError):
        parse_level("\n".join(["#" * 101] * 3))


def test_semantic_problems_are_not_errors() -> None:
    level = parse_level("#####\n# $.#\n#####")
    assert not level.is_valid() and level.problems() == ["no player"]


# --- sources, laziness, writing -------------------------------------------------------------


def test_sources(tmp_path: Path) -> None:
    path = tmp_path / "two.xsb"
    path.write_text("; 1\n" + PLAIN + "\n\n; 2\n" + PLAIN + "\n", encoding="utf-8")
    expected = [board(PLAIN).with_metadata(title=t) for t in ("1", "2")]
    assert list(iter_levels(path)) == expected
    assert list(iter_levels(str(path))) == expected
    with open(path, encoding="utf-8") as handle:
        assert list(iter_levels(handle)) == expected
    assert list(iter_levels(path.read_text().splitlines())) == expected
    with open(path, "rb") as binary:
        assert list(iter_levels(binary)) == expected  # type: ignore[arg-type]
    assert load(path).title == load(str(path)).title == "two"  # no header: the file's name
    assert loads(path.read_text()).levels == expected
    assert loads(path.read_text()).title == ""  # text has no file name


def test_load_takes_a_path_and_loads_takes_text(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    # A one-line string is a path for load(), never a level; for loads() it is text.
    monkeypatch.chdir(tmp_path)
    (tmp_path / "#@$.#").write_text("; named\n" + PLAIN + "\n", encoding="utf-8")
    assert [level.title for level in load("#@$.#")] == ["named"]
    assert [level.xsb() for level in loads("#@$.#")] == ["#@$.#"]
    with pytest.raises(FileNotFoundError):
        load("missing.xsb")
    with pytest.raises(ValueError, match="use loads"):
        load(PLAIN)
    with pytest.raises(ValueError, match="use loads"):
        list(iter_levels(PLAIN))


def test_reading_is_lazy() -> None:
    consumed = 0

    def lines():  # type: ignore[no-untyped-def]
        nonlocal consumed
        for n in range(1, 10_000):
            for line in [f"; {n}", *PLAIN.split("\n"), ""]:
                consumed += 1
                yield line

    levels = iter_levels(lines())
    assert next(levels).title == "1"
    assert consumed <= 12  # the first level ends where the next one's title begins
    assert next(levels).title == "2"
    assert consumed <= 18


def test_format_level_canonical() -> None:
    level = board("####\n#@$.##\n# $. #\n######").with_metadata(
        title="Two",
        author="Me",
        comment="line one\nline two",
        metadata=(("Difficulty", "easy"),),
        solutions=("rR",),
    )
    assert format_level(level) == (
        "Two\n####\n#@$.##\n# $. #\n######\nAuthor: Me\nComment:\nline one\nline two\n"
        "Comment-End:\nDifficulty: easy\n\nSolution\nrR"
    )
    assert format_level(level, rle=True).split("\n")[1] == "4#|#@$.2#|#-$.-#|6#"
    assert parse_level(format_level(level)) == level
    assert parse_level(format_level(level, rle=True)) == level


def test_titles_that_need_a_title_key() -> None:
    for title in ["#1", "; 1", "Key: value", "Comment:", "Solution: R", "Comment-End"]:
        level = board(PLAIN).with_metadata(title=title)
        assert format_level(level).startswith(f"Title: {title}\n")
        assert parse_level(format_level(level)) == level
    untitled = board(PLAIN).with_metadata(author="A")
    assert format_level(untitled) == PLAIN + "\nAuthor: A"
    assert parse_level(format_level(untitled)) == untitled


def test_rows_without_walls_are_written_with_bars() -> None:
    level = xsb.level_from_rows(["#####", "#@$.#", "#####", "", "  $", "  #"])
    text = format_level(level)
    assert text == "#####\n#@$.#\n#####||  $\n  #"
    assert parse_level(text) == level


def test_collection_header_and_untitled_levels_round_trip() -> None:
    untitled = board(PLAIN)
    noted = board(PLAIN).with_metadata(comment="c")
    text = format_collection([untitled, noted, untitled], header="Head\n\nmore")
    assert text.startswith("; Head\n;\n; more\n\nTitle:\n#####")
    again = load(io.StringIO(text))
    assert again.levels == [untitled, noted, untitled] and again.header == "Head\n\nmore"
    assert format_collection([]) == ""


def test_dump(tmp_path: Path) -> None:
    levels = [board(PLAIN).with_metadata(title=str(n)) for n in (1, 2)]
    dump(levels, tmp_path / "out.xsb", header="h")
    assert load(tmp_path / "out.xsb").levels == levels
    handle = io.StringIO()
    dump(levels, handle, rle=True)
    assert "5#|#@$.#|5#" in handle.getvalue()
    assert list(iter_levels(io.StringIO(handle.getvalue()))) == levels


def test_collection_behaves_like_a_list() -> None:
    levels = [board(PLAIN).with_metadata(title=t) for t in ("a", "B", "c")]
    collection = Collection(levels, title="abc")
    assert repr(collection) == "<Collection 'abc': 3 levels>"
    assert len(collection) == 3 and list(collection) == levels
    assert collection[0] is levels[0] and collection[-1] is levels[2]
    assert collection[1:] == levels[1:]
    assert collection.find("b") is levels[1] and collection.find("B") is levels[1]
    assert collection.number(levels[2]) == 3
    with pytest.raises(LevelNotFoundError, match=r"no level 'd' in this collection of 3 levels"):
        collection.find("d")
    with pytest.raises(LevelNotFoundError, match="numbers start at 1"):
        collection.find(0)
    with pytest.raises(LevelNotFoundError):
        collection.number(board(PLAIN).with_metadata(title="z"))


# --- properties -----------------------------------------------------------------------------

FAST = settings(
    max_examples=150,
    deadline=timedelta(milliseconds=500),
    suppress_health_check=[HealthCheck.too_slow],
)

_TITLE_CHARS = "abcXYZ 019#;:-_.()'!@$*|"
_LINE = st.text(_TITLE_CHARS, max_size=12).map(str.strip)


@st.composite
def valid_levels(draw: st.DrawFn) -> Level:
    """A valid level: a random connected-ish region walled round (so rows are ragged),
    inner walls, a player, and as many boxes as goals in the player's region."""
    width = draw(st.integers(3, 11))
    height = draw(st.integers(3, 9))
    inside = {
        (x, y)
        for y in range(1, height - 1)
        for x in range(1, width - 1)
        if draw(st.integers(0, 3)) > 0
    }
    assume(inside)
    player = draw(st.sampled_from(sorted(inside)))
    inner_walls = {c for c in sorted(inside - {player}) if draw(st.integers(0, 5)) == 0}
    open_cells = inside - inner_walls
    region = {player}
    todo = [player]
    while todo:
        x, y = todo.pop()
        for n in ((x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1)):
            if n in open_cells and n not in region:
                region.add(n)
                todo.append(n)
    assume(len(region) >= 2)
    cells = sorted(region)
    k = draw(st.integers(1, min(4, len(region) - 1)))
    boxes = draw(
        st.lists(st.sampled_from(sorted(region - {player})), min_size=k, max_size=k, unique=True)
    )
    goals = draw(st.lists(st.sampled_from(cells), min_size=k, max_size=k, unique=True))
    walls = {
        (x + dx, y + dy)
        for x, y in open_cells
        for dx in (-1, 0, 1)
        for dy in (-1, 0, 1)
        if (x + dx, y + dy) not in open_cells
    } | inner_walls
    rows = []
    for y in range(height):
        row = ""
        for x in range(width):
            c = (x, y)
            if c in walls:
                row += "#"
            elif c in boxes:
                row += "*" if c in goals else "$"
            elif c == player:
                row += "+" if c in goals else "@"
            elif c in goals:
                row += "."
            else:
                row += " "
        rows.append(row)
    comment_lines = draw(st.lists(st.text(_TITLE_CHARS, max_size=10).map(str.rstrip), max_size=3))
    comment = "\n".join(comment_lines).strip("\n")
    assume(not any(grammar.COMMENT_END.fullmatch(line.strip()) for line in comment_lines))
    keys = draw(st.lists(st.from_regex(r"[A-Z][a-z]{1,6}", fullmatch=True), max_size=2))
    assume(not any(k.lower().startswith(("title", "author", "comment", "solution")) for k in keys))
    values = [draw(_LINE.filter(lambda v: not v.startswith("//"))) for _ in keys]
    solutions = draw(st.lists(st.text("lurdLURD", min_size=1, max_size=8), max_size=2))
    level = xsb.level_from_rows(
        rows,
        title=draw(_LINE),
        author=draw(_LINE),
        comment=comment,
        metadata=tuple(zip(keys, values, strict=True)),
        solutions=tuple(solutions),
    )
    assert level.is_valid(), level.problems()
    return level


@FAST
@given(
    st.lists(valid_levels(), min_size=1, max_size=3),
    st.booleans(),
    st.lists(_LINE, max_size=3).map(lambda lines: "\n".join(lines).strip("\n")),
)
def test_written_levels_read_back_unchanged(levels: list[Level], rle: bool, header: str) -> None:
    text = format_collection(levels, rle=rle, header=header)
    errors: list[XsbError] = []
    assert list(iter_levels(io.StringIO(text), errors)) == levels, text
    assert errors == []
    assert load(io.StringIO(text)).header == header
    for level in levels:
        assert parse_level(format_level(level, rle=rle)) == level
        assert eval(repr(level), {"Level": Level}) == level


_NOISE_CHARS = "#@+$*.pPbB-_ 0123456789()|;:\nlurdLURDxyzC![]{}<>"
_NOISE = st.text(_NOISE_CHARS, max_size=200) | st.lists(
    st.sampled_from(
        [*_NOISE_CHARS, "\nComment:\n", "\nComment-End:\n"]
        + ["Title: ", "Solution: ", "\n\n", "\n::", "Author: "]
    ),
    max_size=120,
).map("".join)


@FAST
@given(_NOISE)
def test_random_text_never_breaks_the_reader(text: str) -> None:
    errors: list[XsbError] = []
    levels = list(iter_levels(io.StringIO(text), errors))
    assert all(isinstance(level, Level) for level in levels)
    assert all(isinstance(error, XsbError) and error.level is not None for error in errors)
    try:
        parse_level(text)
    except XsbError:
        pass
    collection = load(io.StringIO(text))
    assert len(collection) == len(levels)


@FAST
@given(st.text(st.sampled_from(list("#-_ 0123456789()|@$.*")), max_size=60))
def test_random_rle_decodes_or_raises_xsb_error(text: str) -> None:
    try:
        rows = decode_rle(text)
    except XsbError:
        return
    assert all(len(row) <= grammar._MAX_DECODED for row in rows)


def test_numbers_are_file_positions_even_past_a_broken_level() -> None:
    text = "; 1\n#####\n#@$.#\n#####\n\n; 2\n#####\n#@$Z#\n#####\n\n; 3\n#####\n#@$.#\n#####\n"
    collection = xsb.loads(text)
    assert [level.title for level in collection] == ["1", "3"]
    assert collection.find(3).title == "3"
    assert collection.find("3").title == "3"
    assert collection.number(collection[1]) == 3
    with pytest.raises(LevelNotFoundError, match="level 2 could not be read"):
        collection.find(2)
    with pytest.raises(LevelNotFoundError):
        collection.find(4)
