"""The errors of the toolkit: every one is a ``ValueError`` that quotes the bad input."""

from __future__ import annotations


class SokobanError(ValueError):
    """Base class of the errors raised for bad input."""


class XsbError(SokobanError):
    """A level or collection that cannot be read: names the line and quotes it."""

    def __init__(self, message: str, line: int | None = None, text: str | None = None) -> None:
        self.reason = message
        self.line = line
        self.text = text
        where = ""
        if line is not None:
            where = f" at line {line}"
            if text is not None:
                where += f": {text!r}"
        super().__init__(f"{message}{where}")


class BoardTooLargeError(XsbError):
    """A board over the size limits (100 x 100, 2,000 interior floor cells)."""


class LurdError(SokobanError):
    """A solution string that is not LURD: quotes the text and the bad position."""


class IllegalMoveError(SokobanError):
    """A step of a solution that cannot be played: names the step and its 0-based index."""

    def __init__(self, message: str, index: int, step: str) -> None:
        self.index = index
        self.step = step
        super().__init__(f"illegal step {step!r} at index {index}: {message}")
