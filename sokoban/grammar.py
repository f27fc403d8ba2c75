"""The text grammar of XSB/SOK levels, below the level model: it knows rows and lines, not
:class:`sokoban.Level` (``sokoban.level`` and ``sokoban.xsb`` build on it).

Board characters: ``#`` wall; space, ``-`` and ``_`` floor; ``@``/``p`` player; ``+``/``P``
player on goal; ``$``/``b`` box; ``*``/``B`` box on goal; ``.`` goal. A row may be
run-length encoded (``3#4-``, groups ``2(#-)``) and ``|`` separates rows written on one line.
A board row must hold a wall, so a word such as ``bob`` is text, never a row.

The lines of a file, as SOK 0.19 lays them out:

- the file notes, before the first level's own paragraph: free text (the collection's
  header) and ``Key: value`` lines (``Collection:``, ``Author:``, ``Date Created:``, ...);
- per level, its title line: the last text line before the board (``; 12`` gives ``12``,
  ``;screen.01`` gives ``screen.01``), the rest of that paragraph joining its comment;
- the board;
- the level's notes after it: ``Title:`` (which outranks the title line), ``Author:``,
  ``Comment:`` (one line, or a block up to ``Comment-End:``), other ``Key: value`` lines and
  free text, which joins the comment;
- its snapshots (:class:`sokoban.snapshot.Snapshot`): a title line (``Solution``,
  ``Solution (moves)``, ``Save``, ...), lines of moves, then notes; ``Key: value`` lines
  between the title and the moves (``Moves: 97``, ``Pushes: 31``) join the notes, which
  are written after the moves. ``Solution: LURD`` on one line is read as well.

What follows a level up to the next board is that level's, except the last paragraph
before the next board when a blank line sets it apart (or when it is one text line): that
paragraph is the next level's title. Lines starting with ``::`` are notes for people reading
the raw file, skipped.
"""

from __future__ import annotations

import dataclasses
import re
from collections import deque
from collections.abc import Iterable, Iterator
from typing import NamedTuple

from sokoban import _rle
from sokoban.errors import BoardTooLargeError, MovesError, XsbError
from sokoban.snapshot import MOVES_LINE, Snapshot, parse_moves

#: Largest board side, in cells.
MAX_SIDE = 100

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


class Cells(NamedTuple):
    """A board as sets of cells ``y * width + x``: what :class:`sokoban.Level` is made of."""

    width: int
    height: int
    walls: frozenset[int]
    goals: frozenset[int]
    boxes: frozenset[int]
    players: frozenset[int]


