"""XSB/SOK text: boards, run-length encoded rows, levels with titles and metadata, collections.

Board characters: ``#`` wall; space, ``-`` and ``_`` floor; ``@``/``p`` player; ``+``/``P``
player on goal; ``$``/``b`` box; ``*``/``B`` box on goal; ``.`` goal. A row may be
run-length encoded (``3#4-``, groups ``2(#-)``) and ``|`` separates rows written on one line.
A board row must hold a wall, so a word such as ``bob`` is text, never a row.

Around each board (a run of board rows) the text says what the level is:

- its title is the last non-blank text line before the board (``; 12`` gives ``12``,
  ``;screen.01`` gives ``screen.01``) unless a ``Title:`` line names it; other free text
  lines between the previous board and this one join this level's comment;
- ``Author:``, ``Comment:`` (one line, or a block up to ``Comment-End:``) and other
  ``Key: value`` lines are its metadata, before or after the board;
- ``Solution: LURD`` lines (SOK) after the board are its stored solutions;
- the text of the file before the first level's own paragraph is the file's header, and
  lines starting with ``::`` are notes for people reading the raw file, skipped.

Reading is lazy and tolerant (:func:`iter_levels`, :func:`load` from a path or a file,
:func:`loads` from text): a broken level is reported with its position and skipped.
Writing (:func:`format_collection`, :func:`dump`) gives canonical XSB that reads back to
equal levels.

>>> text = format_level(Level.from_xsb("#####\\n#@$.#\\n#####").with_metadata(title="One"))
>>> print(text)
One
#####
#@$.#
#####
>>> parse_level(text).title
'One'
"""

from __future__ import annotations

import dataclasses
import io
import os
import re
import tempfile
from collections import deque
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any, NamedTuple, TextIO, overload

from sokoban import _rle
from sokoban.errors import BoardTooLargeError, LevelNotFoundError, LurdError, XsbError
from sokoban.level import MAX_SIDE, Level

WALL, FLOOR, GOAL, BOX, BOX_ON_GOAL, PLAYER, PLAYER_ON_GOAL = "#", " ", ".", "$", "*", "@", "+"

#: Every character a board row may hold (after RLE decoding), mapped to its canonical form.
BOARD_CHARS = {
    "#": WALL,
    " ": FLOOR,
    "-": FLOOR,
    "_": FLOOR,
    ".": GOAL,
    "$": BOX,
    "b": BOX,
    "*": BOX_ON_GOAL,
    "B": BOX_ON_GOAL,
    "@": PLAYER,
    "p": PLAYER,
    "+": PLAYER_ON_GOAL,
    "P": PLAYER_ON_GOAL,
}
_RLE_CHARS = frozenset("0123456789()|")
#: A decoded board line longer than this (a whole board with its ``|``) is refused early.
_MAX_DECODED = MAX_SIDE * (MAX_SIDE + 1)
#: Deepest nesting of RLE groups; real files nest one or two deep.
_MAX_DEPTH = 16

#: What :func:`load` and :func:`iter_levels` read: a path (a ``str`` is always a path), or a
#: text handle or any iterable of lines. XSB text itself goes to :func:`loads`.
Source = str | os.PathLike[str] | Iterable[str]


# --- boards ---------------------------------------------------------------------------------


def decode_rle(text: str, line: int | None = None) -> list[str]:
    """Expand a run-length encoded board line into its rows (``|`` splits rows).

    >>> decode_rle("3#|#@$.#|2(#-)")
    ['###', '#@$.#', '#-#-']
    """
    try:
        return _rle.decode(text, _MAX_DECODED, _MAX_DEPTH).split("|")
    except _rle.RleError as error:
        if error.too_long:
            raise BoardTooLargeError("board line too long once decoded", line, text) from None
        raise XsbError(f"{error.reason} in a board row", line, text) from None


def is_board_line(text: str) -> bool:
    """Whether a line of text is a board row: board characters (or RLE) including a wall.

    A word such as ``bob`` is made of board characters but holds no wall, so it is text.

    >>> is_board_line("#  $.#"), is_board_line("3#|2(#-)"), is_board_line("bob")
    (True, True, False)
    """
    stripped = text.rstrip()
    if "#" not in stripped:
        return False
    return all(c in BOARD_CHARS or c in _RLE_CHARS for c in stripped)


