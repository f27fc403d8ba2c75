"""A griffe extension for the API pages: a docstring's ``>>>`` examples (with their
output, up to a blank line) become ``pycon`` code blocks, which Markdown would otherwise
read as nested quotes. Loaded by mkdocs.yml; not part of the package."""

from __future__ import annotations

from typing import Any

import griffe


def fence(text: str) -> str:
    """``text`` with each run of doctest lines wrapped in a fenced block.

    >>> print(fence("Some text.\\n\\n>>> 1 + 1\\n2\\n\\nMore."))
    Some text.
    <BLANKLINE>
    ```pycon
    >>> 1 + 1
    2
    ```
    <BLANKLINE>
    More.
    """
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
    """Fences the doctest examples of every docstring griffe loads."""

    def on_instance(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        if obj.docstring is not None and ">>>" in obj.docstring.value:
            obj.docstring.value = fence(obj.docstring.value)
