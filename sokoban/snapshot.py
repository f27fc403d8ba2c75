"""Solutions and saved games stored with a level, as SOK files keep them.

A :class:`Snapshot` is a title line (``Solution``, ``Solution (moves)``, ``Save``, ...), the
moves as written and the notes after them. The moves notation is LURD (lower case walks,
upper case pushes, or pulls in reverse mode) with run lengths and groups (``3r``,
``2(lU)``), plus:

- ``[...]`` (or the older ``<...>``): a jump of the player, only in reverse mode; a reverse
  mode game begins with one, even an empty one (``[]U[rr]d``);
- ``{...}``: a change of pusher, in levels with several (Multiban);
- ``*``: the current position of a saved game; the moves after it are the ones undone.

:func:`parse_moves` reads that notation into :class:`Moves`; the text itself is kept as it
is, so that writing a level gives back what was read.

>>> Snapshot("[]U[rr]d").is_reverse, parse_moves("[]U[rr]d").jumps
(True, ((0, 0), (1, 3)))
>>> s = Snapshot("rR*lL", title="Save")
>>> s.is_solution, parse_moves(s.moves).current, s.lurd()
(False, 2, 'rRlL')
"""

from __future__ import annotations

import dataclasses
import re
from typing import NamedTuple

from sokoban import _rle
from sokoban.errors import MovesError

#: Every character a line of moves may hold besides white space.
MOVE_CHARS = frozenset("lurdLURD0123456789()[]<>{}*")
#: A line that is moves: move characters only, and at least one move letter.
MOVES_LINE = re.compile(r"[lurdLURD0-9()\[\]<>{}*\s]*[lurdLURD][lurdLURD0-9()\[\]<>{}*\s]*")
#: The longest moves text expands to (as :data:`sokoban.lurd.MAX_STEPS`).
MAX_MOVES = 1_000_000
_OPEN = {"[": "]", "<": ">", "{": "}"}
_SOLUTION_TITLE = re.compile(r"\bsolution", re.IGNORECASE)


class Moves(NamedTuple):
    """Moves text read: the letters (run lengths expanded, marks left out) and where the
    marks were, as positions in ``letters``.

    - ``jumps``: ``(start, end)`` spans of letters walked as a jump (reverse mode);
    - ``changes``: ``(start, end)`` spans that change the active pusher;
    - ``current``: the number of letters played in the saved position, ``None`` for all.
    """

    letters: str
    jumps: tuple[tuple[int, int], ...] = ()
    changes: tuple[tuple[int, int], ...] = ()
    current: int | None = None


def parse_moves(text: str) -> Moves:
    """Read moves text; raises :class:`MovesError` for anything but the notation above.

    >>> parse_moves("2(rU)[ll]*d")
    Moves(letters='rUrUlld', jumps=((4, 6),), changes=(), current=6)
    """
    for pos, c in enumerate(text):
        if c not in MOVE_CHARS and not c.isspace():
            raise MovesError(f"unexpected character {c!r}", pos)
    try:
        decoded = _rle.decode(text, MAX_MOVES, skip_space=True)
    except _rle.RleError as error:
        raise MovesError(error.reason, error.position) from None
    letters: list[str] = []
    jumps: list[tuple[int, int]] = []
    changes: list[tuple[int, int]] = []
    current: int | None = None
    opened: tuple[str, int] | None = None
    for pos, c in enumerate(decoded):
        if c in _OPEN:
            if opened is not None:
                raise MovesError(f"{c!r} inside {opened[0]!r}", pos)
            opened = (c, len(letters))
        elif c in "]>}":
            if opened is None or _OPEN[opened[0]] != c:
                raise MovesError(f"unmatched {c!r}", pos)
            (changes if opened[0] == "{" else jumps).append((opened[1], len(letters)))
            opened = None
        elif c == "*":
            if current is not None:
                raise MovesError("a second '*'", pos)
            current = len(letters)
        else:
            letters.append(c)
    if opened is not None:
        raise MovesError(f"unclosed {opened[0]!r}", len(decoded))
    return Moves("".join(letters), tuple(jumps), tuple(changes), current)


@dataclasses.dataclass(frozen=True, slots=True)
class Snapshot:
    """One solution or saved game of a level: its moves as written (white space left out),
    its title line and its notes (free lines, ``Key: value`` lines among them).

    A snapshot is a solution when its title says so (``Solution``, ``Solution (moves)``,
    ``Best Solution``, ...) or it has none; other titles (``Save``, ``Snapshot``) are saved
    games.
    """

    moves: str
    title: str = "Solution"
    notes: str = ""

    def __post_init__(self) -> None:
        object.__setattr__(self, "moves", "".join(self.moves.split()))

    @property
    def is_solution(self) -> bool:
        """A solution by its title (an untitled line of moves below a board is one too)."""
        return not self.title or bool(_SOLUTION_TITLE.search(self.title))

    @property
    def is_reverse(self) -> bool:
        """A reverse mode game: pulls from the solved position, begun with a jump."""
        return self.moves.startswith(("[", "<"))

    @property
    def properties(self) -> dict[str, str]:
        """The ``Key: value`` lines of the notes (``Moves: 97``, ``Pushes: 31``, ...)."""
        found = {}
        for line in self.notes.split("\n"):
            key, colon, value = line.partition(":")
            if colon and key.strip() and re.fullmatch(r"[A-Za-z][\w ()/-]*", key.strip()):
                found[key.strip()] = value.strip()
        return found

    def lurd(self) -> str:
        """The moves as LURD for forward play, the ``*`` mark left out (run lengths kept).

        Raises :class:`MovesError` for a reverse mode game or a pusher change: those
        cannot be replayed forward as they are.
        """
        moves = parse_moves(self.moves)
        if moves.jumps or self.is_reverse:
            raise MovesError("a reverse mode game (jumps) is not forward LURD", 0)
        if moves.changes:
            raise MovesError("a pusher change is not LURD of one player", 0)
        return self.moves.replace("*", "")