def _decode_rows(lines: Iterable[tuple[int, str]]) -> list[str]:
    """Decode numbered board lines into rows of canonical characters, trailing floor trimmed."""
    rows: list[str] = []
    for number, raw in lines:
        text = raw.rstrip()
        parts = decode_rle(text, number) if any(c in _RLE_CHARS for c in text) else [text]
        for part in parts:
            try:
                row = "".join([BOARD_CHARS[c] for c in part]).rstrip()
            except KeyError:
                bad = next(c for c in part if c not in BOARD_CHARS)
                raise XsbError(
                    f"unexpected character {bad!r} in a board row", number, raw
                ) from None
            if len(row) > MAX_SIDE:
                raise BoardTooLargeError(f"board row longer than {MAX_SIDE} cells", number, raw)
            rows.append(row)
        if len(rows) > MAX_SIDE:
            raise BoardTooLargeError(f"board has more than {MAX_SIDE} rows", number, raw)
    return rows


def board_rows(lines: list[str], first_line: int = 1) -> list[str]:
    """Decode the given board lines into plain rows of canonical characters.

    ``first_line`` is the 1-based line number of ``lines[0]``, for error messages.
    Trailing floor is trimmed from each row (cells past a row's end are floor anyway).
    """
    return _decode_rows(enumerate(lines, first_line))


def level_from_rows(rows: list[str], **metadata: object) -> Level:
    """Build a :class:`Level` from decoded rows of canonical characters.

    Blank rows before and after the board carry nothing and are dropped; the width is the
    longest row's.
    """
    rows = [r.rstrip() for r in rows]
    while rows and not rows[-1]:
        rows.pop()
    start = 0
    while start < len(rows) and not rows[start]:
        start += 1
    rows = rows[start:]
    if not rows:
        raise XsbError("no board")
    width = max(len(r) for r in rows)
    walls: set[int] = set()
    goals: set[int] = set()
    boxes: set[int] = set()
    players: set[int] = set()
    for y, row in enumerate(rows):
        for x, c in enumerate(row):
            cell = y * width + x
            if c == WALL:
                walls.add(cell)
            elif c == GOAL:
                goals.add(cell)
            elif c == BOX:
                boxes.add(cell)
            elif c == BOX_ON_GOAL:
                boxes.add(cell)
                goals.add(cell)
            elif c == PLAYER:
                players.add(cell)
            elif c == PLAYER_ON_GOAL:
                players.add(cell)
                goals.add(cell)
    return Level(
        width,
        len(rows),
        frozenset(walls),
        frozenset(goals),
        frozenset(boxes),
        frozenset(players),
        **metadata,  # type: ignore[arg-type]
    )


def format_board(level: Level, rle: bool = False) -> str:
    """Canonical XSB rows of a level (trailing spaces trimmed), optionally run-length encoded.

    Plain rows are joined by newlines; RLE rows are joined by ``|`` on one line.
    """
    rows = []
    for y in range(level.height):
        row = []
        for x in range(level.width):
            cell = y * level.width + x
            if cell in level.walls:
                c = WALL
            elif cell in level.boxes:
                c = BOX_ON_GOAL if cell in level.goals else BOX
            elif cell in level.players:
                c = PLAYER_ON_GOAL if cell in level.goals else PLAYER
            elif cell in level.goals:
                c = GOAL
            else:
                c = FLOOR
            row.append(c)
        rows.append("".join(row).rstrip())
    if rle:
        return "|".join(encode_rle(r) for r in rows)
    return "\n".join(rows)


def encode_rle(row: str) -> str:
    """Run-length encode one row: runs of two or more become ``<count><char>``, floor is ``-``.

    >>> encode_rle("####  $.#")
    '4#2-$.#'
    """
    row = row.replace(" ", "-")
    out = []
    i = 0
    while i < len(row):
        j = i
        while j < len(row) and row[j] == row[i]:
            j += 1
        n = j - i
        out.append(f"{n}{row[i]}" if n > 1 else row[i])
        i = j
    return "".join(out)


# --- reading: lines to items ----------------------------------------------------------------

