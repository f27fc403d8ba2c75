"""Run-length decoding shared by board rows (XSB) and solutions (LURD).

A count before a character or a parenthesised group repeats it (``3#``, ``2(lr)``); groups
nest. Characters other than digits and parentheses are copied as they are: the caller
checks them. Errors carry the position in the encoded text, so each format can quote its
input in its own error type.
"""

from __future__ import annotations


class RleError(ValueError):
    """A malformed run-length text: ``reason`` at ``position``; ``too_long`` when the text
    is well formed but decodes to more than the limit."""

    def __init__(self, reason: str, position: int, too_long: bool = False) -> None:
        super().__init__(reason)
        self.reason = reason
        self.position = position
        self.too_long = too_long


def decode(text: str, limit: int, max_depth: int = 16, skip_space: bool = False) -> str:
    """``text`` with every run and group expanded; at most ``limit`` characters are built
    (a longer result is refused before it is made) and groups nest at most ``max_depth``
    deep. With ``skip_space`` white space is dropped (solutions), else copied (boards).

    >>> decode("3#|2(#-)", 100)
    '###|#-#-'
    """
    pos = 0
    size = 0  # characters decoded so far, outside and inside the open groups

    def group(depth: int) -> str:
        nonlocal pos, size
        out: list[str] = []
        while pos < len(text):
            start = pos
            if skip_space and text[pos].isspace():
                pos += 1
                continue
            count = 0
            digits = False
            while pos < len(text) and "0" <= text[pos] <= "9":
                count = count * 10 + ord(text[pos]) - 48
                digits = True
                pos += 1
                if count > limit:
                    raise RleError("run length too large", start)
            if not digits:
                count = 1
            if pos >= len(text):
                raise RleError("run length with nothing after it", start)
            c = text[pos]
            pos += 1
            if skip_space and c.isspace():
                raise RleError("white space after a run length", pos - 1)
            if c == ")":
                if digits:
                    raise RleError("run length before ')'", start)
                if depth == 0:
                    raise RleError("unmatched ')'", start)
                return "".join(out)
            if c == "(":
                if depth >= max_depth:
                    raise RleError("groups nested too deep", start)
                before = size
                piece = group(depth + 1)
                size = before  # the group's text is counted again below, times count
            else:
                piece = c
            size += len(piece) * count
            if size > limit:
                raise RleError(f"longer than {limit:,} once decoded", start, too_long=True)
            out.append(piece * count)
        if depth:
            raise RleError("unclosed '('", len(text))
        return "".join(out)

    return group(0)
