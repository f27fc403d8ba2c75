"""Solutions in LURD: parse and format, replay on a level, and solution metrics.

Lower-case letters are walks, upper case pushes. Input may be in any case and run-length
encoded (``3r``, ``2(lU)``); replay finds out which steps push, and :meth:`Solution.lurd`
writes them canonically.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING

from sokoban import _rle
from sokoban.direction import Direction
from sokoban.errors import IllegalMoveError, InvalidLevelError, LurdError, UnsolvedError

if TYPE_CHECKING:  # levels are only read here: level.py imports this module, not back
    from sokoban.level import Level

#: One step: the direction and whether it pushes a box.
Step = tuple[Direction, bool]


@dataclasses.dataclass(frozen=True, slots=True)
class Solution:
    """A sequence of steps; ``pushes`` flags come from the letters' case until replayed.

    >>> s = Solution.from_lurd("2(rU)d")
    >>> s.lurd()
    'rUrUd'
    >>> len(s), s.pushes
    (5, 2)
    """

    steps: tuple[Step, ...] = ()

    @classmethod
    def from_lurd(cls, text: str) -> Solution:
        """Parse LURD text; whitespace is ignored, run lengths and groups are expanded."""
        return cls(tuple(_parse(text)))

    def lurd(self) -> str:
        """Canonical LURD: lower case walks, upper case pushes."""
        return "".join(d.value.upper() if push else d.value for d, push in self.steps)

    def __str__(self) -> str:
        return self.lurd()

    def __repr__(self) -> str:
        return f"Solution.from_lurd({self.lurd()!r})"

    def __len__(self) -> int:
        return len(self.steps)

    def __iter__(self) -> Iterator[Step]:
        return iter(self.steps)

    def __add__(self, other: Solution) -> Solution:
        return Solution(self.steps + other.steps)

    @property
    def moves(self) -> int:
        return len(self.steps)

    @property
    def pushes(self) -> int:
        return sum(1 for _, push in self.steps if push)


#: The longest solution text expands to; more is refused before it is built. Real solutions
#: run to thousands of steps; a million keeps ten bytes of RLE from costing a gigabyte.
MAX_STEPS = 1_000_000


#: What a solution text may hold besides white space: moves, pushes, run lengths, groups.
_LURD_TEXT = frozenset("lurdLURD0123456789()")
_STEPS: dict[str, Step] = {c: (Direction(c.lower()), c.isupper()) for c in "lurdLURD"}


def _quote(text: str, pos: int) -> str:
    """The text, or for long text an excerpt around ``pos``, quoted."""
    if len(text) <= 80:
        return repr(text)
    start = max(0, pos - 30)
    excerpt = text[start : start + 60]
    return ("..." if start else "") + repr(excerpt) + ("..." if start + 60 < len(text) else "")


def _parse(text: str) -> Iterator[Step]:
    for pos, c in enumerate(text):
        if c not in _LURD_TEXT and not c.isspace():
            raise LurdError(f"unexpected character {c!r} at position {pos}: {_quote(text, pos)}")
    try:
        decoded = _rle.decode(text, MAX_STEPS, skip_space=True)
    except _rle.RleError as error:
        if error.too_long:
            reason = f"solution longer than {MAX_STEPS:,} steps"
            raise LurdError(f"{reason}: {_quote(text, error.position)}") from None
        where = f" at position {error.position}" if error.position < len(text) else " in"
        raise LurdError(f"{error.reason}{where}: {_quote(text, error.position)}") from None
    for c in decoded:
        yield _STEPS[c]


@dataclasses.dataclass(frozen=True, slots=True)
class Metrics:
    """Secondary measures of a solution, as Sokoban players count them.

    - ``moves``: every step; ``pushes``: steps that move a box.
    - ``box_lines``: runs of pushes of one box in one direction with no other step between.
    - ``box_changes``: times the pushed box differs from the box pushed before (the first
      push counts one).
    - ``pushing_sessions``: runs of consecutive pushes, of any boxes.
    - ``player_lines``: runs of steps in one direction, pushes and walks alike.
    """

    moves: int
    pushes: int
    box_lines: int
    box_changes: int
    pushing_sessions: int
    player_lines: int


@dataclasses.dataclass(frozen=True, slots=True)
class Replay:
    """What playing a solution gave: the final position, the solution with its real pushes,
    the metrics, the box each push moved (its cell before the push), and the start.

    >>> from sokoban import Level
    >>> played = replay(Level.from_xsb("######\\n#@$ .#\\n######"), "RR")
    >>> [position.player for position in played.frames()]
    [7, 8, 9]
    >>> len(list(played.frames(every="push"))), played.is_solved
    (3, True)
    """

    final: Level
    solution: Solution
    metrics: Metrics
    pushed_cells: tuple[int, ...]
    start: Level | None = None

    @property
    def is_solved(self) -> bool:
        return self.final.is_solved

    def frames(self, every: str = "move") -> Iterator[Level]:
        """The positions of the replay: the start, then the position after every move
        (``every="move"``) or after every push (``every="push"``), the last one final."""
        if every not in ("move", "push"):
            raise ValueError(f"every must be 'move' or 'push', not {every!r}")
        if self.start is None:
            raise ValueError("this replay does not know its start position")
        position = self.start
        yield position
        player = min(position.players)
        boxes = set(position.boxes)
        pushes = iter(self.pushed_cells)
        last = len(self.solution) - 1
        for index, (direction, push) in enumerate(self.solution):
            target = position.neighbour(player, direction)
            assert target is not None
            if push:
                box = next(pushes)
                beyond = position.neighbour(box, direction)
                assert beyond is not None
                boxes.discard(box)
                boxes.add(beyond)
            player = target
            if every == "move" or push or index == last:
                yield position.moved(boxes=boxes, player=player)

    def _repr_html_(self) -> str:
        from sokoban import render

        return render.replay_html(self)


def replay(level: Level, solution: Solution | str) -> Replay:
    """Play ``solution`` from ``level``'s position.

    A step into a wall, into a box that cannot move, or off the board raises
    :class:`IllegalMoveError` naming its index. Letter case is not trusted: a step that
    moves a box is a push whatever its case, and a capital that moves no box is a walk.
    A level without exactly one player raises :class:`InvalidLevelError`.
    """
    if isinstance(solution, str):
        solution = Solution.from_lurd(solution)
    check_player(level)
    width, height = level.width, level.height
    # Cells of the grid with a frame around it: a step is one addition, and a step off the
    # board lands on the frame, so one set lookup stops walls and edges alike (replay
    # checks every solution the solver returns, and this costs less per step than x, y).
    wide = width + 2
    offsets = {d.value: d.offset(wide) for d in Direction}

    def framed(cell: int) -> int:
        return (cell // width + 1) * wide + cell % width + 1

    def plain(cell: int) -> int:
        return (cell // wide - 1) * width + cell % wide - 1

    frame = {y * wide + x for y in (0, height + 1) for x in range(wide)}
    frame |= {y * wide + x for y in range(1, height + 1) for x in (0, wide - 1)}
    blocked = frame | {framed(c) for c in level.walls}
    boxes = {framed(c) for c in level.boxes}
    player = framed(min(level.players))
    steps: list[Step] = []
    pushed: list[int] = []
    # Box identity for box changes: follow each box as it moves (framing keeps the order).
    box_id = {cell: i for i, cell in enumerate(sorted(boxes))}
    box_lines = box_changes = sessions = player_lines = 0
    last_box = -1
    last_letter = ""
    last_push = False
    for index, (direction, _) in enumerate(solution.steps):
        # The member's plain attribute: the ``value`` descriptor costs more than the step.
        letter = direction._value_
        offset = offsets[letter]
        target = player + offset
        if target in blocked:
            reason = "off the board" if target in frame else "into a wall"
            raise IllegalMoveError(reason, index, letter)
        push = target in boxes
        if push:
            beyond = target + offset
            if beyond in blocked or beyond in boxes:
                raise IllegalMoveError("the box cannot move there", index, letter.upper())
            boxes.remove(target)
            boxes.add(beyond)
            ident = box_id.pop(target)
            box_id[beyond] = ident
            pushed.append(plain(target))
            if ident != last_box:
                box_changes += 1
            if not (last_push and ident == last_box and letter == last_letter):
                box_lines += 1
            if not last_push:
                sessions += 1
            last_box = ident
        if letter != last_letter:
            player_lines += 1
        last_letter = letter
        last_push = push
        player = target
        steps.append((direction, push))
    final = level.moved(boxes=map(plain, boxes), player=plain(player))
    metrics = Metrics(
        moves=len(steps),
        pushes=len(pushed),
        box_lines=box_lines,
        box_changes=box_changes,
        pushing_sessions=sessions,
        player_lines=player_lines,
    )
    return Replay(final, Solution(tuple(steps)), metrics, tuple(pushed), level)


def check_player(level: Level) -> None:
    """Raise :class:`InvalidLevelError` unless the level has exactly one player."""
    if not level.players:
        raise InvalidLevelError("the level has no player")
    if len(level.players) > 1:
        raise InvalidLevelError(f"the level has {len(level.players)} players, not one")


def verify(level: Level, solution: Solution | str) -> Replay:
    """Replay and insist the level ends solved.

    Raises what :func:`replay` raises, :class:`InvalidLevelError` for a level whose boxes
    and goals differ in number (no solution can solve it), and :class:`UnsolvedError`
    (saying how many boxes are left off goals) when every step plays but the level is not
    solved.

    >>> from sokoban import Level
    >>> verify(Level.from_xsb("######\\n#@$ .#\\n######"), "R")
    Traceback (most recent call last):
    ...
    sokoban.errors.UnsolvedError: the solution ends with 1 box off goals after 1 move
    """
    if len(level.boxes) != len(level.goals):
        raise InvalidLevelError(
            f"the level has {len(level.boxes)} boxes and {len(level.goals)} goals"
        )
    result = replay(level, solution)
    if not result.is_solved:
        final = result.final
        raise UnsolvedError(len(result.solution), len(final.boxes - final.goals))
    return result


def walk(level: Level, start: int, goal: int, blocked: Iterable[int] = ()) -> Solution | None:
    """A shortest walk (no pushes) from ``start`` to ``goal`` around walls, boxes and
    ``blocked`` cells, or ``None`` when there is none."""
    from collections import deque

    obstacles = level.walls | level.boxes | frozenset(blocked)
    if start == goal:
        return Solution()
    came: dict[int, tuple[int, Direction]] = {start: (start, Direction.UP)}
    todo = deque([start])
    while todo:
        cell = todo.popleft()
        for direction, n in level.neighbours(cell):
            if n in came or n in obstacles:
                continue
            came[n] = (cell, direction)
            if n == goal:
                path: list[Step] = []
                while n != start:
                    prev, d = came[n]
                    path.append((d, False))
                    n = prev
                return Solution(tuple(reversed(path)))
            todo.append(n)
    return None


def from_reverse(level: Level, moves: str) -> Solution:
    """The forward solution of a reverse mode game (SOK notation, see
    :mod:`sokoban.snapshot`): the game starts with the boxes on the goals and the player on
    its cell, pulls boxes (upper case letters) and walks or jumps (``[...]``) around them,
    and ends with the boxes on their start cells. Played backwards, its pulls are pushes and
    its walks and jumps are walks; a walk to where the game ended comes first.

    Raises :class:`IllegalMoveError` for a step that cannot be played backwards,
    :class:`UnsolvedError` when the game does not end on the level's start, and
    :class:`~sokoban.errors.MovesError` for text that is not moves.

    >>> from sokoban import Level
    >>> level = Level.from_xsb("######\\n#@ $.#\\n######")
    >>> from_reverse(level, "[rr]L").lurd()
    'rRll'
    """
    from sokoban.snapshot import parse_moves

    check_player(level)
    parsed = parse_moves(moves)
    if len(level.boxes) != len(level.goals):
        raise InvalidLevelError(
            f"the level has {len(level.boxes)} boxes and {len(level.goals)} goals"
        )
    boxes = set(level.goals)
    origin = player = level.player
    assert origin is not None and player is not None  # check_player
    in_jump = [False] * len(parsed.letters)
    for start, end in parsed.jumps:
        for i in range(start, end):
            in_jump[i] = True
    for index, letter in enumerate(parsed.letters):
        direction = Direction(letter.lower())
        target = level.neighbour(player, direction)
        if target is None or target in level.walls or target in boxes:
            raise IllegalMoveError("into a wall or a box", index, letter)
        if letter.isupper():
            if in_jump[index]:
                raise IllegalMoveError("a pull inside a jump", index, letter)
            behind = level.neighbour(player, direction.opposite)
            if behind is None or behind not in boxes:
                raise IllegalMoveError("a pull with no box behind the player", index, letter)
            boxes.remove(behind)
            boxes.add(player)
        player = target
    if boxes != level.boxes:
        raise UnsolvedError(len(parsed.letters), len(boxes - level.boxes))
    lead = walk(level, origin, player) if origin != player else Solution()
    if lead is None:
        raise IllegalMoveError("the player cannot walk to where the game ends", 0, "")
    back = tuple(
        (Direction(letter.lower()).opposite, letter.isupper())
        for letter in reversed(parsed.letters)
    )
    return lead + Solution(back)