_BLANK, _BOARD, _BAD_ROW, _TEXT, _KEY, _COMMENT, _SOLUTION = range(7)


class _Item(NamedTuple):
    """One meaningful piece of a file: a line, or a comment block or solution spanning lines."""

    kind: int
    line: int
    text: str
    value: str = ""


#: ``Key: value`` metadata; keys are words (no digits, so "Level 12: x" stays a title).
_KEY_LINE = re.compile(r"([A-Za-z][A-Za-z _-]{0,39}?)\s*:(?!//)\s*(.*)")
#: ``Solution: LURD`` or ``Solution (moves 3, pushes 1):`` with the LURD on the next lines.
_SOLUTION_LINE = re.compile(r"solution\b(?:\s*\d+)?(?:\s*\([^)]*\))?\s*(:?)\s*(.*)", re.IGNORECASE)
_LURD_LINE = re.compile(r"[lurdLURD0-9()\s]+")
_COMMENT_START = re.compile(r"comment\s*:", re.IGNORECASE)
_COMMENT_END = re.compile(r"comment[-_ ]?end\s*:?", re.IGNORECASE)


def _numbered(lines: Iterable[str]) -> Iterator[tuple[int, str]]:
    for number, line in enumerate(lines, 1):
        if isinstance(line, bytes):  # a handle opened in binary mode
            line = line.decode("utf-8", "replace")
        yield number, line.rstrip("\r\n")


def _items(lines: Iterable[tuple[int, str]]) -> Iterator[_Item]:
    """Classify numbered lines; comment blocks and multi-line solutions become one item.

    A ``Comment:`` block that never ends is not a block after all: its lines are read again
    as ordinary lines (and from then on ``Comment:`` opens no block, as no end follows).
    """
    source = iter(lines)
    again: deque[tuple[int, str]] = deque()
    block: list[tuple[int, str]] | None = None
    blocks_end = True
    solution: list[str] = []
    solution_line = 0
    previous_board = False
    while True:
        if again:
            number, line = again.popleft()
        else:
            nxt = next(source, None)
            if nxt is None:
                if block is None:
                    break
                blocks_end = False
                again.extend(block[1:])
                block = None
                continue
            number, line = nxt
        line = line.rstrip()
        stripped = line.strip()
        if block is not None:
            if _COMMENT_END.fullmatch(stripped):
                content = [text for _, text in block[1:]]
                yield _Item(_COMMENT, block[0][0], "\n".join(content).strip("\n"))
                block = None
            else:
                block.append((number, line))
            continue
        if solution_line:
            if stripped and _LURD_LINE.fullmatch(stripped):
                solution.append(stripped)
                continue
            yield _Item(_SOLUTION, solution_line, "".join("".join(solution).split()))
            solution, solution_line = [], 0
        board = False
        if not stripped:
            yield _Item(_BLANK, number, "")
        elif stripped.startswith("::"):
            continue  # raw notes for people reading the file
        elif stripped.startswith(";"):
            text = stripped[1:]
            yield _Item(_TEXT, number, text[1:] if text.startswith(" ") else text)
        elif is_board_line(line):
            board = True
            yield _Item(_BOARD, number, line)
        elif (m := _SOLUTION_LINE.fullmatch(stripped)) and (
            m.group(1) or not m.group(2) or _LURD_LINE.fullmatch(m.group(2))
        ):
            # With a colon it is a solution even if not LURD (the level reports the error).
            solution, solution_line = [m.group(2)], number
        elif blocks_end and _COMMENT_START.fullmatch(stripped):
            block = [(number, line)]
        elif _COMMENT_END.fullmatch(stripped):
            continue  # the end of a block that never began
        elif m := _KEY_LINE.fullmatch(stripped):
            yield _Item(_KEY, number, m.group(1), m.group(2).strip())
        elif previous_board and "#" in line:
            # A row with a stray character, inside a board: a broken board, not a title.
            board = True
            yield _Item(_BAD_ROW, number, line)
        else:
            yield _Item(_TEXT, number, stripped)
        previous_board = board
    if solution_line:
        yield _Item(_SOLUTION, solution_line, "".join("".join(solution).split()))


