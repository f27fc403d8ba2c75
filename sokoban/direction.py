"""The four directions the player can move in, and their LURD letters."""

from __future__ import annotations

import enum


class Direction(enum.Enum):
    """A direction of movement; ``value`` is the lower-case LURD letter.

    >>> Direction.from_char("U")
    <Direction.UP: 'u'>
    >>> Direction.LEFT.dx, Direction.LEFT.dy
    (-1, 0)
    """

    LEFT = "l"
    UP = "u"
    RIGHT = "r"
    DOWN = "d"

    @property
    def dx(self) -> int:
        return _DX[self.value]

    @property
    def dy(self) -> int:
        return _DY[self.value]

    @property
    def char(self) -> str:
        """The lower-case letter (a walk); ``char.upper()`` is the push."""
        return self.value

    @property
    def opposite(self) -> Direction:
        return _OPPOSITE[self]

    def offset(self, width: int) -> int:
        """The change of cell index for one step on a board ``width`` cells wide."""
        return self.dy * width + self.dx

    @classmethod
    def from_char(cls, char: str) -> Direction:
        """The direction of a LURD letter, in either case."""
        try:
            return cls(char.lower())
        except ValueError:
            raise ValueError(f"not a direction: {char!r}") from None


_DX = {"l": -1, "u": 0, "r": 1, "d": 0}
_DY = {"l": 0, "u": -1, "r": 0, "d": 1}
_OPPOSITE = {
    Direction.LEFT: Direction.RIGHT,
    Direction.RIGHT: Direction.LEFT,
    Direction.UP: Direction.DOWN,
    Direction.DOWN: Direction.UP,
}

#: The directions in a fixed order (left, up, right, down), the order kernels use too.
DIRECTIONS: tuple[Direction, ...] = (Direction.LEFT, Direction.UP, Direction.RIGHT, Direction.DOWN)
