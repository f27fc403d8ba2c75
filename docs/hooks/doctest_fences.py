"""A griffe extension for the API pages: a docstring's ``>>>`` examples (with their
output, up to a blank line) become ``pycon`` code blocks, which Markdown would otherwise
read as nested quotes, and reST roles (``:class:`~sokoban.Level```) become code spans.
Loaded by mkdocs.yml; not part of the package."""

from __future__ import annotations

import re
from typing import Any

import griffe

_ROLE = re.compile(r":(?:py:)?(?:class|func|meth|attr|mod|data|exc|obj):`(~?)([^`]+)`")


def roles(text: str) -> str:
    """reST cross-reference roles as Markdown code spans (``~`` keeps the last name).

    >>> roles("see :class:`~sokoban.level.Level` and :func:`sokoban.lurd.replay`")
    'see `Level` and `sokoban.lurd.replay`'
    """
    return _ROLE.sub(
        lambda m: f"`{m.group(2).rsplit('.', 1)[-1] if m.group(1) else m.group(2)}`", text
    )


def fence(text: str) -> str:
    """``text`` with each run of doctest lines (an example, its output, up to a blank line)
    wrapped in a ``pycon`` fenced block (tests/test_docs.py shows one)."""
    out: list[str] = []
    inside = False
    indent = ""
    for line in text.splitlines():
        stripped = line.lstrip()
        if not inside and stripped.startswith(">>>"):
            indent = line[: len(line) - len(stripped)]
            out.append(f"{indent}```pycon")
            inside = True
        elif inside and not stripped:
            out.append(f"{indent}```")
            inside = False
        out.append(line)
    if inside:
        out.append(f"{indent}```")
    return "\n".join(out)


class DoctestFences(griffe.Extension):
    """Fences the doctest examples and rewrites the roles of every docstring griffe loads."""

    def on_instance(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        if obj.docstring is not None:
            obj.docstring.value = roles(fence(obj.docstring.value))