# --- reading: items to levels ---------------------------------------------------------------


class _Collector:
    """Groups items into levels: a head (title, metadata), a board, a tail (metadata, solutions).

    The tail of a level ends at the next free text or ``Title:`` line, which starts the head
    of the next level, or at the next board: a level is handed out then (or at the end of
    the input), so reading holds at most one level and the text after it.
    """

    def __init__(self) -> None:
        self.position = 0
        self.header = ""
        self.title = ""
        self._head: list[_Item] = []
        self._board: list[_Item] = []
        self._tail: list[_Item] = []
        self._state = "head"

    def feed(self, item: _Item) -> tuple[int, Level | XsbError] | None:
        done = None
        if item.kind in (_BOARD, _BAD_ROW):
            if self._state == "board":
                if len(self._board) <= MAX_SIDE:  # one more is enough to refuse the board
                    self._board.append(item)
                return None
            if self._state == "tail":
                done = self._complete()
                self._head = []
            self._state = "board"
            self._board = [item]
            self._tail = []
            return done
        if self._state == "board":
            self._state = "tail"
            self._tail = []
        if self._state == "tail":
            if item.kind == _TEXT or (item.kind == _KEY and item.text.lower() == "title"):
                done = self._complete()
                self._state = "head"
                self._head = [item]
            else:
                self._tail.append(item)
            return done
        self._head.append(item)
        return None

    def finish(self) -> tuple[int, Level | XsbError] | None:
        if self._state != "head":
            self._state = "head"
            return self._complete()
        if self.position == 0:  # no level at all: what there is, is the header
            self._take_header(self._head)
        return None

    def _complete(self) -> tuple[int, Level | XsbError]:
        self.position += 1
        head = self._head
        if self.position == 1:
            # The first level's own paragraph is the last one before its board; any
            # paragraphs before that are the file's header.
            content = [i for i, item in enumerate(head) if item.kind != _BLANK]
            start = 0
            if content:
                blanks = [i for i in range(content[-1]) if head[i].kind == _BLANK]
                start = blanks[-1] + 1 if blanks else 0
            self._take_header(head[:start])
            head = head[start:]
        try:
            return self.position, _build(head, self._board, self._tail)
        except XsbError as error:
            first = self._board[0]
            return self.position, error.at(self.position, first.line, first.text)

    def _take_header(self, items: list[_Item]) -> None:
        lines: list[str] = []
        for item in items:
            if item.kind == _KEY and item.text.lower() in ("title", "collection"):
                self.title = item.value
            elif item.kind == _KEY:
                lines.append(f"{item.text}: {item.value}")
            elif item.kind in (_TEXT, _COMMENT, _BLANK):
                lines.extend(item.text.split("\n"))
        lines = [line.rstrip() for line in lines]
        self.header = "\n".join(lines).strip("\n")


def _build(head: list[_Item], board: list[_Item], tail: list[_Item]) -> Level:
    """The level of a board and the items around it; raises :class:`XsbError`."""
    for item in board:
        if item.kind == _BAD_ROW:
            bad = next(c for c in item.text if c not in BOARD_CHARS and c not in _RLE_CHARS)
            raise XsbError(f"unexpected character {bad!r} in a board row", item.line, item.text)
    rows = _decode_rows((item.line, item.text) for item in board)
    title: str | None = None
    author = ""
    notes: list[tuple[bool, str]] = []  # (is a free text line, text) in order
    metadata: list[tuple[str, str]] = []
    solutions: list[str] = []
    for item in head + tail:
        if item.kind == _TEXT and item.text.strip():
            notes.append((True, item.text.strip()))
        elif item.kind == _COMMENT and item.text:
            notes.append((False, item.text))
        elif item.kind == _SOLUTION:
            if item.text:
                solutions.append(_checked_solution(item))
        elif item.kind == _KEY:
            key = item.text.lower()
            if key == "title":
                title = item.value
            elif key == "author":
                author = item.value
            elif key == "comment":
                if item.value:
                    notes.append((False, item.value))
            else:
                metadata.append((item.text, item.value))
    if title is None:
        # The last free text line is the title; others (and comments) make the comment.
        last = max((i for i, (free, _) in enumerate(notes) if free), default=None)
        title = notes.pop(last)[1] if last is not None else ""
    return level_from_rows(
        rows,
        title=title,
        author=author,
        comment="\n".join(text for _, text in notes),
        metadata=tuple(metadata),
        solutions=tuple(solutions),
    )