def cells_from_rows(rows: list[str]) -> Cells:
    """The cells of decoded rows of canonical characters.

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
    return Cells(
        width,
        len(rows),
        frozenset(walls),
        frozenset(goals),
        frozenset(boxes),
        frozenset(players),
    )


def format_rows(board: Cells, rle: bool = False) -> str:
    """Canonical XSB rows of a board (trailing spaces trimmed), optionally run-length
    encoded. Plain rows are joined by newlines; RLE rows are joined by ``|`` on one line.
    """
    rows = []
    for y in range(board.height):
        row = []
        for x in range(board.width):
            cell = y * board.width + x
            if cell in board.walls:
                c = WALL
            elif cell in board.boxes:
                c = BOX_ON_GOAL if cell in board.goals else BOX
            elif cell in board.players:
                c = PLAYER_ON_GOAL if cell in board.goals else PLAYER
            elif cell in board.goals:
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


# --- lines to items -------------------------------------------------------------------------

BLANK, BOARD, BAD_ROW, TEXT, KEY, COMMENT, MOVES, INLINE = range(8)


class Item(NamedTuple):
    """One meaningful piece of a file: a line, or a comment block spanning lines.

    ``text`` is the line's text (a ``;`` line without its ``;``), a key's name, a block's
    content or an inline solution's title; ``value`` a key's value or an inline solution's
    moves; ``raw`` the line as written, trimmed.
    """

    kind: int
    line: int
    text: str
    value: str = ""
    raw: str = ""


#: ``Key: value`` lines; keys are words (no digits, so "Level 12: x" stays a title).
KEY_LINE = re.compile(r"([A-Za-z][A-Za-z _-]{0,39}?)\s*:(?!//)\s*(.*)")
#: ``Solution: LURD`` or ``Solution (moves 3, pushes 1):`` with the moves on the next lines.
SOLUTION_LINE = re.compile(r"solution\b(?:\s*\d+)?(?:\s*\([^)]*\))?\s*(:?)\s*(.*)", re.IGNORECASE)
COMMENT_START = re.compile(r"comment\s*:", re.IGNORECASE)
COMMENT_END = re.compile(r"comment[-_ ]?end\s*:?", re.IGNORECASE)


def numbered(lines: Iterable[str | bytes]) -> Iterator[tuple[int, str]]:
    """The lines, numbered from 1, line ends removed (bytes decoded as UTF-8)."""
    for number, line in enumerate(lines, 1):
        if isinstance(line, bytes):  # a handle opened in binary mode
            line = line.decode("utf-8", "replace")
        yield number, line.rstrip("\r\n")


def items(lines: Iterable[tuple[int, str]]) -> Iterator[Item]:
    """Classify numbered lines; a comment block becomes one item.

    A ``Comment:`` block that never ends is not a block after all: its lines are read again
    as ordinary lines (and from then on ``Comment:`` opens no block, as no end follows).
    """
    source = iter(lines)
    again: deque[tuple[int, str]] = deque()
    block: list[tuple[int, str]] | None = None
    blocks_end = True
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
            if COMMENT_END.fullmatch(stripped):
                content = [text for _, text in block[1:]]
                yield Item(COMMENT, block[0][0], "\n".join(content).strip("\n"), raw="Comment:")
                block = None
            else:
                block.append((number, line))
            continue
        board = False
        if not stripped:
            yield Item(BLANK, number, "")
        elif stripped.startswith("::"):
            continue  # raw notes for people reading the file
        elif stripped.startswith(";"):
            text = stripped[1:]
            yield Item(TEXT, number, text[1:] if text.startswith(" ") else text, raw=stripped)
        elif is_board_line(line):
            board = True
            yield Item(BOARD, number, line, raw=line)
        elif MOVES_LINE.fullmatch(stripped):
            yield Item(MOVES, number, stripped, raw=stripped)
        elif m := SOLUTION_LINE.fullmatch(stripped):
            if m.group(2) and (m.group(1) or MOVES_LINE.fullmatch(m.group(2))):
                # With a colon it is a solution even if not moves (the level reports it).
                title = stripped[: m.start(1) if m.group(1) else m.start(2)].strip()
                yield Item(INLINE, number, title, m.group(2).strip(), raw=stripped)
            else:
                yield Item(TEXT, number, stripped, raw=stripped)
        elif blocks_end and COMMENT_START.fullmatch(stripped):
            block = [(number, line)]
        elif COMMENT_END.fullmatch(stripped):
            continue  # the end of a block that never began
        elif m := KEY_LINE.fullmatch(stripped):
            yield Item(KEY, number, m.group(1), m.group(2).strip(), raw=stripped)
        elif previous_board and "#" in line:
            # A row with a stray character, inside a board: a broken board, not a title.
            board = True
            yield Item(BAD_ROW, number, line, raw=line)
        else:
            yield Item(TEXT, number, stripped, raw=stripped)
        previous_board = board


# --- items to levels ------------------------------------------------------------------------


@dataclasses.dataclass
class Parts:
    """What the text says about one level: its rows and everything around them; the
    keyword arguments of :class:`sokoban.Level` besides the cells."""

    rows: list[str]
    title: str = ""
    author: str = ""
    comment: str = ""
    metadata: tuple[tuple[str, str], ...] = ()
    snapshots: tuple[Snapshot, ...] = ()
    #: The first board line's number and text, for errors found later.
    line: int | None = None
    text: str | None = None

    def fields(self) -> dict[str, object]:
        return {
            "title": self.title,
            "author": self.author,
            "comment": self.comment,
            "metadata": self.metadata,
            "snapshots": self.snapshots,
        }


class Reader:
    """Groups items into levels: a head (the title paragraph), a board, and what follows.

    What follows a board belongs to its level until the next board begins; then the last
    paragraph before that board is split off as the next level's head when it is set apart
    by a blank line, or is one text line. A level is handed out then (or at the end), so
    reading holds one level and the text after it. ``header`` and ``metadata`` are the file
    notes, known once the first board is read.
    """

    def __init__(self) -> None:
        self.position = 0
        self.header = ""
        self.metadata: tuple[tuple[str, str], ...] = ()
        self._head: list[Item] = []
        self._board: list[Item] = []
        self._after: list[Item] = []
        self._state = "head"

    def feed(self, item: Item) -> tuple[int, Parts | XsbError] | None:
        done = None
        if item.kind in (BOARD, BAD_ROW):
            if self._state == "board":
                if len(self._board) <= MAX_SIDE:  # one more is enough to refuse the board
                    self._board.append(item)
                return None
            if self._state == "after":
                tail, head = _split(self._after)
                done = self._complete(tail)
                self._head = head
            else:  # the first board: the paragraphs before its own are the file notes
                notes, self._head = _split(self._head, first=True)
                self._take_header(notes)
            self._state = "board"
            self._board = [item]
            self._after = []
            return done
        if self._state == "board":
            self._state = "after"
        (self._after if self._state == "after" else self._head).append(item)
        return None

    def finish(self) -> tuple[int, Parts | XsbError] | None:
        if self._state != "head":
            self._state = "head"
            return self._complete(self._after)
        if self.position == 0:  # no level at all: what there is, is the file notes
            self._take_header(self._head)
        return None

    def _complete(self, tail: list[Item]) -> tuple[int, Parts | XsbError]:
        self.position += 1
        try:
            return self.position, _build(self._head, self._board, tail)
        except XsbError as error:
            first = self._board[0]
            return self.position, error.at(self.position, first.line, first.text)

    def _take_header(self, notes: list[Item]) -> None:
        lines: list[str] = []
        metadata: list[tuple[str, str]] = []
        for item in notes:
            if item.kind in (KEY, INLINE):
                metadata.append((item.text, item.value))
            elif item.kind == COMMENT:
                lines.extend(item.text.split("\n"))
            elif item.kind != BOARD:
                lines.append(item.text)
        self.header = "\n".join(line.rstrip() for line in lines).strip("\n")
        self.metadata = tuple(metadata)


def _split(after: list[Item], first: bool = False) -> tuple[list[Item], list[Item]]:
    """``after`` as (what the level above keeps, the next level's head paragraph)."""
    end = len(after)
    while end and after[end - 1].kind == BLANK:
        end -= 1
    start = end
    while start and after[start - 1].kind != BLANK:
        start -= 1
    paragraph = after[start:end]
    if not paragraph or first:
        return after[:start], after[start:]
    single = len(paragraph) == 1 and paragraph[0].kind in (TEXT, MOVES)
    if single and paragraph[0].kind == MOVES and end < len(after):
        return after, []  # a lone line of moves, not next to the board: a snapshot
    if single or (start > 0 and not any(i.kind in (MOVES, INLINE) for i in paragraph)):
        return after[:start], after[start:]
    return after, []


def _build(head: list[Item], board: list[Item], tail: list[Item]) -> Parts:
    """The parts of a board and the items around it; raises :class:`XsbError`."""
    for item in board:
        if item.kind == BAD_ROW:
            bad = next(c for c in item.text if c not in BOARD_CHARS and c not in _RLE_CHARS)
            raise XsbError(f"unexpected character {bad!r} in a board row", item.line, item.text)
    rows = _decode_rows((item.line, item.text) for item in board)
    title: str | None = None
    author = ""
    metadata: list[tuple[str, str]] = []
    free: list[str] = []  # the head's text lines: the last is the title line
    notes: list[str] = []  # comment lines, in order
    for item in head:
        if item.kind in (TEXT, MOVES, INLINE):
            free.append(item.text if item.kind != INLINE else item.raw)
        elif item.kind == COMMENT:
            notes.append(item.text)
        elif item.kind == KEY:
            key = item.text.lower()
            if key == "title":
                title = item.value
            elif key == "author":
                author = item.value
            elif key == "comment":
                if item.value:
                    notes.append(item.value)
            else:
                metadata.append((item.text, item.value))
    level_notes, groups = _snapshots(tail)
    for item in level_notes:
        if item.kind == KEY and item.text.lower() == "title":
            title = item.value
        elif item.kind == KEY and item.text.lower() == "author":
            author = item.value
        elif item.kind == KEY and item.text.lower() == "comment":
            if item.value:
                notes.append(item.value)
        elif item.kind == KEY:
            metadata.append((item.text, item.value))
        else:
            notes.append(item.text)
    if title is None:
        title = free.pop() if free else ""
    comment = "\n".join([*free, *notes])
    snapshots = tuple(_snapshot(group) for group in groups)
    return Parts(
        rows,
        title=title,
        author=author,
        comment=re.sub(r"\n{3,}", "\n\n", comment).strip("\n"),
        metadata=tuple(metadata),
        snapshots=snapshots,
        line=board[0].line,
        text=board[0].text,
    )


class _Group(NamedTuple):
    title: Item | None
    moves: list[Item]
    notes: list[Item]


#: A line of moves without a move letter: read as moves only after a line of moves.
_MARKS = re.compile(r"[0-9()\[\]<>{}*\s]*[()\[\]<>{}*][0-9()\[\]<>{}*\s]*")


def _snapshots(tail: list[Item]) -> tuple[list[Item], list[_Group]]:
    """The level's own notes, and its snapshots: each a title line, moves, notes."""
    notes: list[Item] = []
    groups: list[_Group] = []
    in_moves = False
    for item in tail:
        target = groups[-1].notes if groups else notes
        if in_moves and (item.kind == MOVES or (item.kind == TEXT and _MARKS.fullmatch(item.raw))):
            groups[-1].moves.append(item)  # a line of marks only (``*``) continues moves
            continue
        if item.kind in (MOVES, INLINE):
            title = None
            lead: list[Item] = []  # ``Moves: 97`` lines between a title and its moves
            if item.kind == MOVES:
                keys = len(target)
                while keys and target[keys - 1].kind == KEY:
                    keys -= 1
                if keys and target[keys - 1].kind == TEXT:
                    lead = target[keys:]
                    del target[keys:]
                    title = target.pop()
            groups.append(_Group(title, [item], lead))
            in_moves = True
            continue
        in_moves = False
        target.append(item)
    return notes, groups


def _snapshot(group: _Group) -> Snapshot:
    first = group.moves[0]
    if first.kind == INLINE:
        title, pieces = first.text, [first.value]
    else:
        title = group.title.raw if group.title is not None else ""
        pieces = [first.text]
    pieces += [item.raw for item in group.moves[1:]]
    moves = "".join("".join(pieces).split())
    try:
        parse_moves(moves)
    except MovesError as error:
        raise XsbError(f"bad solution ({error})", first.line, moves[:60]) from None
    lines: list[str] = []
    for item in group.notes:
        lines.append(item.text if item.kind == COMMENT else item.raw)
    return Snapshot(moves, title=_title(title), notes="\n".join(lines).strip("\n"))


def _title(text: str) -> str:
    return text[:-1].rstrip() if text.endswith(":") else text


def read(lines: Iterable[str | bytes], reader: Reader) -> Iterator[tuple[int, Parts | XsbError]]:
    """The levels' parts (or errors) of the lines, with their 1-based positions."""
    for item in items(numbered(lines)):
        done = reader.feed(item)
        if done is not None:
            yield done
    done = reader.finish()
    if done is not None:
        yield done


# --- levels to lines ------------------------------------------------------------------------


def _reads_as(line: str, *kinds: int) -> bool:
    """Whether ``line`` alone reads back as itself, as an item of one of ``kinds``."""
    found = list(items([(1, line)]))
    return (
        len(found) == 1
        and found[0].kind in kinds
        and (found[0].raw == line or found[0].kind == BLANK)
        and line == line.strip()
    )


def plain_title(title: str) -> bool:
    """Whether a level's title written as a bare line before its board reads back."""
    found = list(items([(1, title)])) if "\n" not in title else []
    return len(found) == 1 and found[0].kind in (TEXT, MOVES) and found[0].text == title


def _block(text: str) -> list[str] | None:
    """Lines that read back as ``text``: a one-line ``Comment:``, or a block."""
    if not text:
        return []
    lines = text.split("\n")
    if any(COMMENT_END.fullmatch(line.strip()) for line in lines):
        return None
    if len(lines) == 1 and text == text.strip() and _reads_as(f"Comment: {text}", KEY):
        return [f"Comment: {text}"]
    return ["Comment:", *lines, "Comment-End:"]


def _notes_lines(notes: str) -> list[str] | None:
    """A snapshot's notes as lines that read back as them, or ``None`` if none do."""
    if not notes:
        return []
    lines = notes.split("\n")
    if all(line and _reads_as(line, TEXT, KEY) for line in lines) and not _MARKS.fullmatch(
        lines[0]
    ):  # a line of marks right below the moves would continue them
        return lines
    if any(COMMENT_END.fullmatch(line.strip()) for line in lines):
        return None
    return ["Comment:", *lines, "Comment-End:"]


def _moves_lines(moves: str, width: int = 70) -> list[str]:
    """Moves text cut into lines of ``width``, each holding a move letter."""
    lines = [moves[i : i + width] for i in range(0, len(moves), width)] or [""]
    if all(MOVES_LINE.fullmatch(line) for line in lines):
        return lines
    return [moves]


def level_lines(
    parts: Parts, board: str, title_line: bool, losses: list[str] | None = None
) -> list[str]:
    """A level as SOK lines: its title line, the board, its notes and its snapshots.

    ``board`` is the board's lines; ``title_line`` asks for an explicit ``Title:`` even for
    an untitled level (after text that would else be taken for its title). What cannot be
    written so that it reads back is said in ``losses`` (when given) and left out.
    """

    def lost(what: str) -> None:
        if losses is not None:
            losses.append(f"{parts.title or 'an untitled level'!r}: {what}")

    lines: list[str] = []
    if plain_title(parts.title):
        lines.append(parts.title)
    elif parts.title or title_line:
        if "\n" in parts.title or not _reads_as(f"Title: {parts.title}".rstrip(), KEY):
            lost("a title that no line can hold")
        lines.append(f"Title: {parts.title}".rstrip())
    lines += board.split("\n")
    if parts.author:
        if "\n" in parts.author:
            lost("an author of several lines")
        lines.append(f"Author: {parts.author.split(chr(10))[0]}")
    comment = _block(parts.comment)
    if comment is None:
        lost("a comment with a Comment-End line")
    else:
        lines += comment
    for key, value in parts.metadata:
        line = f"{key}: {value}".rstrip()
        if not _reads_as(line, KEY) or key.lower() in ("title", "author", "comment"):
            lost(f"the metadata line {line!r}")
            continue
        lines.append(line)
    for snapshot in parts.snapshots:
        lines.append("")
        title = snapshot.title
        if title and not (_reads_as(title, TEXT) and not title.endswith(":")):
            lost(f"the snapshot title {title!r}")
            title = "Snapshot"
        if title:
            lines.append(title)
        lines += _moves_lines(snapshot.moves)
        notes = _notes_lines(snapshot.notes)
        if notes is None:
            lost(f"the notes of the snapshot {title!r}")
        else:
            lines += notes
    return lines


def parse_one(text: str) -> Parts:
    """The parts of the one level of ``text``; raises :class:`XsbError` when the text is
    not exactly one level."""
    results = list(read(text.splitlines(), Reader()))
    if not results:
        raise XsbError("no board rows in the text")
    _, first = results[0]
    if isinstance(first, XsbError):
        raise type(first)(first.reason, first.line, first.text)
    if len(results) > 1:
        raise XsbError(f"the text holds {len(results)} levels, not one")
    return first


def board_lines(board: Cells, rle: bool = False) -> list[str]:
    """The board as lines that read back as its rows: a row without a wall is not a board
    line by itself, so it joins a neighbour with ``|``."""
    if rle:
        return [format_rows(board, rle=True)]
    lines: list[str] = []
    before: list[str] = []  # wall-less rows above the first wall
    for row in format_rows(board).split("\n"):
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
