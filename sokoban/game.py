"""Game state for play: move, undo, redo, restart, and the history as LURD.

The browser game and replays use this class; it is plain Python, one step at a time.
"""

from __future__ import annotations

from sokoban.direction import Direction
from sokoban.level import Level
from sokoban.lurd import Solution, Step, check_player


class Game:
    """A level being played.

    >>> game = Game(Level.from_xsb("#####\\n#@$.#\\n#####"))
    >>> game.move(Direction.RIGHT)
    True
    >>> game.is_solved, game.lurd()
    (True, 'R')
    >>> game.undo(); game.is_solved
    True
    False
    """

    def __init__(self, level: Level) -> None:
        check_player(level)  # InvalidLevelError without exactly one player
        self.start = level
        self.position = level
        self._done: list[Step] = []
        self._undone: list[Step] = []

    @property
    def player(self) -> int:
        return min(self.position.players)

    @property
    def is_solved(self) -> bool:
        return self.position.is_solved

    def can_move(self, direction: Direction) -> bool:
        return self._step(direction) is not None

    def _step(self, direction: Direction) -> Level | None:
        level = self.position
        target = level.neighbour(self.player, direction)
        if target is None or target in level.walls:
            return None
        if target in level.boxes:
            beyond = level.neighbour(target, direction)
            if beyond is None or beyond in level.walls or beyond in level.boxes:
                return None
            return level.moved(boxes=(level.boxes - {target}) | {beyond}, player=target)
        return level.moved(player=target)

    def move(self, direction: Direction) -> bool:
        """Step (and push, if a box is in the way); False when the step is blocked.

        A new move clears the redo list.
        """
        after = self._step(direction)
        if after is None:
            return False
        push = after.boxes != self.position.boxes
        self.position = after
        self._done.append((direction, push))
        self._undone.clear()
        return True

    def play(self, solution: Solution | str) -> int:
        """Play steps until one is blocked; returns how many were played."""
        if isinstance(solution, str):
            solution = Solution.from_lurd(solution)
        for n, (direction, _) in enumerate(solution):
            if not self.move(direction):
                return n
        return len(solution)

    def undo(self) -> bool:
        """Take back the last step; False when there is none."""
        if not self._done:
            return False
        direction, push = self._done.pop()
        level = self.position
        back = level.neighbour(self.player, direction.opposite)
        assert back is not None
        boxes = level.boxes
        if push:
            box = level.neighbour(self.player, direction)
            assert box is not None
            boxes = (boxes - {box}) | {self.player}
        self.position = level.moved(boxes=boxes, player=back)
        self._undone.append((direction, push))
        return True

    def redo(self) -> bool:
        """Play again the last step taken back; False when there is none."""
        if not self._undone:
            return False
        direction, _ = self._undone.pop()
        undone = self._undone
        self._undone = []
        self.move(direction)
        self._undone = undone
        return True

    def restart(self) -> None:
        """Back to the start; the whole history can be redone."""
        while self.undo():
            pass

    @property
    def history(self) -> Solution:
        return Solution(tuple(self._done))

    def lurd(self) -> str:
        return self.history.lurd()

    @property
    def moves(self) -> int:
        return len(self._done)

    @property
    def pushes(self) -> int:
        return sum(1 for _, push in self._done if push)

    def __repr__(self) -> str:
        state = ", solved" if self.is_solved else ""
        return f"<Game {self.moves} moves, {self.pushes} pushes{state}: {self.lurd()!r}>"

    def _repr_html_(self) -> str:
        from sokoban import render

        return render.game_html(self)