def _checked_solution(item: _Item) -> str:
    from sokoban.lurd import Solution

    try:
        Solution.from_lurd(item.text)
    except LurdError as error:
        raise XsbError(f"bad solution ({error})", item.line, item.text[:60]) from None
    return item.text


#: Longest line read from a file or handle: XSB lines are short (a whole RLE board is some
#: thousands of characters), so a longer one is a binary file or a device such as /dev/zero,
#: refused before it fills memory.
MAX_LINE = 1_000_000


def _bounded_lines(handle: Any) -> Iterator[str]:
    """The lines of a handle, each read at most :data:`MAX_LINE` characters at a time."""
    number = 0
    while line := handle.readline(MAX_LINE + 1):
        number += 1
        if len(line) > MAX_LINE and line[-1:] not in ("\n", b"\n"):
            raise XsbError(f"line longer than {MAX_LINE:,} characters: not a level file", number)
        yield line


def _lines(source: Source) -> Iterator[str]:
    if isinstance(source, str) and ("\n" in source or "\r" in source):
        # Text taken for a path would fail with a baffling "no such file" of the whole text.
        raise ValueError("load() and iter_levels() take a path or a file; use loads() for text")
    if isinstance(source, (str, os.PathLike)):
        with open(source, encoding="utf-8-sig", errors="replace") as handle:
            yield from _bounded_lines(handle)
    elif callable(getattr(source, "readline", None)):
        yield from _bounded_lines(source)
    else:
        yield from source


def _read(source: Source, collector: _Collector) -> Iterator[tuple[int, Level | XsbError]]:
    for item in _items(_numbered(_lines(source))):
        done = collector.feed(item)
        if done is not None:
            yield done
    done = collector.finish()
    if done is not None:
        yield done


def iter_levels(source: Source, errors: list[XsbError] | None = None) -> Iterator[Level]:
    """The levels of a file, one at a time, read lazily line by line.

    ``source`` is a path (``str`` or path-like) or a text handle (any iterable of lines);
    for XSB text in a string, pass ``io.StringIO(text)``. A broken level is skipped; its
    :class:`XsbError` names its 1-based position (``error.level``) and line, and is appended
    to ``errors`` when given.

    >>> import io
    >>> errors = []
    >>> text = "; 1\\n#####\\n#@$.#\\n#####\\n\\n; 2\\n#2(#\\n\\n; 3\\n###\\n#@#\\n###\\n"
    >>> [level.title for level in iter_levels(io.StringIO(text), errors)]
    ['1', '3']
    >>> print(errors[0])
    level 2: unclosed '(' in a board row at line 7: '#2(#'
    """
    for _, result in _read(source, _Collector()):
        if isinstance(result, Level):
            yield result
        elif errors is not None:
            errors.append(result)


def parse_level(text: str) -> Level:
    """One level from XSB text: the board rows with, optionally, a title, metadata and
    solutions around them; raises :class:`XsbError` when the text is not exactly one level.

    >>> parse_level("Title: Tiny\\nAuthor: Me\\n#####\\n#@$.#\\n#####\\nSolution: R").solutions
    ('R',)
    """
    results = list(_read(io.StringIO(text, newline=None), _Collector()))
    if not results:
        raise XsbError("no board rows in the text")
    _, first = results[0]
    if isinstance(first, XsbError):
        raise type(first)(first.reason, first.line, first.text)
    if len(results) > 1:
        raise XsbError(f"the text holds {len(results)} levels, not one")
    return first


# --- collections ----------------------------------------------------------------------------


