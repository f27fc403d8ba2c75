"""XSB/SOK text: boards, run-length encoded rows, and (later in this module) collections.

Board characters: ``#`` wall; space, ``-`` and ``_`` floor; ``@``/``p`` player; ``+``/``P``
player on goal; ``$``/``b`` box; ``*``/``B`` box on goal; ``.`` goal. A row may be
run-length encoded (``3#4-``, groups ``2(#-)``) and ``|`` separates rows written on one line.
"""

from __future__ import annotations

from sokoban.errors import XsbError
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
_RLE_CHARS = set("0123456789()|")
#: A decoded row longer than this is refused before it is built (a run count like 99999#).
_MAX_ROW = MAX_SIDE


def decode_rle(text: str, line: int | None = None) -> list[str]:
    """Expand a run-length encoded board line into its rows (``|`` splits rows).

    >>> decode_rle("3#|#@$.#|2(#-)")
    ['###', '#@$.#', '#-#-']
    """
    pos = 0

    def parse(depth: int) -> str:
        nonlocal pos
        out: list[str] = []
        while pos < len(text):
            c = text[pos]
            if c == ")":
                if depth == 0:
                    raise XsbError("unmatched ')' in a board row", line, text)
                pos += 1
                return "".join(out)
            count = 0
            digits = False
            while pos < len(text) and text[pos].isdigit():
                count = count * 10 + int(text[pos])
                digits = True
                pos += 1
                if count > _MAX_ROW * MAX_SIDE:
                    raise XsbError("run length too large in a board row", line, text)
            if not digits:
                count = 1
            if pos >= len(text):
                raise XsbError("run length with nothing after it", line, text)
            c = text[pos]
            if c == "(":
                pos += 1
                piece = parse(depth + 1)
            elif c == ")":
                raise XsbError("run length before ')'", line, text)
            else:
                pos += 1
                piece = c
            out.append(piece * count)
            if sum(map(len, out)) > _MAX_ROW * MAX_SIDE:
                raise XsbError("board row too long", line, text)
        if depth:
            raise XsbError("unclosed '(' in a board row", line, text)
        return "".join(out)

    return parse(0).split("|")


def is_board_line(text: str) -> bool:
    """Whether a line of text is a board row: board characters (or RLE) including a wall.

    A word such as ``bob`` is made of board characters but holds no wall, so it is text.
    """
    stripped = text.rstrip()
    if not stripped:
        return False
    if "#" not in stripped:
        return False
    return all(c in BOARD_CHARS or c in _RLE_CHARS for c in stripped)


def board_rows(lines: list[str], first_line: int = 1) -> list[str]:
    """Decode the given board lines into plain rows of canonical characters.

    ``first_line`` is the 1-based line number of ``lines[0]``, for error messages.
    """
    rows: list[str] = []
    for i, raw in enumerate(lines):
        number = first_line + i
        text = raw.rstrip()
        if any(c in _RLE_CHARS for c in text):
            parts = decode_rle(text, number)
        else:
            parts = [text]
        for part in parts:
            row = []
            for c in part:
                if c not in BOARD_CHARS:
                    raise XsbError(f"unexpected character {c!r} in a board row", number, raw)
                row.append(BOARD_CHARS[c])
            rows.append("".join(row))
        if len(rows) > MAX_SIDE:
            raise XsbError(f"board has more than {MAX_SIDE} rows", number, raw)
    for i, row in enumerate(rows):
        if len(row) > MAX_SIDE:
            raise XsbError(f"board row longer than {MAX_SIDE} cells", first_line + i, row)
    return rows


def level_from_rows(rows: list[str], **metadata: object) -> Level:
    """Build a :class:`Level` from decoded rows of canonical characters."""
    # Leading and trailing blank rows carry nothing.
    while rows and not rows[-1].strip():
        rows = rows[:-1]
    while rows and not rows[0].strip():
        rows = rows[1:]
    if not rows:
        raise XsbError("no board")
    width = max(len(r) for r in rows)
    walls, goals, boxes, players = set(), set(), set(), set()
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


def parse_level(text: str) -> Level:
    """One level from XSB text: the board rows, optionally with a title or metadata.

    Lines that are not board rows before the board are read as its title and metadata;
    the first run of board rows is the board.
    """
    lines = text.splitlines()
    start = next((i for i, line in enumerate(lines) if is_board_line(line)), None)
    if start is None:
        raise XsbError("no board rows in the text")
    end = start
    while end < len(lines) and is_board_line(lines[end]):
        end += 1
    title = ""
    for line in reversed(lines[:start]):
        if line.strip():
            title = line.strip()
            break
    rows = board_rows(lines[start:end], start + 1)
    return level_from_rows(rows, title=title)


def format_board(level: Level, rle: bool = False) -> str:
    """Canonical XSB rows of a level (trailing spaces trimmed), optionally run-length encoded."""
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