@dataclasses.dataclass(repr=False)
class Collection:
    """The levels of a file, the broken ones it skipped, and its header and title.

    Indexing is 0-based like a list; :meth:`find` and :meth:`number` speak the 1-based
    numbers people use.
    """

    levels: list[Level] = dataclasses.field(default_factory=list)
    errors: list[XsbError] = dataclasses.field(default_factory=list)
    #: Comment text of the file before its first level.
    header: str = ""
    #: The file's ``Title:`` (or ``Collection:``) line, else its header's first line.
    title: str = ""
    #: The 1-based position in the file of each level; empty means 1, 2, 3, ...
    #: A broken level keeps its number, so level 3 is the file's third level even when
    #: level 2 could not be read.
    positions: list[int] = dataclasses.field(default_factory=list)

    def __post_init__(self) -> None:
        if not self.positions:
            self.positions = list(range(1, len(self.levels) + 1))
        if len(self.positions) != len(self.levels):
            raise ValueError("a collection needs one position per level")

    def __len__(self) -> int:
        return len(self.levels)

    def __repr__(self) -> str:
        broken = f", {len(self.errors)} broken" if self.errors else ""
        return f"<Collection {self.title!r}: {len(self.levels)} levels{broken}>"

    def __iter__(self) -> Iterator[Level]:
        return iter(self.levels)

    @overload
    def __getitem__(self, index: int) -> Level: ...

    @overload
    def __getitem__(self, index: slice) -> list[Level]: ...

    def __getitem__(self, index: int | slice) -> Level | list[Level]:
        return self.levels[index]

    def find(self, key: int | str) -> Level:
        """The level numbered ``key`` (1-based; a string of digits counts as a number), else
        the level titled ``key``, exactly, then ignoring case.

        Raises :class:`LevelNotFoundError` quoting the key and the number of levels.
        """
        n = len(self.levels) + len(self.errors)
        number: int | None = key if isinstance(key, int) else None
        if isinstance(key, str):
            wanted = key.strip()
            if wanted.isascii() and wanted.isdigit():
                number = int(wanted)
        if number is not None and 1 <= number <= max(self.positions, default=0):
            by_position = dict(zip(self.positions, self.levels, strict=True))
            if number in by_position:
                return by_position[number]
            for error in self.errors:
                if getattr(error, "level", None) == number:
                    raise LevelNotFoundError(f"level {number} could not be read: {error}")
        if isinstance(key, str):
            for level in self.levels:
                if level.title == wanted:
                    return level
            folded = wanted.casefold()
            for level in self.levels:
                if level.title.casefold() == folded:
                    return level
        raise LevelNotFoundError(
            f"no level {key!r} in this collection of {n} level{'s' if n != 1 else ''}"
            + (" (numbers start at 1)" if key in (0, "0") else "")
        )

    def number(self, level: Level) -> int:
        """The 1-based number of a level of this collection."""
        for i, candidate in enumerate(self.levels):
            if candidate is level:
                return self.positions[i]
        try:
            return self.positions[self.levels.index(level)]
        except ValueError:
            raise LevelNotFoundError(
                f"level {level.title!r} is not in this collection of {len(self.levels)} levels"
            ) from None


def load(source: Source) -> Collection:
    """Read a whole collection from a path or a text handle; broken levels are skipped and
    kept in ``errors``. A file without a title line of its own is titled by its name.

    >>> import io
    >>> collection = load(io.StringIO("; Tiny set\\n\\n; 1\\n#####\\n#@$.#\\n#####\\n"))
    >>> len(collection), collection.header, collection.find("1").title
    (1, 'Tiny set', '1')
    """
    collector = _Collector()
    collection = _collect(_read(source, collector), collector)
    if not collection.title and isinstance(source, (str, os.PathLike)):
        collection.title = Path(source).stem
    return collection


def loads(text: str) -> Collection:
    """Read a whole collection from XSB text, as :func:`load` reads a file.

    >>> collection = loads("; 1\\n#####\\n#@$.#\\n#####\\n\\n; 2\\n#2(#\\n")
    >>> [level.title for level in collection], len(collection.errors)
    (['1'], 1)
    """
    collector = _Collector()
    return _collect(_read(io.StringIO(text, newline=None), collector), collector)


def _collect(results: Iterable[tuple[int, Level | XsbError]], collector: _Collector) -> Collection:
    """The collection of what :func:`_read` gave, once it is exhausted."""
    levels: list[Level] = []
    positions: list[int] = []
    errors: list[XsbError] = []
    for position, result in results:
        if isinstance(result, Level):
            levels.append(result)
            positions.append(position)
        else:
            errors.append(result)
    title = collector.title
    if not title and collector.header:
        title = collector.header.split("\n", 1)[0].strip()
    return Collection(levels, errors, collector.header, title, positions)


# --- writing --------------------------------------------------------------------------------


def _plain_title(title: str) -> bool:
    """Whether a title written as a bare line reads back as that title."""
    return (
        title == title.strip()
        and "\n" not in title
        and not title.startswith((";", "::"))
        and not is_board_line(title)
        and not _KEY_LINE.fullmatch(title)
        and not _SOLUTION_LINE.fullmatch(title)
        and not _COMMENT_START.fullmatch(title)
        and not _COMMENT_END.fullmatch(title)
    )


def _board_lines(level: Level, rle: bool) -> list[str]:
    """The board as lines that read back as rows: a row without a wall is not a board line
    by itself, so it joins a neighbour with ``|``."""
    if rle:
        return [format_board(level, rle=True)]
    lines: list[str] = []
    before: list[str] = []  # wall-less rows above the first wall
    for row in format_board(level).split("\n"):
        if WALL in row:
            lines.append("|".join([*before, row]))
            before = []
        elif lines:
            lines[-1] += "|" + row
        else:
            before.append(row)
    if before:
        lines.append("|".join(before))
    return lines


def _level_lines(level: Level, rle: bool, title_line: bool) -> list[str]:
    lines = []
    has_notes = bool(level.author or level.comment or level.metadata)
    if level.title and _plain_title(level.title):
        lines.append(level.title)
    elif level.title or has_notes or title_line:
        # An explicit (possibly empty) title keeps notes and header text from being taken
        # for the title, or for the notes of the level before.
        lines.append(f"Title: {level.title}".rstrip())
    if level.author:
        lines.append(f"Author: {level.author}")
    if level.comment:
        if "\n" in level.comment or level.comment != level.comment.strip():
            lines += ["Comment:", level.comment, "Comment-End:"]
        else:
            lines.append(f"Comment: {level.comment}")
    lines += [f"{key}: {value}".rstrip() for key, value in level.metadata]
    lines += _board_lines(level, rle)
    lines += [f"Solution: {solution}" for solution in level.solutions]
    return lines


def format_level(level: Level, rle: bool = False) -> str:
    """One level as XSB/SOK text: title, metadata (``Author:``, ``Comment:``, other
    ``Key: value`` lines), the board, then its stored solutions as ``Solution:`` lines.
    """
    return "\n".join(_level_lines(level, rle, title_line=False))


def format_collection(levels: Iterable[Level], rle: bool = False, header: str = "") -> str:
    """Canonical XSB of a collection: the header as ``;`` lines, then each level, with a
    blank line between.

    >>> level = Level.from_xsb("#####\\n#@$.#\\n#####")
    >>> print(format_collection([level.with_metadata(title="1")], header="My set"))
    ; My set
    <BLANKLINE>
    1
    #####
    #@$.#
    #####
    <BLANKLINE>
    """
    parts = []
    header = "\n".join(line.rstrip() for line in header.split("\n")).strip("\n")
    if header:
        parts.append("\n".join(f"; {line}" if line else ";" for line in header.split("\n")))
    for i, level in enumerate(levels):
        parts.append("\n".join(_level_lines(level, rle, title_line=i == 0 and bool(header))))
    return "\n\n".join(parts) + "\n" if parts else ""


def dump(
    levels: Iterable[Level],
    dest: str | os.PathLike[str] | TextIO,
    rle: bool = False,
    header: str = "",
) -> None:
    """Write a collection (see :func:`format_collection`) to a path or a text handle.

    A path is written whole or not at all: the text goes to a temporary file beside it,
    renamed over it at the end, so a failed write never leaves half a collection.
    """
    text = format_collection(levels, rle=rle, header=header)
    if not isinstance(dest, (str, os.PathLike)):
        dest.write(text)
        return
    target = Path(dest)
    handle, temporary = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent)
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(text)
        mode = target.stat().st_mode & 0o7777 if target.exists() else 0o666 & ~_umask()
        os.chmod(temporary, mode)
        os.replace(temporary, target)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask
